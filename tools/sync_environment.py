"""Write environment.yml and binder/environment.yml from pyproject.toml (the one source).

Both conda files hold the dependencies of the library (topkeval/pyproject.toml) and of the course
package plus its ``course`` extra (what the notebooks need), with pyproject's specifiers::

    python tools/sync_environment.py           # rewrite both files
    python tools/sync_environment.py --check   # exit 1 if either is stale

``tests/test_binder.py`` runs the check.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Packages conda-forge does not carry under the same name: installed by pip inside the conda env.
PIP_ONLY = ("pytrec-eval-terrier", "ranx", "ir-measures", "confusable-homoglyphs")
PYTHON = "3.11"

HEADERS = {
    "environment.yml": (
        "# conda environment for the course (local conda users). Generated from pyproject.toml\n"
        "# (the library's dependencies + the `course` extra) by tools/sync_environment.py: do not edit.\n"
        "name: topk-course\n"
    ),
    "binder/environment.yml": (
        "# Binder (repo2docker) environment: repo2docker reads binder/ INSTEAD of the repository root.\n"
        "# Generated from pyproject.toml (the library's dependencies + the `course` extra) by\n"
        "# tools/sync_environment.py: do not edit. The course package itself is installed by\n"
        "# binder/postBuild, not here: a local `-e .` would turn off repo2docker's cached layer.\n"
    ),
}


def _project(path: Path) -> dict:
    return tomllib.loads(path.read_text(encoding="utf-8"))["project"]


def _expand(project: dict, extras: list[str], out: list[str], local: dict[str, dict]) -> None:
    """Add ``project``'s requirements for ``extras`` to ``out``; a local distribution is expanded in place."""
    todo, seen = list(extras), set()
    while todo:
        current = todo.pop(0)
        if current in seen:
            continue
        seen.add(current)
        for req in project["optional-dependencies"][current] if current else project["dependencies"]:
            match = re.fullmatch(r"([A-Za-z0-9_.-]+)(?:\[([a-z0-9_,-]+)\])?", req)
            name, inner = (match.group(1), match.group(2)) if match else (None, None)
            if name == project["name"]:
                todo.extend(inner.split(","))
            elif name in local:
                _expand(local[name], ["", *(inner.split(",") if inner else [])], out, local)
            elif req not in out:
                out.append(req)


def requirements(extra: str = "course") -> list[str]:
    """The core dependencies plus ``extra``, with this repository's own distributions expanded,
    in a stable order.

    The course depends on the library ``topkeval``, which is installed from ``topkeval/`` (not from a
    package index): its own dependencies and extras take its place in the conda files.
    """
    library = _project(ROOT / "topkeval" / "pyproject.toml")
    out: list[str] = []
    _expand(_project(ROOT / "pyproject.toml"), ["", extra], out, {library["name"]: library})
    return out


def render(path: str) -> str:
    reqs = requirements()
    conda = [r for r in reqs if re.split(r"[<>=!~ \[]", r, maxsplit=1)[0] not in PIP_ONLY]
    pip = [r for r in reqs if r not in conda]
    lines = [
        HEADERS[path],
        "channels:\n  - conda-forge\n",
        "dependencies:\n",
        f"  - python={PYTHON}\n",
        "  - pip\n",
    ]
    lines += [f"  - {r}\n" for r in conda]
    if pip:
        lines.append("  - pip:\n")
        lines += [f"      - {r}\n" for r in pip]
    return "".join(lines)


def main(argv: list[str]) -> int:
    check = argv == ["--check"]
    if argv and not check:
        print("usage: python tools/sync_environment.py [--check]", file=sys.stderr)
        return 2
    stale = []
    for path in HEADERS:
        text = render(path)
        target = ROOT / path
        if target.read_text(encoding="utf-8") != text:
            stale.append(path)
            if not check:
                target.write_text(text, encoding="utf-8")
    if check and stale:
        print(f"stale: {', '.join(stale)}; run: python tools/sync_environment.py", file=sys.stderr)
        return 1
    print("up to date" if not stale else f"wrote {', '.join(stale)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
