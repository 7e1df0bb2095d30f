"""Grading where instructors run it: from the two wheels in a fresh venv, with TMPDIR in a private folder.

The wheels (``topkeval`` and the course) are built once per session and installed, with their
declared dependencies only, into a new venv that does not see this repository. Every
assignment is graded from there (its solution notebook full marks, its learner notebook
zero) with ``TMPDIR`` inside a folder of mode 0700 (what ``mktemp -d`` and job schedulers
give), as root and as the normal user ``nobody``. The venv is made from a Python every user
can run (the system's ``/usr/bin/python3`` when this one sits in a private folder).
"""

from __future__ import annotations

import csv
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

import pytest

from helpers.grade.assignments import ASSIGNMENTS
from tests.wheels import build_wheel

ROOT = Path(__file__).resolve().parents[2]


def _reachable(path: str) -> bool:
    parts = Path(path).resolve().parents
    return all(os.stat(p).st_mode & stat.S_IXOTH for p in parts)


def _base_python() -> str:
    """An interpreter every user can run: this one, or the system's."""
    here = os.path.realpath(sys.base_prefix + "/bin/python3")
    for candidate in (here, "/usr/bin/python3"):
        if os.path.exists(candidate) and _reachable(os.path.realpath(candidate)):
            return candidate
    return here


def _run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, **kw)


@pytest.fixture(scope="session")
def installed(bwrap):
    """``(python, base folder, env)`` of a fresh venv holding the two wheels and their dependencies."""
    base = Path(tempfile.mkdtemp(prefix="grade-install-", dir="/tmp"))
    os.chmod(base, 0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "TMPDIR")}
    dist = base / "dist"
    for source in (ROOT / "topkeval", ROOT):
        done = build_wheel(source, dist, env)
        assert done.returncode == 0, done.stderr[-3000:]
    python = _base_python()
    folder = base / "venv"
    made = _run([python, "-m", "venv", str(folder)], env=env)
    if made.returncode != 0:
        venv.EnvBuilder(with_pip=True, clear=True).create(folder)
    pip = [str(folder / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    done = _run([*pip, *map(str, sorted(dist.glob("*.whl")))], cwd=base, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    for name in ASSIGNMENTS:
        work = base / name
        work.mkdir()
        shutil.copy(ROOT / "exercises" / "source" / f"{name}.ipynb", work / "solution.ipynb")
        shutil.copy(ROOT / "exercises" / f"{name}.ipynb", work / "learner.ipynb")
    os.chmod(base, 0o755)
    for path in base.rglob("*"):
        os.chmod(path, os.stat(path).st_mode | stat.S_IROTH | (stat.S_IXOTH if path.is_dir() else 0))
    yield folder / "bin" / "python", base, env
    shutil.rmtree(base, ignore_errors=True)


def _private_tmp(owner: int | None) -> str:
    """A TMPDIR inside a folder of mode 0700 (owned by ``owner``)."""
    outer = tempfile.mkdtemp(prefix="grade-private-", dir="/tmp")
    inner = os.path.join(outer, "tmp")
    os.mkdir(inner, 0o700)
    if owner is not None:
        os.chown(outer, owner, owner)
        os.chown(inner, owner, owner)
    os.chmod(outer, 0o700)
    return outer


def _grade_all(python: Path, base: Path, env: dict, user: str | None) -> dict:
    owner = pwd.getpwnam(user).pw_uid if user else None
    private = _private_tmp(owner)
    out_root = Path(private) / "out"
    os.mkdir(out_root)
    if owner is not None:
        os.chown(out_root, owner, owner)
    results = {}
    try:
        for name in ASSIGNMENTS:
            out = out_root / name
            argv = [
                str(python),
                "-m",
                "helpers.grade",
                "--assignment",
                name,
                "--out",
                str(out),
                "--quiet",
                "--jobs",
                "2",
                str(base / name),
            ]
            if user:
                argv = ["runuser", "-u", user, "--", *argv]
            run_env = {**env, "TMPDIR": os.path.join(private, "tmp"), "HOME": private}
            done = _run(argv, cwd=str(base), env=run_env, timeout=300)
            assert done.returncode == 0, (name, user, done.stderr[-3000:])
            assert "Install bubblewrap" not in done.stderr
            with open(out / "grades.csv", newline="", encoding="utf-8") as fh:
                results[name] = {row["submission"]: float(row["score"]) for row in csv.DictReader(fh)}
    finally:
        shutil.rmtree(private, ignore_errors=True)
    return results


def _expect_full_and_zero(results: dict) -> None:
    for name, scores in results.items():
        full = ASSIGNMENTS[name].max_score
        assert scores == {"solution": full, "learner": 0.0}, (name, scores)


def test_every_assignment_grades_from_the_wheels_as_root_with_a_private_tmpdir(installed):
    if os.geteuid() != 0:
        pytest.skip("runs as root only (the normal-user test covers this user)")
    python, base, env = installed
    _expect_full_and_zero(_grade_all(python, base, env, None))


def test_every_assignment_grades_from_the_wheels_as_a_normal_user(installed):
    python, base, env = installed
    if os.geteuid() != 0:
        _expect_full_and_zero(_grade_all(python, base, env, None))
        return
    if shutil.which("runuser") is None:
        pytest.skip("NORMAL-USER GRADING TEST SKIPPED: runuser (util-linux) is not installed")
    try:
        pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("NORMAL-USER GRADING TEST SKIPPED: there is no user `nobody`")
    probe = _run(["runuser", "-u", "nobody", "--", str(python), "-c", "import helpers.grade"], cwd="/")
    if probe.returncode != 0:
        pytest.skip(f"NORMAL-USER GRADING TEST SKIPPED: `nobody` cannot run the venv: {probe.stderr[-300:]}")
    _expect_full_and_zero(_grade_all(python, base, env, "nobody"))


def test_the_install_holds_only_declared_dependencies(installed):
    python, base, env = installed
    out = _run([str(python), "-m", "pip", "list", "--format=freeze", "--disable-pip-version-check"], env=env)
    names = {line.split("==")[0].lower() for line in out.stdout.split()}
    assert names <= {
        "topkeval",
        "topk-course-helpers",
        "confusable-homoglyphs",  # Unicode's confusables, for marking look-alike file names
        "numpy",
        "pandas",
        "python-dateutil",
        "six",
        "tzdata",
        "pip",
        "setuptools",
    }, names
