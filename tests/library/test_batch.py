"""The batch path equals the per-user functions, and its DataFrame front end behaves."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import topkeval as h
from topkeval import batch

from .strategies import user_case


def _per_user(metric):
    """The registry's per-user function, called with the options the metric takes."""
    return lambda r, g, k, o: getattr(h, metric.function)(
        r, g, k, **{name: o[name] for name in metric.options if name in o}
    )


PER_USER = {key: _per_user(metric) for key, metric in h.METRICS.items()}
ALL = list(h.METRICS)  # every registry metric, including those computed only on request (err, rbp)


def to_arrays(users, graded):
    """Per-user cases -> (top matrix with -1 padding, CSR indptr, items, grades)."""
    width = max([len(r) for r, _ in users] + [1])
    top = np.full((len(users), width), -1, dtype=np.int64)
    indptr, items, grades = [0], [], []
    for u, (ranking, relevance) in enumerate(users):
        top[u, : len(ranking)] = ranking
        pairs = sorted(relevance.items()) if graded else [(i, 1) for i in sorted(relevance)]
        items += [i for i, _ in pairs]
        grades += [g for _, g in pairs]
        indptr.append(len(items))
    return top, np.array(indptr), np.array(items, dtype=np.int64), np.array(grades, dtype=float)


def expected_frame(users, ks, options):
    """The per-user functions' values; ``options`` carries ERR's g_max as the batch chose it (its attrs)."""
    rows = []
    for ranking, relevance in users:
        row = {}
        for k in ks:
            for key, fn in PER_USER.items():
                try:
                    row[f"{key}@{k}"] = fn(ranking, relevance, k, options)
                except ValueError:  # no relevant item: these users are zeroed by empty="zero"
                    row[f"{key}@{k}"] = 0.0
        rows.append(row)
    return pd.DataFrame(rows)


OPTION_SETS = st.fixed_dictionaries(
    {
        "denominator": st.sampled_from(["min_k_n_relevant", "n_relevant", "n_hits"]),
        "gain": st.sampled_from(["linear", "exponential"]),
        "ideal": st.sampled_from(["all", "listed"]),
    }
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.one_of(user_case(graded=True), user_case(min_relevant=1, graded=True)), min_size=1, max_size=12
    ),
    st.lists(st.integers(1, 18), min_size=1, max_size=3),
    OPTION_SETS,
    st.booleans(),
    st.sampled_from([1 << 22, 64, 300]),  # bitmap bytes: large, one user per sub-block, a few users
    st.integers(1, 5),  # block size
)
def test_arrays_path_equals_per_user_functions(cases, ks, options, graded, bitmap_bytes, block_size):
    users = [
        (ranking, grades if graded else {i for i, g in grades.items() if g > 0})
        for ranking, grades, _ in cases
    ]
    top, indptr, items, grades = to_arrays(users, graded)
    old = batch._BITMAP_BYTES
    batch._BITMAP_BYTES = bitmap_bytes
    try:
        got = h.evaluate_arrays(
            top,
            indptr,
            items,
            k=ks,
            relevant_grades=grades if graded else None,
            empty="zero",
            block_size=block_size,
            n_items=41,
            metrics=ALL,
            **options,
        )
    finally:
        batch._BITMAP_BYTES = old
    want = expected_frame(users, sorted(set(ks)), {**options, "max_grade": got.attrs["err_max_grade"]})
    assert list(got.columns) == list(want.columns)
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=0, atol=1e-12)


ITEM_IDS = {  # each takes a different encoding route in evaluate
    "str": lambda i: f"i{i}",  # pandas 3 str (Arrow): one dictionary_encode
    "object": lambda i: f"i{i}",  # object dtype: pd.factorize
    "small_int": lambda i: i,  # ids in a compact range are their own codes
    "sparse_int": lambda i: i * 10**12 + 7,  # hashed like any other id
}


