"""Grade a class's notebooks: ``python -m helpers.grade``.

Usage::

    python -m helpers.grade --assignment from-scratch --out grades/ submissions/
    python -m helpers.grade --assignment leave-one-out --out grades/ --jobs 2 --timeout 10 a.ipynb b.ipynb
    python -m helpers.grade --assignment build/my-hw.grader.py --roster roster.csv --out grades/ submissions/
    python -m helpers.grade --assignment from-scratch --out grades/ --deadline 2026-03-01T23:59:00Z \
        --grace 15m --late-penalty 10 --late-cap 30 late/bo.ipynb

Every run adds to the gradebook ``OUT/gradebook.sqlite`` (:mod:`helpers.grade.gradebook`), one
committed transaction per graded submission, and the class's files are then written from it
(:func:`helpers.grade.exports.write_class_files`): the current result of every learner, so a late
file or a regrade merges into the class. A rerun keeps what is already graded with the same file
and seed (``--regrade`` grades it again); Ctrl-C and SIGTERM stop the run after recording what was
graded (exit 130/143); a gradebook that cannot be written stops it (exit 1), losing nothing graded.

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
(the ``run_autograder`` entry point: :func:`gradescope`), ``similarity``
(:mod:`helpers.grade.similarity`), ``history OUT`` (every grading in the gradebook:
:func:`history_main`), ``export OUT`` (the class's files again from the gradebook:
:func:`export_main`) and ``review OUT`` (score hand-graded answers: :mod:`helpers.grade.review`).

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

The hidden cases come from the gradebook's seed, drawn at its first run and kept (``--new-seed``
draws another, recorded); the seed is in every report and in ``grades.csv``. Each learner's cases
and data are their own, drawn from that seed and their learner key (:func:`learner_seed`).
Hand-graded questions (``kind="text"``) are not run: their answer text is kept in the report,
``needs grading``.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import hashlib
import json
import os
import re
import shlex
import signal
import sqlite3
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from . import (
    authoring,
    collect,
    exports,
    gradescope_package,
    inert,
    isolation,
    late,
    reports,
    review,
    scoring,
    similarity,
)
from .files import (
    NotebookError,
    display_name,
    exact_name,
    origin_digest,
    read_notebook,
    read_submission,
    report_names,
    write_atomic,
)
from .gradebook import (
    FILE_NAME,
    Gradebook,
    GradebookError,
    draw_seed,
    learner_key,
    short_seed,
    utc_text,
)
from .isolation import Runtime, SandboxUnavailable
from .late import LatePolicy
from .options import (
    add_assignment_option,
    add_submission_arguments,
    declared_sources,
    resolve_assignment,
    submission_paths,
)
from .prepare import encode_argument as _encode
from .prepare import helpers_names as _helpers_names
from .prepare import prepare_notebook
from .sandbox import Limits, SandboxResult, run_submission
from .spec import Assignment, Question, answer_marker, build_cases, compare, public_indices, text_answers

__all__ = ["grade_submission", "grade_many", "prepare_notebook", "read_notebook", "make_plan", "main"]


# ------------------------------------------------------------------ plan
@dataclass
class Plan:
    """Cases and expected values of one assignment, computed once per run (outside every sandbox)."""

    assignment: Assignment
    seed: int
    cases: dict[str, list[tuple[str, tuple]]]
    expected: dict[str, list[Any]]
    encoded: dict[str, list[list]]
    data_seed: str
    #: the data seeds of the runs of an assignment with answer variables: two draws, on which every
    #: answer differs (:func:`_second_draw`), so a typed number is never right on both
    data_seeds: tuple[str, ...] = ()
    #: whose cases these are (:func:`learner_seed`); empty for the run's shared draw
    learner: str = ""


#: What every learner of an assignment with answer variables reads, whatever happened: the run held
#: data drawn at grading from its first cell, so its cell errors and how it ended are the instructor's.
DRAWN_NOTE = (
    "this assignment's data are drawn at grading, so the cells that raised an error while it was "
    "graded are not listed: run the notebook at home (Restart and Run All) to see them"
)


def data_seed(seed: int) -> str:
    """The seed of the exercise data a notebook reads in the sandbox, for a run's seed.

    The sandbox's environment holds it (``helpers.experiments.exercise_data``). It is a one-way
    hash of the run's seed, because the hidden cases are built from the run's seed by the course's
    public code: code in a notebook that read the run's seed itself could rebuild every hidden case
    before it ran.

    Examples
    --------
    >>> data_seed(42) == data_seed(42) != data_seed(43), "42" in data_seed(42), len(data_seed(42))
    (True, False, 32)
    """
    return hashlib.sha256(f"exercise data of grading run {seed}".encode()).hexdigest()[:32]


def learner_seed(seed: int, learner: str) -> int:
    """The seed one learner's hidden cases and data are drawn from, for a run's seed.

    Every learner meets cases and data of their own, so a classmate's answers are not one's own:
    two notebooks that pass answers between sandboxes (red team 12: through the kernel's page cache
    of the shared runtime files, by timing reads) pass answers to other questions. It is a one-way
    hash of the run's seed and the learner's key (:func:`helpers.grade.gradebook.learner_key`), as
    wide as a drawn seed (128 bits), so the same learner always meets the same cases (a regrade, a
    late file) and one learner's cases tell nothing of another's. An empty key is the run's seed.

    Examples
    --------
    >>> learner_seed(42, "s1") == learner_seed(42, "s1") != learner_seed(42, "s2"), learner_seed(42, "")
    (True, 42)
    >>> learner_seed(42, "s1") != learner_seed(43, "s1"), learner_seed(42, "s1").bit_length() > 64
    (True, True)
    """
    if not learner:
        return seed
    text = f"hidden cases and data of learner {learner!r} in grading run {seed}"
    return int(hashlib.sha256(text.encode()).hexdigest()[:32], 16)


#: How many draws :func:`_second_draw` tries for one whose every answer differs from the first's.
_DRAWS = 50


#: Draws after which answers that never changed are taken not to depend on the data.
_UNMOVED = 3


def _second_draw(values: list[Question], seed: int, first: list[Any]) -> tuple[str, list[Any]] | None:
    """A second data seed of a run, and its answers: the first draw whose every answer is apart from
    the first data's (:func:`_apart`: no value is right for both), so an answer variable scores only
    when the notebook computes it (red team 9: the commonest value of an answer was right on up to
    31 % of seeds; typed numbers then scored 1.7 of 10 on average). After :data:`_DRAWS` tries, the
    last. ``None`` when no answer changed in :data:`_UNMOVED` draws: the answers do not depend on
    the data (an authored quiz), so there is nothing to draw."""
    data, answers, moved = "", first, False
    for attempt in range(_DRAWS):
        text = f"second exercise data {attempt} of grading run {seed}"
        data = hashlib.sha256(text.encode()).hexdigest()[:32]
        answers = [q.reference(data) for q in values]
        pairs = list(zip(values, first, answers, strict=True))
        moved = moved or any(compare(q, b, a) is not None for q, a, b in pairs)
        if not moved and attempt + 1 >= _UNMOVED:
            return None
        if all(_apart(q, a, b) for q, a, b in pairs):
            break
    return data, answers


def _apart(q: Question, a: Any, b: Any) -> bool:
    """Whether no one value is judged right both for ``a`` and for ``b``: numbers whose tolerance
    intervals do not meet (their midpoint is wrong for one of them), anything else unequal."""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        middle = (a + b) / 2
        return compare(q, middle, a) is not None or compare(q, middle, b) is not None
    return compare(q, a, b) is not None


def make_plan(assignment: Assignment, seed: int, learner: str = "") -> Plan:
    """Build every case from ``seed`` and compute the expected values with the reference.

    Parameters
    ----------
    assignment : Assignment
        What is graded.
    seed : int
        The run's seed.
    learner : str
        Whose cases: they are drawn from :func:`learner_seed` of the run's seed and this key
        (the run's own seed when empty). :attr:`Plan.seed` stays the run's seed.

    Returns
    -------
    Plan
        The cases, expected values and encoded arguments of every question, and the data seed.

    Examples
    --------
    >>> from helpers.grade.assignments import ASSIGNMENTS
    >>> plan = make_plan(ASSIGNMENTS["from-scratch"], seed=1)
    >>> plan.cases["q1"][0][0], plan.expected["q1"][0]
    ('worked examples', 0.4)
    >>> make_plan(ASSIGNMENTS["from-scratch"], 1, "s1").cases == plan.cases
    False
    """
    run_seed, seed = seed, learner_seed(seed, learner)
    cases: dict[str, list[tuple[str, tuple]]] = {}
    expected: dict[str, list[Any]] = {}
    encoded: dict[str, list[list]] = {}
    data = data_seed(seed)
    values = [q for q in assignment.questions if q.kind == "value"]
    for q in assignment.questions:
        built = build_cases(assignment, q, seed)
        cases[q.name] = built
        if q.kind == "value":
            expected[q.name] = [q.reference(data)]  # an answer variable's data change with the run
            encoded[q.name] = []
        else:
            expected[q.name] = [q.reference(*copy.deepcopy(args)) for _, args in built]
            encoded[q.name] = [[_encode(a) for a in args] for _, args in built]
    drawn = _second_draw(values, seed, [expected[q.name][0] for q in values]) if values else None
    if drawn is None:  # no answer depends on the data: the sandbox gets no data seed
        return Plan(assignment, run_seed, cases, expected, encoded, data, learner=learner)
    second, answers = drawn
    for q, answer in zip(values, answers, strict=True):
        expected[q.name].append(answer)
        cases[q.name] = cases[q.name] * 2
    return Plan(assignment, run_seed, cases, expected, encoded, data, (data, second), learner)


# ------------------------------------------------------------------ one submission
def _new_report(plan: Plan, runtime: Runtime, name: str, path: Path) -> dict:
    a = plan.assignment
    return {
        "submission": name,
        "file": display_name(path),
        "assignment": a.name,
        "seed": plan.seed,
        "learner": plan.learner,  # whose hidden cases: make_plan(assignment, seed, learner) rebuilds them
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
    if raw.withheld:  # the instructor's: it happened once a hidden input had reached the notebook
        report["withheld"] = raw.withheld[:20]
    if raw.output.strip():
        report["output"] = raw.output[:2000]


def _text_entry(q: Question, answers: dict[str, str]) -> dict:
    """A hand-graded question's report entry: the learner's answer kept (data), ``needs grading``."""
    entry = {"question": q.name, "target": q.target, "title": q.title, "max_points": q.points, "kind": "text"}
    entry.update(points=0.0, checks=[], errors=[])
    answer = answers.get(q.target)
    if answer is None:
        reason = f"no answer cell: keep the line {answer_marker(q.target)} in the markdown cell you answer in"
        return {**entry, "status": "missing", "reason": reason}
    if not answer:
        return {**entry, "status": "not attempted", "reason": "the answer cell still holds its placeholder"}
    return {**entry, "status": "needs grading", "reason": "graded by your instructor", "answer": answer}


def _failed(q: Question, reason: str, status: str) -> dict:
    """Zero points for a question that could not be graded (a text question has no checks to fail)."""
    if q.kind == "text":
        return {**_text_entry(q, {q.target: ""}), "status": status, "reason": reason}
    return scoring.fail_question(q, reason, status)


def _text_answers(raw: bytes, a: Assignment) -> dict[str, str]:
    targets = [q.target for q in a.questions if q.kind == "text"]
    return text_answers(json.loads(raw.decode("utf-8")), targets) if targets else {}


def _grade(report: dict, path: Path, plan: Plan, runtime: Runtime, limits: Limits) -> None:
    a = plan.assignment
    raw_bytes = read_submission(path, limits.notebook_bytes)
    report["sha256"] = hashlib.sha256(raw_bytes).hexdigest()
    sources = read_notebook(raw_bytes)
    too_much = limits.code_problem(sources)
    if too_much:
        raise NotebookError(too_much)
    cells, warnings, syntax_errors, trees = prepare_notebook(sources)
    report["warnings"].extend(warnings)
    report["cell_errors"].extend(syntax_errors)
    if not any(s.strip() for s in sources):
        raise NotebookError("the notebook has no code", "empty notebook")
    jobs = [
        {
            "name": q.name,
            "kind": q.kind,
            "target": q.target,
            "cases": plan.encoded[q.name],
            "public": public_indices(q, plan.cases[q.name]),
        }
        for q in a.questions
        if q.kind != "text"
    ]
    raw = _run_draws(cells, jobs, runtime, limits, plan)
    _merge_run(report, raw, _helpers_names(trees), a.allow_helpers, _self_check_imports(trees))
    if plan.data_seeds:
        report["warnings"].append(DRAWN_NOTE)
    answers = _text_answers(raw_bytes, a)
    stubs = _stubs(trees) if plan.data_seeds else set()
    for q in a.questions:
        if q.kind == "text":
            report["questions"].append(_text_entry(q, answers))
            continue
        result = raw.questions.get(q.name, {"failure": "no result"})
        entry = scoring.score_question(q, plan.cases[q.name], plan.expected[q.name], result)
        drawn = plan.data_seeds and q.kind == "value"
        report["questions"].append(_right_or_wrong(q, entry, stubs) if drawn else entry)


def _run_draws(cells: list[dict], jobs: list[dict], runtime: Runtime, limits: Limits | None, plan: Plan):
    """The notebook's run; with answer variables, one run per data draw, each answer's values as cases.

    Without answer variables the sandbox gets no data seed. With them, the notebook runs on each
    draw of :attr:`Plan.data_seeds` in a sandbox of its own, and an answer is right only when it is
    right on every draw: a typed number is right on one at most (:func:`_second_draw`)."""
    if not plan.data_seeds:
        return run_submission(cells, jobs, runtime, limits)
    runs = [run_submission(cells, jobs, runtime, limits, seed=data) for data in plan.data_seeds]
    first = runs[0]
    values = [q.name for q in plan.assignment.questions if q.kind == "value"]
    for later in runs[1:]:
        first.withheld += [f"data draw {len(runs)}: {text}" for text in later.withheld + later.warnings][:20]
        for name in values:  # a function question's cases are the first run's
            got = first.questions.get(name, {"failure": "no result"})
            first.questions[name] = _with_draw(got, later.questions.get(name, {"failure": "no result"}))
    return first


#: What the learner reads of an answer variable of drawn data that is not right, whatever happened.
NOT_RIGHT = "not right on both draws of the data"


def _assignment(node: ast.AST) -> tuple[list[ast.Name], bool]:
    """The plain names an assignment binds, and whether its value is the literal ``...``."""
    if not isinstance(node, (ast.Assign, ast.AnnAssign)):
        return [], False
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    stub = isinstance(node.value, ast.Constant) and node.value.value is Ellipsis
    return [t for t in targets if isinstance(t, ast.Name)], stub


def _stubs(trees: list[tuple[int, ast.Module]]) -> set[str]:
    """The names the notebook's code binds only to ``...`` (the learner version's untouched answers),
    read from the source by the grader's own parse: a function of the notebook alone.

    >>> _stubs([(0, ast.parse("a = ...; b = ...; b = 2; c = 1"))])
    {'a'}
    """
    stub: set[str] = set()
    bound: set[str] = set()
    seen: set[int] = set()
    for node in (n for _, tree in trees for n in ast.walk(tree)):
        names, is_stub = _assignment(node)
        seen.update(id(t) for t in names)
        (stub if is_stub else bound).update(t.id for t in names)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and id(node) not in seen:
            bound.add(node.id)
    return stub - bound


def _right_or_wrong(q: Question, entry: dict, stubs: set[str]) -> dict:
    """An answer variable of drawn data as its learner reads it: right, not attempted (its only
    binding in the source is ``...``: the grader's parse, not the run, says so), or wrong for one
    fixed reason.

    How it failed (unbound, still ``...`` at run time, not a number, a wrong number, the process
    ended) was the notebook's choice while it held the data (red team 11: unbound or not carried
    5 bits of the data seed per submission); the instructor's ``detail`` keeps it."""
    if entry["status"] == "ok":
        return entry
    detail = inert.plain(f"{entry['status']}: {entry.get('detail') or entry.get('reason', '')}", 300)
    status = "not attempted" if q.target in stubs else "failed"
    check = {"name": q.checks[0].name, "hidden": True, "passed": False, "points": 0.0}
    check.update(max_points=q.points, feedback="failed")
    return {**scoring.fail_question(q, NOT_RIGHT, status), "checks": [check], "detail": detail}


