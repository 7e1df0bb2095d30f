"""Feedback a learner can act on (issue 31, item 6), from scoring to the Markdown and ``results.json``.

No sandbox here: the sandbox's answers are written as it would send them (tagged values), so each
rule is tested alone; ``test_redteam3_scoring.py`` grades real notebooks in the sandbox.
"""

from __future__ import annotations

import json
import random

from helpers.grade import exports, reports, scoring
from helpers.grade.assignments import ASSIGNMENTS
from helpers.grade.grader import make_plan

A = ASSIGNMENTS["from-scratch"]
SEED = 7
PLAN = make_plan(A, SEED)


def _tag(value) -> dict:
    return {"t": "float", "v": float(value).hex()}


def _raw(q, answer) -> dict:
    """A sandbox result whose value on each case is ``answer(args, expected)``."""
    cases = PLAN.cases[q.name]
    results = [
        {"value": _tag(answer(args, exp))}
        for (_, args), exp in zip(cases, PLAN.expected[q.name], strict=True)
    ]
    return {"status": "ok", "cases": results}


def _score(q, answer) -> dict:
    return scoring.score_question(q, PLAN.cases[q.name], PLAN.expected[q.name], _raw(q, answer))


def _hidden_args(q) -> list[str]:
    """The rankings of the question's hidden cases that no worked example shares (never empty here)."""
    hidden = {c.name for c in q.checks if c.hidden}
    cases = PLAN.cases[q.name]
    public = {repr(args[0]) for check, args in cases if check not in hidden}
    found = sorted({repr(args[0]) for check, args in cases if check in hidden} - public)
    assert len(found) > 10
    return found


# ------------------------------------------------------------------ scoring
def _zeros_but_a_few(rng: random.Random):
    return lambda args, exp: rng.random() if len(args[0]) > 7 and rng.random() < 0.3 else 0.0


def test_right_answers_score_full_marks_and_zeros_but_a_few_score_nothing():
    for q in A.questions:
        assert _score(q, lambda args, exp: exp)["points"] == q.points
        noisy = _score(q, _zeros_but_a_few(random.Random(1)))
        assert noisy["points"] == 0.0, (q.target, [(c["name"], c["points"]) for c in noisy["checks"]])


def test_a_constant_check_scores_when_the_randomised_check_passes():
    q = A.question("precision_at_k")
    general = next(c.name for c in q.checks if c.general)
    # right on the randomised check and on the zero-answer checks, wrong elsewhere: those score
    wrong_elsewhere = {c.name for c in q.checks if c.hidden and not c.general} - {
        "no relevant item gives 0.0"
    }
    cases = PLAN.cases[q.name]
    answers = iter(
        exp if check in (general, "no relevant item gives 0.0") or check not in wrong_elsewhere else exp + 0.5
        for (check, _), exp in zip(cases, PLAN.expected[q.name], strict=True)
    )
    report = _score(q, lambda args, exp: next(answers))
    earned = {c["name"] for c in report["checks"] if c["points"] > 0}
    assert earned == {general, "no relevant item gives 0.0"}


def test_type_names_chosen_by_the_notebook_are_never_shown():
    q = A.question("precision_at_k")
    cases = PLAN.cases[q.name]
    raw = {"status": "ok", "cases": [{"error": f"{args!r}: boom"} for _, args in cases]}
    report = scoring.score_question(q, cases, PLAN.expected[q.name], raw)
    text = json.dumps(report["checks"]) + reports.error_types(report)
    assert "an exception class from the notebook or a package" in text
    assert not [a for a in _hidden_args(q) if a in text]
    other = {
        "status": "ok",
        "cases": [{"value": {"t": "other", "type": "__main__.<img src=x>"}}] * len(cases),
    }
    report = scoring.score_question(q, cases, PLAN.expected[q.name], other)
    assert "returned a class from the notebook or a package, not a number" in json.dumps(report)
    missing = scoring.score_question(
        q, cases, [], {"status": "not_callable", "what": "__main__.[x](y)", "cases": []}
    )
    assert missing["reason"] == "precision_at_k is a class from the notebook or a package, not a function"


# ------------------------------------------------------------------ the feedback file
def _report(questions: list[dict], **extra) -> dict:
    score = sum(q["points"] for q in questions)
    return {
        "score": score,
        "max_score": A.max_score,
        "file": "a.ipynb",
        "questions": questions,
        "warnings": [],
        "cell_errors": [],
        **extra,
    }


def test_failed_worked_examples_show_input_expected_and_got():
    q = A.question("precision_at_k")
    report = _score(q, lambda args, exp: 0.25)
    text = reports.feedback_markdown(_report([report]), None, "a.ipynb", A.title)
    public = next(c for c in report["checks"] if not c["hidden"] and c["max_points"] == 0 and "examples" in c)
    example = public["examples"][0]
    assert f"` {example['input']} `: expected ` {example['expected']} `, got ` 0.25 `" in text
    assert all("examples" not in c for c in report["checks"] if c["hidden"])  # hidden checks: name only
    assert not [a for a in _hidden_args(q) if a in text]


