"""Data frames from other libraries, as pandas DataFrames without a needless copy.

:func:`topkeval.evaluate` works on pandas. A pyarrow ``Table`` or ``RecordBatch``, a Polars
``DataFrame``, or any object that exports an Arrow stream (``__arrow_c_stream__``, e.g. a
DuckDB relation) is wrapped column by column in Arrow-backed pandas columns
(``pd.ArrowDtype``): pandas then reads Arrow's buffers in place instead of copying them into
NumPy arrays. Polars goes through ``DataFrame.to_arrow()``, which shares Polars' buffers
wherever the Arrow types allow. pyarrow and Polars stay optional: neither is imported unless
such an object is passed (and then pyarrow is already loaded by its owner). Anything else gets
a ``TypeError`` that says how to convert it.
"""

from __future__ import annotations

import sys
from typing import Any

import pandas as pd

from ._errors import InputTypeError

__all__ = ["as_pandas", "not_a_pandas_frame"]

_ACCEPTED = "a pandas DataFrame, a pyarrow Table or a Polars DataFrame"
_INSTALL_ARROW = 'pip install pyarrow (or the library\'s extra: pip install "topkeval[arrow]")'


def _module(frame: Any) -> str:
    """The top-level package that defines ``frame``'s type, e.g. ``'polars'``."""
    return type(frame).__module__.partition(".")[0]


def _from_arrow(table: Any) -> pd.DataFrame:
    """A pyarrow Table or RecordBatch as a pandas DataFrame of Arrow-backed columns (no copy)."""
    return table.to_pandas(types_mapper=pd.ArrowDtype)


def _require_pyarrow(frame: Any, name: str) -> Any:
    """Import pyarrow for an Arrow-speaking ``frame``, or say how to install it."""
    try:
        import pyarrow
    except ImportError:
        raise InputTypeError(
            f"{name} is a {type(frame).__module__}.{type(frame).__name__}; topkeval reads it through Arrow, "
            f"which needs pyarrow: {_INSTALL_ARROW}. Or convert it to pandas first."
        ) from None
    return pyarrow


def _polars(frame: Any, name: str) -> pd.DataFrame:
    kind = type(frame).__name__
    if kind == "LazyFrame":
        raise InputTypeError(
            f"{name} is a Polars LazyFrame, a query that has not run yet; pass {name}.collect() "
            "(a Polars DataFrame)."
        )
    if kind != "DataFrame":
        raise InputTypeError(
            f"{name} must be {_ACCEPTED} with one row per (user, item); got a Polars {kind}. "
            f"Build a frame with its columns first, e.g. {name}.to_frame()."
        )
    _require_pyarrow(frame, name)
    return _from_arrow(frame.to_arrow())


def _pyarrow(frame: Any, name: str) -> pd.DataFrame:
    import pyarrow as pa  # loaded already: ``frame`` is one of its objects

    if isinstance(frame, (pa.Table, pa.RecordBatch)):
        return _from_arrow(frame)
    raise InputTypeError(
        f"{name} must be {_ACCEPTED} with one row per (user, item); got a pyarrow {type(frame).__name__}. "
        "Build a table from your columns, e.g. pyarrow.table({'user': ..., 'item': ..., 'rank': ...})."
    )


def _type_name(frame: Any) -> str:
    """``dict`` for builtins, ``polars.DataFrame`` for others: a Polars user must not read 'got DataFrame'."""
    module = _module(frame)
    return type(frame).__name__ if module == "builtins" else f"{module}.{type(frame).__name__}"


def _how_to_convert(frame: Any, name: str) -> str:
    """A hint for an object that is not a data frame topkeval reads."""
    if isinstance(frame, pd.Series):
        return f"Pass the whole table (user and item columns), not one column; e.g. {name}.reset_index()."
    if hasattr(frame, "toPandas"):  # Spark
        return f"For a Spark DataFrame, collect it: {name}.toPandas()."
    if hasattr(frame, "to_pandas"):
        return f"Convert it first: {name}.to_pandas()."
    if isinstance(frame, dict):
        return f"Build one from the columns: pandas.DataFrame({name})."
    if _module(frame) == "numpy":
        return (
            f"Name the columns: pandas.DataFrame({name}, columns=['user', 'item', 'rank']); for an integer "
            "(users x K) matrix of item ids, topkeval.evaluate_arrays is the fast path."
        )
    return "Convert it to a pandas DataFrame with one row per (user, item) first."


def as_pandas(frame: Any, name: str) -> pd.DataFrame:
    """Return ``frame`` as a pandas DataFrame, wrapping Arrow data rather than copying it.

    Parameters
    ----------
    frame : pandas.DataFrame, pyarrow.Table, pyarrow.RecordBatch or polars.DataFrame
        The data. A pandas DataFrame is returned as it is. An object that
        exports an Arrow stream (``__arrow_c_stream__``) is accepted too.
    name : str
        The argument's name, for error messages (``"recommendations"``).

    Returns
    -------
    pandas.DataFrame
        ``frame`` itself, or a frame of ``pd.ArrowDtype`` columns that read
        the Arrow buffers in place.

    Raises
    ------
    TypeError
        For anything else, with the conversion to use (``.collect()`` for a
        Polars LazyFrame, ``.toPandas()`` for Spark, ...), or when Arrow data
        arrives and pyarrow is not installed.

    Examples
    --------
    >>> import pandas as pd
    >>> recs = pd.DataFrame({"user": [1], "item": [2], "rank": [1]})
    >>> as_pandas(recs, "recommendations") is recs
    True
    >>> as_pandas({"user": [1]}, "truth")
    Traceback (most recent call last):
    ...
    topkeval.InputTypeError: truth must be a pandas DataFrame, a pyarrow Table or a Polars DataFrame; \
got dict. Build one from the columns: pandas.DataFrame(truth).
    """
    if isinstance(frame, pd.DataFrame):
        return frame
    module = _module(frame)
    if module == "polars" and "polars" in sys.modules:
        return _polars(frame, name)
    if module == "pyarrow" and "pyarrow" in sys.modules:
        return _pyarrow(frame, name)
    if hasattr(type(frame), "__arrow_c_stream__") and not isinstance(frame, pd.Series):
        pa = _require_pyarrow(frame, name)
        return _from_arrow(pa.table(frame))
    raise InputTypeError(
        f"{name} must be {_ACCEPTED}; got {_type_name(frame)}. {_how_to_convert(frame, name)}"
    )


def not_a_pandas_frame(frame: Any, name: str) -> InputTypeError:
    """The error for functions that take pandas only (splits, ``evaluate_as``), with the conversion to use."""
    return InputTypeError(
        f"{name} must be a pandas DataFrame; got {_type_name(frame)}. {_how_to_convert(frame, name)}"
    )
