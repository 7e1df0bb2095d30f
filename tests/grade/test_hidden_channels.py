"""What a learner reads depends on no hidden input beyond pass/fail per hidden check and the points
(red team 5's four channels; its own tests are in ``redteam_r5/``).

- how the process ended during a hidden check is one fixed phrase, the detail the instructor's;
  during a worked example (before any hidden input) the detail is shown;
- worked examples shown come from the first run, never from a run after a hidden case ended one;
- a failed hidden check reads ``failed``, whatever its cases did;
- seeds have 128 bits; a schema 1 gradebook keeps its 32-bit seed (stored as TEXT) and warns.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from helpers.grade import decode, isolation, reports
from helpers.grade import gradebook as gb
from helpers.grade import grader as grade
from helpers.grade.assignments import ASSIGNMENTS

A = ASSIGNMENTS["from-scratch"]
CORPUS = Path(__file__).resolve().parent / "grading_corpus"
SEED = (1 << 127) + 12_345  # above 2**64: stored, printed and parsed whole


def _notebook(path: Path, source: str) -> None:
    cell = {"cell_type": "code", "metadata": {}, "source": source, "outputs": [], "execution_count": None}
    path.write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))


def _first_hidden_call(target: str) -> int:
    """The call number of ``target``'s first hidden case: its public cases run first, then the hidden."""
    question = A.question(target)
    hidden = {c.name for c in question.checks if c.hidden}
    # clock.ipynb's own cases (how many of them are public is the same for every learner)
    cases = grade.make_plan(A, SEED, "file:clock").cases[question.name]
    return 1 + sum(1 for check, _ in cases if check not in hidden)


def _section(feedback: str, target: str) -> str:
    return next(p for p in re.split(r"(?m)^### ", feedback) if f"` {target} `" in p.split("\n", 1)[0])


# the clock is read when the cell runs: the run after recall's hidden crash reads another time
CLOCK = """
import os, time
T = time.time()
N = [0]
def precision_at_k(ranking, relevant, k):
    return T
def recall_at_k(ranking, relevant, k):
    N[0] += 1
    if N[0] == {first}:
        os._exit(7)
    return T
def hit_at_k(ranking, relevant, k):
    return T
"""
PUBLIC_EXIT = "import os\ndef precision_at_k(ranking, relevant, k):\n    os._exit(7)\n"


@pytest.fixture(scope="module")
def graded(tmp_path_factory, request):
    request.getfixturevalue("bwrap")
    folder, out = tmp_path_factory.mktemp("channels"), tmp_path_factory.mktemp("channels_out")
    shutil.copyfile(CORPUS / "perfect.ipynb", folder / "honest.ipynb")
    _notebook(folder / "clock.ipynb", CLOCK.replace("{first}", str(_first_hidden_call("recall_at_k"))))
    _notebook(folder / "public_exit.ipynb", PUBLIC_EXIT)
    progress = io.StringIO()
    done = grade.grade_many(
        sorted(folder.iterdir()), A, out, jobs=2, seed=SEED, mode=isolation.BUBBLEWRAP, progress=progress
    )
    feedback = {r["file"]: (out / "feedback" / f"{r['submission']}.md").read_text("utf-8") for r in done}
    return {r["file"]: r for r in done}, feedback, progress.getvalue(), out


def test_the_honest_classmate_keeps_full_marks(graded):
    reports_by_file, _, progress, _ = graded
    assert reports_by_file["honest.ipynb"]["score"] == 14.0
    assert reports_by_file["honest.ipynb"]["seed"] == SEED and "warning" not in progress


def test_a_hidden_crash_reads_one_phrase_and_the_instructor_keeps_how(graded):
    reports_by_file, feedback, _, _ = graded
    shown = _section(feedback["clock.ipynb"], "recall_at_k")
    assert "exited with code" not in feedback["clock.ipynb"] and decode.HIDDEN_END in shown
    assert "stopped" in shown
    question = next(q for q in reports_by_file["clock.ipynb"]["questions"] if q["target"] == "recall_at_k")
    assert "exited with code 7" in question["detail"] and "exited with code" not in question["reason"]


def test_a_crash_on_a_worked_example_keeps_its_detail(graded):
    _, feedback, _, _ = graded
    assert "exited with code 7" in _section(feedback["public_exit.ipynb"], "precision_at_k")


def test_worked_examples_shown_come_from_the_first_run(graded):
    reports_by_file, feedback, _, _ = graded
    got = {
        target: re.findall(r"got ` ([0-9.e+]+) `", _section(feedback["clock.ipynb"], target))
        for target in ("precision_at_k", "hit_at_k")
    }
    # hit's cases ran again in the run after recall's crash, at a later time: those are not shown
    assert got["precision_at_k"] and set(got["hit_at_k"]) == set(got["precision_at_k"]), got