@settings(max_examples=60, deadline=None)
@given(
    st.lists(user_case(min_relevant=1, graded=True), min_size=1, max_size=10),
    st.integers(1, 12),
    OPTION_SETS,
    st.sampled_from(sorted(ITEM_IDS)),
)
def test_dataframe_path_equals_per_user_functions(cases, k, options, ids):
    name = ITEM_IDS[ids]
    recs, truth = [], []
    for u, (ranking, grades, _) in enumerate(cases):
        recs += [(f"user{u}", name(item), rank) for rank, item in enumerate(ranking, start=1)]
        truth += [(f"user{u}", name(item), grade) for item, grade in grades.items()]
    recs = pd.DataFrame(recs, columns=["user", "item", "rank"]).sample(frac=1, random_state=0)
    truth = pd.DataFrame(truth, columns=["user", "item", "relevance"])
    if ids == "object":
        recs, truth = (
            recs.astype({"user": object, "item": object}),
            truth.astype({"user": object, "item": object}),
        )
    got = h.evaluate(recs, truth, k=k, metrics=ALL, **options)
    users = [([name(i) for i in r], {name(i): g for i, g in grades.items()}) for r, grades, _ in cases]
    want = expected_frame(users, [k], {**options, "max_grade": got.attrs["err_max_grade"]})
    want.index = pd.Index([f"user{u}" for u in range(len(cases))], name="user")
    want = want.sort_index()
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=0, atol=1e-12)
    assert list(got.index) == list(want.index)


def _grouped_user(rng, u, length, ranks, last):
    """User ``u``'s (ranking, relevance), its recommendation rows and its truth rows."""
    ranking = [f"i{i}" for i in rng.choice(20, length, replace=False)]
    relevant = {
        f"i{i}": float(rng.integers(1, 4)) for i in rng.choice(20, int(rng.integers(1, 6)), replace=False)
    }
    rank = np.arange(1, length + 1) * (3 if ranks == "gaps" else 1)
    rows = list(zip(ranking, rank, strict=True))
    if ranks == "one_user_reversed" and last:
        rows = rows[::-1]  # worst first: falls back to sorting, still read in rank order
    recs = [(f"u{u}", item, r) for item, r in rows]
    return (ranking, relevant), recs, [(f"u{u}", item, g) for item, g in relevant.items()]


def _uneven(users, truth):
    """u0 loses its relevant items (scored 0 by empty="zero"); "u9" has relevant items, no list."""
    truth = [row for row in truth if row[0] != "u0"] + [("u9", "i1", 2.0)]
    return [(users[0][0], {})] + users[1:] + [([], {"i1": 2.0})], truth


# ---- evaluate(): the DataFrame front end ------------------------------------------
@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 9),  # list length, the same for every user
    st.integers(1, 12),  # k
    st.sampled_from(["consecutive", "gaps", "one_user_reversed", "uint"]),
    OPTION_SETS,
    st.integers(0, 2**32 - 1),
    st.booleans(),
)
def test_dataframe_path_with_grouped_lists_of_one_length(length, k, ranks, options, seed, uneven):
    # the common shape of a recommender's output (rows grouped by user, best first, the same number
    # of rows per user) takes a shortcut that builds the list matrix without sorting: same values
    rng = np.random.default_rng(seed)
    n_users = int(rng.integers(1, 8))
    users, recs, truth = [], [], []
    for u in range(n_users):
        user, user_recs, user_truth = _grouped_user(rng, u, length, ranks, last=u == n_users - 1)
        users.append(user)
        recs += user_recs
        truth += user_truth
    blocks = [recs[u * length : (u + 1) * length] for u in range(n_users)]
    recs = [row for u in rng.permutation(n_users) for row in blocks[u]]  # users in any order
    recs = pd.DataFrame(recs, columns=["user", "item", "rank"])
    if ranks == "uint":
        recs["rank"] = recs["rank"].astype(np.uint16)
    if uneven:
        users, truth = _uneven(users, truth)
    truth = pd.DataFrame(truth, columns=["user", "item", "relevance"])
    got = h.evaluate(recs, truth, k=k, empty="zero", metrics=ALL, **options)
    want = expected_frame(users, [k], {**options, "max_grade": got.attrs["err_max_grade"]})
    assert list(got.index) == [f"u{u}" for u in range(n_users)] + (["u9"] if uneven else [])
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=0, atol=1e-12)
    assert got.attrs["n_users_without_recommendations"] == int(uneven)


