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
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .files import NotebookError, collect, display_name, read_notebook, read_submission, write_atomic
from .inert import md_code, md_text
from .options import add_assignment_option, resolve_assignment
from .prepare import prepare_notebook
from .reports import display_names
from .sandbox import Limits

__all__ = ["normalise", "function_tokens", "similarity", "compare_class", "reference_code", "main"]

_BUILTINS = set(dir(builtins))
REPO = Path(__file__).resolve().parents[2]
#: Bounds that keep one hostile notebook from exhausting the class's run (issue 33).
MAX_TOKENS = 60_000  # AST tokens of one notebook's graded functions together; more: not compared
EXACT_TOKENS = 2_000  # SequenceMatcher (cost ~ product of lengths) only when both are at most this long
KGRAM, WINDOW = 4, 4  # fingerprints: hashes of 4-token k-grams, winnowed over windows of 4
PREFILTER = 0.5  # a pair goes to the exact comparison when its fingerprint score >= PREFILTER * threshold
TIME_BUDGET = 120.0  # seconds of exact comparisons; later pairs keep their fingerprint estimate


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
        first = body[0].value if body and isinstance(body[0], ast.Expr) else None
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            node.body = body[1:] or [ast.Pass()]
        node.decorator_list = []
        node.returns = None
        self.generic_visit(node)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.arg = self._new(node.arg)
        node.annotation = None
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        node.id = self._new(node.id)
        return node


