"""Every worked example in the five seed posts, with its exact value.

46 examples (../shared/reference/seed-examples.md). Each case computes the
value with ``helpers`` and compares it with the exact value: a ``Fraction``
for rational metrics, a closed-form expression for log-based ones. Where the
seed printed a wrong number, the case also records what it printed and
asserts that the exact value really differs at the printed precision, so the
erratum the course explains is itself tested.
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import pandas as pd
import pytest

import helpers as h
from helpers.course import examples as ex

log2 = math.log2

# ---- the seeds' inputs: read from helpers.course.examples, the copy the notebooks use ----
# The expected values below are exact (Fractions, closed forms) and written independently of it,
# so a wrong input there fails here as a wrong value.
CAR_RANKING, CAR_RELEVANT = ex.CAR_ITEMS, ex.CAR_RELEVANT
CASE_A = ex.from_binary(ex.CASE_A_LABELS)
CASE_B = ex.from_binary(ex.CASE_B_LABELS)

# Seed 001: a full ranking of 10 items; general case T = {1, 6, 9}; leave-one-out target 2.
P001 = ex.SEED001_P
T001 = ex.SEED001_T
LOO001 = {ex.SEED001_LOO_TARGET}

# Seed 003: graded lists in rank order, and a binary list.
ORDER_A, GRADED_A = ex.from_grades(ex.GRADED_A)
ORDER_B = sorted(ORDER_A, key=lambda item: -GRADED_A[item])  # the same items sorted by grade, stable
BINARY_RANKING, BINARY_RELEVANT = ex.from_binary(ex.BINARY_10)

# Seed 004: relevant {B, D, Z}, Z never recommended.
REL004 = ex.BDZ_RELEVANT
EX1 = ex.BDZ_RANKING_1
EX2 = ex.BDZ_RANKING_2


def test_the_inputs_are_the_seeds():
    """The inputs as the seeds print them (ranks of the hits), checked once against the shared copy."""
    assert [rank for rank, item in enumerate(CAR_RANKING, 1) if item in CAR_RELEVANT] == [1, 2, 3, 5, 7, 10]
    assert h.hit_ranks_at_k(P001, T001, 10) == [2, 5, 8] and P001.index(ex.SEED001_LOO_TARGET) == 2
    assert [GRADED_A[i] for i in ORDER_A] == [2, 3, 3, 1, 2] and [GRADED_A[i] for i in ORDER_B] == [
        3,
        3,
        2,
        2,
        1,
    ]
    assert [r for r, i in enumerate(BINARY_RANKING, 1) if i in BINARY_RELEVANT] == [1, 2, 6, 7, 9]
    assert (EX1, EX2, REL004) == (list("ABCDE"), list("ACEBD"), {"B", "D", "Z"})


def _map_at_5_of_seed_004() -> float:
    recs = pd.DataFrame({"user": ["ex1"] * 5 + ["ex2"] * 5, "item": EX1 + EX2, "rank": list(range(1, 6)) * 2})
    truth = pd.DataFrame({"user": ["ex1"] * 3 + ["ex2"] * 3, "item": sorted(REL004) * 2})
    return float(h.evaluate(recs, truth, k=5, metrics=["ap"])["ap@5"].mean())


# ---- the 46 examples ---------------------------------------------------------
# (id, computed value, exact value, what the seed printed, decimals it printed or None if correct)
CASES = [
    # seed 000
    ("000-P@10", h.precision_at_k(CAR_RANKING, CAR_RELEVANT, 10), F(3, 5), 0.6, None),
    ("000-P@3", h.precision_at_k(CAR_RANKING, CAR_RELEVANT, 3), F(1), 1.0, None),
    ("000-P@5", h.precision_at_k(CAR_RANKING, CAR_RELEVANT, 5), F(4, 5), 0.8, None),
    ("000-P@7", h.precision_at_k(CAR_RANKING, CAR_RELEVANT, 7), F(5, 7), 0.714, None),
    (
        "000-AP@5",
        h.average_precision_at_k(CAR_RANKING, CAR_RELEVANT, 5, denominator="n_hits"),
        F(19, 20),
        0.95,
        None,
    ),
    (
        "000-AP@7",
        h.average_precision_at_k(CAR_RANKING, CAR_RELEVANT, 7, denominator="n_hits"),
        F(158, 175),
        0.90,
        None,
    ),
    (
        "000-AP@9",
        h.average_precision_at_k(CAR_RANKING, CAR_RELEVANT, 9, denominator="n_hits"),
        F(158, 175),
        0.90,
        None,
    ),
    (
        "000-AP@10",
        h.average_precision_at_k(CAR_RANKING, CAR_RELEVANT, 10, denominator="n_hits"),
        F(179, 210),
        0.85,
        None,
    ),
    ("000-caseA-AP@5", h.average_precision_at_k(*CASE_A, 5, denominator="n_hits"), F(34, 45), 0.75, 2),
    ("000-caseB-AP@5", h.average_precision_at_k(*CASE_B, 5, denominator="n_hits"), F(8, 15), 0.53, None),
    # seed 001, general case
    ("001-R", h.hit_ranks_at_k(P001, T001, 10), [2, 5, 8], [2, 5, 8], None),
    ("001-P@5", h.precision_at_k(P001, T001, 5), F(2, 5), 0.4, None),
    ("001-R@5", h.recall_at_k(P001, T001, 5), F(2, 3), 0.6666666666666666, None),
    (
        "001-NDCG@5",
        h.ndcg_at_k(P001, T001, 5),
        (1 / log2(3) + 1 / log2(6)) / (1 + 1 / log2(3) + 1 / 2),
        0.4776237035032179,
        None,
    ),
    ("001-AP@5", h.average_precision_at_k(P001, T001, 5), F(3, 10), 0.3, None),
    ("001-RR@5", h.reciprocal_rank_at_k(P001, T001, 5), F(1, 2), 0.5, None),
    # seed 001, leave-one-out (target at rank 3); the seed's code printed 1/log2(5)
    ("001-LOO-P@5", h.precision_at_k(P001, LOO001, 5), F(1, 5), 0.2, None),
    ("001-LOO-R@5", h.recall_at_k(P001, LOO001, 5), F(1), 1.0, None),
    ("001-LOO-NDCG@5", h.ndcg_at_k(P001, LOO001, 5), 1 / log2(4), 0.43067655807339306, 17),
    ("001-LOO-AP@5", h.average_precision_at_k(P001, LOO001, 5), F(1, 3), 0.3333333333333333, None),
    # seed 002: the score lost between rank 10 and "not recommended" (leave-one-out, K = 10)
    (
        "002-gap-RR",
        h.reciprocal_rank_at_k(list(range(10)), {9}, 10) - h.reciprocal_rank_at_k(list(range(10)), {10}, 10),
        F(1, 10),
        0.14,
        2,
    ),
    (
        "002-gap-NDCG",
        h.ndcg_at_k(list(range(10)), {9}, 10) - h.ndcg_at_k(list(range(10)), {10}, 10),
        1 / log2(11),
        0.14,
        2,
    ),
    # seed 003
    ("003-CG-A", h.cg_at_k(ORDER_A, GRADED_A, 5), F(11), 11.0, None),
    ("003-CG-B", h.cg_at_k(ORDER_B, GRADED_A, 5), F(11), 11.0, None),
    (
        "003-DCG-A",
        h.dcg_at_k(ORDER_A, GRADED_A, 5),
        2 + 3 / log2(3) + 3 / 2 + 1 / log2(5) + 2 / log2(6),
        6.64,
        2,
    ),
    (
        "003-DCG-B",
        h.dcg_at_k(ORDER_B, GRADED_A, 5),
        3 + 3 / log2(3) + 2 / 2 + 2 / log2(5) + 1 / log2(6),
        7.14,
        None,
    ),
    (
        "003-NDCG-A",
        h.ndcg_at_k(ORDER_A, GRADED_A, 5, ideal="listed"),
        (2 + 3 / log2(3) + 3 / 2 + 1 / log2(5) + 2 / log2(6))
        / (3 + 3 / log2(3) + 2 / 2 + 2 / log2(5) + 1 / log2(6)),
        0.93,
        2,
    ),
    ("003-NDCG-B", h.ndcg_at_k(ORDER_B, GRADED_A, 5, ideal="listed"), F(1), 1.0, None),
    (
        "003-DCG@10-binary",
        h.dcg_at_k(BINARY_RANKING, BINARY_RELEVANT, 10),
        1 + 1 / log2(3) + 1 / log2(7) + 1 / log2(8) + 1 / log2(10),
        2.62,
        None,
    ),
    (
        "003-IDCG@10-binary",
        h.idcg_at_k(BINARY_RANKING, BINARY_RELEVANT, 10),
        sum(1 / log2(i + 1) for i in range(1, 6)),
        2.94,
        2,
    ),
    (
        "003-NDCG@10-binary",
        h.ndcg_at_k(BINARY_RANKING, BINARY_RELEVANT, 10),
        (1 + 1 / log2(3) + 1 / log2(7) + 1 / log2(8) + 1 / log2(10))
        / sum(1 / log2(i + 1) for i in range(1, 6)),
        0.89,
        None,
    ),
    (
        "003-tie-CABED",
        h.ndcg_at_k(list("CABED"), {"C", "D"}, 5),
        (1 + 1 / log2(6)) / (1 + 1 / log2(3)),
        0.850345,
        None,
    ),
    (
        "003-tie-DABEC",
        h.ndcg_at_k(list("DABEC"), {"C", "D"}, 5),
        (1 + 1 / log2(6)) / (1 + 1 / log2(3)),
        0.850345,
        None,
    ),
    # seed 004
    *[
        (f"004-ex1-P@{k}", h.precision_at_k(EX1, REL004, k), exact, float(exact), None)
        for k, exact in zip(range(1, 6), [F(0), F(1, 2), F(1, 3), F(1, 2), F(2, 5)], strict=True)
    ],
    ("004-ex1-AP@5", h.average_precision_at_k(EX1, REL004, 5), F(1, 3), 0.3333333333333333, None),
    *[
        (f"004-ex2-P@{k}", h.precision_at_k(EX2, REL004, k), exact, float(exact), None)
        for k, exact in zip(range(1, 6), [F(0), F(0), F(0), F(1, 4), F(2, 5)], strict=True)
    ],
    ("004-ex2-AP@5", h.average_precision_at_k(EX2, REL004, 5), F(13, 60), 0.21666, None),
    ("004-MAP@5", _map_at_5_of_seed_004(), F(11, 40), 0.275, None),
]


def test_there_are_46_examples():
    assert len(CASES) == 46
    assert len({case[0] for case in CASES}) == 46


@pytest.mark.parametrize("name, value, exact, printed, decimals", CASES, ids=[c[0] for c in CASES])
def test_seed_example(name, value, exact, printed, decimals):
    if isinstance(exact, list):
        assert value == exact
        return
    assert type(value) is float
    assert value == pytest.approx(float(exact), rel=1e-15, abs=1e-15)
    if decimals is None:
        # the seed is right: its printed number is the exact value, rounded or truncated
        assert abs(float(exact) - printed) < 10 ** -(len(repr(printed).split(".")[-1])) + 1e-12
    else:
        # an erratum: at the precision the seed printed, the exact value is different
        assert round(float(exact), decimals) != round(printed, decimals)


def test_errata_exact_values_at_printed_precision():
    """The corrected figures the course shows, at the seeds' own precision."""
    values = {name: value for name, value, *_ in CASES}
    assert round(values["000-caseA-AP@5"], 2) == 0.76  # printed 0.75 (truncated)
    assert round(values["003-DCG-A"], 2) == 6.60  # printed 6.64
    assert round(values["003-NDCG-A"], 2) == 0.92  # printed 0.93
    assert round(values["003-IDCG@10-binary"], 2) == 2.95  # printed 2.94 (truncated)
    assert values["001-LOO-NDCG@5"] == 0.5  # code printed 1/log2(5) = 0.4307 (off by one)
    assert 1 / log2(3 + 2) == pytest.approx(0.43067655807339306, abs=1e-17)  # what the bug computes
    assert round(values["002-gap-RR"], 4) == 0.1 and round(values["002-gap-NDCG"], 4) == 0.2891  # not 0.14


