"""One rule set for judging a learner's value, shared by the notebooks' checks, the assignments' self-check
and the grader.

- A *number* is a built-in ``int`` or ``float`` or a NumPy integer or floating
  scalar (``np.float64(0.5)`` is a number: NumPy's own ``float64`` even
  subclasses ``float``). ``bool``, ``str``, containers, arrays and objects
  of any other class are not, whatever their ``__eq__`` or ``__float__`` say.
- A *dict* is a built-in ``dict`` or one of the standard library's ``OrderedDict``,
  ``defaultdict`` and ``Counter`` (:data:`DICT_TYPES`), read by value; a class of the notebook's
  own is not a dict, whatever it subclasses.
- NaN and infinities are never right.
- Numbers are compared with :func:`math.isclose` at a stated tolerance, never
  with ``==``; a question that asks for a rounded value (``decimals=4``)
  accepts the correctly rounded value and names a wrong rounding as such.
- Feedback describes the learner's value, never the expected one.

Examples
--------
>>> import numpy as np
>>> judge_number(np.float64(0.4), 2 / 5).ok
True
>>> judge_number(True, 1.0).problem
'returned a bool, not a number'
>>> judge_number(0.7556, 34 / 45, decimals=4).ok
True
>>> judge_number(0.7555, 34 / 45, decimals=4).problem
'0.7555 is 34/45 cut to 4 decimals instead of rounded (rounding gives the last digit one more)'
"""

from __future__ import annotations

import math
import numbers
from collections import Counter, OrderedDict, defaultdict
from collections.abc import Mapping, Set
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "REL_TOL",
    "ABS_TOL",
    "Verdict",
    "as_number",
    "judge_number",
    "judge_item",
    "format_value",
    "type_name",
    "DICT_TYPES",
    "is_dict",
]

#: Default tolerances for a computed value (a function's result).
REL_TOL = 1e-9
ABS_TOL = 1e-12


@dataclass(frozen=True)
class Verdict:
    """Whether a value is right, and if not, what is wrong with it (never the expected value).

    Parameters
    ----------
    ok : bool
        True when the value is accepted.
    problem : str or None
        For a rejected value, what is wrong with it, phrased about the learner's value
        (``"returned a str, not a number"``); None when ``ok``.
    note : str or None
        Something worth saying about an accepted value (``"returned a numpy float64
        (accepted)"``); None when there is nothing to add.

    Examples
    --------
    >>> Verdict(False, "wrong value")
    Verdict(ok=False, problem='wrong value', note=None)
    """

    ok: bool
    problem: str | None = None
    note: str | None = None  # e.g. "returned a numpy float64 (accepted)"


#: The classes read as a dict: the built-in one and the standard library's own subclasses (the
#: grader's runner, :mod:`helpers.grade.child`, reads the same ones by value with ``dict.items``).
DICT_TYPES: tuple[type, ...] = (dict, OrderedDict, defaultdict, Counter)


def is_dict(value: Any) -> bool:
    """Whether ``value`` counts as a dict: its class is exactly one of :data:`DICT_TYPES`.

    Parameters
    ----------
    value : Any
        A learner's value; only its class is read.

    Returns
    -------
    bool
        True for a ``dict``, ``OrderedDict``, ``defaultdict`` or ``Counter``; False for anything
        else, a notebook's own subclass of ``dict`` included.

    Examples
    --------
    >>> from collections import defaultdict
    >>> is_dict({}), is_dict(defaultdict(float)), is_dict(type("Mine", (dict,), {})())
    (True, True, False)
    """
    return any(type(value) is kind for kind in DICT_TYPES)


def type_name(value: Any) -> str:
    """The value's type as a learner reads it: ``numpy float64``, ``bool``, ``list``.

    Parameters
    ----------
    value : Any
        Any value; only its type is read.

    Returns
    -------
    str
        The class name, prefixed with ``numpy`` for NumPy's own classes (a learner sees
        ``numpy int64`` where Python would print ``<class 'numpy.int64'>``).

    Examples
    --------
    >>> type_name(np.float64(0.5)), type_name([1]), type_name(True)
    ('numpy float64', 'list', 'bool')
    """
    kind = type(value)
    module = kind.__module__.split(".")[0]
    return f"numpy {kind.__name__}" if module == "numpy" else kind.__name__


