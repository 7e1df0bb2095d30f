"""Grade a class's notebooks: ``python -m helpers.grade``.

Usage::

    python -m helpers.grade --assignment from-scratch --out grades/ submissions/
    python -m helpers.grade --assignment leave-one-out --out grades/ --jobs 2 --timeout 10 a.ipynb b.ipynb
    python -m helpers.grade --assignment build/my-hw.grader.py --roster roster.csv --out grades/ submissions/

Writes ``OUT/<submission>.json`` (per question: the points, every check passed
or failed with feedback naming the failing property, and the errors), then
``OUT/grades.csv`` (one row per submission: ``learner_id`` and ``name`` from
``--roster``, ``submission`` (the report's name), ``file`` (the original name,
escaped, NFC-normalised, look-alikes marked), ``status`` and ``reason``,
``isolation``, ``seed``, ``score``, ``max_score``, the points of each question,
named after its function or answer variable, and its result), one learner
feedback file ``OUT/feedback/<submission>.md`` and, with a roster,
``OUT/canvas.csv`` (see :mod:`helpers.grade.reports` and
:mod:`helpers.grade.exports`). The exit status is 0 whenever grading ran,
whatever the grades; 2 for a usage error (unknown assignment, no submissions)
or when the sandbox is not available.

Other commands: ``author`` (:mod:`helpers.grade.authoring`), ``gradescope``
(the ``run_autograder`` entry point: :func:`gradescope`) and ``similarity``
(:mod:`helpers.grade.similarity`).

How a submission is graded
--------------------------
1. The file is read here, only if it is a regular file (see
   :mod:`helpers.grade.files`), and parsed as JSON (never executed here).
   IPython magics and shell escapes (``%``, ``%%``, ``!``) are removed with a
   warning; cells with syntax errors are skipped with the error recorded.
2. The code runs in its own bubblewrap sandbox (:mod:`helpers.grade.isolation`,
   :mod:`helpers.grade.sandbox`), which calls each function on the public and
   hidden cases and sends back plain values. ``helpers`` is not in the
   sandbox, except for the assignment whose point is using it.
3. Here, each value is judged by :mod:`helpers.checking.values` against the
   ``helpers`` reference, and points are given by the rules of
   :mod:`helpers.grade.scoring`. Anything that did not report (timeout,
   crash, missing function, wrong signature, non-numeric or NaN result)
   fails closed: zero points, with the reason.

The hidden cases come from a seed drawn afresh for every run (``--seed``
reproduces a run; the seed is in every report and in ``grades.csv``).
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import re
import secrets
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from . import authoring, collect, exports, gradescope_package, isolation, reports, scoring, similarity
from .assignments import ASSIGNMENTS
from .files import NotebookError, display_name, read_submission, report_names, write_atomic
from .isolation import Runtime, SandboxUnavailable
from .sandbox import Limits, SandboxResult, run_submission
from .spec import Assignment, build_cases

__all__ = ["grade_submission", "grade_many", "prepare_notebook", "read_notebook", "make_plan", "main"]

_MAGIC = re.compile(r"^\s*(%|!)")


# ------------------------------------------------------------------ notebook → cells
def _cell_source(cell: dict) -> str:
    src = cell.get("source", "")
    if isinstance(src, list) and all(isinstance(x, str) for x in src):
        return "".join(src)
    if not isinstance(src, str):
        raise NotebookError("a cell's source is not text")
    return src


def read_notebook(raw: bytes) -> list[str]:
    """The code cells of a notebook file's bytes, as strings.

    Raises
    ------
    NotebookError
        For bytes that are not a readable Jupyter notebook (format 4).
    """
    try:
        nb = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise NotebookError("the file is not text (UTF-8): is it really a .ipynb notebook?") from None
    except (ValueError, RecursionError) as exc:
        raise NotebookError(
            f"the file is not valid JSON ({str(exc)[:80]}); save the notebook from Jupyter again"
        ) from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        if isinstance(nb, dict) and "worksheets" in nb:
            raise NotebookError(
                "old notebook format 3; open and save it in JupyterLab to convert it to format 4"
            )
        raise NotebookError("the JSON is not a Jupyter notebook (no 'cells' list)")
    return [_cell_source(c) for c in nb["cells"] if isinstance(c, dict) and c.get("cell_type") == "code"]


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


def prepare_notebook(
    sources: list[str],
) -> tuple[list[dict], list[str], list[dict], list[tuple[int, ast.Module]]]:
    """Strip magics, parse and split cells into top-level statements.

    Returns ``(cells for the sandbox, warnings, syntax errors, parsed trees)``.

    Examples
    --------
    >>> sources = ["%timeit 1\\nx = 1; y = 2\\ndef f():\\n    return x", "def ("]
    >>> cells, warnings, errors, _ = prepare_notebook(sources)
    >>> [s["line"] for s in cells[0]["statements"]], warnings, errors[0]["cell"]
    ([2, 3], ["cell 1: removed IPython magic/shell line '%timeit 1'"], 2)
    """
    cells, warnings, errors, trees = [], [], [], []
    for index, src in enumerate(sources, start=1):
        kept = _strip_magics(index, src, warnings)
        if kept is None:
            continue
        try:
            tree = ast.parse("\n".join(kept), filename=f"<cell {index}>")
        except (SyntaxError, ValueError) as exc:
            msg = getattr(exc, "msg", str(exc))
            errors.append(
                {
                    "cell": index,
                    "line": getattr(exc, "lineno", None),
                    "error": f"{type(exc).__name__}: {msg} (cell skipped)",
                }
            )
            continue
        if tree.body:
            trees.append((index, tree))
            cells.append({"index": index, "statements": _statements(tree, kept)})
    return cells, warnings, errors, trees


def _helpers_names(trees: list[tuple[int, ast.Module]]) -> set[str]:
    """Names the notebook binds by importing ``helpers`` at the top level (they fail where it is absent)."""
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


# ------------------------------------------------------------------ plan
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
class Plan:
    """Cases and expected values of one assignment, computed once per run (outside every sandbox)."""

    assignment: Assignment
    seed: int
    cases: dict[str, list[tuple[str, tuple]]]
    expected: dict[str, list[Any]]
    encoded: dict[str, list[list]]


def make_plan(assignment: Assignment, seed: int) -> Plan:
    """Build every case from ``seed`` and compute the expected values with the reference."""
    cases, expected, encoded = {}, {}, {}
    for q in assignment.questions:
        built = build_cases(assignment, q, seed)
        cases[q.name] = built
        if q.kind == "value":
            expected[q.name] = [q.reference(seed)]  # an answer variable's data change with the run
            encoded[q.name] = []
        else:
            expected[q.name] = [q.reference(*copy.deepcopy(args)) for _, args in built]
            encoded[q.name] = [[_encode(a) for a in args] for _, args in built]
    return Plan(assignment, seed, cases, expected, encoded)


# ------------------------------------------------------------------ one submission
def _new_report(plan: Plan, runtime: Runtime, name: str, path: Path) -> dict:
    a = plan.assignment
    return {
        "submission": name,
        "file": display_name(path),
        "assignment": a.name,
        "seed": plan.seed,
        "isolation": runtime.mode,
        "score": 0.0,
        "max_score": a.max_score,
        "questions": [],
        "warnings": [],
        "cell_errors": [],
    }


def _self_check_imports(trees: list[tuple[int, ast.Module]]) -> tuple[set[tuple[int, int]], set[str]]:
    """The ``(cell, line)`` of imports of the learner's self-check (``helpers.grade...``: absent while
    graded, by design) and the names only they bind: their failures are expected, never reported."""
    lines, names, other = set(), set(), set()
    for index, tree in trees:
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("helpers.grade"):
                lines.add((index, node.lineno))
                names |= {a.asname or a.name for a in node.names}
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                other |= {a.asname or a.name.split(".")[0] for a in node.names}
    return lines, names - other


def _merge_run(
    report: dict,
    raw: SandboxResult,
    helpers_names: set[str],
    allow_helpers: bool,
    self_check: tuple[set[tuple[int, int]], set[str]] = (set(), set()),
) -> None:
    """Cell errors, warnings and output of the sandbox run into the report."""
    folded = False
    for err in raw.cell_errors:
        text = err["error"]
        missing = re.match(r"NameError: name '(\w+)' is not defined", text)
        if (err.get("cell"), err.get("line")) in self_check[0] or (
            missing and missing.group(1) in self_check[1]
        ):
            continue  # the self-check's import and calls: absent while graded, as the notebook says
        if not allow_helpers and (
            text.startswith("ModuleNotFoundError: No module named 'helpers")
            or (missing and missing.group(1) in helpers_names)
        ):
            folded = True
            continue
        report["cell_errors"].append(err)
    if folded:
        report["warnings"].append(
            "helpers is not available while grading this assignment: the cells that "
            "import or use it failed (write the functions yourself)"
        )
    report["warnings"].extend(raw.warnings[:20])
    if raw.output.strip():
        report["output"] = raw.output[:2000]


def _grade(report: dict, path: Path, plan: Plan, runtime: Runtime, limits: Limits) -> None:
    a = plan.assignment
    sources = read_notebook(read_submission(path, limits.notebook_bytes))
    too_much = limits.code_problem(sources)
    if too_much:
        raise NotebookError(too_much)
    cells, warnings, syntax_errors, trees = prepare_notebook(sources)
    report["warnings"].extend(warnings)
    report["cell_errors"].extend(syntax_errors)
    if not any(s.strip() for s in sources):
        raise NotebookError("the notebook has no code", "empty notebook")
    jobs = [
        {"name": q.name, "kind": q.kind, "target": q.target, "cases": plan.encoded[q.name]}
        for q in a.questions
    ]
    raw = run_submission(cells, jobs, runtime, limits, seed=plan.seed)
    _merge_run(report, raw, _helpers_names(trees), a.allow_helpers, _self_check_imports(trees))
    for q in a.questions:
        result = raw.questions.get(q.name, {"failure": "no result"})
        report["questions"].append(
            scoring.score_question(q, plan.cases[q.name], plan.expected[q.name], result)
        )


def grade_submission(
    path: Path, plan: Plan, runtime: Runtime, limits: Limits | None = None, name: str | None = None
) -> dict:
    """Grade one notebook. Never raises for a bad submission: every failure is a zero with a reason."""
    limits = limits or Limits()
    report = _new_report(plan, runtime, name or path.stem, path)
    started = time.monotonic()
    questions = plan.assignment.questions
    try:
        _grade(report, path, plan, runtime, limits)
    except NotebookError as exc:
        report["error"] = str(exc)
        report["status"] = exc.status
        report["questions"] = [
            scoring.fail_question(q, f"not graded: {exc}", "not graded") for q in questions
        ]
    except Exception as exc:
        report["error"] = f"internal grading error: {type(exc).__name__}: {str(exc)[:300]}"
        report["questions"] = [scoring.fail_question(q, report["error"], "not graded") for q in questions]
    report["score"] = round(sum(q["points"] for q in report["questions"]), 2)
    report["seconds"] = round(time.monotonic() - started, 2)
    report["status"], report["reason"] = reports.submission_status(report)
    return report


# ------------------------------------------------------------------ batch
def _report_bytes(report: dict) -> bytes:
    return (json.dumps(report, indent=1, ensure_ascii=False) + "\n").encode("utf-8", "backslashreplace")


def _safe_grade(path: Path, plan: Plan, runtime: Runtime, limits: Limits, name: str) -> dict:
    try:
        return grade_submission(path, plan, runtime, limits, name)
    except BaseException as exc:
        report = _new_report(plan, runtime, name, path)
        report["error"] = f"internal grading error: {type(exc).__name__}"
        report["questions"] = [
            scoring.fail_question(q, report["error"], "not graded") for q in plan.assignment.questions
        ]
        report["seconds"] = 0.0
        report["status"], report["reason"] = "internal error", report["error"]
        return report


def _progress_line(n: int, total: int, report: dict) -> str:
    width = len(str(total))
    note = f"  ({report['status']}: {report['reason']})" if report.get("reason") else ""
    return (
        f"[{n:>{width}}/{total}] {report['submission']}: {report['score']:g}/{report['max_score']:g}"
        f" in {report['seconds']:.1f} s{note}"
    )


def grade_many(
    paths: list[Path],
    assignment: Assignment,
    out: Path,
    *,
    jobs: int = 1,
    seed: int | None = None,
    limits: Limits | None = None,
    mode: str = isolation.BUBBLEWRAP,
    progress: Any = sys.stderr,
    roster: reports.Roster | None = None,
) -> list[dict]:
    """Grade ``paths`` in parallel; write ``out/<name>.json`` as each finishes, then the class's files.

    The class's files (:func:`write_class_files`): ``out/grades.csv``, ``out/feedback/<name>.md``
    and, with a ``roster``, ``out/canvas.csv``.

    Parameters
    ----------
    seed : int, optional
        Seed of the hidden cases; a fresh one (``secrets.randbits(32)``) when omitted.
    mode : {"bubblewrap", "unsafe-no-sandbox"}
        The isolation; ``unsafe-no-sandbox`` only for a class you trust.
    roster : Roster, optional
        Who handed in which file (:class:`helpers.grade.reports.Roster`).

    Raises
    ------
    SandboxUnavailable
        In bubblewrap mode, when bubblewrap is missing or cannot start a sandbox here.
    """
    seed = secrets.randbits(32) if seed is None else int(seed)
    limits = limits or Limits()
    out.mkdir(parents=True, exist_ok=True)
    plan = make_plan(assignment, seed)
    names = report_names(paths)
    done: list[dict] = [{} for _ in paths]
    started = time.monotonic()
    with (
        isolation.prepare(mode, assignment.sandbox_packages) as runtime,
        ThreadPoolExecutor(max_workers=max(1, jobs)) as pool,
    ):
        if progress is not None and runtime.mode == isolation.BUBBLEWRAP:
            print(f"limits per submission: {runtime.resources}", file=progress, flush=True)
        futures = {
            pool.submit(_safe_grade, p, plan, runtime, limits, names[i]): i for i, p in enumerate(paths)
        }
        for n, fut in enumerate(as_completed(futures), start=1):
            rep = done[futures[fut]] = fut.result()
            write_atomic(out, f"{rep['submission']}.json", _report_bytes(rep))
            if progress is not None:
                print(_progress_line(n, len(paths), rep), file=progress, flush=True)
    write_class_files(out, assignment, paths, done, roster)
    if progress is not None:
        elapsed = time.monotonic() - started
        rate = len(paths) / elapsed if elapsed > 0 else float("inf")
        print(
            f"graded {len(paths)} submission(s) in {elapsed:.1f} s ({rate:.2f}/s), isolation {runtime.mode}, "
            f"seed {seed}; wrote {out / 'grades.csv'}",
            file=progress,
            flush=True,
        )
    return done


def write_class_files(
    out: Path, assignment: Assignment, paths: list[Path], done: list[dict], roster: reports.Roster | None
) -> None:
    """``grades.csv``, a Markdown feedback file per submission and, with a roster, ``canvas.csv``."""
    learners = roster.assign(paths) if roster else [None] * len(paths)
    absent = reports.missing_rows(roster, learners)
    targets = [q.target for q in assignment.questions]
    write_atomic(out, "grades.csv", reports.grades_csv(targets, done, learners, absent, assignment.max_score))
    feedback = out / "feedback"
    feedback.mkdir(exist_ok=True)
    shown = reports.display_names([r["file"] for r in done])
    for rep, learner, file in zip(done, learners, shown, strict=True):
        text = reports.feedback_markdown(rep, learner, file, assignment.title)
        write_atomic(feedback, f"{rep['submission']}.md", text.encode("utf-8", "backslashreplace"))
    if roster is not None:
        graded = [(learner, rep["score"]) for rep, learner in zip(done, learners, strict=True)]
        write_atomic(
            out, "canvas.csv", exports.canvas_csv(assignment.title, assignment.max_score, graded, absent)
        )


# ------------------------------------------------------------------ CLI
def _add_limit_options(parser: argparse.ArgumentParser) -> None:
    """One option per flagged field of :class:`Limits`: its default and help come from the field."""
    for f in fields(Limits):
        if f.metadata.get("flag"):
            parser.add_argument(
                f.metadata["flag"],
                dest=f.name,
                type=type(f.default),
                default=f.default,
                help=f"{f.metadata['help']} (default {f.default:g})",
            )


def add_assignment_option(parser: argparse.ArgumentParser) -> None:
    """``--assignment``: a built-in name or the path of an authored spec (written by ``author``)."""
    parser.add_argument(
        "--assignment",
        required=True,
        help=f"a built-in assignment ({', '.join(sorted(ASSIGNMENTS))}) or the path of an authored "
        "spec (*.grader.py, written by `python -m helpers.grade author`)",
    )


def resolve_assignment(parser: argparse.ArgumentParser, value: str) -> Assignment:
    """The assignment named by ``--assignment``; a usage error (exit 2) with the fix otherwise."""
    if value in ASSIGNMENTS:
        return ASSIGNMENTS[value]
    if not value.endswith(".py"):
        parser.error(
            f"unknown assignment {value!r}: choose from {', '.join(sorted(ASSIGNMENTS))} or give the path "
            "of an authored spec (*.grader.py)"
        )
    try:
        return authoring.load_spec(Path(value))
    except authoring.AuthoringError as exc:
        parser.error(str(exc))
    raise AssertionError("not reached")


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    add_assignment_option(parser)
    _add_limit_options(parser)
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed of the hidden cases (default: a fresh random one, written into every report)",
    )
    parser.add_argument(
        "--unsafe-no-sandbox",
        action="store_true",
        help="grade WITHOUT isolation (plain processes with limits): only for a class you trust; "
        "the mode is written into every report and grades.csv",
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m helpers.grade",
        description="Grade learners' notebooks for one assignment, each in its own bubblewrap sandbox; "
        "writes OUT/grades.csv, OUT/<submission>.json, OUT/feedback/<submission>.md and, with --roster, "
        "OUT/canvas.csv. Other commands: `author` (write an assignment), `gradescope` (Gradescope's "
        "run_autograder entry point), `similarity` (similar code across a class); each has --help.",
    )
    _add_run_options(parser)
    parser.add_argument("--out", required=True, help="output folder (created if needed)")
    parser.add_argument("--jobs", type=int, default=1, help="submissions graded in parallel (default 1)")
    parser.add_argument(
        "--roster",
        help="CSV with the columns file (name or glob pattern), id, name, and optionally section, login, "
        "canvas_id: learner ids in grades.csv and the feedback, and OUT/canvas.csv",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    parser.add_argument("submissions", nargs="+", help="notebooks (.ipynb) or folders of notebooks")
    return parser


def _limits(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Limits:
    try:
        return Limits(**{f.name: getattr(args, f.name) for f in fields(Limits) if f.metadata.get("flag")})
    except ValueError as exc:
        parser.error(str(exc))
    raise AssertionError("not reached")


def _mode(args: argparse.Namespace) -> str:
    mode = isolation.UNSAFE if args.unsafe_no_sandbox else isolation.BUBBLEWRAP
    if mode == isolation.UNSAFE and not getattr(args, "quiet", False):
        print(
            "WARNING: --unsafe-no-sandbox: learner code runs WITHOUT isolation (only for a class you trust)",
            file=sys.stderr,
        )
    return mode


def _no_sandbox(exc: SandboxUnavailable) -> int:
    print(
        f"python -m helpers.grade: cannot isolate the submissions: {exc}.\n{exc.fix}",
        file=sys.stderr,
    )
    return 2


def _roster(parser: argparse.ArgumentParser, path: str | None) -> reports.Roster | None:
    if path is None:
        return None
    try:
        return reports.Roster.read(path)
    except reports.RosterError as exc:
        parser.error(str(exc))
    raise AssertionError("not reached")


def _grade_class(argv: list[str]) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    assignment = resolve_assignment(parser, args.assignment)
    limits = _limits(parser, args)
    if args.jobs < 1:
        parser.error("--jobs must be >= 1")
    roster = _roster(parser, args.roster)
    workdir = tempfile.TemporaryDirectory(prefix="helpers-grade-collect-")
    with workdir:
        collection = _collect(parser, args.submissions, roster, Path(workdir.name))
        return _grade_collection(args, assignment, limits, roster, collection)


def _collect(
    parser: argparse.ArgumentParser, sources: list[str], roster: reports.Roster | None, workdir: Path
) -> collect.Collection:
    """The command line's paths as a :class:`~helpers.grade.collect.Collection`; what is not graded is
    printed for the instructor (g2: collection; g1 stores it in the gradebook)."""
    missing = [p for p in sources if not (Path(p).exists() or Path(p).is_symlink())]
    if missing:
        parser.error(f"no such file or folder: {', '.join(display_name(p) for p in missing[:5])}")
    found = collect.collect([Path(p) for p in sources], roster, workdir)
    for line in collect.instructor_lines(found):
        print(line, file=sys.stderr)
    if not found.submissions and not found.unassigned:
        parser.error("no .ipynb submissions found in the given folder(s) (or none could be assigned)")
    return found


def _grade_collection(args, assignment, limits, roster, collection) -> int:
    # unassigned files are graded too, on rows with no learner (never in canvas.csv), so the
    # instructor can look at them
    paths = [s.path for s in [*collection.submissions, *collection.unassigned]]
    if roster is not None:
        roster = collect.assigned_roster(roster, collection)
    try:
        grade_many(
            paths,
            assignment,
            Path(args.out),
            jobs=args.jobs,
            seed=args.seed,
            limits=limits,
            mode=_mode(args),
            progress=None if args.quiet else sys.stderr,
            roster=roster,
        )
    except SandboxUnavailable as exc:
        return _no_sandbox(exc)
    return 0


# ------------------------------------------------------------------ gradescope
def _gradescope_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m helpers.grade gradescope",
        description="Gradescope's run_autograder entry point: grade the one notebook of a submission folder "
        "in the same sandbox and write Gradescope's results.json.",
    )
    _add_run_options(parser)
    parser.add_argument(
        "--submission", default=exports.SUBMISSION_DIR, help=f"default {exports.SUBMISSION_DIR}"
    )
    parser.add_argument("--results", default=exports.RESULTS_FILE, help=f"default {exports.RESULTS_FILE}")
    parser.add_argument(
        "--write-run-autograder",
        metavar="PATH",
        help="only write Gradescope's run_autograder script for this assignment to PATH",
    )
    return parser


def _unsubmitted(plan: Plan, mode: str, reason: str) -> dict:
    a = plan.assignment
    report = {
        "submission": "submission",
        "file": "",
        "assignment": a.name,
        "seed": plan.seed,
        "isolation": mode,
        "score": 0.0,
        "max_score": a.max_score,
        "questions": [scoring.fail_question(q, f"not graded: {reason}", "not graded") for q in a.questions],
        "warnings": [],
        "cell_errors": [],
        "error": reason,
        "status": "no submission",
        "reason": reason,
    }
    return report


def gradescope(argv: list[str]) -> int:
    """``python -m helpers.grade gradescope``: grade one Gradescope submission, write ``results.json``."""
    parser = _gradescope_parser()
    args = parser.parse_args(argv)
    assignment = resolve_assignment(parser, args.assignment)
    if args.write_run_autograder:
        path = Path(args.write_run_autograder)
        path.write_text(exports.run_autograder_script(args.assignment), encoding="utf-8")
        path.chmod(0o755)
        return 0
    limits, mode = _limits(parser, args), _mode(args)
    plan = make_plan(assignment, secrets.randbits(32) if args.seed is None else args.seed)
    notebook, problem = exports.find_notebook(Path(args.submission), assignment.name)
    try:
        with isolation.prepare(mode, assignment.sandbox_packages) as runtime:
            if notebook is None:
                report = _unsubmitted(plan, runtime.mode, problem)
            else:
                report = _safe_grade(notebook, plan, runtime, limits, "submission")
    except SandboxUnavailable as exc:
        return _no_sandbox(exc)
    results = Path(args.results)
    results.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps(exports.gradescope_results(report, assignment.title), indent=1, ensure_ascii=False)
    write_atomic(results.parent, results.name, (data + "\n").encode("utf-8", "backslashreplace"))
    print(
        f"wrote {results}: {report['score']:g}/{report['max_score']:g} ({report['status']})", file=sys.stderr
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    """The command line; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    commands = {
        "author": authoring.main,
        "gradescope": gradescope,
        "gradescope-package": gradescope_package.main,
        "similarity": similarity.main,
    }
    if argv and argv[0] in commands:
        return commands[argv[0]](argv[1:])
    return _grade_class(argv)


if __name__ == "__main__":
    raise SystemExit(main())