def test_seed_003_printed_cg_typo_and_gain_variants():
    """'2 + 33 + 3 + 1 + 2' sums to 41; the list's CG is 11. 2**rel differs from 2**rel - 1."""
    assert 2 + 33 + 3 + 1 + 2 == 41 != h.cg_at_k(ORDER_A, GRADED_A, 5)
    exp_a = h.dcg_at_k(ORDER_A, GRADED_A, 5, gain="exponential")
    exp_b = h.dcg_at_k(ORDER_B, GRADED_A, 5, gain="exponential")
    assert round(exp_a, 4) == 12.5077 and round(exp_b, 4) == 14.5954
    assert round(h.ndcg_at_k(ORDER_A, GRADED_A, 5, gain="exponential"), 4) == 0.857
    # the seed's printed 2**rel form adds 1/log2(i+1) at every rank: 15.4562 / 17.5438 = 0.8810
    extra = sum(1 / log2(i + 1) for i in range(1, 6))
    assert round(exp_a + extra, 4) == 15.4562 and round((exp_a + extra) / (exp_b + extra), 4) == 0.881


def test_supplementary_denominator_contrasts():
    """seed-examples.md's supplementary table: one input, three AP@K values."""
    ap = h.average_precision_at_k
    got = {
        d: round(ap(CAR_RANKING, CAR_RELEVANT, 5, denominator=d), 4)
        for d in ("n_hits", "min_k_n_relevant", "n_relevant")
    }
    assert got == {"n_hits": 0.95, "min_k_n_relevant": 0.76, "n_relevant": 0.6333}
    for k in (7, 9):
        assert [
            round(ap(CAR_RANKING, CAR_RELEVANT, k, denominator=d), 4)
            for d in ("n_hits", "min_k_n_relevant", "n_relevant")
        ] == [0.9029, 0.7524, 0.7524]
    assert {
        round(ap(CAR_RANKING, CAR_RELEVANT, 10, denominator=d), 4)
        for d in ("n_hits", "min_k_n_relevant", "n_relevant")
    } == {0.8524}
    assert (
        ap(EX1, REL004, 5, denominator="n_hits") == 0.5 and ap(EX2, REL004, 5, denominator="n_hits") == 0.325
    )
    hundred = set(range(100))
    assert ap([0, 1, 2], hundred, 3, denominator="n_relevant") == pytest.approx(0.03)
    assert ap([0, 1, 2], hundred, 3, denominator="min_k_n_relevant") == 1.0
