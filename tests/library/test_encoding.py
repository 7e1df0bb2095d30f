"""Parallel id encoding (topkeval._encoding) and the fast score-row paths give exactly the single-threaded
results: codes against pandas' factorize, run heads against a loop, evaluate() against the general path
for every string storage (pandas str, object, Arrow, Polars), tie rule, layout and option."""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
import pandas as pd
import pytest

from topkeval import InvalidInputError, _encoding, _ranking, evaluate
from topkeval import batch as batch_module

pa = pytest.importorskip("pyarrow")

TIES = ("item_ascending", "item_descending", "input_order")


@pytest.fixture
def many_threads(monkeypatch):
    """Every column long enough to be cut into three pieces, every block a few rows: the threaded paths
    run on test-sized data."""
    monkeypatch.setattr(_encoding, "PARALLEL_ROWS", 1)
    monkeypatch.setattr(_encoding, "n_threads", lambda: 3)
    monkeypatch.setattr(_ranking, "_BLOCK_ROWS", 7)
    monkeypatch.setattr(batch_module, "_DEFAULT_BLOCK", 5)  # the metrics too: many blocks, in threads
    monkeypatch.setattr(batch_module, "_THREADED_WIDTH", 1)


@contextmanager
def threads_of(executor):
    """The pool (None on one thread), shut down at the end."""
    try:
        yield executor
    finally:
        if executor is not None:
            executor.shutdown()


def naive_codes(first: list[str], second: list[str], sort: bool) -> tuple[list[int], list[int], list[str]]:
    """The oracle: a dict in first-seen order (or the sorted distinct ids)."""
    book = sorted(set(first + second)) if sort else list(dict.fromkeys(first + second))
    where = {value: i for i, value in enumerate(book)}
    return [where[v] for v in first], [where[v] for v in second], book


@pytest.mark.parametrize("sort", [True, False])
@pytest.mark.parametrize("threads", [1, 2, 3, 5])
def test_codes_in_pieces_equal_one_pass(monkeypatch, sort, threads):
    rng = np.random.default_rng(threads)
    words = [f"id{i}" for i in rng.permutation(40)]
    first = [words[i] for i in rng.integers(0, 25, size=31)]  # ids 25..39 appear only in the second column
    second = [words[i] for i in rng.integers(0, 40, size=17)]
    monkeypatch.setattr(_encoding, "PARALLEL_ROWS", 1)
    monkeypatch.setattr(_encoding, "n_threads", lambda: threads)
    with threads_of(_encoding.pool()) as executor:
        finish = _encoding.arrow_codes(pa.chunked_array([first]), pa.chunked_array([second]), sort, executor)
        codes, other, book = finish()
    want = naive_codes(first, second, sort)
    assert (codes.tolist(), other.tolist(), book.to_pylist()) == want
    assert codes.dtype == np.int32 and other.dtype == np.int32


def test_codes_of_multi_chunk_columns_and_an_empty_side(monkeypatch):
    monkeypatch.setattr(_encoding, "PARALLEL_ROWS", 1)
    first = pa.chunked_array([["b", "a"], [], ["c", "b", "a"], ["d"]])
    with threads_of(_encoding.pool()) as executor:
        codes, other, book = _encoding.arrow_codes(
            first, pa.chunked_array([], type=pa.string()), True, executor
        )()
    assert codes.tolist() == [1, 0, 2, 1, 0, 3] and other.tolist() == [] and book.to_pylist() == list("abcd")


@pytest.mark.parametrize("threads", [1, 2, 3, 4])
def test_run_heads_in_pieces(monkeypatch, threads):
    rng = np.random.default_rng(threads)
    values = [f"u{v}" for v in np.repeat(rng.integers(0, 4, size=30), rng.integers(1, 4, size=30))]
    monkeypatch.setattr(_encoding, "PARALLEL_ROWS", 1)
    monkeypatch.setattr(_encoding, "n_threads", lambda: threads)
    with threads_of(_encoding.pool()) as executor:
        heads = _encoding.arrow_run_heads(pa.chunked_array([values[:9], values[9:]]), executor)
    want = [True] + [values[i] != values[i - 1] for i in range(1, len(values))]
    assert heads.tolist() == want


