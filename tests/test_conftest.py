"""The repository's conftest.py: pytest collects no alias module, so ``helpers.X`` stays the library's module.

The oracle for "alias" is the module's syntax tree (a top-level ``sys.modules[__name__] = ...``), not the
conftest's pattern; the end-to-end check runs pytest, in a fresh process, on the helpers/ folder and then on
a test that uses the aliases through the package's attributes, as notebook 07's count check does.
"""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HELPERS = ROOT / "helpers"


def _root_conftest():
    import importlib.util

    spec = importlib.util.spec_from_file_location("_root_conftest_under_test", ROOT / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _replaces_itself(path: Path) -> bool:
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if (
                    isinstance(target, ast.Subscript)
                    and ast.unparse(target.value) == "sys.modules"
                    and ast.unparse(target.slice) == "__name__"
                ):
                    return True
    return False


@functools.cache
def _aliases() -> list[str]:
    """Dotted names of the course modules that put a library module in their place."""
    return sorted(
        ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for path in HELPERS.rglob("*.py")
        if _replaces_itself(path)
    )


def test_the_conftest_skips_exactly_the_alias_modules():
    conftest = _root_conftest()
    assert len(_aliases()) >= 8, _aliases()  # helpers.spark, ..., helpers.experiments.stats
    for path in sorted(HELPERS.rglob("*.py")):
        assert conftest.is_alias_module(path) == _replaces_itself(path), path
    assert not conftest.is_alias_module(ROOT / "topkeval" / "src" / "topkeval" / "conventions.py")


PROBE = """
import importlib

import pytest


@pytest.mark.parametrize("name", {names!r})
def test_alias_attribute_is_the_library_module(name):
    parent, _, child = name.rpartition(".")
    package = importlib.import_module(parent)
    __import__(parent, fromlist=[child])
    module = getattr(package, child)
    assert module is importlib.import_module(name), (name, module)
    assert module.__name__.startswith("topkeval."), module
"""


def test_collecting_helpers_leaves_the_course_names_on_the_library_modules(tmp_path):
    """Regression: collecting helpers/ for doctests before anything imported ``helpers.conventions`` set
    ``helpers.conventions`` to the alias file's own (empty) module, and a later ``from helpers import
    conventions`` had no ``LIBRARIES`` (seen under make test's two workers, in one worker's share).

    Both ways pytest meets an alias: named on the command line (the top-level ones, helpers/spark.py) and
    found in a folder it collects (a subpackage's, helpers/experiments/ for helpers.experiments.stats).
    """
    probe = tmp_path / "test_alias_probe.py"
    probe.write_text(PROBE.format(names=_aliases()), encoding="utf-8")
    command = [sys.executable, "-m", "pytest", "-q", "-c", str(ROOT / "pyproject.toml"), f"--rootdir={ROOT}"]
    for plugin in ("cacheprovider", "xdist", "nbval", "hypothesispytest", "anyio"):  # seconds of start-up
        command += ["-p", f"no:{plugin}"]
    command += ["-o", "addopts=--doctest-modules --import-mode=importlib", "-k", "alias_attribute"]
    paths = {ROOT.joinpath(*name.split(".")).with_suffix(".py") for name in _aliases()}
    paths = {path if path.parent == HELPERS else path.parent for path in paths}
    assert any(p.is_dir() for p in paths) and any(p.is_file() for p in paths), paths
    done = subprocess.run(
        [*command, *map(str, sorted(paths)), str(probe)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert f"{len(_aliases())} passed" in done.stdout, done.stdout[-2000:]


@pytest.mark.parametrize("text", ["sys.modules[__name__] = other\n", "import sys\nsys.modules[__name__]=m\n"])
def test_an_alias_written_either_way_is_skipped(tmp_path, monkeypatch, text):
    conftest = _root_conftest()
    monkeypatch.setattr(conftest, "HELPERS", tmp_path)
    (tmp_path / "alias.py").write_text(text, encoding="utf-8")
    (tmp_path / "plain.py").write_text("x = sys.modules.get(__name__)\n", encoding="utf-8")
    assert conftest.is_alias_module(tmp_path / "alias.py")
    assert not conftest.is_alias_module(tmp_path / "plain.py")
