"""Red team 46: one learner's folder of many small files makes a whole download "refused as a whole".

``collect.extract_zip`` refuses an archive of more than ``ArchiveLimits.members`` (5000) entries AS A
WHOLE, before reading any member. A platform's download is one archive holding every learner's files:
``--learner-folders classroom.zip`` (a GitHub Classroom / nbgrader download: each learner's folder is
their repository or exchange folder, whatever they committed), ``--gradescope export.zip`` (each
``submission_<id>/`` holds what the learner uploaded) or a zip of a shared folder given as a plain
path. One learner who commits a ``node_modules/`` or a virtual environment (5001 empty files: a
~600 KB zip, honest or not) therefore stops every classmate in that download from being graded:
their rows stay ``missing`` (0 with ``--missing-zero`` once the deadline has passed), and the only
line the instructor reads is ``refused: 'classroom.zip': more than 5000 entries (refused as a
whole)``, naming no learner.

Here Ann's honest notebook sits beside Mallory's folder in the classroom zip; Cy (an honest classmate
given as a plain file in the same run) keeps his 14/14, Ann gets no grade.

Suggested fix principle: a limit that one learner's content can reach must cost only that learner:
count entries (and bytes) per learner folder / per submission and refuse that folder's excess (or
the folder), never the other learners' members; keep the whole-archive cap far above any class.

Closed at stop 44: only notebooks (and Gradescope's metadata) are extracted, each folder's first
before any folder's second; what is left is listed a few per folder, then counted; an archive is refused
as a whole only beyond 1,000,000 entries (``collect.ArchiveLimits``, ``_first_notebooks_first``).
"""

from __future__ import annotations

import contextlib
import csv
import io
import shutil
import zipfile

from helpers.grade import grader as grade
from tests.grade.redteam_r5.common import CORPUS


def _rows(out):
    return {r["learner_id"]: r for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text("utf-8")))}


def test_one_learners_many_files_do_not_refuse_classmates(tmp_path, bwrap):
    download = tmp_path / "classroom.zip"
    with zipfile.ZipFile(download, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(CORPUS / "perfect.ipynb", "ann/hw.ipynb")  # Ann: honest, full marks
        zf.write(CORPUS / "perfect.ipynb", "mallory/hw.ipynb")
        for i in range(5001):  # Mallory's committed node_modules/: empty files
            zf.writestr(f"mallory/node_modules/m{i}.js", "")
    shutil.copy(CORPUS / "perfect.ipynb", tmp_path / "hw_cy.ipynb")  # Cy: an honest plain file
    roster = tmp_path / "roster.csv"
    roster.write_text("file,id,name\nann.ipynb,ann,Ann\nmallory.ipynb,mallory,Mallory\nhw_cy.ipynb,cy,Cy\n")
    out = tmp_path / "out"
    args = ["--assignment", "from-scratch", "--out", str(out), "--quiet", "--jobs", "2"]
    args += ["--roster", str(roster)]
    args += ["--learner-folders", str(download), str(tmp_path / "hw_cy.ipynb")]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        assert grade.main(args) == 0
    rows = _rows(out)
    assert rows["cy"]["status"] == "graded" and rows["cy"]["score"] == "14", rows["cy"]  # untouched
    # Ann handed in a full-marks notebook in the class's download: she must be graded
    assert rows["ann"]["status"] == "graded" and rows["ann"]["score"] == "14", (rows["ann"], err.getvalue())
