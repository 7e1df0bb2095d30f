"""download_movielens against a local HTTP server on 127.0.0.1 (never the internet)."""

from __future__ import annotations

import hashlib
import io
import zipfile

import pytest

from tests.movielens_wheel import local_server
from topkeval import datasets as data

U_DATA = b"1\t10\t4\t881250949\n2\t20\t5\t881250950\n"
RATINGS = b"userId,movieId,rating,timestamp\n1,10,4.0,964982703\n2,20,3.5,964982704\n"


def make_zip(folder: str, name: str, content: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as bundle:
        bundle.writestr(f"{folder}/{name}", content)
        bundle.writestr(f"{folder}/README", b"a made-up archive for tests\n")
    return buffer.getvalue()


@pytest.fixture
def server():
    routes: dict = {}  # path -> (body, announced length or None)
    with local_server(routes) as base:
        yield base, routes


def leftovers(cache):
    return sorted(p.name for p in cache.iterdir()) if cache.exists() else []


def test_download_verify_unpack_and_cache(server, tmp_path):
    base, routes = server
    archive = make_zip("ml-100k", "u.data", U_DATA)
    routes["/ml-100k.zip"] = (archive, None)
    folder = data.download_movielens("ml-100k", tmp_path, base_url=base, md5=hashlib.md5(archive).hexdigest())
    assert folder == tmp_path / "ml-100k" and (folder / "u.data").read_bytes() == U_DATA
    assert leftovers(tmp_path) == ["ml-100k"]  # no temporary files left behind
    del routes["/ml-100k.zip"]  # the second call must not touch the network
    assert data.download_movielens("ml-100k", tmp_path, base_url=base) == folder
    ratings = data.load_movielens("ml-100k", tmp_path, download=False)
    assert ratings["item"].tolist() == [10, 20]


def test_latest_small_reads_the_published_md5(server, tmp_path):
    base, routes = server
    archive = make_zip("ml-latest-small", "ratings.csv", RATINGS)
    routes["/ml-latest-small.zip"] = (archive, None)
    routes["/ml-latest-small.zip.md5"] = (
        f"MD5 (ml-latest-small.zip) = {hashlib.md5(archive).hexdigest()}\n".encode(),
        None,
    )
    ratings = data.load_movielens("ml-latest-small", tmp_path, base_url=base)
    assert ratings["rating"].tolist() == [4.0, 3.5]


def test_pinned_checksum_mismatch_keeps_nothing(server, tmp_path):
    base, routes = server
    routes["/ml-100k.zip"] = (make_zip("ml-100k", "u.data", U_DATA), None)
    with pytest.raises(data.DownloadError, match="checksum mismatch"):
        data.download_movielens("ml-100k", tmp_path, base_url=base)  # the real published MD5 cannot match
    assert leftovers(tmp_path) == []


def test_truncated_download_keeps_nothing(server, tmp_path):
    base, routes = server
    archive = make_zip("ml-100k", "u.data", U_DATA)
    routes["/ml-100k.zip"] = (archive[: len(archive) // 2], len(archive))
    with pytest.raises(data.DownloadError, match="truncated|could not download"):
        data.download_movielens(
            "ml-100k", tmp_path, base_url=base, md5=hashlib.md5(archive).hexdigest(), timeout=5
        )
    assert leftovers(tmp_path) == []


def test_corrupt_archive_keeps_nothing(server, tmp_path):
    base, routes = server
    good = bytearray(make_zip("ml-100k", "u.data", U_DATA * 50))
    start = good.index(b"1\t10") if b"1\t10" in good else 40
    good[start + 5] ^= 0xFF  # flip a byte inside the stored file: its CRC no longer matches
    corrupt = bytes(good)
    routes["/ml-100k.zip"] = (corrupt, None)
    with pytest.raises(data.DownloadError, match="corrupt|not a readable zip"):
        data.download_movielens("ml-100k", tmp_path, base_url=base, md5=hashlib.md5(corrupt).hexdigest())
    assert leftovers(tmp_path) == []
    routes["/ml-100k.zip"] = (b"this is not a zip file", None)
    with pytest.raises(data.DownloadError, match="not a readable zip"):
        data.download_movielens(
            "ml-100k", tmp_path, base_url=base, md5=hashlib.md5(b"this is not a zip file").hexdigest()
        )
    assert leftovers(tmp_path) == []


def test_missing_file_and_bad_md5_file(server, tmp_path):
    base, routes = server
    with pytest.raises(data.DownloadError, match="could not download"):
        data.download_movielens("ml-100k", tmp_path, base_url=base)
    routes["/ml-latest-small.zip"] = (make_zip("ml-latest-small", "ratings.csv", RATINGS), None)
    routes["/ml-latest-small.zip.md5"] = (b"<html>not found</html>", None)
    with pytest.raises(data.DownloadError, match="does not hold an MD5"):
        data.download_movielens("ml-latest-small", tmp_path, base_url=base)
    assert leftovers(tmp_path) == []


def test_not_cached_without_download(tmp_path):
    with pytest.raises(FileNotFoundError, match="not in the cache"):
        data.load_movielens("ml-100k", tmp_path, download=False)
    with pytest.raises(ValueError, match="name must be one of"):
        data.load_movielens("ml-25m", tmp_path)


def test_default_cache_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("TOPK_COURSE_DATA", str(tmp_path))
    assert data.default_cache_dir() == tmp_path
