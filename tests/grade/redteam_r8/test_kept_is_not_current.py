"""The eighth red team: "already graded (same file, same seed): kept" keeps a result that is not the
learner's current one.

A rerun skips a file whose (learner, sha256, seed) is already in the gradebook
(``grader._plan_run``: ``book.already_graded``), and records nothing. But the result it finds may be an
*older* one: the learner's current result is the latest run's (``gradebook._current_key``: run id
first), so the skipped file does not become current again.

1. batch 1: Bob's ``hw1_s123.ipynb``, 14/14; Carol's, 14/14;
2. batch 2: Mallory drops ``hw1_s123 (x).ipynb`` (Bob's pattern): Bob's result is replaced, 0/14, and
   the run says REPLACED, "check it is s123's own";
3. batch 3: the instructor does what that line asks and grades Bob's own file again. The run prints
   ``hw1_s123: already graded (same file, same seed): kept`` and canvas.csv still gives Bob **0**.

The same happens without an attacker: a learner who hands in A, then B, then A again (a revert) keeps
B's grade while the run says A was "kept". Asserted: after grading Bob's file again, Bob's grade is
that file's.
"""

from __future__ import annotations

import shutil

from ..redteam_r5.common import CORPUS
from .test_contest_settled_silently import _canvas, _grade

ROSTER = "file,id,name\nhw1_s123*.ipynb,s123,Bob Honest\nhw1_s200*.ipynb,s200,Carol Honest\n"


def test_grading_a_learners_file_again_makes_it_his_result(bwrap, tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER)
    batches = [tmp_path / f"batch{i}" for i in (1, 2, 3)]
    for folder in batches:
        folder.mkdir()
    shutil.copyfile(CORPUS / "perfect.ipynb", batches[0] / "hw1_s123.ipynb")  # Bob
    shutil.copyfile(CORPUS / "perfect.ipynb", batches[0] / "hw1_s200.ipynb")  # Carol
    shutil.copyfile(CORPUS / "constant_zero.ipynb", batches[1] / "hw1_s123 (x).ipynb")  # Mallory's claim
    shutil.copyfile(CORPUS / "perfect.ipynb", batches[2] / "hw1_s123.ipynb")  # Bob's own file, again
    out = tmp_path / "out"
    _grade(batches[0], out, roster)
    assert _canvas(out)["s123"] == "14"
    assert "REPLACED" in _grade(batches[1], out, roster)  # red team 5's fix: said, and that is right
    said = _grade(batches[2], out, roster)
    canvas = _canvas(out)
    assert canvas["s200"] == "14"
    assert canvas["s123"] == "14", (canvas, said)
