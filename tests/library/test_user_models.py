"""ERR and RBP: hand-computed values, slow oracles, and the batch path equal to the per-user functions."""

from __future__ import annotations

import math

import numpy as np
import pytest

import topkeval
from topkeval import evaluate_arrays
from topkeval.user_models import err_at_k, rbp_at_k


# ----------------------------------------------------------------- oracles
def err_oracle(ranking, grades, k, g_max):
    """ERR as the expectation over the stopping rank, each P(stop at r) written out in full."""
    if not grades or max(grades.values()) == 0:
        return 0.0
    stop = [(2 ** grades.get(item, 0) - 1) / 2**g_max for item in ranking[:k]]
    return sum(
        (1 / r) * stop[r - 1] * math.prod(1 - stop[j] for j in range(r - 1)) for r in range(1, len(stop) + 1)
    )


def rbp_oracle(ranking, relevant, k, p):
    relevance = [1.0 if item in relevant else 0.0 for item in ranking[:k]]
    weights = [(1 - p) * p**i for i in range(len(relevance))]
    return float(np.dot(relevance, weights)) if relevance else 0.0


def random_users(seed, n_users=300, n_items=40, graded=True):
    rng = np.random.default_rng(seed)
    users = []
    for _ in range(n_users):
        length = int(rng.integers(0, 12))
        ranking = rng.choice(n_items, size=length, replace=False).tolist()
        n_rel = int(rng.integers(0, 8))
        rel_items = rng.choice(n_items, size=n_rel, replace=False).tolist()
        grades = {i: int(rng.integers(0, 5)) if graded else 1 for i in rel_items}
        users.append((ranking, grades))
    return users


def to_arrays(users):
    width = max(len(r) for r, _ in users)
    top = np.full((len(users), width), -1, dtype=np.int64)
    indptr, items, grades = [0], [], []
    for u, (ranking, relevance) in enumerate(users):
        top[u, : len(ranking)] = ranking
        for item, grade in sorted(relevance.items()):
            items.append(item)
            grades.append(grade)
        indptr.append(len(items))
    return top, np.array(indptr), np.array(items, dtype=np.int64), np.array(grades, dtype=float)


# ----------------------------------------------------------------- per user
def test_err_hand_values():
    assert err_at_k(["a", "b", "c"], {"a": 1}, 3) == 0.5
    assert err_at_k(["x", "a"], {"a": 1}, 2) == 0.25
    # grades 2 then 1 on a 0-2 scale: R = 3/4, then 1/4 after a 1/4 chance of not stopping
    assert err_at_k(["a", "b"], {"a": 2, "b": 1}, 2, max_grade=2) == pytest.approx(0.75 + 0.5 * 0.25 * 0.25)
    assert err_at_k(["a"], {"a": 1}, 1, max_grade=4) == pytest.approx(1 / 16)
    assert err_at_k(["a", "b"], set(), 2) == 0.0
    assert isinstance(err_at_k(["a"], {"a": 1}, 1), float)


def test_err_stays_below_one_and_saturates():
    # a perfect list on a 0-3 scale: the first item already satisfies with probability 7/8
    perfect = err_at_k(list("abcdef"), dict.fromkeys("abcdef", 3), 6, max_grade=3)
    assert 7 / 8 < perfect < 1
    one = err_at_k(list("abcdef"), {"a": 3}, 6, max_grade=3)
    assert perfect - one < 0.12  # items after a great first one add little


