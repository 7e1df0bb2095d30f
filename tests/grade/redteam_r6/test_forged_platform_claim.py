"""The sixth red team: a file name shaped like Canvas's is taken as the platform's word.

x2 ranks claims: the platform's (Canvas's user id or name, Gradescope's submitters, a per-learner
folder's name: "nothing a learner types") beat a file name's (a roster pattern), and two claims of
one kind are a CONFLICT. But whether a name is Canvas's is decided from its shape alone
(``collect._top_file`` -> ``parse_canvas_name``: ``<name>_<digits>_<digits>_<anything>``), in any
folder, also the flat folder of files the learners named themselves, which is what the roster's
``file`` patterns are for. The roster of a class exported to Canvas has ``login`` or ``canvas_id``
(the Canvas export needs one), and ``_canvas_learners`` matches ``<name>`` against ``login``.

So Mallory hands in her own notebook and a second one named ``bob_1_1_hw1.ipynb``: it is
"identified by the platform" as Bob's, wins over Bob's own ``hw1_s123.ipynb`` (a claim by name,
now "unmatched"), and Bob's grade is the score of Mallory's file (0 here, for his full-marks
notebook). Nothing says CONFLICT or REPLACED: the run prints only "not assigned to anybody:
'hw1_s123.ipynb': claims learner s123 by its name, but 'bob_1_1_hw1.ipynb' is identified by the
platform as s123's", as if that were right; Mallory keeps her own 14. With ``canvas_id`` in the
roster the same works with Bob's Canvas user id (classmates see it in Canvas's URLs).
"""

from __future__ import annotations

import shutil

from ..redteam_r5.common import CORPUS
from ..redteam_r5.test_roster_claims import _canvas, _grade

ROSTER = (
    "file,id,name,login\nhw1_s123*.ipynb,s123,Bob Honest,bob\nhw1_s200*.ipynb,s200,Carol Honest,carol\n"
    "hw1_s999*.ipynb,s999,Mallory,mallory\n"
)


def test_a_canvas_shaped_name_in_a_flat_folder_does_not_take_a_classmates_grade(bwrap, tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER)
    subs = tmp_path / "subs"
    subs.mkdir()
    for name in ("hw1_s123.ipynb", "hw1_s200.ipynb", "hw1_s999.ipynb"):  # Bob, Carol, Mallory: all right
        shutil.copyfile(CORPUS / "perfect.ipynb", subs / name)
    shutil.copyfile(CORPUS / "constant_zero.ipynb", subs / "bob_1_1_hw1.ipynb")  # Mallory's second file
    out = tmp_path / "out"
    said = _grade(subs, out, roster, "--deadline", "2020-01-01T00:00:00+00:00")
    canvas = _canvas(out)
    assert canvas["s200"] == "14" and canvas["s999"] == "14"  # Carol, and Mallory herself
    assert canvas["s123"] == "14" or "CONFLICT" in said, (canvas, said)
