"""Exercises of ``notebooks/04-reciprocal-rank-and-hit-ratio.ipynb``."""

from __future__ import annotations

from helpers import hit_at_k as _hit_at_k
from helpers import reciprocal_rank_at_k as _rr
from helpers.checking.questions import FunctionQuestion, Mistake
from helpers.course.examples import (
    BDZ_RANKING_2,
    BDZ_RELEVANT,
    CAR_ITEMS,
    CAR_RELEVANT,
    EDGE_CASES,
    SEED001_P,
    SEED001_T,
)

__all__ = ["q1", "q2", "reciprocal_rank_at_k", "hit_at_k"]

_CASES = [
    (SEED001_P, SEED001_T, 5),  # first hit at rank 2
    (BDZ_RANKING_2, BDZ_RELEVANT, 5),  # first hit at rank 4, second at 5
    (BDZ_RANKING_2, BDZ_RELEVANT, 3),  # first hit beyond the cutoff
    (CAR_ITEMS, CAR_RELEVANT, 10),  # first hit at rank 1
    (["a", "b", "c"], {"x"}, 3),  # no hit at all
    *EDGE_CASES,
]

_TOO_FEW = (
    "ranking[:k - 1] stops at rank k - 1, so a first hit exactly at rank k is lost; "
    "ranking[:k] holds ranks 1 to k."
)
_TOO_MANY = (
    "ranking[:k + 1] reaches rank k + 1, which the user was not shown; ranking[:k] holds ranks 1 to k."
)


def reciprocal_rank_at_k(ranking, relevant, k):
    """1 / rank of the first relevant item if it is within the top k, else 0.

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
        ``1 / rank`` of the first hit (ranks start at 1); 0.0 when no relevant item is in the
        top ``k``, including a hit just below the cutoff.

    Examples
    --------
    >>> reciprocal_rank_at_k(["a", "b", "c"], {"c"}, 3)
    0.3333333333333333
    >>> reciprocal_rank_at_k(["a", "b", "c"], {"c"}, 2)
    0.0
    """
    for rank, item in enumerate(ranking[:k], start=1):
        if item in relevant:
            return 1 / rank
    return 0.0


def hit_at_k(ranking, relevant, k):
    """1.0 if any of the top k items is relevant, else 0.0.

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
        1.0 or 0.0 (a float, so that a mean over users is a hit rate).

    Examples
    --------
    >>> hit_at_k(["a", "b"], {"b"}, 2), hit_at_k(["a", "b"], {"b"}, 1)
    (1.0, 0.0)
    """
    return 1.0 if any(item in relevant for item in ranking[:k]) else 0.0


def _hit_ranks(ranking, relevant, k):
    return [rank for rank, item in enumerate(ranking[:k], start=1) if item in relevant]


q1 = FunctionQuestion(
    id="04.q1",
    title="RR@K: one over the rank of the first hit",
    function_name="reciprocal_rank_at_k",
    reference=_rr,
    cases=_CASES,
    hints=[
        "Walk down ranking[:k] with a 1-based rank and stop at the first relevant item.",
        "Return 1 / rank there; if the loop ends without a hit, return 0.0.",
    ],
    solution_code=reciprocal_rank_at_k,
    mistakes=[
        Mistake(
            "ignores the cutoff k",
            "A first hit below rank k was not shown to the user and scores 0.",
            lambda ranking, relevant, k: reciprocal_rank_at_k(ranking, relevant, len(ranking)),
        ),
        Mistake(
            "0- vs 1-based rank",
            "With enumerate(...) starting at 0, the first position is 0; the rank is index + 1, "
            "so rank 1 scores 1, not 1/2.",
            lambda ranking, relevant, k: (
                1 / (_hit_ranks(ranking, relevant, k)[0] + 1) if _hit_ranks(ranking, relevant, k) else 0.0
            ),
        ),
        Mistake(
            "0-based index used as the rank (1 / index)",
            "enumerate(ranking) counts from 0, so a first hit at rank 1 divides by 0 (ZeroDivisionError) "
            "and a hit at rank r scores 1/(r - 1). Ranks are 1-based: enumerate(ranking[:k], start=1).",
            lambda ranking, relevant, k: (
                1 / (_hit_ranks(ranking, relevant, k)[0] - 1) if _hit_ranks(ranking, relevant, k) else 0.0
            ),
        ),
        Mistake(
            "sums 1/rank over every hit",
            "RR@K keeps only the first hit: return 1 / rank at the first relevant item (the sum can pass 1).",
            lambda ranking, relevant, k: sum(1 / rank for rank in _hit_ranks(ranking, relevant, k)),
        ),
        Mistake(
            "uses the last hit instead of the first",
            "Reciprocal rank looks only at the FIRST relevant item.",
            lambda ranking, relevant, k: (
                1 / _hit_ranks(ranking, relevant, k)[-1] if _hit_ranks(ranking, relevant, k) else 0.0
            ),
        ),
        Mistake(
            "one item too few at the cutoff (ranking[:k - 1])",
            _TOO_FEW,
            lambda ranking, relevant, k: reciprocal_rank_at_k(ranking, relevant, k - 1),
        ),
        Mistake(
            "one item too many at the cutoff (ranking[:k + 1])",
            _TOO_MANY,
            lambda ranking, relevant, k: reciprocal_rank_at_k(ranking, relevant, k + 1),
        ),
        # last: it raises on every miss, so it would otherwise claim answers wrong only on a miss
        Mistake(
            "next() without a default: no hit in the top k",
            "next(...) raises StopIteration when the top k holds no relevant item; "
            "give it a default, next(generator, default), or return after the loop: "
            "a list with no hit in the top k has an RR@K, it is not an error.",
            lambda ranking, relevant, k: next(1 / rank for rank in _hit_ranks(ranking, relevant, k)),
        ),
    ],
)

q2 = FunctionQuestion(
    id="04.q2",
    title="Hit@K: did anything relevant reach the top k?",
    function_name="hit_at_k",
    reference=_hit_at_k,
    cases=_CASES,
    hints=[
        "The answer is the number 1 or 0 (1.0 and 0.0 are fine; True and False are not numbers here): "
        "one hit is as good as five.",
        "return 1.0 if any(item in relevant for item in ranking[:k]) else 0.0",
    ],
    solution_code=hit_at_k,
    mistakes=[
        Mistake(
            "returns the number of hits",
            "Hit@K is 1 as soon as there is at least one hit, however many there are.",
            lambda ranking, relevant, k: float(len(_hit_ranks(ranking, relevant, k))),
        ),
        Mistake(
            "ignores the cutoff k",
            "Only the top k items count.",
            lambda ranking, relevant, k: hit_at_k(ranking, relevant, len(ranking)),
        ),
        Mistake(
            "one item too few at the cutoff (ranking[:k - 1])",
            _TOO_FEW,
            lambda ranking, relevant, k: hit_at_k(ranking, relevant, k - 1),
        ),
        Mistake(
            "one item too many at the cutoff (ranking[:k + 1])",
            _TOO_MANY,
            lambda ranking, relevant, k: hit_at_k(ranking, relevant, k + 1),
        ),
    ],
)