def test_the_shortcut_is_taken_for_grouped_lists_of_one_length(monkeypatch):
    taken = []
    shortcut = batch._top_from_runs
    monkeypatch.setattr(batch, "_top_from_runs", lambda *args: taken.append(shortcut(*args)) or taken[-1])
    recs = pd.DataFrame({"user": ["b", "b", "a", "a"], "item": ["x", "y", "y", "z"], "rank": [1, 2, 1, 2]})
    truth = pd.DataFrame({"user": ["a", "b"], "item": ["z", "x"]})
    got = h.evaluate(recs, truth, k=2, metrics=["rr"])
    assert got["rr@2"].to_dict() == {"a": 0.5, "b": 1.0}
    assert taken[-1] is not None
    h.evaluate(recs.iloc[[0, 2, 1, 3]], truth, k=2)  # users interleaved: the general path
    assert len(taken) == 1


def test_columns_in_several_arrow_chunks(recs, truth):
    # pd.concat keeps Arrow chunks apart; a slice starts mid-chunk: the codes must not shift
    pytest.importorskip("pyarrow")  # the `arrow` extra (make test installs it on both pandas legs)
    arrow = pd.StringDtype("pyarrow")  # pandas 3's default str; spelled out for pandas 2.2
    recs = recs.astype({"user": arrow, "item": arrow})
    truth = truth.astype({"user": arrow, "item": arrow})
    whole = h.evaluate(recs, truth, k=2, empty="skip")
    pieces = pd.concat([recs.iloc[:2], recs.iloc[2:3], recs.iloc[3:]], ignore_index=True)
    assert pieces["item"].array.__arrow_array__().num_chunks == 3
    pd.testing.assert_frame_equal(
        h.evaluate(pieces, pd.concat([truth.iloc[1:], truth.iloc[:1]]), k=2, empty="skip"), whole
    )
    padded = pd.concat([recs.iloc[:1], recs], ignore_index=True).iloc[1:]
    pd.testing.assert_frame_equal(h.evaluate(padded, truth, k=2, empty="skip"), whole)


def test_errors_name_the_right_user_when_users_come_out_of_order():
    # grouped lists of one length keep the input's row order inside; errors must still map rows to users
    recs = pd.DataFrame(
        {
            "user": ["c", "c", "a", "a", "b", "b"],
            "item": ["x", "y", "y", "y", "x", "z"],
            "rank": [1, 2, 1, 2, 1, 2],
        }
    )
    truth = pd.DataFrame({"user": ["a", "b", "c", "c"], "item": ["y", "z", "x", "x"]})
    with pytest.raises(ValueError, match="recommendations list item 'y' more than once for user 'a'"):
        h.evaluate(recs, truth.iloc[:3], k=2)
    recs.loc[3, "item"] = "w"
    with pytest.raises(ValueError, match="truth lists user 'c' and item 'x' more than once"):
        h.evaluate(recs, truth, k=2)
    got = h.evaluate(recs, truth.iloc[:3], k=2, metrics=["rr", "ap"])
    assert got.to_dict("index") == {
        "a": {"rr@2": 1.0, "ap@2": 1.0},
        "b": {"rr@2": 0.5, "ap@2": 0.5},
        "c": {"rr@2": 1.0, "ap@2": 1.0},
    }


def test_uint_ranks_out_of_order_are_sorted_not_wrapped():
    recs = pd.DataFrame(
        {"user": ["u"] * 3, "item": ["a", "b", "c"], "rank": np.array([3, 1, 2], dtype=np.uint8)}
    )
    truth = pd.DataFrame({"user": ["u"], "item": ["b"]})
    assert h.evaluate(recs, truth, k=1)["precision@1"].iloc[0] == 1.0


