"""Exercises of ``notebooks/06-leave-one-out.ipynb``.

In leave-one-out each user has one held-out item; the learner's functions
take its 1-based rank ``r`` in the recommended list (``None`` when the list
does not contain it) and the cutoff ``k``.
"""

from __future__ import annotations

import math

from helpers import ndcg_at_k as _ndcg_at_k
from helpers.checking.questions import (
    FunctionQuestion,
    Mistake,
    Property,
    PropertyQuestion,
    ValueQuestion,
    format_value,
)

__all__ = ["q1", "q2", "q3", "loo_ndcg", "cliff_score", "mean_loo_ndcg", "THREE_USERS"]


def _as_lists(r, k):
    """A ranking with the target at rank r (or absent), long enough for the cutoff."""
    length = max(k, r or 0) + 1
    ranking = [f"other{i}" for i in range(1, length + 1)]
    if r is not None:
        ranking[r - 1] = "target"
    return ranking, {"target"}


def loo_ndcg(r, k):
    """Leave-one-out NDCG@k: 1/log2(r + 1) if the held-out item is at rank r <= k, else 0.

    With a single relevant item the ideal DCG is 1, so NDCG is just the discount of its rank.

    Parameters
    ----------
    r : int or None
        The rank (1-based) of the user's held-out item in the recommended list, or None when it
        is not listed.
    k : int
        The cutoff.

    Returns
    -------
    float
        ``1 / log2(r + 1)`` within the cutoff; 0.0 below it or when not listed.

    Examples
    --------
    >>> loo_ndcg(3, 10), loo_ndcg(11, 10), loo_ndcg(None, 10)
    (0.5, 0.0, 0.0)
    """
    if r is None or r > k:
        return 0.0
    return 1 / math.log2(r + 1)


def _reference(r, k):
    return _ndcg_at_k(*_as_lists(r, k), k)


q1 = FunctionQuestion(
    id="06.q1",
    title="NDCG@k when there is exactly one relevant item",
    function_name="loo_ndcg",
    reference=_reference,
    cases=[
        (1, 10),
        (3, 5),
        (10, 10),
        (11, 10),
        (None, 10),
        (4, 3),
        (5, 5),
        (6, 5),
        (1, 1),
        (2, 1),
        (7, 20),
        (None, 3),
        (2, 2),
    ],
    hints=[
        "With one relevant item IDCG@k = 1/log2(1 + 1) = 1, so NDCG@k is just the discount at rank r.",
        "Return 0.0 when r is None or r > k; otherwise 1 / math.log2(r + 1).",
    ],
    solution_code=loo_ndcg,
    mistakes=[
        Mistake(
            "0- vs 1-based rank",
            "log2(r + 2) with a 1-based r scores rank r as rank r + 1 (0.4307 instead of 0.5 at r = 3). "
            "Use log2(r + 1) with the 1-based rank r.",
            lambda r, k: 0.0 if r is None or r > k else 1 / math.log2(r + 2),
        ),
        Mistake(
            "ln instead of log2",
            "The discount is 1/log2(r + 1): with math.log, rank 1 would score 1/ln 2 = 1.44, above 1.",
            lambda r, k: 0.0 if r is None or r > k else 1 / math.log(r + 1),
        ),
        Mistake(
            "ignores the cutoff k",
            "A held-out item below rank k was not recommended: it scores 0.",
            lambda r, k: 0.0 if r is None else 1 / math.log2(r + 1),
        ),
        Mistake(
            "one rank too few at the cutoff (r < k)",
            "Rank k is still in the top k: the test is r <= k, "
            "so an item exactly at rank k scores 1/log2(k + 1).",
            lambda r, k: 0.0 if r is None or r >= k else 1 / math.log2(r + 1),
        ),
        Mistake(
            "that is reciprocal rank",
            "1/r is RR@k. NDCG discounts by 1/log2(r + 1): "
            "with one relevant item IDCG = 1 and NDCG is that discount.",
            lambda r, k: 0.0 if r is None or r > k else 1 / r,
        ),
        # last: it raises on every None, so it would otherwise claim answers wrong only there
        Mistake(
            "None not handled",
            "r is None when the list does not contain the held-out item, and None > k raises TypeError: "
            "test r is None first (it scores 0).",
            lambda r, k: 0.0 if r > k else 1 / math.log2(r + 1),
        ),
    ],
)


