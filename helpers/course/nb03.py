"""Exercises of ``notebooks/03-average-precision.ipynb``: AP@K and MAP@K."""

from __future__ import annotations

from helpers import average_precision_at_k as _ap
from helpers.checking.questions import FunctionQuestion, Mistake, ValueQuestion
from helpers.course.examples import (
    BDZ_K,
    BDZ_RANKING_1,
    BDZ_RANKING_2,
    BDZ_RELEVANT,
    CAR_ITEMS,
    CAR_RELEVANT,
    CASE_A_LABELS,
    EDGE_CASES,
    SEED001_P,
    SEED001_T,
    from_binary,
)

__all__ = ["q1", "q2", "q3", "average_precision_at_k", "map_at_3", "list_a_ap"]


def average_precision_at_k(ranking, relevant, k):
    """AP@K: the mean of P@i over the relevant ranks i <= k, divided by min(k, |R|).

    Parameters
    ----------
    ranking : sequence
        The recommended items, best first; it may be shorter than ``k``.
    relevant : set
        The items the user found relevant (any hashable ids); not empty.
    k : int
        The cutoff: only ``ranking[:k]`` counts.

    Returns
    -------
    float
        The sum of precision at each rank holding a hit, divided by ``min(k, len(relevant))``:
        the most hits a top-k list can hold, so a perfect list scores 1 however many items are
        relevant.

    Examples
    --------
    >>> average_precision_at_k([1, 2, 3], {1, 3}, 3)  # (1/1 + 2/3) / 2
    0.8333333333333333
    >>> average_precision_at_k([5, 1], {1, 3, 4}, 2)  # (1/2) / min(2, 3)
    0.25
    """
    hits = 0
    total = 0.0
    for rank, item in enumerate(ranking[:k], start=1):
        if item in relevant:
            hits += 1
            total += hits / rank  # P@rank
    return total / min(k, len(relevant))


def _sum_and_hits(ranking, relevant, k, shift=0):
    hits, total = 0, 0.0
    for rank, item in enumerate(ranking[:k], start=1):
        if item in relevant:
            hits += 1
            total += hits / (rank + shift)
    return total, hits


def _div_hits(ranking, relevant, k):
    total, hits = _sum_and_hits(ranking, relevant, k)
    return total / hits if hits else 0.0


def _div_n_relevant(ranking, relevant, k):
    return _sum_and_hits(ranking, relevant, k)[0] / len(relevant)


def _div_k(ranking, relevant, k):
    return _sum_and_hits(ranking, relevant, k)[0] / k


def _mean_of_all_precisions(ranking, relevant, k):
    values = [sum(1 for item in ranking[:j] if item in relevant) / j for j in range(1, k + 1)]
    return sum(values) / k


def _rank_off_by_one(ranking, relevant, k):
    return _sum_and_hits(ranking, relevant, k, shift=1)[0] / min(k, len(relevant))


def _shrunk_k(ranking, relevant, k):
    k = min(k, len(ranking))  # k shrunk to the list length
    return _sum_and_hits(ranking, relevant, k)[0] / min(k, len(relevant))


def _div_found(ranking, relevant, k):
    found = sum(1 for item in ranking if item in relevant)
    return _sum_and_hits(ranking, relevant, k)[0] / found if found else 0.0


def _cut(stop):
    return lambda ranking, relevant, k: (
        _sum_and_hits(ranking, relevant, stop(ranking, k))[0] / min(k, len(relevant))
    )


_DENOMINATOR = "AP@K here divides by min(k, |R|): the most hits a top-k list can hold. "

q1 = FunctionQuestion(
    id="03.q1",
    title="AP@K with the min(k, |R|) denominator",
    function_name="average_precision_at_k",
    reference=_ap,
    cases=[
        (CAR_ITEMS, CAR_RELEVANT, 5),
        (CAR_ITEMS, CAR_RELEVANT, 10),
        (BDZ_RANKING_1, BDZ_RELEVANT, BDZ_K),
        (BDZ_RANKING_2, BDZ_RELEVANT, BDZ_K),
        (SEED001_P, SEED001_T, 5),
        (["a", "b", "c"], {"x"}, 3),  # no hit at all
        *EDGE_CASES,
    ],
    hints=[
        "Walk down ranking[:k] with a 1-based rank. Each time the item is relevant, add P@rank = "
        "(hits so far) / rank to a running sum.",
        "Divide the sum by min(k, len(relevant)), not by the number of hits, k or len(relevant).",
    ],
    solution_code=average_precision_at_k,
    mistakes=[
        Mistake(
            "wrong AP denominator: hits in the top k",
            "It never charges for relevant items that were missed. " + _DENOMINATOR,
            _div_hits,
        ),
        Mistake(
            "wrong AP denominator: |R|",
            "That is AP over all relevant items (÷ |R|); "
            "it charges for relevant items that could not fit in k slots. " + _DENOMINATOR,
            _div_n_relevant,
        ),
        Mistake("wrong AP denominator: k", _DENOMINATOR, _div_k),
        Mistake(
            "averages P@j over every rank j <= k",
            "AP averages the precisions only at the ranks that hold a relevant item "
            "(P@i * rel_i): a miss adds nothing to the sum, it only lowers the precision of later hits.",
            _mean_of_all_precisions,
        ),
        Mistake(
            "0- vs 1-based rank",
            "P@rank divides by the 1-based rank: enumerate(ranking[:k], start=1).",
            _rank_off_by_one,
        ),
        Mistake(
            "k shrunk to the list length",
            "k = min(k, len(ranking)) divides a 3-item list by at most 3, "
            "which hides the empty slots: keep k, divide by min(k, len(relevant)).",
            _shrunk_k,
        ),
        Mistake(
            "wrong AP denominator: relevant items found",
            "Dividing by the relevant items that appear in the ranking forgives the ones it never shows. "
            + _DENOMINATOR,
            _div_found,
        ),
        Mistake(
            "one item too few at the cutoff (ranking[:k - 1])",
            "ranking[:k - 1] stops at rank k - 1, so a hit exactly at rank k is lost; "
            "ranking[:k] holds ranks 1 to k.",
            _cut(lambda ranking, k: k - 1),
        ),
        Mistake(
            "ignores the cutoff k",
            "Hits below rank k were not shown to the user: walk down ranking[:k] only.",
            _cut(lambda ranking, k: len(ranking)),
        ),
    ],
)


