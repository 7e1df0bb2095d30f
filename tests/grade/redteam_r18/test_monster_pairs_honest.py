"""The eighteenth red team: a hostile notebook that pairs honest classmates in ``similarity.md``.

Statement alignment (``similarity.aligned``) and containment divide by the *shorter* side: a long
function that holds, statement by statement in order, the statements of many plausible solutions
holds any honest function made of such statements. The attacker's notebook defines one function,
``junk``, whose body is the bodies of a few solutions of every graded function (the course's
solution, the corpus's honest notebook, another honest style), each under ``if ranking:`` (so no
``return`` ends the function early for the normaliser), the lot twice: about 7.7 kB, 2,000-odd
tokens, nothing executed. Two classmates who wrote their own notebooks independently (``dee``:
counters and ``rank += 1``; ``eve``: ``n = n + 1`` and ``enumerate`` from 0; neither in the pool)
have their average precision (80 and 91 tokens) held by ``junk`` at 0.987 and 0.967 >= 0.95
(containment 0.988 / 0.989 passes the 0.95 gate first), so ``similarity.md`` pairs each with the
hostile notebook ("average_precision_at_k = junk aligned: 0.99") and its Groups section links all
three ("3 submissions: dee, eve, monster"). Both honest notebooks score 14/14.

Principle that would close it: a copy measure must not reward the longer side for holding more:
weigh statement alignment (and containment) by both sides, e.g. require the matched statements to
be a contiguous-enough or proportionate part of the longer function (a bound on the length ratio,
or the share of the longer side's statements left unmatched), or one candidate source per matched
function rather than any statement of a pool.

Closed at stop 42: containment and alignment count only between functions of proportionate length
(``similarity._proportionate``, ``BULK`` 3; the header of a block of one statement, a wrapper, is not
counted), so a pool of solutions holds none of them.
"""

from __future__ import annotations

import ast
import json
import textwrap

from helpers.grade import similarity

from ..redteam_r5.common import CORPUS, grade_class, notebook, with_honest
from ..redteam_r5.test_similarity_evasion import _solution
from .test_statement_alignment import _ANN

_DEE = """import math

def precision_at_k(ranking, relevant, k):
    hits = 0
    for item in ranking[:k]:
        hits += item in relevant
    return hits / k

def recall_at_k(ranking, relevant, k):
    if not relevant:
        raise ValueError("recall@k needs at least one relevant item")
    hits = 0
    for item in ranking[:k]:
        hits += item in relevant
    return hits / len(relevant)

def hit_at_k(ranking, relevant, k):
    return 1.0 if precision_at_k(ranking, relevant, k) > 0 else 0.0

def reciprocal_rank_at_k(ranking, relevant, k):
    rank = 1
    for item in ranking[:k]:
        if item in relevant:
            return 1.0 / rank
        rank += 1
    return 0.0

def average_precision_at_k(ranking, relevant, k):
    if not relevant:
        raise ValueError("AP@k needs at least one relevant item")
    hits = 0
    total = 0.0
    rank = 0
    for item in ranking[:k]:
        rank += 1
        if item in relevant:
            hits += 1
            total += hits / rank
    return total / min(k, len(relevant))

def dcg_at_k(ranking, relevant, k):
    total = 0.0
    rank = 0
    for item in ranking[:k]:
        rank += 1
        if item in relevant:
            total += 1 / math.log2(rank + 1)
    return total

def ndcg_at_k(ranking, relevant, k):
    if not relevant:
        raise ValueError("NDCG@k needs at least one relevant item")
    ideal = 0.0
    for rank in range(1, min(k, len(relevant)) + 1):
        ideal += 1 / math.log2(rank + 1)
    return dcg_at_k(ranking, relevant, k) / ideal
"""