def _with_draw(result: dict, later: dict) -> dict:
    """An answer variable's result with a later draw's value appended as one more case (a failure of
    either draw is the question's)."""
    if "failure" in result or result.get("status") != "ok":
        return result
    if "failure" in later:
        return later
    if later.get("status") != "ok":
        return {**result, "cases": [*result["cases"], {"error": "RuntimeError: no answer on another draw"}]}
    return {**result, "cases": [*result["cases"], *later["cases"]]}


def grade_submission(
    path: Path, plan: Plan, runtime: Runtime, limits: Limits | None = None, name: str | None = None
) -> dict:
    """Grade one notebook. Never raises for a bad submission: every failure is a zero with a reason.

    Parameters
    ----------
    path : pathlib.Path
        The notebook.
    plan : Plan
        The cases and expected values, from :func:`make_plan`.
    runtime : Runtime
        The sandbox, from :func:`helpers.grade.isolation.prepare`.
    limits : Limits, optional
        The sandbox's limits.
    name : str, optional
        The report's name (default: from the file name).

    Returns
    -------
    dict
        The submission's JSON report: score, status, cell errors and one report per question.
    """
    limits = limits or Limits()
    report = _new_report(plan, runtime, name or path.stem, path)
    started = time.monotonic()
    questions = plan.assignment.questions
    try:
        _grade(report, path, plan, runtime, limits)
    except NotebookError as exc:
        report["error"] = str(exc)
        report["status"] = exc.status
        report["questions"] = [_failed(q, f"not graded: {exc}", "not graded") for q in questions]
    except Exception as exc:
        report["error"] = f"internal grading error: {type(exc).__name__}: {str(exc)[:300]}"
        report["questions"] = [_failed(q, report["error"], "not graded") for q in questions]
    report["score"] = round(sum(q["points"] for q in report["questions"]), 2)
    report["seconds"] = round(time.monotonic() - started, 2)
    report["status"], report["reason"] = reports.submission_status(report)
    return report


