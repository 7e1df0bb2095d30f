"""The fourteenth red team: a verbatim copy padded with statements that do nothing is in no line of
``similarity.md``.

The README promises that similarity ignores "statements without effect: ``pass``, constants,
assignments to names never read, code after ``return``" (red team 5's ``_trace = None`` after every
statement is now ignored, and so are a bare name or tuple of names). Other statements the compiler
itself throws away, or that do nothing when run, are still compared as code:

1. ``if_false``: ``if False:`` with a junk call (``print(k, relevant)``) before every statement of
   every function (CPython compiles ``if False:`` bodies to nothing);
2. ``annotation``: ``k: int`` before every statement (a local variable's annotation is never
   evaluated in a function body);
3. ``while_false``: ``while False: print(k)`` before every statement.

Each is the course's solution, otherwise untouched (the same names, the same statements): it scores
14/14 beside an honest classmate, and ``similarity`` gives it 0.72 / 0.84 / 0.76 against the solution
notebook (under the 0.9 threshold, and no function is a near-verbatim 0.95 copy), so the report has no
pair with a classmate who handed in the solution verbatim, no match with the course's code, no
"compared in part" line. A mechanical insertion (a ten-line script) hides any copy.

The principle that would close it: normalise away every statement the program does not depend on,
the way the compiler does (constant-false ``if``/``while`` bodies, annotations without a value,
expression statements of names and constants), or compare the functions' compiled bytecode /
data-flow rather than their syntax, so padding that cannot run or does nothing cannot dilute a copy.

Closed: the normalisation replaces each ``if``/``while``/``for`` on a constant condition by what runs
and drops bare annotations (``similarity._unfolded``, ``_truth``).
"""

from __future__ import annotations

import ast

import pytest

from helpers.grade import similarity

from ..redteam_r5.common import grade_class, notebook, rewrite_blocks, with_honest
from ..redteam_r5.test_similarity_evasion import _solution

_S = _solution()
PADDING = {
    "if_false": "if False:\n    print(k, relevant)",
    "annotation": "k: int",
    "while_false": "while False:\n    print(k)",
    # after the fix (similarity._unfolded): the same idea with other constant conditions
    "if_zero": "if 0:\n    pass",
    "if_not_true": "if not True:\n    print(k)",
    "and_false": "if k > 100 and False:\n    print(k)",
    "for_empty": "for _ in ():\n    print(k)",
}


def _padded(statement: str) -> str:
    """The solution with ``statement`` before every statement of every block inside a function."""
    return rewrite_blocks(_S, lambda old: [ast.parse(statement).body[0], old])


def _class(folder, variant: str) -> None:
    folder.mkdir()
    with_honest(folder, "honest.ipynb")
    notebook(folder / f"{variant}.ipynb", _padded(PADDING[variant]))
    notebook(folder / "verbatim.ipynb", _S)  # a classmate who handed in the solution as it is


def test_every_padded_copy_scores_full_marks_beside_an_honest_classmate(bwrap, tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    with_honest(folder, "honest.ipynb")
    for variant, statement in PADDING.items():
        notebook(folder / f"{variant}.ipynb", _padded(statement))
    graded = grade_class(folder, tmp_path / "out", seed=2**100 + 1414)
    assert {name: g["report"]["score"] for name, g in graded.items()} == dict.fromkeys(graded, 14.0)


def test_the_control_a_verbatim_copy_is_in_the_report(tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    with_honest(folder, "honest.ipynb")
    notebook(folder / "verbatim.ipynb", _S)
    notebook(folder / "verbatim_too.ipynb", _S)
    assert similarity.main(["--assignment", "from-scratch", "--out", str(tmp_path / "out"), str(folder)]) == 0
    report = (tmp_path / "out" / "similarity.md").read_text(encoding="utf-8")
    assert "verbatim.ipynb" in report and "verbatim_too.ipynb" in report


@pytest.mark.parametrize("variant", sorted(PADDING))
def test_a_copy_padded_with_dead_statements_is_in_the_report(variant, tmp_path):
    _class(tmp_path / "subs", variant)
    out = tmp_path / "out"
    assert similarity.main(["--assignment", "from-scratch", "--out", str(out), str(tmp_path / "subs")]) == 0
    report = (out / "similarity.md").read_text(encoding="utf-8")
    assert f"{variant}.ipynb" in report
