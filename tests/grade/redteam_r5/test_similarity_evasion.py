"""The fifth red team: copies of the course's own code that score and that ``similarity`` never shows.

Issue 33 closed "a verbatim copy bound by alias hides" by resolving ``name = other`` and
``name = lambda`` at the top level of each cell (``similarity._bindings``). A copy hides just as
well, with full marks, when the graded functions are

1. defined inside a block: the solution indented under ``if True:`` or ``try: ... except: pass``
   (``_bindings`` reads only each cell's top-level statements);
2. bound by ``globals()[name] = function`` in a loop (not an ``ast.Assign`` to a name);
3. the solution with a no-op statement after each statement (``_trace = None``, some after a
   ``return``): 0.83 against the solution, under the 0.9 threshold;
4. five of the seven functions copied verbatim from the solution and two written anew: the pair's
   score is the mean over functions weighted by length (five at 1.00 and two near 0.4 give 0.83),
   so five verbatim copies are under the threshold and shown nowhere;
5. the course's own function published to learners under another name: ``helpers/course/nb13.py``'s
   ``loo_ndcg(ranking, held_out, k)``, renamed ``loo_ndcg_at_k``, earns that question's 2 points of
   ``leave-one-out``; ``helpers/course`` is no reference of ``similarity`` (the solution notebook and
   ``topkeval`` are), the learner release's ``--scan`` looks for the graded names only, and the
   README's known overlap names notebooks 02-04 only.

None of these notebooks appears anywhere in the report (not even "not compared"), while an honest
classmate is graded beside them. Each property is asserted, so each test fails until the class is
closed (``xfail(strict=True)``: remove the mark with the fix).
"""

from __future__ import annotations

import ast
import inspect
import io
import json
import re
import shutil
from pathlib import Path

import pytest

from helpers.course import nb13
from helpers.grade import grader as grade
from helpers.grade import isolation, similarity
from helpers.grade.assignments import ASSIGNMENTS

from .common import grade_class, notebook, with_honest

REPO = Path(__file__).resolve().parents[3]


def _solution() -> str:
    cells = json.loads((REPO / "exercises" / "source" / "from-scratch.ipynb").read_text())["cells"]
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    solved = [re.sub(r"(?m)^\s*### (BEGIN|END) SOLUTION\n?", "", c) for c in code if "BEGIN SOLUTION" in c]
    return "import math\n\n" + "\n\n".join(solved)


class _NoOps(ast.NodeTransformer):
    """A ``_trace = None`` after every statement of every function body (the program is unchanged)."""

    def generic_visit(self, node):
        super().generic_visit(node)
        if not isinstance(node, ast.Module):
            for name in ("body", "orelse"):
                body = getattr(node, name, None)
                if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                    setattr(node, name, [x for s in body for x in (s, ast.parse("_trace = None").body[0])])
        return node


OWN_DCG = """
def dcg_at_k(ranking, relevant, k):
    gains = relevant if isinstance(relevant, dict) else {item: 1 for item in relevant}
    return sum(gains.get(item, 0) / math.log2(rank + 1) for rank, item in enumerate(ranking[:k], start=1))


def ndcg_at_k(ranking, relevant, k):
    gains = relevant if isinstance(relevant, dict) else {item: 1 for item in relevant}
    ideal = sorted(gains.values(), reverse=True)[:k]
    best = sum(g / math.log2(rank + 1) for rank, g in enumerate(ideal, start=1))
    return dcg_at_k(ranking, relevant, k) / best if best else 0.0
"""


def _indented(code: str) -> str:
    return "\n".join("    " + line if line.strip() else line for line in code.splitlines())


def _evaders() -> dict[str, str]:
    code = _solution()
    short = {"precision_at_k": "_p", "recall_at_k": "_r", "hit_at_k": "_h", "reciprocal_rank_at_k": "_rr"}
    short |= {"average_precision_at_k": "_ap", "dcg_at_k": "_dcg", "ndcg_at_k": "_ndcg"}
    renamed = code
    for name, alias in short.items():
        renamed = re.sub(rf"\b{name}\b", alias, renamed)
    return {
        "verbatim.ipynb": code,
        "in_if_block.ipynb": "if True:\n" + _indented(code) + "\n",
        "in_try_block.ipynb": "try:\n" + _indented(code) + "\nexcept Exception:\n    pass\n",
        "globals_binding.ipynb": renamed
        + f"\nfor _name, _alias in {sorted(short.items())!r}:\n    globals()[_name] = globals()[_alias]\n",
        "no_ops.ipynb": ast.unparse(ast.fix_missing_locations(_NoOps().visit(ast.parse(code)))),
        "partial_copy.ipynb": code.split("def dcg_at_k")[0] + OWN_DCG,
    }


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("copies")
    with_honest(path, "honest.ipynb")
    for name, code in _evaders().items():
        notebook(path / name, code)
    return path


@pytest.fixture(scope="module")
def report(folder, tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("similarity")
    assert similarity.main(["--assignment", "from-scratch", "--out", str(out), str(folder)]) == 0
    return (out / "similarity.md").read_text(encoding="utf-8")


def test_the_copies_score_and_the_classmate_keeps_full_marks(bwrap, folder, tmp_path):
    graded = grade_class(folder, tmp_path / "out", seed=31337)
    assert graded["honest.ipynb"]["report"]["score"] == 14.0
    for name in ("verbatim", "in_if_block", "in_try_block", "globals_binding", "no_ops", "partial_copy"):
        assert graded[f"{name}.ipynb"]["report"]["score"] == 14.0, name


def test_the_verbatim_copy_is_found(report):
    assert "` verbatim.ipynb `" in report


@pytest.mark.parametrize("name", ["in_if_block", "in_try_block", "globals_binding"])
def test_a_copy_defined_in_a_block_or_through_globals_is_in_the_report(report, name):
    assert f"` {name}.ipynb `" in report


def test_a_copy_padded_with_no_op_statements_is_in_the_report(report):
    assert "` no_ops.ipynb `" in report


def test_five_functions_copied_verbatim_of_seven_are_in_the_report(report):
    assert "` partial_copy.ipynb `" in report


@pytest.fixture(scope="module")
def renamed_course_code(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("nb13")
    shutil.copyfile(REPO / "exercises" / "source" / "leave-one-out.ipynb", path / "honest.ipynb")
    code = inspect.getsource(nb13.loo_ndcg).replace("def loo_ndcg(", "def loo_ndcg_at_k(")
    notebook(path / "nb13_copy.ipynb", "import math\n\n" + code)
    return path


def test_the_renamed_course_function_earns_its_points(bwrap, renamed_course_code, tmp_path):
    done = grade.grade_many(
        sorted(renamed_course_code.iterdir()), ASSIGNMENTS["leave-one-out"], tmp_path / "out",
        seed=7, mode=isolation.BUBBLEWRAP, progress=io.StringIO(),
    )  # fmt: skip
    by_file = {r["file"]: r for r in done}
    assert by_file["honest.ipynb"]["score"] == by_file["honest.ipynb"]["max_score"]
    points = {q["target"]: q["points"] for q in by_file["nb13_copy.ipynb"]["questions"]}
    assert points["loo_ndcg_at_k"] == 2.0


def test_the_renamed_course_function_is_in_the_report(renamed_course_code, tmp_path):
    assert similarity.main(
        ["--assignment", "leave-one-out", "--out", str(tmp_path), str(renamed_course_code)]
    ) == 0  # fmt: skip
    assert "` nb13_copy.ipynb `" in (tmp_path / "similarity.md").read_text(encoding="utf-8")
