"""Red team 9's two robustness notes: a forged reply's value ends as "wrong" for that learner, never as
an internal grading error.

* an int of 400 digits (within the runner's 4,300-digit cap) where a number is expected: ``float()``
  raised ``OverflowError``;
* a ``not_callable`` reply whose ``what`` is a list (not a type name): ``name in frozenset`` raised
  ``TypeError``.
"""

from __future__ import annotations

from helpers.grade import grader, scoring
from helpers.grade.assignments import ASSIGNMENTS

A = ASSIGNMENTS["from-scratch"]


def test_a_huge_int_is_a_wrong_value():
    q = A.question("precision_at_k")
    plan = grader.make_plan(A, 1)
    huge = {"value": {"t": "int", "v": "1" + "0" * 400}}
    raw = {"ev": "result", "q": q.name, "status": "ok", "cases": [huge] * len(plan.cases[q.name])}
    report = scoring.score_question(q, plan.cases[q.name], plan.expected[q.name], raw)
    assert report["points"] == 0.0 and report["status"] in ("failed", "same answer for every input"), report


def test_a_forged_type_label_is_a_class_of_the_notebook():
    q = A.question("precision_at_k")
    plan = grader.make_plan(A, 1)
    raw = {"ev": "result", "q": q.name, "status": "not_callable", "what": [1, 2], "cases": []}
    report = scoring.score_question(q, plan.cases[q.name], plan.expected[q.name], raw)
    assert report["points"] == 0.0 and "a class from the notebook or a package" in report["reason"], report
