"""The sixth red team: similarity after x2 (bindings at every level, globals()/setattr, no-ops, partial
copies, helpers/course as a reference).

What still gets through, each graded beside an honest classmate:

1. **exec of a string**: the solution's code as one string literal, run by ``exec(...)`` in a cell.
   It scores full marks, and ``similarity`` reads no function in it (``notebook_functions`` parses
   the cells' code; a string is a constant), so the notebook is in no pair, no reference match and
   not even in the "not compared" list. A literal is there to be read (``ast.literal_eval`` of
   ``exec``'s argument), and a notebook whose graded names no statement binds is at least worth
   a line. Tried and found by x2 (they pass): a class's ``staticmethod``\\s bound to the graded
   names, a dict of functions through ``globals().update``, a ``functools.wraps`` decorator,
   ``functools.partial``, ``vars()[name] = f``, ``setattr(sys.modules[__name__], ...)``, the solution
   defined inside a function whose ``locals()`` update ``globals()``.
2. **the time budget**: ``compare_class``'s budget (``--time-budget``, 120 s) bounds the exact
   comparisons only. ``_matches`` compares every function of one side with every function of the
   other (a length test and a fingerprint Dice each) whatever the time, so its cost is the product
   of the two function counts, per pair. Two notebooks of 1,200 small functions each (116 KB of
   code, under the 128 KiB code cap and the 60,000-node cap) took 138 s in ``similarity.main``
   (nice 10, load ~5 on 2 cores), ~19 s of it past the budget for one pair; k such notebooks
   cost k(k-1)/2 times that after the budget.
"""

from __future__ import annotations

import time

import pytest

from helpers.grade import similarity

from ..redteam_r5.common import grade_class, notebook, with_honest
from ..redteam_r5.test_similarity_evasion import _solution


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    path = tmp_path_factory.mktemp("exec")
    with_honest(path, "honest.ipynb")
    notebook(path / "exec_string.ipynb", f"exec({_solution()!r})\n")
    return path


def test_the_exec_copy_scores_and_the_classmate_keeps_full_marks(bwrap, folder, tmp_path):
    graded = grade_class(folder, tmp_path / "out", seed=31337)
    assert graded["honest.ipynb"]["report"]["score"] == 14.0
    assert graded["exec_string.ipynb"]["report"]["score"] == 14.0


def test_a_copy_run_through_exec_of_a_string_is_in_the_report(folder, tmp_path):
    assert similarity.main(["--assignment", "from-scratch", "--out", str(tmp_path), str(folder)]) == 0
    assert "exec_string.ipynb" in (tmp_path / "similarity.md").read_text(encoding="utf-8")


SMALL = (
    "def f{i}(a, b, c):\n    if a > b:\n        return a * b + c - a\n    return [a, b, c, a + b, b - c]\n"
)


def _entry(label: str, n: int) -> similarity.Entry:
    graded, others = similarity.notebook_functions(["".join(SMALL.format(i=i) for i in range(n))], set())
    return similarity.Entry(label, similarity._tokens(graded), others=similarity._tokens(others))


def test_the_time_budget_bounds_a_pair_of_notebooks_of_many_small_functions():
    entries = [_entry("m1", 600), _entry("m2", 600)]
    assert sum(1 for f in entries[0].others.values() if len(f) >= 25) == 600  # 49 tokens each: all compared
    start = time.monotonic()
    similarity.compare_class(entries, [], budget=0.5)
    assert time.monotonic() - start < 0.5 + 1.5  # measured: 4.8 s (nice 10, load ~5, 2 cores)
