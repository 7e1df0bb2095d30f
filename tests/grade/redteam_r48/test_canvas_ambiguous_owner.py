"""Red team 48: a Canvas learner whose uploaded names read several ways escapes the per-learner rank.

Round 47's fix (``collect._extraction``, ``_owner``) extracts each learner's first notebook before
anyone's second; in Canvas's flat download a learner is ``"canvas:" + user id`` **only when the
file name reads one way** (``canvas_readings``); a name that reads several ways is its own owner
(``_owner`` returns ``parts[-1]``). The uploaded (original) part of a Canvas name is whatever the
learner typed, and red team 34/36 showed it can hold ``_<digits>_<digits>_``: Mal uploads files named
``x_7000_1_a.ipynb``, ``x_7001_1_a.ipynb``, ...; Canvas writes ``mal_101_9001_x_7000_1_a.ipynb``
(user 101 OR user 7000), so EVERY one of her extra files is a separate "learner" at rank 0, tied with
each classmate's first notebook and ordered by the archive. Her large uploads, earlier in the
download than Zed's, spend ``ArchiveLimits.total_bytes``; Zed's one notebook is refused "the archive
holds more than ... MiB" and Zed stays ``missing`` (0 with ``--missing-zero``). This is exactly red
team 47's Canvas test with the original names made ambiguous.

Test scaling (as red team 47's tests, not an artefact of the hole): ``collect.ArchiveLimits`` is
scaled 32x down (1 MiB a notebook, 8 MiB an archive) through the module global ``collect.collect``
reads; the order and budget logic are the real ones.

Suggested fix principle: a name that reads several ways is nobody's claim (graded for nobody), so
it must not rank as a learner of its own: extract such files after every one-reading file's first
notebook (or charge them to the reading a roster row has), never ahead of a classmate's only notebook.

Closed at stop 44: conflict bookkeeping shares one list of claimants and names five, then counts
(``collect._losers``, ``_rival_reason``, ``_some``); a Canvas name with several readings is extracted
after every learner's first (``_owner``); members left are listed per learner, notebooks first, three
lines then a count (``_left_over``).
"""

from __future__ import annotations

import contextlib
import csv
import io
import shutil
import zipfile

from helpers.grade import collect
from helpers.grade import grader as grade
from tests.grade.redteam_r5.common import CORPUS

_REAL = collect.ArchiveLimits


def _rows(out):
    return {r["learner_id"]: r for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text("utf-8")))}


def test_ambiguous_canvas_names_do_not_spend_classmates_budget(tmp_path, bwrap, monkeypatch):
    member, total = 2**20, 8 * 2**20  # scaled 32x down from 25 MiB / 2 GiB
    monkeypatch.setattr(collect, "ArchiveLimits", lambda: _REAL(member_bytes=member, total_bytes=total))
    blank = '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'.ljust(member - 16)
    download = tmp_path / "submissions.zip"
    with zipfile.ZipFile(download, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(CORPUS / "perfect.ipynb", "mal_101_9001_hw.ipynb")
        for i in range(total // member + 1):  # Mal's extra uploads, each named to read two ways
            name = f"mal_101_9001_x_{7000 + i}_1_a.ipynb"
            assert len(collect.canvas_readings(name)) == 2
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
