"""Data frames from other libraries, as pandas DataFrames without a needless copy.

:func:`topkeval.evaluate` works on pandas. A pyarrow ``Table`` or ``RecordBatch``, a Polars
``DataFrame``, or any object that exports an Arrow stream (``__arrow_c_stream__``, e.g. a
DuckDB relation) is wrapped column by column in Arrow-backed pandas columns
(``pd.ArrowDtype``): pandas then reads Arrow's buffers in place instead of copying them into
NumPy arrays. Polars goes through ``DataFrame.to_arrow()`` at the newest compatibility level,
which shares every buffer: Polars' strings stay Arrow ``string_view`` columns (at the default
level Polars rewrites every string as ``large_string``, a copy of every id). pandas supports only
a few operations on ``string_view`` columns (no ``take``, no boolean mask, no ``Index``), so the
helpers at the end (:func:`is_string_view`, :func:`mask_rows`, :func:`without_views`) do what
:mod:`topkeval.batch` needs on them in Arrow, or cast a column to ``large_string`` where nothing
else works; :func:`arrow_numbers` reads Arrow numbers in place. pyarrow and Polars stay optional:
neither is imported unless such an object is passed (and then pyarrow is already loaded by its
owner). Anything else gets a ``TypeError`` that says how to convert it.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pandas as pd

from ._errors import InputTypeError

__all__ = [
    "decoded",
    "arrow_numbers",
    "as_pandas",
    "is_string_view",
    "mask_rows",
    "not_a_pandas_frame",
    "without_views",
]

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
    return _from_arrow(_polars_table(frame))


def _polars_table(frame: Any) -> Any:
    """A Polars DataFrame as a pyarrow Table that shares Polars' buffers, its strings as ``string_view``.

    Polars' default compatibility level converts its string views to ``large_string``: a copy of every
    string (measured here: 0.15-0.5 s and 0.33 GiB for 10^7 rows of two id columns; the benchmark's
    Polars routes peaked 0.7 GiB above pyarrow's at K = 10). At the newest level nothing is copied. A
    column that then holds views inside another type (a Categorical or Enum: a dictionary of
    ``string_view``, which pandas and Arrow's kernels hardly read) is converted at the default level on
    its own, which copies only its dictionary (:func:`decoded` later turns id columns of that kind into
    their values). Polars without ``CompatLevel``, or a pyarrow without ``string_view``, take the
    default level for the whole frame.
    """
    import pyarrow as pa

    compat = getattr(sys.modules["polars"], "CompatLevel", None)  # Polars >= 1.1
    if compat is None or not hasattr(pa, "string_view"):
        return frame.to_arrow()
    table = frame.to_arrow(compat_level=compat.newest())
    for at, field in enumerate(table.schema):
        if not pa.types.is_string_view(field.type) and _holds_views(field.type):
            table = table.set_column(
                at, field.name, pa.chunked_array([frame.get_column(field.name).to_arrow()])
            )
    return table


def _holds_views(kind: Any) -> bool:
    """True for an Arrow type that is, or holds somewhere inside, ``string_view`` or ``binary_view``."""
    import pyarrow as pa

    if pa.types.is_string_view(kind) or pa.types.is_binary_view(kind):
        return True
    if pa.types.is_dictionary(kind):
        return _holds_views(kind.value_type)
    return any(_holds_views(kind.field(i).type) for i in range(kind.num_fields))


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


# ---------------------------------------------------------------- string_view columns
def is_string_view(dtype: Any) -> bool:
    """True for a pandas column type of Arrow ``string_view`` (what Polars' strings arrive as).

    pandas' own dtype checks (``is_numeric_dtype``, ...) raise ``NotImplementedError`` on it, so ask this
    first.
    """
    # by name: pyarrow < 16 has no pa.types.is_string_view (and no string_view columns)
    return isinstance(dtype, pd.ArrowDtype) and str(dtype.pyarrow_dtype) == "string_view"


def without_views(column: pd.Series) -> pd.Series:
    """The column with ``string_view`` cast to ``large_string`` (a copy of the strings), for the pandas
    operations that have no ``string_view`` kernel (``take``, ``factorize``, ``concat``); others as
    they are."""
    if not is_string_view(column.dtype):
        return column
    import pyarrow as pa

    strings = _arrow_of(column).cast(pa.large_string())  # pandas' astype fails on views, Arrow's cast works
    return pd.Series(pd.arrays.ArrowExtensionArray(strings), index=column.index, name=column.name, copy=False)


def decoded(column: pd.Series) -> pd.Series:
    """An Arrow dictionary column (a Polars Categorical or Enum, a pyarrow dictionary) as its values;
    others as they are.

    pandas' ``factorize`` gives every entry of an Arrow dictionary a code, used or not: an Enum's unused
    categories would become users with no recommendation (pandas' own Categorical gives only the
    categories in use). Decoding copies the ids, as a column of plain strings holds them.
    """
    if not isinstance(column.dtype, pd.ArrowDtype):
        return column
    import pyarrow as pa  # loaded: an ArrowDtype exists

    kind = column.dtype.pyarrow_dtype
    if not pa.types.is_dictionary(kind):
        return column
    values = _arrow_of(column).cast(kind.value_type)
    return pd.Series(pd.arrays.ArrowExtensionArray(values), index=column.index, name=column.name, copy=False)


def _arrow_of(column: pd.Series) -> Any:
    """The Arrow data of an ``ArrowDtype`` column, as a chunked array (no copy)."""
    import pyarrow as pa

    return pa.chunked_array(column.array.__arrow_array__())


def mask_rows(column: pd.Series, keep: np.ndarray) -> pd.Series:
    """``column[keep]`` for a boolean mask, also for ``string_view`` columns, whose strings are not copied.

    Arrow has no filter kernel for ``string_view``. A view array is a buffer of 16-byte views (length,
    then the string itself when it is at most 12 bytes, else its first 4 bytes and where it lies in the
    data buffers), so the kept rows are the kept views over the same data buffers: one 16-byte copy per
    kept row. The index becomes 0..n-1 (callers use the values only). A column with missing ids is cast
    to ``large_string`` first (its views have a validity buffer to filter too; topkeval rejects such ids).
    """
    if not is_string_view(column.dtype):
        return column[keep]
    if column.hasnans:
        return without_views(column)[keep]
    import pyarrow as pa

    chunks, at = [], 0
    for chunk in _arrow_of(column).chunks:
        chunks.append(_kept_views(chunk, keep[at : at + len(chunk)]))
        at += len(chunk)
    kept = pa.chunked_array(chunks, type=pa.string_view())
    return pd.Series(pd.arrays.ArrowExtensionArray(kept), name=column.name, copy=False)


def _kept_views(chunk: Any, keep: np.ndarray) -> Any:
    """The rows of a ``string_view`` array without nulls where ``keep`` is True, sharing its data buffers."""
    import pyarrow as pa

    if len(chunk) == 0:  # its views buffer may be missing
        return chunk
    buffers = chunk.buffers()  # validity, views, data buffers...
    views = np.frombuffer(buffers[1], dtype=np.dtype("V16"))[chunk.offset : chunk.offset + len(chunk)]
    kept = np.ascontiguousarray(views[keep])
    return pa.Array.from_buffers(pa.string_view(), kept.size, [None, pa.py_buffer(kept), *buffers[2:]])


# ---------------------------------------------------------------- Arrow numbers
def arrow_numbers(column: pd.Series) -> np.ndarray | None:
    """An Arrow-backed column of integers or floats as NumPy, reading Arrow's buffer in place; else None.

    For ``pd.ArrowDtype`` columns (a pyarrow Table's, a Polars frame's) with no missing value. pandas'
    ``to_numpy(dtype=..., na_value=...)`` copies them (0.8 GB for 10^8 ranks). The array is read-only
    (it is the caller's data). A column in several chunks is joined into one array (a copy).
    """
    if not isinstance(column.dtype, pd.ArrowDtype):
        return None
    import pyarrow as pa  # loaded: an ArrowDtype exists

    kind = column.dtype.pyarrow_dtype
    if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
        return None
    data = _arrow_of(column)
    if data.null_count:
        return None
    if data.num_chunks == 1:
        return data.chunk(0).to_numpy(zero_copy_only=True)
    chunks = [chunk.to_numpy(zero_copy_only=True) for chunk in data.chunks]
    return np.concatenate(chunks) if chunks else np.zeros(0, dtype=kind.to_pandas_dtype())