_EVE = """import math

def precision_at_k(ranking, relevant, k):
    n = 0
    for item in ranking[:k]:
        if item in relevant:
            n = n + 1
    return n / k

def recall_at_k(ranking, relevant, k):
    if len(relevant) == 0:
        raise ValueError("no relevant items")
    n = 0
    for item in ranking[:k]:
        if item in relevant:
            n = n + 1
    return n / len(relevant)

def hit_at_k(ranking, relevant, k):
    found = False
    for item in ranking[:k]:
        if item in relevant:
            found = True
    return 1.0 if found else 0.0

def reciprocal_rank_at_k(ranking, relevant, k):
    for idx, item in enumerate(ranking[:k]):
        if item in relevant:
            return 1 / (idx + 1)
    return 0.0

def average_precision_at_k(ranking, relevant, k):
    if len(relevant) == 0:
        raise ValueError("no relevant items")
    n = 0
    s = 0.0
    for idx, item in enumerate(ranking[:k]):
        if item in relevant:
            n = n + 1
            s = s + n / (idx + 1)
    return s / min(k, len(relevant))

def dcg_at_k(ranking, relevant, k):
    s = 0.0
    for idx, item in enumerate(ranking[:k]):
        if item in relevant:
            s = s + 1 / math.log2(idx + 2)
    return s

def ndcg_at_k(ranking, relevant, k):
    if len(relevant) == 0:
        raise ValueError("no relevant items")
    best = 0.0
    for idx in range(min(k, len(relevant))):
        best = best + 1 / math.log2(idx + 2)
    return dcg_at_k(ranking, relevant, k) / best
"""


def _perfect() -> str:
    cells = json.loads((CORPUS / "perfect.ipynb").read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


def _monster() -> str:
    """One function holding, in order, the bodies of every function of three solutions, twice."""
    bodies = [
        "\n".join(ast.unparse(s) for s in node.body)
        for source in (_solution(), _perfect(), _ANN)
        for node in ast.parse(source).body
        if isinstance(node, ast.FunctionDef)
    ] * 2
    blocks = "\n".join("if ranking:\n" + textwrap.indent(b, "    ") for b in bodies)
    return "def junk(ranking, relevant, k):\n" + textwrap.indent(blocks, "    ")


def _class(folder):
    folder.mkdir()
    with_honest(folder, "honest.ipynb")
    notebook(folder / "dee.ipynb", _DEE)
    notebook(folder / "eve.ipynb", _EVE)
    notebook(folder / "monster.ipynb", _monster())


def test_the_honest_classmates_score_full_marks_beside_the_monster(bwrap, tmp_path):
    _class(tmp_path / "subs")
    graded = grade_class(tmp_path / "subs", tmp_path / "out", seed=2**100 + 1820)
    scores = {name: g["report"]["score"] for name, g in graded.items()}
    assert {n: scores[n] for n in ("honest.ipynb", "dee.ipynb", "eve.ipynb")} == dict.fromkeys(
        ("honest.ipynb", "dee.ipynb", "eve.ipynb"), 14.0
    )


def test_the_honest_classmates_are_no_pair_of_each_other(tmp_path):
    """Without the monster, the three honest notebooks are in no line of the report."""
    folder, out = tmp_path / "subs", tmp_path / "out"
    _class(folder)
    (folder / "monster.ipynb").unlink()
    assert similarity.main(["--assignment", "from-scratch", "--out", str(out), str(folder)]) == 0
    result = json.loads((out / "similarity.json").read_text(encoding="utf-8"))
    assert result["pairs"] == [] and result["references"] == []


def test_a_monster_function_pairs_no_honest_classmate(tmp_path):
    folder, out = tmp_path / "subs", tmp_path / "out"
    _class(folder)
    assert similarity.main(["--assignment", "from-scratch", "--out", str(out), str(folder)]) == 0
    result = json.loads((out / "similarity.json").read_text(encoding="utf-8"))
    paired = {p["a"] for p in result["pairs"]} | {p["b"] for p in result["pairs"]}
    assert not paired & {"honest.ipynb", "dee.ipynb", "eve.ipynb"}, result["pairs"]