@pytest.fixture
def recs():
    return pd.DataFrame(
        {
            "user": ["u1", "u1", "u1", "u2", "u2", "u3"],
            "item": ["a", "b", "c", "c", "a", "a"],
            "rank": [1, 2, 3, 1, 2, 1],
        }
    )


@pytest.fixture
def truth():
    return pd.DataFrame({"user": ["u1", "u1", "u2", "u4"], "item": ["a", "c", "b", "a"]})


def test_empty_policy_raise_is_the_default_and_names_users(recs, truth):
    with pytest.raises(ValueError, match=r"1 of 4 users have no relevant item \(e.g. 'u3'\)"):
        h.evaluate(recs, truth, k=2)


def test_empty_policy_skip_and_zero(recs, truth):
    skipped = h.evaluate(recs, truth, k=2, empty="skip")
    assert list(skipped.index) == ["u1", "u2", "u4"] and skipped.attrs["skipped_users"] == ["u3"]
    zeroed = h.evaluate(recs, truth, k=2, empty="zero")
    assert list(zeroed.index) == ["u1", "u2", "u3", "u4"]
    assert (zeroed.loc["u3"] == 0).all() and zeroed.attrs["n_empty_users"] == 1
    # u4 has a relevant item but no recommendations: scored 0, never dropped
    assert (skipped.loc["u4"] == 0).all() and skipped.attrs["n_users_without_recommendations"] == 1
    assert zeroed["ap@2"].mean() == pytest.approx(skipped["ap@2"].sum() / 4)


def test_grade_zero_rows_are_judged_not_relevant(recs):
    truth = pd.DataFrame(
        {"user": ["u1", "u1", "u2", "u3"], "item": ["a", "b", "c", "a"], "relevance": [1, 0, 2, 0]}
    )
    got = h.evaluate(recs, truth, k=2, empty="skip")
    assert list(got.index) == ["u1", "u2"]
    assert got.loc["u1", "recall@2"] == 1.0 and got.loc["u1", "precision@2"] == 0.5


def test_several_cutoffs_and_metric_selection(recs, truth):
    got = h.evaluate(recs, truth, k=[3, 1], metrics=["ndcg", "precision"], empty="skip")
    assert list(got.columns) == ["precision@1", "ndcg@1", "precision@3", "ndcg@3"]


def test_scores_order_items_and_ties_follow_the_option():
    recs = pd.DataFrame({"user": ["u"] * 3, "item": ["b", "a", "c"], "score": [0.5, 0.5, 0.9]})
    truth = pd.DataFrame({"user": ["u"], "item": ["a"]})
    rr = {
        t: h.evaluate(recs, truth, k=3, metrics=["rr"], ties=t)["rr@3"].iloc[0]
        for t in ("item_ascending", "item_descending", "input_order")
    }
    assert rr == {
        "item_ascending": 0.5,
        "item_descending": pytest.approx(1 / 3),
        "input_order": pytest.approx(1 / 3),
    }
    with pytest.raises(ValueError, match="tied scores"):
        h.evaluate(recs, truth, k=3, ties="raise")


@pytest.mark.parametrize("dtype", ["str", object])
def test_item_ascending_ties_follow_python_string_order(dtype):
    items = ["b", "B", "\u00e9", "a", "z", "10", "9", "\U0001f600"]
    recs = pd.DataFrame({"user": ["u"] * len(items), "item": items, "score": 1.0}).astype({"item": dtype})
    for target in items:
        truth = pd.DataFrame({"user": ["u"], "item": [target]}).astype({"item": dtype})
        rr = h.evaluate(recs, truth, k=len(items), metrics=["rr"])["rr@8"].iloc[0]
        assert rr == pytest.approx(1 / (sorted(items).index(target) + 1))


def test_rank_gaps_are_closed_and_rows_may_come_in_any_order():
    recs = pd.DataFrame({"user": ["u", "u", "u"], "item": ["x", "a", "y"], "rank": [10, 5, 1]})
    truth = pd.DataFrame({"user": ["u"], "item": ["a"]})
    assert h.evaluate(recs, truth, k=2, metrics=["rr"])["rr@2"].iloc[0] == 0.5


