"""Per-user P, R, hit, RR and AP: golden values, oracles, identities, edge cases."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import topkeval as h

from . import reference as ref
from .strategies import user_case

DENOMINATORS = ["min_k_n_relevant", "n_relevant", "n_hits"]
SET_METRICS = [
    (h.precision_at_k, ref.precision),
    (h.recall_at_k, ref.recall),
    (h.hit_at_k, ref.hit),
    (h.reciprocal_rank_at_k, ref.reciprocal_rank),
]


# ---- golden values (the arithmetic is in the comment) -------------------------
@pytest.mark.parametrize(
    "function, k, expected",
    [
        (h.precision_at_k, 2, 1 / 2),  # a hit, b miss
        (h.precision_at_k, 6, 2 / 6),  # list of 4, k = 6: missing ranks are misses
        (h.recall_at_k, 2, 1 / 3),  # a of {a, c, x}
        (h.recall_at_k, 4, 2 / 3),  # x is never listed
        (h.hit_at_k, 1, 1.0),
        (h.reciprocal_rank_at_k, 4, 1.0),
        (h.average_precision_at_k, 4, (1 + 2 / 3) / 3),  # min(4, 3) = 3
        (h.average_precision_at_k, 2, 1 / 2),  # min(2, 3) = 2
    ],
)
def test_golden_values(function, k, expected):
    got = function(["a", "b", "c", "d"], {"a", "c", "x"}, k)
    assert type(got) is float
    assert got == pytest.approx(expected, abs=1e-15)


def test_reciprocal_rank_ignores_later_hits():
    assert h.reciprocal_rank_at_k(["z", "a", "b"], {"a", "b"}, k=3) == 0.5
    assert h.reciprocal_rank_at_k(["z", "a", "y"], {"a"}, k=3) == 0.5


@pytest.mark.parametrize(
    "denominator, expected", [("n_relevant", 0.5 / 3), ("min_k_n_relevant", 0.5 / 2), ("n_hits", 0.5)]
)
def test_ap_denominators_on_one_list(denominator, expected):
    # one hit at rank 2 of k = 2, three relevant items
    assert h.average_precision_at_k(["z", "a"], {"a", "b", "c"}, 2, denominator=denominator) == pytest.approx(
        expected
    )


def test_ap_n_hits_with_no_hit_is_zero():
    assert h.average_precision_at_k(["z"], {"a"}, 1, denominator="n_hits") == 0.0


# ---- decisions on edge cases ------------------------------------------------------
def test_empty_ranking_scores_zero():
    for function in (
        h.precision_at_k,
        h.recall_at_k,
        h.hit_at_k,
        h.reciprocal_rank_at_k,
        h.average_precision_at_k,
    ):
        assert function([], {"a"}, 3) == 0.0


def test_no_relevant_item_well_defined_metrics_are_zero():
    for function in (h.precision_at_k, h.hit_at_k, h.reciprocal_rank_at_k):
        assert function(["a", "b"], set(), 2) == 0.0


@pytest.mark.parametrize("function", [h.recall_at_k, h.average_precision_at_k])
def test_no_relevant_item_ratio_metrics_raise(function):
    with pytest.raises(ValueError, match="no relevant item"):
        function(["a", "b"], set(), 2)


def test_mapping_relevance_uses_positive_grades_only():
    grades = {"a": 2, "b": 0, "c": 1}
    assert h.precision_at_k(["a", "b", "c"], grades, 3) == pytest.approx(2 / 3)
    assert h.recall_at_k(["b"], grades, 1) == 0.0
    with pytest.raises(ValueError, match="no relevant item"):
        h.recall_at_k(["b"], {"b": 0}, 1)


def test_accepts_tuples_arrays_and_lists_of_relevant_ids():
    ranking = np.array([3, 1, 2])
    assert h.precision_at_k(ranking, [1, 2], 2) == 0.5
    assert h.precision_at_k(tuple(ranking), np.array([1]), 2) == 0.5
    assert type(h.precision_at_k(ranking, {np.int64(1)}, 2)) is float


def test_k_may_be_positional_or_keyword_and_numpy_int():
    assert h.precision_at_k(["a"], {"a"}, k=np.int64(1)) == h.precision_at_k(["a"], {"a"}, 1) == 1.0


# ---- oracles ----------------------------------------------------------------------
@settings(max_examples=300, deadline=None)
@given(user_case(min_relevant=1))
def test_set_metrics_match_oracle(case):
    ranking, relevant, k = case
    for function, oracle in SET_METRICS:
        assert function(ranking, relevant, k) == pytest.approx(float(oracle(ranking, relevant, k)), abs=1e-15)


@settings(max_examples=300, deadline=None)
@given(user_case(min_relevant=1), st.sampled_from(DENOMINATORS))
def test_average_precision_matches_oracle(case, denominator):
    ranking, relevant, k = case
    got = h.average_precision_at_k(ranking, relevant, k, denominator=denominator)
    assert got == pytest.approx(float(ref.average_precision(ranking, relevant, k, denominator)), abs=1e-15)


# ---- identities -------------------------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(user_case(min_relevant=1))
def test_bounds_and_counts(case):
    ranking, relevant, k = case
    hits = len(h.hit_ranks_at_k(ranking, relevant, k))
    assert h.precision_at_k(ranking, relevant, k) * k == pytest.approx(hits)
    for function, _ in SET_METRICS:
        assert 0.0 <= function(ranking, relevant, k) <= 1.0
    for denominator in DENOMINATORS:
        assert 0.0 <= h.average_precision_at_k(ranking, relevant, k, denominator=denominator) <= 1.0 + 1e-15


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 30), unique=True, min_size=1, max_size=15), st.data())
def test_leave_one_out_identities(ranking, data):
    """With one relevant item: AP@k = RR@k (every denominator), recall = hit, P = hit / k,
    NDCG = 1/log2(r+1)."""
    target = data.draw(st.one_of(st.sampled_from(ranking), st.integers(31, 40)))
    k = data.draw(st.integers(1, 20))
    relevant = {target}
    rr = h.reciprocal_rank_at_k(ranking, relevant, k)
    for denominator in DENOMINATORS:
        assert h.average_precision_at_k(ranking, relevant, k, denominator=denominator) == pytest.approx(
            rr, abs=1e-15
        )
    hit = h.hit_at_k(ranking, relevant, k)
    assert h.recall_at_k(ranking, relevant, k) == hit
    assert h.precision_at_k(ranking, relevant, k) == pytest.approx(hit / k)
    rank = ranking.index(target) + 1 if target in ranking else None
    expected = 1 / np.log2(rank + 1) if rank is not None and rank <= k else 0.0
    assert h.ndcg_at_k(ranking, relevant, k) == pytest.approx(expected, abs=1e-15)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_moving_a_relevant_item_up_never_lowers_ap_rr_ndcg(data):
    # drawn so that every example qualifies: a relevant item at position i swaps with a
    # non-relevant one above it at position j (no assume(): nothing is thrown away)
    ranking = data.draw(st.lists(st.integers(0, 40), unique=True, min_size=2, max_size=15))
    i = data.draw(st.integers(1, len(ranking) - 1))
    j = data.draw(st.integers(0, i - 1))
    others = data.draw(st.sets(st.integers(0, 45), max_size=10)) - {ranking[j]}
    relevant = others | {ranking[i]}
    k = data.draw(st.integers(1, 18))
    better = list(ranking)
    better[i], better[j] = better[j], better[i]
    for denominator in DENOMINATORS:
        before = h.average_precision_at_k(ranking, relevant, k, denominator=denominator)
        after = h.average_precision_at_k(better, relevant, k, denominator=denominator)
        if denominator != "n_hits":  # n_hits can drop when a new hit enters the top k (seed 000)
            assert after >= before - 1e-15
    assert h.reciprocal_rank_at_k(better, relevant, k) >= h.reciprocal_rank_at_k(ranking, relevant, k)
    assert h.ndcg_at_k(better, relevant, k) >= h.ndcg_at_k(ranking, relevant, k) - 1e-15


def test_n_hits_ap_can_drop_when_a_hit_enters():
    """Seed 000's variant: a late hit lowers AP (AP@9 = 0.903, AP@10 = 0.852)."""
    ranking, relevant = list(range(1, 11)), {1, 2, 3, 5, 7, 10}
    nine = h.average_precision_at_k(ranking, relevant, 9, denominator="n_hits")
    ten = h.average_precision_at_k(ranking, relevant, 10, denominator="n_hits")
    assert ten < nine
    assert h.average_precision_at_k(
        ranking, relevant, 10, denominator="n_relevant"
    ) > h.average_precision_at_k(ranking, relevant, 9, denominator="n_relevant")


@settings(max_examples=100, deadline=None)
@given(user_case(min_relevant=1))
def test_recall_never_decreases_with_k_and_reordering_below_k_changes_nothing(case):
    ranking, relevant, k = case
    assert h.recall_at_k(ranking, relevant, k + 1) >= h.recall_at_k(ranking, relevant, k)
    shuffled = ranking[:k] + list(reversed(ranking[k:]))
    for function, _ in SET_METRICS:
        assert function(shuffled, relevant, k) == function(ranking, relevant, k)
    assert h.average_precision_at_k(shuffled, relevant, k) == h.average_precision_at_k(ranking, relevant, k)


def test_renaming_items_changes_nothing():
    ranking, relevant = [4, 6, 2, 3, 1], {1, 6, 9}
    renamed = [f"item-{i}" for i in ranking]
    renamed_relevant = {f"item-{i}" for i in relevant}
    for function, _ in SET_METRICS:
        assert function(ranking, relevant, 5) == function(renamed, renamed_relevant, 5)
