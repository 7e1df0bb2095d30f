"""helpers.experiments.models: each baseline on tiny data where the right answer is known."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import helpers
from helpers.experiments.data import synthetic_interactions
from helpers.experiments.models import EASE, ItemKNN, MostPopular, PureSVD, RandomRecommender
from topkeval.splits import leave_one_out_split

# users 1-4, items a-e; e is seen by nobody in training
TRAIN = pd.DataFrame(
    {
        "user": [1, 1, 1, 2, 2, 3, 3, 4, 4, 4],
        "item": ["a", "b", "c", "a", "b", "a", "d", "b", "c", "d"],
    }
)
ALL_MODELS = [
    RandomRecommender(seed=1),
    MostPopular(),
    ItemKNN(n_neighbors=None),
    ItemKNN(n_neighbors=1),
    EASE(l2=2.0),
    PureSVD(n_factors=2),
]


def _dense(frame=TRAIN):
    return pd.crosstab(frame["user"], frame["item"]).clip(upper=1).to_numpy(dtype=float)


@pytest.mark.parametrize("model", ALL_MODELS, ids=repr)
def test_recommend_shape_ranks_and_exclusion(model):
    recs = model.fit(TRAIN).recommend(k=3)
    assert list(recs.columns) == ["user", "item", "rank", "score"]
    seen = set(zip(TRAIN["user"], TRAIN["item"], strict=True))
    assert not any((u, i) in seen for u, i in zip(recs["user"], recs["item"], strict=True))
    # user 1 has 3 of 4 catalog items: a one-item list; others get min(k, unseen)
    assert recs.groupby("user").size().to_dict() == {1: 1, 2: 2, 3: 2, 4: 1}
    for _, group in recs.groupby("user"):
        assert group["rank"].tolist() == list(range(1, len(group) + 1))
        assert group["score"].is_monotonic_decreasing
    # deterministic
    assert recs.equals(model.fit(TRAIN).recommend(k=3))


@pytest.mark.parametrize("model", ALL_MODELS, ids=repr)
def test_score_matches_candidates_and_cache(model):
    model.fit(TRAIN)
    full = model.score([2, 4])
    assert full.shape == (2, 4)
    assert np.allclose(full, model._scores(model.user_rows([2, 4])))
    cands = model.score_candidates([2, 4], [["d", "e", "c"], ["a", "a", "zzz"]])
    cols = model.item_columns(["d", "c", "a"])
    assert cands[0, 0] == full[0, cols[0]] and cands[0, 2] == full[0, cols[1]]
    assert cands[1, 0] == cands[1, 1] == full[1, cols[2]]
    assert np.isneginf(cands[0, 1]) and np.isneginf(cands[1, 2])  # e and zzz were never seen


def test_most_popular_counts_users_and_breaks_ties_by_item():
    model = MostPopular().fit(pd.concat([TRAIN, TRAIN.iloc[[0]]]))  # a repeated row counts once
    assert model.popularity_.tolist() == [3.0, 3.0, 2.0, 2.0]
    recs = model.recommend([3], k=2)
    assert recs["item"].tolist() == ["b", "c"]  # b: 3 users; c and d tie at 2, d is seen
    assert model.recommend([3], k=3, exclude_seen=False)["item"].tolist() == ["a", "b", "c"]


def test_itemknn_cosine_and_pruning():
    X = _dense()
    counts = X.T @ X
    norms = np.sqrt(np.diag(counts))
    expected = counts / np.outer(norms, norms)
    np.fill_diagonal(expected, 0)
    model = ItemKNN(n_neighbors=None).fit(TRAIN)
    assert np.allclose(model.similarity_, expected)
    assert np.allclose(model.score([3]), X[2] @ expected)
    # sim(a, b) = 2 / sqrt(3 * 3)
    assert model.similarity_[0, 1] == pytest.approx(2 / 3)
    pruned = ItemKNN(n_neighbors=1).fit(TRAIN).similarity_
    assert ((pruned > 0).sum(axis=0) == 1).all()
    assert np.allclose(pruned.max(axis=0), expected.max(axis=0))


def test_ease_matches_a_direct_constrained_solve():
    X = _dense()
    lam = 2.0
    model = EASE(l2=lam).fit(TRAIN)
    n = X.shape[1]
    direct = np.zeros((n, n))
    for j in range(n):
        others = [i for i in range(n) if i != j]
        A = X[:, others]
        # minimise ||x_j - A b||^2 + lam ||b||^2 with b_j = 0
        direct[others, j] = np.linalg.solve(A.T @ A + lam * np.eye(n - 1), A.T @ X[:, j])
    assert np.allclose(model.weights_, direct)
    assert np.allclose(np.diag(model.weights_), 0)
    assert np.allclose(model.score([1, 2, 3, 4]), X @ direct)


def test_puresvd_projects_on_top_singular_vectors():
    X = _dense()
    model = PureSVD(n_factors=2).fit(TRAIN)
    _, _, vt = np.linalg.svd(X)
    projector = vt[:2].T @ vt[:2]
    assert np.allclose(model.score([1, 2, 3, 4]), X @ projector)
    full = PureSVD(n_factors=4).fit(TRAIN)
    assert np.allclose(full.score([1, 2, 3, 4]), X)  # all factors reproduce X


def test_random_is_seeded():
    a = RandomRecommender(seed=3).fit(TRAIN).score([1, 2])
    b = RandomRecommender(seed=3).fit(TRAIN).score([1, 2])
    c = RandomRecommender(seed=4).fit(TRAIN).score([1, 2])
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert ((a >= 0) & (a < 1)).all()


def test_models_rank_sensibly_on_synthetic_data():
    log = synthetic_interactions(n_users=400, n_items=200, taste_strength=3.0, seed=0)
    train, test = leave_one_out_split(log)
    ndcg = {}
    for model in (RandomRecommender(seed=0), MostPopular(), ItemKNN(50), EASE(50.0), PureSVD(16)):
        recs = model.fit(train).recommend(test["user"], k=10)
        ndcg[type(model).__name__] = float(helpers.evaluate(recs, test, k=10)["ndcg@10"].mean())
    assert ndcg["RandomRecommender"] < 0.05 < ndcg["MostPopular"]
    for personal in ("ItemKNN", "EASE", "PureSVD"):
        assert ndcg[personal] > ndcg["MostPopular"] + 0.05


def test_recommend_output_feeds_evaluate_with_known_values():
    recs = MostPopular().fit(TRAIN).recommend([2, 3], k=2)
    truth = pd.DataFrame({"user": [2, 3], "item": ["d", "c"]})
    scores = helpers.evaluate(recs, truth, k=2, metrics=["hit", "rr"])
    # user 2: unseen c, d tie at 2 users -> c, d; user 3: b, c
    assert scores.loc[2].tolist() == [1.0, 0.5]
    assert scores.loc[3].tolist() == [1.0, 0.5]


def test_errors():
    with pytest.raises(RuntimeError, match="not fitted"):
        MostPopular().recommend(k=3)
    model = MostPopular().fit(TRAIN)
    with pytest.raises(ValueError, match=r"1 user\(s\) were not in the training data \(e.g. 99\)"):
        model.recommend([1, 99], k=2)
    with pytest.raises(ValueError, match="one row per user"):
        model.score_candidates([1, 2], [["a"]])
    with pytest.raises(ValueError, match="train is empty"):
        MostPopular().fit(TRAIN.iloc[:0])
    with pytest.raises(ValueError, match="missing"):
        MostPopular().fit(TRAIN.assign(item=["a", None] + ["b"] * 8))
    with pytest.raises(ValueError, match="l2 must be a number > 0"):
        EASE(l2=0)
    with pytest.raises(ValueError, match="n_factors=9 is more than"):
        PureSVD(n_factors=9).fit(TRAIN)
    with pytest.raises(ValueError):
        ItemKNN(n_neighbors=0)
    with pytest.raises(TypeError):
        model.recommend(k=2.0)
    assert repr(EASE(l2=3)) == "EASE(l2=3.0)"
