"""Incomplete judgments: bpref, condensed lists (``unjudged="condense"``) and propensity-weighted P and R.

bpref and condensed lists are checked against a naive oracle (tests/library/reference.py), against every
entry point, and against trec_eval itself (pytrec_eval's ``bpref`` and ``judged_docs_only_flag=True``,
trec_eval's ``-J``) on random runs with graded judgments, grade-0 rows, unjudged items and tied scores.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import topkeval as h
from topkeval import batch, trec

from . import reference as ref
from .strategies import user_case
from .test_batch import ALL, expected_frame, to_arrays


def random_judged(seed, n_users=120, n_items=40, max_len=20, ties=False):
    """Score lists (tied scores with ``ties``) and graded judgments: relevant, grade 0, and unjudged items.

    Every user has a relevant item; some users judge no item not relevant, some list no judged item.
    """
    rng = np.random.default_rng(seed)
    recs, truth = [], []
    for u in range(n_users):
        n = int(rng.integers(1, max_len))
        items = rng.choice(n_items, size=n, replace=False)
        scores = rng.integers(0, 4, size=n) if ties else rng.permutation(n)
        recs += [(f"u{u}", f"d{i}", float(s)) for i, s in zip(items, scores, strict=True)]
        judged = rng.choice(n_items, size=int(rng.integers(1, 25)), replace=False)
        share_zero = rng.uniform(0.1, 0.9)  # N below |R| for some users, above it for others
        grades = np.where(rng.random(judged.size) < share_zero, 0, rng.integers(1, 4, size=judged.size))
        if u % 7 == 0:
            grades = np.maximum(grades, 1)  # no judged non-relevant item: N = 0
        grades[0] = max(grades[0], 1)
        truth += [(f"u{u}", f"d{i}", int(g)) for i, g in zip(judged, grades, strict=True)]
    return (
        pd.DataFrame(recs, columns=["user", "item", "score"]),
        pd.DataFrame(truth, columns=["user", "item", "relevance"]),
    )


def ranked_lists(recs):
    """Each user's list as trec_eval orders it: score descending, ties by docno descending."""
    ordered = recs.sort_values(["user", "score", "item"], ascending=[True, False, False])
    return {user: list(group["item"]) for user, group in ordered.groupby("user", sort=False)}


def judgments_of(truth):
    return {user: dict(zip(g["item"], g["relevance"], strict=True)) for user, g in truth.groupby("user")}


# ------------------------------------------------------------------ bpref: known values
def test_bpref_by_hand():
    judgments = {"a": 1, "b": 0, "c": 1, "d": 0, "e": 0, "f": 1}  # R = 3, N = 3
    ranking = ["b", "a", "x", "d", "c", "f"]  # x unjudged
    # a: 1 judged non-relevant above -> 1 - 1/3; c and f: 2 above -> 1 - 2/3 each
    assert h.bpref_at_k(ranking, judgments, k=6) == pytest.approx((2 / 3 + 1 / 3 + 1 / 3) / 3)
    assert h.bpref_at_k(ranking, judgments, k=2) == pytest.approx((2 / 3) / 3)  # only a is in the top 2
    # an unjudged item changes nothing, wherever it is
    assert h.bpref_at_k(["x", "y", "a"], {"a": 1, "b": 0}, k=3) == 1.0
    # a judged non-relevant item above costs it all when R = N = 1
    assert h.bpref_at_k(["b", "a"], {"a": 1, "b": 0}, k=2) == 0.0


def test_bpref_counts_at_most_r_non_relevant_items_and_divides_by_min_r_n():
    judgments = {"a": 1, "c": 1, **{f"n{i}": 0 for i in range(10)}}  # R = 2, N = 10: min(R, N) = 2
    ranking = ["n0", "a", "n1", "n2", "n3", "c"]
    # a: 1 - 1/2; c: 4 non-relevant above, counted as min(4, 2) = 2 -> 0
    assert h.bpref_at_k(ranking, judgments, k=6) == pytest.approx(0.25)
    wrong_without_min = (1 - 1 / 10 + 1 - 4 / 10) / 2  # dividing by N instead: the usual slip
    assert h.bpref_at_k(ranking, judgments, k=6) != pytest.approx(wrong_without_min)
    # N = 0: nothing can be above, so bpref is recall
    assert h.bpref_at_k(["x", "a", "y"], {"a": 2, "c": 1}, k=3) == 0.5


