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


def _categories(member):
    """Item -> the set of categories its row of the membership matrix marks."""
    return {i: {c for c in range(member.shape[1]) if member[i, c]} for i in range(member.shape[0])}


def _rankings(top):
    """The rows of a padded top-K array as lists, empty slots (-1) dropped."""
    return [[int(i) for i in row if i >= 0] for row in top]


def _counts(rankings, catalog, k):
    """How many rankings hold each catalog item in their top k."""
    return [sum(1 for r in rankings if i in r[:k]) for i in catalog]


def _assert_one_list_against_oracles(ranking, k, pop, features, cats):
    head = ranking[:k]
    assert novelty_at_k(ranking, k, popularity=pop) == pytest.approx(
        sum(math.log2(1 / pop[i]) for i in head) / len(head), abs=1e-12
    )
    assert arp_at_k(ranking, k, popularity=pop) == pytest.approx(sum(pop[i] for i in head) / len(head))
    assert intra_list_diversity_at_k(ranking, k, features=features) == pytest.approx(
        ild_oracle(head, lambda a, b: cosine_distance(features[a], features[b])), abs=1e-12
    )
    jaccard = lambda a, b: 1 - len(cats[a] & cats[b]) / len(cats[a] | cats[b]) if cats[a] | cats[b] else 0.0
    assert intra_list_diversity_at_k(ranking, k, categories=cats) == pytest.approx(
        ild_oracle(head, jaccard), abs=1e-12
    )


@pytest.mark.parametrize("seed", [0, 1])
def test_per_user_against_oracles(seed):
    top, share, vectors, member = random_case(seed, n_users=30)
    pop = dict(enumerate(share))
    features = {i: vectors[i].tolist() for i in range(len(share))}
    cats = _categories(member)
    rankings = _rankings(top)
    for ranking in (r for r in rankings if r):
        for k in (1, 4, 8):
            _assert_one_list_against_oracles(ranking, k, pop, features, cats)
    catalog = range(len(share))
    for k in (1, 3, 8):
        counts = _counts(rankings, catalog, k)
        assert catalog_coverage(rankings, catalog, k) == pytest.approx(
            sum(c > 0 for c in counts) / len(counts)
        )
        assert gini_index(rankings, catalog, k) == pytest.approx(gini_oracle(counts), abs=1e-12)


# ----------------------------------------------------------------- batch
def _assert_batch_row_equals_per_user(vec_row, cat_row, ranking, k, pop, features, cats):
    if not ranking:
        assert np.isnan(vec_row[f"novelty@{k}"]) and vec_row[f"ild@{k}"] == 0
        return
    assert abs(vec_row[f"novelty@{k}"] - novelty_at_k(ranking, k, popularity=pop)) < 1e-12
    assert abs(vec_row[f"arp@{k}"] - arp_at_k(ranking, k, popularity=pop)) < 1e-12
    assert abs(vec_row[f"ild@{k}"] - intra_list_diversity_at_k(ranking, k, features=features)) < 1e-12
    assert abs(cat_row[f"ild@{k}"] - intra_list_diversity_at_k(ranking, k, categories=cats)) < 1e-12


@pytest.mark.parametrize("seed", [2, 3])
def test_batch_equals_per_user(seed):
    top, share, vectors, member = random_case(seed)
    pop = dict(enumerate(share))
    features = {i: vectors[i] for i in range(len(share))}
    cats = _categories(member)
    ks = [1, 3, 8]
    by_vec = evaluate_beyond(top, popularity=share, k=ks, item_vectors=vectors)
    by_cat = evaluate_beyond(top, popularity=share, k=ks, item_categories=member)
    rankings = _rankings(top)
    for u, ranking in enumerate(rankings):
        for k in ks:
            _assert_batch_row_equals_per_user(by_vec.loc[u], by_cat.loc[u], ranking, k, pop, features, cats)
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


# ----------------------------------------------------------------- exposure (Singh and Joachims, KDD 2018)
from topkeval.beyond import (  # noqa: E402
    calibration_by_user,
    calibration_kl_at_k,
    exposure_disparity,
    exposure_gini,
    group_exposure,
    item_exposure,
    mean_calibration_kl,
)

