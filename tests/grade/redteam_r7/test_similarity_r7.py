"""The seventh red team: similarity after red team 6's fix (code exec'd from string literals).

``similarity._exec_trees`` reads code only when ``exec``/``eval``/``compile`` is called by that bare
name with a ``str`` constant as its first argument (``_exec_literal``). Everything below still runs
the whole solution, scores full marks, and leaves the notebook in no pair, no reference match and
not even the "not compared" list, although each argument is as readable from the source as the
literal red team 6 used (no code is built at run time from data):

1. ``SRC = "..."`` then ``exec(SRC)``: a module-level constant name;
2. ``exec("..." + "...")``: a concatenation of two literals (a constant expression);
3. ``exec(f"...")``: an f-string without a placeholder (an ``ast.JoinedStr``);
4. ``exec(b"...")``: a bytes literal (``exec`` runs bytes);
5. ``run = exec; run("...")`` and ``builtins.exec("...")``: ``exec`` by another name;
6. ``exec("...".strip())``: a method of the literal.

Red team 6's other suggestion is not implemented either: a notebook whose graded names no
statement binds is worth a line of the report (that one line would cover every variant here).

7. **One notebook stops the whole class's report.** ``prepare.prepare_notebook`` (prepare.py:97)
   catches ``SyntaxError`` and ``ValueError`` only; a cell ``y = x+x+...+x`` (3,000 terms, 6 KB)
   makes ``ast.parse`` raise ``RecursionError`` ("maximum recursion depth exceeded during ast
   construction"), which ``similarity.notebook_functions`` (similarity.py:487) does not catch:
   ``similarity.main`` dies with a traceback and writes no report, so two classmates' copies
   (or the attacker's own copy of a friend) are reported to nobody. The grader survives it (its
   run is an "internal error" for that file only).
"""

from __future__ import annotations

import shutil

import pytest

from helpers.grade import similarity

from ..redteam_r5.common import CORPUS, grade_class, notebook, with_honest
from ..redteam_r5.test_similarity_evasion import _solution

_S = _solution()
_H = len(_S) // 2
VARIANTS = {
    "constant_name": f"SRC = {_S!r}\nexec(SRC)\n",
    "concatenation": f"exec({_S[:_H]!r} + {_S[_H:]!r})\n",
    "f_string": f"exec(f{_S!r})\n",
    "bytes": f"exec({_S.encode()!r})\n",
    "alias": f"run = exec\nrun({_S!r})\n",
    "builtins_exec": f"import builtins\nbuiltins.exec({_S!r})\n",
    "strip": f"exec({_S!r}.strip())\n",
}


def test_the_solution_has_no_braces_so_the_f_string_is_the_same_text():
    assert "{" not in _S and "}" not in _S


def _report(folder, out) -> str:
    assert similarity.main(["--assignment", "from-scratch", "--out", str(out), str(folder)]) == 0
    return (out / "similarity.md").read_text(encoding="utf-8")


def test_every_variant_scores_full_marks_beside_an_honest_classmate(bwrap, tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    with_honest(folder, "honest.ipynb")
    for name in ("constant_name", "bytes", "alias", "strip"):
        notebook(folder / f"{name}.ipynb", VARIANTS[name])
    graded = grade_class(folder, tmp_path / "out", seed=4242)
    assert {name: g["report"]["score"] for name, g in graded.items()} == dict.fromkeys(graded, 14.0)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_copy_run_through_exec_is_in_the_report(variant, tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    with_honest(folder, "honest.ipynb")
    notebook(folder / f"{variant}.ipynb", VARIANTS[variant])
    assert f"{variant}.ipynb" in _report(folder, tmp_path / "out")


def test_the_literal_red_team_6_used_is_read_now(tmp_path):  # the control: the fix works for it
    folder = tmp_path / "subs"
    folder.mkdir()
    with_honest(folder, "honest.ipynb")
    notebook(folder / "literal.ipynb", f"exec({_S!r})\n")
    assert "literal.ipynb" in _report(folder, tmp_path / "out")


def test_one_deeply_nested_cell_does_not_stop_the_class_report(tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    shutil.copyfile(CORPUS / "perfect.ipynb", folder / "copy_a.ipynb")  # two copies: a pair to report
    shutil.copyfile(CORPUS / "perfect.ipynb", folder / "copy_b.ipynb")
    notebook(folder / "deep.ipynb", "y = " + "x+" * 3000 + "x\n")
    text = _report(folder, tmp_path / "out")
    assert "copy_a.ipynb" in text and "copy_b.ipynb" in text


def test_the_two_copies_are_a_pair_without_the_deep_cell(tmp_path):  # the control of the test above
    folder = tmp_path / "subs"
    folder.mkdir()
    shutil.copyfile(CORPUS / "perfect.ipynb", folder / "copy_a.ipynb")
    shutil.copyfile(CORPUS / "perfect.ipynb", folder / "copy_b.ipynb")
    text = _report(folder, tmp_path / "out")
    assert "copy_a.ipynb" in text and "copy_b.ipynb" in text
