"""Argument checks and the constraints public functions declare, with the one template of their messages.

A public function declares what each argument must be beside its definition,
as data: ``@validate_params({"k": Integer(1, CUTOFF), "denominator":
OneOf("denominator"), ...})`` (as scikit-learn's ``validate_params``). The
decorator checks every declared argument on each call, passes on the checked
value (a ranking as a list, ``k`` as a builtin int), and keeps the declaration
on the function (``function.__constraints__``), so one test can feed every
public function each invalid value its constraints imply. A parameter error is
worded by one template, :data:`MESSAGE`: what must hold, the value received,
and a hint when a cause is likely. The kinds of constraint: :class:`Integer`,
:class:`Real`, :class:`Number` (a registry parameter), :class:`OneOf`,
:class:`Flag`, :class:`Text`, :class:`FilePath`, :class:`Cutoffs`,
:class:`Metrics`, :class:`Ranking`, :class:`Judgments`, and :class:`Maybe`
(None allowed); :func:`settings_constraints` declares the registry's options
of an entry point. Checks that read several parameters together, or the
data's contents (duplicate ids, grades), stay in the function.

The checks of one kind of input shared by several entry points live here too
(rankings, relevance grades, ``top_items`` matrices, metric names, options).
Messages that depend on one module's own input (a TREC file's line, a Spark
column, a statistics test's sample) are written in that module. The exception
classes are in :mod:`topkeval._errors`: bad values raise
:class:`~topkeval.InvalidInputError` (a ``ValueError``), values of the wrong
type :class:`~topkeval.InputTypeError` (a ``TypeError``).
"""

from __future__ import annotations

import difflib
import functools
import inspect
import math
import numbers
import os
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias, TypeVar

import numpy as np

from . import _registry
from ._errors import (
    DuplicateRecommendationError,
    DuplicateRelevantError,
    InputTypeError,
    InvalidInputError,
    NoRelevantItemError,
)
from ._registry import BATCH_OPTIONS, OPTIONS, PARAMETERS, Settings

F = TypeVar("F", bound=Callable[..., Any])

__all__ = [
    "Relevant",
    "InvalidInputError",
    "InputTypeError",
    "NoRelevantItemError",
    "DuplicateRecommendationError",
    "DuplicateRelevantError",
    "check_settings",
    "check_metrics",
    "check_top_items",
    "check_grades",
    "plain",
    "check_k",
    "check_ks",
    "check_option",
    "check_ranking",
    "check_relevance",
    "check_relevant_set",
    "check_propensity",
    "empty_relevant_error",
]


#: The relevant items of one user: a set (or any collection) of item ids, each of grade 1, or a mapping
#: item -> grade (>= 0; 0 = judged not relevant). Every per-user function names this argument ``relevant``.
Relevant: TypeAlias = Collection[Hashable] | Mapping[Hashable, float]


def plain(value: Any) -> Any:
    """A NumPy scalar as the builtin it holds, so messages show ``1``, not ``np.int64(1)``.

    >>> import numpy as np
    >>> plain(np.int64(1)), plain("a")
    (1, 'a')
    """
    return value.item() if isinstance(value, np.generic) else value


def _short(value: Any, limit: int = 60) -> str:
    """Return ``repr(value)`` cut to ``limit`` characters for messages."""
    text = repr(plain(value))
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _examples(values: Iterable[Any], limit: int = 3) -> str:
    """Return up to ``limit`` values as ``'a', 'b', 'c'`` for messages."""
    values = list(values)
    shown = ", ".join(_short(v, 30) for v in values[:limit])
    return shown + (", ..." if len(values) > limit else "")


# ------------------------------------------------------------------- template
#: The one wording of a parameter error: ``{name} must be {expected}; got {got}{detail}.{advice}``.
MESSAGE = "{name} must be {expected}; got {got}{detail}.{advice}"
#: What a cutoff is, in every message about one.
CUTOFF = " (the cutoff: how many top items count)"


def parameter_error(
    name: str, expected: str, value: Any, *, wrong_type: bool = False, detail: str = "", advice: str = ""
) -> InvalidInputError | InputTypeError:
    """The error for a parameter that breaks its constraint, worded by :data:`MESSAGE`.

    A value of the wrong type is shown with its type and raises :class:`InputTypeError`; a wrong value,
    :class:`InvalidInputError`.

    >>> str(parameter_error("k", "an int >= 1", 0))
    'k must be an int >= 1; got 0.'
    """
    got = f"{_short(value)} of type {type(value).__name__}" if wrong_type else _short(value)
    text = MESSAGE.format(name=name, expected=expected, got=got, detail=detail, advice=advice)
    return InputTypeError(text) if wrong_type else InvalidInputError(text)


