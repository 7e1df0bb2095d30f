"""Red team 31: similarity's new folds (``_Canon.visit_For``/``_unguarded``, ``_positive_first``,
``_negated``, the ``len([...])`` fold).

Broken:

1. ``test_honest_guard_style_not_matched_with_course`` (low; the flip side of round 29's fold, for
   the maintainers to weigh): an honest notebook written the textbook way, whose average precision
   uses a guard clause (``if x not in relevant: continue``) and two init lines (``hits = 0`` /
   ``total = 0.0``), is listed under "Matches with the course's own code" at 0.987 (AP 1.00 "ratio",
   reciprocal rank 0.97). With ``_unguarded`` disabled the same notebook matches nothing. The guard
   was one of the small choices that tell honest convergent work from a copy (like the tuple split
   the round 29 DECISION kept for exactly this reason). Principle: let a fold count only where a
   function is long enough for convergence to be unlikely (containment/alignment, ``ALIGN_TOKENS``),
   not in the near-verbatim ratio of a short function, or weigh a folded difference as a token.

Held (run): a copy padded with 200 guard clauses escapes (the accepted "padded with more than twice
its length" trade-off); with 1,500 guards ``_unguarded``'s recursion ends in "nested too deeply to
read (not compared)", listed for the instructor, the classmate's entry untouched; an honest notebook
using ``len([...])`` counts, a negated ``hit_at_k`` conditional and guard clauses in reciprocal rank
and AP with a tuple init (``carol``) is paired with nothing.

Closed at stop 43: one copied function is reported on its own only from ``COPY_TOKENS`` 160
tokens (the floor ``ALIGN_TOKENS`` has had since red team 18); shorter copies count together
(``COPY_TOTAL`` 200) or when they make up most of one side's graded code.
"""

# ruff: noqa: E501  (notebook sources written out as the learners and instructors would)

from __future__ import annotations

import json
from pathlib import Path

from helpers.grade import grader as grade

from ..redteam_r5.common import notebook

CAROL = [
    "import math",
    "def precision_at_k(ranking, relevant, k):\n    return len([r for r in ranking[:k] if r in relevant]) / k\n",
    "def recall_at_k(ranking, relevant, k):\n    return len([r for r in ranking[:k] if r in relevant]) / len(relevant)\n",
    "def hit_at_k(ranking, relevant, k):\n    return 0.0 if not any(r in relevant for r in ranking[:k]) else 1.0\n",
    "def reciprocal_rank_at_k(ranking, relevant, k):\n    for i, r in enumerate(ranking[:k]):\n"
    "        if r not in relevant:\n            continue\n        return 1 / (i + 1)\n    return 0.0\n",
    "def average_precision_at_k(ranking, relevant, k):\n    n, s = 0, 0.0\n"
    "    for i, r in enumerate(ranking[:k], start=1):\n        if r not in relevant:\n            continue\n"
    "        n += 1\n        s += n / i\n    return s / min(k, len(relevant))\n",
    "def dcg_at_k(ranking, relevant, k):\n    return float(sum(1 / math.log2(i + 1) for i, r in "
    "enumerate(ranking[:k], start=1) if r in relevant))\n",
    "def ndcg_at_k(ranking, relevant, k):\n    best = sum(1 / math.log2(i + 1) for i in range(1, min(k, len(relevant)) + 1))\n"
    "    return dcg_at_k(ranking, relevant, k) / best\n",
]
DAVE = [
    "import math",
    "def precision_at_k(ranking, relevant, k):\n    top = ranking[:k]\n    return len([x for x in top if x in relevant]) / k\n",
    "def recall_at_k(ranking, relevant, k):\n    top = ranking[:k]\n    return len([x for x in top if x in relevant]) / len(relevant)\n",
    "def hit_at_k(ranking, relevant, k):\n    for x in ranking[:k]:\n        if x in relevant:\n"
    "            return 1.0\n    return 0.0\n",
    "def reciprocal_rank_at_k(ranking, relevant, k):\n    for pos, x in enumerate(ranking[:k], 1):\n"
    "        if x in relevant:\n            return 1.0 / pos\n    return 0.0\n",
    "def average_precision_at_k(ranking, relevant, k):\n    hits = 0\n    total = 0.0\n"
    "    for pos, x in enumerate(ranking[:k], 1):\n        if x not in relevant:\n            continue\n"
    "        hits += 1\n        total += hits / pos\n    return total / min(k, len(relevant))\n",
    "def dcg_at_k(ranking, relevant, k):\n    score = 0.0\n    for pos, x in enumerate(ranking[:k], 1):\n"
    "        if x in relevant:\n            score += 1 / math.log2(pos + 1)\n    return score\n",
    "def ndcg_at_k(ranking, relevant, k):\n    ideal = 0.0\n    for pos in range(1, min(k, len(relevant)) + 1):\n"
    "        ideal += 1 / math.log2(pos + 1)\n    return dcg_at_k(ranking, relevant, k) / ideal\n",
]


def test_honest_guard_style_not_matched_with_course(tmp_path: Path):
    carol = notebook(tmp_path / "carol.ipynb", *CAROL)
    dave = notebook(tmp_path / "dave.ipynb", *DAVE)
    out = tmp_path / "out"
    args = ["similarity", "--assignment", "from-scratch", "--out", str(out), str(carol), str(dave)]
    assert grade.main(args) == 0
    report = json.loads((out / "similarity.json").read_text(encoding="utf-8"))
    assert report["compared"] == 2 and not report["pairs"]  # the two honest classmates: no pair
    assert not report["references"], report["references"]  # nor either one with the course's code
