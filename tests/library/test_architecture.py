"""The registry is the one extension point: options, defaults, metric names and errors follow it.

Every entry point takes every registry option under its registry name and default; a metric added to the
registry (with its per-user function and kernel) works through evaluate, evaluate_arrays and the tables;
every entry point words the same bad input the same way; a cutoff beyond the longest list costs nothing.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import fields, replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import topkeval
from topkeval import _docs, _kernels, _registry, beyond, metrics

SRC = Path(topkeval.__file__).parent


def _entry_points():
    points = [("frames", topkeval.evaluate), ("arrays", topkeval.evaluate_arrays)]
    try:
        import topkeval.spark as spark
    except ImportError:  # pragma: no cover - the spark extra
        return points
    return points + [("frames", spark.evaluate), ("arrays", spark.evaluate_arrays)]


@pytest.mark.parametrize("inputs, function", _entry_points(), ids=lambda x: getattr(x, "__module__", x))
def test_every_entry_point_takes_every_registry_option_with_the_registry_default(inputs, function):
    parameters = inspect.signature(function).parameters
    for name in _registry.option_names(inputs):
        assert name in parameters, f"{function.__module__}.{function.__name__} lacks option {name!r}"
        assert parameters[name].kind is inspect.Parameter.KEYWORD_ONLY
        assert parameters[name].default == _registry.default(name), (
            f"{function.__module__}.{function.__name__}: {name} defaults to {parameters[name].default!r}, "
            f"the registry says {_registry.default(name)!r}"
        )


def test_the_options_check_catches_a_missing_or_misnamed_option():
    def evaluate(recs, truth, k, *, denominator="min_k_n_relevant", gian="linear"):
        """A signature with a typo."""

    parameters = inspect.signature(evaluate).parameters
    assert "gain" not in parameters  # what the test above asserts for every real entry point


def test_settings_are_the_registry_options_one_for_one_with_its_defaults():
    names = [f.name for f in fields(_registry.Settings)]
    assert sorted(names) == sorted(_registry.option_names("frames"))
    for f in fields(_registry.Settings):
        assert f.default == _registry.default(f.name)
    assert "ties" not in _registry.option_names("arrays")


def test_dask_forwards_every_option_to_evaluate():
    dask = pytest.importorskip("topkeval.dask")
    dd = pytest.importorskip("dask.dataframe")
    recs = pd.DataFrame({"user": [1, 1, 2], "item": ["a", "b", "a"], "score": [2.0, 1.0, 1.0]})
    truth = pd.DataFrame({"user": [1, 2], "item": ["b", "a"], "relevance": [2.0, 1.0]})
    options = {"denominator": "n_hits", "gain": "exponential", "ideal": "listed", "discount": "clipped_log2"}
    options |= {"empty": "zero", "ties": "item_descending", "p": 0.5, "max_grade": 3.0}
    options |= {"unjudged": "condense"}
    assert sorted(options) == sorted(_registry.option_names("frames"))
    metrics_ = list(_registry.METRICS)
    got = dask.evaluate(dd.from_pandas(recs, 1), dd.from_pandas(truth, 1), 2, metrics=metrics_, **options)
    want = topkeval.evaluate(recs, truth, 2, metrics=metrics_, **options)
    pd.testing.assert_frame_equal(got.compute().sort_index(), want, check_dtype=False)
    with pytest.raises(TypeError):
        dask.evaluate(dd.from_pandas(recs, 1), dd.from_pandas(truth, 1), 2, gian="linear")


# ---- adding a metric: a registry entry, the per-user function, the kernel, an oracle test
def fallout_at_k(ranking, relevant, k):
    """Naive per-user oracle of a throwaway metric: the share of the k slots that hold no relevant item."""
    top = list(ranking)[:k]
    return (k - sum(1 for item in top if item in set(relevant))) / k


@pytest.fixture
def throwaway_metric(monkeypatch):
    entry = replace(
        _registry.METRICS["precision"],
        key="fallout",
        function="fallout_at_k",
        kernel="fallout",
        notation="F@k",
        mean_name="F@k",
        formula="misses in the top k / k",
        aliases=("fall_out",),
        value_range="[0, 1]",
        rewards="(lower is better) few irrelevant items",
        leave_one_out="1 - HR@k / k",
        by_default=False,
    )
    monkeypatch.setitem(_registry.METRICS, "fallout", entry)
    monkeypatch.setattr(_kernels, "fallout", lambda cut: (cut.k - cut.hits) / cut.k, raising=False)
    monkeypatch.setattr(metrics, "fallout_at_k", fallout_at_k, raising=False)
    return entry


def test_a_metric_added_to_the_registry_works_everywhere(throwaway_metric):
    recs = pd.DataFrame({"user": [1, 1, 1, 2, 2], "item": list("abcad"), "rank": [1, 2, 3, 1, 2]})
    truth = pd.DataFrame({"user": [1, 2], "item": ["b", "z"]})
    got = topkeval.evaluate(recs, truth, k=[2, 3], metrics=["FALL_OUT", "precision"])
    assert list(got.columns) == ["precision@2", "fallout@2", "precision@3", "fallout@3"]
    lists = {1: list("abc"), 2: list("ad")}
    for user, ranking in lists.items():
        relevant = set(truth.loc[truth.user == user, "item"])
        for k in (2, 3):
            assert got.loc[user, f"fallout@{k}"] == pytest.approx(
                fallout_at_k(ranking, relevant, k), abs=1e-12
            )
    top = np.array([[0, 1, 2], [0, 3, -1]])
    arrays = topkeval.evaluate_arrays(top, [0, 1, 2], [1, 9], k=3, metrics=["fallout"])
    assert arrays["fallout@3"].tolist() == pytest.approx([2 / 3, 1.0])
    assert "`fallout_at_k`" in _docs.markdown_table()
    assert "fallout" in _docs.metric_list()
    from helpers.course.nb14 import recap_table

    assert recap_table().loc["F@k", "rewards"] == "(lower is better) few irrelevant items"


# ---- one message per bad input, whatever the entry point
BAD_TOP_ITEMS = {
    "1-D": np.array([1, 2, 3]),
    "floats": np.array([[1.0, 2.0]]),
    "repeat": np.array([[1, 1]]),
}


@pytest.mark.parametrize("case", list(BAD_TOP_ITEMS))
def test_bad_top_items_get_the_same_message_from_every_entry_point(case):
    top = BAD_TOP_ITEMS[case]
    n_users = top.shape[0] if top.ndim == 2 else 1
    calls = {
        "evaluate_arrays": lambda: topkeval.evaluate_arrays(
            top, np.arange(n_users + 1), np.ones(n_users, dtype=int), duplicates="check_all"
        ),
        "evaluate_beyond": lambda: beyond.evaluate_beyond(top, popularity=np.ones(5) / 5),
        "coverage_batch": lambda: beyond.coverage_batch(top, n_items=5),
    }
    messages = set()
    for call in calls.values():
        with pytest.raises((ValueError, TypeError)) as caught:
            call()
        messages.add((type(caught.value).__name__, str(caught.value)))
    assert len(messages) == 1, messages


@pytest.mark.parametrize(
    "call",
    [
        lambda: topkeval.ndcg_at_k(["a"], {"a": -1}, 1),
        lambda: topkeval.evaluate_arrays(np.array([[1]]), [0, 1], [1], relevant_grades=[-1]),
        lambda: topkeval.evaluate(
            pd.DataFrame({"user": [1], "item": ["a"], "rank": [1]}),
            pd.DataFrame({"user": [1], "item": ["a"], "relevance": [-1]}),
            k=1,
        ),
    ],
    ids=["per-user", "arrays", "frames"],
)
def test_a_negative_grade_is_worded_once(call):
    with pytest.raises(topkeval.InvalidInputError, match=r"^relevance grades must be >= 0 \(0 = judged not"):
        call()


def test_errors_are_public_classes_and_builtin_subclasses():
    with pytest.raises(topkeval.NoRelevantItemError) as caught:
        topkeval.recall_at_k(["a"], set(), 1)
    assert isinstance(caught.value, ValueError)
    with pytest.raises(topkeval.DuplicateRecommendationError) as dup:
        topkeval.evaluate(
            pd.DataFrame({"user": [1, 1], "item": ["a", "a"], "rank": [1, 2]}),
            pd.DataFrame({"user": [1], "item": ["a"]}),
            k=2,
        )
    assert (dup.value.user, dup.value.item, dup.value.ranks) == (1, "a", [1, 2])
    assert issubclass(topkeval.InputTypeError, TypeError)
    private = re.compile(r"class _\w+\((ValueError|TypeError|Exception)\)")
    assert not [p.name for p in SRC.glob("*.py") if private.search(p.read_text(encoding="utf-8"))]


def test_messages_show_plain_ids_and_no_bad_possessive():
    recs = pd.DataFrame({"user": np.array([1, 1], dtype=np.int64), "item": [5, 6], "rank": [1, 1]})
    truth = pd.DataFrame({"user": [1], "item": [5]})
    with pytest.raises(ValueError) as caught:
        topkeval.evaluate(recs, truth, k=2)
    assert "user 1 has two items at rank 1" in str(caught.value) and "np." not in str(caught.value)
    sources = "\n".join(p.read_text(encoding="utf-8") for p in SRC.glob("*.py"))
    assert "{frame}'s" not in sources and "recommendations's" not in sources


# ---- metric names
@pytest.mark.parametrize(
    "name, key",
    [("map", "ap"), ("MAP", "ap"), ("mrr", "rr"), ("hr", "hit"), ("hit_rate", "hit"), ("NDCG", "ndcg")],
)
def test_common_metric_names_map_to_the_key(name, key):
    recs = pd.DataFrame({"user": [1, 1], "item": ["a", "b"], "rank": [1, 2]})
    truth = pd.DataFrame({"user": [1], "item": ["b"]})
    assert list(topkeval.evaluate(recs, truth, 2, metrics=[name]).columns) == [f"{key}@2"]


def test_an_unknown_metric_name_gets_a_suggestion():
    with pytest.raises(topkeval.InvalidInputError, match="got 'ndgc'. Did you mean 'ndcg'"):
        topkeval.evaluate_arrays(np.array([[0]]), [0, 1], [0], metrics=["ndgc"])


def test_bool_relevance_is_zero_or_one():
    recs = pd.DataFrame({"user": [1, 1], "item": ["a", "b"], "rank": [1, 2]})
    flags = pd.DataFrame({"user": [1, 1], "item": ["a", "b"], "relevance": [False, True]})
    grades = flags.assign(relevance=flags.relevance.astype(float))
    pd.testing.assert_frame_equal(topkeval.evaluate(recs, flags, 2), topkeval.evaluate(recs, grades, 2))
    assert topkeval.ndcg_at_k(["a", "b"], {"a": False, "b": True}, 2) == topkeval.ndcg_at_k(
        ["a", "b"], {"b"}, 2
    )


# ---- a cutoff beyond the longest list
@pytest.mark.parametrize("metric", list(_registry.METRICS))
def test_a_huge_k_costs_nothing_and_keeps_each_metric_definition(metric):
    recs = pd.DataFrame({"user": [1, 1, 1, 2, 2, 2], "item": list("abcdef"), "rank": [1, 2, 3] * 2})
    truth = pd.DataFrame({"user": [1, 1, 2], "item": ["b", "z", "f"], "relevance": [2.0, 1.0, 3.0]})
    k = 10**9
    got = topkeval.evaluate(recs, truth, k, metrics=[metric])  # would need 7.45 GiB of discounts unclamped
    function = getattr(topkeval, _registry.METRICS[metric].function)
    for user in (1, 2):
        ranking = recs.loc[recs.user == user, "item"].tolist()
        rows = truth.loc[truth.user == user]
        relevant = dict(zip(rows.item, rows.relevance, strict=True))
        # ERR's g_max is the scale's top: the batch reads it from the whole truth; per user it is passed
        scale = {"max_grade": got.attrs["err_max_grade"]} if metric == "err" else {}
        want = function(ranking, relevant, k, **scale)
        assert got.loc[user, f"{metric}@{k}"] == pytest.approx(want, abs=1e-12)
    assert got.loc[1, f"{metric}@{k}"] == got.loc[1, f"{metric}@{k}"]  # not NaN
    if metric == "precision":  # the denominator stays k
        assert got.loc[1, "precision@1000000000"] == pytest.approx(1 / k)


# ---- docstrings speak to practitioners
COURSE_WORDS = re.compile(
    r"\brooms?\b|\bseeds? \d{3}|tests/|notebooks/|\.ipynb|\bnotebook \d+|\bthe course\b", re.I
)


def test_the_library_sources_use_no_course_vocabulary():
    found = []
    for path in sorted(SRC.glob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if COURSE_WORDS.search(line):
                found.append(f"{path.name}:{number}: {line.strip()}")
    assert not found, "course vocabulary in the library:\n" + "\n".join(found)


def test_the_vocabulary_check_can_fail():
    assert COURSE_WORDS.search("Taught in ``notebooks/03-average-precision.ipynb``")
    assert COURSE_WORDS.search("(seed 000: AP@9 = 0.903)")
    assert not COURSE_WORDS.search("the seed of the random generator")


def test_a_huge_k_on_arrays_with_a_listed_ideal_and_graded_relevance():
    top = np.array([[0, 1, 2], [3, 0, -1]])
    indptr, items, grades = np.array([0, 2, 4]), np.array([1, 9, 0, 3]), np.array([2.0, 3.0, 1.0, 2.0])
    k = 10**9
    for ideal in ("all", "listed"):
        got = topkeval.evaluate_arrays(
            top, indptr, items, relevant_grades=grades, k=k, metrics=["ndcg"], ideal=ideal, gain="exponential"
        )
        for user, ranking in enumerate(([0, 1, 2], [3, 0])):
            relevant = dict(
                zip(
                    items[indptr[user] : indptr[user + 1]],
                    grades[indptr[user] : indptr[user + 1]],
                    strict=True,
                )
            )
            want = topkeval.ndcg_at_k(ranking, relevant, k, ideal=ideal, gain="exponential")
            assert got.loc[user, f"ndcg@{k}"] == pytest.approx(want, abs=1e-12)


def _message(call) -> tuple[str, str]:
    with pytest.raises((ValueError, TypeError)) as caught:
        call()
    return type(caught.value).__name__, str(caught.value)


def test_a_bad_cutoff_gets_one_message_from_every_entry_point():
    recs = pd.DataFrame({"user": [1], "item": ["a"], "rank": [1]})
    truth = pd.DataFrame({"user": [1], "item": ["a"]})
    calls = [
        lambda: topkeval.precision_at_k(["a"], {"a"}, 0),
        lambda: topkeval.ndcg_at_k(["a"], {"a"}, 0),
        lambda: topkeval.evaluate(recs, truth, 0),
        lambda: topkeval.evaluate_arrays(np.array([[0]]), [0, 1], [0], k=0),
        lambda: topkeval.evaluate_as("ranx", recs, truth, 0),
        lambda: beyond.evaluate_beyond(np.array([[0]]), popularity=np.ones(1), k=0),
    ]
    messages = {_message(call) for call in calls}
    assert messages == {
        ("InvalidInputError", "k must be an int >= 1 (the cutoff: how many top items count); got 0.")
    }


def test_an_unknown_metric_gets_one_message_from_every_entry_point():
    recs = pd.DataFrame({"user": [1], "item": ["a"], "rank": [1]})
    truth = pd.DataFrame({"user": [1], "item": ["a"]})
    calls = [
        lambda: topkeval.evaluate(recs, truth, 1, metrics=["ndgc"]),
        lambda: topkeval.evaluate_arrays(np.array([[0]]), [0, 1], [0], metrics=["ndgc"]),
        lambda: topkeval.evaluate_as("ranx", recs, truth, 1, metrics=["ndgc"]),
        lambda: topkeval.conventions.convention("ranx", "ndgc"),
    ]
    assert len({_message(call) for call in calls}) == 1


@pytest.mark.parametrize("k", [2, 3, 5, 50, 10**9])
def test_elliots_map_mean_of_p1_to_pk_needs_no_column_per_cutoff(k):
    recs = pd.DataFrame({"user": [1] * 3 + [2] * 2, "item": list("abcab"), "rank": [1, 2, 3, 1, 2]})
    truth = pd.DataFrame({"user": [1, 1, 2], "item": ["b", "c", "a"]})
    got = topkeval.evaluate_as("elliot", recs, truth, k, metrics=["ap"], per_user=True)[f"ap@{k}"]

    def naive(ranking, relevant):  # the mean of P@1..P@k, with P@j = hits in the top j / j
        hits = np.cumsum([item in relevant for item in ranking] + [0] * max(0, min(k, 10**4) - len(ranking)))
        js = np.arange(1, hits.size + 1)
        head = float(np.sum(hits[:k] / js[:k]))
        tail = hits[-1] * (np.log(k + 0.5) - np.log(hits.size + 0.5)) if k > hits.size else 0.0
        return (head + tail) / k

    assert got.loc[1] == pytest.approx(naive(list("abc"), {"b", "c"}), rel=1e-9)
    assert got.loc[2] == pytest.approx(naive(list("ab"), {"a"}), rel=1e-9)