def test_custom_column_names_and_integer_ids():
    recs = pd.DataFrame({"uid": [1, 1, 2], "iid": [10, 20, 10], "pos": [1, 2, 1]})
    truth = pd.DataFrame({"uid": [1, 2], "iid": [20, 30], "stars": [5, 4]})
    got = h.evaluate(recs, truth, k=2, user_col="uid", item_col="iid", rank_col="pos", relevance_col="stars")
    assert got.index.name == "uid" and got.loc[1, "precision@2"] == 0.5 and got.loc[2, "hit@2"] == 0.0


def test_mean_gives_the_usual_aggregates(recs, truth):
    got = h.evaluate(recs, truth, k=3, empty="zero")
    rows = {"u1": (["a", "b", "c"], {"a", "c"}), "u2": (["c", "a"], {"b"}), "u4": ([], {"a"})}
    maps = [h.average_precision_at_k(r, rel, 3) for r, rel in rows.values()] + [0.0]
    assert got["ap@3"].mean() == pytest.approx(np.mean(maps))


def test_arrays_path_skip_and_raise_and_empty_slots():
    top = np.array([[0, 1], [2, -1], [1, 0]])
    indptr, items = np.array([0, 1, 1, 2]), np.array([1, 1])
    skipped = h.evaluate_arrays(top, indptr, items, empty="skip")
    assert list(skipped.index) == [0, 2] and skipped.attrs["skipped_users"] == [1]
    with pytest.raises(ValueError, match="1 of 3 users have no relevant item"):
        h.evaluate_arrays(top, indptr, items)
    assert skipped.loc[0, "precision@2"] == 0.5 and skipped.loc[2, "rr@2"] == 1.0


def test_arrays_path_default_k_is_the_width_and_scipy_like_csr():
    top = np.array([[5, 3, 9]])
    got = h.evaluate_arrays(top, [0, 2], [3, 9])
    assert list(got.columns) == ["precision@3", "recall@3", "hit@3", "rr@3", "ap@3", "ndcg@3"]
    assert got.loc[0, "ap@3"] == pytest.approx((1 / 2 + 2 / 3) / 2)


@pytest.mark.parametrize("duplicates", ["check_hits", "check_all"])
def test_arrays_path_rejects_a_repeated_relevant_item(duplicates):
    with pytest.raises(ValueError, match=r"row 0 of top_items lists item 3 more than once \(at ranks 1, 2\)"):
        h.evaluate_arrays(np.array([[3, 3]]), [0, 1], [3], duplicates=duplicates)


def test_arrays_path_check_all_catches_repeated_misses_too():
    top = np.array([[7, 7, 3]])
    assert h.evaluate_arrays(top, [0, 1], [3])["precision@3"].iloc[0] == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="lists item 7 more than once"):
        h.evaluate_arrays(top, [0, 1], [3], duplicates="check_all")


def test_arrays_path_rejects_repeated_relevant_items_in_csr():
    with pytest.raises(ValueError, match="relevant items of row 0 list item 3 more than once"):
        h.evaluate_arrays(np.array([[3, 1]]), [0, 2], [3, 3])


