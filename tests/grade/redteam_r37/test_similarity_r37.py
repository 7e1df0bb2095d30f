"""Red team 37: similarity, honest beginners' notebooks (the round's focus).

Broken:

1. ``test_two_honest_beginners_not_paired`` (low-medium: a false accusation in the instructor's
   report, the README's own promise "seven honest notebooks of the tests reach 0.89 with each other"):
   eve and gina write ``from-scratch`` independently, the way a beginner writes it: a counting loop
   for precision and recall, a loop returning ``1.0``/``0.0`` for hit, a running total for AP, DCG
   and the ideal DCG. Their own choices differ everywhere a choice exists (``enumerate(xs)`` with
   ``i + 1`` / ``i + 2`` vs ``start=1`` with ``rank`` / ``rank + 1``; ``1.0 / (i + 1)`` vs
   ``1 / rank``; ``min(len(relevant), k)`` vs ``min(k, len(relevant))``; ``range(n)`` vs ``range(1,
   n + 1)`` for the ideal DCG; ``+=`` vs ``x = x + 1``). ``similarity.json`` pairs them at 0.941
   (precision, recall and hit 1.00 by ratio; "graded code aligned: 0.973"): both whole-notebook
   rules fire on two honest submissions. Neither matches the course's code (0.68 / 0.70).
   Principle: a whole-notebook rule over functions each too short to tell convergence from copying
   must discount what every beginner writes alike (e.g. weigh each function by its distance from a
   pool of canonical forms, or require the matched share to come from functions that differ from
   the course's common forms), or set the whole-notebook bars from a corpus of honest beginner
   notebooks rather than from the tests' seven styles.

2. ``test_whole_copy_with_contains_and_float_is_reported`` (medium: a whole classmate's notebook
   copied, not reported): mallory takes gina's whole notebook and makes two find-and-replace edits,
   no function rewritten: ``x in relevant`` becomes ``contains(relevant, x)`` (``from operator import
   contains``) and every ``return e`` becomes ``return float(e)``. Every answer is unchanged (checked
   on 2,000 random cases). The mean falls to 0.79, no function is a copy, and "graded code aligned"
   falls under 0.97 (the wrappers are free there, but each ``contains`` call replaces the comparison
   of its statement): no pair. The same two edits hide a copy of red team 31's dave (0.805) and of
   eve (0.788). Either edit alone is caught (0.94 mean); ``return float(e)`` alone is caught by the
   alignment (1.00). Principle: write a call of ``operator.contains``/``__contains__`` as the ``in``
   comparison it is (like ``_Canon``'s other everyday variants), and let a wrapper call around a
   whole ``return`` value (``float``, ``int``, ``round``...) cost nothing in the ratio either, or
   let the whole-notebook alignment fire at a lower bar when every graded function is matched.

Honest classmate: ivy (index loops) is in the run and must stay unpaired with either.

At stop 43: the copy is reported (``similarity._contains_call`` folds ``contains(a, x)``,
``operator.contains`` and ``a.__contains__(x)`` into ``x in a``). Left open, documented: the two
honest beginners stay paired (mean 0.941: their precision, recall and hit are the same loops);
the report is advisory, no grade changes, and lowering its sensitivity reopens red team 17's and
29's copies. That test is an expected failure.
"""

# ruff: noqa: E501  (notebook sources written out as the learners would)

from __future__ import annotations

from pathlib import Path

import pytest

from ..redteam_r33.test_similarity_r33 import similarity_of

