"""Grade a class's notebooks: ``python -m helpers.grade``.

Usage::

    python -m helpers.grade --assignment from-scratch --out grades/ submissions/
    python -m helpers.grade --assignment leave-one-out --out grades/ --jobs 2 --timeout 10 a.ipynb b.ipynb

Writes ``OUT/grades.csv`` (one row per submission: ``submission``,
``score``, ``max_score`` and one column per question, named after the
function or answer variable) and ``OUT/<submission>.json`` (per question: the
points, every check passed or failed with feedback naming the failing
property, and the errors). The exit status is 0 whenever grading ran, whatever
the grades; 2 for a usage error (unknown assignment, no submissions).

How a submission is graded
--------------------------
1. The notebook is read here as JSON (never executed here). IPython magics
   and shell escapes (``%``, ``%%``, ``!``) are removed with a warning;
   cells with syntax errors are skipped with the error recorded.
2. An AST scan finds functions that use ``helpers`` (directly, through an
   alias, or through another of the learner's functions): such a question
   scores zero "uses helpers' reference implementation".
3. The remaining code runs in a separate, limited process
   (:mod:`helpers.grade.sandbox`) that calls each function on the public and
   hidden cases and sends back plain values.
4. Here, each value is checked strictly (a built-in number, finite, right
   type) and compared with the ``helpers`` reference with
   :func:`math.isclose`. A question's points are its maximum times the share
   of its checks that passed. Anything that did not report (timeout, crash,
   missing function, wrong signature, non-numeric or NaN result) fails
   closed: zero points, with the reason.
"""

from __future__ import annotations

import argparse
import ast
import copy
import csv
import json
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import sandbox as _sandbox
from .assignments import ASSIGNMENTS, DEFAULT_SEED, Assignment, Question, build_cases, compare, type_problem

__all__ = ["grade_submission", "grade_many", "prepare_notebook", "helpers_usage", "main"]

MAX_NOTEBOOK_BYTES = 5 * 1024 * 1024
_MAGIC = re.compile(r"^\s*(%|!)")
_HELPERS_NAME = re.compile(r"^\s*helpers(\.\w+)*\s*$")


class NotebookError(ValueError):
    """The file cannot be graded as a notebook (the reason is the message)."""


# ------------------------------------------------------------------ notebook → cells
def _cell_source(cell: dict) -> str:
    src = cell.get("source", "")
    if isinstance(src, list):
        if not all(isinstance(x, str) for x in src):
            raise NotebookError("a cell's source is not text")
        return "".join(src)
    if not isinstance(src, str):
        raise NotebookError("a cell's source is not text")
    return src


def read_notebook(path: Path) -> list[str]:
    """The code cells of a notebook file, as strings.

    Raises
    ------
    NotebookError
        For a file that is not a readable Jupyter notebook (format 4).
    """
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise NotebookError(f"cannot read the file: {exc.strerror or exc}") from None
    if len(raw) > MAX_NOTEBOOK_BYTES:
        raise NotebookError(f"the file is larger than {MAX_NOTEBOOK_BYTES // 2**20} MiB")
    try:
        nb = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise NotebookError("the file is not text (UTF-8): is it really a .ipynb notebook?") from None
    except ValueError as exc:
        raise NotebookError(f"the file is not valid JSON ({exc}); save the notebook from Jupyter again") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        if isinstance(nb, dict) and "worksheets" in nb:
            raise NotebookError("old notebook format 3; open and save it in JupyterLab to convert it to format 4")
        raise NotebookError("the JSON is not a Jupyter notebook (no 'cells' list)")
    cells = []
    for cell in nb["cells"]:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            cells.append(_cell_source(cell))
    return cells