def test_bpref_with_a_set_judges_every_other_item_not_relevant():
    assert h.bpref_at_k(["b", "a", "c"], {"a", "c"}, k=3) == pytest.approx((0.5 + 0.5) / 2)
    assert h.bpref_at_k(["b", "a", "c"], {"a", "c"}, k=3) == float(ref.bpref(["b", "a", "c"], {"a", "c"}, 3))


def test_bpref_without_a_relevant_item_is_0_over_0():
    with pytest.raises(h.NoRelevantItemError, match="bpref_at_k"):
        h.bpref_at_k(["a"], {"a": 0}, k=1)
    with pytest.raises(ValueError):
        h.bpref_at_k(["a"], set(), k=1)


@pytest.mark.parametrize("seed", range(5))
def test_bpref_equals_the_naive_oracle(seed):
    recs, truth = random_judged(seed, n_users=60)
    judgments = judgments_of(truth)
    for user, ranking in ranked_lists(recs).items():
        for k in (1, 3, 10, 30):
            want = ref.bpref(ranking, judgments[user], k)
            assert h.bpref_at_k(ranking, judgments[user], k) == pytest.approx(float(want), abs=1e-12)
            relevant = {i for i, g in judgments[user].items() if g > 0}
            assert h.bpref_at_k(ranking, relevant, k) == pytest.approx(float(ref.bpref(ranking, relevant, k)))


# ------------------------------------------------------------------ every entry point
@pytest.mark.parametrize("relevance", [True, False])
def test_evaluate_bpref_equals_the_per_user_function(relevance):
    recs, truth = random_judged(11, ties=True)
    if not relevance:
        truth = truth.loc[truth["relevance"] > 0, ["user", "item"]]
    got = h.evaluate(recs, truth, k=[1, 5, 40], metrics=["bpref"], ties="item_descending")
    judgments = judgments_of(truth) if relevance else truth.groupby("user")["item"].apply(set).to_dict()
    for user, ranking in ranked_lists(recs).items():
        for k in (1, 5, 40):
            assert got.loc[user, f"bpref@{k}"] == pytest.approx(
                h.bpref_at_k(ranking, judgments[user], k), abs=1e-12
            )


def _arrays(recs, truth):
    """The same data as an integer list matrix and CSR judgments (ids d0..d39 -> 0..39)."""
    lists = ranked_lists(recs)
    users = sorted(lists)
    width = max(len(v) for v in lists.values())
    top = np.full((len(users), width), -1)
    for row, user in enumerate(users):
        top[row, : len(lists[user])] = [int(i[1:]) for i in lists[user]]
    by_user = truth.assign(row=truth["user"].map({u: r for r, u in enumerate(users)})).sort_values("row")
    indptr = np.concatenate([[0], np.cumsum(np.bincount(by_user["row"], minlength=len(users)))])
    items = by_user["item"].str[1:].astype(int).to_numpy()
    return users, top, indptr, items, by_user["relevance"].to_numpy(dtype=float)


@pytest.mark.parametrize("unjudged", ["keep", "condense"])
def test_evaluate_arrays_equals_evaluate(unjudged):
    recs, truth = random_judged(12, ties=True)
    users, top, indptr, items, grades = _arrays(recs, truth)
    metrics = list(h.METRICS)
    want = h.evaluate(recs, truth, k=[3, 10], metrics=metrics, ties="item_descending", unjudged=unjudged)
    got = h.evaluate_arrays(
        top,
        indptr,
        items,
        relevant_grades=grades,
        k=[3, 10],
        metrics=metrics,
        unjudged=unjudged,
        block_size=7,
    )
    got.index = users
    pd.testing.assert_frame_equal(got, want.loc[users], check_names=False, atol=1e-12, check_exact=False)


