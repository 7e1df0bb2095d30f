"""``python tools/render_readme.py``: rewrite README.md's generated parts.

Two blocks of README.md are generated, each between its markers:

- the metric table (``<!-- metric-table:start -->`` ... ``end``), from ``topkeval._registry``;
- the layout tree (``<!-- layout:start -->`` ... ``end``), from the packages themselves: every
  module of ``topkeval`` and every subpackage of ``helpers`` with the first line of its docstring;
- the speed table (``<!-- speed-table:start -->`` ... ``end``), from the committed output of
  ``make bench`` (``benchmarks/last_run.txt``, ``benchmarks/last_run_shapes.txt``) by
  ``benchmarks.readme_table``: every row states the shape it was measured on.

``tests/library/test_registry.py``, ``tests/test_readme_layout.py`` and ``tests/test_benchmarks.py`` fail
when README.md is out of date.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: the benchmarks package sits beside tools/
    sys.path.insert(0, str(ROOT))

from benchmarks.readme_table import speed_table  # noqa: E402
from topkeval._docs import markdown_table  # noqa: E402

LIBRARY = ROOT / "topkeval" / "src" / "topkeval"
COURSE = ROOT / "helpers"
TABLE = ("<!-- metric-table:start -->", "<!-- metric-table:end -->")
LAYOUT = ("<!-- layout:start -->", "<!-- layout:end -->")
SPEED = ("<!-- speed-table:start -->", "<!-- speed-table:end -->")

#: The repository's top-level folders that are not Python packages, in reading order.
FOLDERS = {
    "notebooks/": "the course, numbered in reading order, committed executed (nbval re-runs them)",
    "exercises/": "graded assignments (learner versions generated from exercises/source/)",
    "tests/": "mirror the packages: library/ (topkeval), experiments/, course/, grade/, spark/, browser/",
    "benchmarks/": "`make bench`, `make bench-grading`, `make bench-spark` (peers measured in the same run)",
    "tools/": "`make lab`'s launcher and the commands that write into the repository",
    "binder/": "Binder's environment (generated) and its post-build step",
}


def summary(path: Path) -> str:
    """The first line of a module's docstring, with reST roles reduced to their text."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    line = doc.strip().splitlines()[0] if doc.strip() else "(no docstring)"
    for role in (":mod:", ":func:", ":class:", ":data:"):
        line = line.replace(role, "")
    return line.replace("``", "`")


def layout() -> str:
    """The layout tree, as a fenced block."""
    width = 30
    rows = [
        "topkeval/                      the metrics library, its own distribution (topkeval/pyproject.toml)"
    ]
    for path in sorted(LIBRARY.glob("*.py")):
        rows.append(f"  src/topkeval/{path.name}".ljust(width) + " " + summary(path))
    rows.append("helpers/".ljust(width) + " " + summary(COURSE / "__init__.py"))
    aliases = sorted(p.name for p in COURSE.glob("*.py") if p.name != "__init__.py")
    rows.append(
        f"  {' '.join(aliases)}".ljust(width) + " the notebooks' names for topkeval's modules (aliases)"
    )
    for package in sorted(p.parent for p in COURSE.glob("*/__init__.py")):
        rows.append(f"  {package.name}/".ljust(width) + " " + summary(package / "__init__.py"))
    rows += [name.ljust(width) + " " + text for name, text in FOLDERS.items()]
    return "```\n" + "\n".join(rows) + "\n```"


def _replace(readme: str, markers: tuple[str, str], body: str) -> str:
    start, end = markers
    if start not in readme or end not in readme:
        raise ValueError(f"README has no {start} ... {end} markers")
    head, rest = readme.split(start, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{start}\n{body}\n{end}{tail}"


def render(readme: str) -> str:
    """Return ``readme`` with its generated blocks written anew."""
    readme = _replace(_replace(readme, TABLE, markdown_table()), LAYOUT, layout())
    return _replace(readme, SPEED, speed_table())


def main(argv: list[str]) -> int:
    if argv[1:]:
        print(
            "usage: python tools/render_readme.py   (rewrites README.md's generated blocks)", file=sys.stderr
        )
        return 2
    path = ROOT / "README.md"
    path.write_text(render(path.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"updated {path.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
