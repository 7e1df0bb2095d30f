"""Grades in the formats learning platforms import: a Canvas gradebook CSV and Gradescope's ``results.json``.

- :func:`canvas_csv`: the columns Canvas's gradebook import matches learners on (``Student``,
  ``ID``, ``SIS User ID``, ``SIS Login ID``, ``Section``), one column named after the assignment,
  and the ``Points Possible`` row. Learners come from the roster: ``id`` is the SIS User ID,
  ``login`` the SIS Login ID, ``canvas_id`` Canvas's own ID. A learner with several files gets
  the best score; a roster learner without a file gets 0.
- :func:`gradescope_results`: one submission's report in the format of Gradescope's autograder
  (``results.json``: ``score``, ``output``, and one test per question with ``score``,
  ``max_score``, ``status`` and ``output``); the text is the learner feedback of
  :mod:`helpers.grade.reports`, so no hidden input or expected value is in it.
- :func:`find_notebook` and :func:`run_autograder_script`: what ``python -m helpers.grade gradescope``
  (:mod:`helpers.grade.grader`), the entry point a Gradescope ``run_autograder`` calls, grades in
  ``/autograder/submission``; it writes ``/autograder/results/results.json`` (both paths are options).
"""

from __future__ import annotations

import shlex
from pathlib import Path

from . import inert
from .reports import (
    BY_INSTRUCTOR,
    REDRAWN,
    Learner,
    check_rows,
    collapse,
    error_types,
    feedback_markdown,
    learner_examples,
    question_result,
    submission_status,
)
from .reports import write_csv as _write_csv

__all__ = [
    "canvas_csv",
    "gradescope_results",
    "run_autograder_script",
    "find_notebook",
    "SUBMISSION_DIR",
    "RESULTS_FILE",
]

CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
SUBMISSION_DIR = "/autograder/submission"
RESULTS_FILE = "/autograder/results/results.json"


def _score(value: float) -> str:
    return f"{value:g}"


def canvas_csv(
    title: str, max_score: float, graded: list[tuple[Learner | None, float]], absent: list[Learner]
) -> bytes:
    """A Canvas gradebook import file for one assignment column named ``title``.

    Examples
    --------
    >>> ann = Learner("ann.ipynb", "s1", "Ann Lee", section="A", login="alee")
    >>> print(canvas_csv("HW 1", 14, [(ann, 12.5), (ann, 13.0), (None, 3.0)], []).decode(), end="")
    Student,ID,SIS User ID,SIS Login ID,Section,HW 1
    Points Possible,,,,,14
    Ann Lee,,s1,alee,A,13
    """
    best: dict[str, tuple[Learner, float]] = {}
    for learner, score in graded:
        if learner is not None and (learner.id not in best or score > best[learner.id][1]):
            best[learner.id] = (learner, score)
    for learner in absent:
        best.setdefault(learner.id, (learner, 0.0))
    rows = [[*CANVAS_COLUMNS, title], ["Points Possible", "", "", "", "", _score(max_score)]]
    for learner, score in sorted(best.values(), key=lambda pair: (pair[0].name, pair[0].id)):
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


def gradescope_results(report: dict, title: str) -> dict:
    """Gradescope's ``results.json`` for one report: a test per question, the feedback as Markdown.

    Every test's ``output`` is plain text (``output_format`` ``text``, which Gradescope shows
    verbatim) and the overall ``output`` is the learner's feedback Markdown, in which learner
    text is code spans or escaped (:mod:`helpers.grade.inert`); test names are plain text.

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
            "seed": report.get("seed"),
        },
        "tests": tests,
    }


def find_notebook(folder: Path, assignment_name: str) -> tuple[Path | None, str]:
    """The notebook to grade in a Gradescope submission folder, or ``None`` and why.

    ``<assignment>.ipynb`` anywhere in the folder wins; otherwise the only ``.ipynb``
    (checkpoints excluded). Nothing is followed out of the folder.
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


def run_autograder_script(assignment: str, source: str = "/autograder/source") -> str:
    """The ``run_autograder`` of a Gradescope autograder zip: the course is installed in ``source``.

    Examples
    --------
    >>> print(run_autograder_script("from-scratch").splitlines()[-1])
    exec python3 -m helpers.grade gradescope --assignment from-scratch
    """
    return (
        "#!/usr/bin/env bash\n"
        "# Gradescope runs this for every submission: grade /autograder/submission in the course's own\n"
        "# sandbox and write /autograder/results/results.json.\n"
        "set -euo pipefail\n"
        f"cd {shlex.quote(source)}\n"
        f"exec python3 -m helpers.grade gradescope --assignment {shlex.quote(assignment)}\n"
    )