def test_condensed_lists_equal_every_metric_on_the_condensed_list():
    recs, truth = random_judged(13, ties=True)
    metrics = ["precision", "recall", "hit", "rr", "ap", "ndcg", "bpref"]
    got = h.evaluate(recs, truth, k=[2, 10], metrics=metrics, ties="item_descending", unjudged="condense")
    judgments = judgments_of(truth)
    per_user = {
        "precision": h.precision_at_k,
        "recall": h.recall_at_k,
        "hit": h.hit_at_k,
        "rr": h.reciprocal_rank_at_k,
        "ap": h.average_precision_at_k,
        "ndcg": h.ndcg_at_k,
        "bpref": h.bpref_at_k,
    }
    moved = 0
    for user, ranking in ranked_lists(recs).items():
        short = ref.condensed(ranking, judgments[user])
        moved += short[:2] != ranking[:2]
        for k in (2, 10):
            for key, function in per_user.items():
                want = function(short, judgments[user], k)
                assert got.loc[user, f"{key}@{k}"] == pytest.approx(want, abs=1e-12), (user, key, k)
    assert moved > 20  # the data do move items up
    assert got.attrs["unjudged"] == "condense"


@settings(max_examples=80, deadline=None)
@given(
    st.lists(user_case(graded=True), min_size=1, max_size=10),
    st.lists(st.integers(1, 16), min_size=1, max_size=3),
    st.sampled_from([1 << 22, 64]),  # bitmap bytes: large, or one user per sub-block
    st.integers(1, 4),  # block size
)
def test_condensed_arrays_equal_every_per_user_function_on_the_condensed_lists(
    cases, ks, bitmap_bytes, block
):
    users = [(ranking, grades) for ranking, grades, _ in cases]
    top, indptr, items, grades = to_arrays(users, graded=True)
    old, batch._BITMAP_BYTES = batch._BITMAP_BYTES, bitmap_bytes
    try:
        got = h.evaluate_arrays(
            top,
            indptr,
            items,
            k=ks,
            relevant_grades=grades,
            empty="zero",
            block_size=block,
            n_items=41,
            metrics=ALL,
            unjudged="condense",
        )
    finally:
        batch._BITMAP_BYTES = old
    short = [(h.condensed(ranking, judged), judged) for ranking, judged in users]
    want = expected_frame(short, sorted(set(ks)), {"max_grade": got.attrs["err_max_grade"]})
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=0, atol=1e-12)


def test_condense_changes_nothing_without_judgments_and_bpref_is_unchanged_by_it():
    recs, truth = random_judged(14)
    binary = truth.loc[truth["relevance"] > 0, ["user", "item"]]
    keep = h.evaluate(recs, binary, k=5, metrics=list(h.METRICS))
    pd.testing.assert_frame_equal(
        h.evaluate(recs, binary, k=5, metrics=list(h.METRICS), unjudged="condense"), keep, check_like=True
    )
    # bpref skips unjudged items, so condensing first gives the same bpref at a cutoff past every list
    a = h.evaluate(recs, truth, k=30, metrics=["bpref"])
    b = h.evaluate(recs, truth, k=30, metrics=["bpref"], unjudged="condense")
    pd.testing.assert_series_equal(a["bpref@30"], b["bpref@30"])


def test_condensed_per_user_helper():
    assert h.condensed(["a", "b", "c"], {"c": 0, "a": 2}) == ["a", "c"]
    assert h.condensed(["a", "b", "c"], {"c"}) == ["a", "b", "c"]
    with pytest.raises(TypeError, match="judgments"):
        h.condensed(["a"], "abc")


def test_a_bad_unjudged_value_names_the_choices():
    recs = pd.DataFrame({"user": [1], "item": ["a"], "rank": [1]})
    with pytest.raises(ValueError, match="unjudged must be one of 'condense', 'keep'; got 'drop'"):
        h.evaluate(recs, recs[["user", "item"]], k=1, unjudged="drop")


