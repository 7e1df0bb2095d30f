"""The registry is the one source: README table, docstrings, defaults and errors follow it."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import topkeval
from tools.render_readme import render
from topkeval import _registry
from topkeval.conventions import used_by

ROOT = Path(__file__).resolve().parents[2]


def test_readme_table_is_generated_from_the_registry():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert render(readme) == readme, "README.md's metric table is stale: run `python tools/render_readme.py`"


#: One user on which every value of every option gives a different number: 2 hits in the top 3 of
#: |R| = 5 (denominators 5, 3, 2), grades 3 and 1 (linear vs 2**g - 1), relevant items never listed
#: (ideal from all vs listed), a hit at rank 3 (log2(4) vs log2(3)).
RANKING = ["a", "x", "b", "c", "y"]
GRADES = {"a": 3, "b": 1, "c": 2, "z": 3, "w": 1}


@pytest.mark.parametrize("metric", list(_registry.METRICS.values()), ids=list(_registry.METRICS))
def test_every_metric_has_a_documented_per_user_function(metric):
    function = getattr(topkeval, metric.function)
    assert function is getattr(topkeval, metric.function)
    doc = inspect.getdoc(function)
    assert "Examples" in doc and ">>>" in doc
    for option in metric.options:
        if option in _registry.PARAMETERS:  # a number: named in the signature and the docstring
            assert option in inspect.signature(function).parameters and option in doc
            continue
        for value in _registry.OPTIONS[option].values:  # the option table was substituted in Notes
            assert f"``{value!r}``" in doc
        assert "%(" not in doc


#: For numeric parameters: the registry default and another value that must give another number.
OTHER_VALUE = {"p": 0.5, "max_grade": 4}


@pytest.mark.parametrize("metric", [m for m in _registry.METRICS.values() if m.options], ids=lambda m: m.key)
def test_each_option_is_wired_and_its_default_is_the_registry_default(metric):
    # ERR without max_grade takes binary relevance only (g_max is the scale's top, which a user's grades
    # cannot give)
    relevance = GRADES if "gain" in metric.options else set(GRADES)
    plain = getattr(topkeval, metric.function)(RANKING, relevance, 3)
    for name in metric.options:
        option = _registry.OPTIONS.get(name) or _registry.PARAMETERS[name]
        choices = option.values if name in _registry.OPTIONS else (option.default, OTHER_VALUE[name])
        values = {v: getattr(topkeval, metric.function)(RANKING, relevance, 3, **{name: v}) for v in choices}
        assert values[option.default] == plain, (
            f"{metric.function}'s default {name} is not {option.default!r}"
        )
        assert len(set(values.values())) == len(values), f"{name}: some values give the same number {values}"


def test_batch_defaults_are_the_registry_defaults():
    import pandas as pd

    recs = pd.DataFrame({"user": 1, "item": RANKING, "rank": range(1, 6)})
    truth = pd.DataFrame({"user": 1, "item": list(GRADES), "relevance": list(GRADES.values())})
    plain = topkeval.evaluate(recs, truth, k=3, metrics=["ap", "ndcg"])
    for name, option in _registry.OPTIONS.items():
        explicit = topkeval.evaluate(recs, truth, k=3, metrics=["ap", "ndcg"], **{name: option.default})
        pd.testing.assert_frame_equal(plain, explicit)
        other = [v for v in option.values if v != option.default][0]
        changed = topkeval.evaluate(recs, truth, k=3, metrics=["ap", "ndcg"], **{name: other})
        assert not changed.equals(plain), f"evaluate ignores {name}={other!r}"
    with pytest.raises(ValueError, match="no relevant item"):  # empty's default is 'raise'
        topkeval.evaluate(recs, truth.assign(user=2), k=3)


def test_used_by_is_generated_from_the_convention_table():
    from topkeval.conventions import CONVENTIONS, LIBRARIES

    for row in CONVENTIONS:
        for name, value in row.options.items():
            if name in _registry.PARAMETERS:  # numbers (RBP's p, ERR's max_grade), not named choices
                continue
            choice = next(c for c in _registry.OPTIONS[name].choices if c.value == value)
            assert LIBRARIES[row.library].name in used_by(choice), (row, name)
    listed = used_by(_registry.OPTIONS["ideal"].choices[1])
    assert "scikit-learn" in listed and "torchmetrics" in listed and "Cornac" not in listed


def test_used_by_leaves_out_rows_whose_step_replaces_the_option():
    # Elliot's "MAP" averages P@1..P@k: it is no AP, so no AP denominator may list it
    for choice in _registry.OPTIONS["denominator"].choices:
        assert "Elliot" not in used_by(choice), choice
    assert "Microsoft Recommenders map_at_k" in used_by(_registry.OPTIONS["denominator"].choices[0])
    # Elliot's nDCG gain is 2**(grade + 1) - 1 at its default threshold: listed with that caveat
    exponential = next(c for c in _registry.OPTIONS["gain"].choices if c.value == "exponential")
    assert "Elliot nDCG (only with relevance_threshold=1; its default 0 gives 2**(grade + 1) - 1)" in (
        used_by(exponential)
    )


def test_default_of_every_option_is_one_of_its_choices_and_has_a_reason():
    for option in (*_registry.OPTIONS.values(), *_registry.BATCH_OPTIONS.values()):
        assert option.default in option.values
        assert len(option.why_default) > 40
        assert all(used_by(choice) for choice in option.choices)


def test_batch_columns_follow_the_registry_order():
    import numpy as np

    got = topkeval.evaluate_arrays(np.array([[0]]), [0, 1], [0], k=1)
    assert list(got.columns) == [f"{key}@1" for key in _registry.DEFAULT_METRIC_KEYS]
    every = topkeval.evaluate_arrays(
        np.array([[0]]), [0, 1], [0], k=1, metrics=list(reversed(_registry.METRICS))
    )
    assert list(every.columns) == [f"{key}@1" for key in _registry.METRIC_KEYS]


def test_readme_cli(tmp_path, capsys):
    from tools.render_readme import main

    assert main(["helpers", "nonsense"]) == 2
    assert "usage" in capsys.readouterr().err
    with pytest.raises(ValueError, match="markers"):
        render("no markers here")
