"""Red team 34: one Canvas file name the parse cannot read turns a whole Canvas download into files
learners named (round 32's ``collect._all_canvas_named``).

Canvas keeps underscores in the name part of its download names (``lib/content_zipper.rb``:
``sanitize_file_name`` removes only non-word characters, ``sanitize_user_name`` folds only
``_<digits>_``), so a learner whose sortable name holds one (``O_Brien, Ann`` -> ``o_brienann``) gets
``o_brienann_104_9004_from-scratch.ipynb``, which ``collect._CANVAS`` (name ``[^_/]+``) does not read.
Since round 32 a folder or zip is a Canvas download only when EVERY notebook in it has a Canvas name,
so that one learner (who may have chosen the name) makes every classmate's file a claim by a name:
without a roster each learner's key goes from ``canvas:<user id>`` to ``file:<name>``, so a term's
hidden cases are re-drawn, a re-download or resubmission (``...-1.ipynb``, a new attachment id) is a
new learner beside the old row, and REPLACED no longer links them.

No notebook is graded here (the collection is what changes); the honest files are Ann's and Bo's.

Closed at stop 43: ``collect.canvas_readings`` reads every way a name splits into Canvas's parts (the
name part may hold underscores and digits); a download is Canvas's when every notebook has a reading;
a name with several readings is the one a roster row has, else nobody's claim, reported
(``collect._one_reading``, ``_ambiguous``; without a roster, no ``canvas:`` key). Since red team 39
the instructor names Canvas's download (``--canvas``); nothing is read from a folder's contents.
"""

from __future__ import annotations

import shutil

from helpers.grade import collect
from tests.grade.redteam_r5.common import CORPUS


def test_one_underscore_name_keeps_classmates_canvas_keys(tmp_path):
    download = tmp_path / "hw1-submissions"
    download.mkdir()
    for name in ("smithann_101_9001_from-scratch.ipynb", "jonesbo_102_9002_from-scratch.ipynb",
                 "o_brienann_104_9004_from-scratch.ipynb"):  # fmt: skip
        shutil.copyfile(CORPUS / "perfect.ipynb", download / name)
    work = tmp_path / "work"
    work.mkdir()
    keys = {s.display: s.key for s in collect.collect([], None, work, canvas=[download]).submissions}
    assert keys["smithann_101_9001_from-scratch.ipynb"] == "canvas:101", keys
    assert keys["jonesbo_102_9002_from-scratch.ipynb"] == "canvas:102", keys
