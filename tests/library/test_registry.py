"""The registry is the one source: README table, docstrings, defaults and errors follow it."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import helpers
from helpers import _registry
from tools.render_readme import render

ROOT = Path(__file__).resolve().parents[2]


def test_readme_table_is_generated_from_the_registry():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert render(readme) == readme, "README.md's metric table is stale: run `python tools/render_readme.py`"


@pytest.mark.parametrize("metric", list(_registry.METRICS.values()), ids=list(_registry.METRICS))
def test_every_metric_has_a_documented_per_user_function(metric):
    function = getattr(helpers, metric.function)
    doc = inspect.getdoc(function)
    assert "Examples" in doc and ">>>" in doc
    for option in metric.options:
        parameter = inspect.signature(function).parameters[option]
        assert parameter.default == _registry.OPTIONS[option].default
        for value in _registry.OPTIONS[option].values:  # the option table was substituted in Notes
            assert f"``{value!r}``" in doc
        assert "%(" not in doc


@pytest.mark.parametrize("function", [helpers.evaluate, helpers.evaluate_arrays])
def test_batch_defaults_come_from_the_registry(function):
    parameters = inspect.signature(function).parameters
    for name, option in {**_registry.OPTIONS, **_registry.BATCH_OPTIONS}.items():
        if name in parameters:
            assert parameters[name].default == option.default, name


def test_default_of_every_option_is_one_of_its_choices_and_has_a_reason():
    for option in (*_registry.OPTIONS.values(), *_registry.BATCH_OPTIONS.values()):
        assert option.default in option.values
        assert len(option.why_default) > 40
        assert all(choice.used_by for choice in option.choices)


def test_batch_columns_follow_the_registry_order():
    import numpy as np

    got = helpers.evaluate_arrays(np.array([[0]]), [0, 1], [0], k=1)
    assert list(got.columns) == [f"{key}@1" for key in _registry.METRIC_KEYS]


def test_readme_cli(tmp_path, capsys):
    from tools.render_readme import main

    assert main(["helpers", "nonsense"]) == 2
    assert "usage" in capsys.readouterr().err
    with pytest.raises(ValueError, match="markers"):
        render("no markers here")
