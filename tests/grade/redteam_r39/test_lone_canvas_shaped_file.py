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

Left open at stop 43 (documented): which folder is Canvas's download is read from the names in it
(since red team 6 for folders); the principled fix is for the instructor to declare the source
(a flag such as ``--canvas DIR``), which changes the command line every course uses. Until then
the REPLACED line names the file that replaced a row.
"""

# ruff: noqa: E501  (Canvas's file names written out whole)

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
    with contextlib.redirect_stdout(io.StringIO()) as said, contextlib.redirect_stderr(io.StringIO()):
        assert grade.main([*args, *map(str, paths)]) == 0
    return said.getvalue()


def _rows(out):
    return list(csv.DictReader(io.StringIO((out / "grades.csv").read_text())))


@pytest.mark.xfail(
    strict=True,
    reason="red team 39: a folder holding only learner-named Canvas-shaped files is taken as Canvas's download",
)
@pytest.mark.parametrize("with_roster", [True, False], ids=["roster", "no-roster"])
def test_emailed_canvas_shaped_file_in_a_late_folder_does_not_take_a_classmate(tmp_path, bwrap, with_roster):
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER)
    canvas = tmp_path / "canvas"
    canvas.mkdir()
    shutil.copy(CORPUS / "perfect.ipynb", canvas / "bsmith_102_9002_from-scratch.ipynb")  # Bo, honest
    shutil.copy(CORPUS / "perfect.ipynb", canvas / "cy_103_9003_from-scratch.ipynb")  # Cy, honest
    out = tmp_path / "out"
    _run(out, roster if with_roster else None, canvas)
    before = {r["file"]: r["score"] for r in _rows(out) if r["file"]}
    assert before == {"bsmith_102_9002_from-scratch.ipynb": "14", "cy_103_9003_from-scratch.ipynb": "14"}, (
        before
    )

    late = tmp_path / "late"
    late.mkdir()
    shutil.copy(
        CORPUS / "perfect.ipynb", late / "cy_LATE_103_9103_from-scratch.ipynb"
    )  # Canvas's late download
    shutil.copy(CORPUS / "empty_notebook.ipynb", late / "bsmith_102_1_hw.ipynb")  # Mallory's emailed file
    said = _run(out, roster if with_roster else None, late)
    after = {r["file"]: r["score"] for r in _rows(out)}
    assert any(f.startswith("cy_") and score == "14" for f, score in after.items()), (
        after
    )  # the honest classmate
    # Bo keeps his own result (the emailed file is nobody's, or a CONFLICT at worst): never Mallory's blank
    assert after.get("bsmith_102_9002_from-scratch.ipynb") == "14", (after, said)