# --------------------------------------------------------------------- cutoffs
def check_k(k: Any, name: str = "k") -> int:
    """A cutoff as a builtin int, or an error saying what a cutoff must be.

    Parameters
    ----------
    k : int
        The value to check: an int >= 1 (NumPy ints too; not a bool, not 2.0).
    name : str
        The argument's name in the message.

    Returns
    -------
    int
        ``k`` as a builtin int.

    Raises
    ------
    topkeval.InputTypeError
        If ``k`` is not an int (a float with an integer value gets a hint).
    topkeval.InvalidInputError
        If ``k`` is below 1.

    Examples
    --------
    >>> from topkeval.checks import check_k
    >>> check_k(10)
    10
    >>> check_k(0)
    Traceback (most recent call last):
    ...
    topkeval.InvalidInputError: k must be an int >= 1 (the cutoff: how many top items count); got 0.
    """
    return check_int(k, name, 1, CUTOFF)


def check_int(value: Any, name: str, minimum: int = 1, meaning: str = "") -> int:
    """A count as a builtin int, or an error if it is not an int >= ``minimum``.

    Parameters
    ----------
    value : int
        The value to check (NumPy ints too; not a bool).
    name : str
        The argument's name in the message.
    minimum : int
        The smallest value allowed.
    meaning : str
        Words added after the rule in the message, e.g. ``" (sessions per arm)"``.

    Returns
    -------
    int
        ``value`` as a builtin int.

    Examples
    --------
    >>> from topkeval.checks import check_int
    >>> check_int(3, "n_users")
    3
    >>> check_int(1, "n_sessions", 4)
    Traceback (most recent call last):
    ...
    topkeval.InvalidInputError: n_sessions must be an int >= 4; got 1.
    """
    expected = f"an int >= {minimum}{meaning}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        whole = isinstance(value, numbers.Real) and not isinstance(value, bool) and float(value).is_integer()
        detail = f"; write {name}={int(float(value))}" if whole else ""
        raise parameter_error(name, expected, value, wrong_type=True, detail=detail)
    if int(value) < minimum:
        raise parameter_error(name, expected, int(value))
    return int(value)


def check_number(
    value: Any,
    name: str,
    low: float,
    high: float = math.inf,
    *,
    low_open: bool = False,
    high_open: bool = False,
    meaning: str = "",
) -> float:
    """A real number in a range as a builtin float, or an error naming the range.

    Parameters
    ----------
    value : float
        The value to check (an int or a NumPy number too; not a bool, not NaN).
    name : str
        The argument's name in the message.
    low, high : float
        The ends of the range.
    low_open, high_open : bool
        Whether that end is excluded.
    meaning : str
        Words added after the range in the message, e.g. ``" (e.g. 0.95)"``.

    Returns
    -------
    float
        ``value`` as a builtin float.

    Examples
    --------
    >>> from topkeval.checks import check_number
    >>> check_number(0.95, "confidence", 0, 1, low_open=True, high_open=True)
    0.95
    >>> check_number(1.5, "p", 0, 1, low_open=True, high_open=True)
    Traceback (most recent call last):
    ...
    topkeval.InvalidInputError: p must be in (0, 1); got 1.5.
    """
    span = _span(low, high, low_open, high_open) + meaning
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise parameter_error(name, f"a number in {span}", value, wrong_type=True)
    number = float(value)
    too_low = number <= low if low_open else number < low
    too_high = number >= high if high_open else number > high
    if math.isnan(number) or too_low or too_high:
        raise parameter_error(name, f"in {span}", value)
    return number


def _span(low: float, high: float, low_open: bool, high_open: bool) -> str:
    """A range as ``(0, 1]``."""
    return f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"


def check_ks(k: Any) -> tuple[int, ...]:
    """One or several cutoffs as a sorted tuple of distinct ints.

    Parameters
    ----------
    k : int or sequence of int
        A cutoff, or a non-empty list, tuple, range or array of cutoffs (each as in :func:`check_k`).

    Returns
    -------
    tuple of int
        The distinct cutoffs, smallest first.

    Examples
    --------
    >>> from topkeval.checks import check_ks
    >>> check_ks([10, 5, 10])
    (5, 10)
    >>> check_ks(3)
    (3,)
    """
    if isinstance(k, (list, tuple, range, np.ndarray)):
        if len(k) == 0:
            raise InvalidInputError("k must be an int >= 1 or a non-empty list of them; got an empty list.")
        return tuple(sorted({check_k(one) for one in k}))
    return (check_k(k),)


