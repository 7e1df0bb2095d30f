"""A registry entry plus its per-user function and kernel is the whole metric: everything else follows.

For every entry: the function is exported by ``topkeval`` (from its module's ``__all__``), the kernel exists,
the generated tables list it, its options are validated, and ``evaluate`` and ``evaluate_arrays`` give its
column equal to the per-user function. (Spark and Dask take every registry metric in
``tests/spark/test_spark.py`` and ``tests/library/test_architecture.py``.)
"""

from __future__ import annotations

import dataclasses
import inspect

import pandas as pd
import pytest

import topkeval
from topkeval import _docs, _kernels, _registry

KEYS = list(_registry.METRICS)
RANKING, GRADES = ["a", "x", "b", "c", "y"], {"a": 3, "b": 1, "c": 0, "z": 2}


@pytest.mark.parametrize("key", KEYS)
def test_the_function_is_exported_and_the_kernel_exists(key):
    metric = _registry.METRICS[key]
    assert metric.function in topkeval.__all__, f"{metric.function} is not in its module's __all__"
    function = getattr(topkeval, metric.function)
    assert list(inspect.signature(function).parameters)[:3] == ["ranking", "relevant", "k"]
    assert metric.kernel in _kernels.__all__ and callable(getattr(_kernels, metric.kernel))


@pytest.mark.parametrize("key", KEYS)
def test_the_generated_tables_list_it(key):
    metric = _registry.METRICS[key]
    assert f"`{metric.function}`" in _docs.markdown_table()
    assert f"``{key!r}``" in _docs.metric_list()
    assert f"``{key!r}``" in topkeval.evaluate.__doc__


@pytest.mark.parametrize("key", KEYS)
def test_evaluate_and_arrays_give_the_per_user_value(key):
    metric = _registry.METRICS[key]
    options = {"max_grade": 3} if "max_grade" in metric.options else {}
    want = getattr(topkeval, metric.function)(RANKING, GRADES, 4, **options)
    recs = pd.DataFrame({"user": 1, "item": RANKING, "rank": range(1, 6)})
    truth = pd.DataFrame({"user": 1, "item": list(GRADES), "relevance": list(GRADES.values())})
    got = topkeval.evaluate(recs, truth, k=4, metrics=[key], **options)
    assert list(got.columns) == [f"{key}@4"]
    assert got.iloc[0, 0] == pytest.approx(want, abs=1e-12)
    codes = {item: code for code, item in enumerate(sorted(set(RANKING) | set(GRADES)))}
    top = [[codes[item] for item in RANKING]]
    judged = sorted(GRADES, key=codes.get)
    arrays = topkeval.evaluate_arrays(
        top,
        [0, len(judged)],
        [codes[item] for item in judged],
        k=4,
        relevant_grades=[GRADES[item] for item in judged],
        metrics=[key],
        **options,
    )
    assert arrays.iloc[0, 0] == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("key", [k for k in KEYS if _registry.METRICS[k].options])
def test_its_options_are_validated_by_the_registry(key):
    for name in _registry.METRICS[key].options:
        with pytest.raises((topkeval.InvalidInputError, topkeval.InputTypeError), match=name):
            topkeval.evaluate(
                pd.DataFrame({"user": [1], "item": ["a"], "rank": [1]}),
                pd.DataFrame({"user": [1], "item": ["a"]}),
                k=1,
                metrics=[key],
                **{name: "not-a-value" if name in _registry.OPTIONS else -1.0},
            )


# ------------------------------------------------------------------ what a kernel reads (issue 36)
def test_every_kernel_input_names_fields_of_cut():
    assert set(_kernels.INPUTS) == set(_registry.KERNEL_INPUTS)
    cut_fields = {f.name for f in dataclasses.fields(_kernels.Cut)}
    optional = {name for names in _kernels.INPUTS.values() for name in names}
    assert optional <= cut_fields
    for key, metric in _registry.METRICS.items():
        assert set(metric.needs) <= set(_registry.KERNEL_INPUTS), key


class _Recorded(_kernels.Cut):
    """A Cut that records which of the optional inputs are read."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        object.__setattr__(self, "_read", set())

    def __getattribute__(self, name: str):
        if name in _OPTIONAL:
            object.__getattribute__(self, "_read").add(name)
        return object.__getattribute__(self, name)


_OPTIONAL = {name for names in _kernels.INPUTS.values() for name in names}


@pytest.mark.parametrize("key", KEYS)
def test_its_declared_needs_are_what_its_kernel_reads_and_all_the_batch_prepares(key, monkeypatch):
    """Asked for alone, a metric's kernel gets the inputs its entry declares (filled) and no other (None),
    and reads exactly their fields: a declared need the kernel ignores, or a field it reads without
    declaring it (which the batch would leave None), fails here."""
    from topkeval import batch

    kernel, calls = getattr(_kernels, _registry.METRICS[key].kernel), []

    def recorded(cut):
        object.__getattribute__(cut, "_read").clear()
        values = kernel(cut)
        filled = {name for name in _OPTIONAL if object.__getattribute__(cut, name) is not None}
        calls.append((set(object.__getattribute__(cut, "_read")), filled))
        return values

    monkeypatch.setattr(batch, "Cut", _Recorded)
    monkeypatch.setattr(_kernels, _registry.METRICS[key].kernel, recorded)
    items, grades = [0, 1, 2, 3], [3, 1, 0, 2]  # grades of items 0..3 (2: judged not relevant); 5, 6 unjudged
    batch.evaluate_arrays(
        [[0, 5, 1, 2, 6]], [0, len(items)], items, k=4, relevant_grades=grades, metrics=[key], max_grade=3
    )
    declared = {name for need in _registry.METRICS[key].needs for name in _kernels.INPUTS[need]}
    assert calls, f"{key}'s kernel was not called"
    for read, filled in calls:
        assert read == declared, f"{key}: declares {sorted(declared)}, its kernel reads {sorted(read)}"
        assert filled == declared, f"{key}: the batch prepared {sorted(filled)} for {sorted(declared)}"
