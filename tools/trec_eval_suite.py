"""Fetch trec_eval's own test suite (its Makefile and ``test/`` folder) into ``.cache/trec_eval``.

``tests/library/test_treceval.py`` replays the ``quicktest`` lines of trec_eval's Makefile against the
expected outputs in its ``test/`` folder. No package registry ships that folder (pytrec_eval's sdists
download trec_eval from GitHub while they build), so ``make test`` downloads it here, the way it downloads
the RecBole wheel for MovieLens: never installed, never committed, checked before use.

The files come from one pinned commit of usnistgov/trec_eval (10.0, the commit "Updating CHANGELOG for
version 10.0"). GitHub's tarballs are regenerated on request and their bytes are not guaranteed stable, so
the check is on the extracted files: a SHA-256 over every path and its content's SHA-256, in path order.
A download that fails (no network, GitHub unreachable) or that does not match leaves nothing behind and
returns 0 with a warning: the suite's tests then say SKIPPED loudly, as they do for every real component
that is missing locally.

Usage: ``python tools/trec_eval_suite.py [--dest DIR] [--from-archive FILE]``.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import shutil
import sys
import tarfile
import tempfile
import urllib.request
from pathlib import Path

COMMIT = "f4253652c8efd0d86ddffd0d163cc0a0f813111a"
URL = f"https://github.com/usnistgov/trec_eval/archive/{COMMIT}.tar.gz"
#: SHA-256 of "path NUL sha256(content) LF" over the Makefile and test/ files, sorted by path
DIGEST = "af7f61053d0245f4b2a6173bd88c24aa1d1ff679d94ce1db6017314e8fc7e5ef"
DEST = Path(__file__).resolve().parents[1] / ".cache" / "trec_eval"
_LIMIT = 64 << 20  # the archive is about 1 MiB; a larger answer is not trec_eval


def _wanted(relative: str) -> bool:
    """Whether a path inside the archive (without its top folder) is part of the suite."""
    return relative == "Makefile" or relative.startswith("test/")


def suite_files(archive: bytes) -> dict[str, bytes]:
    """The suite's files of a trec_eval source tarball, by path below its top folder.

    Members that are not regular files, or whose path climbs out of the top folder, are ignored.

    >>> buffer = io.BytesIO()
    >>> with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
    ...     for name in ("trec_eval-x/Makefile", "trec_eval-x/test/a", "trec_eval-x/src.c"):
    ...         info = tarfile.TarInfo(name)
    ...         info.size = 1
    ...         tar.addfile(info, io.BytesIO(b"x"))
    >>> sorted(suite_files(buffer.getvalue()))
    ['Makefile', 'test/a']
    """
    files = {}
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        for member in tar:
            top, _, relative = member.name.partition("/")
            if member.isfile() and _wanted(relative) and ".." not in Path(relative).parts:
                extracted = tar.extractfile(member)
                if extracted is not None:
                    files[relative] = extracted.read()
    return files


def digest(files: dict[str, bytes]) -> str:
    """The check on a set of files: SHA-256 over each path and its content's SHA-256, in path order.

    >>> digest({"b": b"2", "a": b"1"}) == digest({"a": b"1", "b": b"2"})
    True
    >>> digest({"a": b"1"}) == digest({"a": b"2"})
    False
    """
    total = hashlib.sha256()
    for path in sorted(files):
        total.update(f"{path}\0{hashlib.sha256(files[path]).hexdigest()}\n".encode())
    return total.hexdigest()


def install(files: dict[str, bytes], dest: Path) -> None:
    """Write the checked files to ``dest`` (replaced whole, through a temporary folder beside it)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".trec_eval-", dir=dest.parent))
    for relative, content in files.items():
        target = staging / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    shutil.rmtree(dest, ignore_errors=True)
    staging.rename(dest)


def _download() -> bytes:
    with urllib.request.urlopen(URL, timeout=60) as answer:
        return answer.read(_LIMIT + 1)


def fetch(dest: Path, archive: bytes | None = None) -> str | None:
    """Put trec_eval's suite at ``dest``; the reason it could not, or None once it is there."""
    if (dest / "Makefile").is_file() and digest(_read_tree(dest)) == DIGEST:
        return None
    try:
        archive = _download() if archive is None else archive
    except OSError as error:
        return f"could not download {URL}: {error}"
    if len(archive) > _LIMIT:
        return f"{URL} answered more than {_LIMIT >> 20} MiB; not trec_eval's source"
    try:
        files = suite_files(archive)
    except (tarfile.TarError, EOFError, OSError) as error:
        return f"{URL} is not a readable tarball: {error}"
    if digest(files) != DIGEST:
        return f"the files downloaded from {URL} differ from trec_eval 10.0's (check {DIGEST[:12]}…)"
    install(files, dest)
    return None


def _read_tree(folder: Path) -> dict[str, bytes]:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in folder.rglob("*")
        if path.is_file() and _wanted(path.relative_to(folder).as_posix())
    }


def main(argv: list[str] | None = None) -> int:
    """Command line: fetch the suite, or warn and return 0 when it cannot be had."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dest", type=Path, default=DEST, help="where to put it (default .cache/trec_eval)")
    parser.add_argument("--from-archive", type=Path, help="a trec_eval source tarball already on disk")
    args = parser.parse_args(argv)
    archive = args.from_archive.read_bytes() if args.from_archive else None
    problem = fetch(args.dest, archive)
    if problem:
        print(
            f"make: WARNING: {problem}; trec_eval's own test suite will be SKIPPED "
            "(tests/library/test_treceval.py).",
            file=sys.stderr,
        )
    else:
        print(f"trec_eval's test suite (commit {COMMIT[:12]}): {args.dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