#: The browsing models written out independently of the library (rank is 1-based).
WEIGHT = {
    "log2": lambda rank, p: 1.0 / math.log(rank + 1, 2),
    "rbp": lambda rank, p: p ** (rank - 1),
    "uniform": lambda rank, p: 1.0,
}


def exposure_oracle(rankings, catalog, k, weighting="log2", p=0.8):
    """Loop over users and slots, add the slot's weight to its item."""
    total = {item: 0.0 for item in catalog}
    for ranking in rankings:
        for rank in range(1, min(k, len(ranking)) + 1):
            total[ranking[rank - 1]] += WEIGHT[weighting](rank, p)
    return total


def disparity_oracle(rankings, catalog, k, groups, merit=None, weighting="log2", p=0.8):
    """Total variation distance between group exposure shares and group target shares, by loops."""
    exposure = exposure_oracle(rankings, catalog, k, weighting, p)
    names = sorted({groups[i] for i in catalog}, key=str)
    shown = {g: sum(v for i, v in exposure.items() if groups[i] == g) for g in names}
    worth = {
        g: sum(1.0 if merit is None else merit.get(i, 0.0) for i in catalog if groups[i] == g) for g in names
    }
    return sum(abs(shown[g] / sum(shown.values()) - worth[g] / sum(worth.values())) for g in names) / 2


def _random_lists(rng, n_users, n_items, k):
    return [list(rng.permutation(n_items)[: rng.integers(0, k + 1)]) for _ in range(n_users)]


@pytest.mark.parametrize("weighting", ["log2", "rbp", "uniform"])
def test_item_exposure_matches_the_loop_oracle(weighting):
    rng = np.random.default_rng(7)
    for _ in range(20):
        lists = _random_lists(rng, 15, 12, 6)
        k, p = int(rng.integers(1, 8)), float(rng.uniform(0.1, 0.95))
        got = item_exposure(lists, range(12), k, weighting=weighting, p=p)
        want = exposure_oracle(lists, range(12), k, weighting, p)
        assert list(got.index) == list(range(12))
        assert got.to_dict() == pytest.approx(want, abs=1e-12)
        assert all(type(v) is float for v in got.to_dict().values())


def test_exposure_by_hand_and_slot_one_against_slot_ten():
    # a at rank 1 for two users, b and c at rank 2 once each: 1 + 1 and 1/log2(3) = 0.6309
    got = item_exposure([["a", "b"], ["a", "c"]], "abcd", 2)
    assert got.to_dict() == pytest.approx({"a": 2.0, "b": 0.63092975, "c": 0.63092975, "d": 0.0})
    # the same ten items, each recommended to every user, one always first and one always last
    lists = [list("abcdefghij")] * 5
    assert gini_index(lists, "abcdefghij", 10) == 0.0  # equal slot counts
    exposure = item_exposure(lists, "abcdefghij", 10)
    assert exposure["a"] == pytest.approx(5.0) and exposure["j"] == pytest.approx(5 / math.log2(11))
    assert exposure_gini(lists, "abcdefghij", 10) == pytest.approx(gini_oracle(list(exposure)))
    assert exposure_gini(lists, "abcdefghij", 10) > 0.1
    # exposure is not the count: a known-wrong "count" answer differs
    assert exposure["j"] != 5.0


def test_exposure_gini_oracle_and_uniform_weighting_is_the_count_gini():
    rng = np.random.default_rng(3)
    for _ in range(20):
        lists = [lst for lst in _random_lists(rng, 20, 9, 5) if lst] or [[0]]
        for weighting in ("log2", "rbp"):
            want = gini_oracle(list(exposure_oracle(lists, range(9), 5, weighting, 0.6).values()))
            assert exposure_gini(lists, range(9), 5, weighting=weighting, p=0.6) == pytest.approx(want)
        assert exposure_gini(lists, range(9), 5, weighting="uniform") == pytest.approx(
            gini_index(lists, range(9), 5)
        )
        scaled = exposure_gini(lists, range(9), 5, denominator="n_minus_1")
        assert scaled == pytest.approx(exposure_gini(lists, range(9), 5) * 9 / 8)