# ------------------------------------------------------------------ batch
def _report_bytes(report: dict) -> bytes:
    return (json.dumps(report, indent=1, ensure_ascii=False) + "\n").encode("utf-8", "backslashreplace")


def _internal_error(plan: Plan, runtime: Runtime, name: str, path: Path, error: str) -> dict:
    report = _new_report(plan, runtime, name, path)
    report["error"] = error
    report["questions"] = [_failed(q, error, "not graded") for q in plan.assignment.questions]
    report["seconds"] = 0.0
    report["status"], report["reason"] = "internal error", error
    return report


def _safe_grade(path: Path, plan: Plan, runtime: Runtime, limits: Limits, name: str) -> dict:
    try:
        return grade_submission(path, plan, runtime, limits, name)
    except BaseException as exc:
        return _internal_error(plan, runtime, name, path, f"internal grading error: {type(exc).__name__}")


def _progress_line(n: int, total: int, report: dict) -> str:
    width = len(str(total))
    note = f"  ({report['status']}: {report['reason']})" if report.get("reason") else ""
    return (
        f"[{n:>{width}}/{total}] {report['submission']}: {report['score']:g}/{report['max_score']:g}"
        f" in {report['seconds']:.1f} s{note}"
    )


class GradingStopped(RuntimeError):
    """A run stopped before the end (a full disk, an unwritable gradebook); what was graded is kept."""


def _not_graded_lines(collection: Any) -> list[str]:
    """What a Collection of :mod:`helpers.grade.collect` did not grade, one line each (names escaped)."""

    def shown(name: str) -> str:
        return name.encode("ascii", "backslashreplace").decode("ascii")

    claimed = {s.display for s in getattr(collection, "unassigned", []) if getattr(s, "contested", None)}
    lines = [
        f"not graded: {shown(n)}: {why}"
        if n in claimed
        else f"not graded: {shown(n)}: matches no roster entry ({why})"
        for n, why in collection.unmatched
    ]
    lines += [
        f"not graded: {shown(n)}: matches several roster entries ({', '.join(ids)}): fix the roster"
        for n, ids in collection.ambiguous
    ]
    return lines + [f"not graded: {shown(n)}: refused ({why})" for n, why in collection.refused]