# ------------------------------------------------------------------ trec_eval itself
pytrec_eval = pytest.importorskip("pytrec_eval")


def _trec_eval(recs, truth, measures, judged_only=False):
    qrels = {u: {i: int(g) for i, g in j.items()} for u, j in judgments_of(truth).items()}
    run = {}
    for user, item, score in recs.itertuples(index=False):
        run.setdefault(user, {})[item] = score
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, measures, judged_docs_only_flag=judged_only)
    return evaluator.evaluate(run)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bpref_equals_pytrec_eval(seed):
    recs, truth = random_judged(100 + seed, ties=True)
    longest = int(recs.groupby("user").size().max())
    ours = h.evaluate(recs, truth, k=longest, metrics=["bpref"], ties="item_descending")
    theirs = _trec_eval(recs, truth, {"bpref"})
    assert len(theirs) == len(ours)
    for user, value in ours[f"bpref@{longest}"].items():
        assert value == pytest.approx(theirs[user]["bpref"], abs=1e-12), user
    assert 0.05 < ours[f"bpref@{longest}"].std()  # not a constant
    n_zero = truth.assign(zero=truth["relevance"] == 0).groupby("user")["zero"].sum()
    n_relevant = truth.assign(rel=truth["relevance"] > 0).groupby("user")["rel"].sum()
    assert (n_zero > n_relevant).sum() > 20 and (n_zero < n_relevant).sum() > 20  # both sides of min(R, N)


def test_trec_command_line_measure_bpref_equals_pytrec_eval():
    recs, truth = random_judged(7, ties=True)
    values = trec.evaluate_run(truth, recs, ["Bpref", "bpref@5"])  # trec_eval's name works too
    theirs = _trec_eval(recs, truth, {"bpref"})
    assert list(values.columns) == ["Bpref", "Bpref@5"]
    lists, judgments = ranked_lists(recs), judgments_of(truth)
    for user, row in values.iterrows():
        assert row["Bpref"] == pytest.approx(theirs[user]["bpref"], abs=1e-12)
        assert row["Bpref@5"] == pytest.approx(h.bpref_at_k(lists[user], judgments[user], 5), abs=1e-12)
    assert str(trec.parse_measure("binary_preference@10")) == "Bpref@10"


@pytest.mark.parametrize("k", [1, 5, 10])
def test_condensed_lists_equal_pytrec_eval_judged_docs_only(k):
    recs, truth = random_judged(200 + k, ties=True)
    ours = h.evaluate(
        recs,
        truth,
        k=k,
        metrics=["precision", "recall", "ap", "ndcg"],
        denominator="n_relevant",
        ties="item_descending",
        unjudged="condense",
    )
    measures = {f"P.{k}", f"recall.{k}", f"map_cut.{k}", f"ndcg_cut.{k}"}
    theirs = _trec_eval(recs, truth, measures, judged_only=True)
    kept = _trec_eval(recs, truth, measures)
    differ = 0
    for user, row in ours.iterrows():
        if user not in theirs:  # trec_eval leaves out a query with no judged item listed
            assert not row.any()
            continue
        t = theirs[user]
        assert row[f"precision@{k}"] == pytest.approx(t[f"P_{k}"], abs=1e-12), user
        assert row[f"recall@{k}"] == pytest.approx(t[f"recall_{k}"], abs=1e-12), user
        assert row[f"ap@{k}"] == pytest.approx(t[f"map_cut_{k}"], abs=1e-12), user
        assert row[f"ndcg@{k}"] == pytest.approx(t[f"ndcg_cut_{k}"], abs=1e-12), user
        differ += t[f"P_{k}"] != kept[user][f"P_{k}"]
    assert differ > 10  # -J changes the numbers on these data