@pytest.mark.parametrize("n_relevant", [254, 255, 70_000])  # last one-byte code; two-byte; four-byte codes
def test_arrays_path_with_hundreds_of_relevant_items(n_relevant):
    # the bitmap stores 1 + a hit's position among the user's relevant items, in the narrowest
    # unsigned dtype that holds the largest |R|: check each width against the per-user functions
    rng = np.random.default_rng(n_relevant)
    n_items = n_relevant + 5000
    users = []
    for size in (n_relevant, 3, 0, 40):
        relevant = {
            int(i): float(g)
            for i, g in zip(rng.choice(n_items, size, replace=False), rng.integers(1, 4, size), strict=True)
        }
        listed = list(relevant)[:150] + [
            int(i) for i in rng.choice(n_items, 300, replace=False) if i not in relevant
        ]
        users.append(([int(i) for i in rng.permutation(listed)[:300]], relevant))
    top, indptr, items, grades = to_arrays(users, graded=True)
    options = {"denominator": "n_relevant", "gain": "exponential", "ideal": "all"}
    got = h.evaluate_arrays(
        top, indptr, items, k=[10, 300], relevant_grades=grades, empty="zero", metrics=ALL, **options
    )
    want = expected_frame(users, [10, 300], {**options, "max_grade": got.attrs["err_max_grade"]})
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=0, atol=1e-12)
    top[0, 200] = top[0, 7]  # a repeated recommendation, relevant or not
    with pytest.raises(ValueError, match=f"lists item {top[0, 7]} more than once"):
        h.evaluate_arrays(top, indptr, items, k=300, duplicates="check_all")
    items = items.copy()
    items[indptr[0] + 1] = items[indptr[0]]  # a repeated relevant item
    with pytest.raises(
        ValueError, match=f"relevant items of row 0 list item {items[indptr[0]]} more than once"
    ):
        h.evaluate_arrays(top, indptr, items, k=10)


def test_check_all_with_ids_beyond_int32():
    big = np.iinfo(np.int32).max + 10
    top = np.array([[big, 5, -1, -1], [big, 7, big, 1]])
    indptr, items = np.array([0, 1, 2]), np.array([5, 1])
    got = h.evaluate_arrays(top[:1], indptr[:2], items[:1], n_items=big + 1, duplicates="check_all")
    assert got["precision@4"].iloc[0] == 0.25  # repeated empty slots are not repeats
    with pytest.raises(ValueError, match=f"row 1 of top_items lists item {big} more than once"):
        h.evaluate_arrays(top, indptr, items, n_items=big + 1, duplicates="check_all")


def test_sparse_ids_are_renumbered_and_errors_name_the_originals():
    # ids like hashes: a bitmap row of 2**40 cells per user cannot exist, so the ids are renumbered
    rng = np.random.default_rng(5)
    pool = np.unique(rng.integers(0, 2**40, 400))
    users = [
        (
            [int(i) for i in rng.choice(pool, 30, replace=False)],
            {int(i) for i in rng.choice(pool, 12, replace=False)},
        )
        for _ in range(20)
    ]
    top, indptr, items, _ = to_arrays(users, graded=False)
    got = h.evaluate_arrays(top, indptr, items, k=[5, 30], empty="zero", metrics=ALL)
    want = expected_frame(
        users, [5, 30], {"denominator": "min_k_n_relevant", "gain": "linear", "ideal": "all"}
    )
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=0, atol=1e-12)
    top[3, 9] = top[3, 2]
    with pytest.raises(ValueError, match=f"row 3 of top_items lists item {top[3, 2]} more than once"):
        h.evaluate_arrays(top, indptr, items, duplicates="check_all")
    items[indptr[4] + 1] = items[indptr[4]]
    with pytest.raises(
        ValueError, match=f"relevant items of row 4 list item {items[indptr[4]]} more than once"
    ):
        h.evaluate_arrays(top, indptr, items)


def test_smallest_uint():
    assert [batch._smallest_uint(n) for n in (0, 255, 256, 65_535, 65_536, 2**32)] == [
        np.uint8,
        np.uint8,
        np.uint16,
        np.uint16,
        np.uint32,
        np.uint64,
    ]


def test_results_are_float64_and_means_are_builtin_convertible(recs, truth):
    got = h.evaluate(recs, truth, k=2, empty="skip")
    assert all(dtype == np.float64 for dtype in got.dtypes)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=2, max_size=40), st.booleans())
def test_csr_order_is_a_stable_sort_by_user(codes, grouped):
    codes = np.array(
        sorted(codes, key=lambda c: (c * 7) % 6) if grouped else codes
    )  # grouped: runs, unsorted
    indptr = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=6))])
    assert np.array_equal(batch._csr_order(codes, indptr), np.argsort(codes, kind="stable"))
