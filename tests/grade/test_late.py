"""Deadlines and the late policy (issue 31, item 3's policy part): lateness at the boundaries, shown
per learner in grades.csv and the feedback, applied in canvas.csv, and stored in the gradebook."""

from __future__ import annotations

import csv
import io
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from helpers.grade import exports, late, reports
from helpers.grade import grader as grade
from helpers.grade.assignments import ASSIGNMENTS
from helpers.grade.collect import Submission
from helpers.grade.gradebook import Gradebook

CORPUS = Path(__file__).resolve().parent / "grading_corpus"
DEADLINE = datetime(2026, 3, 1, 23, 59, tzinfo=UTC)
POLICY = late.LatePolicy(DEADLINE, timedelta(minutes=15), per_day=10, cap=25)


@pytest.mark.parametrize(
    ("after_deadline", "days", "penalty"),
    [
        (timedelta(minutes=-1), 0, 0.0),
        (timedelta(0), 0, 0.0),
        (timedelta(minutes=15), 0, 0.0),  # the last second of the grace period is on time
        (timedelta(minutes=15, seconds=1), 1, 10.0),
        (timedelta(days=1, minutes=15), 1, 10.0),
        (timedelta(days=1, minutes=15, seconds=1), 2, 20.0),
        (timedelta(days=2, minutes=15, seconds=1), 3, 25.0),  # capped
        (timedelta(days=40), 40, 25.0),  # 39 days 23:45 after the grace period
    ],
)
def test_lateness_at_the_boundaries(after_deadline, days, penalty):
    lateness = late.assess(DEADLINE + after_deadline, POLICY)
    assert (lateness.days, lateness.penalty) == (days, penalty)
    assert late.apply(14.0, 14.0, lateness) == round(14.0 * (1 - penalty / 100), 2)


def test_no_deadline_or_no_time_is_never_late():
    assert late.assess(DEADLINE + timedelta(days=9), late.LatePolicy()) == late.Lateness(0, 0.0, "")
    unknown = late.assess(None, POLICY)
    assert unknown.days == 0 and "unknown" in unknown.note
    assert late.apply(1.0, 14.0, late.Lateness(3, 25.0, "")) == 0.0  # never below zero


def test_bad_policies_are_refused_with_the_fix():
    with pytest.raises(ValueError, match="no timezone.*2026-03-01T23:59:00Z"):
        late.parse_deadline("2026-03-01T23:59")
    with pytest.raises(ValueError, match="not an ISO 8601"):
        late.parse_deadline("next friday")
    with pytest.raises(ValueError, match="e.g. 15m or 2h"):
        late.parse_duration("soon")
    with pytest.raises(ValueError, match="percentages from 0 to 100"):
        late.LatePolicy(DEADLINE, per_day=150)
    with pytest.raises(ValueError, match="needs a --deadline"):
        late.LatePolicy(missing_zero=True)
    assert late.LatePolicy.from_json(POLICY.to_json()) == POLICY


def test_cli_refuses_a_deadline_without_timezone(tmp_path, capsys):
    (tmp_path / "a.ipynb").write_text("{}", encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        grade.main(["--assignment", "from-scratch", "--out", str(tmp_path / "o"), "--deadline", "2026-03-01",
                    str(tmp_path / "a.ipynb")])  # fmt: skip
    assert exc.value.code == 2 and "has no timezone" in capsys.readouterr().err


def _rows(path: Path) -> dict[str, dict]:
    return {r["learner_id"]: r for r in csv.DictReader(io.StringIO(path.read_text(encoding="utf-8")))}


def _canvas(out: Path) -> dict[str, str]:
    """canvas.csv's last column (the score) by its third (the learner id)."""
    return {r[2]: r[-1] for r in csv.reader(io.StringIO((out / "canvas.csv").read_text(encoding="utf-8")))}


def _late_columns(rows: dict[str, dict]) -> dict[str, tuple]:
    return {
        k: (r["days_late"], r["late_penalty_percent"], r["score_before_penalty"], r["score"])
        for k, r in rows.items()
    }


def _perfect_submissions(tmp_path: Path, times: dict) -> list[Submission]:
    """A copy of the perfect notebook per name, submitted at its time, as learners s1, s2, ..."""
    subs = []
    for i, (name, when) in enumerate(times.items(), start=1):
        shutil.copyfile(CORPUS / "perfect.ipynb", tmp_path / f"{name}.ipynb")
        subs.append(Submission(tmp_path / f"{name}.ipynb", f"{name}.ipynb", f"s{i}", when))
    return subs


def test_late_submissions_are_shown_and_penalised_and_missing_gets_zero_after_the_deadline(
    tmp_path, trusted_mode
):
    roster = reports.Roster.from_text(
        "file,id,name\nann.ipynb,s1,Ann\nbo.ipynb,s2,Bo\ncy.ipynb,s3,Cy\ndee.ipynb,s4,Dee\n"
    )
    times = {"ann": DEADLINE + timedelta(minutes=15), "bo": DEADLINE + timedelta(minutes=15, seconds=1),
             "cy": DEADLINE + timedelta(days=2)}  # fmt: skip
    subs = _perfect_submissions(tmp_path, times)
    policy = late.LatePolicy(DEADLINE, timedelta(minutes=15), per_day=10, cap=25, missing_zero=True)
    out = tmp_path / "out"
    a = ASSIGNMENTS["from-scratch"]
    grade.grade_many(subs, a, out, jobs=2, mode=trusted_mode, progress=None, roster=roster, policy=policy)
    rows = _rows(out / "grades.csv")
    seen = _late_columns(rows)
    assert seen == {
        "s1": ("0", "0", "14", "14"),
        "s2": ("1", "10", "14", "12.6"),
        "s3": ("2", "20", "14", "11.2"),
        "s4": ("", "", "", "0"),  # missing, and --missing-zero after the deadline
    }
    assert rows["s2"]["submitted_at"] == "2026-03-02T00:14:01Z" and rows["s4"]["status"] == "missing"
    canvas = _canvas(out)
    assert (canvas["s1"], canvas["s2"], canvas["s3"], canvas["s4"]) == ("14", "12.6", "11.2", "0")
    feedback = (out / "feedback" / "bo.md").read_text(encoding="utf-8")
    assert (
        "- deadline: 1 day(s) late: -10 % of the points; score after the penalty: **12.6 / 14**" in feedback
    )
    assert "- deadline: on time" in (out / "feedback" / "ann.md").read_text(encoding="utf-8")

    # before the deadline a missing learner is missing, not 0; the policy is the gradebook's
    with Gradebook.open(out) as book:
        assert late.LatePolicy.from_json(book.meta("late_policy")) == policy
        exports.write_class_files(out, book, now=DEADLINE - timedelta(hours=1))
    assert _rows(out / "grades.csv")["s4"]["score"] == ""
    canvas = _canvas(out)
    assert canvas["s4"] == "" and canvas["s2"] == "12.6"
    assert grade.main(["export", str(out)]) == 0  # today is after the deadline: 0 again
    assert _rows(out / "grades.csv")["s4"]["score"] == "0"
    assert grade.main(["export", str(tmp_path / "nowhere")]) == 2
