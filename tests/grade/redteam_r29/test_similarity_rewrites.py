"""Red team 29: similarity, a copy of a classmate hidden by everyday rewrites ``_Canon`` does not fold.

Broken: ``test_copy_with_everyday_rewrites_is_reported`` (medium for the copy report): the course's
solution (handed in verbatim by a classmate) copied with one meaning-preserving rewrite per graded
function, every identifier, constant and error message kept:

- a loop's ``if item in relevant: <body>`` as the guard ``if item not in relevant: continue`` and the
  body dedented (three loops);
- ``total, hits = 0.0, 0`` split into two assignments;
- ``1.0 if any(...) else 0.0`` as ``0.0 if not any(...) else 1.0``;
- ``sum(1 for x in xs if c)`` as ``len([x for x in xs if c])`` (twice);
- ``return f(...) / ideal`` as ``gain = f(...)`` then ``return gain / ideal``.

``similarity.md`` shows no pair and no match with the course's code (per function 0.71-0.93; the
whole-notebook alignment does not reach 0.97). With the last rewrite left out, ndcg stays verbatim and
the pair is listed: each rewrite alone costs a short function more than the 5% the measures allow.
Principle: fold these forms too before comparing (a guard clause with ``continue`` as the ``if`` it
inverts, a tuple assignment of constants as separate assignments, a conditional expression with a
negated test as the swapped one, a temporary used once in the next ``return`` inlined), or compare the
kept constants and error messages (three identical messages of 40+ characters are no coincidence).

Closed at stop 43: ``similarity._Canon`` folds the guard clause (``_unguarded``), the negated
conditional (``_positive_first``, ``_negated``) and ``len([...])``; the tuple split and the
temporary before ``return`` are kept by decision (folding them paired the corpus's honest average
precision with the course's), and the copy is reported without them.
"""

from __future__ import annotations

from ..redteam_r5.common import copy_report
from ..redteam_r5.test_similarity_evasion import _solution

REWRITES = [
    (
        "return 1.0 if any(item in relevant for item in ranking[:k]) else 0.0",
        "return 0.0 if not any(item in relevant for item in ranking[:k]) else 1.0",
    ),
    ("total, hits = 0.0, 0", "total = 0.0\n    hits = 0"),
    (
        "        if item in relevant:\n            hits += 1\n            total += hits / rank",
        "        if item not in relevant:\n            continue\n"
        "        hits += 1\n        total += hits / rank",
    ),
    (
        "        if item in relevant:\n            total += 1.0 / math.log2(rank + 1)",
        "        if item not in relevant:\n            continue\n        total += 1.0 / math.log2(rank + 1)",
    ),
    (
        "        if item in relevant:\n            return 1.0 / rank",
        "        if item not in relevant:\n            continue\n        return 1.0 / rank",
    ),
    (
        "hits = sum(1 for item in ranking[:k] if item in relevant)",
        "hits = len([item for item in ranking[:k] if item in relevant])",
    ),
    (
        "    return dcg_at_k(ranking, relevant, k) / ideal",
        "    gain = dcg_at_k(ranking, relevant, k)\n    return gain / ideal",
    ),
]


def test_copy_with_everyday_rewrites_is_reported(tmp_path):
    solution = copy = _solution()
    for old, new in REWRITES:
        assert old in copy, old
        copy = copy.replace(old, new)
    report = copy_report(tmp_path, "copier.ipynb", copy, solution)
    pairs = report.split("## Pairs of submissions", 1)[1].split("## Matches", 1)[0]
    assert "` honest.ipynb `" not in pairs  # the honest classmate is not paired
    assert (
        "` copier.ipynb ` | ` verbatim.ipynb `" in pairs or "` verbatim.ipynb ` | ` copier.ipynb `" in pairs
    )
