"""Score rows ordered per user (topkeval._ranking) give exactly what the global sort gave, tie rules too."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from topkeval import _ranking, average_precision_at_k, evaluate, ndcg_at_k, precision_at_k
from topkeval import batch as batch_module

TIES = ("item_ascending", "item_descending", "input_order")
METRICS = ["precision", "recall", "rr", "ap", "ndcg", "rbp"]


def general_path(monkeypatch_context, *args, **kwargs) -> pd.DataFrame:
    """evaluate() with the per-user sorts switched off: the old global lexsort."""
    with monkeypatch_context() as patch:
        patch.setattr(batch_module._ranking, "top_by_score", lambda *a, **k: None)
        return evaluate(*args, **kwargs)


def frames(rng, n_users, lengths, n_items, n_scores, shuffle, string_ids=False):
    users = np.repeat(np.arange(n_users), lengths)
    items = np.concatenate([rng.choice(n_items, size=n, replace=False) for n in lengths] or [[]])
    scores = rng.integers(0, n_scores, size=users.size).astype(float)  # few distinct scores: many ties
    recs = pd.DataFrame({"user": users, "item": items.astype(np.int64), "score": scores})
    if shuffle:
        recs = recs.sample(frac=1.0, random_state=int(rng.integers(1 << 30)))
    truth_users = rng.integers(0, n_users + 2, size=n_users * 3)  # some users only in the truth
    truth = pd.DataFrame({"user": truth_users, "item": rng.integers(0, n_items, size=truth_users.size)})
    truth = truth.drop_duplicates(["user", "item"])
    if string_ids:
        recs = recs.assign(user="u" + recs["user"].astype(str), item="i" + recs["item"].astype(str))
        truth = truth.assign(user="u" + truth["user"].astype(str), item="i" + truth["item"].astype(str))
    return recs, truth


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("layout", ["equal", "ragged", "equal_shuffled", "ragged_shuffled", "runs_split"])
@pytest.mark.parametrize("ideal", ["all", "listed"])
def test_same_as_global_sort(ties, layout, ideal):
    rng = np.random.default_rng([7, len(layout), len(ties), len(ideal)])
    n_users = 60
    lengths = np.full(n_users, 12) if layout.startswith("equal") else rng.integers(0, 40, size=n_users)
    recs, truth = frames(rng, n_users, lengths, 50, 4, shuffle=layout.endswith("shuffled"))
    if layout == "runs_split":  # grouped except that one user's rows come in two runs
        recs = pd.concat([recs.iloc[5:], recs.iloc[:5]])
    for k in ([3, 10], [1], [50]):
        options = dict(k=k, metrics=METRICS, ties=ties, ideal=ideal, empty="zero")
        got = evaluate(recs, truth, **options)
        want = general_path(pytest.MonkeyPatch.context, recs, truth, **options)
        pd.testing.assert_frame_equal(got, want, check_exact=True)


def test_partition_path_matches_per_user_functions():
    """k much smaller than the list: the partition route, checked against the per-user functions."""
    rng = np.random.default_rng(3)
    recs, truth = frames(rng, 40, np.full(40, 80), 200, 6, shuffle=True, string_ids=True)
    got = evaluate(
        recs, truth, k=5, metrics=["precision", "ap", "ndcg"], ties="item_descending", empty="zero"
    )
    for user, rows in recs.groupby("user"):
        ranked = rows.sort_values(["score", "item"], ascending=False)["item"].tolist()
        relevant = set(truth.loc[truth["user"] == user, "item"])
        assert got.loc[user, "precision@5"] == precision_at_k(ranked, relevant, 5)
        if relevant:
            assert got.loc[user, "ap@5"] == pytest.approx(
                average_precision_at_k(ranked, relevant, 5), abs=1e-12
            )
            assert got.loc[user, "ndcg@5"] == pytest.approx(ndcg_at_k(ranked, relevant, 5), abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(
    lengths=st.lists(st.integers(0, 14), min_size=1, max_size=12),
    n_scores=st.integers(1, 5),
    shuffle=st.booleans(),
    ties=st.sampled_from(TIES),
    k=st.integers(1, 16),
    seed=st.integers(0, 2**16),
)
def test_property_same_as_global_sort(lengths, n_scores, shuffle, ties, k, seed):
    rng = np.random.default_rng(seed)
    lengths = np.array(lengths)
    if lengths.sum() == 0:
        lengths[0] = 1
    recs, truth = frames(rng, lengths.size, lengths, 20, n_scores, shuffle)
    options = dict(k=k, metrics=METRICS, ties=ties, empty="zero")
    got = evaluate(recs, truth, **options)
    want = general_path(pytest.MonkeyPatch.context, recs, truth, **options)
    pd.testing.assert_frame_equal(got, want, check_exact=True)


def test_raise_on_a_tie_gives_the_general_paths_error():
    recs = pd.DataFrame(
        {"user": [2, 2, 2, 1, 1], "item": [1, 2, 3, 1, 2], "score": [3.0, 2.0, 2.0, 1.0, 1.0]}
    )
    truth = pd.DataFrame({"user": [1, 2], "item": [1, 2]})
    with pytest.raises(ValueError, match="has tied scores") as fast:
        evaluate(recs, truth, k=2, ties="raise")
    with pytest.raises(ValueError) as slow:
        general_path(pytest.MonkeyPatch.context, recs, truth, k=2, ties="raise")
    assert str(fast.value) == str(slow.value)
    # a tie below the cutoff is no error, and the order there is the input order
    ok = evaluate(recs, truth, k=1, ties="raise", metrics=["precision"])
    assert ok["precision@1"].tolist() == [1.0, 0.0]  # user 1: item 1 comes first in the input


def test_nan_padding_never_beats_an_infinite_score():
    recs = pd.DataFrame(
        {"user": [1, 1, 1, 2], "item": [1, 2, 3, 1], "score": [-np.inf, np.inf, -np.inf, -np.inf]}
    )
    truth = pd.DataFrame({"user": [1, 2], "item": [3, 1]})
    got = evaluate(recs, truth, k=3, metrics=["rr"], ties="item_descending")
    assert got["rr@3"].tolist() == [0.5, 1.0]  # user 1: 2 (inf), then 3 before 1 (ties descending)


def test_grouping_sort_is_stable():
    run_users = np.array([3, 1, 3, 0, 1], dtype=np.int32)
    groups = _ranking._grouped(run_users, np.ones(5, dtype=bool), False, 4)
    assert groups.pick.tolist() == [3, 1, 4, 0, 2]
    assert groups.user.tolist() == [0, 1, 3] and groups.length.tolist() == [1, 2, 2]


@pytest.mark.parametrize("seed", range(5))
def test_counting_and_sorting_orders_agree(monkeypatch, seed):
    """The counting sort (pandas' routine) and the fallback value sort: the same stable grouping."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 1 + 10 * seed, size=500).astype(np.int32)
    want = np.argsort(codes, kind="stable")  # the oracle: NumPy's stable sort
    counts = np.bincount(codes, minlength=int(codes.max()) + 3)  # two codes with no rows
    assert _ranking._counting_order(codes, counts).tolist() == want.tolist()
    monkeypatch.setattr(_ranking, "_GROUP_ROWS", 7)  # placed a few rows at a time
    assert _ranking._counting_order(codes, counts).tolist() == want.tolist()
    assert _ranking._sorting_order(codes).tolist() == want.tolist()


def test_shuffled_rows_without_the_counting_sort(monkeypatch):
    """A pandas without ``groupsort_indexer``: the value sort groups the rows, values unchanged."""
    rng = np.random.default_rng(11)
    recs, truth = frames(rng, 40, rng.integers(0, 20, size=40), 30, 3, shuffle=True, string_ids=True)
    options = dict(k=[5, 20], metrics=METRICS, ties="input_order", empty="zero")
    want = evaluate(recs, truth, **options)
    monkeypatch.setattr(_ranking, "_counting_order", lambda codes, counts: None)
    pd.testing.assert_frame_equal(evaluate(recs, truth, **options), want, check_exact=True)
