"""Exercises of ``notebooks/05-dcg-ndcg.ipynb``: DCG, NDCG, exponential gain.

The learner's functions take ``grades``: the relevance grade of each
recommended item, in rank order, plus the cutoff k.
Every judged item is in the list, so the ideal order sorts the whole list.
"""

from __future__ import annotations

import math

from helpers import dcg_at_k as _dcg_at_k
from helpers import ndcg_at_k as _ndcg_at_k
from helpers.checking.questions import FunctionQuestion, Mistake
from helpers.course.examples import BINARY_10, GRADED_A, GRADED_B, from_grades

__all__ = ["q1", "q2", "q3", "dcg", "ndcg", "dcg_exponential"]

_CASES = [
    (GRADED_A, 5),
    (GRADED_B, 5),
    (GRADED_A, 3),
    (BINARY_10, 10),
    ([0, 0, 3, 1], 4),
    ([1, 2, 0, 3, 0, 0, 2], 3),  # the best item sits below the cutoff
    ([0, 1, 0, 2], 4),  # the best item sits exactly at rank k
    ([2, 0, 0, 0, 0, 1], 6),  # a hit exactly at rank k
    ([0, 0, 1, 3], 3),  # the best item sits at rank k + 1
    ([3, 0, 1], 5),  # a list shorter than k
    ([1, 3], 1),  # k = 1
    ([0, 2, 1, 3, 0, 2], 2),
]

_TOO_FEW = (
    "grades[:k - 1] stops at rank k - 1, so an item exactly at rank k is lost; grades[:k] holds ranks 1 to k."
)
_TOO_MANY = "grades[:k + 1] reaches rank k + 1, which the user was not shown; grades[:k] holds ranks 1 to k."


def dcg(grades, k):
    """DCG@k with linear gain: sum of grade / log2(rank + 1) over ranks 1..k.

    Parameters
    ----------
    grades : sequence of float
        The relevance grade of each recommended item, in ranked order (0 for irrelevant).
    k : int
        The cutoff: only the first ``k`` grades count.

    Returns
    -------
    float
        The discounted cumulative gain; rank 1 is not discounted (log2(2) = 1).

    Examples
    --------
    >>> dcg([2, 0, 1], 2)  # 2/1 + 0/log2(3)
    2.0
    """
    return sum(grade / math.log2(rank + 1) for rank, grade in enumerate(grades[:k], start=1))


def ndcg(grades, k, dcg):
    """NDCG@k: DCG@k of the list over DCG@k of the same grades sorted best first.

    Parameters
    ----------
    grades : sequence of float
        The relevance grade of each recommended item, in ranked order (0 for irrelevant); at least
        one positive, or there is no ideal DCG to divide by.
    k : int
        The cutoff: only the first ``k`` grades count.
    dcg : callable
        Your function from q1, passed in: ``q2.check(ndcg, dcg)``, so a stale global ``dcg``
        from an earlier cell is never used by mistake.

    Returns
    -------
    float
        Between 0 and 1; 1 when the list is already in the ideal order.

    Examples
    --------
    >>> round(ndcg([0, 1], 2, dcg), 4)  # the one relevant item at rank 2 instead of 1
    0.6309
    """
    ideal = sorted(grades, reverse=True)
    return dcg(grades, k) / dcg(ideal, k)


def dcg_exponential(grades, k):
    """DCG@k with exponential gain 2**grade - 1.

    The gain that rewards a highly graded item far more than two medium ones; with binary grades it
    equals the linear gain.

    Parameters
    ----------
    grades : sequence of float
        The relevance grade of each recommended item, in ranked order (0 for irrelevant).
    k : int
        The cutoff: only the first ``k`` grades count.

    Returns
    -------
    float
        The discounted cumulative gain.

    Examples
    --------
    >>> dcg_exponential([1, 0, 1], 3) == dcg([1, 0, 1], 3)  # 2**1 - 1 = 1: the same for 0/1 grades
    True
    """
    return sum((2**grade - 1) / math.log2(rank + 1) for rank, grade in enumerate(grades[:k], start=1))