def test_rbp_hand_values():
    assert rbp_at_k(["a", "b", "c"], {"a"}, 3) == pytest.approx(0.2)
    assert rbp_at_k(["a", "b", "c"], {"c"}, 3, p=0.5) == pytest.approx(0.125)
    assert rbp_at_k(["a", "b", "c"], {"c"}, 2, p=0.5) == 0.0
    assert rbp_at_k(list("abcd"), set("abcd"), 4, p=0.5) == pytest.approx(1 - 0.5**4)
    assert isinstance(rbp_at_k(["a"], {"a"}, 1), float)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_per_user_functions_match_the_oracles(seed):
    for ranking, grades in random_users(seed, n_users=100):
        for k in (1, 3, 10):
            top = max(grades.values(), default=0)
            assert err_at_k(ranking, grades, k) == pytest.approx(
                err_oracle(ranking, grades, k, top), abs=1e-12
            )
            assert err_at_k(ranking, grades, k, max_grade=4) == pytest.approx(
                err_oracle(ranking, grades, k, 4), abs=1e-12
            )
            relevant = {i for i, g in grades.items() if g > 0}
            assert rbp_at_k(ranking, grades, k, p=0.7) == pytest.approx(
                rbp_oracle(ranking, relevant, k, 0.7), abs=1e-12
            )


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: err_at_k(["a"], {"a": 3}, 1, max_grade=2), ValueError, "above max_grade"),
        (lambda: err_at_k(["a"], {"a": 1}, 1, max_grade=0), ValueError, r"max_grade must be in \(0, inf\)"),
        (lambda: err_at_k(["a"], {"a": 1}, 1, max_grade="5"), TypeError, "max_grade must be a number"),
        (lambda: err_at_k(["a", "a"], {"a": 1}, 1), ValueError, "duplicates"),
        (lambda: err_at_k(["a"], {"a": -1}, 1), ValueError, ">= 0"),
        (lambda: err_at_k(["a"], {"a": 1}, 0), ValueError, "k must be"),
        (lambda: rbp_at_k(["a"], {"a"}, 1, p=1.0), ValueError, r"p must be in \(0, 1\)"),
        (lambda: rbp_at_k(["a"], {"a"}, 1, p=True), TypeError, "p must be a number"),
        (lambda: rbp_at_k({"a"}, {"a"}, 1), TypeError, "ordered sequence"),
    ],
)
def test_bad_inputs_raise_clear_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ----------------------------------------------------------------- batch (the registry's kernels)
@pytest.mark.parametrize("seed", [3, 4])
@pytest.mark.parametrize("max_grade", [None, 4])
def test_batch_equals_per_user(seed, max_grade):
    users = random_users(seed)
    top, indptr, items, grades = to_arrays(users)
    ks = [1, 2, 5, 11, 20]
    frame = evaluate_arrays(
        top,
        indptr,
        items,
        k=ks,
        metrics=["err", "rbp"],
        relevant_grades=grades,
        max_grade=max_grade,
        p=0.6,
        empty="zero",
    )
    assert list(frame.columns) == [f"{m}@{k}" for k in ks for m in ("err", "rbp")]
    for u, (ranking, relevance) in enumerate(users):
        for k in ks:
            assert (
                abs(frame.loc[u, f"err@{k}"] - err_at_k(ranking, relevance, k, max_grade=max_grade)) < 1e-12
            )
            assert abs(frame.loc[u, f"rbp@{k}"] - rbp_at_k(ranking, relevance, k, p=0.6)) < 1e-12


def test_batch_binary_default_and_dataframes():
    users = random_users(5, graded=False)
    top, indptr, items, _ = to_arrays(users)
    frame = evaluate_arrays(top, indptr, items, k=5, metrics=["err", "rbp"], p=0.9, empty="zero")
    for u, (ranking, relevance) in enumerate(users):
        assert abs(frame.loc[u, "err@5"] - err_at_k(ranking, set(relevance), 5)) < 1e-12
        assert abs(frame.loc[u, "rbp@5"] - rbp_at_k(ranking, set(relevance), 5, p=0.9)) < 1e-12
    import pandas as pd

    recs = pd.DataFrame({"user": ["u"] * 3, "item": ["a", "b", "c"], "rank": [1, 2, 3]})
    truth = pd.DataFrame({"user": ["u", "u"], "item": ["b", "c"], "relevance": [2, 1]})
    got = topkeval.evaluate(recs, truth, k=3, metrics=["err", "rbp"], max_grade=2, p=0.5)
    assert got.loc["u", "err@3"] == pytest.approx(err_at_k(["a", "b", "c"], {"b": 2, "c": 1}, 3, max_grade=2))
    assert got.loc["u", "rbp@3"] == pytest.approx(rbp_at_k(["a", "b", "c"], {"b", "c"}, 3, p=0.5))


def test_batch_checks_its_inputs():
    top = np.array([[0, 1]])
    with pytest.raises(ValueError, match="above max_grade"):
        evaluate_arrays(top, [0, 1], [0], relevant_grades=[5.0], metrics=["err"], max_grade=4)
    with pytest.raises(ValueError, match=r"p must be in \(0, 1\)"):
        evaluate_arrays(top, [0, 1], [0], metrics=["rbp"], p=1.5)


def test_err_and_rbp_are_registry_metrics_computed_on_request():
    for key in ("err", "rbp"):
        metric = topkeval.METRICS[key]
        assert getattr(topkeval, metric.function) is getattr(topkeval.user_models, metric.function)
        assert not metric.by_default
    plain = evaluate_arrays(np.array([[0, 1]]), [0, 1], [0], k=2)
    assert not any(c.startswith(("err", "rbp")) for c in plain.columns)
