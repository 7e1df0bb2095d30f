"""Red team 35: the authoring tool's release checks (``authoring._refuse_given_answers``,
``_shown_cases``/``_shows``, ``_release_values``/``_given_value``, ``_defined``/``_reachable``).

Broken (each test fails while the hole is open, passes once it is closed):

1. ``test_hidden_case_in_an_example_call_stays_hidden`` (low-medium): ``_shows`` compares a fixed
   hidden case with the code's TEXT through ``repr`` with spaces removed. ``repr`` writes strings in
   single quotes, while instructors (and Black) write double quotes, and Black adds a trailing comma
   when it splits a long literal over lines; a hidden case written out in a given self-test
   (``assert precision_at_k(["apple", ...], {"pear", "kiwi"}, 3) == 1 / 3``, or a ``print`` of the
   same call) is not bound to a name (so ``_key`` never sees it) and its text is not ``repr``'s:
   the learner notebook is written with the hidden case in it. With single quotes the same source is
   refused. Principle: compare the code's literals by value (``ast.literal_eval`` of every literal
   node of the release's code) rather than its text.
2. ``test_hidden_case_in_prose_stays_hidden`` (low): only code cells are read; the same hidden case
   given as an example in the markdown statement (with its value) reaches learners. Principle: read
   the literals of markdown code spans and fences too (or all text of the release).
3. ``test_value_answer_in_a_table_is_refused`` (low; the neighbour of red team 33's hole):
   ``_release_values`` descends dicts, lists, tuples and sets only. The given code that computes a
   table of metrics as a pandas DataFrame (or Series, or NumPy array) and a region around the line
   that reads one cell of it (``answer_q2 = table.loc["popularity", "ndcg"]``) is written, while
   the same table as a dict of dicts is refused. Principle: descend NumPy arrays and pandas objects
   (their ``.to_numpy().ravel()`` values, bounded) as containers.
4. ``test_method_of_a_given_class_is_refused`` (low; neighbour of red team 31): ``_methods`` binds a
   method through an instance of the release's classes; a given class that is never instantiated,
   whose method ``mean_of_top(self, values, k)`` is the full reference, is written (the learner's
   stub becomes ``return Metrics().mean_of_top(values, k)``). Principle: try a method's function
   with a placeholder ``self`` (``None`` or an instance made with ``object.__new__``) as well.
5. ``test_honest_reciprocal_ranks_are_not_refused`` (low; honest instructor source refused):
   ``_given_value`` refuses any float of more than two decimals that the release holds and equals a
   value answer. A given plot of reciprocal rank against rank (``rr = [1 / r for r in ranks]``, the
   most common figure of a top-K course) holds 1/3, 1/6, 1/7...; a value answer "precision@3 of the
   example" (1/3) then refuses an honest source, saying the notebook computes the answer.
   Principle: a value equal by chance in a list of unrelated values is not the answer; compare
   names bound (or held alone), or set aside simple fractions n/d with small d as the decision
   sets aside two-decimal floats.

No learner code runs here (authoring only), so no classmate is graded.

Closed at stop 43: hidden cases are compared by value with every literal of the code and of the
markdown's code fences and spans (``authoring._literals``), never by printed text (quotes,
layout and a set's order no longer matter); value answers with what the release holds under a
label: names, dict keys, pandas cells (``_labelled_values``, ``_table_cells``; an item of a list or
array is one number among many, by decision); a class's methods are tried on a bare instance too.
"""

# ruff: noqa: E501  (notebook sources written out as the instructors would)

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ..redteam_r31.test_authoring_r31 import _author

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_authoring import DECLARATION, _cell, source_notebook

HIDDEN = '(["apple", "pear", "fig", "kiwi"], {"pear", "kiwi"}, 3)'
PRECISION = """# grading
ASSIGNMENT = {"name": "prec", "title": "Precision"}
QUESTIONS = [
    {"target": "precision_at_k", "points": 3, "result": "unit",
     "checks": [
         {"name": "worked example", "cases": [(["i1", "i2"], {"i1"}, 1)]},
         {"name": "edge", "hidden": True, "cases": [HIDDEN]},
         {"name": "random", "hidden": True, "general": True, "n": 10,
          "generate": lambda rng: ([f"i{rng.randint(1, 9)}" for _ in range(5)], {"i1", "i3"}, rng.randint(1, 5))},
     ]},
]
""".replace("HIDDEN", HIDDEN)


def _precision_notebook(given: list[str] = (), prose: list[str] = ()) -> dict:
    cells = [
        _cell("markdown", "# Precision\n\nWrite `precision_at_k(recommended, relevant, k)`."),
        *[_cell("markdown", p) for p in prose],
        _cell(
            "code",
            "def precision_at_k(recommended, relevant, k):\n    ### BEGIN SOLUTION\n    top = recommended[:k]\n"
            "    return sum(1 for x in top if x in relevant) / k\n    ### END SOLUTION\n",
        ),
        *[_cell("code", g) for g in given],
        _cell("code", PRECISION),
    ]
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def test_precision_source_is_written_without_the_example(tmp_path):
    """Control: the source is accepted as such; with the example bound to a name it is refused."""
    assert _author(tmp_path / "a", _precision_notebook(), "prec") is not None
    assert _author(tmp_path / "b", _precision_notebook([f"example = {HIDDEN}\n"]), "prec") is None


