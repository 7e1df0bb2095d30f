"""Finding and reading submissions, and writing results, without trusting names or file types.

- Every input path is ``lstat``-ed; only regular files are graded. A symlink,
  FIFO, device, socket or folder is a zero with the reason: it is never
  followed, and never opened in a way that could block. A regular file is
  opened with ``O_NOFOLLOW | O_NONBLOCK`` and ``fstat``-checked again.
- File names may hold any bytes. Reports get a safe, unique and
  deterministic name (:func:`report_names`); the original name is kept,
  escaped (:func:`display_name`), in the report and in ``grades.csv``.
- A notebook is parsed for what grading reads (:func:`read_notebook`): the
  type and source of each cell. Before any parsing, its JSON is measured
  without building it (:func:`json_shape_problem`): more than
  :data:`MAX_JSON_NODES` values or nesting deeper than :data:`MAX_JSON_DEPTH`
  is refused. While it is parsed, every object keeps only the keys grading
  reads, so saved outputs, attachments and metadata are dropped as soon as
  they are read, never held for the whole notebook.
- Every output is written atomically: a temporary file in the output folder,
  then ``os.replace``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import tempfile
import unicodedata
from collections import Counter
from pathlib import Path

__all__ = [
    "NotebookError",
    "collect",
    "read_submission",
    "read_notebook",
    "json_shape_problem",
    "MAX_JSON_NODES",
    "MAX_JSON_DEPTH",
    "display_name",
    "exact_name",
    "csv_safe",
    "report_names",
    "write_atomic",
]

_UNSAFE_CHARS = re.compile(r"[^A-Za-z0-9._-]+")
_KINDS = (
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class NotebookError(ValueError):
    """The file cannot be graded as a notebook (the reason is the message).

    ``status`` is the submission's status in ``grades.csv`` (see :mod:`helpers.grade.reports`).

    Parameters
    ----------
    message : str
        What is wrong with the file and, where it helps, how to hand in a gradable one.
    status : str
        The status it gives the submission.

    Examples
    --------
    >>> error = NotebookError("the file is 30 MiB; the limit is 25 MiB", "too large")
    >>> str(error), error.status
    ('the file is 30 MiB; the limit is 25 MiB', 'too large')
    """

    def __init__(self, message: str, status: str = "not a notebook"):
        super().__init__(message)
        self.status = status


def collect(paths: list[str]) -> list[Path]:
    """Expand folders to their ``*.ipynb`` entries, whatever their type; keep other paths as given.

    A folder named on the command line is the instructor's choice and is
    followed even through a symlink; the entries in it are not (they are
    ``lstat``-ed when read). Entries are sorted by their name's bytes, so the
    order (and hence the report names) does not depend on the locale or the
    file system.

    Parameters
    ----------
    paths : list of str
        Files and folders named on the command line.

    Returns
    -------
    list of pathlib.Path
        The files to grade, each folder's entries in byte order in the folder's place.
    """
    out: list[Path] = []
    for p in paths:
        if os.path.isdir(p) and not str(p).endswith(".ipynb"):
            with os.scandir(p) as entries:
                found = [e.path for e in entries if e.name.endswith(".ipynb")]
            out.extend(Path(x) for x in sorted(found, key=os.fsencode))
        else:
            out.append(Path(p))
    return out


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def read_submission(path: Path, limit: int) -> bytes:
    """The bytes of a regular file, at most ``limit``.

    Raises
    ------
    NotebookError
        For anything but a readable regular file of at most ``limit`` bytes.

    Parameters
    ----------
    path : pathlib.Path
        The submission; a symlink, folder, device or FIFO is refused without being followed or
        opened for reading its content.
    limit : int
        The largest size accepted, in bytes.

    Returns
    -------
    bytes
        The file's content.
    """
    try:
        before = os.lstat(path)
    except OSError as exc:
        raise NotebookError(f"cannot read the file: {exc.strerror or exc}", "unreadable") from None
    if not stat.S_ISREG(before.st_mode):
        kind = _kind(before.st_mode)
        raise NotebookError(
            f"not a regular file but {kind}: never followed or opened",
            "symlink" if stat.S_ISLNK(before.st_mode) else "not a regular file",
        )
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise NotebookError(f"cannot open the file: {exc.strerror or exc}", "unreadable") from None
    try:
        now = os.fstat(fd)
        if not stat.S_ISREG(now.st_mode) or (now.st_dev, now.st_ino) != (before.st_dev, before.st_ino):
            raise NotebookError("the file was replaced while it was being read", "unreadable")
        return _read_at_most(fd, limit, now.st_size)
    finally:
        os.close(fd)


def _read_at_most(fd: int, limit: int, size: int) -> bytes:
    """The bytes of an open file, refused past ``limit`` bytes (it may grow while it is read)."""
    too_large = NotebookError(f"the file is larger than {limit // 2**20} MiB", "too large")
    if size > limit:
        raise too_large
    chunks, total = [], 0
    while total <= limit:
        chunk = os.read(fd, min(1 << 20, limit + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    if total > limit:
        raise too_large
    return b"".join(chunks)


#: Most JSON values (objects, arrays and the items in them) a notebook may hold. The course's own
#: executed notebooks hold about 2,300; a notebook past this bound is refused before it is parsed.
MAX_JSON_NODES = 200_000
#: Deepest nesting of JSON objects and arrays in a notebook (a notebook's own structure is ~8 deep).
MAX_JSON_DEPTH = 64
#: The keys grading reads: the notebook's cells and format, each cell's type and source.
_READ_KEYS = frozenset({"cells", "nbformat", "worksheets", "cell_type", "source"})
_STRING = re.compile(rb'"[^"]*"')
_BRACKET = re.compile(rb"[\[\]{}]")
_CLEAR_OUTPUTS = (
    "; clear the saved outputs (Edit > Clear Outputs of All Cells in JupyterLab) and save the notebook again"
)


def _depth(bare: bytes) -> int:
    """The deepest nesting of brackets in JSON whose strings are empty (stops past the bound)."""
    depth = deepest = 0
    for match in _BRACKET.finditer(bare):
        depth += 1 if match.group() in b"[{" else -1
        deepest = max(deepest, depth)
        if deepest > MAX_JSON_DEPTH:
            break
    return deepest


def json_shape_problem(raw: bytes) -> str | None:
    r"""Why a notebook's JSON is too big to parse (too many values, too deep), or ``None``; builds nothing.

    Escapes are blanked first (``\\`` and ``\"``: same length), so every quote left opens or
    closes a string; with strings emptied, brackets and commas are the JSON's structure.

    Parameters
    ----------
    raw : bytes
        A notebook file's bytes.

    Returns
    -------
    str or None
        The problem, phrased for the learner's feedback; None when the JSON may be parsed.

    Examples
    --------
    >>> json_shape_problem(b'{"cells": [{"source": "[[[,,,"}]}') is None
    True
    >>> json_shape_problem(b"[" * 100 + b"]" * 100).startswith("the notebook's JSON is nested more than 64")
    True
    >>> json_shape_problem(b"[" + b"{}," * 300_000 + b"{}]")[:48]
    'the notebook holds about 600,003 JSON values (mo'
    """
    clean = raw.replace(b"\\\\", b"__").replace(b'\\"', b"__")
    strings = clean.count(b'"') // 2
    if strings > 2 * MAX_JSON_NODES:
        return (
            f"the notebook holds {strings:,} JSON strings (more than {2 * MAX_JSON_NODES:,}){_CLEAR_OUTPUTS}"
        )
    bare = _STRING.sub(b'""', clean)
    del clean
    nodes = bare.count(b"{") + bare.count(b"[") + bare.count(b",") + 1
    if nodes > MAX_JSON_NODES:
        return (
            f"the notebook holds about {nodes:,} JSON values (more than {MAX_JSON_NODES:,}){_CLEAR_OUTPUTS}"
        )
    if _depth(bare) > MAX_JSON_DEPTH:
        return f"the notebook's JSON is nested more than {MAX_JSON_DEPTH} levels deep{_CLEAR_OUTPUTS}"
    return None


def _what_grading_reads(pairs: list[tuple[str, object]]) -> dict:
    """A JSON object as it is parsed, with only the keys grading reads (outputs are dropped here)."""
    return {key: value for key, value in pairs if key in _READ_KEYS}


def _cell_source(cell: dict) -> str:
    src = cell.get("source", "")
    if isinstance(src, list) and all(isinstance(x, str) for x in src):
        return "".join(src)
    if not isinstance(src, str):
        raise NotebookError("a cell's source is not text")
    return src


def read_notebook(raw: bytes) -> list[str]:
    r"""The code cells of a notebook file's bytes, as strings (parsed for what grading reads).

    Raises
    ------
    NotebookError
        For bytes that are not a readable Jupyter notebook (format 4), or hold too many JSON
        values or too deep a nesting (:func:`json_shape_problem`).

    Parameters
    ----------
    raw : bytes
        The file's bytes (already size-limited by :func:`read_submission`).

    Returns
    -------
    list of str
        The source of each code cell, in order (markdown cells and outputs are not read).

    Examples
    --------
    >>> raw = b'{"cells": [{"cell_type": "code", "source": ["x = 1\\n", "y = 2"], "outputs": [{}]},'
    >>> raw += b' {"cell_type": "markdown", "source": "# title"}], "nbformat": 4}'
    >>> read_notebook(raw)
    ['x = 1\ny = 2']
    """
    problem = json_shape_problem(raw)
    if problem:
        raise NotebookError(problem, "too large")
    try:
        nb = json.loads(raw.decode("utf-8"), object_pairs_hook=_what_grading_reads)
    except UnicodeDecodeError:
        raise NotebookError("the file is not text (UTF-8): is it really a .ipynb notebook?") from None
    except (ValueError, RecursionError) as exc:
        raise NotebookError(
            f"the file is not valid JSON ({str(exc)[:80]}); save the notebook from Jupyter again"
        ) from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        if isinstance(nb, dict) and "worksheets" in nb:
            raise NotebookError(
                "old notebook format 3; open and save it in JupyterLab to convert it to format 4"
            )
        raise NotebookError("the JSON is not a Jupyter notebook (no 'cells' list)")
    return [_cell_source(c) for c in nb["cells"] if isinstance(c, dict) and c.get("cell_type") == "code"]


def display_name(path: Path | str) -> str:
    """A file name as printable text: undecodable bytes and control characters become escapes.

    Parameters
    ----------
    path : pathlib.Path or str
        A path whose file name a learner chose.

    Returns
    -------
    str
        The file name only, printable (the folders above it are the instructor's).

    Examples
    --------
    >>> display_name(os.fsdecode(b"caf\\xe9\\n.ipynb"))
    'caf\\\\xe9\\\\n.ipynb'
    """
    text = os.fsencode(os.path.basename(str(path))).decode("utf-8", "backslashreplace")
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def exact_name(name: str) -> str:
    """A file or folder name as text that tells every two names apart (for a learner's key).

    :func:`display_name` is for reading, and two names can look alike in it (the byte ``0xe9``
    shows as a backslash, ``x``, ``e9``, which a learner can also type). Here a name that is
    UTF-8 is its NFC form (``café`` typed two ways is one name); any other is ``/bytes/`` and its
    bytes in hex, which no name holds (a name has no ``/``).

    Parameters
    ----------
    name : str
        One name (no folder), as :func:`os.fsdecode` gives it.

    Returns
    -------
    str
        The name's text, unambiguous.

    Examples
    --------
    >>> exact_name("cafe\u0301.ipynb") == exact_name("caf\u00e9.ipynb") == "caf\u00e9.ipynb"
    True
    >>> exact_name(os.fsdecode(b"caf\\xe9.ipynb")), exact_name("caf\\\\xe9.ipynb")
    ('/bytes/636166e92e6970796e62', 'caf\\\\xe9.ipynb')
    """
    raw = os.fsencode(name)
    try:
        return unicodedata.normalize("NFC", raw.decode("utf-8"))
    except UnicodeDecodeError:
        return "/bytes/" + raw.hex()


def csv_safe(text: str) -> str:
    """Text for a spreadsheet cell: a leading ``= + - @`` (a formula) is quoted with ``'``.

    Parameters
    ----------
    text : str
        The cell's text.

    Returns
    -------
    str
        The text, quoted when a spreadsheet would take it for a formula.

    Examples
    --------
    >>> csv_safe("=HYPERLINK(1)"), csv_safe("ok")
    ("'=HYPERLINK(1)", 'ok')
    """
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _stem(path: Path) -> str:
    name = os.path.basename(str(path))
    return name[: -len(".ipynb")] if name.endswith(".ipynb") else name


def _safe(stem: str) -> str:
    safe = _UNSAFE_CHARS.sub("_", stem)[:80]
    safe = re.sub(r"^\.+", lambda m: "_" * len(m.group()), safe)
    return safe or "submission"


def report_names(paths: list[Path], origins: list[str] | None = None) -> list[str]:
    """A safe, unique, deterministic report name (without ``.json``) per path.

    A name that needed no change and is unique stays as it is; any other gets
    a short hash of where the file was given (``origins``, else the full path),
    so colliding or rewritten names never overwrite each other's report, and the
    same command gives the same names on every run.

    Parameters
    ----------
    paths : list of pathlib.Path
        The submissions, in the order graded.
    origins : list of str, optional
        Where each was given (:attr:`helpers.grade.collect.Submission.origin`: a zip member as the
        pair of the zip and the member, not the folder it was extracted to); the absolute path where
        an origin is empty or None is given.

    Returns
    -------
    list of str
        One name per path, in the same order.

    Examples
    --------
    >>> names = report_names([Path("/a/x.ipynb"), Path("/b/x.ipynb"), Path("/y.ipynb"), Path("/z z.ipynb")])
    >>> names
    ['x-c263ef70ff', 'x-bd881fd17c', 'y', 'z_z-8a2b2f23d3']
    >>> extracted = [Path("/tmp/run1/x.ipynb"), Path("/tmp/run1/b/x.ipynb")]
    >>> report_names(extracted, ['["/a.zip", "x.ipynb"]', '["/b.zip", "x.ipynb"]'])
    ['x-21ab934ef5', 'x-2f869ee5f3']
    """
    safe = [_safe(_stem(p)) for p in paths]
    counts = Counter(safe)
    names: list[str] = []
    taken: set[str] = set()
    given = [o or os.path.abspath(str(p)) for p, o in zip(paths, origins or [""] * len(paths), strict=True)]
    for origin, stem, name in zip(given, safe, [_stem(p) for p in paths], strict=True):
        if counts[stem] > 1 or stem != name:
            stem = f"{stem}-{origin_digest(origin)}"
        candidate, n = stem, 1
        while candidate in taken:
            n += 1
            candidate = f"{stem}-{n}"
        taken.add(candidate)
        names.append(candidate)
    return names


def origin_digest(origin: str) -> str:
    """A short hash of where a file was given (:func:`report_names`' names of files that share a
    name): nobody can type it without the instructor's absolute path.

    Examples
    --------
    >>> origin_digest("/a/x.ipynb")
    'c263ef70ff'
    """
    return hashlib.sha256(os.fsencode(origin)).hexdigest()[:10]


def write_atomic(folder: Path, name: str, data: bytes) -> Path:
    """Write ``folder/name`` as a whole or not at all (temporary file, then ``os.replace``).

    A reader (or a second grading run) never sees half a report.

    Parameters
    ----------
    folder : pathlib.Path
        The output folder (it must exist).
    name : str
        A name from :func:`report_names` or a fixed one.
    data : bytes
        The whole content.

    Returns
    -------
    pathlib.Path
        The file written.
    """
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".partial-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, folder / name)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return folder / name
