"""The fifteenth red team: statements that do nothing, other than red team 14's constant branches,
still hide a copy from ``similarity``.

Red team 14's fix (``similarity._Pruner``, ``_unfolded``) drops ``pass``, constants, bare
annotations, assignments to names never read, code after ``return`` and ``if``/``while``/``for`` on a
*constant* condition. Each statement below does nothing either, yet survives the normalisation, and
one before every statement of the course's solution (a ten-line ``ast`` script, the names and
statements of the solution untouched) puts it under the 0.9 threshold, with no function a 0.95
near-verbatim copy:

1. ``self_assign``: ``k = k`` (a name assigned to itself; 0.84 against the solution);
2. ``aug_zero``: ``k += 0``;
3. ``try_pass``: ``try: pass`` / ``except Exception: pass``;
4. ``del_pair``: ``_t = 0`` then ``del _t`` (``_t`` is never read: ``del`` counts as a read in
   ``_unread``);
5. ``unused_def``: ``def _u(): return k`` (a nested function never called: a binding never read);
6. ``range_zero``: ``for _ in range(0): print(k)`` (a loop over nothing);
7. ``self_unequal``: ``if k != k: print(k)`` (``k`` is an int: never true).

Each scores 14/14 beside an honest classmate, and the report has no pair with a classmate who handed
in the solution verbatim, no match with the course's code and no "compared in part" line.

The same holds for ``choosing-metrics``' answers, compared "as the module-level assignments its value
depends on" (``similarity._answer_slice``): the course's solution with ``recs = recs``,
``relevant = relevant``, ``truth = truth``, ``recs_a = recs_a``, ``recs_b = recs_b`` before each
answer scores 10/10 (beside the honest solution, 10/10) and gives 0.69 against a verbatim copy:
absent from the report (the self-assignments store names the answer reads, so they are in its slice).

The principle that would close it: compare what the function computes, not the statements it is
written in: drop every statement whose removal leaves the function's data flow to its ``return``
unchanged (self-assignments, ``+= 0``, empty ``try``, bindings only deleted or never read including
``def``/``class``/``import``, loops over empty ranges), or score a pair on the statements of one side
that the other side contains in order (an alignment that skips insertions), so insertions cannot
dilute a copy.

Closed, both ways: a function of ``similarity.CONTAIN_TOKENS`` (80) tokens or more that the other
side's holds nearly whole and in order (``similarity.containment`` >= 0.95, whatever was inserted) is
a copy, reported as "contained: 1.00" (this alone finds ``self_assign``, ``aug_zero``, ``try_pass``
and ``self_unequal``: 1.00 for ``average_precision_at_k``; not the padding that brings in a new name,
``_t``, ``_u``, ``_``, which shifts the renaming of every later name: 0.89-0.92); and
the normalisation drops ``x = x``, ``x += 0``/``x -= 0``/``x *= 1``, a ``try`` whose body is ``pass``,
``del`` of names never read, nested ``def``/``class``/imports never read and loops over an empty
constant ``range`` (``similarity._identity``, ``_unused_definition``, ``_range_truth``), and leaves
self-assignments out of an answer's code (``_answer_slice``). ``if k != k`` is not folded (NaN).
"""

from __future__ import annotations

import ast

import pytest

from helpers.grade import similarity
from helpers.grade.assignments import ASSIGNMENTS
from helpers.grade.files import read_notebook

from ..redteam_r5.common import CORPUS as _CORPUS
from ..redteam_r5.common import copy_report, grade_class, notebook, rewrite_blocks, with_honest
from ..redteam_r5.test_similarity_evasion import _solution

_S = _solution()
PADDING = {
    "self_assign": ["k = k"],
    "aug_zero": ["k += 0"],
    "try_pass": ["try:\n    pass\nexcept Exception:\n    pass"],
    "del_pair": ["_t = 0", "del _t"],
    "unused_def": ["def _u():\n    return k"],
    "range_zero": ["for _ in range(0):\n    print(k)"],
    "self_unequal": ["if k != k:\n    print(k, relevant)"],
}


def _padded(statements: list[str]) -> str:
    """The solution with ``statements`` before every statement of every block inside a function."""
    return rewrite_blocks(_S, lambda old: [*(ast.parse(x).body[0] for x in statements), old])


def test_every_padded_copy_scores_full_marks_beside_an_honest_classmate(bwrap, tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    with_honest(folder, "honest.ipynb")
    for variant, statements in PADDING.items():
        notebook(folder / f"{variant}.ipynb", _padded(statements))
    graded = grade_class(folder, tmp_path / "out", seed=2**100 + 1515)
    assert {name: g["report"]["score"] for name, g in graded.items()} == dict.fromkeys(graded, 14.0)


@pytest.mark.parametrize("variant", sorted(PADDING))
def test_a_copy_padded_with_no_op_statements_is_in_the_report(variant, tmp_path):
    assert f"{variant}.ipynb" in copy_report(tmp_path, f"{variant}.ipynb", _padded(PADDING[variant]), _S)


_SOURCE = _CORPUS.parent.parent.parent / "exercises" / "source" / "choosing-metrics.ipynb"
_SELF = "recs = recs\nrelevant = relevant\ntruth = truth\nrecs_a = recs_a\nrecs_b = recs_b\n"


def _answers() -> list[str]:
    cells = read_notebook(_SOURCE.read_bytes())
    return [c.replace("### BEGIN SOLUTION\n", "").replace("### END SOLUTION\n", "") for c in cells]


def _value_class(folder) -> None:
    folder.mkdir()
    cells = _answers()
    notebook(folder / "padded.ipynb", cells[0], *[_SELF + c for c in cells[1:]])
    notebook(folder / "verbatim.ipynb", *cells)


def test_the_padded_answers_score_full_marks_beside_an_honest_classmate(bwrap, tmp_path):
    folder = tmp_path / "subs"
    _value_class(folder)
    (folder / "verbatim.ipynb").unlink()
    (folder / "honest.ipynb").write_bytes(_SOURCE.read_bytes())
    graded = grade_class(folder, tmp_path / "out", 2**100 + 1518, ASSIGNMENTS["choosing-metrics"])
    assert {name: g["report"]["score"] for name, g in graded.items()} == dict.fromkeys(graded, 10.0)


def test_answers_padded_with_self_assignments_are_in_the_report(tmp_path):
    _value_class(tmp_path / "subs")
    out = tmp_path / "out"
    argv = ["--assignment", "choosing-metrics", "--out", str(out), str(tmp_path / "subs")]
    assert similarity.main(argv) == 0
    assert "padded.ipynb" in (out / "similarity.md").read_text(encoding="utf-8")