def _helpers(function, **options):
    def call(grades, k):
        ranking, relevance = from_grades(grades)
        return function(ranking, relevance, k, **options)

    return call


def _dcg_with(grades, k, gain=lambda g: g, log=math.log2, shift=1):
    return sum(gain(g) / log(rank + shift) for rank, g in enumerate(grades[: max(k, 0)], start=1))


def _exponential(g):
    return 2**g - 1


_LOG2_OF_ONE = Mistake(
    "the top rank divided by log2(1) = 0",
    "The discount of the top item must be 1/log2(2) = 1, but this divides by log2(1) = 0 (a "
    "ZeroDivisionError): log2(rank) with a 1-based rank, or log2(i + 1) with a 0-based index i. "
    "Use log2(rank + 1) with enumerate(grades[:k], start=1).",
    lambda grades, k: _dcg_with(grades, k, shift=0),
)


q1 = FunctionQuestion(
    id="05.q1",
    title="DCG@k with linear gain",
    function_name="dcg",
    reference=_helpers(_dcg_at_k),
    cases=_CASES,
    hints=[
        "Rank 1 has discount 1/log2(2) = 1, rank 2 has 1/log2(3), ..., rank i has 1/log2(i + 1).",
        "sum(grade / math.log2(rank + 1) for rank, grade in enumerate(grades[:k], start=1))",
    ],
    solution_code=dcg,
    mistakes=[
        _LOG2_OF_ONE,
        Mistake(
            "ln instead of log2",
            "math.log is the natural log; the discount is 1/log2(rank + 1) (math.log2).",
            lambda grades, k: _dcg_with(grades, k, log=math.log),
        ),
        Mistake(
            "0- vs 1-based rank",
            "log2(rank + 2) with a 1-based rank gives rank r the discount of rank r + 1. "
            "Use log2(rank + 1) with rank starting at 1, "
            "or log2(i + 2) with a 0-based index i.",
            lambda grades, k: _dcg_with(grades, k, shift=2),
        ),
        _LOG2_OF_ONE,
        Mistake(
            "log10 instead of log2",
            "math.log10 shrinks every discount's log by the same factor; the discount is 1/log2(rank + 1).",
            lambda grades, k: _dcg_with(grades, k, log=math.log10),
        ),
        Mistake(
            "ignores the cutoff k",
            "Only ranks 1 to k count: grades[:k].",
            lambda grades, k: _dcg_with(grades, len(grades)),
        ),
        Mistake(
            "one item too few at the cutoff (grades[:k - 1])",
            _TOO_FEW,
            lambda grades, k: _dcg_with(grades, k - 1),
        ),
        Mistake(
            "one item too many at the cutoff (grades[:k + 1])",
            _TOO_MANY,
            lambda grades, k: _dcg_with(grades, k + 1),
        ),
        Mistake(
            "exponential gain",
            "2**g - 1 is q3's gain; this DCG uses the grade itself (linear gain).",
            lambda grades, k: _dcg_with(grades, k, gain=_exponential),
        ),
    ],
)

