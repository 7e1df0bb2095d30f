"""Red team 49: a Canvas upload that reads NO way falls back to the roster's file patterns: a classmate's.

In a download given with ``--canvas`` a file's Canvas name is the platform's word, so Mal (roster row
with ``canvas_id`` 101) can only ever hand in files for herself... unless her name reads no way
(``collect.canvas_readings`` returns ``[]``). Then ``collect._canvas_file`` treats it as a file the
instructor added and matches the WHOLE name against the roster's ``file`` patterns
(``build.by_name``), a claim by name. The uploaded part of the name is the learner's, and a line feed
in it makes every reading fail (``_CANVAS_REST`` ends in ``(?P<original>.+)``; ``.`` does not match
``\\n``), while ``fnmatch``'s ``*`` does match it. With the README's glob patterns
(``*_s123_*.ipynb``), Mal's late upload ``x\\n_s102_.ipynb`` (Canvas: ``mal_LATE_101_9003_x\\n_s102_.ipynb``)
claims Zed (``*_s102_*.ipynb``) by name; in the run that grades the late download (the instructor's
"grade a late file into the same --out"), no file of Zed's competes, so Mal's notebook is graded as
Zed's and REPLACES his 14/14. (In a single run with Zed's own file given by name, e.g. emailed, the
two make a CONFLICT and Zed's row is ``conflict``, not 14.) Mal's own Canvas user id is ignored.

Realism: a browser's form encodes a line feed in a file name as ``%0A`` (but Rack, which Canvas runs
on, percent-decodes multipart file names); Canvas's file-upload API takes the name as JSON. We could
not check whether Canvas keeps it in the bulk download. Severity: medium if it does (a classmate's
grade replaced; the REPLACED line is printed, so a careful instructor notices).

Suggested fix principle: in a ``--canvas`` download, a name that is Canvas-shaped at its start
(``<lowercase name>_[LATE_]<digits>_<digits>_``) is the platform's, whatever follows; never fall back
to file patterns for a file Canvas wrote (only for a name with no Canvas prefix at all), or read the
original part with ``re.DOTALL``.
"""

from __future__ import annotations

import contextlib
import csv
import io
import shutil
import zipfile

import pytest

from helpers.grade import collect
from helpers.grade import grader as grade
from tests.grade.redteam_r5.common import CORPUS


def _rows(out):
    return {r["learner_id"]: r for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text("utf-8")))}


def _grade(out, roster, *sources):
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
    for kind, path in sources:
        args += [kind, str(path)] if kind else [str(path)]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        assert grade.main(args) == 0
    return err.getvalue()


@pytest.mark.xfail(
    strict=True, reason="red team 49: a Canvas name that reads no way is matched to a classmate's pattern"
)
def test_unreadable_canvas_upload_does_not_replace_a_classmates_grade(tmp_path, bwrap):
    roster = tmp_path / "roster.csv"
    roster.write_text(
        "file,id,name,canvas_id\n*_s101_*.ipynb,mal,Mal,101\n*_s102_*.ipynb,zed,Zed,102\nhw_cy.ipynb,cy,Cy,\n"
    )
    shutil.copy(CORPUS / "perfect.ipynb", tmp_path / "hw_cy.ipynb")  # Cy: an honest plain file
    ontime = tmp_path / "ontime.zip"
    with zipfile.ZipFile(ontime, "w") as zf:
        zf.write(CORPUS / "perfect.ipynb", "zed_102_9002_hw_s102_.ipynb")  # Zed: honest, full marks
        zf.write(CORPUS / "constant_zero.ipynb", "mal_101_9001_hw_s101_.ipynb")
    out = tmp_path / "out"
    _grade(out, roster, ("--canvas", ontime), ("", tmp_path / "hw_cy.ipynb"))
    rows = _rows(out)
    assert rows["zed"]["score"] == "14" and rows["cy"]["score"] == "14", rows

    late = tmp_path / "late.zip"  # the late submissions, graded into the same --out
    name = "mal_LATE_101_9003_x\n_s102_.ipynb"
    assert collect.canvas_readings(name) == []
    with zipfile.ZipFile(late, "w") as zf:
        zf.write(CORPUS / "constant_zero.ipynb", name)
    err = _grade(out, roster, ("--canvas", late), ("", tmp_path / "hw_cy.ipynb"))
    rows = _rows(out)
    assert rows["cy"]["status"] == "graded" and rows["cy"]["score"] == "14", rows["cy"]  # untouched
    assert rows["zed"]["status"] == "graded" and rows["zed"]["score"] == "14", (rows["zed"], err[-1500:])
