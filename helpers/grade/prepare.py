"""Prepare a notebook's code for its sandbox: magics out, cells parsed and split into statements.

The stage after reading (:func:`helpers.grade.files.read_notebook`) and before the run
(:func:`helpers.grade.sandbox.run_submission`): read -> **prepare** -> run -> decode -> score.
Nothing here executes learner code; it is parsed with :mod:`ast` only, within the code cap of
:class:`helpers.grade.sandbox.Limits`. A case's arguments are encoded here as JSON the sandbox
decodes (:func:`encode_argument`).
"""

from __future__ import annotations

import ast
import re
from typing import Any

__all__ = ["prepare_notebook", "helpers_names", "encode_argument"]

_MAGIC = re.compile(r"^\s*(%|!)")


def _strip_magics(index: int, src: str, warnings: list[str]) -> list[str] | None:
    lines = src.splitlines()
    if lines and lines[0].lstrip().startswith("%%"):
        warnings.append(f"cell {index}: skipped a cell magic ({lines[0].strip()[:40]!r})")
        return None
    kept = []
    for line in lines:
        if _MAGIC.match(line):
            warnings.append(f"cell {index}: removed IPython magic/shell line {line.strip()[:60]!r}")
            line = ""
        kept.append(line)
    return kept


def _statements(tree: ast.Module, kept: list[str]) -> list[dict]:
    """Top-level statements as ``{"line", "source"}`` (decorators included; overlapping ones merged)."""
    spans: list[list[int]] = []
    for node in tree.body:
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        end = node.end_lineno or start
        if spans and start <= spans[-1][1]:
            spans[-1][1] = max(end, spans[-1][1])
        else:
            spans.append([start, end])
    return [{"line": a, "source": "\n".join(kept[a - 1 : b]) + "\n"} for a, b in spans]


def _syntax_error(index: int, exc: Exception) -> dict:
    msg = getattr(exc, "msg", str(exc))
    return {
        "by": "parse",
        "cell": index,
        "line": getattr(exc, "lineno", None),
        "error": f"{type(exc).__name__}: {msg} (cell skipped)",
    }


def prepare_notebook(
    sources: list[str],
) -> tuple[list[dict], list[str], list[dict], list[tuple[int, ast.Module]]]:
    """Strip magics, parse and split cells into top-level statements.

    Returns ``(cells for the sandbox, warnings, syntax errors, parsed trees)``.

    Parameters
    ----------
    sources : list of str
        The code cells' sources.

    Returns
    -------
    cells : list of dict
        Per cell, its ``index`` and top-level ``statements`` (``line``, ``source``).
    warnings : list of str
        The magics and shell lines removed.
    errors : list of dict
        The cells that do not parse (``cell``, ``line``, ``error``); they are not run.
    trees : list of (int, ast.Module)
        The parsed cells with their numbers.

    Examples
    --------
    >>> sources = ["%timeit 1\\nx = 1; y = 2\\ndef f():\\n    return x", "def ("]
    >>> cells, warnings, errors, _ = prepare_notebook(sources)
    >>> [s["line"] for s in cells[0]["statements"]], warnings, errors[0]["cell"]
    ([2, 3], ["cell 1: removed IPython magic/shell line '%timeit 1'"], 2)
    """
    cells: list[dict] = []
    warnings: list[str] = []
    errors: list[dict] = []
    trees: list[tuple[int, ast.Module]] = []
    for index, src in enumerate(sources, start=1):
        kept = _strip_magics(index, src, warnings)
        if kept is None:
            continue
        try:
            tree = ast.parse("\n".join(kept), filename=f"<cell {index}>")
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:  # too deep to parse: red team 7
            errors.append(_syntax_error(index, exc))
            continue
        if tree.body:
            trees.append((index, tree))
            cells.append({"index": index, "statements": _statements(tree, kept)})
    return cells, warnings, errors, trees


def helpers_names(trees: list[tuple[int, ast.Module]]) -> set[str]:
    """Names the notebook binds by importing ``helpers`` at the top level (they fail where it is absent).

    Parameters
    ----------
    trees : list of (int, ast.Module)
        The parsed cells with their numbers, as :func:`prepare_notebook` returns them.

    Returns
    -------
    set of str
        The bound names, so the feedback can say why each is undefined while graded.

    Examples
    --------
    >>> _, _, _, trees = prepare_notebook(["import helpers as h\\nfrom helpers.course import q1\\nimport os"])
    >>> sorted(helpers_names(trees))
    ['h', 'q1']
    """
    names = set()
    for _, tree in trees:
        for node in tree.body:
            if isinstance(node, ast.Import):
                names |= {
                    a.asname or a.name.split(".")[0] for a in node.names if a.name.split(".")[0] == "helpers"
                }
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "helpers":
                names |= {a.asname or a.name for a in node.names}
    return names


def encode_argument(arg: Any) -> Any:
    """A case's argument as JSON the sandbox decodes (sets, tuples and dicts tagged; sets sorted).

    Parameters
    ----------
    arg : Any
        A case's argument, built by a check from the seed.

    Returns
    -------
    Any
        JSON-ready data that :func:`helpers.grade.child.untag` turns back into the argument.

    Examples
    --------
    >>> encode_argument([{3, 1}, (1, "a"), {"k": 2}])
    [{'set': [1, 3]}, {'tuple': [1, 'a']}, {'dict': [['k', 2]]}]
    """
    if isinstance(arg, set):
        return {"set": [encode_argument(x) for x in sorted(arg, key=repr)]}
    if isinstance(arg, tuple):
        return {"tuple": [encode_argument(x) for x in arg]}
    if isinstance(arg, dict):
        return {"dict": [[encode_argument(a), encode_argument(b)] for a, b in arg.items()]}
    if isinstance(arg, list):
        return [encode_argument(x) for x in arg]
    return arg
