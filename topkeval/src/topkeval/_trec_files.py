"""TREC qrels and run files read at parser speed, as trec_eval reads them.

pyarrow's CSV reader where it is installed and the file is single-space
separated; pandas' C parser (any run of spaces and tabs) otherwise. Lines
whose first non-blank character is ``#`` are comments and blank lines are
skipped, as in trec_eval; a ``#`` inside a field (a docno such as
``CR#93E-1860``) is data.

Import rule: numpy and pandas only (pyarrow when installed); nothing else of
topkeval but :mod:`topkeval._validation`'s error class, so ``python -m
topkeval`` stays quick to start.
"""

from __future__ import annotations

import io
import os
import re
import warnings
from dataclasses import dataclass

import numpy as np

from ._errors import InvalidInputError

_COMMENT = re.compile(rb"(?m)^[ \t]*#.*(?:\n|$)")
#: byte patterns the single-space reader cannot take (tabs, runs of spaces); a space at either end of a line
#: gives an extra (empty) field, which pyarrow refuses, so the pandas route reads that file
_IRREGULAR = (b"\t", b"  ")


@dataclass(frozen=True)
class Table:
    """The columns of a file that trec_eval reads (strings as a numpy object array or a pyarrow array)."""

    qid: object
    docno: object
    value: np.ndarray  # the score (run) or the grade (qrels)
    runid: str = ""