EXAMPLES = {
    "assert-double-quotes": f"assert precision_at_k{HIDDEN} == 1 / 3\n",
    "print-double-quotes": f"print(precision_at_k{HIDDEN})\n",
    "black-split": (
        'print(\n    precision_at_k(\n        [\n            "apple",\n            "pear",\n            "fig",\n'
        '            "kiwi",\n        ],\n        {"pear", "kiwi"},\n        3,\n    )\n)\n'
    ),
}


@pytest.mark.parametrize("kind", sorted(EXAMPLES))
def test_hidden_case_in_an_example_call_stays_hidden(tmp_path, kind):
    learner = _author(tmp_path, _precision_notebook([EXAMPLES[kind]]), "prec")
    assert learner is None or "kiwi" not in learner.read_text(encoding="utf-8")


def test_hidden_case_in_prose_stays_hidden(tmp_path):
    prose = f"For example, `precision_at_k{HIDDEN}` is `1 / 3`: one of the first three is relevant."
    learner = _author(tmp_path, _precision_notebook(prose=[prose]), "prec")
    assert learner is None or "kiwi" not in learner.read_text(encoding="utf-8")


def _value_notebook(given: str, region: str) -> dict:
    nb = source_notebook(
        DECLARATION.replace(
            '"target": "answer_q2", "title": "How many items does hit@3 look at?"',
            '"target": "answer_q2", "title": "nDCG of the popularity run", "abs_tol": 1e-6',
        )
    )
    nb["cells"][2]["source"] = given + region
    return nb


TABLE = """import math
import pandas as pd

def ndcg(gains):
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(sorted(gains, reverse=True)))
    return dcg / idcg

runs = {"popularity": [3, 2, 3, 0, 1, 2], "item-knn": [0, 1, 3, 2, 0, 3]}
table = pd.DataFrame({"ndcg": {name: ndcg(g) for name, g in runs.items()}})
table
"""


def test_value_answer_in_a_dict_is_refused(tmp_path):
    """Control: the same table as a dict of dicts is refused (red team 33's fix)."""
    given = TABLE.replace("table = pd.DataFrame(", "table = (")
    region = '### BEGIN SOLUTION\nanswer_q2 = table["ndcg"]["popularity"]\n### END SOLUTION\n'
    assert _author(tmp_path, _value_notebook(given, region), "rank-basics") is None


def test_value_answer_in_a_table_is_refused(tmp_path):
    pytest.importorskip("pandas")
    region = '### BEGIN SOLUTION\nanswer_q2 = table.loc["popularity", "ndcg"]\n### END SOLUTION\n'
    assert _author(tmp_path, _value_notebook(TABLE, region), "rank-basics") is None


def test_method_of_a_given_class_is_refused(tmp_path):
    nb = source_notebook()
    nb["cells"].insert(
        1,
        _cell(
            "code",
            'class Metrics:\n    """The metrics of the last lab, for comparison."""\n\n'
            "    def mean_of_top(self, values, k):\n        top = values[:k]\n        return sum(top) / len(top)\n",
        ),
    )
    assert _author(tmp_path, nb, "rank-basics") is None


def test_honest_reciprocal_ranks_are_not_refused(tmp_path):
    given = (
        "# reciprocal rank against the rank of the first hit (plotted below)\n"
        "ranks = list(range(1, 11))\nrr = [1 / r for r in ranks]\n"
    )
    region = (
        '### BEGIN SOLUTION\nrecommended = ["a", "b", "c"]\n'
        'answer_q2 = sum(x in {"b"} for x in recommended[:3]) / 3\n### END SOLUTION\n'
    )
    assert _author(tmp_path, _value_notebook(given, region), "rank-basics") is not None


def test_shown_case_decision_does_not_depend_on_hash_seed(tmp_path):
    """6. (low): ``_shows`` matches ``repr`` of an argument in the code's text; a set's ``repr``
    follows its iteration order, which for strings changes with the interpreter's hash seed. The
    same source (a given example call showing the hidden case's relevant set ``{'pear', 'kiwi'}``)
    is refused under some seeds and written under others. Principle: compare by value, never by the
    text of a ``repr`` of an unordered value."""
    nb = _precision_notebook(["print(precision_at_k(['fig', 'apple'], {'pear', 'kiwi'}, 3))\n"])
    (tmp_path / "source.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    script = (
        "import sys; from pathlib import Path; from helpers.grade import authoring\n"
        "try:\n    authoring.author(Path(sys.argv[1]), Path(sys.argv[2]))\nexcept authoring.AuthoringError:\n"
        "    print('refused')\nelse:\n    print('written')\n"
    )
    root = Path(__file__).resolve().parents[3]
    decisions = set()
    for seed in range(6):
        env = {**os.environ, "PYTHONHASHSEED": str(seed), "PYTHONPATH": str(root)}
        out = subprocess.run(
            [sys.executable, "-c", script, str(tmp_path / "source.ipynb"), str(tmp_path / f"b{seed}")],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            cwd=root,
        )
        decisions.add(out.stdout.strip())
    assert len(decisions) == 1, decisions