def _as_submissions(items: Any, roster: reports.Roster | None) -> list[Any]:
    """Submissions (``path``, ``display``, ``learner``, ``submitted_at``) for paths, Submissions or a
    Collection (whose files that were not graded are listed on standard error)."""
    if hasattr(items, "submissions"):
        for line in _not_graded_lines(items):
            print(line, file=sys.stderr, flush=True)
        return list(items.submissions)
    if all(hasattr(x, "submitted_at") for x in items):
        return list(items)
    paths = [Path(x) for x in items]
    learners = roster.assign(paths) if roster else [None] * len(paths)
    return [
        collect.Submission(p, display_name(p), x.id if x else None, None)
        for p, x in zip(paths, learners, strict=True)
    ]


def assignment_info(assignment: Assignment) -> dict:
    """What the gradebook keeps of an assignment: names, points, and the hand-graded rubrics."""
    questions = [
        {"question": q.name, "target": q.target, "title": q.title, "points": q.points, "kind": q.kind}
        | ({"rubric": q.rubric, "model": str(q.reference())} if q.kind == "text" else {})
        for q in assignment.questions
    ]
    return {
        "name": assignment.name,
        "title": assignment.title,
        "max_score": assignment.max_score,
        "questions": questions,
    }


@dataclass
class _Run:
    """One grading run's state: what to grade, under which names, and what is done."""

    book: Gradebook
    plan: Plan
    subs: list[Any]
    names: list[str]
    whos: list[str]
    done: list[dict]
    out: Path
    progress: Any
    run_id: int = 0
    count: int = 0
    previous: dict[str, Any] = field(default_factory=dict)  # each learner's current result before
    replaced: list[str] = field(default_factory=list)  # learners whose result another file replaced

    def finished(self, i: int, report: dict) -> None:
        """Commit one graded submission to the gradebook, then write its JSON report and say what
        changed, with Ctrl-C and SIGTERM held until all is done: an interrupt after the commit
        graded it twice (the drain recorded it again), or left a replacement unsaid (red team 19)."""
        with _signals_held():
            self._finished(i, report)

    def _finished(self, i: int, report: dict) -> None:
        sub = self.subs[i]
        report["file"] = sub.display
        when = None if sub.submitted_at is None else utc_text(sub.submitted_at)
        report["submitted_at"] = when
        self.book.record(self.run_id, self.whos[i], sub.learner, when, report)
        self.done[i] = report
        settled = _settle_contest(self.book, sub.learner)
        write_atomic(self.out, f"{report['submission']}.json", _report_bytes(report))
        self.say(_progress_line(self.count + 1, len(self.subs), report))
        line = _replacement(self.previous.get(self.whos[i]), self.whos[i], report) or _settling(
            settled, report
        )
        if line:
            self.replaced.append(line)
            self.tell(line)

    def say(self, line: str) -> None:
        self.count += 1
        self.tell(line)

    def tell(self, line: str) -> None:
        """A line for the instructor: on the progress stream, or standard error when it is off."""
        print(line, file=sys.stderr if self.progress is None else self.progress, flush=True)


def _escaped(name: str) -> str:
    return repr(name.encode("ascii", "backslashreplace").decode("ascii"))


def _shown_key(who: str) -> str:
    """A learner key for the terminal: a key without a roster holds a learner's file name, so it is
    escaped (control characters, look-alikes) as file names are (:func:`_escaped`)."""
    return who if who.isascii() and who.isprintable() else _escaped(who)


def _replacement(old: Any, who: str, report: dict) -> str:
    """What the instructor must read when ``who``'s current result (``old``) is replaced by another
    file's (another sha256): both files and both scores, louder when the file's name differs too."""
    if old is None or old.sha256 == report.get("sha256", ""):
        return ""
    line = (
        f"REPLACED: {_shown_key(who)}'s result of {_escaped(old.display)} "
        f"({old.score:g}/{old.max_score:g}) by {_escaped(report['file'])} "
        f"({report['score']:g}/{report['max_score']:g})"
    )
    if old.display != report["file"]:
        line += (
            f"; another file name: check it is {_shown_key(who)}'s own (the earlier result stays in the "
            f"history: python -m helpers.grade history OUT --learner {shlex.quote(_shown_key(who))})"
        )
    return line


def _contested(book: Gradebook, subs: list[Any]) -> dict[str, list[str]]:
    """Record the learners this run's files claim together (none assigned); returns them. They stay
    marked in the gradebook (``meta`` ``contested``) until a run grades a file as theirs."""
    now: dict[str, list[str]] = {}
    for sub in subs:
        if getattr(sub, "contested", None):
            now.setdefault(sub.contested, []).append(sub.display)
    if now:
        book.set_meta("contested", {**(book.meta("contested") or {}), **now})
    return now


def _settle_contest(book: Gradebook, learner: str | None) -> tuple[str, list[str]] | None:
    """A file graded as ``learner``'s ends their conflict of an earlier run: (learner, the files that
    claimed them then), or None when there was none."""
    stored = book.meta("contested") or {}
    if not (learner and learner in stored):
        return None
    book.set_meta("contested", {k: v for k, v in stored.items() if k != learner})
    return learner, list(stored[learner])


def _settling(settled: tuple[str, list[str]] | None, report: dict) -> str:
    """What the instructor must read when a file ends a conflict an earlier run reported: a claimant
    of that conflict may be the one who hands in the file now (red team 8), so it is said, as a
    replacement is."""
    if settled is None:
        return ""
    learner, files = settled
    return (
        f"REPLACED: {learner}'s CONFLICT of an earlier run ({', '.join(map(_escaped, files))}) is ended by "
        f"{_escaped(report['file'])} ({report['score']:g}/{report['max_score']:g}); check it is {learner}'s "
        f"own (python -m helpers.grade history OUT --learner {learner})"
    )


def _sha256(path: Path, limits: Limits) -> str:
    try:
        return hashlib.sha256(read_submission(path, limits.notebook_bytes)).hexdigest()
    except NotebookError as exc:
        return f"unreadable: {exc.status}"


def _report_names(taken: dict[str, str], names: list[str], whos: list[str]) -> list[str]:
    """Each submission's report name, unique among every current result and every name of the run.

    A name keeps its form unless another learner's current result uses it (compared case-blind:
    ``HW.json`` and ``hw.json`` are one file on macOS and Windows). Those names are reserved first;
    a renamed one is ``<name>-<8 hex of the learner>``, numbered on until no other learner holds it
    (red team 10: a classmate's file named in advance after the renamed name took Bob's feedback).

    >>> _report_names({"hw": "s200"}, ["hw", "hw-a9dcdc71"], ["s123", "s999"])
    ['hw-a9dcdc71-2', 'hw-a9dcdc71']
    >>> _report_names({}, ["HW", "hw"], ["s1", "s2"])
    ['HW', 'hw-ad328846']

    Names the tools write beside the reports are reserved too, even from a learner whose current
    result an older gradebook named so (red team 21: a learner's ``similarity.ipynb`` made
    ``similarity.json``, the copy report's file, when the instructor gave ``grade`` and
    ``similarity`` one ``--out``; red team 22: the older book's holder kept it):

    >>> _report_names({}, ["Similarity"], ["s1"])
    ['Similarity-e8bc163c']
    """
    used = {n.casefold(): w for n, w in taken.items()} | {n.casefold(): "" for n in exports.TOOL_NAMES}
    kept = [used.setdefault(n.casefold(), w) == w for n, w in zip(names, whos, strict=True)]
    out = []
    for name, who, keep in zip(names, whos, kept, strict=True):
        if not keep:
            base = name = f"{name}-{hashlib.sha256(who.encode()).hexdigest()[:8]}"
            number = 1
            while used.setdefault(name.casefold(), who) != who:
                number += 1
                name = f"{base}-{number}"
        out.append(name)
    return out


