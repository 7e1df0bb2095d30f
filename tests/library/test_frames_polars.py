"""Polars frames are read without copying their strings: ids arrive as Arrow ``string_view`` columns.

Every row layout the benchmark times (rank rows, score rows grouped by user, grouped but unordered,
shuffled), with string, integer, Categorical and Enum ids, must give exactly the numbers of the same data
as pandas frames; so must the fallback for a Polars without ``CompatLevel`` (the old, copying
conversion). The string_view helpers in ``topkeval._frames`` are checked against pandas on
``large_string`` columns: sliced and multi-chunk arrays, ids longer than the 12 bytes a view holds inline.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import topkeval
from topkeval import InputTypeError, _encoding
from topkeval._frames import arrow_numbers, as_pandas, decoded, is_string_view, mask_rows, without_views

pa = pytest.importorskip("pyarrow")
pl = pytest.importorskip("polars")

LAYOUTS = ("frames", "scores", "unsorted", "shuffled")
IDS = ("str", "int", "categorical", "enum")


def _rows(layout: str, seed: int = 7) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(recommendations, truth) as pandas with str ids, in one of the benchmark's four row layouts.

    Some ids are longer than 12 bytes (held in a view's data buffer, not inline); users have lists of
    different lengths, and a few relevant items are never recommended.
    """
    rng = np.random.default_rng(seed)
    n_users, n_items = 30, 25
    lengths = rng.integers(1, 9, size=n_users)
    user = np.repeat(np.arange(n_users), lengths)
    rank = np.concatenate([np.arange(1, n + 1) for n in lengths])
    item = np.concatenate([rng.choice(n_items, size=n, replace=False) for n in lengths])
    recs = pd.DataFrame({"user": user, "item": item, "rank": rank})
    if layout != "frames":
        recs = pd.DataFrame({"user": user, "item": item, "score": (10.0 - rank) / 3})
    if layout == "unsorted":  # still grouped by user, each user's rows in random order
        recs = recs.iloc[np.lexsort((rng.random(len(recs)), user))]
    elif layout == "shuffled":
        recs = recs.iloc[rng.permutation(len(recs))]
    truth = pd.DataFrame(
        {"user": rng.integers(0, n_users + 3, size=60), "item": rng.integers(0, n_items, 60)}
    )
    truth = truth.drop_duplicates()
    return recs.reset_index(drop=True), truth.reset_index(drop=True)


def _with_ids(frame: pd.DataFrame, ids: str) -> pd.DataFrame:
    """The frame with its integer ids as strings (some longer than a view holds inline), or as they are."""
    if ids == "int":
        return frame
    return frame.assign(
        user="user-" + frame["user"].astype(str), item="an-item-with-a-long-name-" + frame["item"].astype(str)
    )


def _as_polars(frame: pd.DataFrame, ids: str):
    """The frame as Polars, its id columns cast to Categorical or Enum when asked."""
    frame = pl.from_pandas(frame)
    if ids == "categorical":
        return frame.with_columns(pl.col("user", "item").cast(pl.Categorical))
    if ids == "enum":
        users = [f"user-{u}" for u in range(40)]
        items = [f"an-item-with-a-long-name-{i}" for i in range(25)]
        return frame.with_columns(pl.col("user").cast(pl.Enum(users)), pl.col("item").cast(pl.Enum(items)))
    return frame


def _assert_same(got: pd.DataFrame, want: pd.DataFrame) -> None:
    """Bit-identical values for the same users in the same order (the index dtype follows the input's)."""
    assert [str(u) for u in got.index] == [str(u) for u in want.index]
    pd.testing.assert_frame_equal(got.reset_index(drop=True), want.reset_index(drop=True), check_exact=True)


def _evaluate(recs, truth):
    return topkeval.evaluate(recs, truth, k=[1, 3, 10], denominator="n_relevant", empty="zero")


