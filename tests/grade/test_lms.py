"""Results an instructor can upload (issue 24, item 1): statuses and reasons, the roster, Canvas and
Gradescope files, learners' feedback, and CSV cells that stay text in a spreadsheet.

One small class is graded once per module (in the sandbox where it works): known-right notebooks
(full marks, ``graded``), known-wrong ones (a stub, a partial answer) and every way a file can fail
(not a notebook, empty, a symlink, too large, a function that hangs, one that exits the process).
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import unicodedata
from pathlib import Path

import pytest

from helpers.grade import exports, reports
from helpers.grade import grader as grade
from helpers.grade.assignments import ASSIGNMENTS
from helpers.grade.files import csv_safe
from helpers.grade.sandbox import Limits

CORPUS = Path(__file__).resolve().parent / "grading_corpus"
A = ASSIGNMENTS["from-scratch"]
NFC_NAME = "caf\u00e9.ipynb"
NFD_NAME = "cafe\u0301.ipynb"
CLASS = {
    "perfect.ipynb": "perfect.ipynb",
    "-=1+1.ipynb": "perfect.ipynb",
    NFC_NAME: "perfect.ipynb",
    NFD_NAME: "partially_correct.ipynb",
    "stub.ipynb": "unchanged_stub.ipynb",
    "partial_s02.ipynb": "partially_correct.ipynb",
    "not_a_notebook.ipynb": "not_a_notebook.ipynb",
    "empty.ipynb": "empty_notebook.ipynb",
    "loop.ipynb": "infinite_loop_in_function.ipynb",
    "exit.ipynb": "os_exit_in_function.ipynb",
}
ROSTER = (
    "file,id,name,section,login\n"
    "perfect.ipynb,s01,Ann Lee,A,alee\n"
    "*_s02.ipynb,s02,Bo Chen,A,bchen\n"
    "stub.ipynb,s03,=cmd|' /C calc'!A0,B,\n"
    "gone.ipynb,s04,Dee Absent,B,dabs\n"
)


def _rows(data: bytes) -> list[dict]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8"))))


@pytest.fixture(scope="module")
def graded(tmp_path_factory, trusted_mode):
    folder = tmp_path_factory.mktemp("class")
    for name, source in CLASS.items():
        shutil.copyfile(CORPUS / source, folder / name)
    (folder / "link.ipynb").symlink_to(CORPUS / "perfect.ipynb")
    with open(folder / "huge.ipynb", "wb") as fh:
        fh.truncate(Limits().notebook_bytes + 1)  # one byte over the default limit (sparse: costs nothing)
    (folder / "roster.csv").write_text(ROSTER, encoding="utf-8")
    out = tmp_path_factory.mktemp("out")
    code = grade.main(
        [
            "--assignment",
            "from-scratch",
            "--out",
            str(out),
            "--timeout",
            "3",
            "--jobs",
            "2",
            "--quiet",
            "--roster",
            str(folder / "roster.csv"),
            *(["--unsafe-no-sandbox"] if trusted_mode == "unsafe-no-sandbox" else []),
            str(folder),
        ]
    )
    assert code == 0
    rows = _rows((out / "grades.csv").read_bytes())
    by_file = {r["submission"]: r for r in rows if r["submission"]}
    return out, rows, by_file


def _row(by_file: dict, stem: str) -> dict:
    return next(r for name, r in by_file.items() if name.removeprefix("'").startswith(stem))


def test_status_and_reason_per_submission(graded):
    _, _, by_file = graded
    expected = {
        "perfect": ("graded", 14.0),
        "stub": ("graded", 0.0),
        "not_a_notebook": ("not a notebook", 0.0),
        "empty": ("empty notebook", 0.0),
        "link": ("symlink", 0.0),
        "huge": ("too large", 0.0),
        "loop": ("graded", 12.0),  # a hang costs only the question that hangs
        "exit": ("graded", 10.0),  # so does a function that exits the process
    }
    for stem, (status, score) in expected.items():
        row = _row(by_file, stem)
        assert (row["status"], float(row["score"])) == (status, score), row
        if status != "graded":
            assert row["reason"], row
    assert "timed out" in _row(by_file, "loop")["recall_at_k result"]
    assert "symbolic link" in _row(by_file, "link")["reason"]


def test_not_attempted_is_not_wrong(graded):
    _, _, by_file = graded
    stub, partial = _row(by_file, "stub"), _row(by_file, "partial_s02")
    assert {stub[f"{q.target} result"] for q in A.questions} == {"not attempted"}
    results = [partial[f"{q.target} result"] for q in A.questions]
    assert "right" in results and "not attempted" in results
    wrong = reports.question_result({"status": "failed", "points": 0.0, "max_points": 2.0, "checks": []})
    assert wrong[0] == "wrong"
    constant = reports.question_result(
        {"status": "same answer for every input", "reason": "returns one value"}
    )
    # whether the hidden cases got one value back is the instructor's: the learner reads the checks' verdict
    assert constant == ("wrong", "no hidden check passed")


def test_roster_ids_names_and_absent_learners(graded):
    _, rows, by_file = graded
    assert (_row(by_file, "perfect")["learner_id"], _row(by_file, "perfect")["name"]) == ("s01", "Ann Lee")
    assert _row(by_file, "partial_s02")["learner_id"] == "s02"  # a glob pattern
    absent = [r for r in rows if r["status"] == "missing"]  # not a graded 0 (issue 31)
    assert [(r["learner_id"], r["score"]) for r in absent] == [("s04", "")]
    assert _row(by_file, "loop")["learner_id"] == ""  # not in the roster


def test_roster_gives_a_look_alike_name_to_the_exact_spelling_only():
    roster = reports.Roster.from_text(f"file,id,name\n{NFC_NAME},s7,Zoe\n")
    assert [x and x.id for x in roster.assign([Path(NFD_NAME), Path(NFC_NAME)])] == [None, "s7"]
    assert roster.assign([Path(NFD_NAME)])[0].id == "s7"  # alone, the normalised name matches


def test_roster_errors_are_clear(tmp_path):
    with pytest.raises(reports.RosterError, match="'file' and 'id'"):
        reports.Roster.from_text("name,email\nAnn,a@x\n")
    with pytest.raises(reports.RosterError, match="appears twice"):
        reports.Roster.from_text("file,id\na.ipynb,s1\nb.ipynb,s1\n")
    (tmp_path / "r.csv").write_text("file,id\n", encoding="utf-8")
    with pytest.raises(SystemExit):
        grade.main(["--assignment", "from-scratch", "--out", str(tmp_path), "--roster", "/nonexistent", "x"])


def test_every_csv_cell_is_spreadsheet_safe(graded):
    out, _, _ = graded
    for name in ("grades.csv", "canvas.csv"):
        for row in csv.reader(io.StringIO((out / name).read_text(encoding="utf-8"))):
            for cell in row:
                assert not cell or cell[0] not in "=+-@\t\r", (name, cell)
    assert "'=cmd|' /C calc'!A0" in (out / "grades.csv").read_text(encoding="utf-8")
    assert "'-=1+1.ipynb" in (out / "grades.csv").read_text(encoding="utf-8")
    assert [csv_safe(x) for x in ("=1", "+1", "-1", "@x", "\tx", "\rx", "ok")] == [
        "'=1",
        "'+1",
        "'-1",
        "'@x",
        "'\tx",
        "'\rx",
        "ok",
    ]


def test_look_alike_names_are_nfc_and_marked(graded):
    _, rows, _ = graded
    cafe = [r["file"] for r in rows if r["file"].startswith("caf")]
    assert len(cafe) == 2 and cafe[0] != cafe[1]
    for shown in cafe:
        assert shown.startswith(unicodedata.normalize("NFC", NFC_NAME) + " [look-alike ")
    assert reports.display_names(["a.ipynb", "b.ipynb"]) == [
        "a.ipynb",
        "b.ipynb",
    ]  # nothing marked needlessly
    assert reports.display_names([NFD_NAME]) == [NFC_NAME]


def test_canvas_gradebook_columns(graded):
    out, _, _ = graded
    rows = list(csv.reader(io.StringIO((out / "canvas.csv").read_text(encoding="utf-8"))))
    assert rows[0] == [*exports.CANVAS_COLUMNS, A.title]
    assert rows[1] == ["Points Possible", "", "", "", "", "14"]
    by_id = {r[2]: r for r in rows[2:]}
    assert set(by_id) == {"s01", "s02", "s03", "s04"}  # roster learners only, absent ones missing
    assert by_id["s01"] == ["Ann Lee", "", "s01", "alee", "A", "14"]
    assert by_id["s03"][-1] == "0" and by_id["s04"][-1] == ""  # a graded 0, and no submission
    assert 0 < float(by_id["s02"][-1]) < 14


def test_feedback_file_per_learner_never_shows_hidden_values(graded):
    out, rows, by_file = graded
    files = sorted(p.name for p in (out / "feedback").iterdir())
    assert files == sorted(f"{r['submission'].removeprefix(chr(39))}.md" for r in rows if r["submission"])
    text = (out / "feedback" / f"{_row(by_file, 'partial_s02')['submission']}.md").read_text(encoding="utf-8")
    assert "Bo Chen (s02)" in text and "not attempted" in text and "right" in text
    loop = (out / "feedback" / "loop.md").read_text(encoding="utf-8")
    assert "timed out" in loop


def test_hidden_feedback_is_redacted():
    check = {
        "hidden": True,
        "feedback": "failed on 1 of 8 cases (x); e.g. the keys must be exactly ['u3', 'u7']",
    }
    assert "u3" not in reports.safe_check_feedback(check)
    public = {**check, "hidden": False}
    assert reports.safe_check_feedback(public) == public["feedback"]  # public cases are in the notebook
    report = {
        "score": 0.0,
        "max_score": 2.0,
        "file": "x.ipynb",
        "questions": [
            {
                "target": "f",
                "title": "F",
                "points": 0.0,
                "max_points": 2.0,
                "status": "failed",
                "checks": [{**check, "name": "x", "passed": False, "points": 0.0, "max_points": 2.0}],
                # the instructor's errors (every case), and those of the public cases, shown by type only
                "errors": ["OverflowError: x (1 case)", "ValueError: secret input [4, 8, 15] (3 cases)"],
                "public_errors": ["ValueError: secret input [4, 8, 15] (3 cases)"],
            }
        ],
    }
    for text in (
        reports.feedback_markdown(report, None, "x.ipynb", "T"),
        json.dumps(exports.gradescope_results(report, "T")),
    ):
        assert "u3" not in text and "15" not in text and "ValueError" in text
        assert "OverflowError" not in text  # raised on a hidden case only: its name could be a hidden input


def _assert_partial_results(data: dict) -> None:
    """results.json of a partially correct notebook: per-question tests summing to the score, no seed."""
    assert 0 < data["score"] < 14
    assert [t["max_score"] for t in data["tests"]] == [q.points for q in A.questions]
    assert sum(t["score"] for t in data["tests"]) == pytest.approx(data["score"])
    assert {t["status"] for t in data["tests"]} == {"passed", "failed"}
    # never the seed: with it, the course's public code rebuilds every hidden case
    assert data["visibility"] == "visible" and "seed" not in data["extra_data"]


def test_gradescope_entry_point_writes_results_json(tmp_path, trusted_mode):
    unsafe = ["--unsafe-no-sandbox"] if trusted_mode == "unsafe-no-sandbox" else []
    submission = tmp_path / "submission"
    (submission / "sub").mkdir(parents=True)
    shutil.copyfile(CORPUS / "partially_correct.ipynb", submission / "sub" / "from-scratch.ipynb")
    (submission / ".ipynb_checkpoints").mkdir()
    shutil.copyfile(CORPUS / "perfect.ipynb", submission / ".ipynb_checkpoints" / "x.ipynb")
    results = tmp_path / "results" / "results.json"
    args = ["gradescope", "--assignment", "from-scratch", "--submission", str(submission)]
    assert grade.main([*args, "--results", str(results), "--seed", "5", *unsafe]) == 0
    _assert_partial_results(json.loads(results.read_text()))
    # no notebook: a zero with the reason, still a results.json
    empty = tmp_path / "empty"
    empty.mkdir()
    assert grade.main([*args[:3], "--submission", str(empty), "--results", str(results), *unsafe]) == 0
    data = json.loads(results.read_text())
    assert data["score"] == 0 and "no .ipynb notebook was uploaded" in data["output"]
    script = tmp_path / "run_autograder"
    assert (
        grade.main(["gradescope", "--assignment", "from-scratch", "--write-run-autograder", str(script)]) == 0
    )
    assert os.access(script, os.X_OK)
    text = script.read_text()
    assert "python3 " not in text and '-m helpers.grade gradescope --assignment "$SPEC" --seed ' in text


def test_limits_and_sandbox_are_the_same_for_gradescope():
    parser = grade._gradescope_parser()
    args = parser.parse_args(["--assignment", "from-scratch"])
    assert grade._limits(parser, args) == Limits()
    assert (args.submission, args.results) == ("/autograder/submission", "/autograder/results/results.json")