def _is_numpy_number(value: Any) -> bool:
    """A NumPy integer or floating scalar of NumPy's own classes (not a subclass written elsewhere, and
    not a ``timedelta64``, which subclasses NumPy's integers: the grader's runner does not read it as a
    number, red team 32)."""
    numeric = isinstance(value, (np.integer, np.floating)) and not isinstance(value, np.timedelta64)
    return numeric and type(value).__module__ == "numpy"


def as_number(value: Any) -> tuple[float | None, str | None]:
    """Read a value as a number under the course's rule, or say why it is not one.

    Parameters
    ----------
    value : Any
        A learner's value. Only a built-in ``int`` or ``float`` or a NumPy integer or floating
        scalar is a number; a ``bool``, a string holding digits or an object with ``__float__`` is
        not, so ``True`` is never taken for 1.

    Returns
    -------
    tuple of (float or None, str or None)
        ``(float(value), None)`` for a finite number, ``(None, problem)`` otherwise, where
        ``problem`` describes the value (NaN and infinities are refused too).

    Examples
    --------
    >>> as_number(3)
    (3.0, None)
    >>> as_number("0.5")
    (None, 'returned a str, not a number')
    >>> as_number(float("nan"))
    (None, 'returned nan, not a finite number')
    >>> as_number(10**400)
    (None, 'returned an int too large for a float, not a finite number')
    """
    if type(value) in (int, float) or _is_numpy_number(value):
        try:
            number = float(value)
        except OverflowError:  # an int beyond a float's range
            return None, "returned an int too large for a float, not a finite number"
        if not math.isfinite(number):
            return None, f"returned {number!r}, not a finite number"
        return number, None
    return None, f"returned a {type_name(value)}, not a number"


def _rounding_problem(number: float, expected: float, decimals: int) -> str | None:
    scale = 10**decimals
    if math.isclose(number, math.trunc(expected * scale) / scale, abs_tol=0.5 / scale / 10):
        return (
            f"{number:.{decimals}f} is {_fraction_hint(expected)} cut to {decimals} decimals "
            "instead of rounded "
            "(rounding gives the last digit one more)"
        )
    return None


def _fraction_hint(expected: float) -> str:
    from fractions import Fraction

    fraction = Fraction(expected).limit_denominator(1000)
    return (
        f"{fraction.numerator}/{fraction.denominator}"
        if abs(float(fraction) - expected) < 1e-12
        else "the value"
    )


def judge_number(
    value: Any,
    expected: float,
    *,
    rel_tol: float = REL_TOL,
    abs_tol: float = ABS_TOL,
    decimals: int | None = None,
) -> Verdict:
    """Judge one number against the expected one.

    Parameters
    ----------
    value : Any
        The learner's value; anything that is not a number under :func:`as_number` is rejected
        with the reason.
    expected : float
        The right value. It never appears in the verdict.
    rel_tol, abs_tol : float
        Tolerances of :func:`math.isclose` for a computed value (defaults :data:`REL_TOL` and
        :data:`ABS_TOL`: floating-point noise passes, a different formula does not).
    decimals : int, optional
        For a question that asks for a value rounded to this many decimals: the correctly
        rounded value (or a more precise one) is accepted, and a value cut instead of rounded
        is named as that mistake rather than "wrong value".

    Returns
    -------
    Verdict
        ``ok`` and, when rejected, the problem; an accepted NumPy scalar carries a note saying
        it was accepted.

    Examples
    --------
    >>> judge_number(0.1 + 0.2, 0.3).ok
    True
    >>> judge_number(0.75, 0.8).problem
    'wrong value'
    >>> judge_number(0.76, 0.7556, decimals=2).ok
    True
    """
    number, problem = as_number(value)
    if problem or number is None:
        return Verdict(False, problem)
    note = f"returned a {type_name(value)} (accepted)" if type(value) not in (int, float) else None
    if math.isclose(number, expected, rel_tol=rel_tol, abs_tol=abs_tol):
        return Verdict(True, None, note)
    if decimals is not None:
        if math.isclose(number, round(expected, decimals), rel_tol=0.0, abs_tol=0.5 * 10**-decimals / 10):
            return Verdict(True, None, note)
        truncated = _rounding_problem(number, expected, decimals)
        if truncated:
            return Verdict(False, truncated)
    return Verdict(False, "wrong value")


