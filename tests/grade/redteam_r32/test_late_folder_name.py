"""Red team 32: a learner whose per-learner folder is named like the instructor's late-files folder
takes every late file given by itself from that folder.

``grader.no_roster_key`` gives a notebook with no platform key (a plain file given by itself) the
learner ``folder:<its parent folder's name>`` whenever the gradebook knows that key. A learner of a
flat folder of files can hand in a folder instead (``subs/late/hw.ipynb``: read as a per-learner
folder, key ``folder:late``). The README's own late-file command, ``... --out grades/
late/bo_fixed.ipynb``, then grades Bo's late file as the learner ``folder:late``: Bo's row keeps his
old score, the attacker's row gets Bo's late work (a ``REPLACED`` warning is printed, naming the
attacker's key, so an attentive instructor can notice), and Bo's file met the attacker's hidden cases.

Graded in the sandbox beside an honest classmate (``cy.ipynb``, full marks, untouched).

Closed at stop 44: a notebook given by itself is keyed by its own name (``file:bo_fixed``), whatever
its folder's name; a per-learner folder counts only inside a folder the instructor gives (``late/``
holding ``ann/``: red team 19's workflow). A note says when a file's folder has the name of a
learner's folder (``grader._folder_hints``), as a fact, never as advice to make it theirs.
"""

from __future__ import annotations

import contextlib
import csv
import io
import shutil

from helpers.grade import grader as grade
from helpers.grade.gradebook import Gradebook
from tests.grade.redteam_r5.common import CORPUS


def _rows(out):
    return {
        r["file"]: r for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text(encoding="utf-8")))
    }


def test_a_late_file_is_not_taken_by_a_folder_named_late(tmp_path, bwrap):
    subs, late, out = tmp_path / "subs", tmp_path / "late", tmp_path / "out"
    (subs / "late").mkdir(parents=True)
    late.mkdir()
    shutil.copyfile(CORPUS / "off_by_one_rank.ipynb", subs / "bo.ipynb")
    shutil.copyfile(CORPUS / "perfect.ipynb", subs / "cy.ipynb")
    shutil.copyfile(CORPUS / "empty_notebook.ipynb", subs / "late" / "hw.ipynb")  # the attacker
    shutil.copyfile(CORPUS / "perfect.ipynb", late / "bo_fixed.ipynb")  # Bo's late, fixed file
    common = ["--assignment", "from-scratch", "--out", str(out), "--quiet"]
    # the instructor reads the class as per-learner folders (the attacker's late/ is one)
    assert grade.main([*common, "--jobs", "2", "--learner-folders", str(subs)]) == 0
    before = _rows(out)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as said:
        assert grade.main([*common, str(late / "bo_fixed.ipynb")]) == 0
    assert "note: 'bo_fixed.ipynb' is graded as file:bo_fixed, not folder:late" in said.getvalue()
    assert "REPLACED" not in said.getvalue()
    after = _rows(out)
    assert after["cy.ipynb"]["score"] == before["cy.ipynb"]["score"] == "14"  # the honest classmate
    # Bo's late file is Bo's (file:bo_fixed: a new learner by the README's no-roster rule) or at least
    # nobody else's: the attacker's row still holds the attacker's own empty notebook
    assert "late/hw.ipynb" in after, after.keys()
    assert after["late/hw.ipynb"]["score"] == before["late/hw.ipynb"]["score"]
    with Gradebook.open(out) as book:
        whose = {r.display: r.who for r in book.current()}
    assert whose["bo_fixed.ipynb"] != "folder:late"
