"""The learner release (issue 31 item 7): ``make learner-release DEST=folder`` writes the course, the
library and the learner versions of the assignments, and no answer key.

The scan grades every notebook of the release, and every ``.py`` file as a one-cell notebook, whose code
spells one of an assignment's names, against that assignment (tools/learner_release.py ``candidates``;
a file that never writes a target's name gets no points from the grader). It runs WITHOUT the sandbox
(``unsafe-no-sandbox``): the files are the course's own, and what is measured is their score, not
isolation (the sandbox is tested in test_grade.py and test_sandbox_classes.py).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from helpers.grade import isolation
from tools import learner_release as LR

ROOT = Path(__file__).resolve().parents[2]

#: Release files that score above the blank assignment today (tools/learner_release.py says why).
KNOWN_COURSE_SOLUTIONS = LR.COURSE_SOLUTIONS


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    dest = tmp_path_factory.mktemp("release") / "course"
    files = LR.build(dest)
    return dest, files


def test_the_release_holds_the_course_and_no_answer_key(release):
    dest, files = release
    for needed in (
        "README.md",
        "Makefile",
        "pyproject.toml",
        "notebooks/00-start-here.ipynb",
        "exercises/from-scratch.ipynb",
        "exercises/leave-one-out.ipynb",
        "exercises/choosing-metrics.ipynb",
        "helpers/grade/assignments.py",  # the learners' check()
        "topkeval/src/topkeval/__init__.py",
        "topkeval/pyproject.toml",
        "tools/lab.py",
        "tools/jupyter_server_config.py",
        "binder/postBuild",
    ):
        assert (dest / needed).is_file(), needed
    assert not (dest / "exercises" / "source").exists()
    assert not (dest / "tests").exists() and not (dest / "benchmarks").exists()
    assert not list(dest.rglob("*.grader.py")) and not list(dest.rglob("*.grading.py"))
    assert not list(dest.rglob("__pycache__")) and not list(dest.rglob("perfect.ipynb"))
    assert files == sorted(files) and all((dest / f).is_file() for f in files)
    for f in files:
        if f.startswith(("exercises/", "notebooks/")):
            assert b"### BEGIN SOLUTION" not in (dest / f).read_bytes(), f


def test_the_release_never_overwrites(release, tmp_path):
    dest, _ = release
    with pytest.raises(FileExistsError, match="new folder"):
        LR.build(dest)
    assert LR.main([str(dest)]) == 2


def test_make_learner_release_is_the_tool(tmp_path):
    plan = subprocess.run(
        ["make", "-n", "learner-release", f"DEST={tmp_path / 'x'}"], cwd=ROOT, capture_output=True, text=True
    )
    assert plan.returncode == 0 and "tools/learner_release.py" in plan.stdout, plan.stderr
    missing = subprocess.run(["make", "-n", "learner-release"], cwd=ROOT, capture_output=True, text=True)
    assert missing.returncode != 0 and "DEST" in missing.stdout + missing.stderr


@pytest.fixture(scope="module")
def scanned(release):
    dest, _ = release
    return LR.scan(dest, isolation.UNSAFE)


def test_no_release_file_scores_above_the_blank_assignment_but_the_known_ones(scanned):
    findings, graded = scanned
    assert graded["from-scratch"] > 20 and graded["leave-one-out"] >= 2 and graded["choosing-metrics"] >= 2
    found = {(f.file, f.assignment) for f in findings}
    assert found == KNOWN_COURSE_SOLUTIONS, sorted(findings, key=lambda f: f.file)
    assert all(f.blank == 0.0 for f in findings)


def test_the_scan_catches_an_answer_key(tmp_path):
    """A release that ships the solution notebook is caught (the scan can fail)."""
    dest = tmp_path / "r"
    (dest / "exercises").mkdir(parents=True)
    name = "leave-one-out"
    (dest / "exercises" / f"{name}.ipynb").write_bytes((ROOT / "exercises" / f"{name}.ipynb").read_bytes())
    (dest / "leak.ipynb").write_bytes((ROOT / "exercises" / "source" / f"{name}.ipynb").read_bytes())
    findings, graded = LR.scan(dest, isolation.UNSAFE, only=(name,))
    assert graded == {name: 2}  # the blank and the leak
    assert [(f.file, f.assignment, f.score) for f in findings] == [("leak.ipynb", "leave-one-out", 10.0)]
