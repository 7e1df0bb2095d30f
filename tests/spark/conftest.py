"""A real local Spark for the Spark tests, and their loud skip message.

The tests need Java (17) and PySpark (``pip install -e ".[spark]"``). Without them they are
skipped on a laptop, with a banner at the end of the pytest run, and they FAIL when ``CI=true``:
CI must prove the real path (``.ci/run`` installs Java).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import time

import pytest

HOW_TO_ENABLE = (
    "install Java 17 (`sudo apt-get install openjdk-17-jre-headless`) and PySpark "
    '(`.venv/bin/pip install -e ".[spark]"`)'
)
_REPORT: dict = {"skipped": [], "start_seconds": None}


def _on_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def missing() -> str | None:
    """Why Spark cannot run here, or None."""
    if importlib.util.find_spec("pyspark") is None:
        return "PySpark is not installed"
    java_home = os.environ.get("JAVA_HOME")
    if not shutil.which("java") and not (
        java_home and os.path.exists(os.path.join(java_home, "bin", "java"))
    ):
        return "no Java runtime (java is not on PATH and JAVA_HOME is unset)"
    return None


def skip_or_fail(reason: str) -> None:
    """Skip loudly on a laptop; fail on CI, where the Spark tests must run for real."""
    if _on_ci():
        pytest.fail(
            f"CI=true but the Spark tests cannot run: {reason}. .ci/run must install Java and "
            'the project with its spark extra (pip install -e ".[spark]").',
            pytrace=False,
        )
    _REPORT["skipped"].append(reason)
    pytest.skip(f"SPARK TESTS SKIPPED: {reason}. To run them: {HOW_TO_ENABLE}.")


def start_session(app_name: str = "helpers-tests"):
    """A local[2] session: UI off, loopback only, this interpreter for the workers, 4 shuffle partitions."""
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.default.parallelism", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


@pytest.fixture(scope="session")
def spark():
    reason = missing()
    if reason:
        skip_or_fail(reason)
    started = time.perf_counter()
    session = start_session()
    _REPORT["start_seconds"] = time.perf_counter() - started
    yield session
    session.stop()


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Say loudly when the Spark tests were skipped."""
    tr = terminalreporter
    if _REPORT["skipped"]:
        tr.write_sep("!", "SPARK TESTS SKIPPED", red=True, bold=True)
        for reason in sorted(set(_REPORT["skipped"])):
            tr.write_line(f"The Spark tests did NOT run: {reason}.", red=True, bold=True)
        tr.write_line(f"To enable them: {HOW_TO_ENABLE}.", red=True, bold=True)
        tr.write_line("CI (CI=true) fails instead of skipping.", red=True, bold=True)
    elif _REPORT["start_seconds"] is not None:
        tr.write_line(f"Spark tests: local[2] session started in {_REPORT['start_seconds']:.1f} s")
