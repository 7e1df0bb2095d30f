"""The registry's tables, rendered: option listings in docstrings and the metric table.

Who uses each option value comes from the convention table
(:func:`topkeval.conventions.used_by`), so the registry itself stays free of
imports and the two tables cannot disagree.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TypeVar

from . import _registry
from .conventions import used_by

F = TypeVar("F", bound=Callable[..., object])

__all__ = [
    "option_table",
    "beyond_option_table",
    "metric_list",
    "fill",
    "fill_docstrings",
    "with_used_by",
    "markdown_table",
]


def option_table(name: str, width: int = 76) -> str:
    """The numpydoc-friendly listing of one option's values, with who uses each.

    Examples
    --------
    >>> print(option_table("gain").splitlines()[0])
    ``gain`` (default ``'linear'``):
    """
    option = _registry.option(name)
    lines = [f"``{name}`` (default ``{option.default!r}``):", ""]
    for choice in option.choices:
        text = f"- ``{choice.value!r}``: {choice.formula}. Used by {used_by(choice)}."
        lines.append(textwrap.fill(text, width=width, subsequent_indent="  "))
    lines += ["", textwrap.fill(f"Why the default: {option.why_default}", width=width)]
    return "\n".join(lines)


def beyond_option_table(key: str, width: int = 76) -> str:
    """The listing of one option of a beyond-accuracy metric (:data:`topkeval._registry.BEYOND_OPTIONS`).

    The convention table covers accuracy metrics only, so who uses each value
    is the registry's ``also``.

    Examples
    --------
    >>> print(beyond_option_table("gini_denominator").splitlines()[0])
    ``denominator`` (default ``'n'``):
    """
    option = _registry.BEYOND_OPTIONS[key]
    lines = [f"``{option.name}`` (default ``{option.default!r}``):", ""]
    for choice in option.choices:
        text = f"- ``{choice.value!r}``: {choice.formula}. Used by {choice.also}."
        lines.append(textwrap.fill(text, width=width, subsequent_indent="  "))
    lines += ["", textwrap.fill(f"Why the default: {option.why_default}", width=width)]
    return "\n".join(lines)


def _table(name: str) -> str:
    """The text a ``%(name)s`` placeholder stands for: the metric list, or an option's listing."""
    if name == "metrics":
        return metric_list()
    if name in _registry.BEYOND_OPTIONS:
        return beyond_option_table(name)
    return option_table(name)


def metric_list() -> str:
    """The metric keys as a docstring sentence: which ``metrics=`` values exist.

    Examples
    --------
    >>> metric_list().startswith("Any of ``'precision'``")
    True
    """
    keys = _registry.metric_keys()
    default = ", ".join(f"``{key!r}``" for key in _registry.default_metric_keys())
    names = ", ".join(f"``{key!r}``" for key in keys)
    return (
        f"Any of {names} (columns come in that order); default {default}. Names are read without "
        "regard to case, and common names map to these keys (``'map'`` is ``'ap'``, ``'mrr'`` "
        "is ``'rr'``, ``'hr'`` is ``'hit'``)."
    )


def fill(doc: str, names: tuple[str, ...]) -> str:
    """Replace each ``%(name)s`` in ``doc`` by its table, indented like the placeholder line.

    Examples
    --------
    >>> "'exponential'" in fill("    %(gain)s", ("gain",))
    True
    """
    for name in names:
        table = _table(name)
        marker = f"%({name})s"
        index = doc.find(marker)
        if index < 0:
            raise RuntimeError(f"the docstring has no {marker} placeholder")
        line_start = doc.rfind("\n", 0, index) + 1
        indent = doc[line_start:index]
        doc = doc.replace(marker, table.replace("\n", "\n" + indent))
    return doc


def with_used_by(options: dict[str, _registry.Option]) -> dict[str, _registry.Option]:
    """A copy of the registry's options whose choices say who uses them (``Choice.used_by``).

    ``topkeval/__init__.py`` publishes this copy as :data:`topkeval.OPTIONS` and
    :data:`topkeval.BATCH_OPTIONS`; the registry itself stays data that imports nothing.

    Examples
    --------
    >>> from topkeval import _registry
    >>> with_used_by(_registry.OPTIONS)["denominator"].choices[2].used_by
    'torchmetrics RetrievalMAP(top_k=k)'
    """
    return {
        name: replace(option, choices=tuple(replace(c, used_by=used_by(c)) for c in option.choices))
        for name, option in options.items()
    }


