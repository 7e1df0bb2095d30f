"""The library's gates: mypy with zero errors, numpydoc on every public function, complexity under 12.

Each gate runs the real tool on ``topkeval/src/topkeval`` (the tools are in the ``test`` extra).
"""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "topkeval" / "src" / "topkeval"
#: The library's public modules; their ``__all__`` is the public API.
PUBLIC = (
    "topkeval",
    "topkeval.splits",
    "topkeval.checks",
    "topkeval.conventions",
    "topkeval.beyond",
    "topkeval.stats",
    "topkeval.offpolicy",
    "topkeval.trec",
    "topkeval.datasets",
    "topkeval.spark",
    "topkeval.dask",
)
#: numpydoc checks every public function must pass: parameters documented and existing, a Returns
#: section, an Examples section, a docstring at all.
NUMPYDOC_CHECKS = {"PR01", "PR02", "RT01", "EX01", "GL08"}
MAX_COMPLEXITY = 12


def public_objects() -> list[object]:
    """What the public modules export (their ``__all__``; a module of a missing extra is left out)."""
    found = []
    for module_name in PUBLIC:
        try:
            module = importlib.import_module(module_name)
        except ImportError:  # pragma: no cover - an optional extra
            continue
        found += [getattr(module, name) for name in module.__all__]
    return found


def public_functions() -> list[str]:
    return sorted({f"{o.__module__}.{o.__qualname__}" for o in public_objects() if inspect.isfunction(o)})


@pytest.mark.slow
def test_mypy_reports_no_error_on_the_library(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path), str(SRC)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("name", public_functions())
def test_every_public_function_has_a_numpydoc_docstring(name):
    from numpydoc.validate import validate

    errors = [f"{code}: {text}" for code, text in validate(name)["errors"] if code in NUMPYDOC_CHECKS]
    assert not errors, f"{name}:\n" + "\n".join(errors)


def sparse_docstring(value):
    """Return the value (a docstring with no Parameters, Returns or Examples)."""
    return value


def test_the_numpydoc_gate_can_fail():
    from numpydoc.validate import validate

    codes = {code for code, _ in validate(f"{__name__}.sparse_docstring")["errors"]}
    assert {"PR01", "RT01", "EX01"} <= codes


def complexities() -> list[tuple[str, int]]:
    from radon.complexity import cc_visit

    found = []
    for path in sorted(SRC.glob("*.py")):
        for block in cc_visit(path.read_text(encoding="utf-8")):
            found.append((f"{path.name}:{block.lineno} {block.fullname}", block.complexity))
    return found


def test_every_library_function_has_complexity_under_12():
    too_complex = [f"{name} ({value})" for name, value in complexities() if value >= MAX_COMPLEXITY]
    assert not too_complex, "split these functions (radon cyclomatic complexity >= 12):\n" + "\n".join(
        too_complex
    )


def test_the_complexity_gate_measures_something():
    assert max(value for _, value in complexities()) > 3
