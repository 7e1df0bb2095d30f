"""The twenty-second red team: round 21's fix (``exports.TOOL_NAMES``) and its neighbours.

1. ``test_older_book_keeps_similarity`` (BROKEN, low): ``grader._report_names`` reserves the tools'
   names first and then lays the current results over them
   (``{tool: ""} | {name: who for current}``), so a learner whose current result is already named
   ``similarity`` (a gradebook of the term begun before round 21's fix: simulated here by grading
   the first run with ``exports.TOOL_NAMES`` empty, i.e. the previous code) keeps the name on every
   late file or regrade: the new code itself records a new result named ``similarity``, and every
   export writes ``OUT/similarity.json`` over the copy report. The honest classmate is untouched.
   Principle: a reserved name is never given, even to its current holder (rename that learner's
   result when the book is opened or on its next result), and an export never writes a report under a
   reserved name.
"""

from __future__ import annotations

import io
import json

from helpers.grade import exports, isolation, similarity
from helpers.grade import grader as grade
from helpers.grade.gradebook import Gradebook

from ..redteam_r5.common import CORPUS, A, grade_class, notebook, own_draws, with_honest

SEED = 2**100 + 2222
STUB = "def precision_at_k(ranking, relevant, k):\n    return 0.0\n"


def test_older_book_keeps_similarity(bwrap, tmp_path, monkeypatch):
    folder, out, late = tmp_path / "subs", tmp_path / "out", tmp_path / "late"
    folder.mkdir()
    late.mkdir()
    with_honest(folder, "honest.ipynb")
    notebook(folder / "similarity.ipynb", STUB)
    with monkeypatch.context() as m:  # the term's first run, before round 21's fix
        m.setattr(exports, "TOOL_NAMES", frozenset())
        graded = grade_class(folder, out, seed=SEED)
    assert graded["honest.ipynb"]["report"]["score"] == 14.0
    assert graded["similarity.ipynb"]["report"]["submission"] == "similarity"  # the old code's name
    # the instructor upgrades, writes the copy report beside the grades, and grades a late file
    assert similarity.main(["--assignment", "from-scratch", "--out", str(out), str(folder)]) == 0
    assert "pairs" in json.loads((out / "similarity.json").read_text(encoding="utf-8"))
    (late / "similarity.ipynb").write_bytes((CORPUS / "perfect.ipynb").read_bytes())
    with own_draws(A, SEED):
        done = grade.grade_many(
            [late / "similarity.ipynb"], A, out, jobs=1, seed=SEED, mode=isolation.BUBBLEWRAP,
            progress=io.StringIO(),
        )  # fmt: skip
    assert [r["score"] for r in done] == [14.0]
    honest = json.loads((out / "honest.json").read_text(encoding="utf-8"))
    assert honest["final_score"] == 14.0
    with Gradebook.open(out) as book:
        assert sum(1 for r in book.history() if r.submission == "honest") == 1
        names = {r.submission for r in book.current()}
    assert not {n.casefold() for n in names} & exports.TOOL_NAMES, names  # no new result takes it
    assert "pairs" in json.loads((out / "similarity.json").read_text(encoding="utf-8"))  # copy report kept
