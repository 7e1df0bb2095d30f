"""Fixtures for the real-browser JupyterLab test, and its loud skip message.

The browser test needs Debian's Chromium (``/usr/bin/chromium``) and the Python package
``playwright``. Without them it is skipped on a laptop, with a banner at the end of the pytest
run, and it FAILS when ``CI=true``: CI must prove the real path (``.ci/run`` installs Chromium).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
NOTEBOOK_DIR = REPO / "notebooks"
SCREENSHOT_DIR = REPO / "screenshots" / "browser"
HOW_TO_ENABLE = (
    "install Chromium with `sudo apt-get install chromium` (Debian/Ubuntu; or point COURSE_CHROMIUM "
    "at a Chromium binary) and the playwright package with `.venv/bin/pip install -e .`; "
    "never run `playwright install`"
)


def _load_driver():
    # tests/ runs with --import-mode=importlib, so sibling modules are not importable by name.
    name = "course_browser_lab_driver"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE / "lab_driver.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


driver = _load_driver()

_REPORT: dict = {"skipped": [], "runs": [], "server_seconds": None, "started": None, "finished": None}


def _on_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def skip_or_fail(reason: str) -> None:
    """Skip loudly on a laptop; fail on CI, where the browser test must run for real."""
    if _on_ci():
        pytest.fail(
            f"CI=true but the browser test cannot run: {reason}. .ci/run must install Chromium "
            "and the project dependencies (playwright).",
            pytrace=False,
        )
    _REPORT["skipped"].append(reason)
    pytest.skip(f"BROWSER TEST SKIPPED: {reason}. To run it: {HOW_TO_ENABLE}.")


def skip_missing_notebook(name: str) -> None:
    """A listed notebook that is not written yet: skip loudly (on CI too; notebook 0 is required)."""
    reason = f"notebooks/{name} does not exist (yet); edit NOTEBOOKS in tests/browser/test_jupyterlab.py"
    _REPORT["skipped"].append(reason)
    pytest.skip(f"BROWSER TEST SKIPPED for {name}: {reason}")


def _digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.glob("*.ipynb"))}


class LabFixture:
    """One JupyterLab server on a temporary copy of notebooks/, and one Chromium, per module."""

    def __init__(self, server, browser):
        self.server = server
        self.browser = browser
        self.repo_digest_before = _digest(NOTEBOOK_DIR)

    notebook_dir = NOTEBOOK_DIR
    course_data: Path | None = None  # the real MovieLens 100K cache the kernels read, when the wheel is there

    def run(self, name: str, answers=()):
        """Run ``notebooks/<name>`` through the UI, then type ``answers``;
        return the run and the problems found."""
        committed = json.loads((NOTEBOOK_DIR / name).read_text(encoding="utf-8"))
        run = driver.run_notebook(self.browser, self.server, name, SCREENSHOT_DIR, answers=tuple(answers))
        _REPORT["runs"].append(run)
        return run, driver.problems(run, committed)

    skip_missing = staticmethod(skip_missing_notebook)

    def repo_digest_now(self) -> dict[str, str]:
        return _digest(NOTEBOOK_DIR)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A running JupyterLab (temporary copy of the course) plus a headless system Chromium."""
    missing = driver.missing_requirements()
    if missing:
        skip_or_fail("missing " + " and ".join(missing))
    if not (NOTEBOOK_DIR / "00-start-here.ipynb").is_file():
        pytest.fail(
            "notebooks/00-start-here.ipynb does not exist: the browser test opens it first", pytrace=False
        )
    from playwright.sync_api import sync_playwright

    _REPORT["started"] = time.monotonic()
    if SCREENSHOT_DIR.is_dir():  # keep only this run's screenshots
        for old in SCREENSHOT_DIR.glob("*.png"):
            old.unlink()
    tmp = tmp_path_factory.mktemp("jupyterlab")
    root = tmp / "course"
    root.mkdir()
    driver.copy_course(NOTEBOOK_DIR, root)
    course_data = _real_movielens(tmp / "course-data")
    t0 = time.monotonic()
    server = driver.start_lab(root, tmp / "jupyter-home")
    _REPORT["server_seconds"] = time.monotonic() - t0
    try:
        with sync_playwright() as playwright:
            browser = driver.launch_browser(playwright)
            try:
                fixture = LabFixture(server, browser)
                fixture.course_data = course_data
                yield fixture
            finally:
                browser.close()
    finally:
        server.stop()
        _REPORT["finished"] = time.monotonic()
        if course_data is not None:
            os.environ.pop("TOPK_COURSE_DATA", None)


def _real_movielens(folder: Path) -> Path | None:
    """The real MovieLens 100K in a cache the server's kernels read (TOPK_COURSE_DATA).

    None without the wheel.

    The capstone notebook loads the real ratings; here they come from the RecBole wheel through the
    loader's own download code on 127.0.0.1 (tests/movielens_wheel.py), never from the internet. Without the
    wheel the
    capstone's browser run is skipped loudly by the test itself (tests/conftest.py's ``require``).
    """
    from tests import movielens_wheel as real

    wheel = real.find_wheel()
    if wheel is None:
        return None
    real.provision(folder, wheel)
    os.environ["TOPK_COURSE_DATA"] = str(folder)  # the server copies os.environ for its kernels
    return folder


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Say loudly when the browser test was skipped; otherwise give its timings and screenshots."""
    tr = terminalreporter
    if _REPORT["skipped"]:
        tr.write_sep("!", "BROWSER TEST SKIPPED", red=True, bold=True)
        for reason in sorted(set(_REPORT["skipped"])):
            tr.write_line(f"The JupyterLab browser test did NOT run: {reason}.", red=True, bold=True)
        tr.write_line(f"To enable it: {HOW_TO_ENABLE}.", red=True, bold=True)
        tr.write_line("CI (CI=true) fails instead of skipping.", red=True, bold=True)
    if _REPORT["runs"]:
        tr.write_sep("-", "JupyterLab browser test")
        if _REPORT["started"] is not None and _REPORT["finished"] is not None:
            tr.write_line(
                f"total {_REPORT['finished'] - _REPORT['started']:.1f} s "
                f"(server start {_REPORT['server_seconds']:.1f} s)"
            )
        for run in _REPORT["runs"]:
            tr.write_line(
                f"{run.name}: {run.seconds:.1f} s, {sum(1 for c in run.dom_cells if c['outputs'])} "
                f"cells with output, status bar {run.status_bar.split(' Mode:')[0]!r}; "
                + ", ".join(f"{k} {v:.1f} s" for k, v in run.phases.items())
            )
        tr.write_line(f"screenshots: {SCREENSHOT_DIR}")
