"""The seventeenth red team: red team 16's wrapped copy hides again with one trivial edit in the one
function long enough for containment.

Red team 16's fix (``similarity.Tokens.preorder``) holds a copy whose statements are each wrapped in
``if k == k:`` only through *containment*, which applies to functions of 80+ tokens and needs 0.99
of them in order. Of the course's solution only ``average_precision_at_k`` is that long; every other
function is judged by the breadth-first ratio, which the wrapping still lowers (0.54-0.87, red team
16's numbers). So the wrapped copy with one edit inside ``average_precision_at_k`` that changes two
or three of its tokens is in no line of ``similarity.md``. Each edit below is meaning-preserving and
trivial:

1. ``min_swap``: ``total / min(k, len(relevant))`` -> ``total / min(len(relevant), k)``;
2. ``aug_expand``: ``hits += 1`` -> ``hits = hits + 1``;
3. ``split_tuple``: ``total, hits = 0.0, 0`` -> two assignments;
4. ``swap_tuple``: ``total, hits = 0.0, 0`` -> ``hits, total = 0, 0.0``.

Each scores 14/14 beside an honest classmate, and the report (with a classmate who handed in the
solution verbatim) has no pair, no match with the course's code, no "compared in part" line naming it.

The principle that would close it: a measure that a wrapper cannot lower for *every* function (the
ratio too on pre-order tokens, or unwrapping an ``if`` around one statement when comparing), or
containment with a tolerance that a one-token edit does not cross; never a single exact threshold on
the only function long enough to be measured.

Open (stop 41). Tried and measured, not landed: containment at 0.93 when the longer function is at most
three times the shorter. Among the repository's 1,724 functions of 80 to 2,000 tokens, name-blind
pre-order containment pairs unrelated code across files by chance: ``helpers/course/explore.py``'s
``hit_lines`` (98 tokens) is 0.959 contained in a 289-token polars test (ratio 0.31), and a dozen
unrelated functions reach 0.929 against it; lowering the threshold would pair honest learners. Lines
of attack for the next round: compare statements rather than tokens (an alignment of normalised
statements, each a unit, that skips inserted ones and unwraps single-statement blocks), or take the
ratio on pre-order tokens too once the honest corpus is checked against it.
"""

from __future__ import annotations

import pytest

from ..redteam_r5.common import copy_report, grade_class, notebook, with_honest
from ..redteam_r5.test_similarity_evasion import _solution
from ..redteam_r16.test_wrapped_copy_hides import _wrapped

_S = _solution()
_EDITS = {
    "min_swap": ("total / min(k, len(relevant))", "total / min(len(relevant), k)"),
    "aug_expand": ("hits += 1", "hits = hits + 1"),
    "split_tuple": ("total, hits = 0.0, 0", "total = 0.0\n    hits = 0"),
    "swap_tuple": ("total, hits = 0.0, 0", "hits, total = 0, 0.0"),
}


def _disguised(edit: str) -> str:
    old, new = _EDITS[edit]
    assert _S.count(old) == 1
    return _wrapped(_S.replace(old, new))


def test_the_disguised_copy_scores_full_marks_beside_an_honest_classmate(bwrap, tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    with_honest(folder, "honest.ipynb")
    notebook(folder / "disguised.ipynb", _disguised("min_swap"))
    graded = grade_class(folder, tmp_path / "out", seed=2**100 + 1717)
    assert {name: g["report"]["score"] for name, g in graded.items()} == dict.fromkeys(graded, 14.0)


@pytest.mark.parametrize("edit", sorted(_EDITS))
def test_a_wrapped_copy_with_one_edit_is_in_the_report(tmp_path, edit):
    assert "disguised.ipynb" in copy_report(tmp_path, "disguised.ipynb", _disguised(edit), _S)
