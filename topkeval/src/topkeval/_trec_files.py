"""TREC qrels and run files read at parser speed, as trec_eval reads them.

Three readers, one result (a test runs the same files through each):

* numpy's C text reader (``loadtxt``) for files up to :data:`NUMPY_UP_TO`
  bytes, and for larger ones where pyarrow is missing: nothing more to
  import, and the ids kept as fixed-width bytes, not Python strings, so a
  whole ``python -m topkeval`` on 200 queries x 1000 documents stays below
  pytrec_eval's resident memory;
* pyarrow's multi-threaded CSV reader for larger single-space separated
  files, where it is installed (faster on two cores than numpy's, which is
  single-threaded; importing it costs about 60 MB, paid back only on large
  files);
* pandas' C parser (then Python's ``split``) for what the other two refuse:
  it names the file's line of a short line or a bad number.

Lines whose first non-blank character is ``#`` are comments and blank lines
are skipped, as in trec_eval; a ``#`` inside a field (a docno such as
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


#: files up to this many bytes are read by numpy (measured: below it, importing pyarrow costs more time and
#: memory than its reader saves; benchmarks/trec.py)
NUMPY_UP_TO = 16 * 2**20
#: bytes numpy's reader would read otherwise than trec_eval's other readers (NUL, vertical tab, form feed)
_ODD_BYTES = (b"\0", b"\x0b", b"\x0c")


def reader_order(size: int) -> tuple[str, ...]:
    """The readers to try, in order, for files of ``size`` bytes in all (qrels and run read alike).

    numpy's for small files, pyarrow's first for large ones (numpy's where pyarrow is missing); the
    pandas route comes last, for what both refuse.

    Examples
    --------
    >>> reader_order(1000)
    ('numpy', 'pyarrow')
    """
    if size <= NUMPY_UP_TO:
        return ("numpy", "pyarrow")
    return ("pyarrow", "numpy")


def file_size(*paths: str | os.PathLike) -> int:
    """Bytes in all the files together (a path that cannot be read counts 0: reading it says why)."""
    total = 0
    for path in paths:
        try:
            total += os.path.getsize(path)
        except (OSError, TypeError, ValueError):
            pass
    return total


def _with_numpy(data: bytes, n_columns: int, numeric: int, integer: bool):
    """The columns by numpy's C reader: ids as fixed-width bytes; None where another reader must decide.

    Returns ``[qid, None, docno, ..., value, ...]`` (unread columns None, the
    number column already parsed), or None for a file with a short line, a
    value that is not a number (the pandas route names the line), NaN, a
    non-integer grade, bytes numpy splits differently, or invalid UTF-8.
    """
    if any(odd in data for odd in _ODD_BYTES):
        return None
    wanted = list(dict.fromkeys([0, 2, numeric, n_columns - 1]))  # the last column: every line has it all
    parts = [_numpy_part(data[start:stop], wanted, numeric) for start, stop in _pieces(data)]
    if any(part is None for part in parts):
        return None
    values = np.concatenate([part[2] for part in parts])
    if not _plain_numbers(values, integer):
        return None
    columns: list = [None] * n_columns
    columns[0], columns[2] = (np.concatenate([part[i] for part in parts]) for i in (0, 1))
    columns[numeric] = values
    return columns


def _plain_numbers(values: np.ndarray, integer: bool) -> bool:
    """No NaN (and whole numbers for grades): what pandas' route accepts without naming a line."""
    with np.errstate(invalid="ignore"):
        return not (np.isnan(values).any() or (integer and (values % 1 != 0).any()))


def _pieces(data: bytes, size: int = 2**18):
    """(start, stop) of consecutive pieces of about ``size`` bytes, each ending at a line's end."""
    start = 0
    while start < len(data):
        stop = data.find(b"\n", start + size)
        stop = len(data) if stop < 0 else stop + 1
        yield start, stop
        start = stop


def _numpy_part(piece: bytes, wanted: list[int], numeric: int):
    """(qid, docno, value) of one piece of a file by ``numpy.loadtxt``; None if it refuses the piece."""
    if not _is_utf8(piece):
        return None
    breaks = np.flatnonzero(np.frombuffer(piece, np.uint8) == ord("\n"))
    widest = int(np.diff(breaks, prepend=-1, append=len(piece)).max())  # no field is longer than its line
    kinds = {0: f"S{widest}", 2: f"S{widest}", numeric: "f8"}  # the last column is only checked for
    dtype = np.dtype([(f"c{i}", kinds.get(i, "S1")) for i in wanted])
    try:
        table = np.loadtxt(
            io.BytesIO(piece), dtype=dtype, usecols=wanted, comments=None, encoding="latin-1", ndmin=1
        )
    except ValueError:
        return None
    return _narrowed(table["c0"]), _narrowed(table["c2"]), np.ascontiguousarray(table[f"c{numeric}"])


def _is_utf8(piece: bytes) -> bool:
    """Whether a piece of a file (ending at a line's end) is UTF-8, which the other readers insist on."""
    if piece.isascii():
        return True
    try:
        piece.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _narrowed(column: np.ndarray) -> np.ndarray:
    """A contiguous copy of a fixed-width bytes column, as wide as its longest value."""
    width = int(np.strings.str_len(column).max()) if len(column) else 1
    return column.astype(f"S{max(width, 1)}")


def _last_field(data: bytes, index: int) -> str:
    """Field ``index`` of the last data line (the run id), found from the end (no copy of the file)."""
    stop = len(data)
    while True:
        start = data.rfind(b"\n", 0, stop) + 1
        fields = data[start:stop].split()
        if fields:
            return fields[index].decode("utf-8")
        stop = start - 1


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
    try:
        table = _arrow_table(pa, csv, data, names, numeric, integer)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None  # let the pandas route find the line and say what is wrong
    number = table.column(names[numeric])
    if number.null_count or (not integer and np.isnan(arrow_numbers(number)).any()):  # "nan" null, "+nan" NaN
        return None
    columns = dict(zip(table.column_names, table.columns, strict=True))
    return [columns.get(name) for name in names]


def _arrow_table(pa, csv, data: bytes, names: list[str], numeric: int, integer: bool):
    """qid, docno and the number column read by pyarrow (the rest is not converted, but pyarrow
    still refuses a line of another length)."""
    wanted = [names[0], names[2], names[numeric]]
    types = {name: pa.string() for name in wanted}
    types[names[numeric]] = pa.int64() if integer else pa.float64()
    return csv.read_csv(
        io.BytesIO(data),
        read_options=csv.ReadOptions(column_names=names),
        parse_options=csv.ParseOptions(delimiter=" ", quote_char=False, double_quote=False),
        convert_options=csv.ConvertOptions(
            column_types=types, strings_can_be_null=False, include_columns=wanted
        ),
    )


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
    if column.dtype.kind == "f":  # numpy's reader: parsed and checked already
        return column.astype(np.int64) if integer else column
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


def read_qrels(path: str | os.PathLike, readers: tuple[str, ...] | None = None) -> Table:
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
    columns = _columns(data, 4, 3, True, readers) or _with_pandas(
        data, 4, name, "qrels (qid iter docno grade)"
    )
    return Table(columns[0], columns[2], _numbers(columns[3], name, "grade", integer=True))


def read_run(path: str | os.PathLike, readers: tuple[str, ...] | None = None) -> Table:
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
    columns = _columns(data, 6, 4, False, readers) or _with_pandas(
        data, 6, name, "run (qid Q0 docno rank score runid)"
    )
    # numpy's and pyarrow's readers leave the run id column unread: the last line's is read alone
    runid = _last_field(data, 5) if columns[5] is None else columns[5][len(columns[5]) - 1]
    return Table(columns[0], columns[2], _numbers(columns[4], name, "score", integer=False), str(runid))


def _columns(data: bytes, n_columns: int, numeric: int, integer: bool, readers) -> list | None:
    """The columns by the first of ``readers`` (default :func:`reader_order`) that takes the file, or None."""
    functions = {"numpy": _with_numpy, "pyarrow": _with_pyarrow}
    for reader in reader_order(len(data)) if readers is None else readers:
        columns = functions[reader](data, n_columns, numeric, integer)
        if columns is not None:
            return columns
    return None


def dense_codes(first, second) -> tuple[np.ndarray, np.ndarray, int]:
    """Codes of two string columns in one code space, numbered in byte order (trec_eval's ``strcmp``).

    Examples
    --------
    >>> a, b, n = dense_codes(np.array(["b", "a"], dtype=object), np.array(["c", "a"], dtype=object))
    >>> a.tolist(), b.tolist(), n
    ([1, 0], [2, 0], 3)
    >>> a, b, n = dense_codes(np.array([b"b", b"a"]), np.array([b"c", b"a"]))
    >>> a.tolist(), b.tolist(), n
    ([1, 0], [2, 0], 3)
    """
    if _is_bytes(first) and _is_bytes(second):
        return _byte_codes(first, second)
    first, second = _alike(first, second), _alike(second, first)
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


def _is_bytes(column) -> bool:
    return isinstance(column, np.ndarray) and column.dtype.kind == "S"


def _alike(column, other):
    """A bytes column (numpy's reader) as the other column's kind: pyarrow strings or Python strings."""
    if not _is_bytes(column) or _is_bytes(other):
        return column
    if isinstance(other, np.ndarray):
        return np.array([value.decode("utf-8") for value in column.tolist()], dtype=object)
    import pyarrow as pa

    return pa.array(column, type=pa.binary()).cast(pa.string())


def _byte_codes(first: np.ndarray, second: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """:func:`dense_codes` of two bytes columns: each value as big-endian 8-byte words, sorted as integers.

    Zero padding sorts before every byte, so the words order the values as ``strcmp`` does (no value
    holds a NUL byte: numpy's reader leaves such files to the others).
    """
    words = max(first.itemsize, second.itemsize, 1) + 7 >> 3
    padded = np.zeros((len(first) + len(second), words * 8), np.uint8)
    for rows, column in ((slice(0, len(first)), first), (slice(len(first), None), second)):
        padded[rows, : column.itemsize] = column.view(np.uint8).reshape(len(column), column.itemsize)
    keys = padded.view(">u8").astype(np.uint64)
    del padded
    if words == 1:
        distinct, codes = np.unique(keys[:, 0], return_inverse=True)
        count = len(distinct)
    else:
        order = np.lexsort(keys.T[::-1])
        ordered = keys[order]
        starts = np.ones(len(order), bool)
        starts[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
        codes = np.empty(len(order), np.int64)
        codes[order] = np.cumsum(starts) - 1
        count = int(starts.sum())
    codes = codes.astype(np.int64, copy=False)
    return codes[: len(first)], codes[len(first) :], count


def texts(column, rows: np.ndarray) -> list[str]:
    """The values of ``column`` (of any reader) at ``rows``, as Python strings.

    Examples
    --------
    >>> texts(np.array([b"q1", b"q2"]), np.array([1, 0]))
    ['q2', 'q1']
    """
    if _is_bytes(column):
        return [value.decode("utf-8") for value in column[rows].tolist()]
    if isinstance(column, np.ndarray):
        return [str(value) for value in column[rows].tolist()]
    return [str(value) for value in arrow_take(column, rows).to_pylist()]


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
