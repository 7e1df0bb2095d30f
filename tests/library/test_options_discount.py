"""The ``discount`` option: 1/log2(i + 1) or LensKit's clipped 1/log2(max(i, 2))."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import topkeval
from topkeval import _registry, dcg_at_k, dcg_table, evaluate, evaluate_arrays, idcg_at_k, ndcg_at_k
from topkeval.conventions import used_by


def test_registered_with_choices_and_users():
    option = _registry.OPTIONS["discount"]
    assert option.default == "log2"
    assert option.values == ("log2", "clipped_log2")
    assert "LensKit" in used_by(option.choices[1])
    assert "discount" in _registry.METRICS["ndcg"].options
    assert "clipped_log2" in topkeval.metric_table()


def test_hand_computed_values():
    # case a of metric-definitions.md: hits at ranks 2 and 5, |R| = 3, k = 5
    ranking, relevant = [4, 6, 2, 3, 1, 8, 10, 9, 5, 7], {1, 6, 9}
    dcg = 1 / math.log2(2) + 1 / math.log2(5)  # rank 2 -> log2(2), rank 5 -> log2(5)
    idcg = 1 + 1 + 1 / math.log2(3)
    assert dcg_at_k(ranking, relevant, 5, discount="clipped_log2") == pytest.approx(dcg, abs=1e-15)
    assert idcg_at_k(ranking, relevant, 5, discount="clipped_log2") == pytest.approx(idcg, abs=1e-15)
    assert ndcg_at_k(ranking, relevant, 5, discount="clipped_log2") == pytest.approx(0.5438, abs=5e-5)
    # leave-one-out at rank 3: 1/log2(3) instead of 1/log2(4)
    assert ndcg_at_k(["x", "y", "z"], {"z"}, 5, discount="clipped_log2") == pytest.approx(1 / math.log2(3))
    # ranks 1 and 2 weigh the same: swapping them changes nothing
    assert ndcg_at_k(["b", "a"], {"a"}, 2, discount="clipped_log2") == 1.0
    assert ndcg_at_k(["b", "a"], {"a"}, 2) < 1.0


def test_default_unchanged():
    ranking, grades = list("abcde"), {"a": 2, "b": 3, "c": 3, "d": 1, "e": 2}
    assert ndcg_at_k(ranking, grades, 5) == ndcg_at_k(ranking, grades, 5, discount="log2")
    table = dcg_table(ranking, grades, 3, discount="clipped_log2")
    assert table["discount"].tolist() == [1.0, 1.0, 1 / math.log2(3)]


def test_bad_value_lists_choices():
    with pytest.raises(ValueError, match="'clipped_log2', 'log2'"):
        ndcg_at_k(["a"], {"a"}, 1, discount="ln")
    with pytest.raises(ValueError, match="discount must be one of"):
        evaluate(
            pd.DataFrame({"user": [1], "item": [1], "rank": [1]}),
            pd.DataFrame({"user": [1], "item": [1]}),
            k=1,
            discount="clipped",
        )


@pytest.mark.parametrize("graded", [False, True])
@pytest.mark.parametrize("ideal", ["all", "listed"])
def test_per_user_equals_batch(graded, ideal):
    rng = np.random.default_rng(7 + graded + 2 * (ideal == "all"))
    n_users, n_items, length = 60, 30, 12
    top = np.array([rng.permutation(n_items)[:length] for _ in range(n_users)])
    top[::7, 8:] = -1  # some short lists
    sizes = rng.integers(1, 10, n_users)
    rel = [rng.choice(n_items, size, replace=False) for size in sizes]
    indptr = np.concatenate([[0], np.cumsum(sizes)])
    items = np.concatenate(rel)
    grades = rng.integers(1, 4, items.size).astype(float) if graded else None
    ks = [1, 2, 5, 12, 15]
    frame = evaluate_arrays(
        top,
        indptr,
        items,
        k=ks,
        metrics=["ndcg"],
        relevant_grades=grades,
        ideal=ideal,
        discount="clipped_log2",
    )
    for u in range(n_users):
        ranking = [int(i) for i in top[u] if i >= 0]
        relevance = (
            dict(zip(rel[u].tolist(), grades[indptr[u] : indptr[u + 1]].tolist(), strict=True))
            if graded
            else set(rel[u].tolist())
        )
        for k in ks:
            expected = ndcg_at_k(ranking, relevance, k, ideal=ideal, discount="clipped_log2")
            assert abs(frame.loc[u, f"ndcg@{k}"] - expected) < 1e-12


def test_evaluate_dataframe_path_and_attrs():
    recs = pd.DataFrame({"user": ["u"] * 3, "item": ["a", "b", "c"], "rank": [1, 2, 3]})
    truth = pd.DataFrame({"user": ["u", "u"], "item": ["b", "c"]})
    out = evaluate(recs, truth, k=3, metrics=["ndcg"], discount="clipped_log2")
    expected = (1 + 1 / math.log2(3)) / (1 + 1)
    assert out.loc["u", "ndcg@3"] == pytest.approx(expected, abs=1e-15)
    assert out.attrs["discount"] == "clipped_log2"
