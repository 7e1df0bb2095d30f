"""The library's gates on the whole repository: mypy on the course package, complexity, formatting.

``tests/library/test_gates.py`` holds the library (``topkeval``) to mypy, numpydoc and a complexity bound;
these hold the course package (``helpers``) and the tools to the same type and complexity gates, and every
Python file of the repository to ``ruff format`` (``ruff check``, with RUF100's unused-noqa rule, runs
first in ``make test``). Each gate runs the real tool.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Folders whose every function must stay readable at once (radon cyclomatic complexity at most 12).
SMALL_FUNCTIONS = ("helpers", "tools")
MAX_COMPLEXITY = 12


def _run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True)


@pytest.mark.slow
def test_mypy_reports_no_error_on_the_course_package(tmp_path):
    result = _run("mypy", "--cache-dir", str(tmp_path), "helpers")
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_python_file_is_formatted():
    result = _run("ruff", "format", "--check", ".")
    assert result.returncode == 0, "run `ruff format .`:\n" + result.stdout + result.stderr


def complexities(folders: tuple[str, ...] = SMALL_FUNCTIONS) -> list[tuple[str, int]]:
    from radon.complexity import cc_visit

    found = []
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for block in cc_visit(path.read_text(encoding="utf-8")):
                found.append((f"{path.relative_to(ROOT)}:{block.lineno} {block.fullname}", block.complexity))
    return found


def test_every_course_and_tool_function_has_complexity_at_most_12():
    too_complex = [f"{name} ({value})" for name, value in complexities() if value > MAX_COMPLEXITY]
    assert not too_complex, "split these functions (radon cyclomatic complexity above 12):\n" + "\n".join(
        too_complex
    )


def test_the_complexity_gate_measures_something():
    assert max(value for _, value in complexities()) > 5
