"""The grader's tests: whether bubblewrap can isolate submissions here, and a loud banner when it cannot.

Tests that run learner code (the hostile corpus above all) need a working
bubblewrap sandbox. Without it they are SKIPPED on a laptop, with the banner of
``tests/conftest.py``'s ``require`` at the end of the run, and they FAIL under
``CI=true`` (``.ci/run`` installs bubblewrap, so CI always proves the isolation).
"""

from __future__ import annotations

import functools

import pytest

from helpers.grade import isolation


@functools.cache
def sandbox_problem() -> str | None:
    """Why bubblewrap cannot isolate a submission here (``None`` when it can: a sandbox was started)."""
    try:
        with isolation.prepare(isolation.BUBBLEWRAP, ("numpy",)):
            return None
    except isolation.SandboxUnavailable as exc:
        return str(exc)


@pytest.fixture(scope="session")
def bwrap(require):
    """Skip loudly without a working bubblewrap
    (tests/conftest.py's require: a banner, and a failure on CI)."""
    problem = sandbox_problem()
    require("a working bubblewrap sandbox", problem is None, isolation.INSTALL_HELP, problem or "")


@pytest.fixture(scope="session")
def trusted_mode() -> str:
    """Isolation for notebooks the project wrote itself: the sandbox where it works, else the unsafe mode."""
    return isolation.BUBBLEWRAP if sandbox_problem() is None else isolation.UNSAFE
