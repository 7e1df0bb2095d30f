"""Exercises of ``notebooks/13-capstone-movielens.ipynb``: find the bug in leave-one-out NDCG, then fix it."""

from __future__ import annotations

import math

from helpers import ndcg_at_k
from helpers.checking.questions import FunctionQuestion, Mistake
from helpers.course.choice import choice

__all__ = ["q1", "q2", "loo_ndcg", "BUGGY_SOURCE"]

#: The snippet the notebook shows (written for this course; it reproduces the slip of seed 001's code).
BUGGY_SOURCE = """def loo_ndcg(ranking, held_out, k):
    for position, item in enumerate(ranking[:k], start=1):  # line 2
        if item == held_out:                                  # line 3
            return 1 / math.log2(position + 2)                # line 4
    return 0.0                                                # line 5"""

q1 = choice(
    "13.q1",
    "Find the bug in this leave-one-out NDCG@k",
    "the line with the bug",
    {
        "a": (
            "Line 2: it should read ranking[:k + 1].",
            "ranking[:k] holds exactly ranks 1 to k; one more would let rank k + 1 count.",
        ),
        "b": (
            "Line 4: with positions starting at 1, the discount is 1 / log2(position + 1).",
            "Yes: rank 1 must score 1 / log2(2) = 1. With + 2 every hit gets the discount of the next rank, "
            "so a hit at rank 1 scores 0.63. (log2(i + 2) is right only for a 0-based index i.)",
            True,
        ),
        "c": (
            "Line 5: a miss should return NaN, not 0.",
            "A held-out item outside the top k scores 0 in NDCG@k; NaN would poison the mean.",
        ),
        "d": (
            "The IDCG is missing: it must divide by the ideal DCG.",
            "With one relevant item the ideal list has it at rank 1, so IDCG = 1 / log2(2) = 1: "
            "dividing changes nothing.",
        ),
    },
    [
        "Evaluate the snippet by hand for a hit at rank 1. What should NDCG be?",
        "Which discount does rank 1 get in NDCG, and which one does line 4 give it?",
    ],
)


def loo_ndcg(ranking, held_out, k):
    """NDCG@k with one held-out item: 1 / log2(rank + 1) if it is in the top k, else 0.

    The fixed version of the buggy function notebook 13 asks the learner to debug.

    Parameters
    ----------
    ranking : sequence
        The recommended items, best first.
    held_out : hashable
        The user's one held-out item.
    k : int
        The cutoff.

    Returns
    -------
    float
        The discount of the item's rank within the cutoff, 0.0 otherwise.

    Examples
    --------
    >>> loo_ndcg(["a", "b", "c"], "c", 3), loo_ndcg(["a", "b", "c"], "c", 2)
    (0.5, 0.0)
    """
    for position, item in enumerate(ranking[:k], start=1):
        if item == held_out:
            return 1 / math.log2(position + 1)
    return 0.0


def _with(shift=1, log=math.log2, cut=True, extra=0):
    def wrong(ranking, held_out, k):
        for position, item in enumerate(ranking[: k + extra] if cut else ranking, start=1):
            if item == held_out:
                return 1 / log(position + shift)
        return 0.0

    return wrong


q2 = FunctionQuestion(
    id="13.q2",
    title="Fix the leave-one-out NDCG@k",
    function_name="loo_ndcg",
    reference=lambda ranking, held_out, k: ndcg_at_k(ranking, {held_out}, k),
    cases=[
        (["a", "b", "c", "d", "e"], "a", 5),
        (["a", "b", "c", "d", "e"], "c", 5),
        (["a", "b", "c", "d", "e"], "e", 3),  # beyond the cutoff
        (["a", "b", "c", "d", "e"], "d", 3),  # at rank k + 1: just outside
        (["a", "b", "c", "d", "e"], "c", 3),  # at rank k: just inside
        (["a", "b", "c"], "z", 3),  # never recommended
        (list("abcdefghij"), "j", 10),
    ],
    hints=["Change one character on line 4.", "return 1 / math.log2(position + 1)"],
    solution_code=loo_ndcg,
    mistakes=[
        Mistake(
            "log2(rank + 2) with a 1-based rank",
            "That is the bug itself: it gives rank r the discount of rank r + 1.",
            _with(shift=2),
        ),
        Mistake("natural log", "The NDCG discount uses log2, not math.log.", _with(log=math.log)),
        Mistake(
            "cuts at k + 1",
            "ranking[:k] already holds ranks 1 to k; ranking[:k + 1] lets the item at rank k + 1 count.",
            _with(extra=1),
        ),
        Mistake(
            "cuts at k - 1",
            "ranking[:k] holds ranks 1 to k; ranking[:k - 1] drops the item at rank k.",
            _with(extra=-1),
        ),
        Mistake(
            "ignores the cutoff k",
            "A hit below rank k does not count in NDCG@k: loop over ranking[:k].",
            _with(cut=False),
        ),
    ],
)
