"""Red team 49: a Canvas upload whose name reads NO way escapes the per-learner rank.

Round 48 closed the several-readings route (``collect._owner`` now charges a name with several
readings to one shared owner, ``"canvas: several readings"``, after every learner's first). A name
with NO reading still owns itself: ``_owner`` returns ``parts[-1]`` (meant for a file the instructor
added). A Canvas name reads no way when the uploaded (original) part holds a line feed:
``_CANVAS_REST`` ends in ``(?P<original>.+)`` and ``.`` does not match ``\\n``, so
``mal_101_9001_x\\n0.ipynb`` fails every reading. Mal uploads many large notebooks named so; each
ranks as a learner of its own at rank 0, before Zed's first (and only) notebook, which comes later in
the archive; the archive's byte budget is spent and Zed stays ``missing``.

Realism: the upload name is the learner's. A browser's form encodes a line feed in a file name as
``%0A``, so this needs Canvas's file-upload API (the learner's own token) keeping the name as given;
whether Canvas sanitises it we could not check. The hole in the grader is that "no reading" is
treated as "somebody else's (the instructor's) file" in the budget order.

Test scaling (as red teams 47/48): ``collect.ArchiveLimits`` scaled 32x down.

Suggested fix principle: in Canvas's download, rank a file with no reading after every learner's
first notebook too (a file the instructor added is no learner's first), or rank by the longest
``_<digits>_<digits>_`` prefix Canvas wrote.
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

_REAL = collect.ArchiveLimits


def _rows(out):
    return {r["learner_id"]: r for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text("utf-8")))}


@pytest.mark.xfail(
    strict=True, reason="red team 49: Canvas names that read no way (a line feed) rank as learners"
)
def test_unreadable_canvas_names_do_not_spend_classmates_budget(tmp_path, bwrap, monkeypatch):
    member, total = 2**20, 8 * 2**20  # scaled 32x down from 25 MiB / 2 GiB
    monkeypatch.setattr(collect, "ArchiveLimits", lambda: _REAL(member_bytes=member, total_bytes=total))
    blank = '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'.ljust(member - 16)
    download = tmp_path / "submissions.zip"
    with zipfile.ZipFile(download, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(CORPUS / "perfect.ipynb", "mal_101_9001_hw.ipynb")
        for i in range(total // member + 1):  # Mal's extra uploads, each named to read no way
            name = f"mal_101_9001_x\n{i}.ipynb"
            assert collect.canvas_readings(name) == []
            zf.writestr(name, blank)
        zf.write(CORPUS / "perfect.ipynb", "zed_102_9002_hw.ipynb")  # Zed: honest, full marks
    shutil.copy(CORPUS / "perfect.ipynb", tmp_path / "hw_cy.ipynb")  # Cy: an honest plain file
    roster = tmp_path / "roster.csv"
    roster.write_text(
        "file,id,name,canvas_id\nmal.ipynb,mal,Mal,101\nzed.ipynb,zed,Zed,102\nhw_cy.ipynb,cy,Cy,\n"
    )
    out = tmp_path / "out"
    args = ["--assignment", "from-scratch", "--out", str(out), "--quiet", "--jobs", "2"]
    args += ["--roster", str(roster), "--canvas", str(download), str(tmp_path / "hw_cy.ipynb")]
    with contextlib.redirect_stdout(io.StringIO()) as so, contextlib.redirect_stderr(io.StringIO()) as err:
        assert grade.main(args) == 0
    rows = _rows(out)
    assert rows["cy"]["status"] == "graded" and rows["cy"]["score"] == "14", rows["cy"]  # untouched
    assert rows["zed"]["status"] == "graded" and rows["zed"]["score"] == "14", (
        rows["zed"],
        so.getvalue()[-2000:],
        err.getvalue()[-2000:],
    )


@pytest.mark.xfail(strict=True, reason="red team 49: Canvas names that read no way are listed one line each")
def test_unreadable_canvas_names_do_not_flood_the_instructors_lines(tmp_path, bwrap):
    """The same root cause in ``_left_over``: each non-notebook upload whose Canvas name reads no way
    is an owner of its own, so the "three, then a count" bound per learner never applies."""
    download = tmp_path / "submissions.zip"
    with zipfile.ZipFile(download, "w") as zf:
        zf.write(CORPUS / "perfect.ipynb", "mal_101_9001_hw.ipynb")
        for i in range(2000):  # small non-notebook uploads, each named to read no way
            zf.writestr(f"mal_101_9001_x\n{i}.txt", "")
        zf.write(CORPUS / "perfect.ipynb", "zed_102_9002_hw.ipynb")  # Zed: honest, full marks
    shutil.copy(CORPUS / "perfect.ipynb", tmp_path / "hw_cy.ipynb")  # Cy: an honest plain file
    roster = tmp_path / "roster.csv"
    roster.write_text(
        "file,id,name,canvas_id\nmal.ipynb,mal,Mal,101\nzed.ipynb,zed,Zed,102\nhw_cy.ipynb,cy,Cy,\n"
    )
    out = tmp_path / "out"
    args = ["--assignment", "from-scratch", "--out", str(out), "--quiet", "--jobs", "2"]
    args += ["--roster", str(roster), "--canvas", str(download), str(tmp_path / "hw_cy.ipynb")]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        assert grade.main(args) == 0
    rows = _rows(out)
    assert rows["cy"]["status"] == "graded" and rows["cy"]["score"] == "14", rows["cy"]  # untouched
    assert rows["zed"]["status"] == "graded" and rows["zed"]["score"] == "14", rows["zed"]  # untouched
    about_mal = [line for line in err.getvalue().splitlines() if "mal_101_9001_x" in line]
    assert len(about_mal) <= 50, f"{len(about_mal)} lines about Mal's uploads, e.g. {about_mal[:3]}"