def fill_docstrings(functions: Iterable[object]) -> None:
    """Render the tables of every function marked with :func:`topkeval._registry.document`.

    ``topkeval/__init__.py`` calls it once over the package's public names;
    a function already rendered (or not marked) is left alone.

    Examples
    --------
    >>> import topkeval
    >>> "%(" in (topkeval.evaluate.__doc__ or "")
    False
    """
    for function in functions:
        names = getattr(function, _registry.TABLES_ATTRIBUTE, ())
        doc = getattr(function, "__doc__", None) or ""
        if names and "%(" in doc:
            function.__doc__ = fill(doc, names)


def document(*names: str) -> Callable[[F], F]:
    """Decorator for modules loaded after topkeval (Spark, Dask): fill the placeholders at once.

    Examples
    --------
    >>> @document("gain")
    ... def f():
    ...     '''%(gain)s'''
    >>> "'linear'" in f.__doc__
    True
    """

    def decorate(function: F) -> F:
        function.__doc__ = fill(function.__doc__ or "", names)
        return function

    return decorate


def _row(*cells: str) -> str:
    """One Markdown table row; a ``|`` inside a cell (as in ``|R|``) is escaped,
    or it would split the cell."""
    return "| " + " | ".join(str(cell).replace("|", "\\|") for cell in cells) + " |"


def _metric_rows() -> list[str]:
    header = ("column in `evaluate`", "per-user function", "notation", "mean over users", "formula")
    rows = [_row(*header, "no relevant item", "options"), "|---|---|---|---|---|---|---|"]
    for metric in _registry.METRICS.values():
        options = ", ".join(_option_cell(name) for name in metric.options) or "none"
        column = f"`{metric.key}@k`" + ("" if metric.by_default else " (on request)")
        cells = (column, f"`{metric.function}`", metric.notation, metric.mean_name, metric.formula)
        rows.append(_row(*cells, metric.no_relevant, options))
    return rows


def _option_rows() -> list[str]:
    rows = [_row("option", "value", "formula", "used by"), "|---|---|---|---|"]
    for option in (*_registry.OPTIONS.values(), *_registry.BATCH_OPTIONS.values()):
        for choice in option.choices:
            value = f"`{choice.value}`" + (" (default)" if choice.value == option.default else "")
            rows.append(_row(f"`{option.name}`", value, choice.formula, used_by(choice)))
    return rows


def _beyond_rows() -> list[str]:
    rows = [
        _row("metric", "function", "notation", "formula", "computed", "needs", "options"),
        "|---|---|---|---|---|---|---|",
    ]
    for beyond in _registry.BEYOND_METRICS.values():
        options = ", ".join(_beyond_option_cell(key) for key in beyond.options) or "none"
        cells = (f"`{beyond.key}`", f"`{beyond.function}`", beyond.notation, beyond.formula)
        rows.append(_row(*cells, beyond.scope, beyond.needs, options))
    for key, option in _registry.BEYOND_OPTIONS.items():
        rows += ["", f"`{option.name}` of `{key.split('_')[0]}`:", ""]
        rows += [_row("value", "formula", "used by"), "|---|---|---|"]
        for choice in option.choices:
            value = f"`{choice.value}`" + (" (default)" if choice.value == option.default else "")
            rows.append(_row(value, choice.formula, choice.also))
        rows += ["", f"Why the default: {option.why_default}"]
    return rows


def _beyond_option_cell(key: str) -> str:
    option = _registry.BEYOND_OPTIONS[key]
    return f"`{option.name}`: " + " / ".join(
        f"**`{v}`**" if v == option.default else f"`{v}`" for v in option.values
    )


def markdown_table() -> str:
    """The table of every metric, option and beyond-accuracy metric, as Markdown (generated, never typed).

    Returns
    -------
    str
        Markdown tables: the metrics, who uses which option value, the
        beyond-accuracy metrics and their options.

    Examples
    --------
    >>> import topkeval
    >>> print(topkeval.metric_table().splitlines()[0])
    | column in `evaluate` | per-user function | notation | mean over users | formula | no relevant item \
| options |
    """
    rows = _metric_rows()
    rows += ["", "Which libraries compute which variant:", ""] + _option_rows()
    rows += ["", "Beyond accuracy (`topkeval.beyond`: they read the lists, not relevance):", ""]
    return "\n".join(rows + _beyond_rows())


def _option_cell(name: str) -> str:
    if name in _registry.PARAMETERS:
        return _registry.PARAMETERS[name].describe()
    option = _registry.OPTIONS[name]
    return f"`{name}`: " + " / ".join(
        f"**`{v}`**" if v == option.default else f"`{v}`" for v in option.values
    )