def prepare_notebook(sources: list[str]) -> tuple[list[dict], list[str], list[dict], list[tuple[int, ast.Module]]]:
    """Strip magics, parse and split cells into top-level statements.

    Returns ``(cells for the sandbox, warnings, syntax errors, parsed trees)``.

    Examples
    --------
    >>> cells, warnings, errors, _ = prepare_notebook(["%timeit 1\\nx = 1; y = 2\\ndef f():\\n    return x", "def ("])
    >>> [s["line"] for s in cells[0]["statements"]], warnings, errors[0]["cell"]
    ([2, 3], ["cell 1: removed IPython magic/shell line '%timeit 1'"], 2)
    """
    cells, warnings, errors, trees = [], [], [], []
    for index, src in enumerate(sources, start=1):
        lines = src.splitlines()
        if lines and lines[0].lstrip().startswith("%%"):
            warnings.append(f"cell {index}: skipped a cell magic ({lines[0].strip()[:40]!r})")
            continue
        kept = []
        for line in lines:
            if _MAGIC.match(line):
                warnings.append(f"cell {index}: removed IPython magic/shell line {line.strip()[:60]!r}")
                kept.append("")
            else:
                kept.append(line)
        code = "\n".join(kept)
        try:
            tree = ast.parse(code, filename=f"<cell {index}>")
        except (SyntaxError, ValueError) as exc:
            line = getattr(exc, "lineno", None)
            msg = getattr(exc, "msg", str(exc))
            errors.append({"cell": index, "line": line, "error": f"{type(exc).__name__}: {msg} (cell skipped)"})
            continue
        if not tree.body:
            continue
        trees.append((index, tree))
        statements = []
        for node in tree.body:
            start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            end = node.end_lineno or start
            if statements and start <= statements[-1]["end"]:
                statements[-1]["end"] = max(end, statements[-1]["end"])
            else:
                statements.append({"line": start, "end": end})
        for st in statements:
            st["source"] = "\n".join(kept[st["line"] - 1 : st["end"]]) + "\n"
            del st["end"]
        cells.append({"index": index, "statements": statements})
    return cells, warnings, errors, trees


# ------------------------------------------------------------------ AST scan for helpers
def _mentions_helpers(node: ast.AST, aliases: set[str]) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and (sub.id == "helpers" or sub.id in aliases):
            return True
        if isinstance(sub, ast.Attribute) and sub.attr == "helpers":
            return True
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and _HELPERS_NAME.match(sub.value):
            return True  # e.g. importlib.import_module("helpers.metrics")
        if isinstance(sub, (ast.Import, ast.ImportFrom)):
            mods = [a.name for a in sub.names] if isinstance(sub, ast.Import) else [sub.module or ""]
            if any(m == "helpers" or m.startswith("helpers.") for m in mods):
                return True
    return False


def _helpers_aliases(trees: list[tuple[int, ast.Module]]) -> set[str]:
    """Names the notebook imports from ``helpers`` at the top level."""
    aliases = set()
    for _, tree in trees:
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                if any(m == "helpers" or m.startswith("helpers.") for m in mods):
                    aliases.update(a.asname or a.name.split(".")[0] for a in node.names)
    return aliases


def helpers_usage(trees: list[tuple[int, ast.Module]], targets: list[str]) -> dict[str, str]:
    """Which target names are (last) bound to code that uses ``helpers``.

    Follows the learner's own top-level functions, so a wrapper around a
    function that calls ``helpers`` is caught too.

    Examples
    --------
    >>> src = "import helpers as h\\ndef _p(r, s, k):\\n    return h.precision_at_k(r, s, k)\\n"
    >>> src += "def precision_at_k(r, s, k):\\n    return _p(r, s, k)\\ndef hit_at_k(r, s, k):\\n    return 1.0"
    >>> helpers_usage([(1, ast.parse(src))], ["precision_at_k", "hit_at_k"])
    {'precision_at_k': 'precision_at_k uses helpers (through _p)'}
    """
    aliases: set[str] = set()
    bindings: dict[str, ast.AST] = {}
    for _, tree in trees:
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                from_helpers = any(m == "helpers" or m.startswith("helpers.") for m in mods)
                for alias in node.names:
                    bound = alias.asname or alias.name.split(".")[0]
                    if from_helpers:
                        aliases.add(bound)
                    bindings[bound] = node
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bindings[node.name] = node
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                tgts = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in tgts:
                    for sub in ast.walk(t):
                        if isinstance(sub, ast.Name):
                            bindings[sub.id] = node

    memo: dict[str, str | None] = {}

    def taint(name: str, stack: tuple[str, ...]) -> str | None:
        if name in memo:
            return memo[name]
        if name in stack:
            return None
        node = bindings.get(name)
        if node is None:
            return None
        if _mentions_helpers(node, aliases):
            memo[name] = name
            return name
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and sub.id != name and sub.id in bindings:
                via = taint(sub.id, stack + (name,))
                if via:
                    memo[name] = sub.id
                    return sub.id
        memo[name] = None
        return None

    out = {}
    for target in targets:
        via = taint(target, ())
        if via:
            out[target] = f"{target} uses helpers" + ("" if via == target else f" (through {via})")
    return out


