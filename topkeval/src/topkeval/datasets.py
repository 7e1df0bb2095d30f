"""MovieLens loaders: read a local copy, or download, verify and cache one.

:func:`load_movielens_100k` and :func:`load_movielens_latest` read the files
GroupLens publishes into ``user, item, rating, timestamp`` columns;
:func:`load_movielens` downloads an archive once (MD5 checked), caches it and
reads it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import urllib.request
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from ._validation import (
    FilePath,
    Flag,
    InputTypeError,
    InvalidInputError,
    Maybe,
    OneOf,
    Real,
    Text,
    validate_params,
)

__all__ = [
    "load_movielens_100k",
    "load_movielens_latest",
    "MOVIELENS",
    "DownloadError",
    "default_cache_dir",
    "download_movielens",
    "load_movielens",
]

_ML100K_URL = "https://grouplens.org/datasets/movielens/100k/"
_LATEST_URL = "https://grouplens.org/datasets/movielens/latest/"
_LATEST_HEADER = ["userId", "movieId", "rating", "timestamp"]


def _resolve(path, expected_name: str, loader: str, url: str, example: str) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise InputTypeError(
            f"{loader} needs a path (str or pathlib.Path) to {expected_name}; got {type(path).__name__}."
        )
    path = Path(path).expanduser()
    if path.is_dir():
        inside = path / expected_name
        if inside.is_file():
            return inside
        raise FileNotFoundError(
            f"{str(path)!r} is a folder without a {expected_name!r} file in it. {loader} expects the path to "
            f"{expected_name} (or the folder holding it) from the MovieLens download at {url}; "
            "unzip the archive and pass that file."
        )
    if not path.is_file():
        raise FileNotFoundError(
            f"no file at {str(path)!r}. {loader} reads {expected_name} from the MovieLens download at {url}: "
            "download and unzip it, then pass the path, "
            f"e.g. {loader}({example!r}); or let load_movielens({example.split('/')[0]!r}) download, verify "
            "and cache it."
        )
    return path


def _first_line(path: Path) -> str:
    with open(path, encoding="utf-8", errors="replace") as handle:
        return handle.readline().rstrip("\r\n")


def _to_int(
    frame: pd.DataFrame, column: str, source: str, path: Path, line_offset: int, fmt: str
) -> np.ndarray:
    values = pd.to_numeric(frame[column], errors="coerce")
    bad = values.isna() | (values != np.floor(values))
    if bad.any():
        at = int(np.flatnonzero(bad.to_numpy())[0])
        raise InvalidInputError(
            f"{path.name} line {at + line_offset}: {source} {frame[column].iloc[at]!r} "
            "is not a whole number. "
            f"Expected format: {fmt}."
        )
    return values.to_numpy(dtype=np.int64)


def _finish(users, items, ratings, times) -> pd.DataFrame:
    return pd.DataFrame({"user": users, "item": items, "rating": ratings, "timestamp": times})


@validate_params({"path": FilePath()})
def load_movielens_100k(path) -> pd.DataFrame:
    r"""Read MovieLens 100K's ``u.data`` into columns user, item, rating, timestamp.

    Parameters
    ----------
    path : str or pathlib.Path
        The ``u.data`` file of ``ml-100k.zip``, or the folder that holds it.
        Download it yourself from https://grouplens.org/datasets/movielens/100k/.

    Returns
    -------
    pandas.DataFrame
        Columns ``user``, ``item``, ``rating`` and ``timestamp``, all int64
        (ratings are whole stars 1-5, timestamps Unix seconds), in file order.

    Raises
    ------
    FileNotFoundError
        If there is no such file (the message says where to get it).
    ValueError
        If the file is not four tab-separated whole numbers per line; a
        comma-separated file with a header (ml-latest's ``ratings.csv``) is
        recognised and pointed to :func:`load_movielens_latest`.

    Notes
    -----
    The loader keeps every row as it is: no filtering by rating, no
    deduplication. For implicit feedback, keep the rows you count as
    positive, e.g. ``ratings[ratings["rating"] >= 4]``.

    Examples
    --------
    >>> from topkeval.datasets import load_movielens_100k
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "u.data"  # two lines in the u.data format
    >>> _ = path.write_text("1\t12\t4\t884025600\n1\t13\t5\t884059903\n")
    >>> ratings = load_movielens_100k(path)
    >>> list(ratings.columns)
    ['user', 'item', 'rating', 'timestamp']
    >>> ratings.iloc[0].tolist()
    [1, 12, 4, 884025600]
    """
    path = _resolve(path, "u.data", "load_movielens_100k", _ML100K_URL, "ml-100k/u.data")
    fmt = "u.data: user id, item id, rating, timestamp as four whole numbers separated by tabs, no header"
    first = _first_line(path)
    if "," in first and "\t" not in first:
        hint = (
            " This looks like ml-latest's ratings.csv: use load_movielens_latest(path) instead."
            if first.replace(" ", "").lower().startswith("userid,movieid")
            else ""
        )
        raise InvalidInputError(f"{path.name} is comma-separated, but MovieLens 100K's {fmt}.{hint}")
    if "|" in first:
        raise InvalidInputError(
            f"{path.name} is '|'-separated (like u.item or u.user), not the ratings file. Expected {fmt}; "
            "pass the path to u.data."
        )
    try:
        raw = pd.read_csv(path, sep="\t", header=None, dtype=str, keep_default_na=False, engine="python")
    except pd.errors.ParserError as err:
        raise InvalidInputError(f"{path.name} could not be parsed ({err}). Expected {fmt}.") from None
    except pd.errors.EmptyDataError:
        raise InvalidInputError(f"{path.name} is empty. Expected {fmt}.") from None
    if raw.shape[1] != 4:
        raise InvalidInputError(
            f"{path.name} has {raw.shape[1]} tab-separated fields per line, not 4. Expected {fmt}."
        )
    raw.columns = ["user", "item", "rating", "timestamp"]
    cols = [_to_int(raw, c, c, path, 1, fmt) for c in raw.columns]
    return _finish(*cols)


@validate_params({"path": FilePath()})
def load_movielens_latest(path) -> pd.DataFrame:
    r"""Read ml-latest(-small)'s ``ratings.csv`` into columns user, item, rating, timestamp.

    Parameters
    ----------
    path : str or pathlib.Path
        The ``ratings.csv`` of ``ml-latest-small.zip`` (or ``ml-latest.zip``),
        or the folder that holds it. Download it yourself from
        https://grouplens.org/datasets/movielens/latest/.

    Returns
    -------
    pandas.DataFrame
        Columns ``user`` and ``item`` (int64, from ``userId`` and
        ``movieId``), ``rating`` (float64, half stars 0.5-5.0) and
        ``timestamp`` (int64 Unix seconds), in file order.

    Raises
    ------
    FileNotFoundError
        If there is no such file (the message says where to get it).
    ValueError
        If the header is not ``userId,movieId,rating,timestamp`` or a value
        does not parse; a tab-separated file without header (MovieLens
        100K's ``u.data``) is pointed to :func:`load_movielens_100k`.

    Examples
    --------
    >>> from topkeval.datasets import load_movielens_latest
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "ratings.csv"  # two ratings in the same format
    >>> _ = path.write_text("userId,movieId,rating,timestamp\n1,17,3.5,1500000000\n1,42,3.0,1500074105\n")
    >>> ratings = load_movielens_latest(path)
    >>> ratings.dtypes.astype(str).tolist()
    ['int64', 'int64', 'float64', 'int64']
    >>> ratings.iloc[0].tolist()
    [1.0, 17.0, 3.5, 1500000000.0]
    """
    path = _resolve(path, "ratings.csv", "load_movielens_latest", _LATEST_URL, "ml-latest-small/ratings.csv")
    fmt = "a header line 'userId,movieId,rating,timestamp', then one comma-separated row per rating"
    first = _first_line(path)
    if "\t" in first and "," not in first:
        raise InvalidInputError(
            f"{path.name} is tab-separated without a header, like MovieLens 100K's u.data; use "
            f"load_movielens_100k(path) for that file. ratings.csv has {fmt}."
        )
    header = [h.strip() for h in first.split(",")]
    if header != _LATEST_HEADER:
        raise InvalidInputError(
            f"{path.name} starts with {first[:80]!r}, but ml-latest's ratings.csv has {fmt}. Pass the "
            "ratings.csv file (not movies.csv, tags.csv or links.csv)."
        )
    try:
        raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    except pd.errors.ParserError as err:
        raise InvalidInputError(f"{path.name} could not be parsed ({err}). Expected {fmt}.") from None
    users = _to_int(raw, "userId", "userId", path, 2, fmt)
    items = _to_int(raw, "movieId", "movieId", path, 2, fmt)
    rating = pd.to_numeric(raw["rating"], errors="coerce")
    if rating.isna().any():
        at = int(np.flatnonzero(rating.isna().to_numpy())[0])
        raise InvalidInputError(
            f"{path.name} line {at + 2}: rating {raw['rating'].iloc[at]!r} is not a number. Expected {fmt}."
        )
    times = _to_int(raw, "timestamp", "timestamp", path, 2, fmt)
    return _finish(users, items, rating.to_numpy(dtype=np.float64), times)


# ------------------------------------------------------------------ download
#: The MovieLens archives this module can fetch. ``md5`` is the published checksum, pinned where the
#: archive never changes; ``None`` means "read GroupLens's ``<archive>.md5`` file at download time"
#: (ml-latest-small is re-released from time to time, so no value can be pinned for good).
#: ml-100k's MD5 is the one GroupLens publishes at files.grouplens.org/datasets/movielens/ml-100k.zip.md5.
MOVIELENS: dict[str, dict] = {
    "ml-100k": {"archive": "ml-100k.zip", "md5": "0e33842e24a9c977be4e0107933c0723", "ratings": "u.data"},
    "ml-latest-small": {"archive": "ml-latest-small.zip", "md5": None, "ratings": "ratings.csv"},
}
_BASE_URL = "https://files.grouplens.org/datasets/movielens/"
_CACHE_ENV = "TOPK_COURSE_DATA"


class DownloadError(RuntimeError):
    """A download that failed or could not be verified; nothing was left in the cache."""


def default_cache_dir() -> Path:
    """Where downloaded archives are kept: ``$TOPK_COURSE_DATA`` if set, else ``~/.cache/topk-course``.

    Returns
    -------
    pathlib.Path
        The folder (it may not exist yet).

    Examples
    --------
    >>> default_cache_dir().is_absolute()
    True
    """
    return Path(os.environ.get(_CACHE_ENV) or Path.home() / ".cache" / "topk-course").expanduser()


def _fetch(url: str, target: Path, timeout: float) -> None:
    """Stream ``url`` into ``target``; raise DownloadError if fewer bytes arrive than announced."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response, open(target, "wb") as out:
            announced = response.headers.get("Content-Length")
            received = 0
            while chunk := response.read(1 << 16):
                out.write(chunk)
                received += len(chunk)
    except OSError as err:  # URLError, HTTPError, timeouts and IncompleteRead all derive from OSError
        raise DownloadError(f"could not download {url}: {err}") from None
    if announced is not None and received != int(announced):
        raise DownloadError(
            f"download of {url} is truncated: {received} of {announced} bytes arrived; try again."
        )


def _md5(path: Path) -> str:
    digest = hashlib.md5(usedforsecurity=False)
    with open(path, "rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def _published_md5(url: str, timeout: float, work: Path) -> str:
    target = work / "archive.md5"
    _fetch(url, target, timeout)
    text = target.read_text(encoding="ascii", errors="replace").strip()
    word = text.split()[-1].lower() if text else ""
    if len(word) != 32 or any(c not in "0123456789abcdef" for c in word):
        raise DownloadError(f"{url} does not hold an MD5 checksum (got {text[:60]!r}).")
    return word


@validate_params(
    {
        "name": OneOf("name", tuple(MOVIELENS)),
        "cache_dir": Maybe(FilePath()),
        "base_url": Text(" (the folder of the archives, ending in /)"),
        "md5": Maybe(Text()),
        "timeout": Real(0, low_open=True, meaning=" (seconds)"),
    }
)
def download_movielens(
    name: str,
    cache_dir=None,
    *,
    base_url: str = _BASE_URL,
    md5: str | None = None,
    timeout: float = 60.0,
) -> Path:
    """Download and unpack a MovieLens archive into a cache, once; return its folder.

    Parameters
    ----------
    name : {"ml-100k", "ml-latest-small"}
        Which archive.
    cache_dir : str or Path, optional
        Where archives are unpacked; default :func:`default_cache_dir`.
    base_url : str
        Where the archives live (the tests point it at a local server).
    md5 : str, optional
        The expected MD5; default the published one (pinned in
        :data:`MOVIELENS` or read from ``<archive>.md5`` beside the archive).
    timeout : float
        Seconds to wait for the server.

    Returns
    -------
    pathlib.Path
        ``cache_dir / name``, holding the archive's files (``u.data`` or ``ratings.csv``).

    Raises
    ------
    DownloadError
        If the server cannot be reached, the download is truncated, the
        checksum does not match or the archive is corrupt. Every file is
        written under a temporary name and moved into place only once it is
        complete and verified, so a failure leaves the cache as it was.

    Examples
    --------
    >>> from topkeval.datasets import download_movielens
    >>> download_movielens("netflix")
    Traceback (most recent call last):
    ...
    topkeval.InvalidInputError: name must be one of 'ml-100k', 'ml-latest-small'; got 'netflix'.
    """
    spec = MOVIELENS[name]
    cache = Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()
    final = cache / name
    if (final / spec["ratings"]).is_file():
        return final
    cache.mkdir(parents=True, exist_ok=True)
    url = base_url.rstrip("/") + "/" + spec["archive"]
    with tempfile.TemporaryDirectory(dir=cache, prefix=f".{name}-") as scratch:
        work = Path(scratch)
        archive = work / spec["archive"]
        _fetch(url, archive, timeout)
        expected = (md5 or spec["md5"] or _published_md5(url + ".md5", timeout, work)).lower()
        actual = _md5(archive)
        if actual != expected:
            raise DownloadError(
                f"checksum mismatch for {url}: MD5 {actual}, published {expected}. "
                "The file may be damaged or "
                "replaced; nothing was kept. Try again, or check the published checksum."
            )
        folder = _unpack(archive, work / "unpacked", spec)
        if final.exists():  # a half-finished folder from elsewhere: replace it
            shutil.rmtree(final)
        os.replace(folder, final)
    return final


def _unpack(archive: Path, unpacked: Path, spec: dict) -> Path:
    """Check and extract a downloaded zip; return the folder that holds the ratings file."""
    try:
        with zipfile.ZipFile(archive) as bundle:
            broken = bundle.testzip()
            if broken is not None:
                raise DownloadError(f"{spec['archive']} is corrupt: {broken} fails its CRC check.")
            bundle.extractall(unpacked)
    except (zipfile.BadZipFile, EOFError) as err:
        raise DownloadError(f"{spec['archive']} is not a readable zip archive ({err}).") from None
    found = sorted(unpacked.rglob(spec["ratings"]))
    if not found:
        raise DownloadError(f"{spec['archive']} has no {spec['ratings']}; is it the right archive?")
    return found[0].parent


@validate_params(
    {"name": OneOf("name", tuple(MOVIELENS)), "cache_dir": Maybe(FilePath()), "download": Flag()}
)
def load_movielens(name: str, cache_dir=None, *, download: bool = True, **options) -> pd.DataFrame:
    """The ratings of a MovieLens archive from the cache, downloading it first if allowed.

    Parameters
    ----------
    name : str
        A key of :data:`MOVIELENS`, e.g. ``"ml-100k"``.
    cache_dir : str or path, optional
        Where archives are kept; default :func:`default_cache_dir`.
    download : bool
        Fetch (and verify) the archive when it is not cached. False raises
        FileNotFoundError instead.
    **options
        Passed to :func:`download_movielens` (e.g. ``timeout``).

    Returns
    -------
    pandas.DataFrame
        Columns ``user``, ``item``, ``rating``, ``timestamp``.

    Examples
    --------
    >>> ratings = load_movielens("ml-100k")  # doctest: +SKIP
    >>> len(ratings)  # doctest: +SKIP
    100000
    """
    cache = Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()
    folder = cache / name
    if not (folder / MOVIELENS[name]["ratings"]).is_file():
        if not download:
            raise FileNotFoundError(
                f"{name} is not in the cache {str(cache)!r}; call download_movielens({name!r})."
            )
        folder = download_movielens(name, cache, **options)
    loader = load_movielens_100k if name == "ml-100k" else load_movielens_latest
    return loader(folder)