# ------------------------------------------------------------------ propensity-weighted P and R
def test_ips_precision_and_recall_by_hand_and_against_the_oracle():
    propensity = {"a": 0.5, "b": 0.1, "c": 0.25, "d": 1.0}
    ranking, observed = ["a", "x", "b", "c"], {"a", "b", "d"}
    assert h.ips_precision_at_k(ranking, observed, propensity, k=4) == pytest.approx((2 + 10) / 4)
    assert h.ips_precision_at_k(ranking, observed, propensity, k=4) == float(
        ref.ips_precision(ranking, observed, propensity, 4)
    )
    assert h.ips_precision_at_k(ranking, observed, propensity, k=4, clip=5) == float(
        ref.ips_precision(ranking, observed, propensity, 4, clip=5)
    )
    assert h.ips_recall_at_k(ranking, observed, propensity, k=2) == pytest.approx(2 / (2 + 10 + 1))
    # a sequence indexed by item id works as a mapping does
    assert h.ips_precision_at_k([0, 2], {0, 2}, [0.5, 1.0, 0.25], k=2) == pytest.approx((2 + 4) / 2)


def test_ips_precision_is_unbiased_for_the_true_precision():
    rng = np.random.default_rng(3)
    n_items, k = 50, 10
    relevant = set(rng.choice(n_items, size=20, replace=False).tolist())
    propensity = rng.uniform(0.05, 0.9, size=n_items)
    ranking = rng.permutation(n_items).tolist()
    truth = h.precision_at_k(ranking, relevant, k)
    draws = 20_000
    seen = rng.random((draws, n_items)) < propensity
    estimates = [
        h.ips_precision_at_k(ranking, {i for i in relevant if row[i]}, propensity, k) for row in seen
    ]
    naive = [h.precision_at_k(ranking, {i for i in relevant if row[i]}, k) for row in seen]
    error = np.std(estimates) / np.sqrt(draws)
    assert abs(np.mean(estimates) - truth) < 4 * error
    assert abs(np.mean(naive) - truth) > 20 * error  # the observed log alone is biased down


def test_ips_input_errors_say_what_to_fix():
    with pytest.raises(ValueError, match="no value for the observed item 'b'"):
        h.ips_precision_at_k(["a"], {"a", "b"}, {"a": 0.5}, k=1)
    with pytest.raises(ValueError, match=r"propensity of item 'a' must be in \(0, 1\]"):
        h.ips_precision_at_k(["a"], {"a"}, {"a": 0.0}, k=1)
    with pytest.raises(ValueError, match="clip must be in"):
        h.ips_precision_at_k(["a"], {"a"}, {"a": 0.5}, k=1, clip=0.5)
    with pytest.raises(ValueError, match="pass a mapping"):
        h.ips_precision_at_k(["a"], {"a"}, [0.5], k=1)
    with pytest.raises(TypeError, match="propensity must be"):
        h.ips_precision_at_k(["a"], {"a"}, 0.5, k=1)
    with pytest.raises(h.NoRelevantItemError):
        h.ips_recall_at_k(["a"], set(), {}, k=1)
    assert Fraction(1, 2) == Fraction(h.ips_recall_at_k(["a"], {"a", "b"}, {"a": 0.5, "b": 0.5}, k=1))


def test_trec_bpref_leaves_out_and_zeroes_queries_as_trec_eval_does():
    truth = pd.DataFrame(
        {"user": ["q1", "q1", "q2", "q2"], "item": ["d1", "d2", "d1", "d3"], "relevance": [1, 0, 0, 0]}
    )
    recs = pd.DataFrame(
        {
            "user": ["q1", "q1", "q2", "q2", "q3"],
            "item": ["d2", "d1", "d1", "d9", "d1"],
            "score": [2.0, 1, 1, 1, 1],
        }
    )
    values = trec.evaluate_run(truth, recs, ["Bpref"])
    theirs = _trec_eval(recs, truth, {"bpref"})  # q2: grade 0 only; q3: not in the qrels
    assert sorted(values.index) == sorted(theirs) == ["q1", "q2"]
    assert (
        values["Bpref"].to_dict()
        == {user: theirs[user]["bpref"] for user in theirs}
        == {"q1": 0.0, "q2": 0.0}
    )
