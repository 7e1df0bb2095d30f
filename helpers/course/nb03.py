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

__all__ = ["q1", "q2", "q3", "average_precision_at_k", "map_bdz", "case_a_seed000"]


def average_precision_at_k(ranking, relevant, k):
    """AP@K: the mean of P@i over the relevant ranks i <= k, divided by min(k, |R|)."""
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
    k = min(k, len(ranking))  # seed 004's idiom
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
            "Seed 000's m. It never charges for relevant items that were missed. " + _DENOMINATOR,
            _div_hits,
        ),
        Mistake(
            "wrong AP denominator: |R|",
            "That is standard (trec_eval) AP; it charges for relevant items that could not fit in k slots. "
            + _DENOMINATOR,
            _div_n_relevant,
        ),
        Mistake("wrong AP denominator: k", _DENOMINATOR, _div_k),
        Mistake(
            "averages P@j over every rank j <= k",
            "AP averages the precisions only at the ranks that hold a relevant item "
            "('the mean of P@K' is seed 000's inaccurate wording).",
            _mean_of_all_precisions,
        ),
        Mistake(
            "0- vs 1-based rank",
            "P@rank divides by the 1-based rank: enumerate(ranking[:k], start=1).",
            _rank_off_by_one,
        ),
        Mistake(
            "k shrunk to the list length",
            "Seed 004's code sets k = min(k, len(ranking)), so a 3-item list is divided by at most 3. "
            "Notebook 03 shows why that hides the empty slots: keep k, divide by min(k, len(relevant)).",
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


def map_bdz():
    """MAP@5 of seed 004's two lists (relevant B, D, Z; Z never recommended)."""
    ap_1 = (1 / 2 + 2 / 4) / min(5, 3)  # hits at ranks 2 and 4
    ap_2 = (1 / 4 + 2 / 5) / min(5, 3)  # hits at ranks 4 and 5
    return (ap_1 + ap_2) / 2


def _map(function):
    return lambda: (
        (function(BDZ_RANKING_1, BDZ_RELEVANT, BDZ_K) + function(BDZ_RANKING_2, BDZ_RELEVANT, BDZ_K)) / 2
    )


q2 = ValueQuestion(
    id="03.q2",
    title="MAP@5 of seed 004's two lists, to 4 decimals",
    prompt="MAP@5 over the lists [A, B, C, D, E] and [A, C, E, B, D] with relevant {B, D, Z}, to 4 decimals "
    "(or exactly)",
    reference=_map(_ap),
    decimals=4,
    hints=[
        "Compute AP@5 for each list (hits at ranks 2, 4 and at ranks 4, 5), then take the mean of the two.",
        "Both APs divide by min(5, 3) = 3: Z is relevant even though it was never recommended.",
    ],
    solution_code=map_bdz,
    mistakes=[
        Mistake(
            "wrong AP denominator: hits in the top k", "Z counts: divide by min(k, |R|) = 3.", _map(_div_hits)
        ),
        Mistake("wrong AP denominator: k", "Divide by min(k, |R|) = 3, not k = 5.", _map(_div_k)),
    ],
)


def case_a_seed000():
    """Case A of seed 000 (hits at ranks 1, 3, 5), AP@5 divided by the 3 hits in the top 5."""
    return (1 / 1 + 2 / 3 + 3 / 5) / 3


_CASE_A = from_binary(CASE_A_LABELS)

q3 = ValueQuestion(
    id="03.q3",
    title="seed 000's Case A, correctly rounded",
    prompt="AP@5 of Case A ([1, 0, 1, 0, 1]) divided by the hits in the top 5 (seed 000's variant), "
    "to 2 decimals as the seed prints it (more decimals, or an exact expression, are fine too)",
    reference=lambda: _ap(*_CASE_A, 5, denominator="n_hits"),
    decimals=2,
    hints=[
        "Hits at ranks 1, 3 and 5: P@1, P@3 and P@5 are 1/1, 2/3 and 3/5.",
        "Their mean is (1/1 + 2/3 + 3/5) / 3. "
        "Round it to 2 decimals (round(x, 2)), or give the expression itself.",
    ],
    solution_code=case_a_seed000,
    mistakes=[
        Mistake(
            "truncated to 0.75 (the seed's value)",
            "That is the value seed 000 prints: the exact value was cut off after two digits, "
            "not rounded. Round it instead (or give the exact expression).",
            lambda: 0.75,
        ),
        Mistake(
            "0- vs 1-based rank",
            "P@rank divides by the 1-based rank (1, 3, 5), not by 2, 4, 6.",
            lambda: _rank_off_by_one(*_CASE_A, 5),
        ),
    ],
)