# --------------------------------------------------------------------- options
def check_option(name: str, value: Any, allowed: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``allowed``, else raise with the list."""
    allowed = sorted(allowed)
    listing = ", ".join(repr(a) for a in allowed)
    if not isinstance(value, str):
        raise parameter_error(name, f"one of {listing}", value, wrong_type=True)
    if value not in allowed:
        close = [a for a in allowed if a.lower() == value.lower() or a.startswith(value[:3].lower())]
        advice = f" Did you mean {close[0]!r}?" if close else ""
        raise parameter_error(name, f"one of {listing}", value, advice=advice)
    return value


def check_options(**values: Any) -> dict[str, str]:
    """Check named options against the registry's values; return them, in the order given.

    The one place where ``denominator=``, ``gain=``, ``ideal=``, ``discount=``,
    ``empty=``, ``ties=`` and ``unjudged=`` are validated, for every entry point.

    Parameters
    ----------
    **values : str
        Option name -> value, e.g. ``discount="log2"``; the names are those
        of :data:`topkeval.OPTIONS` and :data:`topkeval.BATCH_OPTIONS`.

    Returns
    -------
    dict of str to str
        The same options, checked.

    Examples
    --------
    >>> from topkeval.checks import check_options
    >>> check_options(gain="linear", ideal="all")
    {'gain': 'linear', 'ideal': 'all'}
    >>> check_options(discount="ln")
    Traceback (most recent call last):
    ...
    topkeval.InvalidInputError: discount must be one of 'clipped_log2', 'log2'; got 'ln'.
    """
    known = {**OPTIONS, **BATCH_OPTIONS}
    return {name: check_option(name, value, known[name].values) for name, value in values.items()}


def check_parameters(**values: Any) -> dict[str, float | None]:
    """Check numeric metric parameters (``p=``, ``max_grade=``) against the registry's ranges.

    >>> check_parameters(p=0.5, max_grade=None)
    {'p': 0.5, 'max_grade': None}
    """
    checked: dict[str, float | None] = {}
    for name, value in values.items():
        spec = PARAMETERS[name]
        if value is None and spec.none_means:
            checked[name] = None
            continue
        checked[name] = check_number(
            value, name, spec.low, spec.high, low_open=spec.low_open, high_open=spec.high_open
        )
    return checked


def check_max_grade(max_grade: Any, largest: float) -> float | None:
    """ERR's top of the grade scale, checked, and no grade above it (None: not given; see :func:`err_scale`).

    >>> check_max_grade(3, 2.0)
    3.0
    """
    max_grade = check_parameters(max_grade=max_grade)["max_grade"]
    if max_grade is not None and largest > max_grade:
        raise InvalidInputError(
            f"a relevance grade ({largest:g}) is above max_grade ({max_grade:g}); max_grade is the top of "
            "the grade scale, so no grade can exceed it."
        )
    return max_grade


def err_scale(max_grade: Any, largest: float, *, batch: bool = False) -> float:
    """ERR's g_max: ``max_grade`` if given; else 1 for grades <= 1, or (``batch``) the largest grade.

    g_max is a property of the grading scale (Chapelle et al. 2009), so one
    user's grades cannot stand for it: without ``max_grade`` a single user
    with a grade above 1 is refused. A batch sees the whole truth, whose
    largest grade is the best estimate of the scale's top (at least 1).

    >>> err_scale(None, 1.0)
    1.0
    >>> err_scale(None, 3.0, batch=True)
    3.0
    """
    top = check_max_grade(max_grade, largest)
    if top is not None:
        return top
    if largest > 1 and not batch:
        raise InvalidInputError(
            f"a relevance grade is {largest:g}, so ERR needs the top of the grade scale: pass "
            "max_grade=... (e.g. 4 for grades 0-4 as in TREC and gdeval, 5 for 1-5 stars). "
            "ERR's R = (2**grade - 1) / 2**max_grade is a property of the scale, not of one "
            "user's grades; without max_grade only binary relevance (grades <= 1) is accepted."
        )
    return max(1.0, float(largest))


# --------------------------------------------------------------------- ranking
def _is_missing(item: Any) -> bool:
    """True for None, NaN (float or NumPy) and pandas' NA and NaT: not an item id."""
    if item is None:
        return True
    if isinstance(item, (float, np.floating)):
        return math.isnan(item)
    return type(item).__name__ in ("NAType", "NaTType")


def check_ranking(ranking: Any) -> list:
    """Return ``ranking`` as a list of item ids, best first, or raise.

    >>> check_ranking(("a", "b"))
    ['a', 'b']
    """
    items = _ranking_items(ranking)
    _check_ranked_items(items)
    return items


def _ranking_items(ranking: Any) -> list:
    """The ranking as a list, or raise for a set, a mapping, a string, a 2-D array
    or an unordered iterable."""
    if isinstance(ranking, (set, frozenset)):
        raise InputTypeError(
            "ranking must be an ordered sequence (list, tuple or 1-D array) of item ids, best first, "
            f"not a {type(ranking).__name__}: a set has no order. Did you swap ranking and relevant?"
        )
    if isinstance(ranking, Mapping):
        raise InputTypeError(
            "ranking must be an ordered sequence (list, tuple or 1-D array) of item ids, best first, "
            f"not a {type(ranking).__name__}. Did you swap ranking and relevant?"
        )
    if isinstance(ranking, (str, bytes)):
        raise InputTypeError(
            f"ranking must be a sequence of item ids, not a single string ({_short(ranking)}); "
            f"wrap it in a list, e.g. [{_short(ranking)}]."
        )
    if isinstance(ranking, np.ndarray):
        if ranking.ndim != 1:
            raise InvalidInputError(
                f"ranking must be one user's list (a 1-D array); got an array of shape {ranking.shape}. "
                "For many users at once use topkeval.evaluate or topkeval.evaluate_arrays."
            )
        items = ranking.tolist()
    elif isinstance(ranking, Sequence) or hasattr(ranking, "__array__"):
        items = list(ranking)
    elif isinstance(ranking, Iterable):
        raise InputTypeError(
            "ranking must be an ordered sequence (list, tuple or 1-D array) of item ids, best first; "
            f"got a {type(ranking).__name__}, whose order may not be meaningful. Convert it with list(...)."
        )
    else:
        raise InputTypeError(
            "ranking must be a list, tuple or 1-D array of item ids, best first; "
            f"got {type(ranking).__name__}."
        )
    return items


def _check_ranked_items(items: list) -> None:
    """Raise for an unhashable, missing (NaN/None) or repeated item id."""
    seen: dict[Any, int] = {}
    for rank, item in enumerate(items, start=1):
        try:
            first = seen.setdefault(item, rank)
        except TypeError:
            raise InputTypeError(
                f"ranking must hold hashable item ids (str, int, ...); the item at rank {rank} "
                f"is {_short(item)} of type {type(item).__name__}."
            ) from None
        if _is_missing(item):
            raise InvalidInputError(
                f"ranking must not contain missing item ids (NaN/None); the item at rank {rank} is {item!r}. "
                "Drop those entries (a recommender lists real items), as topkeval.evaluate requires too."
            )
        if first != rank:
            raise InvalidInputError(
                f"ranking must not contain duplicates; {item!r} appears at ranks {first} and {rank}. "
                "A recommender shows each item once: remove the repeat (e.g. dict.fromkeys(ranking))."
            )


# -------------------------------------------------------------------- relevant
def _check_grade(item: Any, grade: Any) -> float:
    if isinstance(grade, (bool, np.bool_)):
        return float(grade)  # True/False are grades 1/0
    if not isinstance(grade, numbers.Real):
        raise InputTypeError(
            f"relevance grades must be real numbers >= 0; got {_short(grade)} "
            f"(type {type(grade).__name__}) for item {_short(item)}."
        )
    value = float(grade)
    where = f"item {_short(item)} has grade"
    if math.isnan(value) or math.isinf(value):
        raise InvalidInputError(_GRADE_FINITE.format(where=where, value=value))
    if value < 0:
        raise InvalidInputError(_GRADE_NEGATIVE.format(where=where, value=f"{value:g}"))
    return value


def check_relevance(relevance: Any, name: str = "relevant") -> dict[Any, float]:
    """Return ``{item: grade}`` for every judged item.

    A set, list, tuple or array of ids means grade 1 for each (binary
    relevance); a mapping gives each item its grade (0 = judged not relevant).
    """
    if isinstance(relevance, (str, bytes)):
        raise InputTypeError(
            f"{name} must be a set of item ids or a mapping item -> grade, not a single string "
            f"({_short(relevance)}); wrap it in a set, e.g. {{{_short(relevance)}}}."
        )
    if isinstance(relevance, Mapping):
        return {item: _check_grade(item, grade) for item, grade in relevance.items()}
    if isinstance(relevance, np.ndarray):
        relevance = relevance.tolist()
    if isinstance(relevance, Iterable):
        grades: dict[Any, float] = {}
        for item in relevance:
            try:
                grades[item] = 1.0
            except TypeError:
                raise InputTypeError(
                    f"{name} must hold hashable item ids (str, int, ...); got {_short(item)} "
                    f"of type {type(item).__name__}."
                ) from None
        return grades
    raise InputTypeError(
        f"{name} must be a set of item ids or a mapping item -> grade; got {type(relevance).__name__}."
    )


def _propensity_of(propensity: Any, item: Any) -> Any:
    """One item's propensity from a mapping, or from a sequence indexed by integer item ids."""
    if isinstance(propensity, Mapping):
        if item not in propensity:
            raise InvalidInputError(
                f"propensity has no value for the observed item {_short(item)}; give every observed "
                "item its probability of being observed."
            )
        return propensity[item]
    index = int(item) if isinstance(item, numbers.Integral) and not isinstance(item, bool) else -1
    if not 0 <= index < len(propensity):
        raise InvalidInputError(
            f"propensity is a sequence indexed by item id, but the observed item {_short(item)} is not an "
            f"integer in [0, {len(propensity)}); pass a mapping item -> propensity instead."
        )
    return propensity[index]


def check_propensity(propensity: Any, items: Iterable[Any], clip: Any = None) -> dict[Any, float]:
    """The inverse-propensity weight of each of ``items``, each propensity checked to lie in (0, 1].

    ``propensity`` is a mapping item -> probability or a sequence indexed by
    integer item id; ``clip`` (>= 1, or None) caps the weights.

    >>> check_propensity({"a": 0.5, "b": 0.1}, ["a", "b"], clip=4)
    {'a': 2.0, 'b': 4.0}
    """
    if isinstance(propensity, (str, bytes)) or not isinstance(propensity, (Mapping, Sequence, np.ndarray)):
        raise InputTypeError(
            "propensity must be a mapping item -> probability or a sequence indexed by item id; got "
            f"{type(propensity).__name__}."
        )
    cap = math.inf if clip is None else check_number(clip, "clip", 1.0)
    weights = {}
    for item in items:
        value = check_number(
            _propensity_of(propensity, item),
            f"the propensity of item {_short(item)}",
            0.0,
            1.0,
            low_open=True,
        )
        weights[item] = min(1.0 / value, cap)
    return weights


def check_relevant_set(relevance: Any, name: str = "relevant") -> set:
    """Return the set of relevant items (grade > 0) of a set or a mapping."""
    return {item for item, grade in check_relevance(relevance, name).items() if grade > 0}


def empty_relevant_error(function: str) -> NoRelevantItemError:
    """The error raised by a per-user metric that is 0/0 with no relevant item."""
    return NoRelevantItemError(
        f"{function} is undefined when the user has no relevant item (its denominator is 0). "
        "Leave such users out, or, in topkeval.evaluate, choose what they count as with "
        "empty='skip', 'zero' or 'raise'."
    )


# ------------------------------------------------------------------ data frames
def check_columns(frame: Any, name: str, required: Sequence[str], hint: str = "") -> None:
    """Raise if ``frame`` is not a pandas DataFrame holding the ``required`` columns.

    Parameters
    ----------
    frame : pandas.DataFrame
        The frame to check.
    name : str
        The argument's name in the message.
    required : sequence of str
        The columns it must hold.
    hint : str
        Words appended to the advice, e.g. ``" as user_col=..."``.

    Raises
    ------
    topkeval.InvalidInputError
        If a column is missing (the message lists those the frame has).
    topkeval.InputTypeError
        If ``frame`` is not a pandas DataFrame.

    Examples
    --------
    >>> import pandas as pd
    >>> from topkeval.checks import check_columns
    >>> check_columns(pd.DataFrame({"user": [1]}), "truth", ["user", "item"])
    Traceback (most recent call last):
    ...
    topkeval.InvalidInputError: truth is missing column(s) 'item'; it has 'user'. Rename them or pass the \
column names.
    """
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        from ._frames import not_a_pandas_frame

        raise not_a_pandas_frame(frame, name)
    missing = [c for c in required if c not in frame.columns]
    if missing:
        have = ", ".join(repr(str(c)) for c in frame.columns) or "none"
        raise InvalidInputError(
            f"{name} is missing column(s) {', '.join(repr(m) for m in missing)}; it has {have}. "
            f"Rename them or pass the column names{hint}."
        )


def describe_examples(values: Iterable[Any], limit: int = 3) -> str:
    """Up to ``limit`` values, for messages that name offending rows or users."""
    return _examples(values, limit)


# ------------------------------------------------------------ metrics, settings
def check_metrics(metrics: Any) -> tuple[str, ...]:
    """The registry keys of the metrics asked for, in column order (None: the default metrics).

    A name is read without regard to case, and the common names of a metric
    map to its key (``"MAP"`` is ``"ap"``); another name gets a suggestion.

    >>> check_metrics(["NDCG", "map", "hr"])
    ('hit', 'ap', 'ndcg')
    """
    if metrics is None:
        return _registry.default_metric_keys()
    if isinstance(metrics, str):
        metrics = [metrics]
    chosen = [check_metric(name) for name in metrics]
    if not chosen:
        raise InvalidInputError(
            f"metrics must name at least one of {_listing(_registry.metric_keys())} (or be None for the "
            "default ones); got an empty list."
        )
    return tuple(key for key in _registry.metric_keys() if key in chosen)


def _listing(names: Iterable[str]) -> str:
    return ", ".join(repr(name) for name in names)


def check_metric(name: Any) -> str:
    """The registry key one metric name stands for, or raise with the closest names.

    >>> check_metric("hit_rate")
    'hit'
    """
    if not isinstance(name, str):
        raise InputTypeError(
            f"metrics must be names such as {_listing(_registry.metric_keys())}; got {_short(name)} "
            f"of type {type(name).__name__}."
        )
    key = _registry.metric_key(name)
    if key is not None:
        return key
    names = _registry.metric_names()
    close = difflib.get_close_matches(name.strip().lower(), names, n=1, cutoff=0.6)
    hint = f" Did you mean {_registry.metric_key(close[0])!r}?" if close else ""
    raise InvalidInputError(
        f"metrics must be among {_listing(_registry.metric_keys())} (or a common name of one, such as "
        f"'map' for 'ap'); got {name!r}.{hint}"
    )


def check_settings(inputs: str = "frames", **values: Any) -> Settings:
    """Every keyword option of an evaluation, checked against the registry, as one :class:`Settings`.

    ``inputs`` ("frames" or "arrays") says which options the entry point takes.

    >>> check_settings(gain="exponential").gain
    'exponential'
    """
    unknown = sorted(set(values) - set(_registry.option_names(inputs)))
    if unknown:
        raise InputTypeError(f"unknown option(s) {_listing(unknown)} for {inputs} input.")
    numbers_ = {name: values.pop(name) for name in list(values) if name in PARAMETERS}
    checked: dict[str, Any] = dict(check_options(**values))
    checked.update(check_parameters(**numbers_))
    return Settings(**checked)


# ------------------------------------------------------------------ id arrays
def check_id_array(value: Any, name: str, ndim: int) -> np.ndarray:
    """An array of integer ids (or offsets) with ``ndim`` dimensions, as int64.

    >>> check_id_array([0, 2], "relevant_indptr", 1).dtype
    dtype('int64')
    """
    array = np.asarray(value)
    shape = "a 2-D (users x K) array of item ids, best first" if ndim == 2 else "a 1-D array"
    if array.ndim != ndim:
        raise InvalidInputError(f"{name} must be {shape}; got shape {array.shape}.")
    if array.size and not np.issubdtype(array.dtype, np.integer):
        raise InputTypeError(
            f"{name} must hold integer ids (items coded 0..n_items-1; in top_items a negative id marks an "
            f"empty slot); got dtype {array.dtype}. topkeval.evaluate takes ids of any type and codes them."
        )
    return array.astype(np.int64, copy=False)


def check_top_items(top_items: Any, *, duplicates: bool = True) -> np.ndarray:
    """A (users x K) matrix of item ids as int64; with ``duplicates``, no row repeats an item.

    >>> check_top_items([[3, 1], [2, -1]]).dtype
    dtype('int64')
    >>> check_top_items([[3, 3]])
    Traceback (most recent call last):
    ...
    topkeval.DuplicateRecommendationError: row 0 of top_items lists item 3 more than once (at ranks 1, 2); \
a ranking must not contain duplicates. Remove repeats before evaluating.
    """
    top = check_id_array(top_items, "top_items", 2)
    if duplicates and top.shape[1] > 1:
        ordered = np.sort(top, axis=1)
        repeated = (ordered[:, 1:] == ordered[:, :-1]) & (ordered[:, 1:] >= 0)
        if repeated.any():
            row, column = (int(x) for x in np.argwhere(repeated)[0])
            raise duplicate_recommendation(row, top[row], int(ordered[row, column]))
    return top


def duplicate_recommendation(row: int, listed: np.ndarray, item: int) -> DuplicateRecommendationError:
    """Row ``row`` of top_items lists ``item`` more than once."""
    ranks = [int(p) + 1 for p in np.flatnonzero(listed == item)]
    return DuplicateRecommendationError(
        f"row {row} of top_items lists item {item} more than once (at ranks {', '.join(map(str, ranks))}); "
        "a ranking must not contain duplicates. Remove repeats before evaluating.",
        row,
        item,
        ranks,
    )


def duplicate_relevant(row: int, item: int) -> DuplicateRelevantError:
    """The relevant items of row ``row`` list ``item`` more than once."""
    return DuplicateRelevantError(
        f"the relevant items of row {row} list item {item} more than once; each relevant item must "
        "appear once per user.",
        row,
        item,
    )


def duplicate_in_frames(err: InvalidInputError, user: Any, item: Any) -> InvalidInputError:
    """A duplicate found on the integer codes, told in the DataFrames' own ids."""
    user, item = plain(user), plain(item)
    if isinstance(err, DuplicateRelevantError):
        return DuplicateRelevantError(
            f"truth lists user {user!r} and item {item!r} more than once; "
            "keep one row per (user, item), e.g. truth.drop_duplicates([user, item]).",
            user,
            item,
        )
    ranks = getattr(err, "ranks", [])
    return DuplicateRecommendationError(
        f"recommendations list item {item!r} more than once for user {user!r} (at positions "
        f"{', '.join(map(str, ranks))} of its list); a ranking must not contain duplicates. "
        "Keep each user's best row per item, e.g. recommendations.drop_duplicates([user, item]).",
        user,
        item,
        ranks,
    )


# ---------------------------------------------------------------------- grades
def check_grades(grades: Any, where: str) -> np.ndarray:
    """Relevance grades as float64: finite and >= 0 (0 = judged not relevant); booleans are 0/1.

    ``where`` names them in messages, with a verb (``"relevant_grades holds"``).

    >>> check_grades([True, False, 2], "relevant_grades holds")
    array([1., 0., 2.])
    """
    values = np.asarray(grades)
    if values.size and not (np.issubdtype(values.dtype, np.number) or values.dtype == np.bool_):
        raise InputTypeError(f"{where} must hold numbers (relevance grades); got dtype {values.dtype}.")
    values = values.astype(np.float64)
    if not np.all(np.isfinite(values)):
        raise InvalidInputError(_GRADE_FINITE.format(where=where, value="NaN or infinity"))
    if values.size and values.min() < 0:
        raise InvalidInputError(_GRADE_NEGATIVE.format(where=where, value=f"{values.min():g}"))
    return values


_GRADE_FINITE = (
    "relevance grades must be finite numbers >= 0; {where} {value}. Drop unjudged items instead of marking "
    "them NaN."
)
_GRADE_NEGATIVE = (
    "relevance grades must be >= 0 (0 = judged not relevant); {where} {value}. Shift or clip negative "
    "ratings before using them as grades."
)


# ------------------------------------------------------------ constraints as data
@dataclass(frozen=True)
class Integer:
    """An int >= ``low`` (NumPy ints too; not a bool); ``meaning`` follows the rule in messages."""

    low: int = 1
    meaning: str = ""

    def check(self, name: str, value: Any) -> int:
        return check_int(value, name, self.low, self.meaning)

    def expected(self) -> str:
        return f"an int >= {self.low}{self.meaning}"

    def invalid(self) -> list[tuple[Any, type[Exception]]]:
        """Values that break the constraint, each with the error it must raise."""
        return [(self.low - 1, InvalidInputError), (self.low + 0.5, InputTypeError), (True, InputTypeError)]


@dataclass(frozen=True)
class OneOf:
    """One of the values of a registry option (``option``), or of ``values`` if given."""

    option: str
    values: tuple[str, ...] = ()

    def allowed(self) -> tuple[str, ...]:
        return self.values or _registry.option(self.option).values

    def check(self, name: str, value: Any) -> str:
        return check_option(name, value, self.allowed())

    def expected(self) -> str:
        return f"one of {_listing(sorted(self.allowed()))}"

    def invalid(self) -> list[tuple[Any, type[Exception]]]:
        return [("not-a-value", InvalidInputError), (3, InputTypeError)]


@dataclass(frozen=True)
class Ranking:
    """One user's ranked list of item ids (see :func:`check_ranking`); passed on as a list."""

    def check(self, name: str, value: Any) -> list:
        return check_ranking(value)

    def expected(self) -> str:
        return "an ordered sequence"

    def invalid(self) -> list[tuple[Any, type[Exception]]]:
        return [({"a", "b"}, InputTypeError), ("ab", InputTypeError), (["a", "a"], InvalidInputError)]


@dataclass(frozen=True)
class Judgments:
    """Relevant item ids or a mapping item -> grade (see :func:`check_relevance`); passed on unchanged."""

    def check(self, name: str, value: Any) -> Any:
        check_relevance(value, name)
        return value

    def expected(self) -> str:
        return "a set of item ids or a mapping item -> grade"

    def invalid(self) -> list[tuple[Any, type[Exception]]]:
        return [("abc", InputTypeError), ({"a": -1}, InvalidInputError), (3, InputTypeError)]


@dataclass(frozen=True)
class Number:
    """A real number within the range of the registry parameter ``parameter`` (``None`` if it allows it)."""

    parameter: str

    def check(self, name: str, value: Any) -> float | None:
        return check_parameters(**{self.parameter: value})[self.parameter]

    def expected(self) -> str:
        spec = PARAMETERS[self.parameter]
        return f"in {_span(spec.low, spec.high, spec.low_open, spec.high_open)}"

    def invalid(self) -> list[tuple[Any, type[Exception]]]:
        spec = PARAMETERS[self.parameter]
        return [(spec.low - 1, InvalidInputError), (float("nan"), InvalidInputError), ("x", InputTypeError)]


@dataclass(frozen=True)
class Real:
    """A real number (not a bool, not NaN) in a range, passed on as a float; ``meaning`` follows the range."""

    low: float = -math.inf
    high: float = math.inf
    low_open: bool = False
    high_open: bool = False
    meaning: str = ""

    def check(self, name: str, value: Any) -> float:
        opens = self.low_open, self.high_open
        return check_number(
            value, name, self.low, self.high, low_open=opens[0], high_open=opens[1], meaning=self.meaning
        )

    def expected(self) -> str:
        return f"in {_span(self.low, self.high, self.low_open, self.high_open)}{self.meaning}"

    def invalid(self) -> list[tuple[Any, type[Exception]]]:
        wrong: list[tuple[Any, type[Exception]]] = [(float("nan"), InvalidInputError), ("x", InputTypeError)]
        if math.isfinite(self.low):
            wrong.append((self.low - 1, InvalidInputError))
        if math.isfinite(self.high):
            wrong.append((self.high + 1, InvalidInputError))
        return [*wrong, (True, InputTypeError)]


@dataclass(frozen=True)
class Flag:
    """True or False (a NumPy bool too; not 0 or 1), passed on as a bool."""

    def check(self, name: str, value: Any) -> bool:
        if not isinstance(value, (bool, np.bool_)):
            raise parameter_error(name, self.expected(), value, wrong_type=True)
        return bool(value)

    def expected(self) -> str:
        return "True or False"

    def invalid(self) -> list[tuple[Any, type[Exception]]]:
        return [("yes", InputTypeError), (1, InputTypeError)]


@dataclass(frozen=True)
class Text:
    """A str: a column name, a library, a measure (non-empty unless ``empty_ok``)."""

    meaning: str = ""
    empty_ok: bool = False

    def check(self, name: str, value: Any) -> str:
        if not isinstance(value, str):
            raise parameter_error(name, self.expected(), value, wrong_type=True)
        if not self.empty_ok and not value.strip():
            raise parameter_error(name, self.expected(), value)
        return value

    def expected(self) -> str:
        return f"a {'' if self.empty_ok else 'non-empty '}str{self.meaning}"

    def invalid(self) -> list[tuple[Any, type[Exception]]]:
        return [(3, InputTypeError)] + ([] if self.empty_ok else [("", InvalidInputError)])


@dataclass(frozen=True)
class FilePath:
    """A path: a non-empty str or an ``os.PathLike`` (whether the file exists is checked where it is read)."""

    def check(self, name: str, value: Any) -> Any:
        if not isinstance(value, str | os.PathLike):
            raise parameter_error(name, self.expected(), value, wrong_type=True)
        if not str(value).strip():
            raise parameter_error(name, self.expected(), value)
        return value

    def expected(self) -> str:
        return "a path (a non-empty str or a pathlib.Path)"

    def invalid(self) -> list[tuple[Any, type[Exception]]]:
        return [(3, InputTypeError), ("", InvalidInputError)]


@dataclass(frozen=True)
class Cutoffs:
    """One cutoff or several (see :func:`check_ks`); passed on unchanged."""

    def check(self, name: str, value: Any) -> Any:
        check_ks(value)
        return value

    def expected(self) -> str:
        return "an int >= 1"

    def invalid(self) -> list[tuple[Any, type[Exception]]]:
        return [
            (0, InvalidInputError),
            (2.0, InputTypeError),
            ([], InvalidInputError),
            ([3, 0], InvalidInputError),
        ]


@dataclass(frozen=True)
class Metrics:
    """Metric names of the registry, or None for the default ones (see :func:`check_metrics`); unchanged."""

    def check(self, name: str, value: Any) -> Any:
        check_metrics(value)
        return value

    def expected(self) -> str:
        return f"names such as {_listing(_registry.metric_keys())}"

    def invalid(self) -> list[tuple[Any, type[Exception]]]:
        return [(["nonsense"], InvalidInputError), ([], InvalidInputError), ([3], InputTypeError)]


@dataclass(frozen=True)
class Maybe:
    """None, or a value ``inner`` accepts (its messages are the inner constraint's)."""

    inner: Integer | OneOf | Number | Real | Text | Cutoffs | FilePath

    def check(self, name: str, value: Any) -> Any:
        return None if value is None else self.inner.check(name, value)

    def expected(self) -> str:
        return self.inner.expected()

    def invalid(self) -> list[tuple[Any, type[Exception]]]:
        return self.inner.invalid()


Constraint: TypeAlias = (
    Integer | OneOf | Ranking | Judgments | Number | Real | Flag | Text | FilePath | Cutoffs | Metrics | Maybe
)


def settings_constraints(inputs: str) -> dict[str, Constraint]:
    """The constraints of every registry option an entry point with ``inputs`` ("frames" or "arrays") takes.

    >>> sorted(settings_constraints("arrays"))[:3]
    ['denominator', 'discount', 'empty']
    """
    return {
        name: Number(name) if name in PARAMETERS else OneOf(name) for name in _registry.option_names(inputs)
    }


def column_constraints(*names: str) -> dict[str, Constraint]:
    """The constraints of the column-name arguments ``names`` (each a non-empty str).

    >>> column_constraints("user_col")["user_col"].expected()
    'a non-empty str (a column name)'
    """
    return {name: Text(" (a column name)") for name in names}


#: The constraints every per-user metric function declares for its first three arguments.
PER_USER: dict[str, Constraint] = {"ranking": Ranking(), "relevant": Judgments(), "k": Integer(1, CUTOFF)}


def validate_params(constraints: Mapping[str, Constraint]) -> Callable[[F], F]:
    """Decorator: check each declared argument on every call and pass on the checked value.

    The declaration stays on the function as ``__constraints__`` (data a test
    can read); every message comes from the constraint, worded by :data:`MESSAGE`.

    >>> @validate_params({"k": Integer(1, CUTOFF)})
    ... def top(k):
    ...     '''The cutoff.'''
    ...     return k
    >>> top(3), sorted(top.__constraints__)
    (3, ['k'])
    """

    def decorate(function: F) -> F:
        signature = inspect.signature(function)
        unknown = sorted(set(constraints) - set(signature.parameters))
        if unknown:
            raise RuntimeError(f"{function.__name__} has no parameter(s) {unknown} to constrain")

        @functools.wraps(function)
        def checked(*args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(*args, **kwargs)
            for name, constraint in constraints.items():
                if name in bound.arguments:
                    bound.arguments[name] = constraint.check(name, bound.arguments[name])
            return function(*bound.args, **bound.kwargs)

        checked.__constraints__ = dict(constraints)  # type: ignore[attr-defined]
        return checked  # type: ignore[return-value]

    return decorate
