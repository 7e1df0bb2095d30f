"""What each room may import, for the library (``topkeval``) and the course (``helpers``).

Every module of both packages is parsed (never imported). Each import that names either package,
at module level or inside a function, is checked against its room's rule (written in
``helpers/__init__.py``), and the library's own import graph, function-level imports included,
must have no cycle, with the registry at the bottom importing nothing. Fresh interpreters check
that ``import topkeval`` loads no heavy package and ``import helpers`` loads no course module.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: package name -> the folder that holds it
PACKAGES = {"topkeval": ROOT / "topkeval" / "src", "helpers": ROOT}

#: room -> rooms it may import. "topkeval" is the library; "helpers" is the course package's own root
#: modules (the re-exports); the others are helpers' subpackages.
ALLOWED = {
    "topkeval": {"topkeval"},
    "helpers": {"topkeval", "helpers"},
    "experiments": {"topkeval", "experiments"},
    "checking": {"checking"},
    "course": {"topkeval", "helpers", "experiments", "checking", "course"},
    "grade": {"topkeval", "helpers", "experiments", "checking", "grade"},
}
#: Modules that run inside the grader's sandbox: the standard library only.
STDLIB_ONLY = {"helpers.grade.child"}
#: Third-party packages each room may import at module level (lazy imports inside functions are free).
THIRD_PARTY = {
    "topkeval": {"numpy", "pandas"},
    "helpers": set(),
    "experiments": {"numpy", "pandas"},
    "checking": {"numpy"},
    "course": {"numpy", "pandas"},
    "grade": set(),
}
#: The one import against the arrows: ``helpers.progress`` loads the course lazily, inside ``__getattr__``.
LAZY_SHIMS = {("helpers", "helpers.course")}
#: Optional library modules with their own extra.
EXTRA_MODULES = {"topkeval.spark": {"numpy", "pandas", "pyarrow"}, "topkeval.dask": {"numpy", "pandas"}}
#: The library's bottom layer: it imports no module of the package, not even inside a function.
BOTTOM = "topkeval._registry"


def module_name(path: Path, base: Path) -> str:
    parts = path.relative_to(base).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def room_of(module: str) -> str:
    parts = module.split(".")
    if parts[0] == "topkeval":
        return "topkeval"
    if len(parts) == 1 or (PACKAGES["helpers"] / "helpers" / f"{parts[1]}.py").exists():
        return "helpers"
    return parts[1]


def imports(path: Path, base: Path) -> list[tuple[str, int, bool]]:
    """(absolute module name, line, at module level) for every import in the file."""
    module = module_name(path, base)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno, id(node) in top) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found += _from_import(node, package, id(node) in top)
        elif isinstance(node, ast.Call) and _dynamic_import(node):
            found.append((_dynamic_target(node, package), node.lineno, False))
    return found


def _from_import(node: ast.ImportFrom, package: str, at_top: bool) -> list[tuple[str, int, bool]]:
    """The (absolute module name, line, at module level) rows of one ``from ... import ...``."""
    if node.level:
        parts = package.split(".")
        parts = parts[: len(parts) - node.level + 1]
        target = ".".join(parts + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    if target in PACKAGES or (node.level and not node.module):
        return [(f"{target}.{alias.name}", node.lineno, at_top) for alias in node.names]
    return [(target, node.lineno, at_top)]


def _dynamic_import(node: ast.Call) -> bool:
    """``importlib.import_module(...)``, ``import_module(...)`` or ``__import__(...)``:
    an import by string."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name in ("import_module", "__import__")


def _dynamic_target(node: ast.Call, package: str) -> str:
    """The module an import by string names; one the AST cannot read counts as the whole library."""
    arg = node.args[0] if node.args else None
    if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
        return "topkeval.<computed name>"  # unknown: treated as importing the library itself
    if arg.value.startswith("."):
        return package + arg.value if arg.value != "." else package
    return arg.value


def resolve(name: str) -> str:
    """pkg.x.y -> the module it names (a name imported from a package resolves to the package)."""
    parts = name.split(".")
    base = PACKAGES[parts[0]]
    while len(parts) > 1:
        candidate = base.joinpath(*parts)
        if candidate.with_suffix(".py").exists() or (candidate / "__init__.py").exists():
            return ".".join(parts)
        parts = parts[:-1]
    return parts[0]


def all_modules() -> list[tuple[Path, Path]]:
    found = [
        (path, PACKAGES["topkeval"]) for path in sorted((PACKAGES["topkeval"] / "topkeval").rglob("*.py"))
    ]
    return found + [(path, ROOT) for path in sorted((ROOT / "helpers").rglob("*.py"))]


MODULES = all_modules()


def _import_problem(module: str, room: str, name: str, line: int, top: bool) -> list[str]:
    """What is wrong with one import of ``module`` (in ``room``): nothing, or one sentence."""
    first = name.split(".")[0]
    if first in PACKAGES:
        target = room_of(resolve(name))
        if (module, resolve(name)) in LAZY_SHIMS and not top:
            return []
        if module in STDLIB_ONLY or target not in ALLOWED[room]:
            return [f"line {line}: {module} ({room}) imports {name} ({target})"]
    elif first not in set(sys.stdlib_module_names) | {"__future__"}:
        allowed = EXTRA_MODULES.get(module, THIRD_PARTY[room])
        if module in STDLIB_ONLY or (top and first not in allowed):
            return [f"line {line}: {module} imports {first} at module level"]
    return []


