"""ERR and RBP: hand-computed values, slow oracles, and the batch path equal to the per-user functions."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import topkeval
from topkeval import evaluate_arrays
from topkeval.user_models import err_at_k, rbp_at_k, rbp_residual_at_k


# ----------------------------------------------------------------- oracles
def err_oracle(ranking, grades, k, g_max):
    """ERR as the expectation over the stopping rank, each P(stop at r) written out in full.

    Chapelle et al. (CIKM 2009), eq. 3 and algorithm 2: R_i = (2**g_i - 1) / 2**g_max with g_max the top
    of the grading scale, P(stop at r) = R_r * prod_{i<r} (1 - R_i), ERR = sum_r P(stop at r) / r.
    """
    if not grades or max(grades.values()) == 0:
        return 0.0
    stop = [(2 ** grades.get(item, 0) - 1) / 2**g_max for item in ranking[:k]]
    return sum(
        (1 / r) * stop[r - 1] * math.prod(1 - stop[j] for j in range(r - 1)) for r in range(1, len(stop) + 1)
    )


def rbp_residual_oracle(ranking, judgments, k, p):
    """Moffat and Zobel (TOIS 2008): the weight (1 - p) p**(i-1) of every rank whose relevance
    is unknown, i.e. unjudged ranks i <= k, plus every rank beyond k (their sum, written out to
    depth 2000)."""
    inside = sum(
        (1 - p) * p ** (i - 1) for i, item in enumerate(ranking[:k], start=1) if item not in judgments
    )
    beyond = sum((1 - p) * p ** (i - 1) for i in range(k + 1, 2001))
    return inside + beyond


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
    assert err_at_k(["a", "b", "c"], {"a": 0.5}, 3) == pytest.approx((2**0.5 - 1) / 2)  # g_max = 1
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
            binary = {i: min(g, 1) for i, g in grades.items()}
            assert err_at_k(ranking, binary, k) == pytest.approx(err_oracle(ranking, binary, k, 1), abs=1e-12)
            assert err_at_k(ranking, grades, k, max_grade=4) == pytest.approx(
                err_oracle(ranking, grades, k, 4), abs=1e-12
            )
            relevant = {i for i, g in grades.items() if g > 0}
            assert rbp_at_k(ranking, grades, k, p=0.7) == pytest.approx(
                rbp_oracle(ranking, relevant, k, 0.7), abs=1e-12
            )
            # a mapping is a set of judgments: items absent from it are unjudged
            assert rbp_residual_at_k(ranking, grades, k, p=0.7) == pytest.approx(
                rbp_residual_oracle(ranking, grades, k, 0.7), abs=1e-12
            )
            # a set of relevant items: every other item is judged not relevant, only the tail is unknown
            assert rbp_residual_at_k(ranking, relevant, k, p=0.7) == pytest.approx(
                rbp_residual_oracle(ranking, set(ranking), k, 0.7), abs=1e-12
            )


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: err_at_k(["a"], {"a": 3}, 1, max_grade=2), ValueError, "above max_grade"),
        (lambda: err_at_k(["a"], {"a": 2}, 1), ValueError, r"grade is 2, so ERR needs .* pass max_grade="),
        (lambda: err_at_k(["a"], {"b": 1.5}, 1), ValueError, "pass max_grade="),  # any grade, listed or not
        (lambda: rbp_residual_at_k(["a"], {"a"}, 1, p=0.0), ValueError, r"p must be in \(0, 1\)"),
        (lambda: rbp_residual_at_k(["a"], "a", 1), TypeError, "not a single string"),
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
def _assert_row_equals_the_oracles(row, ranking, relevance, k, g_max):
    relevant = {i for i, g in relevance.items() if g > 0}
    assert abs(row[f"err@{k}"] - err_oracle(ranking, relevance, k, g_max)) < 1e-12
    assert abs(row[f"rbp@{k}"] - rbp_oracle(ranking, relevant, k, 0.6)) < 1e-12
    # graded CSR entries are judgments (grade 0 = judged not relevant); other items are unjudged
    want = rbp_residual_oracle(ranking, relevance, k, 0.6)
    assert abs(row[f"rbp_residual@{k}"] - want) < 1e-12


@pytest.mark.parametrize("seed", [3, 4])
@pytest.mark.parametrize("max_grade", [None, 4, 6])
def test_batch_equals_the_oracles(seed, max_grade):
    users = random_users(seed)
    top, indptr, items, grades = to_arrays(users)
    ks = [1, 2, 5, 11, 20]
    frame = evaluate_arrays(
        top,
        indptr,
        items,
        k=ks,
        metrics=["err", "rbp", "rbp_residual"],
        relevant_grades=grades,
        max_grade=max_grade,
        p=0.6,
        empty="zero",
    )
    assert list(frame.columns) == [f"{m}@{k}" for k in ks for m in ("err", "rbp", "rbp_residual")]
    # without max_grade: the largest grade of the whole truth, the same for every user
    g_max = max_grade if max_grade is not None else max(g for _, rel in users for g in rel.values())
    assert frame.attrs["err_max_grade"] == g_max
    for u, (ranking, relevance) in enumerate(users):
        for k in ks:
            _assert_row_equals_the_oracles(frame.loc[u], ranking, relevance, k, g_max)


def test_err_scale_is_the_scale_not_the_user():
    """One grade-1 item at rank 1 is worth the same to every user of one truth (Chapelle et al.)."""
    recs = pd.DataFrame({"user": ["low", "high"], "item": ["a", "b"], "rank": [1, 1]})
    truth = pd.DataFrame({"user": ["low", "high", "high"], "item": ["a", "b", "c"], "relevance": [1, 1, 3]})
    got = topkeval.evaluate(recs, truth, k=1, metrics=["err"])
    assert got.attrs["err_max_grade"] == 3.0
    assert got.loc["low", "err@1"] == got.loc["high", "err@1"] == pytest.approx(1 / 8)
    with pytest.raises(ValueError, match="pass max_grade="):  # per user: the scale must be named
        err_at_k(["b"], {"b": 1, "c": 3}, 1)
    assert err_at_k(["b"], {"b": 1, "c": 3}, 1, max_grade=3) == pytest.approx(1 / 8)
    explicit = topkeval.evaluate(recs, truth, k=1, metrics=["err"], max_grade=4)
    assert explicit.attrs["err_max_grade"] == 4.0 and explicit["err@1"].tolist() == [1 / 16, 1 / 16]
    binary = topkeval.evaluate(recs, truth.drop(columns="relevance"), k=1, metrics=["err"])
    assert binary.attrs["err_max_grade"] == 1.0 and binary["err@1"].tolist() == [0.5, 0.5]
    assert "err_max_grade" not in topkeval.evaluate(recs, truth, k=1, metrics=["rbp"]).attrs


def test_err_on_one_binary_list_with_gdevals_scale():
    """The list of issue's example: g_max = 1 gives 0.5833, gdeval's g_max = 4 gives 0.0820 (ir_measures)."""
    ranking, relevant = ["a", "b", "c"], {"a", "c"}
    assert err_at_k(ranking, relevant, 3) == pytest.approx(0.5 + 0.5 * 0.5 / 3)
    assert round(err_at_k(ranking, relevant, 3, max_grade=4), 4) == 0.0820
    assert round(err_oracle(ranking, dict.fromkeys(relevant, 1), 3, 4), 5) == 0.08203


def test_rbp_residual_hand_values_and_bounds():
    p, k = 0.8, 10
    assert rbp_residual_at_k(list("abcdefghij"), {"a"}, k, p=p) == pytest.approx(p**10)  # about 0.107
    # "base + residual" brackets the RBP of any continuation of the list
    ranking, judgments = list("abcdefghij"), {"a": 1, "c": 1, "d": 0}
    base = rbp_at_k(ranking, judgments, k, p=p)
    residual = rbp_residual_at_k(ranking, judgments, k, p=p)
    best = rbp_at_k(ranking + list("KLMNOPQRST") * 1, set(ranking) - {"d"} | set("KLMNOPQRST"), 20, p=p)
    assert base <= best <= base + residual + 1e-12
    # a short list: the empty positions 3..k hold nothing, the ranks beyond k still count
    assert rbp_residual_at_k(["a", "b"], {"a": 1}, 5, p=0.5) == pytest.approx(0.5**5 + 0.5 * 0.5)
    assert rbp_residual_at_k([], {"a": 1}, 3, p=0.5) == pytest.approx(0.125)
    assert isinstance(rbp_residual_at_k(["a"], {"a"}, 1), float)


def test_rbp_residual_batch_column():
    recs = pd.DataFrame(
        {"user": ["u"] * 3 + ["v"] * 2, "item": ["a", "b", "c", "a", "d"], "rank": [1, 2, 3, 1, 2]}
    )
    truth = pd.DataFrame(
        {"user": ["u", "u", "v", "w"], "item": ["a", "c", "d", "a"], "relevance": [1, 0, 3, 0]}
    )
    got = topkeval.evaluate(recs, truth, k=3, metrics=["rbp", "rbp_residual"], p=0.5, empty="zero")
    assert got["rbp_residual@3"].to_dict() == {
        "u": pytest.approx(0.125 + 0.5 * 0.5),  # b unjudged at rank 2
        "v": pytest.approx(0.125 + 0.5),  # a unjudged at rank 1
        "w": pytest.approx(0.125),  # no list, no relevant item: empty="zero" keeps its residual
    }
    assert got.loc["w", "rbp@3"] == 0.0
    skipped = topkeval.evaluate(recs, truth, k=3, metrics=["rbp_residual"], p=0.5, empty="skip")
    assert list(skipped.index) == ["u", "v"]
    # no relevance column: the truth lists the relevant items, everything else is judged not relevant
    plain = topkeval.evaluate(recs, truth.drop(columns="relevance"), k=3, metrics=["rbp_residual"], p=0.5)
    assert plain["rbp_residual@3"].tolist() == [0.125] * 3
    # sparse ids (renumbered internally): judged-but-not-relevant ids are kept
    big = 10**9
    arrays = evaluate_arrays(
        np.array([[big, 7, 3]]), [0, 2], [3, big + 5], relevant_grades=[1, 0], metrics=["rbp_residual"], p=0.5
    )
    assert arrays.loc[0, "rbp_residual@3"] == pytest.approx(0.125 + 0.5 + 0.25)  # big and 7 unjudged


def test_batch_binary_default_and_dataframes():
    users = random_users(5, graded=False)
    top, indptr, items, _ = to_arrays(users)
    frame = evaluate_arrays(top, indptr, items, k=5, metrics=["err", "rbp"], p=0.9, empty="zero")
    for u, (ranking, relevance) in enumerate(users):
        assert abs(frame.loc[u, "err@5"] - err_at_k(ranking, set(relevance), 5)) < 1e-12
        assert abs(frame.loc[u, "rbp@5"] - rbp_at_k(ranking, set(relevance), 5, p=0.9)) < 1e-12

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
    for key in ("err", "rbp", "rbp_residual"):
        metric = topkeval.METRICS[key]
        assert getattr(topkeval, metric.function) is getattr(topkeval.user_models, metric.function)
        assert not metric.by_default
    plain = evaluate_arrays(np.array([[0, 1]]), [0, 1], [0], k=2)
    assert not any(c.startswith(("err", "rbp")) for c in plain.columns)
    assert topkeval.METRICS["rbp_residual"].no_relevant.startswith("p**k")
