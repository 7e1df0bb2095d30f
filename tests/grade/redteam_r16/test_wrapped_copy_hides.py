"""The sixteenth red team: a verbatim copy whose statements are each wrapped in an always-true ``if``
is in no line of ``similarity.md``.

Red team 15's containment (``similarity.containment``) holds a padded copy because the tokens of a
function are walked breadth-first (``similarity.function_tokens``: ``ast.walk``) and statements
*inserted* between others leave the original tokens in order. A statement *wrapped* in a block moves
one level down: its tokens are then interleaved, breadth-first, with the tokens of the next level of
its neighbours, and the original order is gone. So the course's solution with every statement of every
block (``return`` too) put under ``if k == k:`` (kept by the normalisation on purpose: "a condition
that only looks constant is kept", true for every int ``k``), no new name, no other change, gives

    precision 0.80, recall 0.69, hit 0.87, reciprocal rank 0.65, average precision 0.54 (containment
    0.72), dcg 0.67, ndcg 0.76

against the solution: mean under 0.9, no function a 0.95 ratio copy, ``average_precision_at_k`` (the
one function of 80+ tokens) contained at 0.72 < 0.95: no pair with a verbatim classmate, no match
with the course's code, no "compared in part" line. It scores 14/14 beside an honest classmate.

This is not the KNOWN "new local name before every statement" padding: no name is introduced and no
statement is inserted between two others; it is the nesting depth that breaks the breadth-first order.

The principle that would close it: measure containment on a walk that keeps each statement's tokens
together (pre-order, depth first: a wrapper then only inserts tokens), or unwrap an ``if`` with no
``else`` whose body holds the rest of the block when comparing (score the body with and without its
wrapper), so a change of nesting cannot reorder a copy.

Closed: containment compares each function's tokens in pre-order (``similarity.Tokens.preorder``),
where a wrapper only inserts tokens before a statement's own.
"""

from __future__ import annotations

import ast

from ..redteam_r5.common import copy_report, grade_class, notebook, rewrite_blocks, with_honest
from ..redteam_r5.test_similarity_evasion import _solution

_S = _solution()


def _wrapped(source: str, condition: str = "k == k") -> str:
    """``source`` with every statement of every block inside a function under ``if condition:``."""

    def wrap(old: ast.stmt) -> list[ast.stmt]:
        wrapper = ast.parse(f"if {condition}:\n    pass").body[0]
        wrapper.body = [old]  # type: ignore[attr-defined]
        return [wrapper]

    return rewrite_blocks(source, wrap)


def test_the_wrapped_copy_scores_full_marks_beside_an_honest_classmate(bwrap, tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    with_honest(folder, "honest.ipynb")
    notebook(folder / "wrapped.ipynb", _wrapped(_S))
    graded = grade_class(folder, tmp_path / "out", seed=2**100 + 1616)
    assert {name: g["report"]["score"] for name, g in graded.items()} == dict.fromkeys(graded, 14.0)


def test_a_copy_wrapped_statement_by_statement_is_in_the_report(tmp_path):
    assert "wrapped.ipynb" in copy_report(tmp_path, "wrapped.ipynb", _wrapped(_S), _S)
