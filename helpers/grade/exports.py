"""Grades in the formats learning platforms import, written from the gradebook.

- :func:`write_class_files`: everything an instructor uploads or hands back, from the gradebook
  (:mod:`helpers.grade.gradebook`): the *current* result of every learner, hand-graded scores
  merged in and the late policy applied. ``grades.csv`` (:func:`grades_csv`), one feedback file
  and one JSON report per current result, and with a roster ``canvas.csv``. Files of a learner's
  earlier results (another report name) are removed, so nothing stale sits beside the new ones.
  Grading one learner rewrites these files but no other learner's row changes.
- :func:`canvas_csv`: the columns Canvas's gradebook import matches learners on (``Student``,
  ``ID``, ``SIS User ID``, ``SIS Login ID``, ``Section``), one column named after the assignment,
  and the ``Points Possible`` row. Learners come from the roster: ``id`` is the SIS User ID,
  ``login`` the SIS Login ID, ``canvas_id`` Canvas's own ID. A roster learner without a file is
  *missing*: an empty cell (Canvas leaves the grade empty), or 0 once the deadline has passed when
  the policy says ``--missing-zero``.
- :func:`gradescope_results`: one submission's report in the format of Gradescope's autograder
  (``results.json``: ``score``, ``output``, and one test per question with ``score``,
  ``max_score``, ``status`` and ``output``); the text is the learner feedback of
  :mod:`helpers.grade.reports`, so no hidden input or expected value is in it.
- :func:`find_notebook`: what ``python -m helpers.grade gradescope`` (:mod:`helpers.grade.grader`),
  the entry point a Gradescope ``run_autograder`` calls, grades in ``/autograder/submission``; it
  writes ``/autograder/results/results.json`` (both paths are options); :func:`gradescope_learner`
  reads whose submission it is (their cases and data are their own). The ``run_autograder``
  itself, with the package's fixed seed, is :func:`helpers.grade.gradescope_package.run_autograder`.
"""

from __future__ import annotations

import contextlib
import copy
import fcntl
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from . import inert, late
from .files import write_atomic
from .gradebook import Gradebook, Result
from .reports import (
    BY_INSTRUCTOR,
    REDRAWN,
    Learner,
    check_rows,
    collapse,
    display_names,
    error_types,
    feedback_markdown,
    learner_examples,
    question_result,
    submission_status,
)
from .reports import write_csv as _write_csv

__all__ = [
    "write_class_files",
    "class_rows",
    "grades_csv",
    "merge_manual",
    "ClassRow",
    "ROSTER_FIELDS",
    "canvas_csv",
    "gradescope_results",
    "find_notebook",
    "SUBMISSION_DIR",
    "RESULTS_FILE",
    "METADATA_FILE",
    "gradescope_learner",
]

CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
SUBMISSION_DIR = "/autograder/submission"
RESULTS_FILE = "/autograder/results/results.json"
#: Gradescope's own record of a submission (its submitters), beside the learner's upload, never in it.
METADATA_FILE = "/autograder/submission_metadata.json"


ROSTER_FIELDS = ("pattern", "id", "name", "section", "login", "canvas_id")