_PLAIN_STEM = re.compile(r"[A-Za-z0-9._-]+")


def no_roster_key(sub: Any) -> str:
    """Whose a file no roster id names is: who the platform says, else the name it was handed in under.

    The platform's word (:attr:`helpers.grade.collect.Submission.key`: Canvas's user id in a download
    given with ``--canvas``, a per-learner folder's name, Gradescope's submitters) comes first; else
    ``file:`` and the file's exact name (:func:`helpers.grade.files.exact_name`), a plain name
    (``ann.ipynb``) as its stem. Never the name of a zip or a folder the instructor keeps files in,
    nor a per-submission id, so the same learner's late file, resubmission, re-download or regrade
    from elsewhere meets the same cases and replaces their result.

    *Decision* (red team 32): a notebook given by itself is keyed by its name even when its folder
    has the name of a per-learner folder the gradebook knows (``late/ann/hw.ipynb``): a learner may
    name a folder as the instructor names theirs (``late/``), so only the folders the instructor gives
    say which folders are learners' (give ``late/``, which holds ``ann/``). The run says so
    (:func:`_folder_hints`).

    Parameters
    ----------
    sub : helpers.grade.collect.Submission
        The file (``path`` and ``key``).

    Returns
    -------
    str
        The learner key.

    Examples
    --------
    >>> from helpers.grade.collect import Submission
    >>> [no_roster_key(Submission(Path(p), "", None, None)) for p in
    ...  ("s/ann.ipynb", "s/bo smith.ipynb", "late/ann/hw.ipynb")]
    ['file:ann', 'file:bo smith.ipynb', 'file:hw']
    >>> no_roster_key(Submission(Path("late/ann/hw.ipynb"), "ann/hw.ipynb", None, None, key="folder:ann"))
    'folder:ann'
    """
    if sub.key:
        return str(sub.key)
    name = exact_name(sub.path.name)
    stem = name.removesuffix(".ipynb")
    return "file:" + (stem if name.endswith(".ipynb") and _PLAIN_STEM.fullmatch(stem) else name)


def _folder_hints(subs: list[Any], whos: list[str], known: set[str]) -> list[str]:
    """A line for each file keyed by its own name whose folder has the name of a per-learner folder of
    the gradebook: it is not that learner's (:func:`no_roster_key`), said as a fact, never as advice
    to make it theirs (the folder may be a learner's look-alike of the instructor's: red team 32).

    >>> from helpers.grade.collect import Submission
    >>> sub = Submission(Path("late/ann/hw.ipynb"), "hw.ipynb", None, None)
    >>> print(*_folder_hints([sub], ["file:hw"], {"folder:ann"}))
    note: 'hw.ipynb' is graded as file:hw, not folder:ann: learner folders count only inside a folder given
    """
    lines = []
    for sub, who in zip(subs, whos, strict=True):
        folder = "folder:" + exact_name(sub.path.parent.name)
        if who.startswith("file:") and folder in known:
            lines.append(
                f"note: {_escaped(sub.display)} is graded as {_shown_key(who)}, not {_shown_key(folder)}: "
                "learner folders count only inside a folder given"
            )
    return lines


def _learner_keys(subs: list[Any], names: list[str]) -> list[str]:
    """Each submission's learner: its roster id, else :func:`no_roster_key`. *Decision:* two files of
    one run under one such key (``a/hw.ipynb`` and ``b/hw.ipynb`` from two flat folders, two
    notebooks in one learner's folder) cannot tell who is who: each is a learner of its own, ``file:``
    and its report name with a hash of where it was given (:func:`_own_key`)."""
    keys = [s.learner or no_roster_key(s) for s in subs]
    shared = Counter(k for s, k in zip(subs, keys, strict=True) if not s.learner)
    return [
        k if s.learner or shared[k] == 1 else _own_key(s, n)
        for s, k, n in zip(subs, keys, names, strict=True)
    ]


def _own_key(sub: Any, name: str) -> str:
    """The key of a file that shares its learner key with another of the run: ``file:``, its report
    name and a hash of where it was given, which nobody can type (red team 51: Mallory's
    ``mallory/bo.ipynb`` beside her ``hw.ipynb`` was ``file:bo``, emailed Bo's key). A name that
    already ends in that hash (two ``hw.ipynb``) keeps it once, as before."""
    digest = origin_digest(getattr(sub, "origin", "") or os.path.abspath(sub.path))
    return learner_key(None, name if name.endswith(f"-{digest}") else f"{name}-{digest}")


def _plan_run(book: Gradebook, subs: list[Any], plan: Plan, limits: Limits, regrade: bool) -> tuple:
    """Report names, learners, and which submissions are already graded with this file and seed."""
    names = report_names([s.path for s in subs], [getattr(s, "origin", "") for s in subs])
    current = {r.who: r for r in book.current()}
    whos = _learner_keys(subs, names)
    taken = {r.submission: r.who for r in current.values()}
    names = _report_names(taken, names, whos)
    skipped = {}
    for i, (sub, who) in enumerate(zip(subs, whos, strict=True)):
        known = None if regrade else book.already_graded(who, _sha256(sub.path, limits), plan.seed)
        # kept only while it is the learner's current result; an older one is graded again, so the file
        # handed in now becomes current (red team 8: A, then B, then A again kept B's score)
        if known is not None and current.get(who) is not None and current[who].id == known.id:
            skipped[i] = known.report
    return names, whos, skipped


def _drain(futures: dict, run: _Run) -> None:
    """After an interrupt: record every submission already being graded (they end within their limits)."""
    for fut, i in futures.items():
        if not fut.cancelled() and not run.done[i]:
            try:
                run.finished(i, fut.result())
            except Exception:  # a second failure while stopping: keep what is recorded
                return


def _grade_learner(run: _Run, i: int, runtime: Runtime, limits: Limits) -> dict:
    """Grade submission ``i`` on its learner's own cases and data (:func:`learner_seed`)."""
    try:
        plan = make_plan(run.plan.assignment, run.plan.seed, run.whos[i])
    except Exception as exc:  # the reference failed on this learner's draw: the grader's fault, said so
        error = f"internal grading error: the reference failed on this learner's cases: {type(exc).__name__}"
        return _internal_error(run.plan, runtime, run.names[i], run.subs[i].path, error)
    return _safe_grade(run.subs[i].path, plan, runtime, limits, run.names[i])


