"""One test per error message: what was wrong, and how to fix it.

The wording lives in helpers/_validation.py (per-user input) and
helpers/batch.py / helpers/splits.py (DataFrame content). Each test pins the
part of the message a user needs to act on.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import topkeval as h


def raises(exc, text):
    return pytest.raises(exc, match=re.escape(text))


# ---- k ------------------------------------------------------------------------------
def test_k_float_says_how_to_write_it():
    with raises(
        TypeError,
        "k must be an int >= 1 (the cutoff: how many top items count); got 10.0 of type float; write k=10.",
    ):
        h.precision_at_k(["a"], {"a"}, 10.0)


def test_k_bool_is_not_an_int():
    with raises(TypeError, "got True of type bool"):
        h.precision_at_k(["a"], {"a"}, True)


def test_k_below_one():
    with raises(ValueError, "k must be an int >= 1 (the cutoff: how many top items count); got 0."):
        h.recall_at_k(["a"], {"a"}, 0)


def test_k_empty_list_in_batch():
    with raises(ValueError, "k must be an int >= 1 or a non-empty list of them; got an empty list."):
        h.evaluate_arrays(np.array([[1]]), [0, 1], [1], k=[])


# ---- ranking ----------------------------------------------------------------------
def test_ranking_set_suggests_a_swap():
    with raises(TypeError, "not a set: a set has no order. Did you swap ranking and relevant?"):
        h.precision_at_k({"a", "b"}, ["a"], 1)


def test_ranking_mapping_suggests_a_swap():
    with raises(TypeError, "not a dict. Did you swap ranking and relevant?"):
        h.ndcg_at_k({"a": 1}, {"a": 1}, 1)


def test_ranking_string():
    with raises(
        TypeError,
        "ranking must be a sequence of item ids, not a single string ('abc'); "
        "wrap it in a list, e.g. ['abc'].",
    ):
        h.hit_at_k("abc", {"a"}, 1)


def test_ranking_2d_array_points_to_batch():
    with raises(ValueError, "got an array of shape (2, 2). For many users at once use topkeval.evaluate"):
        h.precision_at_k(np.zeros((2, 2)), {0}, 1)


def test_ranking_unordered_iterable():
    with raises(TypeError, "got a generator, whose order may not be meaningful. Convert it with list(...)."):
        h.precision_at_k((x for x in "ab"), {"a"}, 1)


def test_ranking_other_type():
    with raises(TypeError, "ranking must be a list, tuple or 1-D array of item ids, best first; got int."):
        h.precision_at_k(5, {"a"}, 1)


def test_ranking_unhashable_item():
    with raises(TypeError, "the item at rank 2 is ['b'] of type list."):
        h.precision_at_k(["a", ["b"]], {"a"}, 1)


@pytest.mark.parametrize("missing", [float("nan"), np.nan, np.float32("nan"), None, pd.NA, pd.NaT])
def test_ranking_missing_item_raises(missing):
    with raises(
        ValueError,
        f"ranking must not contain missing item ids (NaN/None); the item at rank 2 is {missing!r}. "
        "Drop those entries",
    ):
        h.precision_at_k(["a", missing, "b"], {"a"}, 3)


def test_ranking_nan_in_an_array_raises():
    with raises(ValueError, "the item at rank 3 is nan."):
        h.ndcg_at_k(np.array([1.0, 2.0, np.nan]), {1.0}, 3)
    with raises(ValueError, "the item at rank 1 is nan."):
        h.average_precision_at_k(pd.Series([np.nan, 2.0]), {2.0}, 2)


def test_ranking_duplicates_name_both_ranks():
    with raises(ValueError, "ranking must not contain duplicates; 'b' appears at ranks 2 and 4."):
        h.average_precision_at_k(["a", "b", "c", "b"], {"a"}, 4)


# ---- relevant / relevance ------------------------------------------------------------
def test_relevant_string():
    with raises(
        TypeError,
        "relevant must be a set of item ids or a mapping item -> grade, "
        "not a single string ('a'); wrap it in a set",
    ):
        h.precision_at_k(["a"], "a", 1)


def test_relevant_other_type():
    with raises(TypeError, "relevant must be a set of item ids or a mapping item -> grade; got int."):
        h.precision_at_k(["a"], 3, 1)


def test_relevant_unhashable_item():
    with raises(TypeError, "relevant must hold hashable item ids (str, int, ...); got ['a'] of type list."):
        h.precision_at_k(["a"], [["a"]], 1)


def test_grade_not_a_number():
    with raises(TypeError, "relevance grades must be real numbers >= 0; got 'high' (type str) for item 'a'."):
        h.ndcg_at_k(["a"], {"a": "high"}, 1)


def test_grade_nan():
    with raises(
        ValueError,
        "relevance grades must be finite numbers >= 0; item 'a' has grade nan. Drop unjudged items",
    ):
        h.ndcg_at_k(["a"], {"a": float("nan")}, 1)


def test_grade_negative():
    with raises(
        ValueError,
        "relevance grades must be >= 0 (0 = judged not relevant); item 'a' has grade -1. Shift or clip",
    ):
        h.dcg_at_k(["a"], {"a": -1}, 1)


def test_empty_relevant_points_to_the_batch_policy():
    with raises(
        ValueError,
        "recall_at_k is undefined when the user has no relevant item (its denominator is 0). "
        "Leave such users out, or, in topkeval.evaluate, "
        "choose what they count as with empty='skip', 'zero' or 'raise'.",
    ):
        h.recall_at_k(["a"], set(), 1)


# ---- options --------------------------------------------------------------------------
def test_unknown_option_lists_choices_and_suggests():
    with raises(
        ValueError,
        "denominator must be one of 'min_k_n_relevant', 'n_hits', 'n_relevant'; "
        "got 'n_rel'. Did you mean 'n_relevant'?",
    ):
        h.average_precision_at_k(["a"], {"a"}, 1, denominator="n_rel")


def test_option_of_wrong_type():
    with raises(TypeError, "gain must be one of 'exponential', 'linear'; got 2 of type int."):
        h.dcg_at_k(["a"], {"a"}, 1, gain=2)


def test_unknown_metric_name():
    with raises(
        ValueError,
        f"metrics must be among {', '.join(map(repr, h.METRICS))} (or a common name of one, such as "
        "'map' for 'ap'); got 'mapp'. Did you mean 'ap'?",
    ):
        h.evaluate_arrays(np.array([[1]]), [0, 1], [1], metrics=["mapp"])


def test_empty_metric_list():
    with raises(ValueError, "metrics must name at least one of"):
        h.evaluate_arrays(np.array([[1]]), [0, 1], [1], metrics=[])


# ---- evaluate_arrays -------------------------------------------------------------------
def test_arrays_wrong_dimensions():
    with raises(
        ValueError, "top_items must be a 2-D (users x K) array of item ids, best first; got shape (3,)."
    ):
        h.evaluate_arrays(np.array([1, 2, 3]), [0, 1], [1])


def test_arrays_non_integer_ids_point_to_evaluate():
    with raises(
        TypeError,
        "top_items must hold integer ids (items coded 0..n_items-1; in top_items a negative id marks an "
        "empty slot); got dtype <U1. topkeval.evaluate takes ids of any type and codes them.",
    ):
        h.evaluate_arrays(np.array([["a"]]), [0, 1], [1])


def test_arrays_indptr_length():
    with raises(
        ValueError,
        "relevant_indptr must have n_users + 1 = 2 entries (one row per row of top_items, CSR style); got 3.",
    ):
        h.evaluate_arrays(np.array([[1]]), [0, 1, 1], [1])


def test_arrays_indptr_shape():
    with raises(
        ValueError,
        "relevant_indptr must start at 0, never decrease and end at len(relevant_items) = 1; "
        "got start 0 and end 2.",
    ):
        h.evaluate_arrays(np.array([[1]]), [0, 2], [1])


def test_arrays_negative_relevant_id():
    with raises(ValueError, "relevant_items must be item ids >= 0; the smallest is -1."):
        h.evaluate_arrays(np.array([[1]]), [0, 1], [-1])


def test_arrays_grades_shape_nan_and_negative():
    with raises(ValueError, "relevant_grades must have one grade per relevant item (1); got shape (2,)."):
        h.evaluate_arrays(np.array([[1]]), [0, 1], [1], relevant_grades=[1, 2])
    with raises(
        ValueError, "relevance grades must be finite numbers >= 0; relevant_grades holds NaN or infinity."
    ):
        h.evaluate_arrays(np.array([[1]]), [0, 1], [1], relevant_grades=[np.nan])
    with raises(
        ValueError, "relevance grades must be >= 0 (0 = judged not relevant); relevant_grades holds -2."
    ):
        h.evaluate_arrays(np.array([[1]]), [0, 1], [1], relevant_grades=[-2])


def test_arrays_n_items_too_small():
    with raises(ValueError, "n_items is 2 but an item id is 5; ids must be below n_items."):
        h.evaluate_arrays(np.array([[5]]), [0, 1], [1], n_items=2)


def test_arrays_block_size():
    with raises(ValueError, "block_size must be an int >= 1 (users per block); got 0."):
        h.evaluate_arrays(np.array([[1]]), [0, 1], [1], block_size=0)


def test_arrays_without_columns_needs_k():
    with raises(ValueError, "top_items has no columns, so there is no default cutoff; pass k=..."):
        h.evaluate_arrays(np.zeros((1, 0), dtype=int), [0, 1], [1])


# ---- evaluate: DataFrames -------------------------------------------------------------
RECS = pd.DataFrame({"user": ["u", "u"], "item": ["a", "b"], "rank": [1, 2]})
TRUTH = pd.DataFrame({"user": ["u"], "item": ["a"]})


def test_evaluate_needs_dataframes():
    with raises(
        TypeError,
        "recommendations must be a pandas DataFrame, a pyarrow Table or a Polars DataFrame; "
        "got dict. Build one from the columns: pandas.DataFrame(recommendations).",
    ):
        h.evaluate({"user": []}, TRUTH, k=1)


def test_evaluate_missing_columns_lists_what_is_there():
    with raises(
        ValueError,
        "truth is missing column(s) 'item'; it has 'user', 'movie'. "
        "Rename them or pass the column names (user_col=..., item_col=...",
    ):
        h.evaluate(RECS, pd.DataFrame({"user": ["u"], "movie": ["a"]}), k=1)


def test_evaluate_needs_rank_or_score():
    with raises(
        ValueError,
        "recommendations needs a 'rank' column (1 = best) or a 'score' column (higher = better); "
        "it has 'user', 'item'.",
    ):
        h.evaluate(RECS[["user", "item"]], TRUTH, k=1)


def test_evaluate_id_types_must_match():
    with raises(
        TypeError,
        "item ids in recommendations are strings or objects (object) but in truth they are numbers (int64), "
        "so no id could ever match. Convert one side, e.g. .astype(str).",
    ):
        h.evaluate(RECS.astype({"item": object}), pd.DataFrame({"user": ["u"], "item": [1]}), k=1)


def test_evaluate_missing_ids():
    with raises(
        ValueError,
        "the 'user' column of recommendations has missing user ids (NaN/None) in 1 row(s); drop or "
        "fill those rows first, e.g. recommendations.dropna(subset=['user']).",
    ):
        h.evaluate(RECS.assign(user=["u", None]), TRUTH, k=1)


def test_evaluate_missing_ids_name_the_frame():
    with raises(
        ValueError,
        "the 'item' column of truth has missing item ids (NaN/None) in 2 row(s); drop or fill those "
        "rows first, e.g. truth.dropna(subset=['item']).",
    ):
        h.evaluate(RECS, pd.DataFrame({"user": ["u"] * 3, "item": ["a", np.nan, None]}), k=1)


def test_evaluate_rank_must_be_whole_and_positive():
    with raises(ValueError, "rank must hold whole numbers >= 1 (1 = best); found 0."):
        h.evaluate(RECS.assign(rank=[0, 1]), TRUTH, k=1)


def test_evaluate_bad_rank_is_shown_as_written():
    with raises(ValueError, "rank must hold whole numbers >= 1 (1 = best); found -3."):  # int column: no ".0"
        h.evaluate(RECS.assign(rank=np.array([1, -3], dtype=np.int32)), TRUTH, k=1)
    with raises(ValueError, "rank must hold whole numbers >= 1 (1 = best); found 1.5."):
        h.evaluate(RECS.assign(rank=[1.0, 1.5]), TRUTH, k=1)
    with raises(ValueError, "rank must hold whole numbers >= 1 (1 = best); found 0."):  # nullable Int64
        h.evaluate(RECS.assign(rank=pd.array([0, 2], dtype="Int64")), TRUTH, k=1)


def test_evaluate_rank_gaps_are_order_only():
    """Documented decision (evaluate's Notes): ranks 1, 5, 9 are the 1st, 2nd and 3rd item."""
    recs = pd.DataFrame({"user": ["u"] * 3, "item": ["x", "y", "a"], "rank": [1, 5, 9]})
    gaps = h.evaluate(recs, TRUTH, k=3)
    assert gaps.equals(h.evaluate(recs.assign(rank=[1, 2, 3]), TRUTH, k=3))
    assert gaps.loc["u", "precision@3"] == pytest.approx(1 / 3)  # rank 9 is within the top 3


def test_evaluate_rank_wins_over_score():
    """Documented decision (evaluate's Notes): with both columns the ranks order the list."""
    recs = pd.DataFrame({"user": ["u"] * 2, "item": ["x", "a"], "rank": [1, 2], "score": [0.1, 0.9]})
    both = h.evaluate(recs, TRUTH, k=1)
    assert both.equals(h.evaluate(recs.drop(columns="score"), TRUTH, k=1))
    assert both.loc["u", "rr@1"] == 0.0  # by score, "a" would be first
    assert both.attrs["ties"] is None  # no score ties were broken: the scores were not used


def test_evaluate_rank_must_be_numeric_and_complete():
    with raises(TypeError, "the 'rank' column of recommendations must be numeric; got dtype"):
        h.evaluate(RECS.assign(rank=["1", "2"]), TRUTH, k=1)
    with raises(
        ValueError, "the 'rank' column of recommendations has missing values; drop or fill those rows first."
    ):
        h.evaluate(RECS.assign(rank=[1, None]), TRUTH, k=1)


def test_evaluate_duplicate_ranks():
    with raises(ValueError, "user 'u' has two items at rank 1; ranks must be distinct within a user."):
        h.evaluate(RECS.assign(rank=[1, 1]), TRUTH, k=1)


def test_evaluate_duplicate_recommendations():
    recs = pd.DataFrame({"user": ["u", "u"], "item": ["b", "b"], "rank": [1, 2]})
    with raises(
        ValueError,
        "recommendations list item 'b' more than once for user 'u' (at positions 1, 2 of its list); "
        "a ranking must not contain duplicates.",
    ):
        h.evaluate(recs, TRUTH, k=2)


def test_evaluate_duplicate_truth_rows():
    with raises(
        ValueError, "truth lists user 'u' and item 'a' more than once; keep one row per (user, item)"
    ):
        h.evaluate(RECS, pd.concat([TRUTH, TRUTH]), k=1)


def test_evaluate_bad_grades():
    with raises(
        ValueError,
        "relevance grades must be >= 0 (0 = judged not relevant); the 'relevance' column of truth holds -1.",
    ):
        h.evaluate(RECS, TRUTH.assign(relevance=[-1]), k=1)
    with raises(ValueError, "the 'relevance' column of truth has missing values"):
        h.evaluate(RECS, TRUTH.assign(relevance=[np.nan]), k=1)
    with raises(
        ValueError,
        "relevance grades must be finite numbers >= 0; the 'relevance' column of truth holds NaN or "
        "infinity.",
    ):
        h.evaluate(RECS, TRUTH.assign(relevance=[np.inf]), k=1)


def test_evaluate_tied_scores_when_asked_to_raise():
    recs = pd.DataFrame({"user": ["u", "u"], "item": ["a", "b"], "score": [1.0, 1.0]})
    with raises(
        ValueError,
        "user 'u' has tied scores (1.0) in its top 2; "
        "pass ties='item_ascending', 'item_descending' or 'input_order' to choose an order.",
    ):
        h.evaluate(recs, TRUTH, k=2, ties="raise")


# ---- leave_one_out_split -------------------------------------------------------------
def test_split_missing_column():
    with raises(ValueError, "interactions is missing column(s) 'timestamp'; it has 'user', 'item'."):
        h.leave_one_out_split(pd.DataFrame({"user": [1], "item": [2]}))


def test_split_missing_timestamp():
    log = pd.DataFrame({"user": [1, 1], "item": [2, 3], "timestamp": [1, None]})
    with raises(
        ValueError, "interactions' 'timestamp' column has missing values; drop or fill those rows first."
    ):
        h.leave_one_out_split(log)


def test_split_single_interaction_users_are_named():
    log = pd.DataFrame({"user": [1, 1, 2], "item": [2, 3, 4], "timestamp": [1, 2, 3]})
    with raises(
        ValueError,
        "1 user(s) have a single interaction (e.g. 2); leave-one-out would leave them nothing to train on.",
    ):
        h.leave_one_out_split(log)
