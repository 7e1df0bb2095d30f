"""Beyond-accuracy metrics: hand values, naive oracles, and batch equal to per-user."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from topkeval.beyond import (
    BEYOND_METRICS,
    arp_at_k,
    catalog_coverage,
    coverage_batch,
    evaluate_beyond,
    gini_batch,
    gini_index,
    gini_of_counts,
    intra_list_diversity_at_k,
    item_popularity,
    novelty_at_k,
)


# ----------------------------------------------------------------- oracles
def gini_oracle(counts):
    """Mean absolute difference over all ordered pairs / (2 * mean): the textbook definition."""
    x = [float(c) for c in counts]
    n = len(x)
    mean = sum(x) / n
    return sum(abs(a - b) for a in x for b in x) / (2 * n * n * mean)


def gini_shani_oracle(counts):
    """Shani and Gunawardana (Recommender Systems Handbook, 2011), written as printed:
    G = 1/(n - 1) * sum_{j=1..n} (2j - n - 1) p(i_j), with p(i_j) the share of recommendations of the
    j-th least recommended item."""
    shares = sorted(float(c) / sum(counts) for c in counts)
    n = len(shares)
    return sum((2 * j - n - 1) * share for j, share in enumerate(shares, start=1)) / (n - 1)


def ild_oracle(items, distance):
    pairs = list(itertools.combinations(items, 2))
    return sum(distance(a, b) for a, b in pairs) / len(pairs) if pairs else 0.0


def cosine_distance(u, v):
    return 1 - sum(a * b for a, b in zip(u, v, strict=True)) / (math.hypot(*u) * math.hypot(*v))


def random_case(seed, n_users=80, n_items=30, width=8):
    rng = np.random.default_rng(seed)
    top = np.stack([rng.permutation(n_items)[:width] for _ in range(n_users)])
    top[rng.random(top.shape) < 0.1] = -1  # empty slots
    top = np.where(np.cumsum(top < 0, axis=1) > 0, -1, top)  # empties only at the end of a row
    share = rng.integers(1, 50, size=n_items) / 50
    vectors = rng.normal(size=(n_items, 4))
    member = rng.random((n_items, 5)) < 0.35
    return top, share, vectors, member


# ----------------------------------------------------------------- per user
def test_hand_values():
    pop = {"a": 0.5, "b": 0.125, "c": 1.0}
    assert novelty_at_k(["a", "b", "c"], 3, popularity=pop) == pytest.approx((1 + 3 + 0) / 3)
    assert novelty_at_k(["a", "b", "c"], 1, popularity=pop) == 1.0
    assert arp_at_k(["a", "b", "c"], 2, popularity=pop) == 0.3125
    genres = {"a": {"drama", "war"}, "b": {"drama"}, "c": "comedy"}
    assert intra_list_diversity_at_k(["a", "b", "c"], 3, categories=genres) == pytest.approx(
        (0.5 + 1 + 1) / 3
    )
    assert intra_list_diversity_at_k(["a"], 5, categories=genres) == 0.0
    assert catalog_coverage([["a", "b"], ["b", "c"]], "abcd", 2) == 0.75
    assert gini_index([["a"], ["a"], ["b"]], "abcd", 1) == pytest.approx(gini_oracle([2, 1, 0, 0]))


def test_item_popularity_counts_users_once():
    log = pd.DataFrame({"user": [1, 1, 1, 2], "item": ["a", "a", "b", "b"]})
    assert item_popularity(log).to_dict() == {"a": 0.5, "b": 1.0}


@pytest.mark.parametrize("seed", [0, 1])
def test_per_user_against_oracles(seed):
    top, share, vectors, member = random_case(seed, n_users=30)
    pop = dict(enumerate(share))
    features = {i: vectors[i].tolist() for i in range(len(share))}
    cats = {i: {c for c in range(member.shape[1]) if member[i, c]} for i in range(len(share))}
    rankings = [[int(i) for i in row if i >= 0] for row in top]
    for ranking in rankings:
        if not ranking:
            continue
        for k in (1, 4, 8):
            head = ranking[:k]
            assert novelty_at_k(ranking, k, popularity=pop) == pytest.approx(
                sum(math.log2(1 / pop[i]) for i in head) / len(head), abs=1e-12
            )
            assert arp_at_k(ranking, k, popularity=pop) == pytest.approx(
                sum(pop[i] for i in head) / len(head)
            )
            assert intra_list_diversity_at_k(ranking, k, features=features) == pytest.approx(
                ild_oracle(head, lambda a, b: cosine_distance(features[a], features[b])), abs=1e-12
            )
            jaccard = lambda a, b: (
                1 - len(cats[a] & cats[b]) / len(cats[a] | cats[b]) if cats[a] | cats[b] else 0.0
            )
            assert intra_list_diversity_at_k(ranking, k, categories=cats) == pytest.approx(
                ild_oracle(head, jaccard), abs=1e-12
            )
    catalog = range(len(share))
    for k in (1, 3, 8):
        counts = [sum(1 for r in rankings if i in r[:k]) for i in catalog]
        assert catalog_coverage(rankings, catalog, k) == pytest.approx(
            sum(c > 0 for c in counts) / len(counts)
        )
        assert gini_index(rankings, catalog, k) == pytest.approx(gini_oracle(counts), abs=1e-12)


# ----------------------------------------------------------------- batch
@pytest.mark.parametrize("seed", [2, 3])
def test_batch_equals_per_user(seed):
    top, share, vectors, member = random_case(seed)
    pop = dict(enumerate(share))
    features = {i: vectors[i] for i in range(len(share))}
    cats = {i: {c for c in range(member.shape[1]) if member[i, c]} for i in range(len(share))}
    ks = [1, 3, 8]
    by_vec = evaluate_beyond(top, popularity=share, k=ks, item_vectors=vectors)
    by_cat = evaluate_beyond(top, popularity=share, k=ks, item_categories=member)
    for u, row in enumerate(top):
        ranking = [int(i) for i in row if i >= 0]
        for k in ks:
            if ranking:
                assert abs(by_vec.loc[u, f"novelty@{k}"] - novelty_at_k(ranking, k, popularity=pop)) < 1e-12
                assert abs(by_vec.loc[u, f"arp@{k}"] - arp_at_k(ranking, k, popularity=pop)) < 1e-12
                assert (
                    abs(by_vec.loc[u, f"ild@{k}"] - intra_list_diversity_at_k(ranking, k, features=features))
                    < 1e-12
                )
                assert (
                    abs(by_cat.loc[u, f"ild@{k}"] - intra_list_diversity_at_k(ranking, k, categories=cats))
                    < 1e-12
                )
            else:
                assert np.isnan(by_vec.loc[u, f"novelty@{k}"]) and by_vec.loc[u, f"ild@{k}"] == 0
    rankings = [[int(i) for i in row if i >= 0] for row in top]
    for k in ks:
        assert coverage_batch(top, len(share), k=k) == pytest.approx(
            catalog_coverage(rankings, range(len(share)), k)
        )
        assert abs(gini_batch(top, len(share), k=k) - gini_index(rankings, range(len(share)), k)) < 1e-12


def test_gini_extremes():
    n = 10
    equal = np.arange(n).reshape(-1, 1)
    assert gini_batch(equal, n) == pytest.approx(0.0)
    one = np.zeros((50, 1), dtype=int)
    assert gini_batch(one, n) == pytest.approx(1 - 1 / n)
    assert gini_batch(one, n, denominator="n_minus_1") == pytest.approx(1.0)
    assert gini_batch(equal, n, denominator="n_minus_1") == pytest.approx(0.0)


@pytest.mark.parametrize("seed", range(5))
def test_gini_denominators_match_their_papers(seed):
    rng = np.random.default_rng(seed)
    n_items, k = int(rng.integers(2, 30)), int(rng.integers(1, 6))
    rankings = [list(rng.choice(n_items, size=k, replace=False)) for _ in range(int(rng.integers(1, 40)))]
    counts = np.bincount(np.concatenate(rankings), minlength=n_items)
    catalog = range(n_items)
    assert gini_index(rankings, catalog, k) == pytest.approx(gini_oracle(counts), abs=1e-12)
    shani = gini_index(rankings, catalog, k, denominator="n_minus_1")
    assert shani == pytest.approx(gini_shani_oracle(counts), abs=1e-12)
    assert shani == pytest.approx(gini_oracle(counts) * n_items / (n_items - 1), abs=1e-12)
    assert gini_of_counts(counts, denominator="n_minus_1") == shani
    assert gini_batch(np.array(rankings), n_items, denominator="n_minus_1") == pytest.approx(shani, abs=1e-12)


def test_gini_default_is_the_registry_default_and_stays_n():
    from topkeval._registry import BEYOND_OPTIONS

    assert BEYOND_OPTIONS["gini_denominator"].default == "n"
    assert gini_of_counts([0, 0, 0, 8]) == 0.75  # 1 - 1/n, not 1
    with pytest.raises(ValueError, match="denominator must be one of 'n', 'n_minus_1'; got 'n-1'"):
        gini_of_counts([1, 2], denominator="n-1")
    with pytest.raises(ValueError, match="n - 1, which is 0"):
        gini_of_counts([3], denominator="n_minus_1")
    assert gini_of_counts([3]) == 0.0


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: novelty_at_k(["a"], 1, popularity={}), "no popularity share"),
        (lambda: novelty_at_k(["a"], 1, popularity={"a": 0.0}), "in \\(0, 1\\]"),
        (lambda: novelty_at_k([], 1, popularity={}), "empty"),
        (lambda: intra_list_diversity_at_k(["a", "b"], 2), "exactly one"),
        (lambda: intra_list_diversity_at_k(["a", "b"], 2, features={"a": [0, 0], "b": [1, 0]}), "zero"),
        (lambda: catalog_coverage([["z"]], "ab", 1), "not in the catalog"),
        (lambda: gini_index([[]], "ab", 1), "undefined"),
        (lambda: coverage_batch(np.array([[5]]), 3), "below n_items"),
        (lambda: evaluate_beyond(np.array([[0]]), popularity=[0.0]), "popularity share"),
        (
            lambda: evaluate_beyond(np.array([[0]]), popularity=[0.5], item_vectors=np.ones((2, 2))),
            "one row per item",
        ),
    ],
)
def test_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_registry_entries_name_real_functions():
    import topkeval.beyond as module

    for metric in BEYOND_METRICS.values():
        assert callable(getattr(module, metric.function))
