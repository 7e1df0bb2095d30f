"""The library's gates on the whole repository: mypy on the course package, complexity, formatting.

``tests/library/test_gates.py`` holds the library (``topkeval``) to mypy, numpydoc and a complexity bound;
these hold the course package (``helpers``) to the same type gate, the course package's public names to the
same numpydoc checks, the course package, the tools and the benchmarks to the same complexity bound, and
every Python file of the repository to ``ruff format`` (``ruff check``, with RUF100's unused-noqa rule, runs
first in ``make test``). Each gate runs the real tool.

A public name of ``helpers`` is decided as the library's gate decides it: a module whose dotted name has no
part starting with ``_`` is public, and its public names are its ``__all__`` (or, without one, its names
not starting with ``_``). A function or class is checked in the module that defines it, so a name that
``helpers.course`` re-exports from ``helpers.checking`` is checked once, where it is written, and the
library's names that ``import helpers`` re-exports are the library gate's.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

from .library.test_gates import NUMPYDOC_CHECKS

ROOT = Path(__file__).resolve().parents[1]
#: Folders whose every function must stay readable at once (radon cyclomatic complexity at most 12), the
#: tests included; the library's own folder is held to the same bound by ``tests/library/test_gates.py``.
SMALL_FUNCTIONS = ("helpers", "tools", "benchmarks", "tests")
MAX_COMPLEXITY = 12
#: Subpackages of ``helpers`` whose public functions and classes pass numpydoc's checks.
NUMPYDOC_PACKAGES = ("helpers.checking", "helpers.course", "helpers.experiments", "helpers.grade")
#: The one exemption: these public names carry no Examples section (EX01), because an example would need
#: what a doctest that runs in a second cannot have. Each group says what; every other check applies.
NO_EXAMPLE_BECAUSE: dict[str, tuple[str, ...]] = {
    "seconds of model fitting, or peer libraries that may not be installed": (
        "helpers.course.nb08.notebook_scores",
        "helpers.course.nb08.svd_minus_pop",
        "helpers.experiments.peers.run_native",
        "helpers.experiments.peers.record",
    ),
    "a sandbox: bubblewrap, a control group, seccomp, or the code that runs inside one": (
        "helpers.grade.child.Channel",
        "helpers.grade.child.apply_limits",
        "helpers.grade.child.main",
        "helpers.grade.child.runner",
        "helpers.grade.child.supervise",
        "helpers.grade.cgroup.Group",
        "helpers.grade.seccomp.filter_fd",
        "helpers.grade.isolation.prepare",
        "helpers.grade.sandbox.run_submission",
        "helpers.grade.grader.grade_submission",
        "helpers.grade.grader.grade_many",
    ),
    "notebook files, archives, specs or a gradebook on disk": (
        "helpers.grade.assignments.load_public_checks",
        "helpers.grade.authoring.author",
        "helpers.grade.authoring.load_spec",
        "helpers.grade.collect.extract_zip",
        "helpers.grade.exports.ClassRow",
        "helpers.grade.exports.class_rows",
        "helpers.grade.exports.find_notebook",
        "helpers.grade.exports.grades_csv",
        "helpers.grade.exports.write_class_files",
        "helpers.grade.files.collect",
        "helpers.grade.files.read_submission",
        "helpers.grade.files.write_atomic",
        "helpers.grade.gradescope_package.build",
        "helpers.grade.review.answers",
        "helpers.grade.review.render_page",
        "helpers.grade.review.save_score",
        "helpers.grade.similarity.reference_code",
    ),
    "a command line's main, or a server on a port": (
        "helpers.grade.authoring.main",
        "helpers.grade.grader.main",
        "helpers.grade.gradescope_package.main",
        "helpers.grade.review.main",
        "helpers.grade.review.ReviewServer",
        "helpers.grade.review.serve",
        "helpers.grade.similarity.main",
    ),
}
NO_EXAMPLE = {name for names in NO_EXAMPLE_BECAUSE.values() for name in names}


def _run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True)


def public_modules(package_name: str) -> list[str]:
    """The package and its modules whose dotted names have no part starting with ``_`` (so ``__main__``,
    which would run the command line, is never imported)."""
    package = importlib.import_module(package_name)
    names = [package_name] + [
        info.name for info in pkgutil.walk_packages(package.__path__, f"{package_name}.")
    ]
    return [name for name in names if not any(part.startswith("_") for part in name.split("."))]


def defined_public_names(module_name: str) -> dict[str, object]:
    """The functions and classes a module both exports (``__all__``, else names without ``_``) and defines."""
    module = importlib.import_module(module_name)
    exported = getattr(module, "__all__", None)
    if exported is None:
        exported = [name for name in vars(module) if not name.startswith("_")]
    found = {}
    for name in exported:
        value = inspect.unwrap(getattr(module, name))  # a cached function is a function too
        if (inspect.isfunction(value) or inspect.isclass(value)) and value.__module__ == module_name:
            found[f"{module_name}.{value.__qualname__}"] = value
    return found


def helpers_public_objects(packages: tuple[str, ...] = NUMPYDOC_PACKAGES) -> dict[str, object]:
    """The public functions and classes of ``packages``, by name (``helpers.checking.values.Verdict``)."""
    found: dict[str, object] = {}
    for package_name in packages:
        for module_name in public_modules(package_name):
            found.update(defined_public_names(module_name))
    return found


@pytest.mark.parametrize("name", sorted(helpers_public_objects()))
def test_every_public_course_function_and_class_has_a_numpydoc_docstring(name):
    from numpydoc.validate import validate

    checks = NUMPYDOC_CHECKS - {"EX01"} if name in NO_EXAMPLE else NUMPYDOC_CHECKS
    errors = [f"{code}: {text}" for code, text in validate(name)["errors"] if code in checks]
    assert not errors, f"{name}:\n" + "\n".join(errors)


def test_the_course_numpydoc_gate_covers_every_listed_package_and_only_public_names():
    found = helpers_public_objects()
    for package in NUMPYDOC_PACKAGES:
        assert any(name.startswith(f"{package}.") for name in found), f"no public name found in {package}"
    assert not [name for name in found if any(part.startswith("_") for part in name.split("."))]
    assert sorted(set(NO_EXAMPLE) - set(found)) == [], "an exemption names nothing public: remove it"


def test_the_course_numpydoc_gate_covers_every_subpackage_of_helpers():
    """``helpers``' own modules are these subpackages; its top-level modules are the library's, under
    the course's name (checked by the library's gate)."""
    import helpers

    subpackages = {f"helpers.{info.name}" for info in pkgutil.iter_modules(helpers.__path__) if info.ispkg}
    assert subpackages == set(NUMPYDOC_PACKAGES)


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


def test_every_course_tool_benchmark_and_test_function_has_complexity_at_most_12():
    too_complex = [f"{name} ({value})" for name, value in complexities() if value > MAX_COMPLEXITY]
    assert not too_complex, "split these functions (radon cyclomatic complexity above 12):\n" + "\n".join(
        too_complex
    )


def test_the_complexity_gate_measures_something():
    assert max(value for _, value in complexities()) > 5
