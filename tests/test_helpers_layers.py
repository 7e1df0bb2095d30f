"""The course package's import graph: no cycle, function-level imports included, and the grader's stages
in order.

Every module of ``helpers`` is parsed (never imported) with the same reader as the library's layer test
(``tests/library/test_layers.py``): module-level imports, imports inside functions and imports by string
all count. An import cycle hidden behind a function-level import is still a cycle.

The grader is a pipeline of named stages (``helpers.grade``): read (``files``) -> prepare (``prepare``)
-> run (``sandbox``, with ``child``, ``isolation``, ``seccomp``, ``cgroup``) -> decode (``decode``) ->
score (``scoring``) -> report (``reports``, ``exports``); ``grader`` only orchestrates them and parses the
command line. A stage imports only the layers below it (:data:`STAGES`), and nothing imports the
orchestrator but the ``python -m`` entry point.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from tests.library.test_layers import LAZY_SHIMS, PACKAGES, ROOT, find_cycle, imports, module_name, resolve

#: Layer of each grading stage's module: a module imports only modules of lower layers. The order is the
#: pipeline's, except that decode (validating what a run sends back) sits below the run stage, which
#: applies it to every line as it arrives; decode itself knows nothing of how a run is made.
STAGES = {
    "helpers.grade.files": 0,
    "helpers.grade.prepare": 1,
    "helpers.grade.decode": 1,
    "helpers.grade.seccomp": 2,
    "helpers.grade.cgroup": 2,
    "helpers.grade.isolation": 3,
    "helpers.grade.sandbox": 4,
    "helpers.grade.scoring": 5,
    "helpers.grade.reports": 6,
    "helpers.grade.exports": 7,
}
ORCHESTRATOR = "helpers.grade.grader"
ENTRY_POINTS = {"helpers.grade.__main__"}
#: Grading modules whose every function must stay at radon complexity <= 12 (the sandbox and its stages).
SMALL_FUNCTIONS = (
    "files",
    "prepare",
    "sandbox",
    "decode",
    "child",
    "isolation",
    "seccomp",
    "cgroup",
    "options",
)
MAX_COMPLEXITY = 12


def helpers_graph(base: Path | None = None) -> dict[str, set[str]]:
    """helpers module -> the helpers modules it imports anywhere (functions and strings included).

    The one lazy shim of ``tests/library/test_layers.py`` (``helpers`` loading the course on first
    attribute access) is not an edge: it is how the package's root re-exports the course.
    """
    base = base or PACKAGES["helpers"]
    graph = {}
    for path in sorted((base / "helpers").rglob("*.py")):
        module = module_name(path, base)
        targets = {resolve(name) for name, _, _ in imports(path, base) if name.split(".")[0] == "helpers"}
        graph[module] = {t for t in targets if t != module and (module, t) not in LAZY_SHIMS}
    return graph


@functools.cache
def repository_graph() -> dict[str, set[str]]:
    """:func:`helpers_graph` of this repository, parsed once per test run."""
    return helpers_graph()


def test_helpers_has_no_import_cycle_even_through_functions():
    cycle = find_cycle(repository_graph())
    assert cycle is None, "import cycle in helpers: " + " -> ".join(cycle or [])


def test_a_cycle_behind_a_function_level_import_is_found(tmp_path, monkeypatch):
    pkg = tmp_path / "helpers" / "grade"
    pkg.mkdir(parents=True)
    (tmp_path / "helpers" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "grader.py").write_text("from . import similarity\n")
    (pkg / "similarity.py").write_text("def main():\n    from .grader import read_notebook\n")
    monkeypatch.setitem(PACKAGES, "helpers", tmp_path)
    graph = helpers_graph(tmp_path)
    assert graph["helpers.grade.similarity"] == {"helpers.grade.grader"}
    assert find_cycle(graph) == ["helpers.grade.grader", "helpers.grade.similarity", "helpers.grade.grader"]


def stage_problems(graph: dict[str, set[str]]) -> list[str]:
    problems = []
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            if target == ORCHESTRATOR and module not in ENTRY_POINTS:
                problems.append(f"{module} imports the orchestrator {target}")
            if module in STAGES and target in STAGES and STAGES[target] >= STAGES[module]:
                problems.append(
                    f"{module} (layer {STAGES[module]}) imports {target} (layer {STAGES[target]})"
                )
    return problems


def test_each_grading_stage_imports_only_stages_before_it():
    problems = stage_problems(repository_graph())
    assert not problems, "the grader's stages import out of order:\n" + "\n".join(problems)


def test_the_stage_check_can_fail():
    graph = {
        "helpers.grade.files": {"helpers.grade.sandbox"},
        "helpers.grade.similarity": {"helpers.grade.grader"},
        "helpers.grade.decode": {"helpers.grade.sandbox"},
    }
    problems = stage_problems(graph)
    assert len(problems) == 3, problems


def test_every_stage_has_its_module():
    for module in [*STAGES, ORCHESTRATOR]:
        assert (ROOT / Path(*module.split("."))).with_suffix(".py").exists(), module


def complexities(names: tuple[str, ...]) -> list[tuple[str, int]]:
    from radon.complexity import cc_visit

    found = []
    for name in names:
        path = ROOT / "helpers" / "grade" / f"{name}.py"
        for block in cc_visit(path.read_text(encoding="utf-8")):
            found.append((f"{path.name}:{block.lineno} {block.fullname}", block.complexity))
    return found


@pytest.mark.parametrize("name", SMALL_FUNCTIONS)
def test_the_sandbox_and_its_stages_have_small_functions(name):
    too_complex = [f"{where} ({value})" for where, value in complexities((name,)) if value > MAX_COMPLEXITY]
    assert not too_complex, f"split these functions (radon complexity > {MAX_COMPLEXITY}):\n" + "\n".join(
        too_complex
    )


def test_the_complexity_check_measures_something():
    assert max(value for _, value in complexities(SMALL_FUNCTIONS)) > 5
