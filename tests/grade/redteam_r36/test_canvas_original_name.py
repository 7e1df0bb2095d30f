"""Red team 36: a Canvas download's ORIGINAL file name (typed by the learner) is read as Canvas's user id.

Canvas names each file of its bulk download ``<name>_[LATE_]<user id>_<attachment id>_<original>``;
``<original>`` is the file name the learner uploaded. ``collect.canvas_readings`` (red team 34's fix)
reads every split of a name into those parts, and ``collect._one_reading`` keeps, among several
readings, "the only one a roster row has". A learner who is not on the roster (enrolled after the
roster was exported, an auditor, Canvas's test student) uploads ``101_9001_from-scratch.ipynb``:
Canvas writes ``mallory_202_9002_101_9001_from-scratch.ipynb``, which also reads as name
``mallory_202_9002``, user ``101``, original ``from-scratch.ipynb``. Her own reading (user 202) is on
no roster row, so the only "known" reading is classmate Ann's (user 101): the file is taken as the
platform's word for Ann. Ann's own file and the forged one then claim Ann alike: Ann's row is a
``conflict`` with an empty score (and without Ann's own file, Mallory's notebook would be Ann's grade).

The README promises that what the platform says beats "a file name a classmate could type too"; here
the user id is typed by the classmate. Suggested fix: a reading whose user id lies inside another
reading's original part is a learner's word, not Canvas's (take the FIRST number after the name part
that Canvas wrote: e.g. among several readings keep only those whose name part agrees with the roster
row's name/login, else nobody's claim).

The honest classmate Cy (user 103) keeps full marks.

Closed at stop 43: a Canvas name with several readings is nobody's claim, whatever the roster
holds (``collect._one_reading``); it is listed for the instructor.
"""

# ruff: noqa: E501  (Canvas's file names written out whole)

from __future__ import annotations

import contextlib
import csv
import io
import shutil

from helpers.grade import grader as grade
from tests.grade.redteam_r5.common import CORPUS


def _graded_rows(tmp_path, download) -> dict:
    """``grades.csv``'s rows by roster id after grading the download with Ann (101) and Cy (103) on the
    roster, Mallory (202) off it."""
    roster = tmp_path / "roster.csv"
    roster.write_text("file,id,name,canvas_id\nnone-s1.ipynb,s1,Ann,101\nnone-s3.ipynb,s3,Cy,103\n")
    out = tmp_path / "out"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        grade.main(["--assignment", "from-scratch", "--roster", str(roster), "--out", str(out),
                    "--quiet", "--jobs", "2", "--canvas", str(download)])  # fmt: skip
    return {r["learner_id"]: r for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))}


def test_original_name_claims_a_classmate(tmp_path, bwrap):
    download = tmp_path / "hw1-submissions"  # an unzipped Canvas bulk download
    download.mkdir()
    shutil.copyfile(CORPUS / "perfect.ipynb", download / "smithann_101_9001_from-scratch.ipynb")  # Ann
    shutil.copyfile(CORPUS / "perfect.ipynb", download / "leecy_103_9003_from-scratch.ipynb")  # Cy
    # Mallory (Canvas user 202, not on the roster) uploaded "101_9001_from-scratch.ipynb"
    shutil.copyfile(
        CORPUS / "empty_notebook.ipynb", download / "mallory_202_9002_101_9001_from-scratch.ipynb"
    )
    rows = _graded_rows(tmp_path, download)
    assert rows["s3"]["score"] == "14", rows["s3"]  # the honest classmate, untouched
    assert rows["s1"]["status"] == "graded" and rows["s1"]["score"] == "14", rows["s1"]  # Ann's own file
    assert "smithann" in rows["s1"]["file"], rows["s1"]


def test_original_name_becomes_a_classmates_grade(tmp_path, bwrap):
    download = tmp_path / "hw1-submissions"
    download.mkdir()
    shutil.copyfile(CORPUS / "perfect.ipynb", download / "leecy_103_9003_from-scratch.ipynb")  # Cy
    # Ann (user 101) handed nothing in; Mallory (user 202, off the roster) uploaded "101_9001_from-scratch.ipynb"
    shutil.copyfile(
        CORPUS / "partially_correct.ipynb", download / "mallory_202_9002_101_9001_from-scratch.ipynb"
    )
    rows = _graded_rows(tmp_path, download)
    assert rows["s3"]["score"] == "14", rows["s3"]  # the honest classmate, untouched
    assert "mallory" not in rows["s1"]["file"] and rows["s1"]["score"] == "", rows["s1"]  # nothing of Ann's
