"""Red team 33: similarity with ``COPY_TOKENS`` 160 (round 31's fix).

Broken:

1. ``test_whole_copy_with_temporaries_is_reported`` (low; it follows from round 29's DECISION not to
   fold a temporary before ``return``, reported because it is a WHOLE notebook that escapes, not
   one function): mallory hands in dave's whole ``from-scratch`` notebook (red team 31's honest
   DAVE) with a temporary before each ``return`` (``p = ...; return p``), AP's init as a tuple
   split and one ``top`` temporary inlined: nine everyday edits, no function rewritten. The mean
   falls to 0.896 (< 0.9), every function is under ``COPY_TOKENS`` 160, the copies with ratio >=
   0.95 (``dcg_at_k`` 0.959) total under ``COPY_TOTAL`` and do not make up most of a side, and the
   whole-notebook alignment stays under 0.97: ``similarity.json`` has no pair. (With ``COPY_TOKENS``
   60, the pre-round-31 value, the pair was not reported either: not a regression of round 31, a
   hole both before and after.) Principle: count the temporary (``x = e; return x``) as the
   expression's single token difference in the ratio of short functions, or let a whole-notebook
   measure (all graded functions together) fire at a lower bar than per-function copies, since
   all seven functions held near-verbatim is not convergence.

Honest classmate: carol (red team 31's honest CAROL) is in the run and must stay unpaired.

Left open at stop 43 (documented): a temporary before ``return`` is kept as written by
decision (red team 29): folding it made the corpus's honest average precision the course's own.
This copy's mean (0.896) sits just under the 0.9 threshold; the test stays an expected failure.
"""

# ruff: noqa: E501  (notebook sources written out as the learners would)

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers.grade import grader as grade

from ..redteam_r5.common import notebook
from ..redteam_r31.test_similarity_r31 import CAROL, DAVE

MALLORY = [
    "import math",
    "def precision_at_k(ranking, relevant, k):\n    p = len([x for x in ranking[:k] if x in relevant]) / k\n    return p\n",
    "def recall_at_k(ranking, relevant, k):\n    top = ranking[:k]\n    r = len([x for x in top if x in relevant]) / len(relevant)\n    return r\n",
    "def hit_at_k(ranking, relevant, k):\n    for x in ranking[:k]:\n        if x in relevant:\n"
    "            h = 1.0\n            return h\n    m = 0.0\n    return m\n",
    "def reciprocal_rank_at_k(ranking, relevant, k):\n    for pos, x in enumerate(ranking[:k], 1):\n"
    "        if x in relevant:\n            rr = 1.0 / pos\n            return rr\n    z = 0.0\n    return z\n",
    "def average_precision_at_k(ranking, relevant, k):\n    hits, total = 0, 0.0\n"
    "    for pos, x in enumerate(ranking[:k], 1):\n        if x not in relevant:\n            continue\n"
    "        hits += 1\n        total += hits / pos\n    ap = total / min(k, len(relevant))\n    return ap\n",
    "def dcg_at_k(ranking, relevant, k):\n    score = 0.0\n    for pos, x in enumerate(ranking[:k], 1):\n"
    "        if x in relevant:\n            score += 1 / math.log2(pos + 1)\n    d = score\n    return d\n",
    "def ndcg_at_k(ranking, relevant, k):\n    ideal = 0.0\n    for pos in range(1, min(k, len(relevant)) + 1):\n"
    "        ideal += 1 / math.log2(pos + 1)\n    n = dcg_at_k(ranking, relevant, k) / ideal\n    return n\n",
]


def similarity_of(tmp_path: Path, notebooks: dict[str, list[str]]) -> tuple[set[frozenset], dict]:
    """The pairs (as sets of file names) and the JSON report of ``similarity`` over ``notebooks``
    (file name -> cell sources); shared with red team 37."""
    files = [notebook(tmp_path / name, *cells) for name, cells in notebooks.items()]
    out = tmp_path / "out"
    args = ["similarity", "--assignment", "from-scratch", "--out", str(out), *map(str, files)]
    assert grade.main(args) == 0
    report = json.loads((out / "similarity.json").read_text(encoding="utf-8"))
    assert report["compared"] == len(notebooks)
    return {frozenset((p["a"], p["b"])) for p in report["pairs"]}, report


@pytest.mark.xfail(
    strict=True, reason="red team 33: a whole notebook copied with temporaries before returns is not reported"
)
def test_whole_copy_with_temporaries_is_reported(tmp_path: Path):
    pairs, _ = similarity_of(tmp_path, {"dave.ipynb": DAVE, "mallory.ipynb": MALLORY, "carol.ipynb": CAROL})
    assert not any("carol.ipynb" in p for p in pairs), pairs  # the honest classmate: never paired
    assert frozenset(("dave.ipynb", "mallory.ipynb")) in pairs, pairs