def normalise(function: ast.FunctionDef) -> str:
    """The normalised source of a function (names renamed, docstring and annotations dropped).

    Parameters
    ----------
    function : ast.FunctionDef
        A function of a submission (not changed).

    Returns
    -------
    str
        Its source with every local name renamed in order of appearance, so renaming variables
        does not hide a copy.

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

    Parameters
    ----------
    function : ast.FunctionDef
        A function of a submission.

    Returns
    -------
    list of str
        The tokens of :func:`normalise`'s tree, in walk order.

    Examples
    --------
    >>> function_tokens(ast.parse("def f(x):\\n    return x.y + 1").body[0])[:4]
    ['Module', 'FunctionDef', 'arguments', 'Return']
    """
    import copy

    tree = _Renamer().visit(copy.deepcopy(function))
    out = ["Module"]  # the tokens of the normalised source parsed as a module, without printing it
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

    Parameters
    ----------
    a, b : list of str
        Two token sequences.

    Returns
    -------
    float
        ``difflib``'s ratio of the sequences.

    Examples
    --------
    >>> similarity(["a", "b", "c"], ["a", "b", "c"]), similarity(["a"], ["b"])
    (1.0, 0.0)
    """
    if not a and not b:
        return 1.0
    if max(len(a), len(b)) > EXACT_TOKENS:
        return dice(fingerprints(a), fingerprints(b))
    return float(difflib.SequenceMatcher(None, a, b, autojunk=False).ratio())


def fingerprints(tokens: list[str]) -> frozenset[int]:
    """Winnowed k-gram hashes of a token sequence (Schleimer, Wilkerson and Aiken, SIGMOD 2003).

    Every run of ``KGRAM`` tokens is hashed (from the tokens' CRC-32, the same on every machine);
    of each window of ``WINDOW`` consecutive hashes the smallest is kept. Two sequences that share
    a run of at least ``KGRAM + WINDOW - 1`` tokens share a fingerprint; the work and memory are
    linear in the length.

    Examples
    --------
    >>> a = [f"t{i}" for i in range(40)]
    >>> fingerprints(a) == fingerprints(list(a)), len(fingerprints(a)) < 37
    (True, True)
    """
    codes: dict[str, int] = {}
    ids = [codes.setdefault(t, zlib.crc32(t.encode("utf-8", "backslashreplace"))) for t in tokens]
    grams = ids
    for shift in range(1, KGRAM):
        grams = [(g * 1_000_003 + x) & 0xFFFFFFFFFFFF for g, x in zip(grams, ids[shift:], strict=False)]
    if len(grams) <= WINDOW:
        return frozenset(grams)
    return frozenset(map(min, zip(*(grams[i:] for i in range(WINDOW)), strict=False)))


def dice(a: frozenset[int], b: frozenset[int]) -> float:
    """``2|A∩B| / (|A| + |B|)`` of two fingerprint sets, in [0, 1].

    Examples
    --------
    >>> dice(frozenset({1, 2}), frozenset({2, 3})), dice(frozenset(), frozenset())
    (0.5, 1.0)
    """
    if not a and not b:
        return 1.0
    return 2 * len(a & b) / (len(a) + len(b))


def _is_stub(function: ast.FunctionDef) -> bool:
    body = [n for n in function.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
    return len(body) == 1 and isinstance(body[0], ast.Raise)


def _as_function(name: str, node: ast.Lambda) -> ast.FunctionDef:
    """A ``name = lambda ...`` binding as the function it defines (for comparison only)."""
    body: list[ast.stmt] = [ast.Return(value=node.body)]
    function = ast.FunctionDef(name=name, args=node.args, body=body, decorator_list=[], returns=None)
    setattr(function, "type_params", [])  # noqa: B010 (a field from Python 3.12 on; 3.11's ast lacks it)
    return function


def _bind(bound: dict[str, ast.FunctionDef | None], targets: list[ast.expr], value: ast.expr) -> None:
    """Record what an assignment binds: an alias of a known function, a lambda, or something else."""
    for target in targets:
        if not isinstance(target, ast.Name):
            continue
        if isinstance(value, ast.Name):
            bound[target.id] = bound.get(value.id)
        elif isinstance(value, ast.Lambda):
            bound[target.id] = _as_function(target.id, value)
        else:
            bound[target.id] = None


def _bindings(trees: list[tuple[int, ast.Module]]) -> dict[str, ast.FunctionDef | None]:
    """The function each top-level name is bound to at the end of the notebook, aliases resolved.

    ``def _impl(...)`` then ``precision_at_k = _impl`` binds ``precision_at_k`` to ``_impl``'s
    code; a later ``def`` or assignment re-binds the name (the last binding wins, as when the
    notebook runs top to bottom); ``name = lambda ...`` counts as a function.
    """
    bound: dict[str, ast.FunctionDef | None] = {}
    for _, tree in trees:
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                bound[node.name] = node  # type: ignore[assignment]
            elif isinstance(node, ast.Assign):
                _bind(bound, node.targets, node.value)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                _bind(bound, [node.target], node.value)
    return bound


def functions_in(sources: list[str], targets: set[str]) -> dict[str, ast.FunctionDef]:
    """The function each target is bound to at the end of a notebook's code cells.

    Aliases and re-bindings are resolved (:func:`_bindings`); unchanged stubs are left out.
    IPython magics and cells that do not parse are skipped.

    Examples
    --------
    >>> code = "def _impl(a, b):\\n    return a + b\\nf = _impl\\ng = lambda x: x\\ndef h():\\n    raise X"
    >>> sorted(functions_in([code], {"f", "g", "h"}))
    ['f', 'g']
    """

    _, _, _, trees = prepare_notebook(sources)
    bound = _bindings(trees)
    return {name: node for name in targets if (node := bound.get(name)) is not None and not _is_stub(node)}


@dataclass
class Entry:
    """One body of code compared: a submission or a reference (its fingerprints computed once)."""

    label: str
    tokens: dict[str, list[str]]
    prints: dict[str, frozenset[int]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.prints = {name: fingerprints(tokens) for name, tokens in self.tokens.items()}


def _shared(a: Entry, b: Entry, min_tokens: int) -> list[str]:
    return [
        t
        for t in sorted(set(a.tokens) & set(b.tokens))
        if min(len(a.tokens[t]), len(b.tokens[t])) >= min_tokens
    ]


def _weighted(a: Entry, b: Entry, per: dict[str, float]) -> float:
    weights = {t: len(a.tokens[t]) + len(b.tokens[t]) for t in per}
    return round(sum(per[t] * weights[t] for t in per) / sum(weights.values()), 3)


def estimate(a: Entry, b: Entry, min_tokens: int) -> float | None:
    """A cheap score of a pair (fingerprint Dice per function, weighted by length), ``None`` if nothing
    is shared: the filter before the exact (quadratic) comparison."""
    per = {t: dice(a.prints[t], b.prints[t]) for t in _shared(a, b, min_tokens)}
    return _weighted(a, b, per) if per else None


def _function_score(a: Entry, b: Entry, target: str) -> float:
    x, y = a.tokens[target], b.tokens[target]
    if max(len(x), len(y)) > EXACT_TOKENS:  # the entries' fingerprints, computed once
        return round(dice(a.prints[target], b.prints[target]), 3)
    return round(similarity(x, y), 3)


def _pair(a: Entry, b: Entry, min_tokens: int) -> tuple[float, dict[str, float]] | None:
    per = {t: _function_score(a, b, t) for t in _shared(a, b, min_tokens)}
    return (_weighted(a, b, per), per) if per else None


def _candidates(
    pairs: list[tuple[Entry, Entry]], threshold: float, min_tokens: int
) -> list[tuple[float, Entry, Entry]]:
    """The pairs whose fingerprint estimate could reach the threshold, most promising first."""
    found = []
    for a, b in pairs:
        guess = estimate(a, b, min_tokens)
        if guess is not None and guess >= PREFILTER * threshold:
            found.append((guess, a, b))
    return sorted(found, key=lambda x: -x[0])


def _scored(
    candidates: list[tuple[float, Entry, Entry]], threshold: float, min_tokens: int, budget: float
) -> tuple[list[tuple[Entry, Entry, float, dict[str, float]]], int]:
    """Exact scores of the candidates at or above ``threshold`` while the time budget lasts; after
    it, a candidate keeps its fingerprint estimate (counted in the second value)."""
    end, out, estimated = time.monotonic() + budget, [], 0
    for guess, a, b in candidates:
        if time.monotonic() > end:
            estimated += 1
            scored = (guess, {t: guess for t in _shared(a, b, min_tokens)})
        else:
            scored = _pair(a, b, min_tokens)  # type: ignore[assignment]
        if scored and scored[0] >= threshold:
            out.append((a, b, *scored))
    return out, estimated


def compare_class(
    entries: list[Entry],
    references: list[Entry],
    threshold: float = 0.9,
    min_tokens: int = 25,
    budget: float = TIME_BUDGET,
) -> dict:
    """Pairs of submissions at or above ``threshold``, and submissions that match a reference.

    Every pair is first scored by fingerprints (linear in code size); only the pairs whose
    estimate reaches ``PREFILTER * threshold`` are compared exactly, most promising first, for
    at most ``budget`` seconds (the rest keep their estimate, and ``estimated`` says how many).
    Returns ``{"pairs": [...], "references": [...], "compared": n, ...}``, most similar first.

    Parameters
    ----------
    entries : list of Entry
        The class's submissions, each with the tokens of its graded functions.
    references : list of Entry
        The course's own code (solutions and library).
    threshold : float
        The similarity at which a pair is reported.
    min_tokens : int
        Functions shorter than this are not compared (a one-line answer is alike by necessity).
    budget : float
        Seconds for the exact comparisons.

    Returns
    -------
    dict
        ``pairs``, ``groups``, ``references``, ``compared``, ``estimated`` and ``threshold``.

    Examples
    --------
    >>> mine = "def f(xs, k):\\n    s = 0\\n    for x in xs[:k]:\\n        s += x\\n    return s / k"
    >>> copied = "def g(a, n):\\n    t = 0\\n    for i in a[:n]:\\n        t += i\\n    return t / n"
    >>> def entry(label, code):
    ...     return Entry(label, {"f": function_tokens(ast.parse(code).body[0])})
    >>> result = compare_class([entry("ann", mine), entry("bo", copied)], [], min_tokens=5)
    >>> [(p["a"], p["b"], p["score"]) for p in result["pairs"]]
    [('ann', 'bo', 1.0)]
    """
    class_pairs = list(itertools.combinations(entries, 2))
    ref_pairs = [(e, r) for e in entries for r in references]
    found, estimated = _scored(
        _candidates(ref_pairs + class_pairs, threshold, min_tokens), threshold, min_tokens, budget
    )
    refs = {id(r) for r in references}
    pairs: list[dict[str, Any]] = [
        {"a": a.label, "b": b.label, "score": score, "functions": per}
        for a, b, score, per in found
        if id(b) not in refs
    ]
    matches: list[dict[str, Any]] = [
        {"submission": a.label, "reference": b.label, "score": score, "functions": per}
        for a, b, score, per in found
        if id(b) in refs
    ]
    pairs.sort(key=lambda p: (-p["score"], p["a"], p["b"]))
    matches.sort(key=lambda p: (-p["score"], p["submission"], p["reference"]))
    return {
        "compared": len(entries),
        "threshold": threshold,
        "estimated": estimated,
        "groups": groups_of(pairs),
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
    """The course's own code for the targets: its solution notebook (or authored spec) and the library.

    Parameters
    ----------
    assignment_arg : str
        The ``--assignment`` value.
    targets : set of str
        The graded functions' names.

    Returns
    -------
    list of Entry
        The solution's code and the library's, when found.
    """

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
    """One submission's graded functions as tokens, or why it is not compared (the grader's bounds:
    the file's size, the code's size; then at most ``MAX_TOKENS`` tokens)."""

    try:
        sources = read_notebook(read_submission(path, limit))
    except NotebookError as exc:
        return f"{label}: {exc}"
    too_much = Limits().code_problem(sources)
    if too_much:
        return f"{label}: {too_much}"
    found = functions_in(sources, targets)
    size = sum(1 for node in found.values() for _ in ast.walk(node))  # counted before normalising
    if size > MAX_TOKENS:
        return (
            f"{label}: its graded functions hold {size} syntax-tree nodes (at most {MAX_TOKENS} are compared)"
        )
    return Entry(label, _tokens(found))


def _estimated_note(result: dict) -> list[str]:
    if not result.get("estimated"):
        return []
    return [
        f"The time budget ran out: {result['estimated']} pair(s) are scored by fingerprints only "
        "(run again with a larger --time-budget for exact scores).",
        "",
    ]


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
        *_estimated_note(result),
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
    """``python -m helpers.grade similarity --assignment A --out DIR SUBMISSIONS...``.

    Parameters
    ----------
    argv : list of str
        The arguments after ``similarity``.

    Returns
    -------
    int
        0 when the report was written (a usage error exits with status 2, through argparse).
    """

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
    parser.add_argument(
        "--time-budget",
        type=float,
        default=TIME_BUDGET,
        help="seconds of exact comparisons; later pairs keep their fingerprint score "
        f"(default {TIME_BUDGET:g})",
    )
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
    references = reference_code(args.assignment, targets)
    result = compare_class(entries, references, args.threshold, args.min_tokens, args.time_budget)
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