def _score(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def canvas_csv(title: str, max_score: float, scores: list[tuple[Learner, float | None]]) -> bytes:
    """A Canvas gradebook import file for one assignment column named ``title``.

    ``scores`` holds one ``(learner, score)`` per roster learner; ``None`` is missing (an empty cell).

    Parameters
    ----------
    title : str
        The assignment's column in Canvas.
    max_score : float
        The column's points possible.
    scores : list of (Learner, float or None)
        Each roster learner's score.

    Returns
    -------
    bytes
        The CSV file, learners sorted by name; every text cell neutralised against formulas.

    Examples
    --------
    >>> ann = Learner("ann.ipynb", "s1", "Ann Lee", section="A", login="alee")
    >>> bo = Learner("bo.ipynb", "s2", "Bo Chen", section="A", login="bchen")
    >>> print(canvas_csv("HW 1", 14, [(bo, None), (ann, 12.5)]).decode(), end="")
    Student,ID,SIS User ID,SIS Login ID,Section,HW 1
    Points Possible,,,,,14
    Ann Lee,,s1,alee,A,12.5
    Bo Chen,,s2,bchen,A,
    """
    rows = [[*CANVAS_COLUMNS, title], ["Points Possible", "", "", "", "", _score(max_score)]]
    for learner, score in sorted(scores, key=lambda pair: (pair[0].name, pair[0].id)):
        rows.append(
            [learner.name, learner.canvas_id, learner.id, learner.login, learner.section, _score(score)]
        )
    return _write_csv(rows)


def _test_output(q: dict, examples: list[list[dict]]) -> str:
    """One question's text for Gradescope (``output_format`` ``text``: shown as typed, never rendered)."""
    result, reason = question_result(q)
    if q.get("status") == "needs grading":
        result, reason = "needs grading", BY_INSTRUCTOR
    lines = [f"{result}: {reason}"]
    if q.get("kind") == "value":
        lines.append(REDRAWN)
    rows = [(f"{name} ({how})", outcome) for name, how, outcome in check_rows(q)]
    lines += [f"- {outcome}: {labels}" for labels, outcome in collapse(rows)]
    for shown in examples:
        for e in shown:
            got = "" if e.get("got") is None else f", got {e['got']}"
            lines.append(f"  - worked example {e['input']}: expected {e['expected']}{got}")
    types = error_types(q)
    if types:
        lines.append(f"- errors raised: {types}")
    return "\n".join(inert.plain(line, 4000) for line in lines)


# ------------------------------------------------------------------ from the gradebook
@dataclass(frozen=True)
class ClassRow:
    """A learner's current result as exported: hand-graded scores merged, lateness applied.

    Parameters
    ----------
    result : Result
        The gradebook's current result of the learner.
    report : dict
        Its report with the hand-graded scores merged (:func:`merge_manual`).
    learner : Learner or None
        Whose it is.
    lateness : Lateness
        How late it was handed in.
    score : float
        The score after the late penalty.
    """

    result: Result
    report: dict
    learner: Learner | None
    lateness: late.Lateness
    score: float


def merge_manual(result: Result, manual: dict[tuple[str, str, str], dict]) -> dict:
    """The result's report with the instructor's scores of its hand-graded answers (same file only).

    Parameters
    ----------
    result : Result
        A gradebook result.
    manual : dict
        ``(learner, question, sha256)`` -> the instructor's ``points``, ``comment`` and ``grader``;
        a score given to another file of the same learner does not apply.

    Returns
    -------
    dict
        A copy of the result's report with the points, comments and total updated.

    Examples
    --------
    >>> q = {"question": "q2", "target": "why", "kind": "text", "points": 0.0, "max_points": 3.0,
    ...      "status": "needs grading", "reason": "graded by your instructor", "answer": "NDCG"}
    >>> r = Result(1, 1, "s1", "s1", "ann", "ann.ipynb", "abc", None, "", 7, "graded", "", 2.0, 5.0,
    ...            {"score": 2.0, "questions": [{"points": 2.0}, q]})
    >>> merged = merge_manual(r, {("s1", "q2", "abc"): {"points": 2.5, "comment": "good", "grader": "t",
    ...                                                 "at": "2026-03-02T10:00:00Z"}})
    >>> merged["score"], merged["questions"][1]["status"], merged["questions"][1]["reason"]
    (4.5, 'hand graded', 'good')
    """
    report = copy.deepcopy(result.report)
    for q in report.get("questions", []):
        given = manual.get((result.who, q.get("question", ""), result.sha256))
        if q.get("kind") == "text" and q.get("status") == "needs grading" and given:
            q.update(points=given["points"], status="hand graded", comment=given["comment"])
            q.update(reason=given["comment"] or "scored by your instructor", graded_at=given["at"])
    report["score"] = round(sum(q["points"] for q in report.get("questions", [])), 2)
    return report


def _when(text: str | None) -> datetime | None:
    return None if not text else datetime.fromisoformat(text.replace("Z", "+00:00"))


def class_rows(book: Gradebook) -> tuple[list[ClassRow], list[Learner]]:
    """Every learner's current result as exported, and the roster learners with none (missing).

    Parameters
    ----------
    book : Gradebook
        The assignment's gradebook.

    Returns
    -------
    tuple of (list of ClassRow, list of Learner)
        The rows, and the roster learners without a submission.
    """
    policy = late.LatePolicy.from_json(book.meta("late_policy"))
    roster = [Learner(**{k: x[k] for k in ROSTER_FIELDS}) for x in book.roster()]
    by_id = {x.id: x for x in roster}
    manual = book.manual_scores()
    rows = []
    for result in book.current():
        report = merge_manual(result, manual)
        lateness = late.assess(_when(result.submitted_at), policy)
        learner = by_id.get(result.learner or "") or (Learner("", result.learner) if result.learner else None)
        score = late.apply(report["score"], report["max_score"], lateness)
        rows.append(ClassRow(result, report, learner, lateness, score))
    graded = {row.learner.id for row in rows if row.learner}
    return rows, [x for x in roster if x.id not in graded]


def _missing_score(policy: late.LatePolicy, now: datetime) -> float | None:
    closes = policy.closes
    return 0.0 if policy.missing_zero and closes is not None and now > closes else None


GRADES_HEAD = ["learner_id", "name", "submission", "file", "status", "reason", "isolation", "seed"]
GRADES_LATE = ["submitted_at", "days_late", "late_penalty_percent", "score_before_penalty"]


def _grades_row(row: ClassRow, file: str, targets: list[str]) -> list[Any]:
    rep, result = row.report, row.result
    status, reason = submission_status(rep)
    by_target = {q["target"]: q for q in rep.get("questions", [])}
    points = [_score(by_target[t]["points"]) if t in by_target else "0" for t in targets]
    results = [question_result(by_target[t])[0] if t in by_target else "not graded" for t in targets]
    learner = [row.learner.id, row.learner.name] if row.learner else ["", ""]
    lateness = [
        result.submitted_at or "",
        row.lateness.days if result.submitted_at else "",  # no time from the LMS: unknown, not "on time"
        _score(row.lateness.penalty),
        _score(rep["score"]),
    ]
    return [
        *learner, result.submission, file, status, reason, rep.get("isolation", ""), result.seed, *lateness,
        _score(row.score), _score(rep["max_score"]), *points, *results, result.graded_at, result.sha256,
    ]  # fmt: skip


def _contest_reason(files: list[str]) -> str:
    names = ", ".join(inert.plain(f, 200) for f in files[:5])
    return (
        f"conflict: the files {names} all claim this learner, so none is graded as theirs; rename or "
        "remove all but the right one, then grade again"
    )


def _missing_row(learner: Learner, files: list[str] | None, score: float | None) -> tuple[str, str, str]:
    """Status, reason and score of a roster learner with no current result: ``conflict`` (never a
    score) when several files of a run claimed them, else ``missing``."""
    if files:
        return "conflict", _contest_reason(files), ""
    return "missing", f"no file matched the roster entry {learner.pattern!r}", _score(score)


def grades_csv(
    info: dict,
    rows: list[ClassRow],
    missing: list[Learner],
    missing_score: float | None,
    contested: dict[str, list[str]] | None = None,
) -> bytes:
    """``grades.csv``: a row per current result (ordered by learner), then one per missing learner.

    Columns: ``learner_id``, ``name``, ``submission``, ``file`` (NFC, look-alikes marked), ``status``,
    ``reason``, ``isolation``, ``seed``, ``submitted_at``, ``days_late``, ``late_penalty_percent``,
    ``score_before_penalty``, ``score`` (after the penalty), ``max_score``, the points of each
    question (named after its function, variable or answer cell) and, for each, ``<target> result``,
    then ``graded_at`` and ``sha256`` (of the file graded). A missing learner's score is empty
    (or 0 after the deadline with ``--missing-zero``). A learner in ``contested`` (roster id: the
    files of a run that all claimed them) is ``conflict`` with an empty score when they have no
    result, and keeps their current result otherwise, its reason naming the files.

    Parameters
    ----------
    info : dict
        The gradebook's assignment record (title, targets, maximum, deadline).
    rows : list of ClassRow
        From :func:`class_rows`.
    missing : list of Learner
        Roster learners without a submission.
    missing_score : float or None
        Their score: None (empty) before the deadline or without ``--missing-zero``, else 0.
    contested : dict, optional
        Roster id to the names of the files of a run that all claimed that learner.

    Returns
    -------
    bytes
        The CSV file.
    """
    contested = contested or {}
    targets = [q["target"] for q in info["questions"]]
    header = [*GRADES_HEAD, *GRADES_LATE, "score", "max_score", *targets, *[f"{t} result" for t in targets]]
    out: list[list[Any]] = [[*header, "graded_at", "sha256"]]
    shown = display_names([row.report.get("file", "") for row in rows])
    for row, file in zip(rows, shown, strict=True):
        out.append(_grades_row(row, file, targets))
        if row.learner and row.learner.id in contested:
            at = GRADES_HEAD.index("reason")
            said = _contest_reason(contested[row.learner.id]) + " (this result is earlier)"
            out[-1][at] = "; ".join(part for part in (out[-1][at], said) if part)
    for learner in missing:
        status, reason, score = _missing_row(learner, contested.get(learner.id), missing_score)
        blank = [""] * (len(GRADES_LATE) + 2)
        out.append([learner.id, learner.name, "", "", status, reason, "", "", *blank])
        out[-1][len(GRADES_HEAD) + len(GRADES_LATE)] = score
        out[-1] += [_score(info["max_score"]), *[""] * len(targets), *["missing"] * len(targets), "", ""]
    return _write_csv(out)


def _feedback(row: ClassRow, file: str, title: str) -> bytes:
    text = feedback_markdown(row.report, row.learner, file, title)
    if row.lateness.note:
        lines = text.split("\n")
        at = next((i + 1 for i, x in enumerate(lines) if x.startswith("- status:")), 2)
        extra = f"- deadline: {row.lateness.note}"
        if row.lateness.penalty:
            extra += f"; score after the penalty: **{_score(row.score)} / {_score(row.report['max_score'])}**"
        text = "\n".join([*lines[:at], extra, *lines[at:]])
    return text.encode("utf-8", "backslashreplace")


def _report_json(row: ClassRow) -> bytes:
    data = {**row.report, "late": {"days": row.lateness.days, "penalty_percent": row.lateness.penalty,
                                   "note": row.lateness.note}, "final_score": row.score}  # fmt: skip
    return (json.dumps(data, indent=1, ensure_ascii=False) + "\n").encode("utf-8", "backslashreplace")


#: the stems of files the tools write in an output folder (``similarity.json``, ``grades.csv``...):
#: no report takes them (``grader._report_names``) and no stale removal deletes them (red team 21)
TOOL_NAMES = frozenset({"similarity", "grades", "canvas", "gradebook"})


def _remove_stale(out: Path, book: Gradebook, current: set[str]) -> None:
    """Delete the report and feedback files of results that are no longer anybody's current one.

    Names are compared case-blind, as report names are given (``grader._report_names``): on macOS
    and Windows ``HW.json`` is ``hw.json``, so a stale ``HW`` is never removed while ``hw`` is a
    current result's (red team 15: that removed a classmate's feedback)."""
    kept = {name.casefold() for name in current}
    for name in {r.submission for r in book.history()} - current:
        if name.casefold() not in kept:
            if name.casefold() not in TOOL_NAMES:  # ``OUT/similarity.json`` is the copy report's
                (out / f"{name}.json").unlink(missing_ok=True)
            (out / "feedback" / f"{name}.md").unlink(missing_ok=True)


def write_class_files(out: Path, book: Gradebook, now: datetime | None = None) -> None:
    """Write ``grades.csv``, the feedback and JSON report of every current result and, with a
    roster, ``canvas.csv``, all from the gradebook (see the module's docstring).

    ``now`` decides whether the deadline has passed (for ``--missing-zero``); default: now.

    Parameters
    ----------
    out : pathlib.Path
        The output folder (holding ``gradebook.sqlite``).
    book : Gradebook
        The assignment's gradebook.
    now : datetime, optional
        The moment compared with the deadline.
    """
    with _writing(out):  # the gradebook read inside: whichever writer ends last wrote the newest state
        _write_class_files(out, book, now)


@contextlib.contextmanager
def _writing(out: Path) -> Iterator[None]:
    """One writer of the class's files at a time (a ``flock`` on the folder ``OUT/feedback``,
    waited for; no file of its own). *Decision*
    (red team 20): an ``export`` or a hand grade saved while a run grades reads the gradebook and
    writes; had it read before the run's last commit and written after the run's own export, the
    files would miss that result. Each writer reads inside the lock, so the last one to write read
    after every earlier write."""
    (out / "feedback").mkdir(exist_ok=True)
    fd = os.open(out / "feedback", os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _write_class_files(out: Path, book: Gradebook, now: datetime | None) -> None:
    info = book.assignment
    policy = late.LatePolicy.from_json(book.meta("late_policy"))
    rows, missing = class_rows(book)
    missing_score = _missing_score(policy, now or datetime.now(UTC))
    contested = book.meta("contested") or {}
    write_atomic(out, "grades.csv", grades_csv(info, rows, missing, missing_score, contested))
    feedback = out / "feedback"
    feedback.mkdir(exist_ok=True)
    shown = display_names([row.report.get("file", "") for row in rows])
    for row, file in zip(rows, shown, strict=True):
        write_atomic(feedback, f"{row.result.submission}.md", _feedback(row, file, info["title"]))
        if row.result.submission.casefold() not in TOOL_NAMES:  # an older book's name: the tool's file
            write_atomic(out, f"{row.result.submission}.json", _report_json(row))
    _remove_stale(out, book, {row.result.submission for row in rows})
    if book.roster():
        scores: list[tuple[Learner, float | None]] = [(x.learner, x.score) for x in rows if x.learner]
        scores += [(x, None if x.id in contested else missing_score) for x in missing]
        write_atomic(out, "canvas.csv", canvas_csv(info["title"], info["max_score"], scores))


def gradescope_results(report: dict, title: str) -> dict:
    """Gradescope's ``results.json`` for one report: a test per question, the feedback as Markdown.

    Every test's ``output`` is plain text (``output_format`` ``text``, which Gradescope shows
    verbatim) and the overall ``output`` is the learner's feedback Markdown, in which learner
    text is code spans or escaped (:mod:`helpers.grade.inert`); test names are plain text.

    Parameters
    ----------
    report : dict
        The submission's report.
    title : str
        The assignment's title.

    Returns
    -------
    dict
        The ``results.json`` content: ``score``, ``output``, ``output_format`` and ``tests``.

    Examples
    --------
    >>> q = {"target": "f", "title": "F", "points": 1.0, "max_points": 2.0, "status": "partial",
    ...      "checks": [{"name": "edge", "hidden": True, "passed": False, "points": 0, "max_points": 1,
    ...                  "feedback": "failed on 1 of 3 cases (edge); e.g. wrong value"}]}
    >>> out = gradescope_results({"score": 1.0, "max_score": 2.0, "questions": [q], "file": "a.ipynb"}, "HW")
    >>> test = out["tests"][0]
    >>> out["score"], test["status"], test["max_score"], test["output_format"]
    (1.0, 'failed', 2.0, 'text')
    """
    tests = []
    questions = report.get("questions", [])
    for number, (q, examples) in enumerate(zip(questions, learner_examples(questions), strict=True), start=1):
        tests.append(
            {
                "name": inert.plain(f"{q.get('title', q['target'])} ({q['target']})", 300),
                "number": str(number),
                "score": float(q["points"]),
                "max_score": float(q["max_points"]),
                "status": "passed" if q["points"] >= q["max_points"] else "failed",
                "output": _test_output(q, examples),
                "output_format": "text",
                "visibility": "visible",
            }
        )
    status, reason = submission_status(report)
    return {
        "score": float(report["score"]),
        "output": feedback_markdown({**report, "questions": []}, None, report.get("file", ""), title),
        "output_format": "md",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "extra_data": {
            "status": inert.plain(status),
            "reason": inert.plain(reason),
        },
        "tests": tests,
    }


def find_notebook(folder: Path, assignment_name: str) -> tuple[Path | None, str]:
    """The notebook to grade in a Gradescope submission folder, or ``None`` and why.

    ``<assignment>.ipynb`` anywhere in the folder wins; otherwise the only ``.ipynb``
    (checkpoints excluded). Nothing is followed out of the folder.

    Parameters
    ----------
    folder : pathlib.Path
        Gradescope's ``/autograder/submission``.
    assignment_name : str
        The assignment's name.

    Returns
    -------
    tuple of (pathlib.Path or None, str)
        The notebook and an empty reason, or None and what the learner should upload instead.
    """
    found = sorted(
        p
        for p in folder.rglob("*.ipynb")
        if ".ipynb_checkpoints" not in p.parts and "__MACOSX" not in p.parts
    )
    named = [p for p in found if p.name == f"{assignment_name}.ipynb"]
    if len(named) == 1:
        return named[0], ""
    if len(found) == 1:
        return found[0], ""
    if not found:
        return None, "no .ipynb notebook was uploaded"
    names = ", ".join(p.name for p in found[:5])
    return None, f"upload one notebook only, named {assignment_name}.ipynb (found {names})"


def gradescope_learner(path: Path) -> tuple[str, str]:
    """Whose submission Gradescope is grading, from its ``submission_metadata.json``, as a learner key.

    The key is ``gradescope:`` and the submitters' Gradescope user ids, sorted (a group's members
    share it). Gradescope writes the file outside ``/autograder/submission``, so nothing a learner
    uploads chooses it.

    Parameters
    ----------
    path : pathlib.Path
        Gradescope's ``/autograder/submission_metadata.json``.

    Returns
    -------
    tuple of (str, str)
        The key and an empty problem, or ``""`` and why the file gave none.

    Examples
    --------
    >>> import json, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     meta = Path(tmp, "m.json")
    ...     _ = meta.write_text(json.dumps({"users": [{"id": 20}, {"id": 7}]}))
    ...     gradescope_learner(meta), gradescope_learner(Path(tmp, "none.json"))[0]
    (('gradescope:20,7', ''), '')
    """
    try:
        users = json.loads(path.read_bytes()[: 1 << 20] or b"null")["users"]
        ids = sorted(str(u["id"]) for u in users)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return "", f"{path} gave no submitter ({type(exc).__name__})"
    if not ids or any(not i or len(i) > 64 for i in ids):
        return "", f"{path} gave no submitter"
    return "gradescope:" + ",".join(ids), ""
