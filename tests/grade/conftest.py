"""The grader's tests: whether bubblewrap can isolate submissions here, and a loud banner when it cannot.

Tests that run learner code (the hostile corpus above all) need a working
bubblewrap sandbox. Without it they are SKIPPED on a laptop, with a banner at
the end of the run, and they FAIL under ``CI=true`` (``.ci/run`` installs
bubblewrap, so CI always proves the isolation).
"""

from __future__ import annotations

import functools
import os

import pytest

from helpers.grade import isolation

_SKIPPED: list[str] = []


def _on_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


@functools.cache
def sandbox_problem() -> str | None:
    """Why bubblewrap cannot isolate a submission here (``None`` when it can: a sandbox was started)."""
    try:
        with isolation.prepare(isolation.BUBBLEWRAP, ("numpy",)):
            return None
    except isolation.SandboxUnavailable as exc:
        return str(exc)


@pytest.fixture(scope="session")
def bwrap():
    """Skip loudly without a working bubblewrap; fail on CI."""
    problem = sandbox_problem()
    if problem:
        if _on_ci():
            pytest.fail(f"CI=true but the grader's sandbox cannot run: {problem}. .ci/run must install bubblewrap.",
                        pytrace=False)
        _SKIPPED.append(problem)
        pytest.skip(f"GRADER ISOLATION TEST SKIPPED: {problem}. {isolation.INSTALL_HELP}")


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Say loudly when the isolation tests did not run."""
    if _SKIPPED:
        tr = terminalreporter
        tr.write_sep("!", "GRADER ISOLATION TESTS SKIPPED", red=True, bold=True)
        tr.write_line(f"The sandbox tests of helpers.grade did NOT run: {sorted(set(_SKIPPED))[0]}.", red=True, bold=True)
        tr.write_line(isolation.INSTALL_HELP, red=True, bold=True)
        tr.write_line("CI (CI=true) fails instead of skipping.", red=True, bold=True)


@pytest.fixture(scope="session")
def trusted_mode() -> str:
    """Isolation for notebooks the project wrote itself: the sandbox where it works, else the unsafe mode."""
    return isolation.BUBBLEWRAP if sandbox_problem() is None else isolation.UNSAFE
