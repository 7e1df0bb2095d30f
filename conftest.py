"""pytest's rules for every folder it collects (pyproject's testpaths), beside tests/conftest.py's for tests/.

The course's alias modules are not collected. ``helpers/spark.py`` is one line,
``sys.modules[__name__] = topkeval.spark``, so that ``import helpers.spark`` gives the library's module
object. ``--doctest-modules`` under ``--import-mode=importlib`` imports a file it collects by its path
unless its name is already in ``sys.modules``: it would run the alias and then set ``helpers.spark`` to
the file's own module object, which has none of the library's names (``from helpers import conventions``
then has no ``LIBRARIES`` for the rest of the process). Whether some test module had imported the alias
before depended on which files a run collected, so a test passed or failed by the company it kept.
The aliases hold no doctests (their library modules' are collected from topkeval/src). One named on the
command line (``pytest helpers/spark.py``) is imported by its name before pytest imports it by its path.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

HELPERS = Path(__file__).resolve().parent / "helpers"
_ALIAS = re.compile(r"^sys\.modules\[__name__\]\s*=", re.MULTILINE)


def is_alias_module(path: Path) -> bool:
    """Whether ``path`` is a module of the course package that puts another module in its place."""
    return (
        path.suffix == ".py"
        and path.is_relative_to(HELPERS)
        and path.is_file()
        and bool(_ALIAS.search(path.read_text(encoding="utf-8")))
    )


def pytest_ignore_collect(collection_path: Path, config) -> bool | None:
    return True if is_alias_module(collection_path) else None


def pytest_collect_file(file_path: Path, parent) -> None:
    """An alias named on the command line is collected all the same: import it by its name first, so the
    doctest collector finds it in ``sys.modules`` and collects the library module's doctests under it."""
    if is_alias_module(file_path):
        importlib.import_module(".".join(file_path.relative_to(HELPERS.parent).with_suffix("").parts))
