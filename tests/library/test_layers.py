"""The package's rooms and what each may import (the rule is written in ``helpers/__init__.py``).

Every module of ``helpers`` is parsed (never imported) and each ``import``/``from ... import``
that names ``helpers`` is checked against the room's allowed rooms. A second test checks
that ``import helpers`` loads the library only, in a fresh interpreter.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "helpers"

#: room -> rooms it may import. "root" is every module directly in helpers/ (the library).
ALLOWED = {
    "root": {"root"},
    "experiments": {"root", "experiments"},
    "checking": {"checking"},
    "course": {"root", "experiments", "checking", "course"},
    "grade": {"root", "experiments", "checking", "grade"},
}
#: Modules that run inside the sandbox: the standard library only.
STDLIB_ONLY = {"helpers.grade.child"}
#: Third-party packages each room may import at module level (lazy imports inside functions are free).
THIRD_PARTY = {
    "root": {"numpy", "pandas"},
    "experiments": {"numpy", "pandas"},
    "checking": {"numpy"},
    "course": {"numpy", "pandas"},
    "grade": set(),
}
#: The one allowed exception: ``helpers.progress()`` loads the course lazily, inside ``__getattr__``.
LAZY_SHIMS = {("helpers", "helpers.course")}
#: Optional library modules with their own extra (their heavy import is inside functions).
EXTRA_MODULES = {"helpers.spark": {"numpy", "pandas", "pyarrow"}, "helpers.dask": {"numpy", "pandas"}}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def room_of(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1 or (len(parts) == 2 and (PACKAGE / f"{parts[1]}.py").exists()):
        return "root"
    return parts[1]


def imports(path: Path) -> list[tuple[str, int, bool]]:
    """(absolute module name, line, at module level) for every import in the file."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno, id(node) in top) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target == "helpers" or (node.level and not node.module):
                found += [(f"{target}.{alias.name}", node.lineno, id(node) in top) for alias in node.names]
            else:
                found.append((target, node.lineno, id(node) in top))
    return found


def resolve(name: str) -> str:
    """helpers.x.y -> the module it names (a name imported from a package resolves to the package)."""
    parts = name.split(".")
    while len(parts) > 1:
        candidate = PACKAGE.parent.joinpath(*parts)
        if candidate.with_suffix(".py").exists() or (candidate / "__init__.py").exists():
            return ".".join(parts)
        parts = parts[:-1]
    return "helpers"


MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE.parent)))
def test_room_imports_only_what_its_rule_allows(path):
    module = module_name(path)
    room = room_of(module)
    assert room in ALLOWED, f"{module}: new room {room!r}; add it to ALLOWED here and to helpers/__init__.py's table"
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    problems = []
    for name, line, top in imports(path):
        first = name.split(".")[0]
        if first == "helpers":
            target = room_of(resolve(name))
            if (module, resolve(name)) in LAZY_SHIMS and not top:
                continue
            if module in STDLIB_ONLY or target not in ALLOWED[room]:
                problems.append(f"line {line}: {module} ({room}) imports {name} ({target})")
        elif first not in stdlib:
            allowed = EXTRA_MODULES.get(module, THIRD_PARTY[room])
            if module in STDLIB_ONLY or (top and first not in allowed):
                problems.append(f"line {line}: {module} imports {first} at module level")
    assert not problems, "layer rule broken (see helpers/__init__.py):\n" + "\n".join(problems)


def test_the_layer_check_catches_a_forbidden_import(tmp_path, monkeypatch):
    fake = tmp_path / "helpers"
    (fake / "course").mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "metrics.py").write_text("from helpers.course import progress\nimport matplotlib\n")
    (fake / "course" / "__init__.py").write_text("")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    with pytest.raises(AssertionError, match="imports helpers.course"):
        test_room_imports_only_what_its_rule_allows(fake / "metrics.py")


def test_import_helpers_loads_the_library_only():
    code = (
        "import json, sys; import helpers; "
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('helpers', 'matplotlib', 'pyspark', 'sklearn', 'ranx', 'pytrec_eval', 'ir_measures', 'IPython'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = json.loads(out)
    rooms = {room_of(m) for m in loaded if m.startswith("helpers")}
    assert rooms == {"root"}, f"import helpers loaded more than the library: {loaded}"
    assert all(m.startswith("helpers") for m in loaded), f"import helpers loaded a heavy package: {loaded}"


def test_course_helpers_load_on_first_use():
    code = "import sys, helpers; helpers.progress; print('helpers.course' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True"


def test_require_skips_loudly_off_ci_and_fails_on_ci(require, monkeypatch):
    monkeypatch.setenv("CI", "false")
    with pytest.raises(pytest.skip.Exception, match="WIDGET MISSING"):
        require("widget", False, "apt-get install widget")
    require.__globals__["_MISSING"].pop("widget")  # a made-up component: keep it out of the banner
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true but widget is missing"):
        require("widget", False, "apt-get install widget")
    require("widget", True, "apt-get install widget")  # available: nothing happens
