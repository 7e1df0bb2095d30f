"""Every name the notebooks and exercises take from ``helpers`` resolves (the library moved to ``topkeval``).

Each code cell is scanned for ``import helpers.x``, ``from helpers.x import a, b`` and ``helpers.x``
attribute chains; each must import or resolve in this environment, as it does for a learner.
"""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted([*ROOT.glob("notebooks/*.ipynb"), *ROOT.glob("exercises/**/*.ipynb")])
FROM = re.compile(r"^\s*from (helpers(?:\.\w+)*) import \(?([\w, ]+)", re.M)
IMPORT = re.compile(r"^\s*import (helpers(?:\.\w+)*)", re.M)
ATTRIBUTE = re.compile(r"(?<![\w.])helpers((?:\.\w+)+)")


def code_of(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


def resolve(dotted: str) -> object:
    """Import the longest importable prefix of ``dotted`` and walk the rest as attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj
    raise ModuleNotFoundError(dotted)


def names_used(code: str) -> set[str]:
    found = {m.group(1) for m in IMPORT.finditer(code)}
    for module, names in FROM.findall(code):
        found |= {f"{module}.{n.split(' as ')[0].strip()}" for n in names.split(",") if n.strip()}
    found |= {"helpers" + m.group(1) for m in ATTRIBUTE.finditer(code)}
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_helpers_name_a_notebook_uses_resolves(path):
    missing = []
    for dotted in sorted(names_used(code_of(path))):
        try:
            resolve(dotted)
        except (ImportError, AttributeError) as err:
            missing.append(f"{dotted}: {err}")
    assert not missing, f"{path.name} uses names helpers no longer has:\n" + "\n".join(missing)


def test_the_scan_finds_module_imports_and_catches_a_missing_name():
    code = "from helpers import user_models, beyond as b\nimport helpers.splits\nx = helpers.nope_at_k(1)\n"
    expected = {"helpers.user_models", "helpers.beyond", "helpers.splits", "helpers.nope_at_k"}
    assert names_used(code) == expected
    with pytest.raises(AttributeError):
        resolve("helpers.nope_at_k")
