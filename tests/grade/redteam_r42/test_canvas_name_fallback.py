"""Red team 42: a Canvas file whose user id is on no roster row is credited by its NAME part.

``collect._canvas_learners`` matches a Canvas download's file by Canvas's user id (``canvas_id``), and
when that id is on no roster row, by the file's name part against ``login``. The name part is the
learner's *sortable name* as Canvas writes it (red team 34: learner-editable where the institution
lets users edit their name); a learner off the roster (red team 36's setting: enrolled after the roster
was exported, an auditor) sets hers to ``bsmith`` (Bo's login form). Canvas then writes
``bsmith_LATE_202_9202_from-scratch.ipynb`` for user 202, and the grader reads it as the platform's
word (``by=PLATFORM``) for Bo, whose roster row says his Canvas user id is 102, not 202.

In Canvas's late download given as such (``--canvas late/``, the README's command), Mallory's blank
notebook REPLACES Bo's 14/14 (grades.csv and canvas.csv give Bo 0). In a download that also holds
Bo's own file, both are platform claims: a CONFLICT, Bo's row empty.

Suggested fix principle: a name is Canvas's word for a learner only when nothing Canvas says
contradicts it: never fall back to ``login`` for a roster row that has a ``canvas_id`` (a different
user id is another person); at most a claim by a name.

The honest classmate Cy keeps full marks (his late file replaces his row, as it should).

Closed at stop 44: the name part names only a roster row with no ``canvas_id``
(``collect._canvas_learners``); a row with a Canvas user id is named by that id alone.
"""

from __future__ import annotations

import contextlib
import csv
import io
import shutil

from helpers.grade import grader as grade
from tests.grade.redteam_r5.common import CORPUS

ROSTER = "file,id,name,login,canvas_id\nbo_hw.ipynb,s2,Bo,bsmith,102\ncy_hw.ipynb,s3,Cy,cy,103\n"


def _run(out, roster, *paths):
    args = [
        "--assignment",
        "from-scratch",
        "--out",
        str(out),
        "--quiet",
        "--jobs",
        "2",
        "--roster",
        str(roster),
    ]
    with contextlib.redirect_stdout(io.StringIO()) as said, contextlib.redirect_stderr(io.StringIO()) as err:
        assert grade.main([*args, *map(str, paths)]) == 0
    return said.getvalue() + err.getvalue()


def _rows(out):
    return {r["learner_id"]: r for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))}


def test_off_roster_canvas_user_named_like_a_classmate_does_not_take_his_row(tmp_path, bwrap):
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER)
    canvas, late = tmp_path / "canvas", tmp_path / "late"
    canvas.mkdir()
    late.mkdir()
    shutil.copy(CORPUS / "perfect.ipynb", canvas / "bsmith_102_9002_from-scratch.ipynb")  # Bo, honest
    shutil.copy(CORPUS / "partially_correct.ipynb", canvas / "cy_103_9003_from-scratch.ipynb")  # Cy
    out = tmp_path / "out"
    _run(out, roster, "--canvas", canvas)
    assert _rows(out)["s2"]["score"] == "14"
    # Canvas's late download: Cy's honest late file, and Mallory's (user 202, off the roster, her
    # sortable name edited to "bsmith")
    shutil.copy(CORPUS / "perfect.ipynb", late / "cy_LATE_103_9103_from-scratch.ipynb")
    shutil.copy(CORPUS / "empty_notebook.ipynb", late / "bsmith_LATE_202_9202_from-scratch.ipynb")
    said = _run(out, roster, "--canvas", late)
    rows = _rows(out)
    assert rows["s3"]["score"] == "14", rows  # the honest classmate
    assert rows["s2"]["score"] == "14" and rows["s2"]["file"] == "bsmith_102_9002_from-scratch.ipynb", (
        rows,
        said,
    )
    assert "REPLACED: s2" not in said, said
