"""Red team 34: a learner's Canvas name that ends in ``_<digits>`` claims a classmate's Canvas user id.

Canvas names each file of its bulk download ``<name>_[LATE_]<user id>_<attachment id>_<original>``
(``lib/content_zipper.rb``: ``get_filename``/``sanitize_user_name``/``sanitize_file_name``): ``<name>``
is the learner's *sortable name*, lower-cased, with every non-word character removed; underscores
are word characters and are KEPT, and only an underscore-wrapped number (``_(\\d+)_``) is folded.
Where an institution lets learners edit their name (Canvas's "Users can edit their name"), the
sortable name ``Mallory_101`` gives the file ``mallory_101_202_9002_from-scratch.ipynb`` for Canvas
user 202. ``collect._CANVAS`` takes the name as ``[^_/]+`` and the first number as the user id, so the
file is read as *user 101's*, the platform's own word in a Canvas download (``_top_file``,
``by=PLATFORM``). Ann (user 101) and the forged file then claim one learner alike: her row is a
``conflict`` with an empty score (without her own file, Mallory's notebook would be graded as hers).
A parse that takes the user id Canvas wrote would read both numbers as ambiguous or, better, pick the
reading whose user id is in the roster and whose name part matches; at the least a Canvas name whose
name part could hold ``_<digits>`` must not be the platform's word for the first number.

The honest classmate Cy (user 103) keeps full marks in every case.

Closed at stop 43: ``collect.canvas_readings`` reads every way a name splits into Canvas's parts (the
name part may hold underscores and digits); a download is Canvas's when every notebook has a reading;
a name with several readings is the one a roster row has, else nobody's claim, reported
(``collect._one_reading``, ``_ambiguous``; without a roster, no ``canvas:`` key).
"""

from __future__ import annotations

import contextlib
import csv
import io
import shutil

from helpers.grade import grader as grade
from tests.grade.redteam_r5.common import CORPUS


def test_sortable_name_with_underscore_number_claims_a_classmate(tmp_path, bwrap):
    download = tmp_path / "hw1-submissions"  # an unzipped Canvas bulk download
    download.mkdir()
    shutil.copyfile(CORPUS / "perfect.ipynb", download / "smithann_101_9001_from-scratch.ipynb")  # Ann
    shutil.copyfile(CORPUS / "perfect.ipynb", download / "leecy_103_9003_from-scratch.ipynb")  # Cy
    # Mallory (Canvas user 202) set her sortable name to "Mallory_101": Canvas keeps the underscore
    shutil.copyfile(CORPUS / "empty_notebook.ipynb", download / "mallory_101_202_9002_from-scratch.ipynb")
    roster = tmp_path / "roster.csv"
    roster.write_text(
        "file,id,name,canvas_id\nnone-s1.ipynb,s1,Ann,101\nnone-s2.ipynb,s2,Mallory,202\nnone-s3.ipynb,s3,Cy,103\n"
    )
    out = tmp_path / "out"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert grade.main(["--assignment", "from-scratch", "--roster", str(roster), "--out", str(out),
                           "--quiet", "--jobs", "2", "--canvas", str(download)]) == 0  # fmt: skip
    rows = {r["learner_id"]: r for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))}
    assert rows["s3"]["score"] == "14", rows["s3"]  # the honest classmate, untouched
    assert rows["s1"]["status"] == "graded" and rows["s1"]["score"] == "14", rows["s1"]  # Ann's own file
    assert "smithann" in rows["s1"]["file"], rows["s1"]
