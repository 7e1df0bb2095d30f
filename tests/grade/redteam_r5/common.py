"""What the fifth red team's tests share: notebooks made from code, a class graded beside honest
classmates, and the learner's feedback cut into its questions."""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path
from typing import Any

from helpers.grade import exports, isolation
from helpers.grade import grader as grade
from helpers.grade.assignments import ASSIGNMENTS

CORPUS = Path(__file__).resolve().parent.parent / "grading_corpus"
A = ASSIGNMENTS["from-scratch"]


def notebook(path: Path, *sources: str) -> Path:
    cells = [
        {"cell_type": "code", "metadata": {}, "source": s, "outputs": [], "execution_count": None}
        for s in sources
    ]
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


def call_numbers(target: str, seed: int) -> tuple[int, dict[int, str]]:
    """For ``target``'s cases in a run with ``seed``: the call number of its first randomised case,
    and the check of each hidden call. A learner can count them without the seed: every question's
    public cases run first, then its hidden ones in order, and the checks' sizes are fixed by the
    course's public code; the seed here only picks which hidden input the tests compare with."""
    question = A.question(target)
    hidden = {c.name for c in question.checks if c.hidden}
    cases = grade.make_plan(A, seed).cases[question.name]
    public = sum(1 for check, _ in cases if check not in hidden)
    calls, n = {}, public
    for check, _ in cases:
        if check in hidden:
            n += 1
            calls[n] = check
    first_random = next(i for i, (check, _) in enumerate(cases) if check == "randomized cases")
    return first_random + 1, calls


def hidden_k(target: str, seed: int) -> int:
    """The ``k`` of ``target``'s first randomised (hidden) case in a run with ``seed``."""
    question = A.question(target)
    cases = grade.make_plan(A, seed).cases[question.name]
    return next(args for check, args in cases if check == "randomized cases")[2]


def grade_class(folder: Path, out: Path, seed: int, assignment: Any = A) -> dict[str, dict]:
    """Grade every notebook of ``folder`` (two at a time, in the real sandbox): report, feedback and
    Gradescope results.json of each file."""
    done = grade.grade_many(
        sorted(folder.iterdir()), assignment, out, jobs=2, seed=seed, mode=isolation.BUBBLEWRAP,
        progress=io.StringIO(),
    )  # fmt: skip
    graded = {}
    for report in done:
        feedback = (out / "feedback" / f"{report['submission']}.md").read_text(encoding="utf-8")
        results = json.dumps(exports.gradescope_results(report, assignment.title))
        graded[report["file"]] = {"report": report, "feedback": feedback, "results": results}
    return graded


def with_honest(folder: Path, *names: str) -> None:
    for name in names:
        shutil.copyfile(CORPUS / "perfect.ipynb", folder / name)


def section(feedback: str, target: str) -> str:
    """One question's part of a learner's feedback (from its heading to the next)."""
    parts = re.split(r"(?m)^### ", feedback)
    found = [p for p in parts if f"` {target} `" in p.split("\n", 1)[0]]
    assert len(found) == 1, (target, feedback)
    return found[0]