def test_pieces_follow_the_pool_not_the_load_while_it_works(monkeypatch):
    """The pool's own busy threads are not other programs: a column hashed while another one is being
    hashed is still cut into one piece per pool thread."""
    monkeypatch.setattr(_encoding, "PARALLEL_ROWS", 1)
    monkeypatch.setattr(_encoding, "_busy_elsewhere", lambda: 0)
    monkeypatch.setenv("TOPKEVAL_THREADS", "3")
    with threads_of(_encoding.pool()) as executor:
        monkeypatch.setattr(_encoding, "_busy_elsewhere", lambda: 2)  # the pool's threads, now running
        monkeypatch.delenv("TOPKEVAL_THREADS")
        assert len(_encoding._pieces(30, executor)) == 3
    assert _encoding._pieces(30, None) == [(0, 30)]


def test_thread_count_follows_the_environment(monkeypatch):
    monkeypatch.setenv("TOPKEVAL_THREADS", "1")
    assert _encoding.n_threads() == 1 and _encoding.pool() is None
    monkeypatch.setenv("TOPKEVAL_THREADS", "3")
    assert _encoding.n_threads() == 3
    monkeypatch.setenv("TOPKEVAL_THREADS", "")  # empty: as if unset, the idle CPUs decide
    assert 1 <= _encoding.n_threads() <= _encoding.MAX_THREADS
    for wrong in ("zero", "0", "-2", "1.5"):
        monkeypatch.setenv("TOPKEVAL_THREADS", wrong)
        with pytest.raises(InvalidInputError, match="TOPKEVAL_THREADS is .*whole number"):
            _encoding.n_threads()


def test_busy_cpus_are_not_counted(monkeypatch):
    monkeypatch.delenv("TOPKEVAL_THREADS", raising=False)
    monkeypatch.setattr(_encoding.os, "sched_getaffinity", lambda pid: {0, 1, 2}, raising=False)
    for others, want in ((0, 3), (1, 2), (2, 1), (7, 1)):
        monkeypatch.setattr(_encoding, "_busy_elsewhere", lambda n=others: n)
        assert _encoding.n_threads() == want
    monkeypatch.setattr(_encoding.os, "sched_getaffinity", lambda pid: set(range(16)), raising=False)
    monkeypatch.setattr(_encoding, "_busy_elsewhere", lambda: 0)
    assert _encoding.n_threads() == _encoding.MAX_THREADS


def test_busy_elsewhere_reads_the_running_tasks(monkeypatch, tmp_path):
    loadavg = tmp_path / "loadavg"
    real_open = open

    def fake_open(path, *args, **kwargs):
        return real_open(loadavg if path == "/proc/loadavg" else path, *args, **kwargs)

    monkeypatch.setattr("builtins.open", fake_open)
    for text, want in (("3.36 3.28 3.73 4/275 24859\n", 3), ("0.01 0.05 0.10 1/90 7\n", 0), ("garbage", 0)):
        loadavg.write_text(text)
        assert _encoding._busy_elsewhere() == want


def shuffled_column_heads_are_all_rows():
    """(helper for the test below) a long column whose rows alternate between users."""
    return pd.Series([f"u{i % 7}" for i in range(5000)], dtype="str")


def test_shuffled_rows_skip_the_run_comparison():
    heads = batch_module._run_heads(shuffled_column_heads_are_all_rows())
    assert heads.all() and heads.size == 5000
    grouped = pd.Series(np.repeat([f"u{i}" for i in range(100)], 50), dtype="str")
    heads = batch_module._run_heads(grouped)
    assert heads.sum() == 100 and heads[::50].all()