q2 = FunctionQuestion(
    id="05.q2",
    title="NDCG@k: DCG@k over the DCG@k of the ideal order",
    function_name="ndcg",
    reference=_helpers(_ndcg_at_k),
    cases=_CASES,
    uses=[q1],
    value_range=(0.0, 1.0, "NDCG@k"),
    hints=[
        "Use the dcg you passed in twice: dcg(grades, k) for the list, and dcg of the ideal order for IDCG. "
        "The ideal order is the grades sorted best first: sorted(grades, reverse=True).",
        "Sort the WHOLE list before cutting: "
        "a great item at rank k + 3 belongs at the top of the ideal list.",
    ],
    solution_code=ndcg,
    mistakes=[
        Mistake(
            "IDCG from the predicted order",
            "Dividing DCG by itself always gives 1. The ideal DCG comes from the grades sorted best first.",
            lambda grades, k: 1.0,
        ),
        Mistake(
            "IDCG sorts only the top k items",
            "Relevant items below the cutoff belong in the ideal list: sort all the grades, then cut at k.",
            lambda grades, k: _dcg_with(grades, k) / _dcg_with(sorted(grades[:k], reverse=True), k),
        ),
        Mistake(
            "ideal sorted worst first",
            "sorted(grades) is ascending, so the 'ideal' puts the worst grades first, its DCG is too small "
            "and NDCG can exceed 1. The ideal ranking puts the highest grade first: "
            "sorted(grades, reverse=True).",
            lambda grades, k: _dcg_with(grades, k) / _dcg_with(sorted(grades), k),
        ),
        Mistake(
            "ideal sorted worst first (top k only)",
            "sorted(grades[:k]) is ascending and sees only the top k: sort ALL the grades best first, "
            "sorted(grades, reverse=True), then cut at k.",
            lambda grades, k: _dcg_with(grades, k) / _dcg_with(sorted(grades[:k]), k),
        ),
        Mistake(
            "IDCG not cut at k",
            "The ideal list is cut at k too: IDCG@k is the DCG of the k best grades, "
            "or NDCG could never reach 1.",
            lambda grades, k: _dcg_with(grades, k) / _dcg_with(sorted(grades, reverse=True), len(grades)),
        ),
        Mistake(
            "0- vs 1-based rank",
            "log2(rank + 2) with a 1-based rank scores every rank as the next one, in DCG and IDCG alike; "
            "the ratio does not cancel it. Use log2(rank + 1) with rank starting at 1.",
            lambda grades, k: (
                _dcg_with(grades, k, shift=2) / _dcg_with(sorted(grades, reverse=True), k, shift=2)
            ),
        ),
        Mistake(
            "one item too few at the cutoff (grades[:k - 1])",
            _TOO_FEW,
            lambda grades, k: _dcg_with(grades, k - 1) / _dcg_with(sorted(grades, reverse=True), k),
        ),
    ],
)

q3 = FunctionQuestion(
    id="05.q3",
    title="DCG@k with exponential gain",
    function_name="dcg_exponential",
    reference=_helpers(_dcg_at_k, gain="exponential"),
    cases=_CASES,
    hints=[
        "The gain of an item of grade g is 2**g - 1, so an irrelevant item (g = 0) adds nothing.",
        "sum((2**grade - 1) / math.log2(rank + 1) for rank, grade in enumerate(grades[:k], start=1))",
    ],
    solution_code=dcg_exponential,
    mistakes=[
        Mistake(
            "2^rel instead of 2^rel - 1",
            "With 2**g an irrelevant item still gains 2**0 = 1; the usual exponential gain is 2**g - 1.",
            lambda grades, k: _dcg_with(grades, k, gain=lambda g: 2**g),
        ),
        _LOG2_OF_ONE,
        Mistake(
            "linear gain",
            "That is q1's DCG. Exponential gain uses 2**g - 1 instead of g.",
            lambda grades, k: _dcg_with(grades, k),
        ),
        Mistake(
            "ln instead of log2",
            "The discount is 1/log2(rank + 1) (math.log2), not the natural log.",
            lambda grades, k: _dcg_with(grades, k, gain=_exponential, log=math.log),
        ),
        Mistake(
            "0- vs 1-based rank",
            "log2(rank + 2) with a 1-based rank gives rank r the discount of rank r + 1. Use log2(rank + 1).",
            lambda grades, k: _dcg_with(grades, k, gain=_exponential, shift=2),
        ),
        Mistake(
            "ignores the cutoff k",
            "Only ranks 1 to k count: grades[:k].",
            lambda grades, k: _dcg_with(grades, len(grades), gain=_exponential),
        ),
        Mistake(
            "one item too few at the cutoff (grades[:k - 1])",
            _TOO_FEW,
            lambda grades, k: _dcg_with(grades, k - 1, gain=_exponential),
        ),
    ],
)
