"""Fixtures shared by every test folder (tests mirror the package: library/, course/, grade/, experiments/).

- ``require``: how a test says it needs a real component (the grader's tests: bubblewrap). Where
  the component is missing the test is SKIPPED loudly, with the install line, and listed again in
  a banner at the end of the run; under ``CI=true`` it FAILS instead, because ``.ci/run`` installs
  every component and CI must prove the real path. (tests/browser and tests/spark keep their own
  banners, whose texts their tests check.)
"""

from __future__ import annotations

import os

import pytest

_MISSING: dict[str, str] = {}


def on_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def _require(component: str, available: object, how_to_install: str, reason: str = "") -> None:
    if available:
        return
    why = f" ({reason})" if reason else ""
    if on_ci():
        pytest.fail(
            f"CI=true but {component} is missing{why}; .ci/run must install it. {how_to_install}",
            pytrace=False,
        )
    _MISSING[component] = how_to_install
    pytest.skip(f"{component.upper()} MISSING{why}: TEST SKIPPED. {how_to_install}")


@pytest.fixture(scope="session")
def require():
    """``require(component, available, how_to_install, reason="")``: skip loudly (fail on CI)
    when not available."""
    return _require


def pytest_terminal_summary(terminalreporter):
    if _MISSING:
        terminalreporter.section("REAL COMPONENTS MISSING: their tests were SKIPPED", sep="!")
        for component, how in sorted(_MISSING.items()):
            terminalreporter.write_line(f"  {component}: {how}")