def _grade_pool(run: _Run, todo: list[int], runtime: Runtime, limits: Limits, jobs: int) -> None:
    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    futures = {pool.submit(_grade_learner, run, i, runtime, limits): i for i in todo}
    try:
        for fut in as_completed(futures):
            run.finished(futures[fut], fut.result())
    except KeyboardInterrupt:
        pool.shutdown(wait=False, cancel_futures=True)
        _drain(futures, run)
        raise
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown()


def _open_book(out: Path, assignment: Assignment, roster: reports.Roster | None, policy: Any) -> Gradebook:
    out.mkdir(parents=True, exist_ok=True)
    book = Gradebook.open(out, assignment_info(assignment))
    try:
        book.hold_for_run()
    except GradebookError:
        book.close()
        raise
    if roster is not None:
        book.set_roster([{k: getattr(x, k) for k in exports.ROSTER_FIELDS} for x in roster.learners])
    if policy is not None:
        book.set_meta("late_policy", policy.to_json())
    return book


def grade_many(
    submissions: Sequence[Any],
    assignment: Assignment,
    out: Path,
    *,
    jobs: int = 1,
    seed: int | None = None,
    new_seed: bool = False,
    regrade: bool = False,
    limits: Limits | None = None,
    mode: str = isolation.BUBBLEWRAP,
    progress: Any = sys.stderr,
    roster: reports.Roster | None = None,
    policy: LatePolicy | None = None,
    command: str = "",
) -> list[dict]:
    """Grade ``submissions`` into the gradebook ``out/gradebook.sqlite``, then write the class's files.

    Each graded submission is committed to the gradebook as it finishes (and ``out/<name>.json``
    written); then :func:`helpers.grade.exports.write_class_files` writes ``out/grades.csv``,
    ``out/feedback/<name>.md`` and, with a roster, ``out/canvas.csv`` from the gradebook: the
    current result of every learner, so grading a subset merges into the class.

    Parameters
    ----------
    submissions : sequence or Collection
        Notebook paths, Submissions of :mod:`helpers.grade.collect` (``path``, ``display``,
        ``learner``, ``submitted_at``), or its Collection (files it did not grade are listed).
    assignment : Assignment
        What is graded.
    out : pathlib.Path
        The output folder (created), holding the gradebook.
    jobs : int
        Submissions graded at once, each in its own sandbox.
    seed : int, optional
        The seed of the hidden cases: only for the gradebook's first run, or with ``new_seed``;
        by default the gradebook's seed (drawn at its first run).
    new_seed : bool
        Draw a fresh seed (or take ``seed``) and record it.
    regrade : bool
        Grade again submissions already graded with the same file and seed (skipped otherwise).
    limits : Limits, optional
        The sandbox's limits (the defaults when None).
    mode : {"bubblewrap", "unsafe-no-sandbox"}
        The isolation; ``unsafe-no-sandbox`` only for a class you trust.
    progress : file
        Where one line per graded submission is written.
    roster : Roster, optional
        Who handed in which file (:class:`helpers.grade.reports.Roster`); stored in the gradebook.
    policy : LatePolicy, optional
        Deadline and late policy (:mod:`helpers.grade.late`); stored in the gradebook.
    command : str
        The command line, recorded with the run in the gradebook.

    Returns
    -------
    list of dict
        The report of each submission, in order (a skipped one's recorded report).

    Raises
    ------
    SandboxUnavailable
        In bubblewrap mode, when bubblewrap is missing or cannot start a sandbox here.
    GradebookError
        When ``out`` holds another assignment's gradebook, a newer one, or another seed, or
        another run is grading into it (:meth:`Gradebook.hold_for_run`).
    KeyboardInterrupt
        On Ctrl-C or SIGTERM (see :func:`main`), after recording what was graded.
    GradingStopped
        When the gradebook or a file cannot be written (a full disk); what was graded is kept.
    """
    limits = limits or Limits()
    book = _open_book(Path(out), assignment, roster, policy)
    try:
        if roster is None and book.roster():  # a later run without --roster: the class's roster
            roster = reports.Roster([reports.Learner(**x) for x in book.roster()])
        subs = _as_submissions(submissions, roster)
        plan = make_plan(assignment, book.seed(seed, new_seed))
        if short_seed(plan.seed) and progress is not None:
            print(f"warning: {short_seed(plan.seed)}", file=progress, flush=True)
        names, whos, skipped = _plan_run(book, subs, plan, limits, regrade)
        run = _Run(
            book, plan, subs, names, whos, [skipped.get(i, {}) for i in range(len(subs))], Path(out), progress
        )
        run.previous = {r.who: r for r in book.current()}
        for line in _folder_hints(subs, whos, set(run.previous)):
            run.tell(line)
        for i in skipped:
            _settle_contest(book, subs[i].learner)
        contested = _contested(book, subs)
        _grade_run(run, mode, limits, jobs, command)
        _summary(run, contested)
    finally:
        book.close()
    return run.done


def _grade_run(run: _Run, mode: str, limits: Limits, jobs: int, command: str) -> None:
    started = time.monotonic()
    todo = [i for i, rep in enumerate(run.done) if not rep]
    for i in (i for i, rep in enumerate(run.done) if rep):
        run.say(
            f"[{run.count + 1}/{len(run.subs)}] {run.names[i]}: already graded (same file, same seed): kept"
        )
    with isolation.prepare(mode, run.plan.assignment.sandbox_packages) as runtime:
        run.run_id = run.book.start_run(run.plan.seed, runtime.mode, command)
        if run.progress is not None and runtime.mode == isolation.BUBBLEWRAP and todo:
            print(f"limits per submission: {runtime.resources}", file=run.progress, flush=True)
        try:
            _grade_pool(run, todo, runtime, limits, jobs)
        except KeyboardInterrupt:
            _close_run(run, "interrupted")
            raise
        except (OSError, sqlite3.Error) as exc:
            _close_run(run, f"stopped: {exc}")
            raise GradingStopped(
                f"grading stopped: {exc}. Every submission graded before it is kept in "
                f"{run.book.path}; free some space and run the same command again to grade the rest"
            ) from exc
    _close_run(run, "complete")
    if run.progress is not None:
        elapsed = time.monotonic() - started
        print(
            f"graded {len(todo)} submission(s) in {elapsed:.1f} s, kept {len(run.subs) - len(todo)} already "
            f"graded; isolation {runtime.mode}, seed {run.plan.seed}; wrote {run.out / 'grades.csv'}",
            file=run.progress,
            flush=True,
        )


