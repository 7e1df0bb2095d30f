"""The fourteenth red team: without a roster, a learner whose file name has a space (or an accent, a
parenthesis...) becomes another learner when their file is graded from another folder.

Without a roster a learner's key is ``file:`` and the report name (``gradebook.learner_key``). A name
that needs no change keeps its stem (``ann.ipynb`` -> ``ann``), but any other name gets a hash of the
file's *absolute path* (``files.report_names``: ``bo smith.ipynb`` -> ``bo_smith-f3ea34079f``). Every
name Jupyter gives by default to a copy (``Untitled (1).ipynb``), every name with a space, a
parenthesis or a letter outside ASCII is such a name. So the README's workflow, "grading one late
file, a subset or a regrade into the same folder merges into the class ... the learner's older report
and feedback files are replaced", and "the same learner key's late files and regrades meet the same
cases", hold for ``ann.ipynb`` and fail for ``bo smith.ipynb`` handed in again (the same name, not
renamed) and graded from ``late/``:

* grades.csv then holds two rows for ``bo smith.ipynb`` (4/14 from ``subs/``, 14/14 from ``late/``),
  neither replacing the other; the run prints no REPLACED line; ``history`` shows two learners;
* the late file meets other hidden cases than the first (a new learner key: ``learner_seed``), so
  resubmitting gives a learner a fresh draw, which the README's Hidden cases decision rules out.

The same happens to the whole class when an instructor regrades a re-downloaded copy of the folder.
Ann (a plain name), graded beside him, keeps one row and 14/14. The principle that would close it:
the learner key is a function of what the learner handed in under (the file's own name, normalised),
never of where the instructor keeps the file; a hash that tells two same-named files of one run
apart belongs to the report's file name, not to the learner's identity.

Closed: without a roster id the learner key is the name the file was handed in under
(``grader.no_roster_key``), never its path.
"""

from __future__ import annotations

import csv
import io
import shutil

import pytest

from helpers.grade import grader, isolation
from helpers.grade.assignments import ASSIGNMENTS

from ..redteam_r5.common import CORPUS

SEED = 2**100 + 1414


def _grade_in_two_batches(tmp_path):
    first, late, out = tmp_path / "subs", tmp_path / "late", tmp_path / "out"
    first.mkdir()
    late.mkdir()
    shutil.copyfile(CORPUS / "perfect.ipynb", first / "ann.ipynb")  # the honest classmate
    shutil.copyfile(CORPUS / "partially_correct.ipynb", first / "bo smith.ipynb")
    shutil.copyfile(CORPUS / "perfect.ipynb", late / "bo smith.ipynb")  # his fixed file, a day later
    shutil.copyfile(CORPUS / "perfect.ipynb", late / "ann.ipynb")  # Ann's again: the control
    keys = []
    for folder in (first, late):
        done = grader.grade_many(
            sorted(folder.iterdir()), ASSIGNMENTS["from-scratch"], out, jobs=2, seed=SEED,
            mode=isolation.BUBBLEWRAP, progress=io.StringIO(),
        )  # fmt: skip
        keys += [(report["file"], report["learner"]) for report in done]
    with open(out / "grades.csv", encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh)), keys


@pytest.fixture(scope="module")
def graded(bwrap, tmp_path_factory):
    return _grade_in_two_batches(tmp_path_factory.mktemp("r14-folders"))


@pytest.fixture
def rows(graded):
    return graded[0]


def test_the_late_file_meets_the_same_cases(graded):
    """The learner key (whose hidden cases) is the name handed in under, in both folders."""
    keys = sorted(set(graded[1]))
    assert keys == [("ann.ipynb", "file:ann"), ("bo smith.ipynb", "file:bo smith.ipynb")], keys


def test_two_files_of_one_run_under_one_name_stay_two_learners(bwrap, tmp_path):
    """The decision for what cannot be told apart (``grader._learner_keys``): ``a/hw.ipynb`` and
    ``b/hw.ipynb`` in one run are two learners, each under its report name, and neither replaces
    the other."""
    for folder, source in (("a", "perfect.ipynb"), ("b", "partially_correct.ipynb")):
        (tmp_path / folder).mkdir()
        shutil.copyfile(CORPUS / source, tmp_path / folder / "hw.ipynb")
    done = grader.grade_many(
        [tmp_path / "a" / "hw.ipynb", tmp_path / "b" / "hw.ipynb"], ASSIGNMENTS["from-scratch"],
        tmp_path / "out", jobs=2, seed=SEED, mode=isolation.BUBBLEWRAP, progress=io.StringIO(),
    )  # fmt: skip
    assert len({report["learner"] for report in done}) == 2
    assert sorted(report["score"] for report in done)[1] == 14.0
    with open(tmp_path / "out" / "grades.csv", encoding="utf-8", newline="") as fh:
        assert len(list(csv.DictReader(fh))) == 2


def test_the_control_a_plain_name_stays_one_learner(rows):
    anns = [r for r in rows if r["file"] == "ann.ipynb"]
    assert [float(r["score"]) for r in anns] == [14.0]


def test_a_name_with_a_space_stays_one_learner(rows):
    bos = [r for r in rows if r["file"] == "bo smith.ipynb"]
    assert [float(r["score"]) for r in bos] == [14.0], bos
