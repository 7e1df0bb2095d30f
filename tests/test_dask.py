"""topkeval.dask: topkeval.evaluate per partition of users gives the numbers of topkeval.evaluate."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import topkeval

dd = pytest.importorskip("dask.dataframe", reason='dask is not installed (pip install -e ".[dask]")')
import topkeval.dask as hd  # noqa: E402


def make_data(n_users: int = 200, seed: int = 6):
    """Tied scores, short lists, graded truth, users with no relevant item and users with no list."""
    rng = np.random.default_rng(seed)
    recs, truth = [], []
    for u in range(n_users):
        if u % 5:
            items = rng.choice(40, size=int(rng.integers(1, 12)), replace=False)
            recs += [(u, int(i), float(rng.integers(0, 4))) for i in items]
        if u % 7:
            items = rng.choice(40, size=int(rng.integers(1, 6)), replace=False)
            truth += [(u, int(i), int(rng.integers(0, 3))) for i in items]
    return (
        pd.DataFrame(recs, columns=["user", "item", "score"]),
        pd.DataFrame(truth, columns=["user", "item", "relevance"]),
    )


def _same(got: pd.DataFrame, expected: pd.DataFrame) -> None:
    got = got.sort_index()
    assert got.index.tolist() == expected.index.tolist() and list(got.columns) == list(expected.columns)
    assert np.abs(got.to_numpy() - expected.to_numpy()).max() <= 1e-12


@pytest.mark.parametrize(
    "options",
    [
        dict(empty="skip"),
        dict(empty="zero", gain="exponential", ideal="listed"),
        dict(empty="zero", denominator="n_relevant", ties="item_descending"),
    ],
)
def test_shuffled_on_user_gives_the_numbers_of_evaluate(options):
    recs, truth = make_data()
    expected = topkeval.evaluate(recs, truth, [3, 10], **options)
    got = hd.evaluate(
        dd.from_pandas(recs, npartitions=4), dd.from_pandas(truth, npartitions=3), [3, 10], **options
    )
    _same(got.compute(), expected)


def test_already_partitioned_by_user_needs_no_shuffle():
    recs, truth = make_data()
    parts = [0, 1, 2]
    r = dd.from_map(lambda p: recs[recs["user"] % 3 == p], parts)
    t = dd.from_map(lambda p: truth[truth["user"] % 3 == p], parts)
    expected = topkeval.evaluate(recs, truth, 5, empty="zero")
    _same(hd.evaluate(r, t, 5, empty="zero", partitioned_by_user=True).compute(), expected)
    assert (
        abs(
            hd.evaluate(r, t, 5, empty="zero", partitioned_by_user=True)["ap@5"].mean().compute()
            - expected["ap@5"].mean()
        )
        <= 1e-12
    )


def test_bad_input_gets_the_librarys_messages():
    recs, truth = make_data(20)
    with pytest.raises(TypeError, match="must be a dask DataFrame"):
        hd.evaluate(recs, dd.from_pandas(truth, npartitions=1), 3)
    with pytest.raises(ValueError, match="empty must be one of"):
        hd.evaluate(dd.from_pandas(recs, npartitions=1), dd.from_pandas(truth, npartitions=1), 3, empty="no")
    with pytest.raises(ValueError, match="no relevant item"):
        hd.evaluate(dd.from_pandas(recs, npartitions=2), dd.from_pandas(truth, npartitions=2), 3).compute()


def test_err_scale_and_rbp_residual_are_those_of_the_whole_truth():
    """ERR's g_max is the whole truth's largest grade even where a partition's grades stop lower."""
    recs, truth = make_data()
    truth.loc[truth.index[0], "relevance"] = 5  # one grade 5, in one partition only
    options = dict(metrics=["err", "rbp", "rbp_residual"], empty="zero")
    expected = topkeval.evaluate(recs, truth, 5, **options)
    assert expected.attrs["err_max_grade"] == 5.0
    got = hd.evaluate(dd.from_pandas(recs, npartitions=4), dd.from_pandas(truth, npartitions=3), 5, **options)
    _same(got.compute(), expected)
