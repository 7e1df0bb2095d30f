"""``python tools/render_readme.py``: rewrite README.md's generated metric table.

The table between the ``<!-- metric-table:start -->`` and
``<!-- metric-table:end -->`` markers comes from ``topkeval._registry``;
``tests/library/test_registry.py`` fails when the README is out of date.
"""

from __future__ import annotations

import sys
from pathlib import Path

from topkeval._docs import markdown_table

START, END = "<!-- metric-table:start -->", "<!-- metric-table:end -->"


def render(readme: str) -> str:
    """Return ``readme`` with the generated table between the markers."""
    if START not in readme or END not in readme:
        raise ValueError(f"README has no {START} ... {END} markers")
    head, rest = readme.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{markdown_table()}\n{END}{tail}"


def main(argv: list[str]) -> int:
    if argv[1:]:
        print("usage: python tools/render_readme.py   (rewrites README.md's metric table)", file=sys.stderr)
        return 2
    path = Path(__file__).resolve().parent.parent / "README.md"
    path.write_text(render(path.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"updated {path.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
