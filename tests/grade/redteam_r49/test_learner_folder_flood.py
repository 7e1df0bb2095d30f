"""Red team 49: one learner's files flood the instructor's lines when ``--learner-folders`` is a FOLDER.

Red teams 47/48 bounded the listing of what an ARCHIVE leaves out (``collect._left_over``: per
learner, three lines, then a count). The same download given as the folder it unpacks to (a
``gh classroom clone`` / nbgrader ``submitted/`` tree, which the README allows: "a folder (or a zip)")
goes through ``collect._learner_folder``, which appends one ``refused:`` line per entry of the
learner's folder that is not a notebook (and one per sub-folder), unbounded. Al commits 3,000 files
and 300 folders at his repository's root: 3,300 lines on the instructor's standard error, burying
what the instructor must read about classmates (a CONFLICT, a classmate's refused file). Classmates
are still graded: low severity, the instructor's workflow (the class red team 47 reported).

Suggested fix principle: one listing rule for both shapes of a download: bound what a learner's
folder leaves out per learner (a few lines, then a count), whether it came as a zip or a folder.
"""

from __future__ import annotations

import contextlib
import csv
import io
import shutil

from helpers.grade import grader as grade
from tests.grade.redteam_r5.common import CORPUS


def _rows(out):
    return {r["learner_id"]: r for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text("utf-8")))}


def test_one_learners_files_do_not_flood_the_instructors_lines_from_a_folder(tmp_path, bwrap):
    download = tmp_path / "classroom"
    (download / "al").mkdir(parents=True)
    (download / "bo").mkdir()
    shutil.copy(CORPUS / "perfect.ipynb", download / "al" / "hw.ipynb")
    for i in range(3000):  # committed junk at the repository's root
        (download / "al" / f"f{i}.js").write_text("")
    for i in range(300):
        (download / "al" / f"p{i}").mkdir()
    shutil.copy(CORPUS / "perfect.ipynb", download / "bo" / "hw.ipynb")  # Bo: honest, full marks
    shutil.copy(CORPUS / "perfect.ipynb", tmp_path / "hw_cy.ipynb")  # Cy: an honest plain file
    roster = tmp_path / "roster.csv"
    roster.write_text("file,id,name\nal.ipynb,al,Al\nbo.ipynb,bo,Bo\nhw_cy.ipynb,cy,Cy\n")
    out = tmp_path / "out"
    args = ["--assignment", "from-scratch", "--out", str(out), "--quiet", "--jobs", "2"]
    args += ["--roster", str(roster), "--learner-folders", str(download), str(tmp_path / "hw_cy.ipynb")]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        assert grade.main(args) == 0
    rows = _rows(out)
    assert rows["cy"]["status"] == "graded" and rows["cy"]["score"] == "14", rows["cy"]  # untouched
    assert rows["bo"]["status"] == "graded" and rows["bo"]["score"] == "14", rows["bo"]  # untouched
    about_al = [line for line in err.getvalue().splitlines() if "'al/" in line]
    assert len(about_al) <= 50, f"{len(about_al)} lines about Al's folder, e.g. {about_al[:3]}"
