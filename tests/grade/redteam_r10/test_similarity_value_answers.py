"""The tenth red team: ``similarity`` never compares the answers of ``choosing-metrics``, and its report
says nothing about it.

``similarity`` compares the functions a notebook binds to the assignment's *function* questions, and
every other function it defines (``targets = {q.target ... if q.kind == "function"}``). The five
questions of ``choosing-metrics`` are value questions: their answers are module-level code
(``answer_q1 = float(helpers.evaluate(...)...)``), in no function. Two byte-identical copies of the
course's own solution notebook, both scoring 10/10, give a report of "2 submissions", no pair, no
match with the course's code (the solution notebook is a reference) and no "not compared" line: it
reads as a class without copies. The README promises the comparison "of every pair of notebooks".

Asserted: the report names the identical pair, or says that these notebooks' answers were not
compared. The principle that would close it: an assignment's value answers are compared too (the
module-level statements that bind each answer variable, normalised like a function body); or the
report says, for each assignment it cannot compare, that it did not.
"""

from __future__ import annotations

import io
import shutil
from pathlib import Path

from helpers.grade import grader, isolation, similarity
from helpers.grade.assignments import ASSIGNMENTS

ROOT = Path(__file__).resolve().parents[3]


def test_identical_choosing_metrics_notebooks_are_in_the_report(bwrap, tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    solution = ROOT / "exercises" / "source" / "choosing-metrics.ipynb"
    shutil.copyfile(solution, folder / "bob.ipynb")  # Bob's work
    shutil.copyfile(solution, folder / "mallory.ipynb")  # Mallory's copy of it, byte for byte
    done = grader.grade_many(
        sorted(folder.iterdir()), ASSIGNMENTS["choosing-metrics"], tmp_path / "out", jobs=2,
        mode=isolation.BUBBLEWRAP, progress=io.StringIO(),
    )  # fmt: skip
    assert {r["file"]: r["score"] for r in done} == {"bob.ipynb": 10.0, "mallory.ipynb": 10.0}
    out = tmp_path / "report"
    assert similarity.main(["--assignment", "choosing-metrics", "--out", str(out), str(folder)]) == 0
    report = (out / "similarity.md").read_text(encoding="utf-8")
    pairs = report.split("## Pairs of submissions")[1].split("## Matches")[0]
    said = "` bob.ipynb ` | ` mallory.ipynb `" in pairs or "not compared" in report
    assert said, report