#: Leave-one-out ranks of the held-out item for three users at K = 10 (None: not in the list).
THREE_USERS = (4, None, 1)
_K = 10


def mean_loo_ndcg():
    """Mean NDCG@10 of three users whose held-out items are at rank 4, not listed, and rank 1.

    The user whose item is not listed scores 0 and still counts in the mean.

    Returns
    -------
    float
        The mean over the three users of :data:`THREE_USERS`.

    Examples
    --------
    >>> round(mean_loo_ndcg(), 4)
    0.4769
    """
    scores = [0.0 if r is None or r > _K else 1 / math.log2(r + 1) for r in THREE_USERS]
    return sum(scores) / len(scores)  # the user with no hit scores 0 and still counts


def _mean_of(score, users=THREE_USERS):
    return lambda: sum(score(r) for r in users) / len(users)


def _listed(score):
    return lambda r: 0.0 if r is None or r > _K else score(r)


q2 = ValueQuestion(
    id="06.q2",
    title="mean leave-one-out NDCG@10 of three users",
    prompt="the mean NDCG@10 of three users whose held-out items sit at rank 4, outside the top 10, and at "
    "rank 1, to 4 decimals (or exactly)",
    reference=_mean_of(lambda r: _reference(r, _K)),
    decimals=4,
    hints=[
        "With one relevant item, NDCG@10 is 1/log2(r + 1) if r <= 10, else 0. Score each user, then average.",
        "The user whose item is not in the top 10 scores 0 and is still one of the three users.",
    ],
    solution_code=mean_loo_ndcg,
    mistakes=[
        Mistake(
            "a user with no hit left out of the mean",
            "The second user scores 0, and the mean is over all three users: divide by 3.",
            _mean_of(_listed(lambda r: 1 / math.log2(r + 1)), users=(4, 1)),
        ),
        Mistake(
            "summed, not averaged",
            "That is the total over the three users; the mean divides it by 3.",
            lambda: _mean_of(_listed(lambda r: 1 / math.log2(r + 1)))() * len(THREE_USERS),
        ),
        Mistake(
            "log2(r) instead of log2(r + 1)",
            "Dividing by log2(r) (and leaving rank 1 undiscounted) is an older DCG variant; "
            "this course's discount is 1/log2(r + 1), so rank 4 scores 1/log2(5), not 1/2.",
            _mean_of(_listed(lambda r: 1.0 if r == 1 else 1 / math.log2(r))),
        ),
        Mistake(
            "0- vs 1-based rank",
            "log2(r + 2) with a 1-based rank r scores rank r as rank r + 1; the discount is 1/log2(r + 1).",
            _mean_of(_listed(lambda r: 1 / math.log2(r + 2))),
        ),
        Mistake(
            "that is MRR",
            "1/r is reciprocal rank. NDCG's discount is 1/log2(r + 1).",
            _mean_of(_listed(lambda r: 1 / r)),
        ),
        Mistake(
            "that is the hit ratio",
            "Hit@10 scores every listed rank 1. NDCG discounts rank r by 1/log2(r + 1).",
            _mean_of(_listed(lambda r: 1.0)),
        ),
        Mistake(
            "ln instead of log2",
            "The discount is 1/log2(r + 1) (math.log2), not the natural log.",
            _mean_of(_listed(lambda r: 1 / math.log(r + 1))),
        ),
    ],
)


# ---------------------------------------------------------------- q3: design a metric
def cliff_score(r, k):
    """A leave-one-out score with a large cliff at k: 1/2 for being listed, plus 1/2 of NDCG's discount.

    One answer of the open question 06.q3 (any score with the required properties is right).

    Parameters
    ----------
    r : int or None
        The rank (1-based) of the user's held-out item in the recommended list, or None when it
        is not listed.
    k : int
        The cutoff.

    Returns
    -------
    float
        1.0 at rank 1, above 1/2 anywhere within the cutoff, 0.0 below it.

    Examples
    --------
    >>> cliff_score(1, 10), cliff_score(3, 10), cliff_score(11, 10)
    (1.0, 0.75, 0.0)
    """
    if r is None or r > k:
        return 0.0
    return 0.5 + 0.5 / math.log2(r + 1)