def test_group_exposure_by_hand():
    groups = {"a": "head", "b": "tail", "c": "tail", "d": "tail"}
    table = group_exposure([["a", "b"], ["a", "c"]], "abcd", 2, groups=groups)
    tail = 2 / math.log2(3)
    assert list(table.index) == ["head", "tail"]
    assert table["exposure"].tolist() == pytest.approx([2.0, tail])
    assert table["exposure share"].tolist() == pytest.approx([2 / (2 + tail), tail / (2 + tail)])
    assert table["target share"].tolist() == pytest.approx([0.25, 0.75])
    assert table["ratio"].tolist() == pytest.approx([2 / (2 + tail) / 0.25, tail / (2 + tail) / 0.75])
    # merit: only b has held-out interactions, so the tail deserves everything
    merit = {"b": 3}
    table = group_exposure([["a", "b"], ["a", "c"]], "abcd", 2, groups=groups, merit=merit)
    assert table["target share"].tolist() == [0.0, 1.0]
    assert table.loc["head", "ratio"] == math.inf
    assert exposure_disparity(
        [["a", "b"], ["a", "c"]], "abcd", 2, groups=groups, merit=merit
    ) == pytest.approx(2 / (2 + tail))


@pytest.mark.parametrize("weighting", ["log2", "rbp", "uniform"])
def test_exposure_disparity_matches_the_oracle(weighting):
    rng = np.random.default_rng(11)
    for _ in range(25):
        lists = [lst for lst in _random_lists(rng, 12, 10, 5) if lst] or [[0]]
        groups = {i: int(rng.integers(0, 3)) for i in range(10)}
        merit = {i: float(rng.integers(0, 4)) for i in range(10) if rng.random() < 0.8}
        if not any(merit.values()):
            merit = {0: 1.0}
        for given in (None, merit):
            got = exposure_disparity(
                lists, range(10), 5, groups=groups, merit=given, weighting=weighting, p=0.7
            )
            want = disparity_oracle(lists, range(10), 5, groups, given, weighting, 0.7)
            assert got == pytest.approx(want, abs=1e-12)
            assert 0.0 <= got <= 1.0 and type(got) is float


def test_exposure_disparity_is_zero_when_proportional_and_the_gap_with_two_groups():
    # every item in every slot once: equal exposure per item, so proportional to the catalogue share
    lists = [["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"]]
    groups = {"a": "x", "b": "y", "c": "y"}
    assert exposure_disparity(lists, "abc", 3, groups=groups) == pytest.approx(0.0, abs=1e-12)
    # merit proportional to exposure: 0 as well
    exposure = item_exposure([["a", "b"]], "ab", 2)
    assert exposure_disparity(
        [["a", "b"]], "ab", 2, groups={"a": 0, "b": 1}, merit=exposure
    ) == pytest.approx(0.0)
    # two groups: the distance is the gap of one group's share
    table = group_exposure([["a", "b"], ["a", "c"]], "abc", 2, groups=groups)
    gap = abs(table["exposure share"].iloc[0] - table["target share"].iloc[0])
    assert exposure_disparity([["a", "b"], ["a", "c"]], "abc", 2, groups=groups) == pytest.approx(gap)


# ----------------------------------------------------------------- calibration (Steck, RecSys 2018)
def mix_oracle(items, genres, weights):
    names = sorted({g for i in items for g in genres[i]})
    vector = np.zeros(len(names))
    for item, w in zip(items, weights, strict=True):
        for g in genres[item]:
            vector[names.index(g)] += w / len(genres[item])
    return dict(zip(names, vector / vector.sum(), strict=True))


