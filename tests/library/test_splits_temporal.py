"""topkeval.splits.temporal_split: one global cutoff in time."""

from __future__ import annotations

import pandas as pd
import pytest

from helpers.experiments.data import synthetic_interactions
from topkeval.splits import temporal_split


@pytest.fixture
def log():
    return pd.DataFrame(
        {
            "user": ["u", "u", "u", "v", "v", "w", "w"],
            "item": ["a", "b", "c", "a", "b", "a", "d"],
            "timestamp": [1, 2, 5, 3, 5, 6, 7],
        }
    )


def test_cutoff_splits_by_time_and_ties_go_to_test(log):
    train, test = temporal_split(log, cutoff=5, cold="keep")
    assert train["timestamp"].max() < 5 <= test["timestamp"].min()
    assert sorted(train.index) == [0, 1, 3]
    assert sorted(test.index) == [2, 4, 5, 6]  # both rows at t=5 are test
    assert test.attrs == {"cutoff": 5, "n_cold_dropped": 0}


def test_cold_rows_dropped_by_default(log):
    train, test = temporal_split(log, cutoff=5)
    # c: new item; w: new user (rows 5, 6); v-b at 5 stays (v and b are known)
    assert sorted(test.index) == [4]
    assert test.attrs["n_cold_dropped"] == 3


def test_fraction_picks_the_cutoff(log):
    train, test = temporal_split(log, test_fraction=2 / 7, cold="keep")
    assert test.attrs["cutoff"] == 6
    assert len(test) == 2 and len(train) == 5
    # ties at the cutoff make the test share larger than asked
    train, test = temporal_split(log, test_fraction=3 / 7, cold="keep")
    assert test.attrs["cutoff"] == 5 and len(test) == 4


def test_datetimes_work(log):
    dated = log.assign(timestamp=pd.to_datetime(log["timestamp"], unit="D"))
    train, test = temporal_split(dated, test_fraction=2 / 7, cold="keep")
    assert test.attrs["cutoff"] == pd.Timestamp("1970-01-07")
    assert sorted(test.index) == [5, 6]


def test_synthetic_log_split_is_clean():
    log = synthetic_interactions(n_users=200, n_items=150, seed=2)
    train, test = temporal_split(log, test_fraction=0.2)
    assert train["timestamp"].max() < test["timestamp"].min()
    assert test["user"].isin(train["user"]).all() and test["item"].isin(train["item"]).all()
    assert len(train) + len(test) + test.attrs["n_cold_dropped"] == len(log)
    assert 0.15 < (len(test) + test.attrs["n_cold_dropped"]) / len(log) < 0.25


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({}, "exactly one of test_fraction"),
        ({"test_fraction": 0.2, "cutoff": 3}, "exactly one of test_fraction"),
        ({"test_fraction": 1.0}, r"test_fraction must be in \(0, 1\)"),
        ({"test_fraction": 0.0}, r"test_fraction must be in \(0, 1\)"),
        ({"cutoff": 100}, "leaves test empty"),
        ({"cutoff": 0}, "leaves train empty"),
        ({"cutoff": 3, "cold": "skip"}, "cold must be one of 'drop', 'keep'; got 'skip'"),
    ],
)
def test_errors(log, kwargs, message):
    with pytest.raises(ValueError, match=message):
        temporal_split(log, **kwargs)


def test_missing_column_and_times(log):
    with pytest.raises(ValueError):
        temporal_split(log.drop(columns="timestamp"), cutoff=3)
    with pytest.raises(ValueError, match="missing values"):
        temporal_split(log.assign(timestamp=[1, None, 3, 4, 5, 6, 7]), cutoff=3)
    with pytest.raises(TypeError, match="test_fraction must be a number"):
        temporal_split(log, test_fraction="20%")
