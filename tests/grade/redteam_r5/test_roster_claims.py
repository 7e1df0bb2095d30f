"""The fifth red team: a file that *claims* a classmate, by its name alone, takes the classmate's grade.

Issue 33 closed "a file matching several roster patterns goes to the first" by leaving such a file,
and every file claiming a learner another file also claims, unassigned (``collect._finish``). The
rule is applied within one run only, and it harms the learner claimed:

1. **within a run**: Mallory hands in her own notebook and a second file named like Bob's
   (``hw1_s123 (1).ipynb`` matches Bob's pattern ``hw1_s123*.ipynb``). Neither of Bob's claimants is
   assigned, so Bob, who handed in a full-marks notebook, gets an empty cell, or **0** with
   ``--missing-zero``, and grades.csv says "no file matched the roster entry", which is false;
   Mallory keeps her own grade;
2. **across runs** (a second batch graded into the same folder, as the README's "grading a subset
   merges into the class"): a file that claims Bob in a batch without Bob's file is assigned to Bob
   and silently replaces his current result (14 -> 0); nothing in the run's output names Bob.

Roster identity by file name is what a flat folder gives; the property is the team's rule: no
grade is ever changed by grading someone else, and what the grader cannot decide it says.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .common import CORPUS

ROOT = Path(__file__).resolve().parents[3]
ROSTER = (
    "file,id,name\nhw1_s123*.ipynb,s123,Bob Honest\nhw1_s200*.ipynb,s200,Carol Honest\n"
    "hw1_s999*.ipynb,s999,Mallory\n"
)


def _grade(folder: Path, out: Path, roster: Path, *extra: str) -> str:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'topkeval' / 'src'}"}
    done = subprocess.run(
        [sys.executable, "-m", "helpers.grade", "--assignment", "from-scratch", "--roster", str(roster),
         "--out", str(out), *extra, str(folder)],
        capture_output=True, text=True, env=env, timeout=300, check=True,
    )  # fmt: skip
    return done.stdout + done.stderr


def _canvas(out: Path) -> dict[str, str]:
    rows = list(csv.reader((out / "canvas.csv").read_text(encoding="utf-8").splitlines()))
    return {row[2]: row[-1] for row in rows[2:]}


def _reasons(out: Path) -> dict[str, str]:
    rows = csv.DictReader((out / "grades.csv").read_text(encoding="utf-8").splitlines())
    return {row["learner_id"]: row["reason"] for row in rows if row["learner_id"]}


@pytest.fixture
def roster(tmp_path: Path) -> Path:
    path = tmp_path / "roster.csv"
    path.write_text(ROSTER)
    return path


def test_a_file_that_claims_a_classmate_does_not_cost_the_classmate_his_grade(bwrap, tmp_path, roster):
    subs = tmp_path / "subs"
    subs.mkdir()
    for name in ("hw1_s123.ipynb", "hw1_s200.ipynb", "hw1_s999.ipynb"):  # Bob, Carol, Mallory: all right
        shutil.copyfile(CORPUS / "perfect.ipynb", subs / name)
    shutil.copyfile(CORPUS / "constant_zero.ipynb", subs / "hw1_s123 (1).ipynb")  # Mallory's second file
    out = tmp_path / "out"
    _grade(subs, out, roster, "--deadline", "2020-01-01T00:00:00+00:00", "--missing-zero")
    canvas = _canvas(out)
    assert canvas["s200"] == "14" and canvas["s999"] == "14"  # Carol, and Mallory herself
    assert canvas["s123"] != "0", canvas
    assert "no file matched" not in _reasons(out)["s123"]


def test_a_later_file_that_claims_a_classmate_is_not_silently_his_result(bwrap, tmp_path, roster):
    first, second = tmp_path / "batch1", tmp_path / "batch2"
    first.mkdir()
    second.mkdir()
    for name in ("hw1_s123.ipynb", "hw1_s200.ipynb"):
        shutil.copyfile(CORPUS / "perfect.ipynb", first / name)
    shutil.copyfile(CORPUS / "constant_zero.ipynb", second / "hw1_s123 (resubmitted).ipynb")
    out = tmp_path / "out"
    _grade(first, out, roster)
    assert _canvas(out)["s123"] == "14"
    said = _grade(second, out, roster)
    assert _canvas(out)["s200"] == "14"
    # Bob keeps 14, or the instructor is told which file replaced which as Bob's result
    assert _canvas(out)["s123"] == "14" or ("s123" in said and "hw1_s123.ipynb" in said), said
