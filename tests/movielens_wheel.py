"""Real MovieLens 100K for the tests, from a wheel that ships it, served to the loader over 127.0.0.1.

The tests never reach the internet, yet the capstone notebook's committed outputs are computed on the real
ratings. The RecBole 1.2.1 wheel (PyPI) carries them as ``recbole/dataset_example/ml-100k/ml-100k.inter``:
a header line, then GroupLens's ``u.data`` rows in the same order (user, item, rating, timestamp,
tab-separated).
The wheel is only downloaded (``make ml100k-wheel``: ``pip download --no-deps recbole==1.2.1``), never
installed; this module reads the file out of the zip, checks its SHA-256, builds an ``ml-100k.zip`` archive
holding ``ml-100k/u.data``, serves it from a local HTTP server and lets
:func:`topkeval.datasets.download_movielens`
fetch, checksum and unpack it into a cache folder, the same code path a learner's download takes.

Where the wheel is looked for: ``$TOPK_ML100K_WHEEL`` (the wheel file or the folder holding it), else
``<repository>/.cache/wheels/``. Users of this module (tests/library/test_movielens_real.py,
notebooks/conftest.py, tests/browser/conftest.py) skip loudly through tests/conftest.py's ``require`` when
the wheel is missing, and fail under ``CI=true``.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.server
import io
import os
import threading
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
WHEEL = "recbole-1.2.1-py3-none-any.whl"
MEMBER = "recbole/dataset_example/ml-100k/ml-100k.inter"
#: SHA-256 of ``ml-100k.inter`` as the wheel ships it (1,979,230 bytes: a header and 100,000 ratings).
INTER_SHA256 = "4edb74e2a81178c2ba9ff381495f754f996c4aea351b1272ca36b43da0935eff"
HEADER = b"user_id:token\titem_id:token\trating:float\ttimestamp:float\n"
N_RATINGS, N_USERS, N_ITEMS = 100_000, 943, 1_682
HOW_TO_GET = (
    "fetch it with `make ml100k-wheel` (runs `.venv/bin/python -m pip download --no-deps recbole==1.2.1 "
    "-d .cache/wheels`; RecBole is never installed) or point TOPK_ML100K_WHEEL at the wheel"
)
COMPONENT = "the RecBole 1.2.1 wheel (real MovieLens 100K ratings)"
#: Notebooks whose committed outputs are computed on the real ratings.
REAL_DATA_NOTEBOOKS = ("13-capstone-movielens.ipynb",)


def find_wheel() -> Path | None:
    """The wheel's path, or None when it is not where the tests look for it."""
    configured = os.environ.get("TOPK_ML100K_WHEEL")
    place = Path(configured).expanduser() if configured else REPO / ".cache" / "wheels"
    candidate = place / WHEEL if place.is_dir() else place
    return candidate if candidate.is_file() else None


def read_inter(wheel: Path) -> bytes:
    """``ml-100k.inter`` from the wheel, after checking its SHA-256 (ValueError if it differs)."""
    with zipfile.ZipFile(wheel) as bundle:
        content = bundle.read(MEMBER)
    digest = hashlib.sha256(content).hexdigest()
    if digest != INTER_SHA256:
        raise ValueError(f"{MEMBER} in {wheel} has SHA-256 {digest}, not the pinned {INTER_SHA256}.")
    return content


def as_u_data(inter: bytes) -> bytes:
    """The ``u.data`` text: ``ml-100k.inter`` without its typed header line (the rows are unchanged)."""
    if not inter.startswith(HEADER):
        raise ValueError(f"{MEMBER} does not start with the header {HEADER!r}.")
    return inter[len(HEADER) :]


def archive(u_data: bytes) -> bytes:
    """An ``ml-100k.zip`` laid out like GroupLens's: the ratings at ``ml-100k/u.data``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as bundle:
        bundle.writestr("ml-100k/u.data", u_data)
    return buffer.getvalue()


class _Files(http.server.BaseHTTPRequestHandler):
    """Serves ``self.server.routes``: path -> (body, announced Content-Length or None)."""

    def do_GET(self):
        routes = self.server.routes
        if self.path not in routes:
            self.send_error(404)
            return
        body, announced = routes[self.path]
        self.send_response(200)
        self.send_header("Content-Length", str(announced if announced is not None else len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def local_server(routes: dict):
    """A threaded HTTP server on 127.0.0.1 serving ``routes``; yields its base URL (``http://127.0.0.1:N/``)."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Files)
    httpd.routes = routes
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


def provision(cache_dir: Path, wheel: Path) -> Path:
    """Put real ``ml-100k`` into ``cache_dir`` through the loader's own download code; return its folder.

    Afterwards ``topkeval.datasets.load_movielens("ml-100k", cache_dir)`` (or, with
    ``TOPK_COURSE_DATA=cache_dir``, ``load_movielens("ml-100k")``) reads it without any network.
    """
    from topkeval.datasets import download_movielens

    zipped = archive(as_u_data(read_inter(wheel)))
    with local_server({"/ml-100k.zip": (zipped, None)}) as base:
        return download_movielens(
            "ml-100k", cache_dir, base_url=base, md5=hashlib.md5(zipped, usedforsecurity=False).hexdigest()
        )