# ------------------------------------------------------------------ encoding & scoring
def _encode(arg: Any) -> Any:
    if isinstance(arg, set):
        return {"set": [_encode(x) for x in sorted(arg, key=repr)]}
    if isinstance(arg, tuple):
        return {"tuple": [_encode(x) for x in arg]}
    if isinstance(arg, dict):
        return {"dict": [[_encode(a), _encode(b)] for a, b in arg.items()]}
    if isinstance(arg, list):
        return [_encode(x) for x in arg]
    return arg


@dataclass
class _Plan:
    """Cases and expected values of one assignment, computed once per run."""

    assignment: Assignment
    seed: int
    cases: dict[str, list[tuple[str, tuple]]]
    expected: dict[str, list[Any]]
    encoded: dict[str, list[list]]


def make_plan(assignment: Assignment, seed: int = DEFAULT_SEED) -> _Plan:
    cases, expected, encoded = {}, {}, {}
    for q in assignment.questions:
        cs = build_cases(assignment, q, seed)
        cases[q.name] = cs
        if q.kind == "value":
            expected[q.name] = [q.reference()]
            encoded[q.name] = []
        else:
            expected[q.name] = [q.reference(*copy.deepcopy(args)) for _, args in cs]
            encoded[q.name] = [[_encode(a) for a in args] for _, args in cs]
    return _Plan(assignment, seed, cases, expected, encoded)


def _fail_question(q: Question, reason: str, status: str) -> dict:
    checks = [{"name": c.name, "hidden": c.hidden, "passed": False, "feedback": reason} for c in q.checks]
    if q.type_check:
        checks.append({"name": q.type_check, "hidden": False, "passed": False, "feedback": reason})
    return {
        "question": q.name, "target": q.target, "title": q.title, "points": 0.0, "max_points": q.points,
        "status": status, "reason": reason, "checks": checks, "errors": [],
    }


def _score_question(q: Question, plan: _Plan, raw: dict) -> dict:
    if "failure" in raw:
        return _fail_question(q, f"did not report: {raw['failure']}", "no report")
    if raw.get("missing"):
        kind = "function" if q.kind == "function" else "answer variable"
        return _fail_question(q, f"{kind} {q.target} is not defined in the notebook", "missing")
    if raw.get("not_callable"):
        return _fail_question(q, f"{q.target} is a {raw['not_callable']}, not a function", "not a function")
    if raw.get("helpers"):
        return _fail_question(q, "tried to import or read helpers while running: helpers' reference "
                                 "implementation may not be used for this question", "uses helpers")
    results = raw.get("cases", [])
    cases = plan.cases[q.name]
    expected = plan.expected[q.name]
    if q.kind == "value":
        cases = [("answer", ())]
    if len(results) != len(cases):
        return _fail_question(q, "did not report a result for every case", "no report")

    errors: dict[str, int] = {}
    by_check: dict[str, list[str | None]] = {}
    type_failures: list[str] = []
    not_attempted = 0
    for (chk, args), res, exp in zip(cases, results, expected):
        if not isinstance(res, dict):
            problem = "unreadable result"
        elif "error" in res:
            text = str(res["error"])[:300]
            if text.startswith("NotImplementedError"):
                not_attempted += 1
            errors[text] = errors.get(text, 0) + 1
            problem = f"raised {text.split(':')[0]}"
        else:
            ok, value, type_name = _sandbox.decode(res.get("value"))
            if not ok:
                if type_name == "builtins.ellipsis":
                    not_attempted += 1
                    problem = "not answered (still ...)"
                else:
                    problem = f"returned a {type_name}, not a plain value" + (
                        ": return a built-in float, e.g. float(x)" if q.result in ("unit", "nonneg", "number") else "")
                type_failures.append(problem)
            else:
                problem = compare(q, value, exp)
                if q.type_check:
                    tp = type_problem(q, value)
                    if tp:
                        type_failures.append(tp)
        if problem and not type_failures and q.type_check and (not isinstance(res, dict) or "error" in res):
            type_failures.append(f"{problem} instead of returning a value")
        by_check.setdefault(chk, []).append(problem)

    checks = []
    for c in q.checks:
        problems = by_check.get(c.name, [])
        bad = [p for p in problems if p]
        if not bad:
            feedback = f"passed ({len(problems)} case{'s' if len(problems) != 1 else ''})"
        else:
            counts: dict[str, int] = {}
            for p in bad:
                counts[p] = counts.get(p, 0) + 1
            common = max(counts, key=counts.get)
            feedback = f"failed on {len(bad)} of {len(problems)} cases ({c.name}); e.g. {common}"
        checks.append({"name": c.name, "hidden": c.hidden, "passed": not bad, "feedback": feedback})
    if q.type_check:
        feedback = "passed" if not type_failures else f"failed: {type_failures[0]}"
        checks.append({"name": q.type_check, "hidden": False, "passed": not type_failures, "feedback": feedback})
    passed = sum(c["passed"] for c in checks)
    points = round(q.points * passed / len(checks), 2) if checks else 0.0
    status = "ok" if passed == len(checks) else "partial" if passed else "failed"
    if not_attempted == len(cases):
        status = "not attempted"
    error_list = [f"{text} ({n} case{'s' if n != 1 else ''})" for text, n in sorted(errors.items(), key=lambda x: -x[1])][:5]
    if errors and len(errors) == 1 and sum(errors.values()) == len(cases):
        text = next(iter(errors))
        if text.startswith("TypeError") and ("argument" in text or "positional" in text):
            error_list.insert(0, f"wrong signature: {q.target} must accept the arguments shown in the notebook")
    return {
        "question": q.name, "target": q.target, "title": q.title, "points": points, "max_points": q.points,
        "status": status, "checks": checks, "errors": error_list,
    }