def test_grades_csv_and_the_gradebook_hold_the_128_bit_seed(graded):
    _, _, _, out = graded
    assert str(SEED) in (out / "grades.csv").read_text(encoding="utf-8")
    with gb.Gradebook.open(out) as book:
        assert [s for s, _, _ in book.seeds()] == [SEED]
        assert {r.seed for r in book.history()} == {SEED}


def test_a_failed_hidden_check_reads_failed_whatever_its_cases_did():
    base = {"passed": False, "hidden": True, "points": 0.0, "max_points": 1.0}
    kinds = ("raised ValueError", "returned a builtins.str, not a number", "wrong value")
    texts = [f"failed on {n} of 8 cases (x); e.g. {kind}" for n, kind in enumerate(kinds, start=1)]
    shown = {reports.check_outcome({**base, "feedback": text}) for text in texts}
    assert shown == {("", "failed")}
    public = reports.check_outcome(
        {**base, "hidden": False, "feedback": "failed on 1 of 2 cases (x); e.g. wrong value"}
    )
    assert public == ("1 of 2 cases", "failed: wrong value")


def test_public_cases_and_status_come_from_the_clean_run():
    public = {"ev": "public", "q": "q1", "status": "ok", "cases": [{"value": {"t": "int", "v": "1"}}, None]}
    later = {"ev": "result", "q": "q1", "status": "missing", "cases": []}
    merged = decode.with_public({"kind": "function", "public": [0]}, later, public)
    assert merged["status"] == "ok" and merged["cases"][0] == public["cases"][0]
    assert "error" in merged["cases"][1]  # the function gone in the later run: its hidden case fails
    # a public case the clean run did not report fails; a later run's value never fills it in
    unreported = {**public, "cases": [None, None]}
    answered = {**later, "status": "ok", "cases": [{"value": {"t": "int", "v": "7"}}] * 2}
    merged = decode.with_public({"kind": "function", "public": [0]}, answered, unreported)
    assert "error" in merged["cases"][0] and merged["cases"][1] == answered["cases"][1]
    assert decode.with_public({"kind": "function"}, later, None)["failure"]
    assert decode.with_public({"kind": "function"}, {"failure": "x"}, public) == {"failure": "x"}


def _schema_1_book(folder: Path, seed: int) -> None:
    """A gradebook as schema 1 wrote it: INTEGER seeds, one run and one drawn 32-bit seed."""
    with sqlite3.connect(folder / gb.FILE_NAME) as db:
        db.executescript(gb._SCHEMA.replace("seed TEXT", "seed INTEGER"))
        db.execute("INSERT INTO meta VALUES ('schema_version', '1')")
        db.execute(
            "INSERT INTO seeds (seed, drawn_at, how) VALUES (?, '2026-01-01T00:00:00Z', 'first run')", (seed,)
        )
        db.execute(
            "INSERT INTO runs (started_at, seed, isolation, command) VALUES ('t', ?, 'x', 'c')", (seed,)
        )


def test_a_schema_1_gradebook_keeps_its_seed_and_a_short_seed_warns(tmp_path, trusted_mode):
    _schema_1_book(tmp_path, 5_000_123)
    with gb.Gradebook.open(tmp_path) as book:
        assert book.meta("schema_version") == gb.SCHEMA_VERSION == 2
        assert book.seeds()[0][0] == 5_000_123 and book.seed(None, fresh=False) == 5_000_123
        types = {
            r[0]
            for r in book.db.execute("SELECT typeof(seed) FROM seeds UNION SELECT typeof(seed) FROM runs")
        }
        assert types == {"text"}
        assert book.db.execute("PRAGMA foreign_key_check").fetchall() == []
    progress = io.StringIO()
    [report] = grade.grade_many([CORPUS / "perfect.ipynb"], A, tmp_path, mode=trusted_mode, progress=progress)
    assert report["seed"] == 5_000_123 and report["score"] == 14.0
    assert (
        "warning: the seed 5000123 has 23 bits" in progress.getvalue() and "--new-seed" in progress.getvalue()
    )
    fresh = grade.grade_many(
        [CORPUS / "perfect.ipynb"], A, tmp_path, mode=trusted_mode, progress=None, new_seed=True
    )
    assert fresh[0]["seed"] >= 1 << 64 and gb.short_seed(fresh[0]["seed"]) is None


def test_seeds_are_drawn_with_128_bits_and_the_command_line_takes_them_whole(tmp_path):
    assert all(gb.draw_seed().bit_length() > 64 for _ in range(8))
    assert grade.data_seed(SEED) != grade.data_seed(SEED + 1)
    parser = grade._gradescope_parser()
    assert parser.parse_args(["--assignment", "from-scratch", "--seed", str(SEED)]).seed == SEED