EVE = [
    "import math",
    "def precision_at_k(ranking, relevant, k):\n    count = 0\n    for item in ranking[:k]:\n        if item in relevant:\n            count += 1\n    return count / k\n",
    "def recall_at_k(ranking, relevant, k):\n    count = 0\n    for item in ranking[:k]:\n        if item in relevant:\n            count += 1\n    return count / len(relevant)\n",
    "def hit_at_k(ranking, relevant, k):\n    for item in ranking[:k]:\n        if item in relevant:\n            return 1.0\n    return 0.0\n",
    "def reciprocal_rank_at_k(ranking, relevant, k):\n    for i, item in enumerate(ranking[:k]):\n        if item in relevant:\n            return 1.0 / (i + 1)\n    return 0.0\n",
    "def average_precision_at_k(ranking, relevant, k):\n    hits = 0\n    score = 0.0\n    for i, item in enumerate(ranking[:k]):\n        if item in relevant:\n            hits += 1\n            score += hits / (i + 1)\n    return score / min(len(relevant), k)\n",
    "def dcg_at_k(ranking, relevant, k):\n    dcg = 0.0\n    for i, item in enumerate(ranking[:k]):\n        if item in relevant:\n            dcg += 1 / math.log2(i + 2)\n    return dcg\n",
    "def ndcg_at_k(ranking, relevant, k):\n    idcg = 0.0\n    for i in range(min(len(relevant), k)):\n        idcg += 1 / math.log2(i + 2)\n    return dcg_at_k(ranking, relevant, k) / idcg\n",
]
GINA = [
    "import math",
    "def precision_at_k(ranking, relevant, k):\n    hits = 0\n    for r in ranking[:k]:\n        if r in relevant:\n            hits = hits + 1\n    return hits / k\n",
    "def recall_at_k(ranking, relevant, k):\n    hits = 0\n    for r in ranking[:k]:\n        if r in relevant:\n            hits = hits + 1\n    return hits / len(relevant)\n",
    "def hit_at_k(ranking, relevant, k):\n    for r in ranking[:k]:\n        if r in relevant:\n            return 1.0\n    return 0.0\n",
    "def reciprocal_rank_at_k(ranking, relevant, k):\n    for rank, r in enumerate(ranking[:k], start=1):\n        if r in relevant:\n            return 1 / rank\n    return 0.0\n",
    "def average_precision_at_k(ranking, relevant, k):\n    hits = 0\n    total = 0.0\n    for rank, r in enumerate(ranking[:k], start=1):\n        if r in relevant:\n            hits += 1\n            total += hits / rank\n    return total / min(k, len(relevant))\n",
    "def dcg_at_k(ranking, relevant, k):\n    total = 0.0\n    for rank, r in enumerate(ranking[:k], start=1):\n        if r in relevant:\n            total += 1 / math.log2(rank + 1)\n    return total\n",
    "def ndcg_at_k(ranking, relevant, k):\n    ideal = 0.0\n    for rank in range(1, min(k, len(relevant)) + 1):\n        ideal += 1 / math.log2(rank + 1)\n    return dcg_at_k(ranking, relevant, k) / ideal\n",
]
IVY = [
    "import math",
    "def precision_at_k(ranking, relevant, k):\n    n = 0\n    i = 0\n    while i < k and i < len(ranking):\n        if ranking[i] in relevant:\n            n += 1\n        i += 1\n    return n / k\n",
    "def recall_at_k(ranking, relevant, k):\n    n = 0\n    for i in range(min(k, len(ranking))):\n        if ranking[i] in relevant:\n            n += 1\n    return n / len(relevant)\n",
    "def hit_at_k(ranking, relevant, k):\n    found = False\n    for i in range(min(k, len(ranking))):\n        if ranking[i] in relevant:\n            found = True\n            break\n    return 1.0 if found else 0.0\n",
    "def reciprocal_rank_at_k(ranking, relevant, k):\n    for i in range(min(k, len(ranking))):\n        if ranking[i] in relevant:\n            return 1.0 / (i + 1)\n    return 0.0\n",
    "def average_precision_at_k(ranking, relevant, k):\n    n = 0\n    s = 0.0\n    for i in range(min(k, len(ranking))):\n        if ranking[i] in relevant:\n            n += 1\n            s += n / (i + 1)\n    return s / min(k, len(relevant))\n",
    "def dcg_at_k(ranking, relevant, k):\n    s = 0.0\n    for i in range(min(k, len(ranking))):\n        if ranking[i] in relevant:\n            s += 1.0 / math.log2(i + 2)\n    return s\n",
    "def ndcg_at_k(ranking, relevant, k):\n    best = 0.0\n    for i in range(min(k, len(relevant))):\n        best += 1.0 / math.log2(i + 2)\n    return dcg_at_k(ranking, relevant, k) / best\n",
]

MALLORY = [
    "import math\nfrom operator import contains",
    "def precision_at_k(ranking, relevant, k):\n    hits = 0\n    for r in ranking[:k]:\n        if contains(relevant, r):\n            hits = hits + 1\n    return float(hits / k)\n",
    "def recall_at_k(ranking, relevant, k):\n    hits = 0\n    for r in ranking[:k]:\n        if contains(relevant, r):\n            hits = hits + 1\n    return float(hits / len(relevant))\n",
    "def hit_at_k(ranking, relevant, k):\n    for r in ranking[:k]:\n        if contains(relevant, r):\n            return float(1.0)\n    return float(0.0)\n",
    "def reciprocal_rank_at_k(ranking, relevant, k):\n    for rank, r in enumerate(ranking[:k], start=1):\n        if contains(relevant, r):\n            return float(1 / rank)\n    return float(0.0)\n",
    "def average_precision_at_k(ranking, relevant, k):\n    hits = 0\n    total = 0.0\n    for rank, r in enumerate(ranking[:k], start=1):\n        if contains(relevant, r):\n            hits += 1\n            total += hits / rank\n    return float(total / min(k, len(relevant)))\n",
    "def dcg_at_k(ranking, relevant, k):\n    total = 0.0\n    for rank, r in enumerate(ranking[:k], start=1):\n        if contains(relevant, r):\n            total += 1 / math.log2(rank + 1)\n    return float(total)\n",
    "def ndcg_at_k(ranking, relevant, k):\n    ideal = 0.0\n    for rank in range(1, min(k, len(relevant)) + 1):\n        ideal += 1 / math.log2(rank + 1)\n    return float(dcg_at_k(ranking, relevant, k) / ideal)\n",
]


@pytest.mark.xfail(strict=True, reason="red team 37, left open at stop 43: honest beginner loops converge")
def test_two_honest_beginners_not_paired(tmp_path: Path):
    pairs, report = similarity_of(tmp_path, {"eve.ipynb": EVE, "gina.ipynb": GINA, "ivy.ipynb": IVY})
    assert not any("ivy.ipynb" in p for p in pairs), pairs
    assert not report["references"], report["references"]  # nobody matches the course's code
    assert frozenset(("eve.ipynb", "gina.ipynb")) not in pairs, report["pairs"]


def test_whole_copy_with_contains_and_float_is_reported(tmp_path: Path):
    pairs, report = similarity_of(tmp_path, {"gina.ipynb": GINA, "mallory.ipynb": MALLORY, "ivy.ipynb": IVY})
    assert not any("ivy.ipynb" in p for p in pairs), pairs  # the honest classmate: never paired
    assert frozenset(("gina.ipynb", "mallory.ipynb")) in pairs, report["pairs"]
