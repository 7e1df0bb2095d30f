"""Fixtures shared by every test folder (tests mirror the package: library/, course/, grade/, experiments/).

- ``require``: how a test says it needs a real component (the grader's tests: bubblewrap). Where
  the component is missing the test is SKIPPED loudly, with the install line, and listed again in
  a banner at the end of the run; under ``CI=true`` it FAILS instead, because ``.ci/run`` installs
  every component and CI must prove the real path. (tests/browser and tests/spark keep their own
  banners, whose texts their tests check.)
- the two workers of ``make test`` (pytest-xdist, ``-n 2 --dist loadscope``): which tests must run
  together on one worker (``xdist_scope``), and the end-of-run banners carried from the workers to
  the terminal.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

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
    for calls in _FROM_WORKERS:  # the other conftests' banners, from the xdist workers
        for method, args, kwargs in calls:
            getattr(terminalreporter, method)(*args, **kwargs)


# ------------------------------------------------------------------ two workers (pytest-xdist)
# make test runs pytest with two workers (``-n 2 --dist loadscope``). The scopes are this file's: a test goes
# to whichever worker is free, except a notebook's cells and the groups below, each of which runs whole, in
# its order, on one worker. (xdist's own ``xdist_group`` mark renames node ids, which pytest 9 ignores.)
XDIST_GROUPS = {
    # one JupyterLab and one Chromium per module, and both modules empty the same screenshots/browser/ folder
    "tests/browser/": "browser",
    # one local[2] Spark session (a JVM) for all of them
    "tests/spark/": "spark",
    # both build wheels in place from this checkout (setuptools' build/ and *.egg-info folders)
    "tests/test_wheel.py": "wheel-builds",
    "tests/grade/test_install.py": "wheel-builds",
}
# A module that defines a fixture shared by its tests (module, class or session scope: a venv, a graded
# class, a fitted model) runs whole on one worker too, which builds the fixture once instead of twice.
_SHARED_FIXTURE = re.compile(r"""scope=["'](?:module|class|package|session)["']""")
_ROOT = Path(__file__).resolve().parents[1]


@functools.cache
def _shares_a_fixture(path: str) -> bool:
    file = _ROOT / path
    return file.suffix == ".py" and file.is_file() and bool(_SHARED_FIXTURE.search(file.read_text("utf-8")))


def xdist_scope(nodeid: str) -> str:
    """The unit of work a test belongs to; a unit runs whole, in order, on one xdist worker.

    >>> xdist_scope("notebooks/03-average-precision.ipynb::Cell 4")
    'notebooks/03-average-precision.ipynb'
    >>> xdist_scope("tests/spark/test_spark.py::test_ndcg")
    'spark'
    >>> xdist_scope("tests/grade/test_grade.py::test_cli_exits_zero")  # its corpus is graded once
    'tests/grade/test_grade.py'
    >>> xdist_scope("tests/library/test_metrics.py::test_p[3]")
    'tests/library/test_metrics.py::test_p[3]'
    """
    path = nodeid.split("::", 1)[0]
    if path.endswith(".ipynb"):
        return path  # nbval runs a notebook's cells in one kernel, started for the notebook
    for prefix, group in XDIST_GROUPS.items():
        if path.startswith(prefix):
            return group
    return path if _shares_a_fixture(path) else nodeid


@pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook (the `test` extra), called on the controller
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ScopeScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return xdist_scope(nodeid)

    return ScopeScheduling(config, log)


# Under xdist the end-of-run banners of the tests' conftests (this one's, tests/browser's, tests/spark's) are
# written by the workers, whose terminal nobody sees: each worker records what they write and sends it to the
# controller, which writes it (once, when both workers said the same).
class _Recorder:
    """Stands in for the terminal reporter in a worker: remembers what a banner writes."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, list, dict]] = []

    def write_sep(self, *args, **kwargs) -> None:
        self.calls.append(("write_sep", list(args), kwargs))

    def write_line(self, *args, **kwargs) -> None:
        self.calls.append(("write_line", list(args), kwargs))

    def section(self, *args, **kwargs) -> None:
        self.calls.append(("section", list(args), kwargs))


def _banner_plugins(config) -> list:
    """This folder's conftest modules below this one that write a banner."""
    here = Path(__file__).resolve().parent
    return [
        plugin
        for plugin in config.pluginmanager.get_plugins()
        if hasattr(plugin, "pytest_terminal_summary")
        and str(getattr(plugin, "__file__", "")).startswith(str(here) + os.sep)
        and Path(plugin.__file__).resolve() != Path(__file__).resolve()
    ]


def pytest_sessionfinish(session, exitstatus):
    output = getattr(session.config, "workeroutput", None)
    if output is None:  # not an xdist worker
        return
    output["missing_components"] = dict(_MISSING)
    banners = []
    for plugin in _banner_plugins(session.config):
        recorder = _Recorder()
        plugin.pytest_terminal_summary(
            terminalreporter=recorder, exitstatus=exitstatus, config=session.config
        )
        banners.append(recorder.calls)
    output["banners"] = banners


_FROM_WORKERS: list = []


@pytest.hookimpl(optionalhook=True)  # an xdist hook: called on the controller as each worker ends
def pytest_testnodedown(node, error):
    output = getattr(node, "workeroutput", {})
    _MISSING.update(output.get("missing_components", {}))
    for calls in output.get("banners", []):
        if calls and calls not in _FROM_WORKERS:
            _FROM_WORKERS.append(calls)