# ----------------------------------------------------------------- evaluate() end to end
def score_frames(rng, n_users, lengths, n_items, n_scores, layout):
    """Score rows with many ties; ``layout``: grouped (best first or not), shuffled, or split runs."""
    users = np.repeat(np.arange(n_users), lengths)
    items = np.concatenate([rng.choice(n_items, size=n, replace=False) for n in lengths] or [[]])
    scores = rng.integers(0, n_scores, size=users.size).astype(float)
    recs = pd.DataFrame({"user": users, "item": items.astype(np.int64), "score": scores})
    if layout == "best_first":
        recs = recs.sort_values(["user", "score"], ascending=[True, False], kind="stable")
    elif layout == "shuffled":
        recs = recs.sample(frac=1.0, random_state=int(rng.integers(1 << 30)))
    elif layout == "mostly_best_first":  # every third user's rows in order
        ordered = recs.sort_values(["user", "score"], ascending=[True, False], kind="stable")
        recs = pd.concat([g if u % 3 == 0 else recs[recs["user"] == u] for u, g in ordered.groupby("user")])
    truth_users = rng.integers(0, n_users + 2, size=n_users * 3)  # some users only in the truth
    truth = pd.DataFrame({"user": truth_users, "item": rng.integers(0, n_items, size=truth_users.size)})
    truth = truth.drop_duplicates(["user", "item"]).assign(grade=lambda f: rng.integers(0, 4, size=len(f)))
    recs = recs.assign(user="u" + recs["user"].astype(str), item="i" + recs["item"].astype(str))
    truth = truth.assign(user="u" + truth["user"].astype(str), item="i" + truth["item"].astype(str))
    return recs.reset_index(drop=True), truth.reset_index(drop=True)


def storage(frame: pd.DataFrame, kind: str):
    """The same frame with its ids as pandas str, object, pd.ArrowDtype, or as a Polars frame."""
    if kind == "str":
        return frame.astype({"user": "str", "item": "str"})
    if kind == "object":
        return frame.astype({"user": object, "item": object})
    table = pa.Table.from_pandas(frame, preserve_index=False)
    if kind == "arrow":
        return table
    pl = pytest.importorskip("polars")
    return pl.from_arrow(table)


def assert_same(got: pd.DataFrame, want: pd.DataFrame) -> None:
    """Bit-identical values, the same users in the same order (the index's dtype follows the input's)."""
    assert got.index.astype(object).tolist() == want.index.astype(object).tolist()
    pd.testing.assert_frame_equal(got.reset_index(drop=True), want.reset_index(drop=True), check_exact=True)
    assert got.attrs == want.attrs


