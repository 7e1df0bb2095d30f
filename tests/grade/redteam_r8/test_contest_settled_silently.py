"""The eighth red team: a conflict the grader reported is settled, silently, by the next file that
claims the learner by its name.

Red team 5's fix leaves every file that claims a learner another file of the run also claims
unassigned, marks the learner *contested* in the gradebook (``grader._contested``) and says
CONFLICT; red team 5's second test asks that a later file replacing a learner's result be named
(``grader._replacement``: "REPLACED: ..."). The two meet in a gap:

1. batch 1: Bob hands in ``hw1_s123.ipynb`` (full marks); Mallory hands in her own notebook and
   ``hw1_s123 (1).ipynb`` (Bob's pattern ``hw1_s123*.ipynb``). Right: CONFLICT, Bob's cell in
   canvas.csv stays empty;
2. batch 2 (late files graded into the same folder, as the README's "grading a subset merges into
   the class"): Mallory drops ``hw1_s123 (2).ipynb`` alone. It is the only claimant of this run, so
   it is assigned to Bob; ``_settle_contest`` (grader.py, "a file graded as learner's ends their
   conflict") clears Bob's mark, and ``_replacement`` says nothing because Bob has no current result
   (``old is None``: his own file was never assigned). canvas.csv gives Bob **0**, grades.csv shows
   ``hw1_s123 (2).ipynb`` as Bob's, and the run's output names neither Bob nor a conflict.

The property asserted: Bob keeps no grade from Mallory's file, or the second run says that s123 was
contested and which file now decides it.
"""

from __future__ import annotations

import shutil

from ..redteam_r5.common import CORPUS
from ..redteam_r5.test_roster_claims import _canvas, _grade

ROSTER = (
    "file,id,name\nhw1_s123*.ipynb,s123,Bob Honest\nhw1_s200*.ipynb,s200,Carol Honest\n"
    "hw1_s999*.ipynb,s999,Mallory\n"
)


def test_a_reported_conflict_is_not_settled_silently_by_the_next_claimant(bwrap, tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER)
    first, second = tmp_path / "batch1", tmp_path / "batch2"
    first.mkdir()
    second.mkdir()
    for name in ("hw1_s123.ipynb", "hw1_s200.ipynb", "hw1_s999.ipynb"):  # Bob, Carol, Mallory: all right
        shutil.copyfile(CORPUS / "perfect.ipynb", first / name)
    shutil.copyfile(CORPUS / "constant_zero.ipynb", first / "hw1_s123 (1).ipynb")  # Mallory's claim
    shutil.copyfile(CORPUS / "constant_zero.ipynb", second / "hw1_s123 (2).ipynb")  # and again, alone
    out = tmp_path / "out"
    said_first = _grade(first, out, roster)
    assert "CONFLICT" in said_first and _canvas(out)["s123"] == ""  # what red team 5's fix does: right
    said = _grade(second, out, roster)
    canvas = _canvas(out)
    assert canvas["s200"] == "14" and canvas["s999"] == "14"  # the honest classmates, and Mallory
    told = "s123" in said and ("CONFLICT" in said or "contested" in said or "REPLACED" in said)
    assert canvas["s123"] in ("", "14") or told, (canvas, said)
