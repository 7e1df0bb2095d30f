"""topkeval.spark.preflight: what keeps Spark from starting, found before Java starts, in one message.

The simulated cases (no Java, an old Java, a workers' Python of another version, a missing one, an old
PySpark) start no JVM: they run anywhere. One real check runs where Java and PySpark are installed.
"""

from __future__ import annotations

import sys

import pytest

from topkeval import spark as ts

from .conftest import missing, skip_or_fail

DRIVER = ".".join(map(str, sys.version_info[:3]))


def _script(folder, name: str, body: str) -> str:
    path = folder / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return str(path)


@pytest.fixture
def good_python(monkeypatch):
    """The workers' Python passes without running it (the tests about Java need no Python process)."""
    monkeypatch.setattr(ts, "_python_problem", lambda python=None: (f"{sys.executable} ({DRIVER})", None))


@pytest.fixture
def no_java(tmp_path, monkeypatch):
    """PATH without java, JAVA_HOME unset."""
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(empty))


@pytest.fixture
def java_home(tmp_path, monkeypatch):
    """A fake JAVA_HOME whose release file says the version the test writes."""

    def make(version: str) -> str:
        home = tmp_path / f"jdk-{version}"
        (home / "bin").mkdir(parents=True)
        _script(home / "bin", "java", "exit 0")
        (home / "release").write_text(f'IMPLEMENTOR="test"\nJAVA_VERSION="{version}"\n')
        monkeypatch.setenv("JAVA_HOME", str(home))
        return str(home)

    return make


def test_preflight_without_java_says_so_and_how_to_install_it(no_java, good_python):
    with pytest.raises(ts.SparkSetupError) as error:
        ts.preflight(python=sys.executable)
    message = str(error.value)
    assert message.startswith("topkeval.spark: Spark cannot start here (checked before starting Java):")
    assert "no Java runtime (java is not on PATH and JAVA_HOME is unset)" in message
    assert "openjdk-17-jre-headless" in message and "JAVA_HOME" in message
    assert message.count("\n- ") == 1  # one problem, one line: the workers' Python is fine


def test_preflight_names_a_java_home_without_java(tmp_path, monkeypatch, good_python):
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    with pytest.raises(ts.SparkSetupError, match=rf"JAVA_HOME={tmp_path} has no bin/java"):
        ts.preflight(python=sys.executable)


@pytest.mark.parametrize(
    ("version", "major"), [("1.8.0_381", 8), ("11.0.22", 11), ("17.0.15", 17), ("21", 21)]
)
def test_preflight_reads_the_java_version(java_home, version, major):
    home = java_home(version)
    assert ts._java_major(f"{home}/bin/java") == major


def test_preflight_refuses_a_java_too_old_for_this_pyspark(java_home, monkeypatch, good_python):
    java_home("11.0.22")
    monkeypatch.setattr(ts, "_pyspark_problem", lambda: ("4.0.1", None))
    with pytest.raises(ts.SparkSetupError, match=r"is Java 11; PySpark 4.0.1 needs Java 17 or newer"):
        ts.preflight(python=sys.executable)
    monkeypatch.setattr(ts, "_pyspark_problem", lambda: ("3.5.3", None))  # Spark 3.5 runs on Java 11
    assert ts.preflight(python=sys.executable)["java"].endswith("(Java 11)")


def test_preflight_catches_a_pyspark_python_of_another_version(tmp_path, monkeypatch, java_home):
    java_home("17.0.15")
    other = _script(tmp_path, "python3.9", "echo 3.9.18; echo topkeval 0.0")
    monkeypatch.setenv("PYSPARK_PYTHON", other)
    with pytest.raises(ts.SparkSetupError) as error:
        ts.preflight()
    message = str(error.value)
    assert (
        f"the workers' Python {other} (PYSPARK_PYTHON) is Python 3.9.18, the driver's is {DRIVER}" in message
    )
    assert f"export PYSPARK_PYTHON={sys.executable}" in message
    assert message.count("\n- ") == 1


def test_preflight_catches_a_missing_pyspark_python_and_one_without_topkeval(
    tmp_path, monkeypatch, java_home
):
    java_home("17.0.15")
    monkeypatch.setenv("PYSPARK_PYTHON", str(tmp_path / "no-such-python"))
    with pytest.raises(ts.SparkSetupError, match="no-such-python' \\(PYSPARK_PYTHON\\) is not found"):
        ts.preflight()
    bare = _script(
        tmp_path,
        "bare-python",
        f"echo {DRIVER}; echo \"ModuleNotFoundError: No module named 'topkeval'\" >&2; exit 1",
    )
    monkeypatch.setenv("PYSPARK_PYTHON", bare)
    with pytest.raises(
        ts.SparkSetupError,
        match="cannot import topkeval \\(ModuleNotFoundError: No module named 'topkeval'\\)",
    ):
        ts.preflight()


def test_preflight_lists_every_problem_in_one_message(no_java, tmp_path, monkeypatch):
    monkeypatch.setattr(
        ts, "_pyspark_problem", lambda: ("3.4.1", "PySpark 3.4.1 is older than 3.5: pip install")
    )
    monkeypatch.setenv("PYSPARK_PYTHON", _script(tmp_path, "python3.12", "echo 3.12.1"))
    with pytest.raises(ts.SparkSetupError) as error:
        ts.preflight()
    lines = str(error.value).splitlines()
    assert len(lines) == 4 and [line[:2] for line in lines[1:]] == ["- "] * 3
    assert "PySpark 3.4.1" in lines[1] and "no Java runtime" in lines[2] and "Python 3.12.1" in lines[3]


def test_session_runs_the_preflight_before_starting_spark(no_java, monkeypatch, good_python):
    """session() raises the preflight's message and never reaches SparkSession.builder (no JVM, no trace)."""
    pytest.importorskip("pyspark")
    from pyspark.sql import SparkSession

    def started(*args, **kwargs):
        raise AssertionError("Spark was started although the preflight failed")

    monkeypatch.setattr(type(SparkSession.builder), "getOrCreate", started)
    with pytest.raises(ts.SparkSetupError, match="no Java runtime"):
        ts.session()


class _FakeContext:
    master = "local[2]"

    def __init__(self, python: str):
        self.pythonExec = python


class _FakeSession:
    """A local session whose workers' Python is ``python``; running any job fails the test."""

    def __init__(self, python: str):
        self.sparkContext = _FakeContext(python)

    def range(self, *args, **kwargs):
        raise AssertionError("a Spark job ran before the workers' Python was checked")


def test_preflight_of_a_running_local_session_checks_the_workers_python_before_any_job(tmp_path, monkeypatch):
    monkeypatch.setattr(ts, "_WORKERS_CHECKED", set())
    other = _script(tmp_path, "python3.9", "echo 3.9.18")
    with pytest.raises(ImportError) as error:
        ts._check_workers(_FakeSession(other))
    assert f"is Python 3.9.18, the driver's is {DRIVER}" in str(error.value)
    assert "PYSPARK_PYTHON=" in str(error.value)


def test_preflight_passes_here_with_java_and_pyspark_installed():
    """The real check: this machine's Java, PySpark and this Python as the workers'."""
    reason = missing()
    if reason:
        skip_or_fail(reason)
    found = ts.preflight(python=sys.executable)
    assert found["python"] == f"{sys.executable} ({DRIVER})"
    major = int(found["java"].rsplit("Java ", 1)[1].rstrip(")"))
    assert major >= ts._JAVA_FOR_PYSPARK[int(found["pyspark"].split(".")[0])]
