"""leave_one_out_split: the last interaction per user is held out, deterministically."""

from __future__ import annotations

import numpy as np
import pandas as pd

import topkeval as h


def test_last_interaction_is_held_out_and_rows_are_partitioned():
    log = pd.DataFrame(
        {"user": ["u", "u", "u", "v", "v"], "item": ["a", "b", "c", "a", "d"], "timestamp": [1, 3, 2, 5, 4]}
    )
    train, test = h.leave_one_out_split(log)
    assert test.set_index("user")["item"].to_dict() == {"u": "b", "v": "a"}
    assert sorted(train.index.tolist() + test.index.tolist()) == list(range(5))
    assert list(test.columns) == list(log.columns)


def test_timestamp_ties_go_to_the_last_row_and_shuffling_rows_of_distinct_times_changes_nothing():
    log = pd.DataFrame({"user": [1, 1, 1], "item": [7, 8, 9], "timestamp": [5, 5, 1]})
    assert h.leave_one_out_split(log)[1]["item"].tolist() == [8]
    rng = np.random.default_rng(0)
    big = pd.DataFrame(
        {
            "user": rng.integers(0, 20, 300),
            "item": rng.integers(0, 50, 300),
            "timestamp": rng.permutation(300),
        }
    )
    big = big[big.groupby("user")["item"].transform("size") > 1]
    _, test = h.leave_one_out_split(big)
    _, test_shuffled = h.leave_one_out_split(big.sample(frac=1, random_state=1))
    assert test.sort_index().equals(test_shuffled.sort_index())
    assert test["user"].is_unique and set(test["user"]) == set(big["user"])


def test_datetimes_and_custom_columns():
    log = pd.DataFrame(
        {"uid": ["x", "x"], "iid": [1, 2], "when": pd.to_datetime(["2024-01-02", "2024-01-01"])}
    )
    train, test = h.leave_one_out_split(log, user_col="uid", item_col="iid", time_col="when")
    assert test["iid"].tolist() == [1] and train["iid"].tolist() == [2]


def test_split_feeds_evaluate_and_loo_identities_hold():
    log = pd.DataFrame(
        {"user": ["u"] * 4 + ["v"] * 3, "item": list("abcd") + list("abe"), "timestamp": range(7)}
    )
    train, test = h.leave_one_out_split(log)
    recs = pd.DataFrame(
        {"user": ["u"] * 3 + ["v"] * 3, "item": list("xdy") + list("pqr"), "rank": [1, 2, 3] * 2}
    )
    scores = h.evaluate(recs, test, k=3)
    assert (scores["recall@3"] == scores["hit@3"]).all()
    assert np.allclose(scores["ap@3"], scores["rr@3"])
    assert np.allclose(scores["precision@3"], scores["hit@3"] / 3)
    assert scores.loc["u", "ndcg@3"] == 1 / np.log2(3)
