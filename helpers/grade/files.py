"""Finding and reading submissions, and writing results, without trusting names or file types.

- Every input path is ``lstat``-ed; only regular files are graded. A symlink,
  FIFO, device, socket or folder is a zero with the reason: it is never
  followed, and never opened in a way that could block. A regular file is
  opened with ``O_NOFOLLOW | O_NONBLOCK`` and ``fstat``-checked again.
- File names may hold any bytes. Reports get a safe, unique and
  deterministic name (:func:`report_names`); the original name is kept,
  escaped (:func:`display_name`), in the report and in ``grades.csv``.
- Every output is written atomically: a temporary file in the output folder,
  then ``os.replace``.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import tempfile
from collections import Counter
from pathlib import Path

__all__ = [
    "NotebookError",
    "collect",
    "read_submission",
    "display_name",
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
        if now.st_size > limit:
            raise NotebookError(f"the file is larger than {limit // 2**20} MiB", "too large")
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    finally:
        os.close(fd)
    if total > limit:
        raise NotebookError(f"the file is larger than {limit // 2**20} MiB", "too large")
    return b"".join(chunks)


def display_name(path: Path | str) -> str:
    """A file name as printable text: undecodable bytes and control characters become escapes.

    Examples
    --------
    >>> display_name(os.fsdecode(b"caf\\xe9\\n.ipynb"))
    'caf\\\\xe9\\\\n.ipynb'
    """
    text = os.fsencode(os.path.basename(str(path))).decode("utf-8", "backslashreplace")
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def csv_safe(text: str) -> str:
    """Text for a spreadsheet cell: a leading ``= + - @`` (a formula) is quoted with ``'``."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _stem(path: Path) -> str:
    name = os.path.basename(str(path))
    return name[: -len(".ipynb")] if name.endswith(".ipynb") else name


def _safe(stem: str) -> str:
    safe = _UNSAFE_CHARS.sub("_", stem)[:80]
    safe = re.sub(r"^\.+", lambda m: "_" * len(m.group()), safe)
    return safe or "submission"


def report_names(paths: list[Path]) -> list[str]:
    """A safe, unique, deterministic report name (without ``.json``) per path.

    A name that needed no change and is unique stays as it is; any other gets
    a short hash of the full path's bytes, so colliding or rewritten names
    never overwrite each other's report.

    Examples
    --------
    >>> names = report_names([Path("/a/x.ipynb"), Path("/b/x.ipynb"), Path("/y.ipynb"), Path("/z z.ipynb")])
    >>> names
    ['x-c263ef70ff', 'x-bd881fd17c', 'y', 'z_z-8a2b2f23d3']
    """
    safe = [_safe(_stem(p)) for p in paths]
    counts = Counter(safe)
    names: list[str] = []
    taken: set[str] = set()
    for path, stem, name in zip(paths, safe, [_stem(p) for p in paths], strict=True):
        if counts[stem] > 1 or stem != name:
            digest = hashlib.sha256(os.fsencode(os.path.abspath(str(path)))).hexdigest()[:10]
            stem = f"{stem}-{digest}"
        candidate, n = stem, 1
        while candidate in taken:
            n += 1
            candidate = f"{stem}-{n}"
        taken.add(candidate)
        names.append(candidate)
    return names


def write_atomic(folder: Path, name: str, data: bytes) -> Path:
    """Write ``folder/name`` as a whole or not at all (temporary file, then ``os.replace``)."""
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