def _summary(run: _Run, contested: dict[str, list[str]]) -> None:
    """The run's end, loud about what the instructor must decide: learners several files claim, and
    results that another file replaced."""
    for learner, files in contested.items():
        run.tell(
            f"CONFLICT: {learner} is claimed by {', '.join(map(_escaped, files[:5]))}"
            f"{f' and {len(files) - 5} more' if len(files) > 5 else ''}: none is graded as "
            f"{learner}'s (an earlier result stays; never 0 with --missing-zero); rename or remove all "
            "but the right file, then grade again"
        )
    if run.replaced:
        run.tell(f"{len(run.replaced)} learner(s) have a result from another file than before:")
        for line in run.replaced:
            run.tell("  " + line)
    timed = [run.names[i] for i, rep in enumerate(run.done) if rep and _hit_time_limit(rep)]
    if timed:
        run.tell(
            f"TIME LIMIT: {len(timed)} submission(s) ran out of time ({', '.join(map(_escaped, timed[:10]))}"
            f"{', ...' if len(timed) > 10 else ''}): an endless loop, or a machine too busy for the "
            "wall-clock --timeout; to be sure, grade those files again with --regrade --jobs 1 (or a "
            "larger --timeout)"
        )


def _hit_time_limit(report: dict) -> bool:
    """Whether a run of the submission met a time limit: the whole run, a question's run, or a cell
    the grader skipped for it (kept for the instructor in ``withheld`` when the data were drawn)."""
    said = [report.get("status", ""), report.get("reason", ""), *report.get("withheld", [])]
    said += [q.get("reason", "") for q in report.get("questions", [])]
    said += [e.get("error", "") for e in report.get("cell_errors", []) if e.get("by") == "grader"]
    return any("timed out" in str(text) for text in said)


