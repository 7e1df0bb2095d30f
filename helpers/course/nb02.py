"""Exercises of ``notebooks/02-cutoffs.ipynb``: P@K and R@K."""

from __future__ import annotations

from helpers import precision_at_k as _precision_at_k
from helpers import recall_at_k as _recall_at_k
from helpers.checking.questions import FunctionQuestion, Mistake
from helpers.course.examples import CAR_ITEMS, CAR_RELEVANT, EDGE_CASES, SEED001_P, SEED001_T

__all__ = ["q1", "q2", "precision_at_k", "recall_at_k"]

_CASES = [
    (CAR_ITEMS, CAR_RELEVANT, 3),
    (CAR_ITEMS, CAR_RELEVANT, 7),
    (SEED001_P, SEED001_T, 5),
    *EDGE_CASES,
]

_TOO_FEW = (
    "ranking[:k - 1] stops at rank k - 1, so a hit exactly at rank k is lost; ranking[:k] holds ranks 1 to k."
)
_TOO_MANY = "ranking[:k + 1] holds ranks 1 to k + 1; ranking[:k] already holds ranks 1 to k."


def precision_at_k(ranking, relevant, k):
    """Share of the k top positions that hold a relevant item.

    Parameters
    ----------
    ranking : sequence
        The recommended items, best first; it may be shorter than ``k``.
    relevant : set
        The items the user found relevant (any hashable ids).
    k : int
        The cutoff: only ``ranking[:k]`` counts.

    Returns
    -------
    float
        Hits in the top ``k`` divided by ``k`` itself, even when the list is shorter: an empty
        slot is a position where the user saw nothing useful.

    Examples
    --------
    >>> precision_at_k(["a", "b", "c"], {"a", "c"}, 2)
    0.5
    >>> precision_at_k(["a"], {"a"}, 4)  # one hit, four positions
    0.25
    """
    hits = sum(1 for item in ranking[:k] if item in relevant)
    return hits / k


def recall_at_k(ranking, relevant, k):
    """Share of the relevant items that appear in the top k.

    Parameters
    ----------
    ranking : sequence
        The recommended items, best first; it may be shorter than ``k``.
    relevant : set
        The items the user found relevant (any hashable ids); not empty: the recall
        of a user with nothing relevant is undefined.
    k : int
        The cutoff: only ``ranking[:k]`` counts.

    Returns
    -------
    float
        Hits in the top ``k`` divided by the number of relevant items.

    Examples
    --------
    >>> recall_at_k(["a", "b", "c"], {"a", "c", "z"}, 2)
    0.3333333333333333
    """
    hits = sum(1 for item in ranking[:k] if item in relevant)
    return hits / len(relevant)


def _hits(ranking, relevant, k):
    return sum(1 for item in ranking[:k] if item in relevant)


q1 = FunctionQuestion(
    id="02.q1",
    title="P@K: the share of the top k positions that hold a relevant item",
    function_name="precision_at_k",
    reference=_precision_at_k,
    cases=_CASES,
    hints=[
        "Count the hits in ranking[:k], then divide.",
        "Divide by k, even when the list has fewer than k items: "
        "an empty slot is a slot the user saw nothing useful in.",
        "hits = sum(1 for item in ranking[:k] if item in relevant); return hits / k",
    ],
    solution_code=precision_at_k,
    mistakes=[
        Mistake(
            "divides by the length of the list instead of k",
            "With a list shorter than k, len(ranking[:k]) < k; P@K keeps k in the denominator.",
            lambda ranking, relevant, k: _hits(ranking, relevant, k) / len(ranking[:k]),
        ),
        Mistake(
            "divides by len(ranking) instead of k",
            "len(ranking) is the whole list, however long; P@K divides by the k positions shown.",
            lambda ranking, relevant, k: _hits(ranking, relevant, k) / len(ranking),
        ),
        Mistake(
            "0- vs 1-based rank (one item too many at the cutoff)",
            _TOO_MANY,
            lambda ranking, relevant, k: _hits(ranking, relevant, k + 1) / k,
        ),
        Mistake(
            "one item too few at the cutoff (ranking[:k - 1])",
            _TOO_FEW,
            lambda ranking, relevant, k: _hits(ranking, relevant, k - 1) / k,
        ),
        Mistake(
            "divides by the number of relevant items",
            "That is recall@K. Precision divides by the k positions shown.",
            lambda ranking, relevant, k: _hits(ranking, relevant, k) / len(relevant),
        ),
        Mistake(
            "divides by min(k, |R|)",
            'That is implicit\'s "precision" (a capped recall). P@K divides by the k positions shown.',
            lambda ranking, relevant, k: _hits(ranking, relevant, k) / min(k, len(relevant)),
        ),
        Mistake(
            "ignores the cutoff k",
            "Only the first k items count as recommended: count the hits in ranking[:k].",
            lambda ranking, relevant, k: _hits(ranking, relevant, len(ranking)) / k,
        ),
    ],
)

q2 = FunctionQuestion(
    id="02.q2",
    title="R@K: the share of the relevant items found in the top k",
    function_name="recall_at_k",
    reference=_recall_at_k,
    cases=_CASES,
    hints=[
        "Same hits as P@K; a different denominator.",
        "Divide by len(relevant), the number of items the user wanted, recommended or not.",
    ],
    solution_code=recall_at_k,
    mistakes=[
        Mistake(
            "divides by k",
            "That is precision@K. Recall divides by the number of relevant items.",
            lambda ranking, relevant, k: _hits(ranking, relevant, k) / k,
        ),
        Mistake(
            "divides by min(k, number of relevant items)",
            "That caps recall at 1 when there are more relevant items than slots; "
            "the recall taught here divides by all relevant items.",
            lambda ranking, relevant, k: _hits(ranking, relevant, k) / min(k, len(relevant)),
        ),
        Mistake(
            "ignores the cutoff k",
            "Only the first k items count as recommended.",
            lambda ranking, relevant, k: _hits(ranking, relevant, len(ranking)) / len(relevant),
        ),
        Mistake(
            "divides by the relevant items found in the ranking",
            "That equals |R| only when the ranking holds the whole catalogue. "
            "A relevant item the list never shows still counts: "
            "divide by len(relevant).",
            lambda ranking, relevant, k: (
                _hits(ranking, relevant, k) / sum(1 for item in ranking if item in relevant)
            ),
        ),
        Mistake(
            "one item too few at the cutoff (ranking[:k - 1])",
            _TOO_FEW,
            lambda ranking, relevant, k: _hits(ranking, relevant, k - 1) / len(relevant),
        ),
        Mistake(
            "one item too many at the cutoff (ranking[:k + 1])",
            _TOO_MANY,
            lambda ranking, relevant, k: _hits(ranking, relevant, k + 1) / len(relevant),
        ),
    ],
)
