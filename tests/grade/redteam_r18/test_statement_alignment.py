"""The eighteenth red team: statement alignment (``similarity.aligned``, ``ALIGN_SCORE`` 0.95 per
function of 80+ tokens, ``ALIGN_WHOLE`` 0.97 over the graded code) both ways.

1. *A copy that hides with edits a learner makes in a minute, no wrapper at all.* The course's
   solution handed in with six kinds of meaningless rewrite, each everywhere it applies:
   ``x += y`` -> ``x = x + y``; ``enumerate(..., start=1)`` -> ``enumerate(..., 1)``;
   ``if not relevant:`` -> ``if len(relevant) == 0:``; ``ranking[:k]`` -> ``ranking[0:k]``;
   ``1.0 / ...`` -> ``1 / ...``; the three error messages shortened. Measured against the solution:
   the mean ratio is 0.876 (< 0.9), the graded code aligned as a whole 0.950 (< 0.97), the one long
   function (average precision) aligned 0.927 (< 0.95), contained 0.928 (< 0.99): in no line of
   ``similarity.md``, beside a classmate who handed in the solution verbatim (the three first kinds
   alone already hide it: 0.899 / 0.969 / 0.939). It scores 14/14 beside an honest classmate.
   Each edit costs a few tokens per statement; the thresholds leave about 5% of the tokens, and a
   short solution (83 tokens for AP) has few statements to spread them over.

2. *An honest learner matched with the course's code.* The natural loop for AP, with the guard the
   exercise itself suggests (``raise ValueError`` without relevant items), written by a learner whose
   other functions are their own (``ann`` below: explicit loops, ``range(min(k, len(...)))``):
   ``if not relevant: raise ValueError("relevant is empty")``, ``hits, score = 0, 0.0``, the
   ``enumerate(ranking[:k], start=1)`` loop. Against the solution's AP: ratio 0.928, containment
   0.976, aligned 0.976 >= 0.95, so ``similarity.md`` lists it as a match with the solution notebook
   ("aligned: 0.98"). The same with ``enumerate`` from 0 and ``hits / (i + 1)`` reaches 0.951. Before
   round 17 neither was reported (ratio < 0.95, containment < 0.99). The AP formula leaves so
   little freedom that a tolerance of 5% over its 83 tokens holds honest work.

Held (not tested here): five honest solutions of ``from-scratch`` written in distinct styles
(explicit loops, comprehensions, a helper list of hits with numpy, counters, ``n = n + 1``) beside
the corpus's honest notebook: no pair, no match (highest: whole aligned 0.836, AP aligned 0.847).

Principles that would close them: (1) normalise the meaning-preserving rewrites before comparing
(augmented assignment expanded, slice defaults, ``start=`` positional/keyword, numeric constants of
one value, ``not x``/``len(x) == 0``, error-message text blind), so they cost nothing, instead of a
token budget the rewrites can exceed; (2) an aligned match with the course's own code needs a
margin over what the formula forces: e.g. a higher bar against a reference than between learners,
or a function long enough that honest convergence cannot reach it.

Closed at stop 42: (1) the everyday variants are written one way before comparing
(``similarity._Canon``: augmented assignments, slice defaults, ``start=``, length conditions); the
constants and messages are kept (a decision: they tell honest convergent work from a copy), and the
copy is reported by the ratio (0.98); (2) functions shorter than ``similarity.ALIGN_TOKENS`` (160) are
not judged alone by alignment, so ``ann`` is in no line.
"""

from __future__ import annotations

import json

from helpers.grade import similarity

from ..redteam_r5.common import copy_report, grade_class, notebook, with_honest
from ..redteam_r5.test_similarity_evasion import _solution

_S = _solution()
_EDITS = [
    ("hits += 1", "hits = hits + 1"),
    ("total += hits / rank", "total = total + hits / rank"),
    ("total += 1.0 / math", "total = total + 1.0 / math"),
    ("start=1)", "1)"),
    ("if not relevant:", "if len(relevant) == 0:"),
    ("ranking[:k]", "ranking[0:k]"),
    ("1.0 / ", "1 / "),
    ('"recall is undefined without relevant items"', '"no relevant items"'),
    ('"average precision is undefined without relevant items"', '"no relevant items"'),
    ('"NDCG is undefined without relevant items"', '"no relevant items"'),
]


def _edited() -> str:
    source = _S
    for old, new in _EDITS:
        assert old in source, old
        source = source.replace(old, new)
    return source


def test_the_edited_copy_scores_full_marks_beside_an_honest_classmate(bwrap, tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    with_honest(folder, "honest.ipynb")
    notebook(folder / "edited.ipynb", _edited())
    graded = grade_class(folder, tmp_path / "out", seed=2**100 + 1818)
    assert {name: g["report"]["score"] for name, g in graded.items()} == dict.fromkeys(graded, 14.0)


def test_a_copy_with_trivial_rewrites_is_in_the_report(tmp_path):
    report = copy_report(tmp_path, "edited.ipynb", _edited(), _S)
    assert "honest.ipynb" not in report
    assert "edited.ipynb" in report


_ANN = """import math

def precision_at_k(ranking, relevant, k):
    top = ranking[:k]
    count = 0
    for x in top:
        if x in relevant:
            count += 1
    return count / k

def recall_at_k(ranking, relevant, k):
    if len(relevant) == 0:
        raise ValueError("relevant is empty")
    top = ranking[:k]
    count = 0
    for x in top:
        if x in relevant:
            count += 1
    return count / len(relevant)

def hit_at_k(ranking, relevant, k):
    for x in ranking[:k]:
        if x in relevant:
            return 1.0
    return 0.0

def reciprocal_rank_at_k(ranking, relevant, k):
    for i in range(min(k, len(ranking))):
        if ranking[i] in relevant:
            return 1.0 / (i + 1)
    return 0.0

def average_precision_at_k(ranking, relevant, k):
    if not relevant:
        raise ValueError("relevant is empty")
    hits, score = 0, 0.0
    for i, x in enumerate(ranking[:k], start=1):
        if x in relevant:
            hits += 1
            score += hits / i
    return score / min(k, len(relevant))

def dcg_at_k(ranking, relevant, k):
    result = 0.0
    for i in range(min(k, len(ranking))):
        if ranking[i] in relevant:
            result += 1.0 / math.log2(i + 2)
    return result

def ndcg_at_k(ranking, relevant, k):
    if len(relevant) == 0:
        raise ValueError("relevant is empty")
    best = 0.0
    for i in range(min(k, len(relevant))):
        best += 1.0 / math.log2(i + 2)
    return dcg_at_k(ranking, relevant, k) / best
"""


def test_the_honest_notebook_scores_full_marks_beside_the_corpus_one(bwrap, tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    with_honest(folder, "honest.ipynb")
    notebook(folder / "ann.ipynb", _ANN)
    graded = grade_class(folder, tmp_path / "out", seed=2**100 + 1819)
    assert {name: g["report"]["score"] for name, g in graded.items()} == dict.fromkeys(graded, 14.0)


def test_an_honest_notebook_is_no_match_with_the_course_code(tmp_path):
    folder, out = tmp_path / "subs", tmp_path / "out"
    folder.mkdir()
    with_honest(folder, "honest.ipynb")
    notebook(folder / "ann.ipynb", _ANN)
    assert similarity.main(["--assignment", "from-scratch", "--out", str(out), str(folder)]) == 0
    result = json.loads((out / "similarity.json").read_text(encoding="utf-8"))
    assert result["pairs"] == [] and result["references"] == [], result