def grade_submission(path: Path, plan: _Plan, limits: _sandbox.Limits = _sandbox.Limits()) -> dict:
    """Grade one notebook. Never raises for a bad submission: every failure is a zero with a reason."""
    a = plan.assignment
    report: dict[str, Any] = {
        "submission": path.name, "assignment": a.name, "seed": plan.seed,
        "score": 0.0, "max_score": a.max_score, "questions": [], "warnings": [], "cell_errors": [],
    }
    started = time.monotonic()
    try:
        sources = read_notebook(path)
        cells, warnings, syntax_errors, trees = prepare_notebook(sources)
        report["warnings"].extend(warnings)
        report["cell_errors"].extend(syntax_errors)
        if not any(s.strip() for s in sources):
            raise NotebookError("the notebook has no code")
        usage = {} if a.allow_helpers else helpers_usage(trees, [q.target for q in a.questions])
        to_run = [q for q in a.questions if q.target not in usage]
        jobs = [
            {"name": q.name, "kind": q.kind, "target": q.target, "cases": plan.encoded[q.name]} for q in to_run
        ]
        raw = _sandbox.run_submission(cells, jobs, allow_helpers=a.allow_helpers, limits=limits) if jobs else None
        if raw is not None:
            aliases = _helpers_aliases(trees)
            for err in raw.cell_errors:
                text = str(err.get("error", ""))
                m = re.match(r"NameError: name '(\w+)' is not defined", text)
                if not a.allow_helpers and (text.startswith("ImportError: the grader does not allow")
                                            or (m and m.group(1) in aliases)):
                    continue  # consequences of the blocked helpers import, reported once below
                report["cell_errors"].append(err)
            report["warnings"].extend(raw.warnings)
            if raw.output.strip():
                report["output"] = raw.output[:2000]
        for q in a.questions:
            if q.target in usage:
                report["questions"].append(_fail_question(
                    q, f"{usage[q.target]}: helpers' reference implementation may not be used here; "
                       "write the function yourself", "uses helpers"))
            else:
                report["questions"].append(_score_question(q, plan, raw.questions.get(q.name, {"failure": "no result"})))
    except NotebookError as exc:
        report["error"] = str(exc)
        report["questions"] = [_fail_question(q, f"not graded: {exc}", "not graded") for q in a.questions]
    except Exception as exc:  # noqa: BLE001 - one bad submission never stops the batch
        report["error"] = f"internal grading error: {type(exc).__name__}: {exc}"
        report["questions"] = [_fail_question(q, report["error"], "not graded") for q in a.questions]
    report["score"] = round(sum(q["points"] for q in report["questions"]), 2)
    report["seconds"] = round(time.monotonic() - started, 2)
    return report


# ------------------------------------------------------------------ batch & CLI
def collect(paths: list[str]) -> list[Path]:
    """Expand folders to their ``*.ipynb`` files (sorted); keep files as given."""
    out = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            out.extend(sorted(x for x in path.iterdir() if x.is_file() and x.suffix == ".ipynb"))
        else:
            out.append(path)
    return out


