"""Red team 39: a folder whose only notebooks are files learners named is "Canvas's download".

Since red team 32 a folder (or zip) is a Canvas download "by its contents": when EVERY notebook in it
has a Canvas-shaped name (``collect._all_canvas_named``). A folder the instructor fills with files
that learners named themselves passes that test whenever those files are all Canvas-shaped: the
degenerate case is a folder of ONE emailed file, or the instructor's folder of Canvas's late download
to which an emailed file is added. Mallory emails a blank notebook she named ``bsmith_102_1_hw.ipynb``
(Bo's login, or his Canvas user id, which Canvas shows any classmate in the People page's URLs); the
instructor saves it into ``late/`` beside Canvas's late download of Cy (``cy_LATE_103_9103_hw.ipynb``)
and grades the folder into the class's ``--out``. The name is then the platform's word
(``_top_file``: ``by=PLATFORM``, key ``canvas:102``): Bo's row, graded full marks from the class's
Canvas download, is REPLACED by Mallory's blank notebook (0). Without a roster the same happens
through the key ``canvas:102``.

A file given by itself on the command line is read as a claim by a name (``_source`` ->
``by_name``), so only a folder or zip is affected. Suggested fix principle: whether a container is
Canvas's download must rest on something a learner cannot supply (the zip's or folder's shape as
Canvas writes it, or an instructor's ``--canvas`` flag), not on names a learner can type; at the
least a Canvas-shaped name must not take over a learner who already holds a platform-keyed result
from a file of another name without a CONFLICT.

The honest classmate Cy keeps full marks in both runs.

Closed at stop 44: the instructor names Canvas's download (``--canvas DOWNLOAD``); a folder or zip
given as a plain path is never read as Canvas's, whatever its names (``collect._canvas_shaped_note``
says so, and how to declare it). A Canvas-shaped name there is a file name like any other: the
roster's ``file`` patterns only, no ``canvas:`` key, no LATE. The emailed file is graded on a row of
nobody's (or its own key without a roster); Bo's row is untouched. What the instructor saves into a
folder given with ``--canvas`` is read as Canvas's (the README says to keep it for Canvas's files).
"""

from __future__ import annotations

import contextlib
import csv
import io
import shutil

import pytest

from helpers.grade import grader as grade
from tests.grade.redteam_r5.common import CORPUS

ROSTER = (
    "file,id,name,login,canvas_id\nann_hw.ipynb,s1,Ann,ann,101\nbo_hw.ipynb,s2,Bo,bsmith,102\n"
    "cy_hw.ipynb,s3,Cy,cy,103\nmal_hw.ipynb,s4,Mal,mallory,104\n"
)


def _run(out, roster, *paths):
    args = ["--assignment", "from-scratch", "--out", str(out), "--quiet", "--jobs", "2"]
    args += ["--roster", str(roster)] if roster else []
    with contextlib.redirect_stdout(io.StringIO()) as said, contextlib.redirect_stderr(io.StringIO()) as err:
        assert grade.main([*args, *map(str, paths)]) == 0
    return said.getvalue() + err.getvalue()


def _rows(out):
    return list(csv.DictReader(io.StringIO((out / "grades.csv").read_text())))


@pytest.mark.parametrize("with_roster", [True, False], ids=["roster", "no-roster"])
def test_emailed_canvas_shaped_file_in_a_late_folder_does_not_take_a_classmate(tmp_path, bwrap, with_roster):
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER)
    canvas = tmp_path / "canvas"
    canvas.mkdir()
    shutil.copy(CORPUS / "perfect.ipynb", canvas / "bsmith_102_9002_from-scratch.ipynb")  # Bo, honest
    shutil.copy(CORPUS / "perfect.ipynb", canvas / "cy_103_9003_from-scratch.ipynb")  # Cy, honest
    out = tmp_path / "out"
    _run(out, roster if with_roster else None, "--canvas", canvas)
    before = {r["file"]: (r["score"], r["learner_id"]) for r in _rows(out) if r["file"]}
    ids = ("s2", "s3") if with_roster else ("", "")
    assert before == {
        "bsmith_102_9002_from-scratch.ipynb": ("14", ids[0]),
        "cy_103_9003_from-scratch.ipynb": ("14", ids[1]),
    }, before

    late = tmp_path / "late"
    late.mkdir()
    shutil.copy(
        CORPUS / "perfect.ipynb", late / "cy_LATE_103_9103_from-scratch.ipynb"
    )  # Canvas's late download
    shutil.copy(CORPUS / "empty_notebook.ipynb", late / "bsmith_102_1_hw.ipynb")  # Mallory's emailed file
    said = _run(out, roster if with_roster else None, late)  # the late folder, given as a plain folder
    after = {r["file"]: r["score"] for r in _rows(out)}
    assert after.get("cy_103_9003_from-scratch.ipynb") == "14", after  # the honest classmate
    # Bo keeps his own result: the emailed file is nobody's (with a roster) or its own key (without)
    assert after.get("bsmith_102_9002_from-scratch.ipynb") == "14", (after, said)
    assert "REPLACED" not in said, said


def test_a_late_canvas_download_given_as_such_beside_an_emailed_file(tmp_path, bwrap):
    """The workflow the README shows: Canvas's late download with ``--canvas``, an emailed file by its
    own path. Cy's late file replaces Cy's row (said); the emailed Canvas-shaped name is nobody's."""
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER)
    canvas, late, mail = tmp_path / "canvas", tmp_path / "late", tmp_path / "mail"
    for folder in (canvas, late, mail):
        folder.mkdir()
    shutil.copy(CORPUS / "perfect.ipynb", canvas / "bsmith_102_9002_from-scratch.ipynb")  # Bo, honest
    shutil.copy(CORPUS / "partially_correct.ipynb", canvas / "cy_103_9003_from-scratch.ipynb")  # Cy
    out = tmp_path / "out"
    _run(out, roster, "--canvas", canvas)
    shutil.copy(CORPUS / "perfect.ipynb", late / "cy_LATE_103_9103_from-scratch.ipynb")  # Cy's late file
    shutil.copy(CORPUS / "empty_notebook.ipynb", mail / "bsmith_102_1_hw.ipynb")  # Mallory's emailed file
    said = _run(out, roster, "--canvas", late, mail / "bsmith_102_1_hw.ipynb")
    rows = {r["learner_id"]: r for r in _rows(out)}
    assert rows["s2"]["score"] == "14" and rows["s2"]["file"] == "bsmith_102_9002_from-scratch.ipynb", rows
    assert rows["s3"]["score"] == "14" and rows["s3"]["file"] == "cy_LATE_103_9103_from-scratch.ipynb", rows
    assert "REPLACED: s3's result" in said and "REPLACED: s2" not in said, said
    assert rows[""]["file"] == "bsmith_102_1_hw.ipynb", rows  # graded, for nobody
