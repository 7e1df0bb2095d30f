"""helpers.experiments.sampled: exact and sampled leave-one-out ranks, checked against helpers.evaluate
and by simulation."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

import helpers
from helpers.experiments.data import synthetic_interactions
from helpers.experiments.models import EASE, ItemKNN, MostPopular, RandomRecommender
from helpers.experiments.sampled import (
    compare_protocols,
    corrected_values,
    expected_negatives_above,
    expected_sampled_hit,
    held_out_ranks,
    protocol_table,
    rank_among,
    rank_metrics,
    sample_negatives,
    sampled_rank_distribution,
)
from topkeval.splits import leave_one_out_split


@pytest.fixture(scope="module")
def split():
    log = synthetic_interactions(n_users=200, n_items=150, taste_strength=3.0, seed=4)
    return leave_one_out_split(log)


@pytest.mark.parametrize("model", [EASE(l2=20.0), ItemKNN(n_neighbors=5), MostPopular()], ids=repr)
def test_exact_ranks_agree_with_evaluate_on_recommend(split, model):
    train, test = split
    model.fit(train)
    ranks = held_out_ranks(model, test)
    assert ranks.index.tolist() == sorted(test["user"])
    recs = model.recommend(test["user"], k=20)
    official = helpers.evaluate(recs, test, k=[1, 10, 20], metrics=["hit", "rr", "ndcg"])
    ours = rank_metrics(ranks, k=[1, 10, 20])
    pd.testing.assert_frame_equal(ours[official.columns], official, check_names=False, atol=1e-12)
    # and each rank <= 20 is the held-out item's position in the list
    merged = recs.merge(test[["user", "item"]], on=["user", "item"])
    assert (merged.set_index("user")["rank"] == ranks.loc[merged["user"]].to_numpy()).all()


def test_negatives_are_unseen_distinct_and_seeded(split):
    train, test = split
    negatives = sample_negatives(train, test, n_negatives=30, seed=1)
    assert negatives.groupby("user").size().eq(30).all()
    assert set(negatives["user"]) == set(test["user"])
    assert not negatives.duplicated().any()
    touched = set(zip(train["user"], train["item"], strict=True)) | set(
        zip(test["user"], test["item"], strict=True)
    )
    assert not any(pair in touched for pair in zip(negatives["user"], negatives["item"], strict=True))
    assert negatives["item"].isin(train["item"]).all()
    assert negatives.equals(sample_negatives(train, test, n_negatives=30, seed=1))
    assert not negatives.equals(sample_negatives(train, test, n_negatives=30, seed=2))


def test_negatives_are_uniform_over_unseen_items():
    train = pd.DataFrame({"user": [1] * 2 + [2] * 2, "item": ["a", "b", "a", "c"]})
    test = pd.DataFrame({"user": [1, 2], "item": ["c", "b"]})
    items = list("abcdefgh")
    counts = pd.Series(0, index=items[3:])
    for seed in range(400):
        counts += (
            sample_negatives(train, test, n_negatives=2, items=items, seed=seed)["item"]
            .value_counts()
            .reindex(counts.index, fill_value=0)
        )
    # 2 users x 2 draws x 400 seeds spread over d..h: 320 each in expectation
    assert counts.between(260, 380).all()


def test_sampled_ranks_on_hand_made_scores():
    train = pd.DataFrame({"user": [1, 1, 1, 2, 2, 3], "item": ["a", "b", "c", "a", "b", "a"]})
    model = MostPopular().fit(train)  # a: 3, b: 2, c: 1
    test = pd.DataFrame({"user": [2, 3], "item": ["c", "b"]})
    negatives = pd.DataFrame({"user": [2, 3], "item": ["c", "c"]})
    with pytest.raises(ValueError, match="only test users"):  # negatives for some of the users only
        held_out_ranks(model, test, negatives=negatives.iloc[:1])
    ranks = held_out_ranks(model, test, negatives=negatives)
    # user 2: the only 'negative' is the held-out c itself, which is skipped -> rank 1;
    # user 3: held-out b (2 users) beats the negative c (1 user) -> rank 1
    assert ranks.tolist() == [1, 1]
    exact = held_out_ranks(model, test)
    assert exact.tolist() == [1, 1]  # user 2: only c unseen; user 3: b above c


def test_cold_held_out_item_ranks_last():
    train = pd.DataFrame({"user": [1, 1, 2], "item": ["a", "b", "c"]})
    model = RandomRecommender(seed=0).fit(train)
    test = pd.DataFrame({"user": [1, 2], "item": ["new", "a"]})
    exact = held_out_ranks(model, test)
    assert exact.loc[1] == 2  # candidates: c and the held-out item
    negatives = pd.DataFrame({"user": [1, 2], "item": ["c", "b"]})
    assert held_out_ranks(model, test, negatives=negatives).loc[1] == 2


def test_rank_metrics_formula():
    table = rank_metrics(pd.Series([1, 2, 10, 11]), k=10)
    assert table["hit@10"].tolist() == [1.0, 1.0, 1.0, 0.0]
    assert table["rr@10"].tolist() == pytest.approx([1.0, 0.5, 0.1, 0.0])
    assert table["ndcg@10"].tolist() == pytest.approx([1.0, 1 / np.log2(3), 1 / np.log2(11), 0.0])
    with pytest.raises(ValueError, match=">= 1"):
        rank_metrics(pd.Series([0, 1]), k=10)


def test_expected_sampled_hit_matches_simulation():
    rng = np.random.default_rng(0)
    n_candidates, n_neg, k = 300, 40, 5
    for rank in (1, 5, 6, 30, 60, 120):
        above = np.zeros(n_candidates - 1, dtype=bool)
        above[: rank - 1] = True
        draws = np.array(
            [above[rng.choice(n_candidates - 1, n_neg, replace=False)].sum() for _ in range(4000)]
        )
        simulated = float(np.mean(draws < k))
        assert expected_sampled_hit(rank, n_candidates, n_neg, k) == pytest.approx(simulated, abs=0.025)
        assert expected_negatives_above(rank, n_candidates, n_neg) == pytest.approx(draws.mean(), abs=0.1)


def test_expected_sampled_hit_edges():
    assert expected_sampled_hit(10, 1000, 100, 10) == 1.0
    assert expected_sampled_hit(1000, 1000, 100, 10) == 0.0
    assert expected_sampled_hit(101, 101, 100, 10) == 0.0  # every other item sampled: exact metric
    assert expected_sampled_hit(10, 101, 100, 10) == 1.0 and expected_sampled_hit(11, 101, 100, 10) == 0.0
    values = [expected_sampled_hit(r, 500, 50, 10) for r in range(1, 500, 7)]
    assert all(x >= y for x, y in zip(values, values[1:], strict=False))
    with pytest.raises(ValueError, match="cannot exceed"):
        expected_sampled_hit(11, 10)
    with pytest.raises(ValueError, match="n_negatives"):
        expected_sampled_hit(1, 50, 100)


def test_rank_among():
    assert rank_among(0.7, [0.9, 0.1, 0.75, 0.3]) == 3
    assert rank_among(1.0, []) == 1
    assert rank_among(0.5, [0.5, 0.5]) == 1  # ties go to the held-out item


def test_compare_protocols_and_table(split):
    train, test = split
    models = {"pop": MostPopular().fit(train), "ease": EASE(20.0).fit(train)}
    negatives = sample_negatives(train, test, n_negatives=20, seed=0)
    table = compare_protocols(models, test, negatives, k=10)
    assert table.index.tolist() == ["pop", "ease"]
    # sampled is never harder than exact: fewer candidates to lose against
    assert (table["hit@10 sampled"] >= table["hit@10 exact"]).all()
    assert (table["ndcg@10 sampled"] >= table["ndcg@10 exact"]).all()
    again = protocol_table(
        {n: held_out_ranks(m, test) for n, m in models.items()},
        {n: held_out_ranks(m, test, negatives=negatives) for n, m in models.items()},
        k=10,
    )
    pd.testing.assert_frame_equal(table, again)
    assert set(table["place hit@10 exact"]) <= {1, 2}
    with pytest.raises(ValueError, match="same models"):
        protocol_table({"a": pd.Series([1])}, {"b": pd.Series([1])})


def test_errors(split):
    train, test = split
    with pytest.raises(ValueError, match="one held-out item per user"):
        sample_negatives(train, pd.concat([test, test]), n_negatives=5)
    with pytest.raises(ValueError, match="left to sample from"):
        sample_negatives(train, test, n_negatives=500)
    model = MostPopular().fit(train)
    with pytest.raises(ValueError, match="same number of items for every test user"):
        held_out_ranks(model, test, negatives=pd.DataFrame({"user": [test["user"].iloc[0]], "item": [1]}))


def test_rank_metrics_uses_the_chosen_discount_like_evaluate():
    import helpers

    ranks = pd.Series([1, 2, 5, 12], index=["a", "b", "c", "d"])
    for discount in helpers.OPTIONS["discount"].values:
        ours = rank_metrics(ranks, k=[1, 5, 10], discount=discount)
        recs = pd.DataFrame(
            [(u, f"i{j}", j) for u in ranks.index for j in range(1, 13)], columns=["user", "item", "rank"]
        )
        truth = pd.DataFrame({"user": ranks.index, "item": [f"i{r}" for r in ranks]})
        full = helpers.evaluate(recs, truth, k=[1, 5, 10], metrics=["hit", "rr", "ndcg"], discount=discount)
        pd.testing.assert_frame_equal(ours, full[ours.columns], check_names=False, atol=1e-12, rtol=0)


# ------------------------------------------------- Krichene and Rendle's corrected values
def test_sampled_rank_distribution_matches_enumerating_every_sample():
    n_candidates, n_negatives = 9, 3
    others = range(n_candidates - 1)
    samples = list(itertools.combinations(others, n_negatives))
    for full_rank in range(1, n_candidates + 1):
        above = set(range(full_rank - 1))  # the others ranked above the item
        counts = np.bincount([len(above & set(s)) for s in samples], minlength=n_negatives + 1)
        expected = counts / len(samples)
        got = sampled_rank_distribution(n_candidates, n_negatives)[full_rank - 1]
        np.testing.assert_allclose(got, expected, atol=1e-12)
    rows = sampled_rank_distribution(1682, 100).sum(axis=1)
    np.testing.assert_allclose(rows, 1.0, atol=1e-9)
    np.testing.assert_array_equal(sampled_rank_distribution(6, 5), np.eye(6))  # every other item drawn


@pytest.mark.parametrize("metric", ["hit", "rr", "ndcg"])
def test_without_sampling_the_correction_is_the_metric_itself(metric):
    exact = rank_metrics(pd.Series(np.arange(1, 31)), 10)[f"{metric}@10"].to_numpy()
    for weight in (0.0, 0.1, 1.0):
        np.testing.assert_allclose(corrected_values(30, 29, 10, metric, gamma=weight), exact)


def test_gamma_one_is_the_posterior_mean_under_a_uniform_prior():
    n_candidates, n_negatives, k = 200, 20, 10
    p = sampled_rank_distribution(n_candidates, n_negatives)
    exact = [1.0 / math.log2(r + 1) if r <= k else 0.0 for r in range(1, n_candidates + 1)]
    naive = [
        sum(p[R, r] * exact[R] for R in range(n_candidates)) / p[:, r].sum() for r in range(n_negatives + 1)
    ]
    got = corrected_values(n_candidates, n_negatives, k, "ndcg", gamma=1.0)
    np.testing.assert_allclose(got, naive, rtol=1e-9)


def test_the_correction_removes_most_of_the_bias():
    n_candidates, n_negatives, k = 1000, 100, 10
    p = sampled_rank_distribution(n_candidates, n_negatives)
    exact = (np.arange(1, n_candidates + 1) <= k).astype(float)
    uncorrected = (np.arange(1, n_negatives + 2) <= k).astype(float)  # the sampled metric's own values: wrong
    corrected = corrected_values(n_candidates, n_negatives, k)
    bias_before = np.abs(p @ uncorrected - exact).mean()
    bias_after = np.abs(p @ corrected - exact).mean()
    assert bias_after < 0.1 * bias_before
    # a simulation: full ranks of a plausible model, sampled ranks drawn, corrected mean vs exact HR@10
    rng = np.random.default_rng(3)
    full = np.minimum(rng.geometric(0.02, size=200_000), n_candidates)
    sampled = rng.hypergeometric(full - 1, n_candidates - full, n_negatives) + 1
    assert corrected[sampled - 1].mean() == pytest.approx((full <= k).mean(), abs=0.01)
    assert (
        uncorrected[sampled - 1].mean() > 2 * (full <= k).mean()
    )  # the uncorrected sampled HR@10 is far off


def test_correction_errors():
    with pytest.raises(ValueError, match="cannot exceed"):
        sampled_rank_distribution(10, 10)
    with pytest.raises(ValueError, match="metric must be"):
        corrected_values(100, 10, metric="map")
    with pytest.raises(ValueError, match="gamma"):
        corrected_values(100, 10, gamma=2)