def _close_run(run: _Run, outcome: str) -> None:
    """Record how the run ended and write the class's files from the gradebook (best effort when stopping)."""
    try:
        run.book.finish_run(run.run_id, outcome)
        exports.write_class_files(run.out, run.book)
    except (OSError, sqlite3.Error):
        if outcome == "complete":
            raise


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


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    add_assignment_option(parser)
    _add_limit_options(parser)
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed of the hidden cases (default: the gradebook's, drawn once at its first run; "
        "another one only with --new-seed)",
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
    _add_term_options(parser)
    add_submission_arguments(parser)
    return parser


def _add_term_options(parser: argparse.ArgumentParser) -> None:
    """The gradebook's options: seed draws, regrades and the late policy."""
    term = parser.add_argument_group("the term (the gradebook OUT/gradebook.sqlite keeps every run)")
    term.add_argument(
        "--new-seed",
        action="store_true",
        help="draw fresh hidden cases (or take --seed) instead of the gradebook's seed; recorded",
    )
    term.add_argument(
        "--regrade",
        action="store_true",
        help="grade again files already graded with the same seed (default: kept, so a rerun resumes)",
    )
    term.add_argument("--deadline", help="ISO 8601 with a timezone, e.g. 2026-03-01T23:59:00+01:00")
    term.add_argument("--grace", default=None, help="grace period after the deadline, e.g. 15m or 2h")
    term.add_argument("--late-penalty", type=float, default=None, help="percent of the points per day late")
    term.add_argument(
        "--late-cap", type=float, default=None, help="at most this percent in all (default 100)"
    )
    term.add_argument(
        "--missing-zero",
        action="store_true",
        help="a roster learner with no submission gets 0 once the deadline has passed (default: missing)",
    )


def _policy(
    parser: argparse.ArgumentParser, args: argparse.Namespace, stored: dict | None
) -> LatePolicy | None:
    """The late policy of the command line over the stored one; ``None`` when neither changes it."""
    given = [args.deadline, args.grace, args.late_penalty, args.late_cap]
    if all(x is None for x in given) and not args.missing_zero:
        return None
    base = LatePolicy.from_json(stored)
    try:
        return LatePolicy(
            deadline=base.deadline if args.deadline is None else late.parse_deadline(args.deadline),
            grace=base.grace if args.grace is None else late.parse_duration(args.grace),
            per_day=base.per_day if args.late_penalty is None else args.late_penalty,
            cap=base.cap if args.late_cap is None else args.late_cap,
            missing_zero=args.missing_zero or base.missing_zero,
        )
    except ValueError as exc:
        parser.error(str(exc))
    raise AssertionError("not reached")


def _stored_policy(out: str) -> dict | None:
    path = Path(out) / FILE_NAME
    if not path.is_file():
        return None
    try:
        with Gradebook.open(Path(out)) as book:
            return book.meta("late_policy")
    except GradebookError:
        return None  # grade_many reports it


def _stored_roster(out: str) -> reports.Roster | None:
    """The class's roster kept in the gradebook, for a later run without ``--roster`` (a late file, a
    rerun): its files are matched to the same learners as the class's, never graded as nobody's."""
    path = Path(out) / FILE_NAME
    if not path.is_file():
        return None
    try:
        with Gradebook.open(Path(out)) as book:
            rows = book.roster()
    except GradebookError:
        return None  # grade_many reports it
    return reports.Roster([reports.Learner(**x) for x in rows]) if rows else None


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


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM until the block ends, then deliver the first one that came.

    *Decision:* a result is committed to the gradebook and marked done as one step; an interrupt
    between the two made :func:`_drain` record it again (a CI run saw one learner graded twice).
    Outside the main thread (a library caller's worker), signals cannot be held and are not.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[tuple[int, Any]] = []
    held = (signal.SIGINT, signal.SIGTERM)
    previous: dict[int, Any] = {
        s: signal.signal(s, lambda signum, frame: caught.append((signum, frame))) for s in held
    }
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        for signum, frame in caught[:1]:
            _deliver(previous[signum], signum, frame)


def _deliver(handler: Any, signum: int, frame: Any) -> None:
    """Run a held signal's own handler now (the default one: the signal again, unheld)."""
    if callable(handler):
        handler(signum, frame)
    elif handler == signal.SIG_DFL:
        signal.raise_signal(signum)


class _Terminated(KeyboardInterrupt):
    """SIGTERM, handled like Ctrl-C: stop, keep what was graded."""


@contextlib.contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    def stop(signum: int, frame: Any) -> None:
        raise _Terminated()

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _grade_class(argv: list[str]) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    submission_paths(parser, args)
    assignment = resolve_assignment(parser, args.assignment)
    limits = _limits(parser, args)
    if args.jobs < 1:
        parser.error("--jobs must be >= 1")
    roster = _roster(parser, args.roster) or _stored_roster(args.out)
    policy = _policy(parser, args, _stored_policy(args.out))
    options = dict(
        jobs=args.jobs, seed=args.seed, new_seed=args.new_seed, regrade=args.regrade, limits=limits
    )
    with tempfile.TemporaryDirectory(prefix="helpers-grade-collect-") as workdir:
        collection = _collect(parser, args, roster, Path(workdir))
        # files assigned to nobody (no roster entry, or several) are graded on rows with no learner,
        # never in canvas.csv, so the instructor can look at them
        submissions = [*collection.submissions, *collection.unassigned]
        try:
            with _sigterm_interrupts():
                grade_many(
                    submissions, assignment, Path(args.out), **options, mode=_mode(args), roster=roster,
                    policy=policy, progress=None if args.quiet else sys.stderr,
                    command=shlex.join(["helpers.grade", *argv]),
                )  # fmt: skip
        except SandboxUnavailable as exc:
            return _no_sandbox(exc)
        except (GradebookError, GradingStopped) as exc:
            print(f"python -m helpers.grade: {exc}", file=sys.stderr)
            return 1
        except KeyboardInterrupt as exc:
            print(
                f"python -m helpers.grade: interrupted; every submission graded so far is in "
                f"{Path(args.out) / FILE_NAME}. Run the same command again to grade the rest.",
                file=sys.stderr,
            )
            return 143 if isinstance(exc, _Terminated) else 130
    return 0


def _collect(
    parser: argparse.ArgumentParser, args: argparse.Namespace, roster: reports.Roster | None, workdir: Path
) -> collect.Collection:
    """The command line's paths and downloads (``--canvas``, ``--gradescope``, ``--learner-folders``) as a
    :class:`~helpers.grade.collect.Collection`; what is assigned to nobody or refused is printed for
    the instructor."""
    found = collect.from_command_line(args.submissions, roster, workdir, parser.error, declared_sources(args))
    if not found.submissions and not found.unassigned:
        parser.error("no .ipynb submissions found in the given folder(s) (or none could be assigned)")
    return found


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
        "--metadata",
        default=exports.METADATA_FILE,
        help=f"Gradescope's record of the submitters, whose own cases and data are drawn (default "
        f"{exports.METADATA_FILE}; without it, the seed's shared draw)",
    )
    parser.add_argument(
        "--write-run-autograder",
        metavar="PATH",
        help="only write Gradescope's run_autograder script for this assignment to PATH, with --seed or a "
        "seed drawn now for every submission (gradescope-package writes it with the whole zip)",
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
        "questions": [_failed(q, f"not graded: {reason}", "not graded") for q in a.questions],
        "warnings": [],
        "cell_errors": [],
        "error": reason,
        "status": "no submission",
        "reason": reason,
    }
    return report


def _write_run_autograder(path: Path, assignment: str, seed: int | None) -> int:
    """The package's ``run_autograder`` (:func:`helpers.grade.gradescope_package.run_autograder`), with
    ``seed`` or one drawn now: every submission it grades meets the same hidden cases."""
    seed = draw_seed() if seed is None else seed
    if short_seed(seed):
        print(f"warning: {short_seed(seed)}", file=sys.stderr)
    path.write_text(gradescope_package.run_autograder(assignment, seed), encoding="utf-8")
    path.chmod(0o755)
    print(
        f"wrote {path} (seed {seed} for every submission); it expects the layout of "
        "`python -m helpers.grade gradescope-package`, which writes the whole autograder zip",
        file=sys.stderr,
    )
    return 0


def gradescope(argv: list[str]) -> int:
    """``python -m helpers.grade gradescope``: grade one Gradescope submission, write ``results.json``."""
    parser = _gradescope_parser()
    args = parser.parse_args(argv)
    assignment = resolve_assignment(parser, args.assignment)
    if args.write_run_autograder:
        return _write_run_autograder(Path(args.write_run_autograder), args.assignment, args.seed)
    limits, mode = _limits(parser, args), _mode(args)
    learner, missing = exports.gradescope_learner(Path(args.metadata))
    if missing:
        print(f"note: {missing}: grading on the seed's shared cases and data", file=sys.stderr)
    plan = make_plan(assignment, draw_seed() if args.seed is None else args.seed, learner)
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


# ------------------------------------------------------------------ history
def history_lines(book: Gradebook, who: str | None = None) -> list[str]:
    """One line per result of the gradebook (or of one learner), oldest first; ``*`` marks the current.

    Display names are the learner's text: shown escaped (``ascii``), never interpreted.
    """
    current = {r.id for r in book.current()}
    lines = [f"seeds: {', '.join(f'{s} ({how}, {at})' for s, at, how in book.seeds()) or 'none yet'}"]
    results = book.history(who)

    def shown(text: str) -> str:  # control characters and every non-ASCII one (look-alikes) escaped
        return inert.plain(text).encode("ascii", "backslashreplace").decode("ascii")

    # the learner column is never cut: "file:hw1_s123 (x).ipynb" cut to 13 looked like s123's own
    width = max([len("learner"), *(len(shown(r.who)) for r in results)])
    head = f"  graded_at             run  {'learner':<{width}} score   status       seed        sha256"
    lines.append(head + "        file")
    for r in results:
        lines.append(
            f"{'*' if r.id in current else ' '} {r.graded_at}  {r.run_id:>3}  {shown(r.who):<{width}} "
            f"{r.score:>6g}  {r.status[:12]:<12} {r.seed:<11} {r.sha256[:12]:<12}  {shown(r.display)}"
        )
    return lines


def history_main(argv: list[str]) -> int:
    """``python -m helpers.grade history OUT [--learner ID]``: every grading of every learner."""
    parser = argparse.ArgumentParser(
        prog="python -m helpers.grade history",
        description="Every result in OUT/gradebook.sqlite, oldest first (* = the one exported).",
    )
    parser.add_argument("out", help="the grading output folder")
    parser.add_argument(
        "--learner",
        help="only this learner (roster id, or file: and the name handed in: ann.ipynb is file:ann)",
    )
    args = parser.parse_args(argv)
    try:
        with Gradebook.open(Path(args.out)) as book:
            print("\n".join(history_lines(book, args.learner)))
    except GradebookError as exc:
        print(f"python -m helpers.grade history: {exc}", file=sys.stderr)
        return 2
    return 0


def export_main(argv: list[str]) -> int:
    """``python -m helpers.grade export OUT``: write the class's files again from the gradebook.

    For the day the deadline passes (``--missing-zero`` then gives missing learners 0), or after
    deleting an export by mistake; nothing is graded.
    """
    parser = argparse.ArgumentParser(
        prog="python -m helpers.grade export",
        description="Write OUT/grades.csv, OUT/canvas.csv and the feedback again from OUT/gradebook.sqlite.",
    )
    parser.add_argument("out", help="the grading output folder")
    args = parser.parse_args(argv)
    try:
        with Gradebook.open(Path(args.out)) as book:
            exports.write_class_files(Path(args.out), book)
    except GradebookError as exc:
        print(f"python -m helpers.grade export: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {Path(args.out) / 'grades.csv'} from {Path(args.out) / FILE_NAME}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    """The command line; returns the exit status.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 when every submission was graded (whatever its score); 2 for a usage error or no sandbox,
        1 for an unusable gradebook or a full disk, 130 after Ctrl-C and 143 after SIGTERM (what was
        graded is kept: the same command grades the rest). A subcommand returns its own status.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    commands = {
        "author": authoring.main,
        "gradescope": gradescope,
        "gradescope-package": gradescope_package.main,
        "similarity": similarity.main,
        "history": history_main,
        "export": export_main,
        "review": review.main,
    }
    if argv and argv[0] in commands:
        return commands[argv[0]](argv[1:])
    return _grade_class(argv)


if __name__ == "__main__":
    raise SystemExit(main())