def _read_bytes(path: str | os.PathLike, what: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as err:
        raise InvalidInputError(
            f"cannot read the {what} file {str(path)!r}: {err.strerror or err}."
        ) from None
    if b"#" in data and _COMMENT.search(data):
        data = _COMMENT.sub(b"", data)
    if not data or data.isspace():
        raise InvalidInputError(f"the {what} file {str(path)!r} is empty (no line to score).")
    return data


def _with_pyarrow(data: bytes, n_columns: int, numeric: int, integer: bool):
    """The columns by pyarrow's multi-threaded reader; None without pyarrow or for an irregular layout."""
    if any(pattern in data for pattern in _IRREGULAR):
        return None
    try:
        import pyarrow as pa
        from pyarrow import csv
    except ImportError:
        return None
    names = [f"c{i}" for i in range(n_columns)]
    wanted = list(dict.fromkeys([names[0], names[2], names[numeric], names[-1]]))  # qid, docno, number, runid
    types = {name: pa.string() for name in wanted}
    types[names[numeric]] = pa.int64() if integer else pa.float64()
    try:
        table = csv.read_csv(
            io.BytesIO(data),
            read_options=csv.ReadOptions(column_names=names),
            parse_options=csv.ParseOptions(delimiter=" ", quote_char=False, double_quote=False),
            convert_options=csv.ConvertOptions(
                column_types=types, strings_can_be_null=False, include_columns=wanted
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None  # let the pandas route find the line and say what is wrong
    if table.column(names[numeric]).null_count:
        return None
    columns = dict(zip(table.column_names, table.columns, strict=True))
    return [columns.get(name) for name in names]


def arrow_numbers(array) -> np.ndarray:
    """A pyarrow array of numbers without nulls as numpy, zero-copy.

    Read from its data buffer: ``to_numpy`` would load pyarrow's pandas shim,
    which imports pandas (a second of start-up) when it is installed.
    """
    if hasattr(array, "chunks"):
        parts = [arrow_numbers(chunk) for chunk in array.chunks]
        return np.concatenate(parts) if parts else np.zeros(0, np.dtype(str(array.type)))
    values = np.frombuffer(array.buffers()[1], dtype=np.dtype(str(array.type)))
    return values[array.offset : array.offset + len(array)]


def arrow_take(array, rows: np.ndarray):
    """``array.take(rows)`` with the indices handed over as a buffer (see :func:`arrow_numbers`)."""
    import pyarrow as pa

    rows = np.ascontiguousarray(rows, dtype=np.int64)
    return array.take(pa.Array.from_buffers(pa.int64(), len(rows), [None, pa.py_buffer(rows)]))


def _with_pandas(data: bytes, n_columns: int, name: str, what: str):
    import pandas as pd

    try:
        with warnings.catch_warnings():
            warnings.simplefilter(
                "ignore", pd.errors.ParserWarning
            )  # fields after the last one read: dropped
            frame = pd.read_csv(
                io.BytesIO(data),
                sep=r"\s+",
                header=None,
                dtype=str,
                engine="c",
                names=range(n_columns),
                index_col=False,
                keep_default_na=False,
                na_values=[],
                skip_blank_lines=True,
            )
    except pd.errors.ParserError:
        return _with_python(data, n_columns, name, what)
    short = (frame[n_columns - 1] == "") | frame[n_columns - 1].isna()
    if short.any():
        _too_short(int(np.flatnonzero(short.to_numpy())[0]) + 1, n_columns, name, what)
    return [frame[i].to_numpy(dtype=object) for i in range(n_columns)]


def file_line(path: str | os.PathLike, data_line: int) -> int:
    """The line number in the file of its ``data_line``-th data line (comments and blank lines counted).

    Only an error message needs it, so the file is read again rather than every line's number kept.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "run"
    >>> _ = p.write_text("# a comment\\n\\nq1 Q0 d1 1 2.5 r\\nq1 Q0 d2 2 x r\\n")
    >>> file_line(p, 2)
    4
    """
    with open(path, "rb") as handle:
        seen = 0
        for number, line in enumerate(handle, 1):
            stripped = line.strip()
            seen += bool(stripped) and not stripped.startswith(b"#")
            if seen == data_line:
                return number
    return data_line


def _too_short(line: int, n_columns: int, name: str, what: str):
    raise InvalidInputError(
        f"{name}: line {file_line(name, line)} has fewer than {n_columns} fields; "
        f"a {what} line has {n_columns}."
    )


def _with_python(data: bytes, n_columns: int, name: str, what: str):
    rows = [line.split()[:n_columns] for line in data.decode("utf-8", "replace").splitlines() if line.strip()]
    for number, row in enumerate(rows, 1):
        if len(row) < n_columns:
            _too_short(number, n_columns, name, what)
    return [np.array(column, dtype=object) for column in zip(*rows, strict=True)]


def _numbers(column, name: str, what: str, integer: bool) -> np.ndarray:
    if not isinstance(column, np.ndarray):
        return arrow_numbers(column)
    import pandas as pd

    values = pd.to_numeric(pd.Series(column), errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    with np.errstate(invalid="ignore"):  # nan % 1: the line is named below, no RuntimeWarning first
        bad = np.isnan(values) | (integer & (values % 1 != 0))
    if bad.any():
        line = int(np.flatnonzero(bad)[0]) + 1
        kind = "an integer" if integer else "a number"
        raise InvalidInputError(
            f"{name}: line {file_line(name, line)}: the {what} {column[line - 1]!r} is not {kind}."
        )
    return values.astype(np.int64) if integer else values


def read_qrels(path: str | os.PathLike) -> Table:
    """Read a qrels file: ``qid iter docno grade`` (an integer; negative grades are kept).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "qrels"
    >>> _ = p.write_text("# judged by hand\\nq1 0 d1 2\\nq1 0 d2 -2\\n")
    >>> read_qrels(p).value.tolist()
    [2, -2]
    """
    name = str(path)
    data = _read_bytes(path, "qrels")
    columns = _with_pyarrow(data, 4, 3, integer=True) or _with_pandas(
        data, 4, name, "qrels (qid iter docno grade)"
    )
    return Table(columns[0], columns[2], _numbers(columns[3], name, "grade", integer=True))


def read_run(path: str | os.PathLike) -> Table:
    """Read a run file: ``qid iter docno rank score runid`` (the rank is not read; the last runid is kept).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "run"
    >>> _ = p.write_text("q1 Q0 d1 1 2.5 mine\\nq1\\tQ0 d2 2  1.5 mine\\n")
    >>> table = read_run(p)
    >>> table.value.tolist(), table.runid
    ([2.5, 1.5], 'mine')
    """
    name = str(path)
    data = _read_bytes(path, "run")
    columns = _with_pyarrow(data, 6, 4, integer=False) or _with_pandas(
        data, 6, name, "run (qid Q0 docno rank score runid)"
    )
    runid = columns[5][len(columns[5]) - 1]
    runid = runid.as_py() if hasattr(runid, "as_py") else runid
    return Table(columns[0], columns[2], _numbers(columns[4], name, "score", integer=False), str(runid))


def dense_codes(first, second) -> tuple[np.ndarray, np.ndarray, int]:
    """Codes of two string columns in one code space, numbered in byte order (trec_eval's ``strcmp``).

    Examples
    --------
    >>> a, b, n = dense_codes(np.array(["b", "a"], dtype=object), np.array(["c", "a"], dtype=object))
    >>> a.tolist(), b.tolist(), n
    ([1, 0], [2, 0], 3)
    """
    if isinstance(first, np.ndarray) or isinstance(second, np.ndarray):
        import pandas as pd

        codes, uniques = pd.factorize(_concat(first, second), sort=True)
        codes = codes.astype(np.int64)
        return codes[: len(first)], codes[len(first) :], len(uniques)
    import pyarrow as pa
    import pyarrow.compute as pc

    # one hash table for both columns (their chunks share one dictionary); only distinct strings are sorted
    encoded = pc.dictionary_encode(pa.chunked_array([*_chunks(first), *_chunks(second)], type=first.type))
    dictionary = encoded.chunks[-1].dictionary if encoded.num_chunks else pa.array([], first.type)
    order = arrow_numbers(pc.rank(dictionary, sort_keys="ascending", tiebreaker="dense")).astype(np.int64) - 1
    indices = [arrow_numbers(chunk.indices).astype(np.int64) for chunk in encoded.chunks]
    codes = order[np.concatenate(indices)] if indices else np.zeros(0, np.int64)
    return codes[: len(first)], codes[len(first) :], len(dictionary)


def _chunks(column) -> list:
    return column.chunks if hasattr(column, "chunks") else [column]


def _concat(first, second):
    if isinstance(first, np.ndarray) or isinstance(second, np.ndarray):
        as_numpy = [
            c if isinstance(c, np.ndarray) else np.array(c.to_pylist(), dtype=object) for c in (first, second)
        ]
        return np.concatenate(as_numpy)
    import pyarrow as pa

    return pa.concat_arrays([first.cast(pa.large_string()), second.cast(pa.large_string())])
