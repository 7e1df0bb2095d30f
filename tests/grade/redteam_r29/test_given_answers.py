"""Red team 29: the positive rule ``authoring._refuse_given_answers`` (run the release, refuse a
learner notebook that already answers).

Broken (each test fails while the hole is open, passes once the release is refused):

1. ``test_release_that_scores_unchanged_is_refused`` (medium): ``_run_learner`` runs each CELL as one
   block and skips the rest of a cell at its first error, while the grader (``child.run_cell``) runs
   each top-level STATEMENT and goes on after an error. A cell whose first line uses a stub (a demo
   line such as ``print(answer_q2 + 0)``: fine in the spec, where the answer is a number, a TypeError
   in the release, where it is ``...``) followed by an unmarked (or look-alike-marked) solution is
   written, and the released notebook, handed in unchanged, scores the function's full marks in the
   bubblewrap sandbox (3/4 beside an honest 4/4). Principle: run the release exactly as the grader
   does (its ``prepare_notebook`` statements and ``run_cell``), not a second approximation.
2. ``test_answer_under_another_binding_is_refused`` (low): the rule looks only at the target's FINAL
   binding. A solution the release hands out under an earlier binding or another name is written:
   a full unmarked draft of the target in a cell above its marked version, an unmarked answer line
   above the region, the whole solution as an unmarked helper that the region only calls.
   Principle: refuse when the target's binding after ANY statement of the release answers, or ANY
   callable of the release is right on every seed-0 case of a graded function (random cases make a
   coincidence unlikely). Not made a test on purpose: a value answer computed outside the region
   under another name (``looked_at = 3``, region ``answer_q2 = looked_at``) leaks too, but comparing
   every given value to a numeric answer would refuse honest constants (a given ``k = 3``).

Held (run): a ``%%capture`` cell holding an unmarked solution (refused: ``_without_magics`` runs it);
a target's stub given as a lambda outside a region (written, answers nothing); the course's sources
(``tools/learner_notebooks.py --check``: up to date); ``display(...)`` before an unmarked solution
(the spec itself fails to run, so the instructor sees it).

Closed at stop 43: ``authoring._run_release`` runs the release as the grader does (statements
split by ``prepare_notebook``, an error never stopping the next) and ``_giving`` reads every binding
a target had and every function the notebook defines.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from helpers.grade import authoring
from helpers.grade import grader as grade

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_authoring import source_notebook

SOL = "def mean_of_top(values, k):\n    top = values[:k]\n    return sum(top) / len(top)\n"
LOOK_BEGIN = "    ### \u0412\u0415GIN \u0405\u041eLU\u0422\u0406\u041eN\n"
LOOK_END = "    ### \u0415ND \u0405\u041eLU\u0422\u0406\u041eN\n"
DEMO = 'print("hit@3 looks at", answer_q2 + 0, "items")\n\n'
MARKED = (
    "def mean_of_top(values, k):\n    ### BEGIN SOLUTION\n    top = values[:k]\n"
    "    return sum(top) / len(top)\n    ### END SOLUTION\n"
)


def _author(tmp_path: Path, nb: dict):
    source = tmp_path / "source.ipynb"
    source.write_text(json.dumps(nb), encoding="utf-8")
    try:
        return authoring.author(source, tmp_path / "build")
    except authoring.AuthoringError:
        return None


def _honest(tmp_path: Path) -> Path:
    nb = source_notebook()
    nb["cells"] = [c for c in nb["cells"] if not authoring._is_grading(c)]
    nb["cells"][1]["source"] = SOL
    nb["cells"][2]["source"] = "answer_q2 = 3\n"
    path = tmp_path / "honest.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "body", [SOL, SOL.replace("    top", LOOK_BEGIN + "    top") + LOOK_END], ids=["unmarked", "look-alike"]
)
def test_release_that_scores_unchanged_is_refused(tmp_path, bwrap, body):
    nb = source_notebook()
    nb["cells"][1], nb["cells"][2] = nb["cells"][2], nb["cells"][1]  # the answer cell first, then
    nb["cells"][2]["source"] = DEMO + body  # a demo line that uses it, then the function
    written = _author(tmp_path, nb)
    if written is None:
        return  # refused: nothing handed out
    learner, spec, _ = written
    out = tmp_path / "out"
    args = ["--assignment", str(spec), "--out", str(out), "--quiet", "--seed", "3"]
    assert grade.main([*args, str(learner), str(_honest(tmp_path))]) == 0
    scores = {p.stem: json.loads(p.read_text())["score"] for p in out.glob("*.json")}
    assert scores["honest"] == 4.0  # the classmate is untouched
    assert scores["rank-basics"] == 0.0  # the release handed in unchanged earns nothing


@pytest.mark.parametrize(
    "where, source",
    [
        (1, SOL + "\n\n" + MARKED),
        (2, "answer_q2 = 3\n\n### BEGIN SOLUTION\nanswer_q2 = 3\n### END SOLUTION\n"),
        (
            1,
            "def _top_mean(values, k):\n    top = values[:k]\n    return sum(top) / len(top)\n\n"
            "def mean_of_top(values, k):\n    ### BEGIN SOLUTION\n    return _top_mean(values, k)\n"
            "    ### END SOLUTION\n",
        ),
    ],
    ids=["draft-above", "answer-line-above", "solution-as-helper"],
)
def test_answer_under_another_binding_is_refused(tmp_path, where, source):
    nb = source_notebook()
    nb["cells"][where]["source"] = source
    assert _author(tmp_path, nb) is None
    assert not (tmp_path / "build").exists()