#: Cutoffs the rules are tested at
#: (k = 2 cannot satisfy rule 5: its only drop is both the first and the last).
_KS = (3, 4, 5, 10, 20, 50)


def _call(function, r, k):
    return f"cliff_score({format_value(r)}, {k})"


def _top_is_one(function):
    for k in _KS:
        value = function(1, k)
        if not math.isclose(value, 1.0, rel_tol=1e-9):
            return f"{_call(function, 1, k)} returned {format_value(value)}; rank 1 should score 1."
    return None


def _zero_outside(function):
    for k in _KS:
        for r in (None, k + 1, k + 5):
            value = function(r, k)
            if not math.isclose(value, 0.0, abs_tol=1e-12):
                return (
                    f"{_call(function, r, k)} returned {format_value(value)}; "
                    "an item not in the top k scores 0."
                )
    return None


def _decreasing(function):
    for k in _KS:
        values = [function(r, k) for r in range(1, k + 1)]
        for r in range(1, k):
            if not values[r] < values[r - 1]:
                return (
                    f"{_call(function, r + 1, k)} returned {format_value(values[r])}, not less than "
                    f"{_call(function, r, k)} = {format_value(values[r - 1])}; a lower rank must score less."
                )
    return None


def _big_cliff(function):
    for k in _KS:
        value = function(k, k)
        if not value >= 0.5:
            return (
                f"{_call(function, k, k)} returned {format_value(value)}; the last listed rank must keep at "
                f"least 0.5, so falling out of the list costs at least half the top score."
            )
    return None


def _top_gap(function):
    for k in _KS:
        top = function(1, k) - function(2, k)
        bottom = function(k - 1, k) - function(k, k)
        if not top > bottom:
            return (
                f"the drop from rank 1 to 2 is {format_value(top)} but from rank {k - 1} to {k} it is "
                f"{format_value(bottom)} (k = {k}); the top of the list should matter most."
            )
    return None


q3 = PropertyQuestion(
    id="06.q3",
    title="design a leave-one-out score with a big cliff at k",
    function_name="cliff_score",
    properties=[
        Property("rank 1 scores 1", _top_is_one),
        Property("not recommended, or below rank k, scores 0", _zero_outside),
        Property("strictly decreasing from rank 1 to rank k", _decreasing),
        Property("rank k scores at least 0.5 (a big cliff at k)", _big_cliff),
        Property("the 1 -> 2 drop exceeds the (k-1) -> k drop", _top_gap),
    ],
    probe_cases=[(r, k) for k in _KS for r in (None, *range(1, k + 3))],
    hints=[
        "Start from a curve that drops fast at the top, such as 1/log2(r + 1), "
        "and lift it for every listed rank.",
        "Mix a constant for 'being listed' with a rank-dependent part: c + (1 - c) * f(r) for r <= k, "
        "0 otherwise, with f(1) = 1, f decreasing and c >= 0.5.",
    ],
    solution_code=cliff_score,
    mistakes=[
        Mistake(
            "that is reciprocal rank",
            "1/r drops only 1/k at the cliff (0.1 at k = 10): the small gap this question is about.",
            lambda r, k: 0.0 if r is None or r > k else 1 / r,
        ),
        Mistake(
            "that is leave-one-out NDCG",
            "1/log2(r + 1) drops 1/log2(k + 1) at the cliff (0.289 at k = 10): still small.",
            lambda r, k: 0.0 if r is None or r > k else 1 / math.log2(r + 1),
        ),
        Mistake(
            "that is the hit ratio",
            "Hit@k has the biggest possible cliff but cannot tell rank 1 from rank k.",
            lambda r, k: 0.0 if r is None or r > k else 1.0,
        ),
    ],
)
