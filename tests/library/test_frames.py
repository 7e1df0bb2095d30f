"""topkeval.evaluate reads pyarrow Tables and Polars DataFrames, and says how to convert anything else.

Each accepted kind of frame must give exactly the numbers the same data gives as pandas
DataFrames, for string and integer ids, ranks and scores, graded truth and mixed inputs.
pyarrow and Polars are optional: their tests skip when the package is missing.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import topkeval
from topkeval._frames import as_pandas

RECS = pd.DataFrame(
    {
        "user": ["u1"] * 3 + ["u2"] * 3 + ["u3"] * 2,
        "item": ["a", "b", "c", "c", "a", "d", "b", "e"],
        "rank": [1, 2, 3, 1, 2, 3, 2, 1],
        "score": [0.9, 0.5, 0.1, 0.8, 0.8, 0.2, 0.3, 0.7],
    }
)
TRUTH = pd.DataFrame(
    {
        "user": ["u1", "u1", "u2", "u3", "u3"],
        "item": ["a", "c", "d", "e", "z"],
        "relevance": [2.0, 1.0, 3.0, 1.0, 0.0],
    }
)


def _same_scores(got: pd.DataFrame, expected: pd.DataFrame) -> None:
    """Equal numbers for the same users; the index dtype may be Arrow-backed."""
    assert [str(u) for u in got.index] == [str(u) for u in expected.index]
    assert list(got.columns) == list(expected.columns)
    np.testing.assert_allclose(got.to_numpy(), expected.to_numpy(), rtol=0, atol=1e-12)


def _cases():
    """(recommendations, truth, keyword arguments) triples, as pandas frames."""
    by_rank = RECS.drop(columns="score")
    by_score = RECS.drop(columns="rank")
    int_ids = RECS.assign(
        user=RECS["user"].str[1:].astype("int64"),
        item=RECS["item"].map({c: i for i, c in enumerate("abcdez")}).astype("int64"),
    )
    int_truth = TRUTH.assign(
        user=TRUTH["user"].str[1:].astype("int64"),
        item=TRUTH["item"].map({c: i for i, c in enumerate("abcdez")}).astype("int64"),
    )
    return {
        "rank, str ids": (by_rank, TRUTH, {}),
        "score, ties by item": (by_score, TRUTH.drop(columns="relevance"), {"ties": "item_descending"}),
        "int ids, graded": (int_ids.drop(columns="score"), int_truth, {"gain": "exponential"}),
    }


CASES = _cases()


@pytest.mark.parametrize("case", CASES)
def test_pyarrow_tables_give_the_pandas_numbers(case):
    pa = pytest.importorskip("pyarrow")
    recs, truth, options = CASES[case]
    expected = topkeval.evaluate(recs, truth, k=[2, 3], **options)
    tables = (
        pa.Table.from_pandas(recs, preserve_index=False),
        pa.Table.from_pandas(truth, preserve_index=False),
    )
    _same_scores(topkeval.evaluate(*tables, k=[2, 3], **options), expected)
    batches = [t.to_batches()[0] for t in tables]  # a RecordBatch too
    _same_scores(topkeval.evaluate(*batches, k=[2, 3], **options), expected)


@pytest.mark.parametrize("case", CASES)
def test_polars_frames_give_the_pandas_numbers(case):
    pl = pytest.importorskip("polars")
    pytest.importorskip("pyarrow")
    recs, truth, options = CASES[case]
    expected = topkeval.evaluate(recs, truth, k=[2, 3], **options)
    got = topkeval.evaluate(pl.from_pandas(recs), pl.from_pandas(truth), k=[2, 3], **options)
    _same_scores(got, expected)
    mixed = topkeval.evaluate(pl.from_pandas(recs), truth, k=[2, 3], **options)  # Polars with pandas
    _same_scores(mixed, expected)


def test_arrow_data_is_wrapped_not_copied():
    pa = pytest.importorskip("pyarrow")
    table = pa.table({"user": pa.array(["u1", "u2"]), "rank": pa.array([1, 2], type=pa.int64())})
    frame = as_pandas(table, "recommendations")
    assert all(isinstance(dtype, pd.ArrowDtype) for dtype in frame.dtypes)
    rank = frame["rank"].array._pa_array  # the pandas column holds the table's own buffers
    assert rank.chunk(0).buffers()[1].address == table.column("rank").chunk(0).buffers()[1].address


def test_polars_lazyframe_says_collect():
    pl = pytest.importorskip("polars")
    lazy = pl.from_pandas(RECS).lazy()
    with pytest.raises(
        TypeError,
        match=re.escape("recommendations is a Polars LazyFrame")
        + ".*"
        + re.escape("pass recommendations.collect()"),
    ):
        topkeval.evaluate(lazy, TRUTH, k=3)


@pytest.mark.parametrize(
    ("frame", "hint"),
    [
        ({"user": ["u1"], "item": ["a"]}, "got dict. Build one from the columns: pandas.DataFrame(truth)."),
        (np.array([[1, 2]]), "got numpy.ndarray. Name the columns: pandas.DataFrame(truth, columns="),
        (TRUTH["user"], "got pandas.Series. Pass the whole table (user and item columns), not one column"),
        ([("u1", "a")], "got list. Convert it to a pandas DataFrame with one row per (user, item) first."),
    ],
)
def test_other_objects_are_told_how_to_convert(frame, hint):
    with pytest.raises(
        TypeError,
        match="^"
        + re.escape("truth must be a pandas DataFrame, a pyarrow Table or a Polars DataFrame; " + hint),
    ):
        topkeval.evaluate(RECS, frame, k=3)


def test_something_with_to_pandas_is_told_to_call_it():
    class Frame:  # e.g. a cuDF or Modin-like frame we do not read
        def to_pandas(self):
            return RECS

    with pytest.raises(
        TypeError, match=r"got [\w.]*Frame\. " + re.escape("Convert it first: recommendations.to_pandas().")
    ):
        topkeval.evaluate(Frame(), TRUTH, k=3)


def test_pandas_only_functions_say_how_to_convert_a_polars_frame():
    pl = pytest.importorskip("polars")
    with pytest.raises(
        TypeError,
        match=re.escape(
            "interactions must be a pandas DataFrame; got polars.DataFrame. Convert it first: "
            "interactions.to_pandas()."
        ),
    ):
        topkeval.leave_one_out_split(pl.from_pandas(RECS.rename(columns={"rank": "timestamp"})))


def test_polars_is_never_imported_by_the_library():
    code = (
        "import sys, pandas as pd, topkeval; "
        "topkeval.evaluate(pd.DataFrame({'user': [1], 'item': [2], 'rank': [1]}), "
        "pd.DataFrame({'user': [1], 'item': [2]}), k=1); "
        "print('polars' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert out.stdout.strip() == "False"
