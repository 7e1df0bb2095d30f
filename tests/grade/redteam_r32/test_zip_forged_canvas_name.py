"""Red team 32: in ANY zip, a file named like Canvas's download is the platform's word.

``collect._folder`` takes every zip as Canvas's download (``canvas = archive or ...``), so a
Canvas-shaped name inside a zip of files learners named themselves (a shared-drive folder
downloaded as a zip, an instructor zipping the flat folder to move it) is a *platform* claim:
``<login>_1_1_x.ipynb`` claims the roster learner whose ``login`` is ``<login>`` and beats that
learner's own file, which only claims them by its name (``collect._losers``). Red team 6 closed this
for folders ("a Canvas-shaped name among files learners named ... is a claim by a name"); an archive
of the same files is not a Canvas download either.

The attacker hands in her own file and ``bsmith_1_1_hw.ipynb`` (a blank notebook): Bo (login
``bsmith``) is graded on the blank one (0) and his own file is "unmatched". The honest classmate
Cy keeps full marks.
"""

from __future__ import annotations

import contextlib
import csv
import io
import zipfile

from helpers.grade import grader as grade
from tests.grade.redteam_r5.common import CORPUS


def test_canvas_shaped_name_in_a_zip_of_learner_files(tmp_path, bwrap):
    files = {
        "hw1_bsmith.ipynb": CORPUS / "perfect.ipynb",  # Bo
        "hw1_cy.ipynb": CORPUS / "perfect.ipynb",  # the honest classmate
        "hw1_mal.ipynb": CORPUS / "perfect.ipynb",  # the attacker's own
        "bsmith_1_1_hw.ipynb": CORPUS / "empty_notebook.ipynb",  # the attacker's forged claim on Bo
    }
    archive = tmp_path / "hw1-drive-download.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for name, src in files.items():
            z.write(src, name)
    roster = tmp_path / "roster.csv"
    roster.write_text(
        "file,id,name,login\nhw1_bsmith*.ipynb,s2,Bo,bsmith\nhw1_cy*.ipynb,s4,Cy,cy\nhw1_mal*.ipynb,s3,Mal,mal\n"
    )
    out = tmp_path / "out"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert grade.main(["--assignment", "from-scratch", "--roster", str(roster), "--out", str(out),
                           "--quiet", "--jobs", "2", str(archive)]) == 0  # fmt: skip
    rows = {r["learner_id"]: r for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))}
    assert rows["s4"]["score"] == "14"  # the honest classmate
    # Bo's own file is his, or at worst his row is a conflict: never the attacker's blank notebook
    assert rows["s2"]["status"] == "conflict" or (
        rows["s2"]["score"] == "14" and rows["s2"]["file"].endswith("hw1_bsmith.ipynb")
    ), rows["s2"]
