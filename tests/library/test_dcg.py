"""CG, DCG, IDCG, NDCG and dcg_table: golden values, oracle, identities."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import topkeval as h

from . import reference as ref
from .strategies import user_case

GAINS = ["linear", "exponential"]
IDEALS = ["all", "listed"]


def as_grades(relevance):
    return relevance if isinstance(relevance, dict) else {item: 1 for item in relevance}


@settings(max_examples=300, deadline=None)
@given(user_case(min_relevant=1, graded=True), st.sampled_from(GAINS), st.sampled_from(IDEALS))
def test_dcg_idcg_ndcg_match_oracle(case, gain, ideal):
    ranking, grades, k = case
    assert h.dcg_at_k(ranking, grades, k, gain=gain) == pytest.approx(
        ref.dcg(ranking, grades, k, gain), abs=1e-12
    )
    assert h.idcg_at_k(ranking, grades, k, gain=gain, ideal=ideal) == pytest.approx(
        ref.idcg(ranking, grades, k, gain, ideal), abs=1e-12
    )
    got = h.ndcg_at_k(ranking, grades, k, gain=gain, ideal=ideal)
    assert got == pytest.approx(ref.ndcg(ranking, grades, k, gain, ideal), abs=1e-12)
    assert 0.0 <= got <= 1.0 + 1e-12


@settings(max_examples=200, deadline=None)
@given(user_case(min_relevant=1, graded=True), st.sampled_from(GAINS))
def test_ideal_ordering_scores_one_and_listed_ideal_is_never_harder(case, gain):
    ranking, grades, k = case
    best_first = sorted(grades, key=lambda item: -grades[item])
    assert h.ndcg_at_k(best_first, grades, k, gain=gain) == pytest.approx(1.0)
    assert (
        h.ndcg_at_k(ranking, grades, k, gain=gain, ideal="listed")
        >= h.ndcg_at_k(ranking, grades, k, gain=gain) - 1e-12
    )


@settings(max_examples=100, deadline=None)
@given(user_case(min_relevant=1))
def test_binary_gain_choice_does_not_matter_and_dcg_grows_with_k(case):
    ranking, relevant, k = case
    assert h.ndcg_at_k(ranking, relevant, k, gain="linear") == h.ndcg_at_k(
        ranking, relevant, k, gain="exponential"
    )
    assert h.dcg_at_k(ranking, relevant, k + 1) >= h.dcg_at_k(ranking, relevant, k)


def test_binary_idcg_uses_min_of_relevant_and_k():
    three = {"x", "y", "z"}
    assert h.idcg_at_k(["a"], three, 2) == pytest.approx(1 + 1 / math.log2(3))
    assert h.idcg_at_k(["a"], three, 10) == pytest.approx(1 + 1 / math.log2(3) + 0.5)


def test_binary_ndcg_cannot_order_two_relevant_items():
    grades = {"c": 1, "d": 1}
    assert h.ndcg_at_k(list("cabed"), grades, 5) == h.ndcg_at_k(list("dabec"), grades, 5)
    graded = {"c": 3, "d": 1}
    assert h.ndcg_at_k(list("cabed"), graded, 5) > h.ndcg_at_k(list("dabec"), graded, 5)


def test_listed_ideal_with_no_listed_relevant_item_is_zero():
    assert h.ndcg_at_k(["a", "b"], {"z"}, 2, ideal="listed") == 0.0
    assert h.idcg_at_k(["a", "b"], {"z"}, 2, ideal="listed") == 0.0


def test_ndcg_without_relevant_item_raises():
    with pytest.raises(ValueError, match="ndcg_at_k is undefined"):
        h.ndcg_at_k(["a"], {"a": 0}, 1)
    assert h.dcg_at_k(["a"], {"a": 0}, 1) == 0.0


def test_gains_and_cg():
    grades = {"a": 2, "b": 3, "c": 3, "d": 1, "e": 2}
    assert h.gains_at_k(list("abcde"), grades, 3) == [2.0, 3.0, 3.0]
    assert h.gains_at_k(list("abcde"), grades, 2, gain="exponential") == [3.0, 7.0]
    assert h.cg_at_k(list("abcde"), grades, 5) == h.cg_at_k(list("edcba"), grades, 5) == 11.0
    assert type(h.cg_at_k(list("abcde"), grades, 5)) is float


@pytest.mark.parametrize("ideal", IDEALS)
def test_dcg_table_last_row_gives_dcg_idcg_and_ndcg(ideal):
    grades = {"a": 2, "b": 0, "c": 3, "x": 3}
    table = h.dcg_table(["a", "b", "c", "d"], grades, 3, ideal=ideal)
    last = table.iloc[-1]
    assert last["dcg"] == pytest.approx(h.dcg_at_k(["a", "b", "c", "d"], grades, 3))
    assert last["idcg"] == pytest.approx(h.idcg_at_k(["a", "b", "c", "d"], grades, 3, ideal=ideal))
    assert last["dcg"] / last["idcg"] == pytest.approx(
        h.ndcg_at_k(["a", "b", "c", "d"], grades, 3, ideal=ideal)
    )
    assert list(table["rank"]) == [1, 2, 3]
    assert list(table.columns) == ["rank", "item", "grade", "gain", "discount", "dcg", "ideal_gain", "idcg"]


def test_dcg_table_pads_a_short_list_for_the_ideal():
    table = h.dcg_table(["a"], {"a", "b", "c"}, 3)
    assert len(table) == 3 and table["item"].isna().sum() == 2
    assert table["idcg"].iloc[-1] == pytest.approx(h.idcg_at_k(["a"], {"a", "b", "c"}, 3))
