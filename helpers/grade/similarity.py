"""Similar code across a class: ``python -m helpers.grade similarity``.

Nothing is executed: each notebook is read like the grader reads it (regular files only, magics
stripped, cells that do not parse skipped), and the last top-level definition of every graded
function is *normalised*: docstrings dropped, the function's own name, its arguments and its local
names renamed in order of first use (``v0``, ``v1``, ...), builtins, attributes and constants kept.
Renaming variables, reformatting or rewording comments therefore changes nothing. The normalised
code is a sequence of AST node tokens; two functions' similarity is
:class:`difflib.SequenceMatcher`'s ratio of their sequences.

A pair of submissions scores the mean over the graded functions both define (weighted by length);
functions shorter than ``min_tokens`` (a one-line formula everybody writes alike) and unchanged
stubs are left out. Pairs at or above ``threshold`` are reported, and so is every submission whose
code matches the course's own solutions (the source notebook of a built-in assignment, or the
solutions in an authored spec) or the ``helpers`` library's implementation of the same function.
A high score is a reason to look, not proof: short exercises have few natural solutions.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import difflib
import inspect
import itertools
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from .files import NotebookError, collect, display_name, read_submission, write_atomic
from .inert import md_code, md_text
from .reports import display_names

__all__ = ["normalise", "function_tokens", "similarity", "compare_class", "reference_code", "main"]

_BUILTINS = set(dir(builtins))
REPO = Path(__file__).resolve().parents[2]


class _Renamer(ast.NodeTransformer):
    """Rename every non-builtin name and argument in order of first appearance."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def _new(self, name: str) -> str:
        if name in _BUILTINS:
            return name
        return self.names.setdefault(name, f"v{len(self.names)}")

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.name = self._new(node.name)
        body = node.body
        if (
            body
            and isinstance(body[0], ast.Expr)
            and isinstance(getattr(body[0], "value", None), ast.Constant)
        ):
            if isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
        node.decorator_list = []
        node.returns = None
        self.generic_visit(node)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.arg = self._new(node.arg)
        node.annotation = None
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        node.id = self._new(node.id)
        return node


def normalise(function: ast.FunctionDef) -> str:
    """The normalised source of a function (names renamed, docstring and annotations dropped).

    Examples
    --------
    >>> a = ast.parse("def f(xs, k):\\n    '''doc'''\\n    top = xs[:k]\\n    return len(top) / k").body[0]
    >>> b = ast.parse("def g(items, n):\\n    head = items[:n]  # first n\\n    return len(head) / n").body[0]
    >>> normalise(a) == normalise(b)
    True
    >>> print(normalise(a))
    def v0(v1, v2):
        v3 = v1[:v2]
        return len(v3) / v2
    """
    import copy

    tree = _Renamer().visit(copy.deepcopy(function))
    return ast.unparse(ast.fix_missing_locations(tree))


def function_tokens(function: ast.FunctionDef) -> list[str]:
    """The normalised function as a sequence of node tokens (node type, plus name/constant/attribute).

    Examples
    --------
    >>> function_tokens(ast.parse("def f(x):\\n    return x.y + 1").body[0])[:4]
    ['Module', 'FunctionDef', 'arguments', 'Return']
    """
    tree = ast.parse(normalise(function))
    out = []
    for node in ast.walk(tree):
        token = type(node).__name__
        if isinstance(node, ast.Name):
            token += f":{node.id}"
        elif isinstance(node, ast.Constant):
            token += f":{node.value!r}"[:40]
        elif isinstance(node, ast.Attribute):
            token += f":{node.attr}"
        out.append(token)
    return out


def similarity(a: list[str], b: list[str]) -> float:
    """How alike two token sequences are, in [0, 1] (1.0: the same normalised code).

    Examples
    --------
    >>> similarity(["a", "b", "c"], ["a", "b", "c"]), similarity(["a"], ["b"])
    (1.0, 0.0)
    """
    if not a and not b:
        return 1.0
    return float(difflib.SequenceMatcher(None, a, b, autojunk=False).ratio())