def judge_item(value: Any, expected: int | str) -> Verdict:
    """Judge an identifier (an item or user id): it must be exactly the expected one.

    Parameters
    ----------
    value : Any
        The learner's id. A NumPy integer counts as an int (pandas hands them out) and a NumPy
        string as a str; a bool, a float or a str standing for a number does not count as an
        int, because an id is a label, not a quantity.
    expected : int or str
        The right id; its type decides which kind of id is asked for.

    Returns
    -------
    Verdict
        Accepted only for an id of the right kind equal to ``expected``; a rejection says
        whether the kind or the id was wrong.

    Examples
    --------
    >>> judge_item(np.int64(14), 14).ok
    True
    >>> judge_item(14.0, 14).problem
    'returned a float, not an id (an int)'
    >>> judge_item("14", 14).problem
    'returned a str, not an id (an int)'
    """
    if type(expected) is str:
        ok = type(value) is str or (type(value).__module__ == "numpy" and isinstance(value, np.str_))
    else:
        ok = type(value) is int or (_is_numpy_number(value) and isinstance(value, np.integer))
    if not ok:
        kind = "a str" if type(expected) is str else "an int"
        return Verdict(False, f"returned a {type_name(value)}, not an id ({kind})")
    return Verdict(True) if value == expected else Verdict(False, "wrong id")


def _format_scalar(value: Any, digits: int) -> str | None:
    """Text for None, bools, numbers and strings; None for anything else."""
    if isinstance(value, bool) or value is None or value is Ellipsis:
        return repr(value)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        number = float(value)
        if math.isnan(number) or math.isinf(number):
            return repr(number)
        return f"{number:.{digits}g}" if number != 0 else "0.0"
    if isinstance(value, str):
        return repr(value)
    return None


def _format_unordered(value: Any, digits: int) -> str | None:
    """Text for sets (sorted, so the text is deterministic) and mappings; None for anything else."""
    if isinstance(value, (Set, frozenset)):
        items = sorted(value, key=lambda v: (type(v).__name__, repr(v)))
        return "{" + ", ".join(format_value(v, digits) for v in items) + "}" if items else "set()"
    if isinstance(value, Mapping):
        return (
            "{" + ", ".join(f"{format_value(k)}: {format_value(v, digits)}" for k, v in value.items()) + "}"
        )
    return None


def _format_sequence(value: Any, digits: int) -> str | None:
    """Text for tuples, lists and NumPy arrays or scalars (through ``tolist``); None for anything else."""
    if isinstance(value, tuple):
        inner = ", ".join(format_value(v, digits) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(format_value(v, digits) for v in value) + "]"
    if hasattr(value, "tolist"):  # NumPy arrays and scalars
        return format_value(value.tolist(), digits)
    return None


def format_value(value: Any, digits: int = 6) -> str:
    """Deterministic, readable text for a value: sets sorted, floats rounded.

    Feedback shows the learner's own value with this, so the same value always reads the same
    on every machine and run (a set's order or a float's last digits never change the text).

    Parameters
    ----------
    value : Any
        Numbers, strings, None, containers (nested at will) and NumPy arrays or scalars get a
        readable form; any other object falls back to its ``repr``.
    digits : int, default 6
        Significant digits of each float (``0.0`` for zero).

    Returns
    -------
    str
        The text, with sets sorted and mappings in their own order.

    Examples
    --------
    >>> format_value({"b", "a"})
    "{'a', 'b'}"
    >>> format_value(2 / 3)
    '0.666667'
    >>> format_value([1, 0.5, "x"])
    "[1, 0.5, 'x']"
    """
    for formatter in (_format_scalar, _format_unordered, _format_sequence):
        text = formatter(value, digits)
        if text is not None:
            return text
    return repr(value)