@pytest.fixture(params=["one thread", "three threads"])
def threads(request, monkeypatch):
    """Also cut every column into three pieces hashed in threads (each piece's dictionary of views
    is cast and unified)."""
    if request.param == "three threads":
        monkeypatch.setattr(_encoding, "PARALLEL_ROWS", 1)
        monkeypatch.setattr(_encoding, "n_threads", lambda: 3)
    else:
        monkeypatch.setenv("TOPKEVAL_THREADS", "1")


@pytest.mark.parametrize("ids", IDS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_polars_gives_exactly_the_pandas_numbers(layout, ids, threads):
    recs, truth = (_with_ids(f, ids) for f in _rows(layout))
    want = _evaluate(recs, truth)
    _assert_same(_evaluate(_as_polars(recs, ids), _as_polars(truth, ids)), want)
    _assert_same(_evaluate(_as_polars(recs, ids), truth), want)  # Polars with pandas
    _assert_same(_evaluate(recs, _as_polars(truth, ids)), want)  # pandas with Polars


@pytest.mark.parametrize("layout", LAYOUTS)
def test_polars_in_several_chunks_gives_the_pandas_numbers(layout):
    """A frame built by appending keeps its pieces as separate Arrow chunks: the masks and codes are
    cut at the chunk borders."""
    recs, truth = (_with_ids(f, "str") for f in _rows(layout, seed=8))
    half = len(recs) // 3
    pieces = pl.concat([pl.from_pandas(recs.iloc[:half]), pl.from_pandas(recs.iloc[half:])], rechunk=False)
    assert pieces["user"].n_chunks() == 2
    _assert_same(_evaluate(pieces, pl.from_pandas(truth)), _evaluate(recs, truth))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_polars_without_compat_levels_takes_the_old_conversion(layout, monkeypatch):
    """A Polars older than ``CompatLevel`` (1.0) exports large_string; the numbers are the same."""
    recs, truth = (_with_ids(f, "str") for f in _rows(layout))
    monkeypatch.delattr(pl, "CompatLevel")
    assert as_pandas(pl.from_pandas(recs), "recommendations")["user"].dtype == pd.ArrowDtype(
        pa.large_string()
    )
    _assert_same(_evaluate(pl.from_pandas(recs), pl.from_pandas(truth)), _evaluate(recs, truth))


def test_polars_strings_and_numbers_are_shared_not_copied():
    frame = pl.DataFrame(
        {"user": ["u1", "a-user-id-longer-than-twelve"], "rank": [1, 2], "score": [0.5, 0.25]}
    )
    wrapped = as_pandas(frame, "recommendations")
    assert wrapped["user"].dtype == pd.ArrowDtype(pa.string_view())
    exported = frame.to_arrow(compat_level=pl.CompatLevel.newest())
    for name in ("user", "rank", "score"):
        ours = wrapped[name].array.__arrow_array__().chunk(0).buffers()[1]
        assert ours.address == exported.column(name).chunk(0).buffers()[1].address  # Polars' own buffer


def test_polars_categorical_and_enum_arrive_as_dictionaries_of_large_strings():
    frame = pl.DataFrame({"user": ["u1", "u2"], "item": ["a", "b"]}).with_columns(
        pl.col("user").cast(pl.Categorical), pl.col("item").cast(pl.Enum(["a", "b"]))
    )
    wrapped = as_pandas(frame, "truth")
    for name in ("user", "item"):
        kind = wrapped[name].dtype.pyarrow_dtype
        assert pa.types.is_dictionary(kind) and pa.types.is_large_string(kind.value_type)
    assert wrapped["item"].tolist() == ["a", "b"]


def test_the_user_index_of_polars_ids_is_large_string():
    """pandas cannot hold an Index of views: the code book is the hashed dictionary, cast."""
    recs, truth = (_with_ids(f, "str") for f in _rows("frames"))
    got = _evaluate(pl.from_pandas(recs), pl.from_pandas(truth))
    assert got.index.dtype == pd.ArrowDtype(pa.large_string())
    assert got.index.name == "user"


def test_polars_ids_of_the_wrong_kind_are_told_not_crashed():
    """pandas' dtype checks raise NotImplementedError on string_view: the usual messages instead."""
    recs = pl.DataFrame({"user": ["u1", "u1"], "item": ["a", "b"], "rank": ["1", "2"]})
    truth = pl.DataFrame({"user": ["u1"], "item": ["a"]})
    with pytest.raises(InputTypeError, match="'rank' column of recommendations must be numeric"):
        topkeval.evaluate(recs, truth, k=2)
    numbered = recs.with_columns(pl.Series("rank", [1, 2]), pl.Series("item", [1, 2]))
    with pytest.raises(
        InputTypeError, match=r"item ids in recommendations are numbers .* strings or objects"
    ):
        topkeval.evaluate(numbered, truth, k=2)


def test_polars_ids_with_python_object_ids_on_the_other_side():
    """Not both Arrow strings: pandas' factorize over both, with the views cast to large_string."""
    recs, truth = (_with_ids(f, "str") for f in _rows("scores"))
    want = _evaluate(recs, truth)
    _assert_same(_evaluate(pl.from_pandas(recs), truth.astype({"user": object, "item": object})), want)


# ---------------------------------------------------------------- the string_view helpers
def _views(values: list[str | None], offset: int = 0):
    """A pandas column of Arrow string_view data in two chunks, the first one a slice (offset)."""
    array = pa.array(["skipped"] * offset + values, type=pa.string_view()).slice(offset)
    chunked = pa.chunked_array([array.slice(0, 3), array.slice(3)])
    return pd.Series(pd.arrays.ArrowExtensionArray(chunked), name="user")


IDS_TO_MASK = ["u1", "a-long-user-identifier-1", "u2", "", "a-long-user-identifier-1", "u3", "u1"]


@pytest.mark.parametrize("offset", [0, 2])
def test_mask_rows_keeps_the_rows_pandas_would_keep(offset):
    column = _views(IDS_TO_MASK, offset)
    keep = np.array([True, True, False, True, False, True, True])
    got = mask_rows(column, keep)
    assert is_string_view(got.dtype)
    assert got.tolist() == pd.Series(IDS_TO_MASK)[keep].tolist()
    assert mask_rows(column, np.zeros(len(IDS_TO_MASK), dtype=bool)).tolist() == []


def test_mask_rows_with_missing_ids_and_on_other_columns():
    column = _views(["u1", None, "u2", "u3"])
    keep = np.array([True, True, False, True])
    assert mask_rows(column, keep).tolist()[0] == "u1" and pd.isna(mask_rows(column, keep).tolist()[1])
    plain = pd.Series(["a", "b", "c"])
    pd.testing.assert_series_equal(
        mask_rows(plain, np.array([True, False, True])), plain[[True, False, True]]
    )


def test_without_views_casts_views_only():
    column = _views(IDS_TO_MASK)
    cast = without_views(column)
    assert cast.dtype == pd.ArrowDtype(pa.large_string())
    assert cast.tolist() == IDS_TO_MASK and cast.name == "user"
    plain = pd.Series([1, 2])
    assert without_views(plain) is plain
    assert not is_string_view(plain.dtype) and not is_string_view(pd.ArrowDtype(pa.large_string()))


@pytest.mark.parametrize("sort", [True, False])
def test_arrow_codes_of_views_equal_those_of_large_strings(sort, many_pieces):
    first = pa.chunked_array([pa.array(IDS_TO_MASK * 3, type=pa.string_view())])
    second = pa.chunked_array([pa.array(["u3", "new-and-quite-long-id", "u1"], type=pa.string_view())])
    executor = _encoding.pool()  # None for one thread
    try:
        got = _encoding.arrow_codes(first, second, sort, executor)()
        large = (first.cast(pa.large_string()), second.cast(pa.large_string()))
        want = _encoding.arrow_codes(*large, sort, executor)()
    finally:
        if executor is not None:
            executor.shutdown()
    assert got[2].type == pa.large_string()
    assert got[2].to_pylist() == want[2].to_pylist()
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


@pytest.fixture(params=[1, 3])
def many_pieces(request, monkeypatch):
    """Hash in one piece, or in three (three dictionaries of views, unified)."""
    monkeypatch.setattr(_encoding, "PARALLEL_ROWS", 1)
    monkeypatch.setattr(_encoding, "n_threads", lambda: request.param)


def test_unused_enum_categories_are_not_users():
    """An Enum (or any Arrow dictionary) lists categories no row uses; they must not become users."""
    users = pl.Enum(["u1", "u2", "u3", "u4"])
    recs = pl.DataFrame({"user": ["u1", "u1", "u2"], "item": ["a", "b", "a"], "rank": [1, 2, 1]})
    truth = pl.DataFrame({"user": ["u1", "u2"], "item": ["a", "b"]})
    got = topkeval.evaluate(
        recs.with_columns(pl.col("user").cast(users)),
        truth.with_columns(pl.col("user").cast(users)),
        k=2,
        empty="zero",
    )
    assert got.index.tolist() == ["u1", "u2"]
    users_in_a_dictionary = pa.DictionaryArray.from_arrays(pa.array([0, 1], pa.int32()), ["u1", "u2", "u9"])
    table = pa.table({"user": users_in_a_dictionary, "item": ["a", "b"]})
    assert topkeval.evaluate(recs, table, k=2, empty="zero").index.tolist() == ["u1", "u2"]


def test_decoded_gives_a_dictionary_column_its_values():
    column = pd.Series(
        pd.arrays.ArrowExtensionArray(pa.chunked_array([pa.array(["b", "a", "b"]).dictionary_encode()]))
    )
    assert decoded(column).dtype == pd.ArrowDtype(pa.string()) and decoded(column).tolist() == ["b", "a", "b"]
    plain = pd.Series(["a"])
    assert decoded(plain) is plain


def test_arrow_numbers_read_the_buffer_in_place():
    frame = as_pandas(
        pl.DataFrame({"rank": [1, 2, 3], "score": [0.5, 0.25, 0.0], "gap": [1.0, None, 2.0]}), "r"
    )
    ranks = arrow_numbers(frame["rank"])
    assert ranks.dtype == np.int64 and ranks.tolist() == [1, 2, 3]
    assert ranks.ctypes.data == frame["rank"].array.__arrow_array__().chunk(0).buffers()[1].address
    assert arrow_numbers(frame["score"]).tolist() == [0.5, 0.25, 0.0]
    assert arrow_numbers(frame["gap"]) is None  # a missing value: pandas' own conversion (NaN) decides
    assert arrow_numbers(pd.Series([1, 2])) is None  # not Arrow
    two = pd.Series(pd.arrays.ArrowExtensionArray(pa.chunked_array([[1, 2], [3]])))
    assert arrow_numbers(two).tolist() == [1, 2, 3]


def test_polars_integer_ids_take_the_small_integer_path(monkeypatch):
    """Arrow integer item ids in a compact range are their own codes, as NumPy ones are: no hashing."""
    recs, truth = _rows("frames")
    want = _evaluate(recs, truth)
    monkeypatch.setattr(topkeval.batch, "_factorized", lambda *a: pytest.fail("hashed integer item ids"))
    monkeypatch.setattr(_encoding, "arrow_codes", lambda *a: pytest.fail("hashed integer item ids"))
    got = topkeval.batch._codes(*(as_pandas(pl.from_pandas(f), "f")["item"] for f in (recs, truth)), "item")()
    np.testing.assert_array_equal(got[0], recs["item"].to_numpy())
    monkeypatch.undo()
    _assert_same(_evaluate(pl.from_pandas(recs), pl.from_pandas(truth)), want)