def test_got_is_shown_on_every_worked_example_since_public_cases_run_first():
    """The sandbox runs every question's public cases before any hidden one (helpers.grade.child),
    so what a later question returned on a worked example cannot carry a hidden input."""
    first, second = A.question("precision_at_k"), A.question("recall_at_k")
    reports_ = [_score(first, lambda args, exp: 0.25), _score(second, lambda args, exp: 0.25)]
    text = reports.feedback_markdown(_report(reports_), None, "a.ipynb", A.title)
    second_part = text.split("### Recall")[1]
    assert "expected ` " in second_part and "got ` 0.25 `" in second_part
    assert reports.GOT_WITHHELD not in text
    data = exports.gradescope_results(_report(reports_), A.title)
    assert ", got " in data["tests"][0]["output"] and ", got " in data["tests"][1]["output"]


def test_got_is_withheld_after_a_hidden_case_in_a_report_graded_before_that_order():
    """A gradebook's older report (no ``public_errors``: hidden cases ran between the questions'
    public ones) keeps the old rule: ``got`` only before the first hidden case ran."""
    first, second = A.question("precision_at_k"), A.question("recall_at_k")
    reports_ = [_score(first, lambda args, exp: 0.25), _score(second, lambda args, exp: 0.25)]
    old = [{k: v for k, v in q.items() if k != "public_errors"} for q in reports_]
    text = reports.feedback_markdown(_report(old), None, "a.ipynb", A.title)
    second_part = text.split("### Recall")[1]
    assert "expected ` " in second_part and "got ` " not in second_part
    assert "not shown for this older grading run" in second_part
    data = exports.gradescope_results(_report(old), A.title)
    assert ", got " in data["tests"][0]["output"] and ", got " not in data["tests"][1]["output"]


def test_a_reason_repeated_everywhere_is_said_once():
    reason = "did not report: running the notebook failed: timed out after 4 s"
    questions = [scoring.fail_question(q, reason, "no report") for q in A.questions]
    text = reports.feedback_markdown(_report(questions), None, "a.ipynb", A.title)
    assert text.count("timed out after 4 s") == 1, text
    assert (
        sum(line.startswith("- failed: ") or line.startswith("- failed") for line in text.splitlines()) == 7
    )
    data = exports.gradescope_results(_report(questions), A.title)
    assert all(t["output"].count("\n- ") == 1 for t in data["tests"])  # one line for all its checks


def test_syntax_errors_show_line_and_message_runtime_errors_only_their_type():
    errors = [
        {"by": "parse", "cell": 4, "line": 2, "error": "SyntaxError: '(' was never closed (cell skipped)"},
        {"cell": 5, "line": 1, "error": "KeyError: 'u3'"},
        {"cell": 6, "line": 1, "error": "u3_i7_hidden: [1, 2]"},
    ]
    text = reports.feedback_markdown(_report([], cell_errors=errors), None, "a.ipynb", A.title)
    assert "- cell 4, line 2: ` SyntaxError: '(' was never closed ` (the cell was skipped)" in text
    assert "- cell 5, line 1: raised ` KeyError `" in text and "'u3'" not in text
    assert (
        "cell 6, line 1: raised ` an exception class from the notebook or a package `" in text
        and "u3_i7" not in text
    )


def test_who_found_a_cell_error_decides_what_is_shown_never_its_text():
    """Red team 9: an exception class the notebook names like the grader's own notes (a syntax error,
    a cell that did not finish) is shown as any run-time error: its type label only."""
    forged = [
        {"cell": 2, "line": 1, "error": "this cell did not finish: the process exited with code 77"},
        {"cell": 3, "line": 1, "error": "SyntaxError: u3_i7 (cell skipped)"},
    ]
    text = reports.feedback_markdown(_report([], cell_errors=forged), None, "a.ipynb", A.title)
    assert "code 77" not in text and "u3_i7" not in text
    assert "- cell 2, line 1: raised ` an exception class from the notebook or a package `" in text
    assert "- cell 3, line 1: raised ` SyntaxError `" in text
    hung = [{"by": "grader", "cell": 2, "line": 1, "error": "this cell did not finish: timed out"}]
    text = reports.feedback_markdown(_report([], cell_errors=hung), None, "a.ipynb", A.title)
    assert "- cell 2, line 1: this cell did not finish\\: timed out" in text


def test_value_answers_never_show_this_runs_value_and_say_it_is_redrawn():
    a = ASSIGNMENTS["choosing-metrics"]
    plan = make_plan(a, SEED)
    q = a.questions[0]
    raw = {"status": "ok", "cases": [{"value": _tag(0.5)}] * len(plan.expected[q.name])}  # one per draw
    report = scoring.score_question(q, plan.cases[q.name], plan.expected[q.name], raw)
    assert report["checks"][0]["hidden"] and "examples" not in report["checks"][0]
    text = reports.feedback_markdown(_report([report]), None, "a.ipynb", a.title)
    assert "drawn anew when the notebook is graded" in text and "compute it with code" in text
    assert repr(plan.expected[q.name][0]) not in text
    assert reports.REDRAWN in exports.gradescope_results(_report([report]), a.title)["tests"][0]["output"]


def test_a_hand_graded_question_says_who_grades_it():
    q = {
        "question": "q9",
        "target": "why",
        "title": "Which metric, and why?",
        "points": 0.0,
        "max_points": 3.0,
        "status": "needs grading",
        "answer": "[x](javascript:alert(1))",
        "checks": [],
    }
    text = reports.feedback_markdown(_report([q]), None, "a.ipynb", A.title)
    assert "0 / 3 — needs grading" in text and "graded by your instructor" in text
    assert "javascript" not in text