def single_threaded_general_path(recs, truth, **options) -> pd.DataFrame:
    """The oracle: one thread, and the global lexsort instead of the per-user sorts."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TOPKEVAL_THREADS", "1")
        patch.setattr(batch_module._ranking, "top_by_score", lambda *a, **k: None)
        return evaluate(recs.astype({"user": object, "item": object}), truth, **options)


@pytest.mark.parametrize("kind", ["str", "object", "arrow", "polars"])
@pytest.mark.parametrize("layout", ["best_first", "mostly_best_first", "grouped", "shuffled"])
@pytest.mark.parametrize("ragged", [False, True])
def test_threads_and_fast_paths_equal_the_general_path(many_threads, kind, layout, ragged):
    rng = np.random.default_rng([len(kind), len(layout), ragged])
    n_users = 40
    lengths = rng.integers(1, 30, size=n_users) if ragged else np.full(n_users, 12)
    lengths[:3] = 1  # users with one row
    recs, truth = score_frames(rng, n_users, lengths, 60, 3, layout)
    for ties in TIES:
        for options in (
            dict(k=[1, 5, 12], metrics=["precision", "recall", "rr", "ap", "ndcg", "rbp"], empty="zero"),
            dict(k=[3, 40], metrics=["ndcg", "err"], ideal="listed", relevance_col="grade", empty="skip"),
        ):
            got = evaluate(storage(recs, kind), storage(truth, kind), ties=ties, **options)
            want = single_threaded_general_path(recs, truth, ties=ties, **options)
            assert_same(got, want)


@pytest.mark.parametrize("ties", TIES)
def test_best_first_rows_with_ties_at_the_cutoff(many_threads, ties):
    """Lists already in order whose k-th and (k+1)-th scores tie: the tie rule still decides."""
    recs = pd.DataFrame(
        {
            "user": ["a"] * 4 + ["b"] * 4 + ["c"] * 4,
            "item": ["x", "z", "y", "w", "p", "q", "r", "s", "m", "n", "o", "l"],
            "score": [9.0, 5.0, 5.0, 1.0, 4.0, 3.0, 2.0, 1.0, 7.0, 7.0, 7.0, 7.0],
        }
    )
    truth = pd.DataFrame({"user": ["a", "b", "c"], "item": ["y", "r", "l"]})
    got = evaluate(recs, truth, k=2, metrics=["precision", "rr"], ties=ties)
    want = single_threaded_general_path(recs, truth, k=2, metrics=["precision", "rr"], ties=ties)
    assert_same(got, want)
    expected_a = {"item_ascending": 0.5, "item_descending": 0.0, "input_order": 0.0}[ties]
    assert got.loc["a", "precision@2"] == expected_a  # y before z only when ascending
    expected_c = {"item_ascending": 1.0, "item_descending": 0.0, "input_order": 0.0}[ties]
    assert got.loc["c", "rr@2"] == expected_c  # l is the smallest id, and the last row


def test_shuffled_rows_with_a_duplicate_item_raise_like_the_general_path(many_threads):
    recs = pd.DataFrame(
        {
            "user": ["a", "b", "a", "b", "a"],
            "item": ["x", "y", "z", "w", "x"],
            "score": [3.0, 2.0, 1.0, 4.0, 0.5],
        }
    )
    truth = pd.DataFrame({"user": ["a", "b"], "item": ["x", "y"]})
    with pytest.raises(ValueError) as fast:
        evaluate(recs, truth, k=3)
    with pytest.raises(ValueError) as slow:
        single_threaded_general_path(recs, truth, k=3)
    assert str(fast.value) == str(slow.value) and "'a'" in str(fast.value)


def test_the_first_bad_block_in_user_order_raises(many_threads):
    """Metric blocks run in threads: a repeated item in two blocks is reported for the earlier user, as
    on one thread, whichever block finishes first."""
    users = [f"u{i:02d}" for i in range(40)]
    recs = pd.DataFrame({"user": np.repeat(users, 3), "item": ["a", "b", "c"] * 40, "rank": [1, 2, 3] * 40})
    recs.loc[[3 * 7 + 2, 3 * 33 + 2], "item"] = "a"  # u07 (second block) and u33 (seventh) list a twice
    truth = pd.DataFrame({"user": users, "item": ["a"] * 40})
    for _ in range(5):
        with pytest.raises(ValueError, match="'u07'"):
            evaluate(recs, truth, k=3)


def test_raise_on_a_tie_in_a_threaded_block(many_threads):
    recs = pd.DataFrame(
        {
            "user": np.repeat([f"u{i}" for i in range(9)], 3),
            "item": ["a", "b", "c"] * 9,
            "score": 1.0 * np.arange(27),
        }
    )
    recs.loc[24, "score"] = recs.loc[26, "score"]  # one tie, at the top of the last user's list
    truth = pd.DataFrame({"user": ["u0"], "item": ["a"]})
    with pytest.raises(ValueError, match="'u8' has tied scores"):
        evaluate(recs, truth, k=2, ties="raise", empty="zero")
    assert evaluate(recs, truth, k=1, ties="raise", empty="zero").shape[0] == 9  # a tie below k is fine


def test_string_and_large_string_columns_share_one_code_book(many_threads):
    """pandas' str (Arrow large_string) recommendations with a pyarrow truth of plain strings: one type."""
    rng = np.random.default_rng(5)
    recs, truth = score_frames(rng, 30, np.full(30, 9), 40, 3, "shuffled")
    plain = pa.table({"user": pa.array(truth["user"].tolist()), "item": pa.array(truth["item"].tolist())})
    assert plain.schema.field("item").type == pa.string()
    options = dict(k=[2, 5], metrics=["precision", "ap", "ndcg"], empty="zero")
    got = evaluate(recs.astype({"user": "str", "item": "str"}), plain, **options)
    assert_same(got, single_threaded_general_path(recs, truth.drop(columns="grade"), **options))


def test_the_score_column_is_read_in_place_and_left_unchanged(many_threads):
    rng = np.random.default_rng(9)
    recs, truth = score_frames(rng, 20, np.full(20, 6), 30, 4, "shuffled")
    before = recs.copy(deep=True)
    evaluate(recs, truth, k=3)
    pd.testing.assert_frame_equal(recs, before, check_exact=True)