def calibration_oracle(history, ranking, k, genres, alpha=0.01, weighting="uniform", p=0.8):
    history = [i for i in dict.fromkeys(history) if genres[i]]
    shown = [(i, WEIGHT[weighting](r, p)) for r, i in enumerate(ranking[:k], 1) if genres[i]]
    target = mix_oracle(history, genres, [1.0] * len(history))
    mix = mix_oracle([i for i, _ in shown], genres, [w for _, w in shown]) if shown else {}
    return sum(pg * math.log(pg / ((1 - alpha) * mix.get(g, 0.0) + alpha * pg)) for g, pg in target.items())


def test_calibration_70_30_history_against_a_100_0_list_by_hand():
    genres = {**{f"d{i}": {"drama"} for i in range(7)}, **{f"c{i}": {"comedy"} for i in range(3)}}
    history = [f"d{i}" for i in range(7)] + [f"c{i}" for i in range(3)]
    # q = (1, 0); q~ = 0.99 q + 0.01 p = (0.997, 0.003)
    want = 0.7 * math.log(0.7 / 0.997) + 0.3 * math.log(0.3 / 0.003)
    got = calibration_kl_at_k(history, ["d0", "d1", "d2"], 3, genres=genres)
    assert got == pytest.approx(want) and got == pytest.approx(1.1340, abs=1e-4)
    # known-wrong readings give other numbers: the reversed divergence KL(q~ || p), and bits
    assert got != pytest.approx(0.997 * math.log(0.997 / 0.7) + 0.003 * math.log(0.003 / 0.3))
    assert got != pytest.approx(want / math.log(2))
    # the same mix as the history scores 0; a 2/3 vs 1/3 list a little more
    assert 0 < calibration_kl_at_k(history, ["d0", "d1", "c0"], 3, genres=genres) < 0.05
    assert calibration_kl_at_k(history, history, 10, genres=genres) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("weighting", ["uniform", "log2", "rbp"])
def test_calibration_matches_the_oracle(weighting):
    rng = np.random.default_rng(5)
    names = ["drama", "comedy", "horror", "doc"]
    for _ in range(40):
        genres = {i: set(rng.choice(names, size=int(rng.integers(0, 3)), replace=False)) for i in range(15)}
        history = [int(i) for i in rng.choice(15, size=int(rng.integers(1, 10)))]
        if not any(genres[i] for i in history):
            genres[history[0]] = {"drama"}
        ranking = [int(i) for i in rng.permutation(15)[: rng.integers(0, 8)]]
        k, alpha = int(rng.integers(1, 8)), float(rng.choice([0.01, 0.1, 0.5]))
        got = calibration_kl_at_k(history, ranking, k, genres=genres, alpha=alpha, weighting=weighting, p=0.7)
        assert got == pytest.approx(calibration_oracle(history, ranking, k, genres, alpha, weighting, 0.7))
        assert 0.0 <= got <= math.log(1 / alpha) + 1e-12 and type(got) is float


def test_calibration_edge_cases():
    genres = {"a": "drama", "b": {"drama", "comedy"}, "c": "comedy", "d": "comedy", "x": set()}
    # an empty list, or one of genre-less items, shows none of the history: ln(1/alpha)
    assert calibration_kl_at_k(["a", "c"], [], 5, genres=genres) == pytest.approx(math.log(100))
    assert calibration_kl_at_k(["a", "c"], ["x"], 5, genres=genres, alpha=0.1) == pytest.approx(math.log(10))
    # a genre-less item in the history is left out; repeats count once
    assert calibration_kl_at_k(["a", "x", "a"], ["a"], 1, genres=genres) == pytest.approx(0.0)
    # a two-genre item counts half to each genre: b alone matches a 50/50 history
    assert calibration_kl_at_k(["a", "c"], ["b"], 1, genres=genres) == pytest.approx(0.0)
    # alpha just below 1: q~ is almost p, so a list of the wrong genre scores almost 0 (alpha = 1 is refused)
    assert 0 < calibration_kl_at_k(["a"], ["c"], 1, genres=genres, alpha=0.999) < 1e-2
    # rank weighting: the first slot counts more
    flat = calibration_kl_at_k(["a", "c"], ["a", "c", "d"], 3, genres=genres)
    ranked = calibration_kl_at_k(["a", "c"], ["a", "c", "d"], 3, genres=genres, weighting="log2")
    assert ranked < flat


