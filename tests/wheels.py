"""Building the project's two wheels for a test, from a private copy of the sources.

``pip wheel`` without build isolation builds in the source folder's ``build/``: two tests building the
same wheel at once (``tests/test_wheel.py`` and ``tests/grade/test_install.py`` on two xdist workers)
then remove each other's files ("Directory not empty: build/bdist..."). Each build here copies the files
git tracks under the source folder (what a clean clone holds, the working tree's version of each) into
its own folder first.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def private_copy(source: Path, into: Path) -> Path:
    """Copy the git-tracked files under ``source`` into the new folder ``into``; return ``into``."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--", "."], cwd=source, capture_output=True, check=True
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        path = source / name
        if path.is_file():  # a tracked file deleted in the working tree is not built
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, into / name)
    return into


def build_wheel(source: Path, dist: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    """``pip wheel`` of ``source`` (no dependencies, no build isolation) into ``dist``, built in a
    private copy beside ``dist``."""
    copy = private_copy(source, dist.parent / f"src-{source.name}")
    argv = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
    argv += ["--disable-pip-version-check", "-q", "-w", str(dist), str(copy)]
    return subprocess.run(argv, cwd=dist.parent, env=env, capture_output=True, text=True)