def map_at_3():
    """MAP@3 of the two users of notebook 03 (relevant B, D, Z; lists ABCDE and ACEBD).

    Worked by hand: the second user has no hit in the top 3, so their AP@3 is 0 and they still
    count in the mean (dropping them would double the score).

    Returns
    -------
    float
        The mean of the two users' AP@3.

    Examples
    --------
    >>> round(map_at_3(), 4)
    0.0833
    """
    ap_1 = (1 / 2) / min(3, 3)  # one hit in the top 3, at rank 2
    ap_2 = 0.0  # no hit in the top 3: AP@3 = 0, and the user still counts
    return (ap_1 + ap_2) / 2


def _map(function, k=3):
    return lambda: (function(BDZ_RANKING_1, BDZ_RELEVANT, k) + function(BDZ_RANKING_2, BDZ_RELEVANT, k)) / 2


def _first_user_only():
    return _ap(BDZ_RANKING_1, BDZ_RELEVANT, 3)


q2 = ValueQuestion(
    id="03.q2",
    title="MAP@3 of the two users",
    prompt="MAP@3 over the lists [A, B, C, D, E] and [A, C, E, B, D], both with relevant {B, D, Z}, "
    "AP divided by min(K, |R|), to 4 decimals (or exactly)",
    reference=_map(_ap),
    decimals=4,
    hints=[
        "Cut both lists at K = 3 first: which relevant items are left in each top 3?",
        "User 1 has one hit in the top 3 (B at rank 2); user 2 has none, so its AP@3 is 0, "
        "and MAP is the mean over BOTH users.",
    ],
    solution_code=map_at_3,
    mistakes=[
        Mistake(
            "that is MAP@5",
            "The notebook computed MAP at K = 5; this question cuts both lists at K = 3.",
            _map(_ap, k=BDZ_K),
        ),
        Mistake(
            "wrong AP denominator: hits in the top k",
            "Divide each AP by min(K, |R|) = 3, not by the hits found: "
            "B, D and Z are all relevant, even those outside the top 3.",
            _map(_div_hits),
        ),
        Mistake(
            "a user with no hit left out of the mean (or a 0-based rank)",
            "User 2 has no hit in the top 3: its AP@3 is 0 and it still counts in the mean over users. "
            "(The same number comes from dividing by a 0-based rank, 1/1 instead of 1/2: "
            "P@rank divides by the 1-based rank.)",
            _first_user_only,
        ),
        Mistake(
            "averages P@j over every rank j <= k",
            "AP averages the precisions only at the ranks that hold a relevant item, not P@1..P@K.",
            _map(_mean_of_all_precisions),
        ),
    ],
)


def list_a_ap():
    """AP@5 of list A (hits at ranks 1, 3, 5) for a user with 4 relevant items, divided by min(5, 4).

    One relevant item never made the list; it still counts in the denominator, which is why the
    list cannot score 1.

    Returns
    -------
    float
        The value asked by question 03.q3.

    Examples
    --------
    >>> list_a_ap() < 1
    True
    """
    return (1 / 1 + 2 / 3 + 3 / 5) / min(5, 4)


_LIST_A = from_binary(CASE_A_LABELS)
_LIST_A_RELEVANT = _LIST_A[1] | {"not shown"}  # the fourth relevant item never made the list

q3 = ValueQuestion(
    id="03.q3",
    title="AP@5 of list A when one relevant item was never shown",
    prompt="AP@5 (divided by min(K, |R|)) of list A, hits at ranks 1, 3 and 5, for a user with 4 relevant "
    "items in all, to 4 decimals (or exactly)",
    reference=lambda: _ap(_LIST_A[0], _LIST_A_RELEVANT, 5),
    decimals=4,
    hints=[
        "The sum of P@i at the hit ranks is the same as in the notebook: 1/1 + 2/3 + 3/5.",
        "Only the denominator changes: min(K, |R|) = min(5, 4) = 4, because the user has 4 relevant items.",
    ],
    solution_code=list_a_ap,
    mistakes=[
        Mistake(
            "wrong AP denominator: hits in the top k",
            "That is the ÷ hits value the notebook printed. The user has 4 relevant items and one was never "
            "shown: divide by min(K, |R|) = 4.",
            lambda: _div_hits(_LIST_A[0], _LIST_A_RELEVANT, 5),
        ),
        Mistake(
            "wrong AP denominator: k",
            "Divide by min(K, |R|) = min(5, 4), not by K = 5.",
            lambda: _div_k(_LIST_A[0], _LIST_A_RELEVANT, 5),
        ),
        Mistake(
            "averages P@j over every rank j <= k",
            "AP is not the mean of P@1..P@5: it sums P@i only at the ranks that hold a hit (1, 3 and 5), "
            "then divides by min(K, |R|).",
            lambda: _mean_of_all_precisions(_LIST_A[0], _LIST_A_RELEVANT, 5),
        ),
    ],
)
