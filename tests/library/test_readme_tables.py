"""Every table in README.md renders with the cells it was written with.

GitHub splits a table row at every ``|`` that is not escaped as ``\\|``, even inside backticks,
so an unescaped ``|R|`` in a formula silently shifts the row's cells (and drops the last ones).
The check counts cells the way GitHub does, for the generated metric table and the typed ones.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from topkeval._docs import markdown_table

README = Path(__file__).resolve().parents[2] / "README.md"
UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


def cells(row: str) -> list[str]:
    """The cells of one Markdown table row, split at unescaped pipes (GFM's rule)."""
    inner = row.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [cell.strip() for cell in UNESCAPED_PIPE.split(inner)]


def tables(markdown: str) -> list[tuple[int, list[str]]]:
    """Each table outside fenced code blocks as (first line number, its lines)."""
    found: list[tuple[int, list[str]]] = []
    current: list[str] = []
    start, fenced = 0, False
    for number, line in enumerate([*markdown.splitlines(), ""], start=1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if not fenced and line.lstrip().startswith("|"):
            if not current:
                start = number
            current.append(line)
            continue
        if current:
            found.append((start, current))
            current = []
    return found


def broken_rows(markdown: str) -> list[str]:
    """Rows whose cell count differs from their table's header, described for the failure message."""
    problems = []
    for start, lines in tables(markdown):
        width = len(cells(lines[0]))
        for offset, line in enumerate(lines[1:], start=1):
            if len(cells(line)) != width:
                problems.append(
                    f"line {start + offset}: {len(cells(line))} cells, header has {width}: {line[:90]}"
                )
    return problems


def test_cells_honour_escaped_pipes():
    assert cells(r"| `recall@k` | hits / \|R\| | none |") == ["`recall@k`", r"hits / \|R\|", "none"]
    assert broken_rows("| a | b |\n|---|---|\n| x / |R| | y |\n") != []  # the bug this file guards
    assert broken_rows("| a | b |\n|---|---|\n| x / \\|R\\| | y |\n") == []
    assert broken_rows("```\n| a | b |\n| c |\n```\n") == []  # code blocks are not tables


def test_readme_has_the_tables_it_should():
    found = tables(README.read_text(encoding="utf-8"))
    assert len(found) >= 5, (
        f"expected the README's tables (speed, metrics, variants, course, layout); found {len(found)}"
    )


@pytest.mark.parametrize("source", ["README.md", "markdown_table()"])
def test_every_row_has_as_many_cells_as_its_header(source):
    markdown = README.read_text(encoding="utf-8") if source == "README.md" else markdown_table()
    problems = broken_rows(markdown)
    assert not problems, (
        f"{source}: table rows that would render with shifted or missing cells (escape a literal | as \\|; "
        "the metric table comes from helpers/_registry.py, "
        "regenerate it with python tools/render_readme.py):\n" + "\n".join(problems)
    )
