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

Closed at stop 42 by statement alignment (``similarity.aligned``): each statement of one side matched
to one of the other's, in order, insertions and wrappers free, an edit costing only the tokens it
changes; a function of 80+ tokens held at 0.95 is a copy, and the graded code held as a whole at 0.97
(``similarity._aligned_whole``) catches the copies whose one long function is edited more (the split
tuple: 0.91). Before it, containment at 0.93 was tried and not landed: unrelated repository code
reaches 0.959 by token containment (0.70 to 0.88 aligned).
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