def _is_stub(function: ast.FunctionDef) -> bool:
    body = [n for n in function.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
    return len(body) == 1 and isinstance(body[0], ast.Raise)


def functions_in(sources: list[str], targets: set[str]) -> dict[str, ast.FunctionDef]:
    """The last top-level definition of each target in a notebook's code cells.

    IPython magics and cells that do not parse are skipped.
    """
    from .grader import prepare_notebook

    _, _, _, trees = prepare_notebook(sources)
    found: dict[str, ast.FunctionDef] = {}
    for _, tree in trees:
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in targets:
                if not _is_stub(node):
                    found[node.name] = node
    return found


@dataclass
class Entry:
    """One body of code compared: a submission or a reference."""

    label: str
    tokens: dict[str, list[str]]


def _pair(a: Entry, b: Entry, min_tokens: int) -> tuple[float, dict[str, float]] | None:
    per, weights = {}, {}
    for target in sorted(set(a.tokens) & set(b.tokens)):
        x, y = a.tokens[target], b.tokens[target]
        if min(len(x), len(y)) >= min_tokens:
            per[target] = round(similarity(x, y), 3)
            weights[target] = len(x) + len(y)
    if not per:
        return None
    total = sum(per[t] * weights[t] for t in per) / sum(weights.values())
    return round(total, 3), per


def compare_class(
    entries: list[Entry], references: list[Entry], threshold: float = 0.9, min_tokens: int = 25
) -> dict:
    """Pairs of submissions at or above ``threshold``, and submissions that match a reference.

    Returns ``{"pairs": [...], "references": [...], "compared": n}``, most similar first.
    """
    pairs = []
    for a, b in itertools.combinations(entries, 2):
        scored = _pair(a, b, min_tokens)
        if scored and scored[0] >= threshold:
            pairs.append({"a": a.label, "b": b.label, "score": scored[0], "functions": scored[1]})
    matches = []
    for entry in entries:
        for ref in references:
            scored = _pair(entry, ref, min_tokens)
            if scored and scored[0] >= threshold:
                matches.append(
                    {
                        "submission": entry.label,
                        "reference": ref.label,
                        "score": scored[0],
                        "functions": scored[1],
                    }
                )
    pairs.sort(key=lambda p: (-p["score"], p["a"], p["b"]))
    groups = groups_of(pairs)
    matches.sort(key=lambda p: (-p["score"], p["submission"], p["reference"]))
    return {
        "compared": len(entries),
        "threshold": threshold,
        "groups": groups,
        "pairs": pairs,
        "references": matches,
    }


def groups_of(pairs: list[dict]) -> list[list[str]]:
    """Submissions linked by similar pairs, as groups (connected components), largest first.

    Examples
    --------
    >>> groups_of([{"a": "x", "b": "y"}, {"a": "y", "b": "z"}, {"a": "p", "b": "q"}])
    [['x', 'y', 'z'], ['p', 'q']]
    """
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for pair in pairs:
        parent[root(pair["a"])] = root(pair["b"])
    members: dict[str, list[str]] = {}
    for x in parent:
        members.setdefault(root(x), []).append(x)
    return sorted((sorted(g) for g in members.values()), key=lambda g: (-len(g), g))


def _tokens(functions: dict[str, ast.FunctionDef]) -> dict[str, list[str]]:
    return {name: function_tokens(node) for name, node in functions.items()}


def _library_reference(targets: set[str]) -> Entry | None:
    import topkeval

    found = {}
    for name in targets:
        obj = getattr(topkeval, name, None)
        if callable(obj):
            try:
                node = ast.parse(inspect.getsource(obj).strip()).body[0]
            except (OSError, TypeError, SyntaxError, IndexError):
                continue
            if isinstance(node, ast.FunctionDef):
                node.name = name
                found[name] = node
    return Entry("helpers library", _tokens(found)) if found else None


def reference_code(assignment_arg: str, targets: set[str]) -> list[Entry]:
    """The course's own code for the targets: its solution notebook (or authored spec) and the library."""
    from .grader import read_notebook

    refs = []
    if assignment_arg.endswith(".py"):
        sources = [Path(assignment_arg).read_text(encoding="utf-8")]
        label = f"solutions in {Path(assignment_arg).name}"
    else:
        path = REPO / "exercises" / "source" / f"{assignment_arg}.ipynb"
        sources = read_notebook(path.read_bytes()) if path.is_file() else []
        label = f"solution notebook exercises/source/{assignment_arg}.ipynb"
    found = functions_in(sources, targets)
    if found:
        refs.append(Entry(label, _tokens(found)))
    library = _library_reference(targets)
    return refs + ([library] if library else [])


def _read(path: Path, label: str, targets: set[str], limit: int) -> Entry | str:
    from .grader import read_notebook

    try:
        return Entry(label, _tokens(functions_in(read_notebook(read_submission(path, limit)), targets)))
    except NotebookError as exc:
        return f"{label}: {exc}"


def _cell(text: str) -> str:
    return md_code(text, 300, in_table=True)


def _per(pair: dict) -> str:
    return ", ".join(f"{md_text(k)} {v:.2f}" for k, v in pair["functions"].items())


def report_markdown(result: dict, skipped: list[str]) -> str:
    """The report as Markdown."""
    lines = [
        f"# Similarity report ({result['compared']} submissions, threshold {result['threshold']:g})",
        "",
        "Scores compare normalised code (names renamed, comments and docstrings dropped); a high score is a",
        "reason to look at both notebooks, not proof of copying.",
        "",
        "## Groups (submissions linked by similar pairs)",
        "",
        *[f"- {len(g)} submissions: {', '.join(md_code(x) for x in g)}" for g in result["groups"]],
        "",
        "## Pairs of submissions",
        "",
        "| score | submission | submission | per function |",
        "|---|---|---|---|",
    ]
    for p in result["pairs"]:
        lines.append(f"| {p['score']:.3f} | {_cell(p['a'])} | {_cell(p['b'])} | {_per(p)} |")
    lines += [
        "",
        "## Matches with the course's own code",
        "",
        "| score | submission | reference | per function |",
    ]
    lines.append("|---|---|---|---|")
    for m in result["references"]:
        lines.append(f"| {m['score']:.3f} | {_cell(m['submission'])} | {_cell(m['reference'])} | {_per(m)} |")
    if skipped:
        lines += ["", "## Not compared", ""] + [f"- {md_code(s)}" for s in skipped]
    return "\n".join(line.replace("\n", " ") for line in lines) + "\n"


def main(argv: list[str]) -> int:
    """``python -m helpers.grade similarity --assignment A --out DIR SUBMISSIONS...``."""
    from .grader import add_assignment_option, resolve_assignment

    parser = argparse.ArgumentParser(
        prog="python -m helpers.grade similarity",
        description="Compare the graded functions of a class's notebooks with each other and with the "
        "course's own solutions; writes OUT/similarity.md and OUT/similarity.json. Nothing is executed.",
    )
    add_assignment_option(parser)
    parser.add_argument("--out", required=True, help="output folder (created if needed)")
    parser.add_argument("--threshold", type=float, default=0.9, help="report pairs at or above (default 0.9)")
    parser.add_argument(
        "--min-tokens",
        type=int,
        default=25,
        help="ignore functions shorter than this many AST nodes (default 25)",
    )
    parser.add_argument("--max-mb", type=float, default=5.0, help="largest notebook read (default 5 MiB)")
    parser.add_argument("submissions", nargs="+", help="notebooks (.ipynb) or folders of notebooks")
    args = parser.parse_args(argv)
    if not 0.0 < args.threshold <= 1.0:
        parser.error("--threshold must be in (0, 1]")
    assignment = resolve_assignment(parser, args.assignment)
    targets = {q.target for q in assignment.questions if q.kind == "function"}
    paths = collect(args.submissions)
    if not paths:
        parser.error("no .ipynb submissions found")
    labels = display_names([display_name(p) for p in paths])  # NFC, look-alikes marked, as in grades.csv
    read = [
        _read(p, label, targets, int(args.max_mb * 2**20)) for p, label in zip(paths, labels, strict=True)
    ]
    entries = [e for e in read if isinstance(e, Entry)]
    skipped = [e for e in read if isinstance(e, str)]
    result = compare_class(entries, reference_code(args.assignment, targets), args.threshold, args.min_tokens)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out, "similarity.json", json.dumps({**result, "skipped": skipped}, indent=1).encode())
    write_atomic(out, "similarity.md", report_markdown(result, skipped).encode("utf-8", "backslashreplace"))
    print(
        f"compared {len(entries)} submission(s): {len(result['pairs'])} pair(s) and "
        f"{len(result['references'])} match(es) with the course's code at >= {args.threshold:g}; "
        f"wrote {out / 'similarity.md'}",
        file=sys.stderr,
    )
    return 0