@pytest.mark.parametrize("path, base", MODULES, ids=[str(p.relative_to(ROOT)) for p, _ in MODULES])
def test_room_imports_only_what_its_rule_allows(path, base):
    module = module_name(path, base)
    room = room_of(module)
    assert room in ALLOWED, (
        f"{module}: new room {room!r}; add it to ALLOWED here and to helpers/__init__.py's table"
    )
    problems = [
        p for name, line, top in imports(path, base) for p in _import_problem(module, room, name, line, top)
    ]
    assert not problems, "layer rule broken (see helpers/__init__.py):\n" + "\n".join(problems)


def library_graph() -> dict[str, set[str]]:
    """topkeval module -> the topkeval modules it imports anywhere (function-level imports included)."""
    base = PACKAGES["topkeval"]
    graph = {}
    for path, _ in (m for m in MODULES if m[1] == base):
        module = module_name(path, base)
        targets = {resolve(name) for name, _, _ in imports(path, base) if name.split(".")[0] == "topkeval"}
        graph[module] = {t for t in targets if t != module and t != "topkeval"}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        state[node] = 2
        stack.pop()
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_the_library_has_no_import_cycle_even_through_functions():
    cycle = find_cycle(library_graph())
    assert cycle is None, "import cycle in topkeval: " + " -> ".join(cycle or [])


def test_the_registry_is_the_bottom_layer():
    assert library_graph()[BOTTOM] == set(), f"{BOTTOM} must import no module of topkeval"
    names = [
        name
        for name, _, _ in imports(PACKAGES["topkeval"] / "topkeval" / "_registry.py", PACKAGES["topkeval"])
    ]
    assert not [n for n in names if n.split(".")[0] == "topkeval"], names


def test_an_import_by_string_counts_as_an_import(tmp_path):
    source = tmp_path / "topkeval" / "_registry.py"
    source.parent.mkdir()
    source.write_text(
        "import importlib\n"
        "def f(name):\n"
        "    importlib.import_module('topkeval.conventions')\n"
        "    __import__('topkeval.batch')\n"
        "    return importlib.import_module(name)\n"
    )
    names = {name for name, _, _ in imports(source, tmp_path)}
    assert {"topkeval.conventions", "topkeval.batch", "topkeval.<computed name>"} <= names


def test_the_cycle_check_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_layer_check_catches_a_forbidden_import(tmp_path, monkeypatch):
    fake = tmp_path / "src" / "topkeval"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "metrics.py").write_text("from helpers.course import progress\nimport matplotlib\n")
    (tmp_path / "helpers" / "course").mkdir(parents=True)
    (tmp_path / "helpers" / "__init__.py").write_text("")
    (tmp_path / "helpers" / "course" / "__init__.py").write_text("")
    monkeypatch.setitem(PACKAGES, "topkeval", tmp_path / "src")
    monkeypatch.setitem(PACKAGES, "helpers", tmp_path)
    with pytest.raises(AssertionError, match="imports helpers.course") as caught:
        test_room_imports_only_what_its_rule_allows(fake / "metrics.py", tmp_path / "src")
    assert "imports matplotlib at module level" in str(caught.value)


HEAVY = (
    "matplotlib",
    "pyspark",
    "sklearn",
    "ranx",
    "pytrec_eval",
    "ir_measures",
    "IPython",
    "polars",
)  # pyarrow is used when installed (fast string ids)


def loaded_after(statement: str) -> list[str]:
    code = (
        f"import json, sys; {statement}; "
        "print(json.dumps(sorted(m for m in sys.modules "
        f"if m.split('.')[0] in {('helpers', 'topkeval') + HEAVY!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def test_import_topkeval_loads_no_heavy_package_and_no_course():
    loaded = loaded_after("import topkeval")
    assert all(m.split(".")[0] == "topkeval" for m in loaded), f"import topkeval loaded: {loaded}"


def test_import_helpers_loads_the_library_and_no_course_module():
    loaded = loaded_after("import helpers")
    course = [m for m in loaded if m.startswith("helpers.")]
    assert not course, f"import helpers loaded course modules: {course}"
    assert not [m for m in loaded if m.split(".")[0] in HEAVY], (
        f"import helpers loaded a heavy package: {loaded}"
    )


def test_course_helpers_load_on_first_use():
    code = "import sys, helpers; helpers.progress; print('helpers.course' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True"


def test_the_course_names_for_library_modules_are_the_library_modules():
    """``import helpers.X`` gives topkeval's module object. (The package attribute too: pytest collects no
    alias file, see the repository's conftest.py and tests/test_conftest.py.)"""
    import importlib

    import helpers
    import topkeval

    for course, library in [
        ("helpers.beyond", "topkeval.beyond"),
        ("helpers.conventions", "topkeval.conventions"),
        ("helpers.experiments.stats", "topkeval.stats"),
        ("helpers.offpolicy", "topkeval.offpolicy"),
        ("helpers.splits", "topkeval.splits"),
        ("helpers.user_models", "topkeval.user_models"),
    ]:
        assert importlib.import_module(course) is importlib.import_module(library), course
    assert helpers.evaluate is topkeval.evaluate
    code = "import helpers.offpolicy, topkeval.offpolicy; print(helpers.offpolicy is topkeval.offpolicy)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True"  # and the attribute, in a plain interpreter


def test_require_skips_loudly_off_ci_and_fails_on_ci(require, monkeypatch):
    monkeypatch.setenv("CI", "false")
    with pytest.raises(pytest.skip.Exception, match="WIDGET MISSING"):
        require("widget", False, "apt-get install widget")
    require.__globals__["_MISSING"].pop("widget")  # a made-up component: keep it out of the banner
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true but widget is missing"):
        require("widget", False, "apt-get install widget")
    require("widget", True, "apt-get install widget")  # available: nothing happens