def test_calibration_per_user_and_mean():
    genres = {"a": "drama", "b": "drama", "c": "comedy", "x": ()}
    histories = {1: ["a", "c"], 2: ["c"], 3: ["x"]}
    rankings = {1: ["a", "b"], 2: ["a"], 3: ["a"], 4: ["c"]}
    per_user = calibration_by_user(histories, rankings, 2, genres=genres)
    assert list(per_user.index) == [1, 2, 3, 4]
    assert per_user[1] == pytest.approx(0.5 * math.log(0.5 / 0.995) + 0.5 * math.log(0.5 / 0.005))
    assert per_user[2] == pytest.approx(math.log(100))
    assert math.isnan(per_user[3]) and math.isnan(per_user[4])  # no genre history, no history
    mean = mean_calibration_kl(histories, rankings, 2, genres=genres)
    assert mean == pytest.approx((per_user[1] + per_user[2]) / 2) and type(mean) is float
    rankings_series = pd.Series({1: ["a", "b"], 2: ["a"]})
    assert mean_calibration_kl(histories, rankings_series, 2, genres=genres) == pytest.approx(mean)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: item_exposure([["a"]], "ab", 1, weighting="dcg"), "weighting must be one of"),
        (lambda: item_exposure([["a"]], "ab", 1, weighting="rbp", p=1.5), "p must be in"),
        (lambda: item_exposure([["z"]], "ab", 1), "not in the catalog"),
        (lambda: exposure_gini([[]], "ab", 1), "undefined"),
        (lambda: group_exposure([["a"]], "ab", 1, groups={"a": 0}), "has no group"),
        (lambda: group_exposure([[]], "ab", 1, groups={"a": 0, "b": 1}), "undefined"),
        (lambda: exposure_disparity([["a"]], "ab", 1, groups={"a": 0, "b": 1}, merit={"a": -1}), ">= 0"),
        (lambda: exposure_disparity([["a"]], "ab", 1, groups={"a": 0, "b": 1}, merit={"a": 0}), "merit 0"),
        (lambda: calibration_kl_at_k(["a"], ["a"], 1, genres={"a": "x"}, alpha=0), "alpha must be in"),
        (
            lambda: calibration_kl_at_k(["a"], ["a"], 1, genres={"a": "x"}, alpha=1),
            "alpha must be in \\(0, 1\\)",
        ),
        (lambda: mean_calibration_kl({}, {1: ["a"]}, 1, genres={"a": "x"}, alpha=1.0), "alpha must be in"),
        (
            lambda: exposure_disparity([["a"]], "ab", 1, groups={"a": 0, "b": 1}, merit={"a": 1, "zz": 5}),
            "not in the catalog, e.g. \\['zz'\\]",
        ),
        (
            lambda: group_exposure([["a"]], "ab", 1, groups=dict(a=0, b=1), merit=pd.Series({"a": 1, 7: 2})),
            "reindex\\(catalog",
        ),
        (lambda: calibration_kl_at_k(["a"], ["b"], 1, genres={"a": "x"}), "no entry in genres"),
        (lambda: calibration_kl_at_k(["a"], ["a"], 1, genres={"a": ()}), "p\\(g\\|u\\) is undefined"),
        (lambda: calibration_kl_at_k("ab", ["a"], 1, genres={"a": "x"}), "history must be a collection"),
        (lambda: calibration_kl_at_k(["a"], ["a"], 1, genres={"a": "x"}, weighting="x"), "weighting"),
        (lambda: mean_calibration_kl({}, {1: ["a"]}, 1, genres={"a": "x"}), "no user of rankings"),
    ],
)
def test_exposure_and_calibration_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize(
    "call, match",
    [
        (
            lambda: exposure_disparity([["a"]], ["a", "b"], 1, groups={"a": 0, "b": 1}, merit=[1, 1]),
            "merit must be a mapping item -> merit .* got list.*dict\\(zip\\(catalog, merit\\)\\)",
        ),
        (
            lambda: group_exposure([["a"]], "ab", 1, groups={"a": 0, "b": 1}, merit=np.array([1.0, 2.0])),
            "merit must be a mapping .* got ndarray",
        ),
        (
            lambda: calibration_by_user([["a"]], {0: ["a"]}, 1, genres={"a": "x"}),
            "histories must be a mapping user -> items .* got list",
        ),
        (
            lambda: mean_calibration_kl({0: ["a"]}, [["a"]], 1, genres={"a": "x"}),
            "rankings must be a mapping user -> items .* got list",
        ),
    ],
)
def test_exposure_and_calibration_wrong_container_types(call, match):
    with pytest.raises(TypeError, match=match):
        call()