def _report_names(paths: list[Path]) -> list[str]:
    names, seen = [], {}
    for p in paths:
        stem = p.stem if p.suffix == ".ipynb" else p.name
        stem = re.sub(r"[^A-Za-z0-9._-]+", "_", stem) or "submission"
        n = seen.get(stem, 0) + 1
        seen[stem] = n
        names.append(stem if n == 1 else f"{stem}-{n}")
    return names


def _write_outputs(out: Path, assignment: Assignment, names: list[str], reports: list[dict]) -> None:
    columns = ["submission", "score", "max_score"] + [q.target for q in assignment.questions]
    with open(out / "grades.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(columns)
        for name, rep in zip(names, reports):
            points = {q["target"]: q["points"] for q in rep["questions"]}
            writer.writerow([name, f"{rep['score']:g}", f"{rep['max_score']:g}"]
                            + [f"{points.get(q.target, 0.0):g}" for q in assignment.questions])
    for name, rep in zip(names, reports):
        (out / f"{name}.json").write_text(json.dumps(rep, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def grade_many(
    paths: list[Path], assignment: Assignment, out: Path, *, jobs: int = 1, seed: int = DEFAULT_SEED,
    limits: _sandbox.Limits = _sandbox.Limits(), progress: Any = sys.stderr,
) -> list[dict]:
    """Grade ``paths`` in parallel and write ``out/grades.csv`` and ``out/<name>.json``.

    Progress (one line per finished submission) goes to ``progress``.
    """
    out.mkdir(parents=True, exist_ok=True)
    plan = make_plan(assignment, seed)
    names = _report_names(paths)
    reports: list[dict] = [{}] * len(paths)
    started = time.monotonic()
    width = len(str(len(paths)))
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(grade_submission, p, plan, limits): i for i, p in enumerate(paths)}
        for n, fut in enumerate(as_completed(futures), start=1):
            i = futures[fut]
            rep = fut.result()
            rep["submission"] = names[i]
            rep["file"] = paths[i].name
            reports[i] = rep
            if progress is not None:
                note = f"  ({rep['error']})" if rep.get("error") else ""
                print(f"[{n:>{width}}/{len(paths)}] {names[i]}: {rep['score']:g}/{rep['max_score']:g}"
                      f" in {rep['seconds']:.1f} s{note}", file=progress, flush=True)
    _write_outputs(out, assignment, names, reports)
    elapsed = time.monotonic() - started
    if progress is not None:
        rate = len(paths) / elapsed if elapsed > 0 else float("inf")
        print(f"graded {len(paths)} submission(s) in {elapsed:.1f} s ({rate:.2f}/s); wrote {out / 'grades.csv'}",
              file=progress, flush=True)
    return reports


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m helpers.grade",
        description="Grade learners' notebooks for one assignment; writes OUT/grades.csv and OUT/<submission>.json.",
    )
    parser.add_argument("--assignment", required=True, choices=sorted(ASSIGNMENTS), help="assignment name")
    parser.add_argument("--out", required=True, help="output folder (created if needed)")
    parser.add_argument("--timeout", type=float, default=10.0,
                        help="wall-clock seconds for running the notebook and again for each question (default 10)")
    parser.add_argument("--jobs", type=int, default=1, help="submissions graded in parallel (default 1)")
    parser.add_argument("--memory-mb", type=int, default=1024, help="address-space limit per submission (default 1024)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of the hidden randomized cases")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    parser.add_argument("submissions", nargs="+", help="notebooks (.ipynb) or folders of notebooks")
    args = parser.parse_args(argv)
    if args.timeout <= 0 or args.jobs < 1 or args.memory_mb < 64:
        parser.error("--timeout must be > 0, --jobs >= 1 and --memory-mb >= 64")
    paths = collect(args.submissions)
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        parser.error(f"no such file or folder: {', '.join(missing[:5])}")
    if not paths:
        parser.error("no .ipynb submissions found in the given folder(s)")
    limits = _sandbox.Limits(timeout=args.timeout, memory_mb=args.memory_mb)
    grade_many(paths, ASSIGNMENTS[args.assignment], Path(args.out), jobs=args.jobs, seed=args.seed,
               limits=limits, progress=None if args.quiet else sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
