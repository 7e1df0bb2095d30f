"""Every registry metric has an independent oracle (tests/library/reference.py) and the library matches it.

The per-user function and the batch kernel are each compared with the oracle on generated users (Hypothesis),
so a formula wrong the same way in both cannot pass; the edge cases the registry declares (a user with no
relevant item, a cutoff beyond the list, an empty list, one relevant item) are checked on every metric.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import topkeval
from topkeval import _registry

from .reference import ORACLES
from .strategies import user_case

KEYS = list(_registry.METRICS)


def test_every_registry_metric_has_an_oracle_and_every_oracle_a_metric():
    assert sorted(ORACLES) == sorted(KEYS)


def _option_values(metric, relevance):
    """A strategy for the options ``metric`` takes: every registry value, or a number in range."""
    largest = max((g for g in relevance.values()), default=0) if isinstance(relevance, dict) else 1
    spec = {}
    for name in metric.options:
        if name in _registry.OPTIONS:
            spec[name] = st.sampled_from(_registry.OPTIONS[name].values)
        elif name == "p":
            spec[name] = st.floats(0.05, 0.95)
        elif name == "max_grade":  # None (binary only), or a scale top at or above every grade
            spec[name] = st.sampled_from([None, 3, 4] if largest <= 1 else [3, 4])
        else:  # pragma: no cover - a new numeric parameter needs a strategy here
            raise AssertionError(f"no strategy for parameter {name!r}")
    return st.fixed_dictionaries(spec)


def _call(metric, ranking, relevance, k, options):
    return getattr(topkeval, metric.function)(ranking, relevance, k, **options)


def _check_against_oracle(key, ranking, relevance, k, options):
    metric = _registry.METRICS[key]
    try:
        want = ORACLES[key](ranking, relevance, k, options)
    except ZeroDivisionError:  # 0/0: the registry must declare it, and the function must refuse
        assert metric.empty_value is None, f"{key}: the oracle is 0/0 but the registry gives a value"
        with pytest.raises(topkeval.NoRelevantItemError):
            _call(metric, ranking, relevance, k, options)
        return None
    got = _call(metric, ranking, relevance, k, options)
    assert type(got) is float
    assert got == pytest.approx(float(want), rel=1e-12, abs=1e-12), (key, ranking, relevance, k, options)
    return got


def _has_relevant(relevance):
    grades = relevance.values() if isinstance(relevance, dict) else [1] * len(relevance)
    return any(g > 0 for g in grades)


@pytest.mark.parametrize("key", KEYS)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_the_per_user_function_matches_its_oracle(key, data):
    metric = _registry.METRICS[key]
    ranking, grades, k = data.draw(user_case(graded=True))
    relevance = grades if data.draw(st.booleans()) else {i for i, g in grades.items() if g > 0}
    options = data.draw(_option_values(metric, relevance))
    got = _check_against_oracle(key, ranking, relevance, k, options)
    if not _has_relevant(relevance) and isinstance(metric.empty_value, float):
        assert got == metric.empty_value, f"{key}: the registry says {metric.empty_value!r}"


@pytest.mark.parametrize("key", KEYS)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_the_batch_kernel_matches_the_oracle(key, data):
    metric = _registry.METRICS[key]
    users = data.draw(st.lists(user_case(min_relevant=1, graded=True), min_size=1, max_size=6))
    options = data.draw(_option_values(metric, {}))  # binary relevance below: max_grade may be None
    k = data.draw(st.integers(1, 18))
    width = max([len(r) for r, _, _ in users] + [1])
    top = np.full((len(users), width), -1, dtype=np.int64)
    indptr, items = [0], []
    for row, (ranking, grades, _) in enumerate(users):
        top[row, : len(ranking)] = ranking
        items += sorted(i for i, g in grades.items() if g > 0)
        indptr.append(len(items))
    got = topkeval.evaluate_arrays(top, indptr, items, k=k, metrics=[key], empty="zero", **options)
    for row, (ranking, grades, _) in enumerate(users):
        relevant = {i for i, g in grades.items() if g > 0}
        try:
            want = float(ORACLES[key](ranking, relevant, k, options))
        except ZeroDivisionError:  # empty="zero"
            want = 0.0
        assert got[f"{key}@{k}"].iloc[row] == pytest.approx(want, rel=1e-12, abs=1e-12), (key, row)


#: The edge cases every metric must get right, whatever it is: (ranking, relevance, k).
EDGE_CASES = {
    "no-relevant-item": (["a", "b", "c"], set(), 3),
    "only-judged-not-relevant": (["a", "b", "c"], {"a": 0, "b": 0}, 3),
    "k-beyond-the-list": (["a", "b"], {"b", "z"}, 10),
    "empty-list": ([], {"a"}, 3),
    "one-relevant-at-rank-3": (["a", "b", "c", "d"], {"c"}, 4),
    "one-relevant-beyond-k": (["a", "b", "c", "d"], {"d"}, 2),
    "unjudged-items": (["a", "b", "c", "d"], {"a": 1, "c": 0, "d": 2}, 4),
}


@pytest.mark.parametrize("case", list(EDGE_CASES))
@pytest.mark.parametrize("key", KEYS)
def test_the_edge_cases_the_registry_declares(key, case):
    metric = _registry.METRICS[key]
    ranking, relevance, k = EDGE_CASES[case]
    options = {name: _registry.default(name) for name in metric.options}
    if "max_grade" in options:
        options["max_grade"] = 2
    got = _check_against_oracle(key, ranking, relevance, k, options)
    if not _has_relevant(relevance):
        if metric.empty_value is None:
            assert got is None  # refused, as the registry says ("raises ValueError (0/0)")
        elif isinstance(metric.empty_value, float):
            assert got == metric.empty_value
        else:
            assert isinstance(got, float) and math.isfinite(got)  # a value the registry describes in words


def test_a_wrong_formula_shared_by_function_and_kernel_is_caught(monkeypatch):
    """The oracle is what catches the bug the issue describes: the same wrong P@k in both paths."""

    def wrong(ranking, relevant, k):
        return len([i for i in list(ranking)[:k] if i in relevant]) / max(1, min(k, len(ranking)))

    monkeypatch.setattr(topkeval, "precision_at_k", wrong)
    with pytest.raises(AssertionError):
        _check_against_oracle("precision", ["a", "b"], {"a"}, 4, {})