def test_merit_as_a_series_and_merit_keys_within_the_catalogue():
    lists, groups = [["a", "b"], ["a", "c"]], {"a": "head", "b": "tail", "c": "tail"}
    as_dict = exposure_disparity(lists, "abc", 2, groups=groups, merit={"a": 1, "b": 2})
    as_series = exposure_disparity(lists, "abc", 2, groups=groups, merit=pd.Series({"a": 1, "b": 2}))
    assert as_dict == as_series == pytest.approx(disparity_oracle(lists, "abc", 2, groups, {"a": 1, "b": 2}))


def test_exposure_weights_are_the_dcg_discount_and_rbp_patience():
    from topkeval._cutoff import discounts

    lists = [list(range(10))]
    assert item_exposure(lists, range(10), 10).tolist() == pytest.approx(discounts(10).tolist())
    assert item_exposure(lists, range(10), 10, weighting="rbp", p=0.5).tolist() == pytest.approx(
        [0.5**r for r in range(10)]
    )


def _random_exposure_case(rng):
    """A padded top-K array (None when the width exceeds the catalog), its catalog size and a k."""
    n_users, n_items, width = int(rng.integers(1, 12)), int(rng.integers(3, 15)), int(rng.integers(1, 7))
    top = np.array([rng.permutation(n_items)[:width] for _ in range(n_users)]) if width <= n_items else None
    if top is None:
        return None, n_items, None
    top[rng.random(top.shape) < 0.2] = -1  # empty slots
    return top, n_items, int(rng.integers(1, width + 2))


def _exposure_oracle(top, n_items, k, weighting):
    """Each item's summed weight over the rows' top k; an empty slot still holds its rank."""
    want = np.zeros(n_items)
    for row in top:
        for rank, item in enumerate(row[:k], 1):
            if item >= 0:
                want[item] += WEIGHT[weighting](rank, 0.6)
    return want


@pytest.mark.parametrize("weighting", ["log2", "rbp", "uniform"])
def test_exposure_batch_equals_the_per_list_version(weighting):
    from topkeval.beyond import exposure_batch, exposure_gini_batch

    rng = np.random.default_rng(13)
    for _ in range(20):
        top, n_items, k = _random_exposure_case(rng)
        if top is None:
            continue
        lists = [[int(i) for i in row[:k] if i >= 0] for row in top]
        got = exposure_batch(top, n_items, k=k, weighting=weighting, p=0.6)  # k may exceed K
        want = _exposure_oracle(top, n_items, k, weighting)
        assert got.tolist() == pytest.approx(want.tolist())
        if not (top[:, :k] < 0).any():
            assert got.tolist() == pytest.approx(
                item_exposure(lists, range(n_items), k, weighting=weighting, p=0.6).tolist()
            )
        if want.sum() > 0:
            gini = exposure_gini_batch(top, n_items, k=k, weighting=weighting, p=0.6)
            assert gini == pytest.approx(gini_oracle(want.tolist())) and type(gini) is float
    with pytest.raises(ValueError, match="below n_items"):
        exposure_batch(np.array([[3]]), 2)
    with pytest.raises(ValueError, match="weighting must be one of"):
        exposure_batch(np.array([[0]]), 2, weighting="dcg")
