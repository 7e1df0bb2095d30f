"""A term without losing a grade (issue 31, items 1, 2 and 5): the gradebook, regrades that merge,
stable hidden cases, resuming an interrupted run.

Every test grades real notebooks of the grading corpus in the sandbox (the unsafe mode only where
bubblewrap cannot start: these notebooks are the project's own).
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from helpers.grade import gradebook as gb
from helpers.grade import grader as grade
from helpers.grade.assignments import ASSIGNMENTS
from helpers.grade.collect import Collection, Submission

CORPUS = Path(__file__).resolve().parent / "grading_corpus"
ROOT = Path(__file__).resolve().parents[2]
A = ASSIGNMENTS["from-scratch"]
ROSTER = (
    "file,id,name,section,login\n"
    "ann.ipynb,s01,Ann Lee,A,alee\n"
    "bo*.ipynb,s02,Bo Chen,A,bchen\n"
    "cy.ipynb,s03,Cy Diaz,B,cdiaz\n"
    "dee.ipynb,s04,Dee Eng,B,deng\n"
    "eve.ipynb,s05,Eve Fox,B,efox\n"
)
CLASS = {
    "ann.ipynb": "perfect.ipynb",
    "bo.ipynb": "partially_correct.ipynb",
    "cy.ipynb": "unchanged_stub.ipynb",
    "dee.ipynb": "off_by_one_rank.ipynb",
}  # eve (s05) hands nothing in


def _unsafe(mode: str) -> list[str]:
    return ["--unsafe-no-sandbox"] if mode == "unsafe-no-sandbox" else []


def _rows(path: Path) -> list[dict]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def _lines_by_id(path: Path, column: int) -> dict[str, str]:
    """Each CSV line, keyed by the learner id in ``column`` (the raw line, to compare bytes)."""
    lines = path.read_bytes().decode("utf-8").splitlines(keepends=True)
    return {next(csv.reader([line]))[column]: line for line in lines}


def _class(tmp_path: Path, files: dict[str, str]) -> Path:
    folder = tmp_path / "submissions"
    folder.mkdir(exist_ok=True)
    for name, source in files.items():
        shutil.copyfile(CORPUS / source, folder / name)
    (tmp_path / "roster.csv").write_text(ROSTER, encoding="utf-8")
    return folder


def _grade_cli(tmp_path: Path, mode: str, *paths: Path, extra: tuple[str, ...] = ()) -> int:
    args = [
        "--assignment",
        "from-scratch",
        "--out",
        str(tmp_path / "out"),
        "--roster",
        str(tmp_path / "roster.csv"),
    ]
    return grade.main([*args, "--quiet", "--jobs", "2", *_unsafe(mode), *extra, *map(str, paths)])


# ------------------------------------------------------------------ item 5: one term end to end
def _assert_the_first_grading(out: Path, canvas_before: dict) -> None:
    rows = {r["learner_id"]: r for r in _rows(out / "grades.csv")}
    assert rows["s01"]["score"] == "14" and 0 < float(rows["s02"]["score"]) < 14
    assert rows["s05"]["status"] == "missing" and rows["s05"]["score"] == ""  # missing, not 0
    assert canvas_before["s05"].rstrip("\r\n").endswith(",")  # an empty Canvas cell
    assert (out / "feedback" / "bo.md").is_file()


def _assert_only_bo_changed(out: Path, grades_before: dict, canvas_before: dict) -> None:
    """Every other learner's grades.csv and canvas.csv line is byte for byte the same; Bo's files replaced."""
    grades_after = _lines_by_id(out / "grades.csv", 0)
    canvas_after = _lines_by_id(out / "canvas.csv", 2)
    assert set(grades_after) == set(grades_before) and set(canvas_after) == set(canvas_before)
    for learner in ("s01", "s03", "s04", "s05"):
        assert grades_after[learner] == grades_before[learner], learner  # byte for byte
        assert canvas_after[learner] == canvas_before[learner], learner
    assert grades_after["learner_id"] == grades_before["learner_id"]  # the header
    assert canvas_after["SIS User ID"] == canvas_before["SIS User ID"]
    assert canvas_after[""] == canvas_before[""]  # Points Possible
    _assert_bo_replaced(out)


def _assert_bo_replaced(out: Path) -> None:
    bo = {r["learner_id"]: r for r in _rows(out / "grades.csv")}["s02"]
    assert bo["score"] == "14" and bo["file"] == "bo_fixed.ipynb"
    # the old report and feedback are replaced, not left beside the new ones
    assert not (out / "feedback" / "bo.md").exists() and not (out / "bo.json").exists()
    assert (out / "feedback" / "bo_fixed.md").is_file() and (out / "bo_fixed.json").is_file()
    assert len(list((out / "feedback").glob("*.md"))) == 4


def _assert_the_term_history(out: Path, capsys) -> None:
    with gb.Gradebook.open(out) as book:
        history = book.history("s02")
        assert [r.display for r in history] == ["bo.ipynb", "bo_fixed.ipynb"]
        assert history[0].seed == history[1].seed and len(book.seeds()) == 1
        assert len(book.history()) == 5
    capsys.readouterr()
    assert grade.main(["history", str(out)]) == 0
    shown = capsys.readouterr().out
    print(shown)  # the term, as the instructor sees it (-s shows it)
    assert "bo.ipynb" in shown and "* " in shown and shown.count("\n") == 7


def test_a_term_regrade_changes_only_the_regraded_learner(tmp_path, trusted_mode, capsys):
    folder = _class(tmp_path, CLASS)
    out = tmp_path / "out"
    assert _grade_cli(tmp_path, trusted_mode, folder) == 0
    grades_before = _lines_by_id(out / "grades.csv", 0)
    canvas_before = _lines_by_id(out / "canvas.csv", 2)
    _assert_the_first_grading(out, canvas_before)
    old = {r["learner_id"]: r for r in _rows(out / "grades.csv")}["s02"]["score"]

    # a day later: Bo hands in a corrected notebook under another name; only it is graded
    late = tmp_path / "a-day-later"
    late.mkdir()
    shutil.copyfile(CORPUS / "perfect.ipynb", late / "bo_fixed.ipynb")
    capsys.readouterr()
    assert _grade_cli(tmp_path, trusted_mode, late / "bo_fixed.ipynb") == 0
    # the documented workflow still merges, and says loudly whose result another file replaced
    said = capsys.readouterr().err
    assert f"REPLACED: s02's result of 'bo.ipynb' ({old}/14) by 'bo_fixed.ipynb' (14/14)" in said, said
    assert "another file name" in said and said.count("REPLACED") == 2  # when graded, and in the summary

    _assert_only_bo_changed(out, grades_before, canvas_before)
    _assert_the_term_history(out, capsys)


CANVAS_ROSTER = (
    ROSTER.replace("section,login\n", "section,login,canvas_id\n")
    .replace("alee\n", "alee,101\n")
    .replace("bchen\n", "bchen,102\n")
    .replace("cdiaz\n", "cdiaz,103\n")
    .replace("deng\n", "deng,104\n")
)


def _canvas_zip(path: Path, members: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, source in members.items():
            zf.write(CORPUS / source, name)
    return path


def test_a_term_from_canvas_downloads_changes_only_the_late_learner(tmp_path, trusted_mode, capsys):
    """The term with Canvas (red team 39): the class's download and, a day later, the late download,
    each given with ``--canvas``; only Bo's lines of grades.csv and canvas.csv change. The same late
    zip given as a plain path is no Canvas download: Bo's file is nobody's, nothing changes, a note says
    how to give it."""
    canvas_names = {
        "alee_101_9101": "ann",
        "bchen_102_9102": "bo",
        "cdiaz_103_9103": "cy",
        "deng_104_9104": "dee",
    }
    class_zip = _canvas_zip(
        tmp_path / "submissions.zip",
        {f"{prefix}_from-scratch.ipynb": CLASS[f"{name}.ipynb"] for prefix, name in canvas_names.items()},
    )
    (tmp_path / "roster.csv").write_text(CANVAS_ROSTER, encoding="utf-8")
    out = tmp_path / "out"
    assert _grade_cli(tmp_path, trusted_mode, extra=("--canvas", str(class_zip))) == 0
    grades_before = _lines_by_id(out / "grades.csv", 0)
    canvas_before = _lines_by_id(out / "canvas.csv", 2)
    assert {r["learner_id"]: r["score"] for r in _rows(out / "grades.csv")}["s01"] == "14"

    late_zip = _canvas_zip(
        tmp_path / "late.zip", {"bchen_LATE_102_9202_from-scratch-1.ipynb": "perfect.ipynb"}
    )
    capsys.readouterr()
    assert _grade_cli(tmp_path, trusted_mode, late_zip) == 0  # given as a plain path
    said = capsys.readouterr().err
    assert "late.zip: 1 notebook(s) are named like Canvas's download" in said and "REPLACED" not in said, said
    assert _lines_by_id(out / "canvas.csv", 2) == canvas_before

    assert _grade_cli(tmp_path, trusted_mode, extra=("--canvas", str(late_zip))) == 0
    said = capsys.readouterr().err
    assert "note: late.zip: 1 Canvas file(s) are marked LATE" in said, said
    assert "REPLACED: s02's result of 'submissions.zip/bchen_102_9102_from-scratch.ipynb'" in said, said
    _assert_only_the_late_bo_changed(out, grades_before, canvas_before)


def _assert_only_the_late_bo_changed(out: Path, grades_before: dict, canvas_before: dict) -> None:
    grades_after = _lines_by_id(out / "grades.csv", 0)
    canvas_after = _lines_by_id(out / "canvas.csv", 2)
    for learner in ("s01", "s03", "s04", "s05"):
        assert grades_after[learner] == grades_before[learner], learner  # byte for byte
        assert canvas_after[learner] == canvas_before[learner], learner
    bo = {r["learner_id"]: r for r in _rows(out / "grades.csv")}["s02"]
    assert bo["score"] == "14", bo
    # the same file graded for nobody when the late zip was given as a plain path: two rows, numbered
    assert bo["file"] == "late.zip/bchen_LATE_102_9202_from-scratch-1.ipynb [same name 2/2]", bo
    assert canvas_after["s02"].rstrip("\r\n").endswith(",14")


# ------------------------------------------------------------------ item 2: stable hidden cases
def _assert_bo_conflicted(out: Path, said: str) -> None:
    """Neither of Bo's two claimants is his: an empty cell, a reason naming the files, never 0."""
    assert "CONFLICT: s02 is claimed by 'bo (1).ipynb', 'bo.ipynb'" in said, said
    rows = {r["learner_id"]: r for r in _rows(out / "grades.csv")}
    assert rows["s02"]["status"] == "conflict" and rows["s02"]["score"] == ""
    assert "bo (1).ipynb" in rows["s02"]["reason"]
    assert "no file matched" not in rows["s02"]["reason"]
    assert rows["s05"]["score"] == "0" and rows["s01"]["score"] == "14"  # missing-zero still applies
    canvas = _lines_by_id(out / "canvas.csv", 2)
    assert canvas["s02"].rstrip("\r\n").endswith(",")  # empty, not 0


def _assert_bo_graded_again(out: Path) -> None:
    rows = {r["learner_id"]: r for r in _rows(out / "grades.csv")}
    assert rows["s02"]["score"] == "14" and "conflict" not in rows["s02"]["reason"]
    with gb.Gradebook.open(out) as book:
        assert book.meta("contested") == {}


def _assert_bo_kept_his_result(out: Path) -> None:
    rows = {r["learner_id"]: r for r in _rows(out / "grades.csv")}
    # the conflicting bo.ipynb of the later run is a row of nobody's: the two rows are numbered
    assert rows["s02"]["score"] == "14" and rows["s02"]["file"] == "bo.ipynb [same name 2/2]"
    assert "conflict: the files bo (2).ipynb, bo.ipynb" in rows["s02"]["reason"]


def test_files_that_claim_one_learner_never_cost_them_their_grade(tmp_path, trusted_mode, capsys):
    """Red team 5: two files of a run claim Bo (``bo*.ipynb``). Neither is graded as his; his earlier
    result stays, with a reason naming both files; without one his row is ``conflict`` and never 0, even
    with --missing-zero after the deadline; the next run that grades one file as his ends the conflict."""
    folder = _class(tmp_path, {"ann.ipynb": "perfect.ipynb", "bo.ipynb": "perfect.ipynb"})
    shutil.copyfile(CORPUS / "unchanged_stub.ipynb", folder / "bo (1).ipynb")
    out, past = tmp_path / "out", ("--deadline", "2020-01-01T00:00:00+00:00", "--missing-zero")
    assert _grade_cli(tmp_path, trusted_mode, folder, extra=past) == 0
    _assert_bo_conflicted(out, capsys.readouterr().err)

    (folder / "bo (1).ipynb").unlink()  # the instructor removes the stray file and grades again
    assert _grade_cli(tmp_path, trusted_mode, folder) == 0
    _assert_bo_graded_again(out)

    # a later conflict keeps Bo's result and says so on his row
    shutil.copyfile(CORPUS / "unchanged_stub.ipynb", folder / "bo (2).ipynb")
    assert _grade_cli(tmp_path, trusted_mode, folder) == 0
    _assert_bo_kept_his_result(out)


def test_the_same_file_a_week_apart_gets_identical_partial_credit(tmp_path, trusted_mode, monkeypatch):
    notebook = tmp_path / "bo.ipynb"
    shutil.copyfile(CORPUS / "partially_correct.ipynb", notebook)
    first = grade.grade_many([notebook], A, tmp_path / "out", mode=trusted_mode, progress=None)[0]
    real_utc_text = gb.utc_text
    week_later = datetime.now(UTC) + timedelta(days=7)
    monkeypatch.setattr(gb, "utc_text", lambda moment=None: real_utc_text(moment or week_later))
    again = grade.grade_many([notebook], A, tmp_path / "out", mode=trusted_mode, progress=None, regrade=True)[
        0
    ]
    assert 0 < first["score"] < 14 and again["score"] == first["score"]
    assert again["seed"] == first["seed"]
    assert [q["checks"] for q in again["questions"]] == [q["checks"] for q in first["questions"]]
    with gb.Gradebook.open(tmp_path / "out") as book:
        graded = [r.graded_at for r in book.history()]
        assert len(graded) == 2 and graded[1][:10] > graded[0][:10]  # a week later, by the gradebook's clock


def test_a_fresh_draw_only_on_request_and_recorded(tmp_path, trusted_mode):
    notebook = tmp_path / "ann.ipynb"
    shutil.copyfile(CORPUS / "perfect.ipynb", notebook)
    out = tmp_path / "out"
    seed = grade.grade_many([notebook], A, out, mode=trusted_mode, progress=None)[0]["seed"]
    with pytest.raises(gb.GradebookError, match=f"seed {seed}.*--new-seed"):
        grade.grade_many([notebook], A, out, mode=trusted_mode, progress=None, seed=seed + 1)
    fresh = grade.grade_many([notebook], A, out, mode=trusted_mode, progress=None, new_seed=True)[0]
    assert fresh["seed"] != seed and fresh["score"] == 14.0
    with gb.Gradebook.open(out) as book:
        assert [s for s, _, _ in book.seeds()] == [seed, fresh["seed"]]
        assert "fresh draw requested" in book.seeds()[1][2]


# ------------------------------------------------------------------ resuming, interrupting
def test_a_rerun_skips_what_is_graded_and_regrade_grades_again(tmp_path, trusted_mode, capsys):
    folder = _class(tmp_path, {"ann.ipynb": "perfect.ipynb", "cy.ipynb": "unchanged_stub.ipynb"})
    out = tmp_path / "out"
    assert _grade_cli(tmp_path, trusted_mode, folder) == 0
    grades = (out / "grades.csv").read_bytes()
    capsys.readouterr()
    args = ["--assignment", "from-scratch", "--out", str(out), *_unsafe(trusted_mode), str(folder)]
    assert grade.main(args) == 0
    assert capsys.readouterr().err.count("already graded (same file, same seed): kept") == 2
    assert (out / "grades.csv").read_bytes() == grades  # the stored roster still names them
    with gb.Gradebook.open(out) as book:
        assert len(book.history()) == 2
    assert grade.main([*args, "--regrade", "--quiet"]) == 0
    with gb.Gradebook.open(out) as book:
        assert len(book.history()) == 4 and len(book.current()) == 2


def _sigterm_after_the_first_result(command, cwd, env, out):
    """Start the run, send SIGTERM once the gradebook holds one result; the process and its stderr."""
    proc = subprocess.Popen(command, cwd=cwd, env=env, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while _results(out) < 1 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
        assert proc.poll() is None, "the run ended before it could be interrupted"
        proc.send_signal(signal.SIGTERM)
        err = proc.communicate(timeout=120)[1]
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc, err


def _assert_a_rerun_finishes(command, cwd, env, out, kept, files):
    again = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert again.stderr.count("already graded (same file") == len(kept)
    with gb.Gradebook.open(out) as book:
        assert sorted(r.display for r in book.history()) == sorted(files)  # each graded exactly once
    assert {r["file"] for r in _rows(out / "grades.csv")} == set(files)


def test_sigterm_mid_run_keeps_what_was_graded_and_a_rerun_finishes(tmp_path, trusted_mode):
    files = {"a1.ipynb": "perfect.ipynb"}
    files |= {f"z{i}.ipynb": "infinite_loop_in_function.ipynb" for i in range(3)}
    folder = _class(tmp_path, files)
    out = tmp_path / "out"
    command = [sys.executable, "-m", "helpers.grade", "--assignment", "from-scratch", "--out", str(out)]
    command += ["--timeout", "2", *_unsafe(trusted_mode), str(folder)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "topkeval" / "src")])}
    proc, err = _sigterm_after_the_first_result(command, tmp_path, env, out)
    assert proc.returncode == 143, err
    assert "interrupted" in err and "Run the same command again" in err
    with gb.Gradebook.open(out) as book:
        kept = {r.display: r.score for r in book.history()}
        outcome = book.db.execute("SELECT outcome FROM runs").fetchone()[0]
    assert kept["a1.ipynb"] == 14.0 and len(kept) < len(files)
    assert outcome == "interrupted"
    rows = _rows(out / "grades.csv")  # the exports hold what was graded before the signal
    assert {r["file"] for r in rows} == set(kept)
    _assert_a_rerun_finishes(command, tmp_path, env, out, kept, files)


def test_an_interrupt_as_a_result_is_committed_is_held_until_it_is_marked_done(
    tmp_path, trusted_mode, monkeypatch
):
    """A CI run saw a learner graded twice: Ctrl-C landed after the gradebook's commit and before the
    run marked the submission done, so the interrupt's drain recorded it again."""
    folder = _class(tmp_path, {"a1.ipynb": "perfect.ipynb", "b1.ipynb": "partially_correct.ipynb"})
    real_record = gb.Gradebook.record

    signalled = []

    def record_then_interrupt(self, *args, **kwargs):
        real_record(self, *args, **kwargs)
        if not signalled:  # the signal lands right after the first commit
            signalled.append(os.kill(os.getpid(), signal.SIGINT))

    monkeypatch.setattr(gb.Gradebook, "record", record_then_interrupt)
    subs = sorted(folder.glob("*.ipynb"))
    with pytest.raises(KeyboardInterrupt):
        grade.grade_many(subs, A, tmp_path / "out", mode=trusted_mode, progress=None)
    monkeypatch.setattr(gb.Gradebook, "record", real_record)
    with gb.Gradebook.open(tmp_path / "out") as book:
        shown = [r.display for r in book.history()]
    assert shown and len(shown) == len(set(shown)), shown  # none recorded twice
    assert {p.stem for p in (tmp_path / "out").glob("*.json")} >= {Path(n).stem for n in shown}


def test_one_grading_run_at_a_time_per_gradebook(tmp_path, trusted_mode, capsys):
    """Red team 19: two runs into one folder decided report names and replacements from results the
    other was changing. A second run is refused, says who holds the book, and changes nothing."""
    folder = _class(tmp_path, {"ann.ipynb": "perfect.ipynb"})
    out = tmp_path / "out"
    assert _grade_cli(tmp_path, trusted_mode, folder) == 0
    before = (out / "grades.csv").read_bytes()
    holder = gb.Gradebook.open(out)
    holder.hold_for_run()
    try:
        capsys.readouterr()
        assert _grade_cli(tmp_path, trusted_mode, folder, extra=("--regrade",)) == 1
        err = capsys.readouterr().err
        assert f"another grading run is writing {out} (process {os.getpid()}, started " in err
        assert "run this command again" in err
        assert (out / "grades.csv").read_bytes() == before
    finally:
        holder.close()
    assert _grade_cli(tmp_path, trusted_mode, folder, extra=("--regrade",)) == 0  # let in once it ends
    with gb.Gradebook.open(out) as book:
        assert len(book.history()) == 2


def test_a_lock_file_that_cannot_be_opened_is_a_clear_error(tmp_path):
    """Red team 21: another user's lock file gave a raw PermissionError (here: a folder in its place)."""
    with gb.Gradebook.open(tmp_path, {"name": "hw", "title": "HW", "questions": []}):
        pass
    (tmp_path / gb.LOCK_NAME).mkdir()
    with (
        gb.Gradebook.open(tmp_path) as book,
        pytest.raises(gb.GradebookError, match="cannot open .*gradebook.lock"),
    ):
        book.hold_for_run()


def test_a_writer_of_the_class_files_reads_the_gradebook_only_once_the_previous_writer_ends(
    tmp_path, trusted_mode, monkeypatch
):
    """Red team 20: an ``export`` (or a hand grade) beside a run could read the gradebook before the
    run's last commit and write after the run's own export: the files would miss that result."""
    from helpers.grade import exports

    folder = _class(tmp_path, {"ann.ipynb": "perfect.ipynb"})
    out = tmp_path / "out"
    assert _grade_cli(tmp_path, trusted_mode, folder) == 0
    read_at = []
    real = exports.class_rows
    monkeypatch.setattr(exports, "class_rows", lambda book: read_at.append(time.monotonic()) or real(book))
    with exports._writing(out):
        writer = threading.Thread(target=grade.export_main, args=([str(out)],))
        writer.start()
        time.sleep(0.5)
        assert writer.is_alive() and not read_at  # it waits for the lock before reading anything
        released = time.monotonic()
    writer.join(30)
    assert read_at and read_at[0] >= released
    assert "ann.ipynb" in [r["file"] for r in _rows(out / "grades.csv")]


def _results(out: Path) -> int:
    try:
        with sqlite3.connect(out / gb.FILE_NAME, timeout=1) as db:
            return db.execute("SELECT count(*) FROM results").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_a_full_disk_stops_the_run_and_loses_nothing_graded(tmp_path, trusted_mode, monkeypatch, capsys):
    folder = _class(tmp_path, {"ann.ipynb": "perfect.ipynb", "bo.ipynb": "perfect.ipynb"})
    out = tmp_path / "out"
    record, calls = gb.Gradebook.record, []

    def full_after_one(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise sqlite3.OperationalError("database or disk is full")
        return record(self, *args, **kwargs)

    monkeypatch.setattr(gb.Gradebook, "record", full_after_one)
    args = [
        "--assignment",
        "from-scratch",
        "--out",
        str(out),
        "--jobs",
        "1",
        *_unsafe(trusted_mode),
        str(folder),
    ]
    assert grade.main([*args, "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "disk is full" in err and "run the same command again" in err
    with gb.Gradebook.open(out) as book:
        assert [r.display for r in book.history()] == ["ann.ipynb"]
        assert (
            book.db.execute("SELECT outcome FROM runs").fetchone()[0].startswith("stopped: database or disk")
        )
    monkeypatch.setattr(gb.Gradebook, "record", record)
    assert grade.main([*args, "--quiet"]) == 0
    with gb.Gradebook.open(out) as book:
        assert sorted(r.display for r in book.history()) == ["ann.ipynb", "bo.ipynb"]


# ------------------------------------------------------------------ the book itself
def test_another_assignment_a_newer_schema_or_not_a_gradebook_is_refused(tmp_path, capsys):
    info = grade.assignment_info(A)
    with gb.Gradebook.open(tmp_path, info) as book:
        book.seed(None, fresh=False)
    with pytest.raises(gb.GradebookError, match="holds the grades of 'from-scratch', not 'leave-one-out'"):
        gb.Gradebook.open(tmp_path, grade.assignment_info(ASSIGNMENTS["leave-one-out"]))
    args = ["--assignment", "leave-one-out", "--out", str(tmp_path), "--unsafe-no-sandbox", "--quiet"]
    (tmp_path / "x.ipynb").write_text("{}", encoding="utf-8")
    assert grade.main([*args, str(tmp_path / "x.ipynb")]) == 1
    assert "its own --out folder" in capsys.readouterr().err
    with sqlite3.connect(tmp_path / gb.FILE_NAME) as db:
        db.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(gb.GradebookError, match="newer version of the course.*schema 99"):
        gb.Gradebook.open(tmp_path, info)
    other = tmp_path / "other"
    other.mkdir()
    (other / gb.FILE_NAME).write_bytes(b"not a database at all" * 100)
    with pytest.raises(gb.GradebookError, match="not a gradebook"):
        gb.Gradebook.open(other, info)
    with pytest.raises(gb.GradebookError, match="no gradebook"):
        gb.Gradebook.open(tmp_path / "empty")


def test_every_check_and_the_whole_report_are_recorded(tmp_path, trusted_mode):
    notebook = tmp_path / "bo.ipynb"
    shutil.copyfile(CORPUS / "partially_correct.ipynb", notebook)
    report = grade.grade_many([notebook], A, tmp_path / "out", mode=trusted_mode, progress=None)[0]
    with gb.Gradebook.open(tmp_path / "out") as book:
        (result,) = book.history()
        checks = book.db.execute("SELECT target, name, passed, points FROM checks").fetchall()
    assert result.report == report and result.sha256 == report["sha256"] and len(result.sha256) == 64
    expected = [
        (q["target"], c["name"], int(c["passed"]), c["points"])
        for q in report["questions"]
        for c in q["checks"]
    ]
    assert checks == expected and any(p for _, _, p, _ in checks) and not all(p for _, _, p, _ in checks)
    assert json.loads((tmp_path / "out" / "bo.json").read_text())["final_score"] == report["score"]


# ------------------------------------------------ a Collection of helpers.grade.collect
def test_a_collection_is_graded_under_its_names_and_what_it_refused_is_listed(tmp_path, trusted_mode, capsys):
    shutil.copyfile(CORPUS / "perfect.ipynb", tmp_path / "extracted-1.ipynb")
    when = datetime(2026, 3, 1, 12, tzinfo=UTC)
    collection = Collection(
        submissions=[Submission(tmp_path / "extracted-1.ipynb", "ann_12345_678_hw1.ipynb", "s01", when)],
        unmatched=[("Untitled1.ipynb", "no roster entry matches this name")],
        ambiguous=[("bo_cy.ipynb", ["s02", "s03"])],
        refused=[("../../evil.ipynb", "a path outside the zip (zip-slip)")],
    )
    roster = grade.reports.Roster.from_text(ROSTER)
    out = tmp_path / "out"
    grade.grade_many(collection, A, out, mode=trusted_mode, progress=None, roster=roster)
    err = capsys.readouterr().err
    assert "not graded: Untitled1.ipynb: matches no roster entry" in err
    assert "not graded: bo_cy.ipynb: matches several roster entries (s02, s03)" in err
    assert "not graded: ../../evil.ipynb: refused (a path outside the zip (zip-slip))" in err
    rows = {r["learner_id"]: r for r in _rows(out / "grades.csv")}
    assert (
        rows["s01"]["file"] == "ann_12345_678_hw1.ipynb"
        and rows["s01"]["submitted_at"] == "2026-03-01T12:00:00Z"
    )
    assert {r["status"] for k, r in rows.items() if k != "s01"} == {
        "missing"
    }  # nobody credited with a stray file


def test_the_run_ends_naming_the_submissions_that_ran_out_of_time(tmp_path, trusted_mode, capsys):
    """A wall-clock limit is met by an endless loop, and by an honest notebook on a machine too busy:
    the run's end names them, so the instructor grades them again alone (never the ones that ran)."""
    folder = tmp_path / "subs"
    folder.mkdir()
    shutil.copyfile(CORPUS / "perfect.ipynb", folder / "ann.ipynb")
    shutil.copyfile(CORPUS / "infinite_loop_at_top_level.ipynb", folder / "loops.ipynb")
    argv = ["--assignment", "from-scratch", "--out", str(tmp_path / "out"), "--timeout", "3", "--quiet"]
    capsys.readouterr()
    assert grade.main([*argv, *_unsafe(trusted_mode), str(folder)]) == 0
    said = capsys.readouterr().err
    line = next(x for x in said.splitlines() if x.startswith("TIME LIMIT"))
    assert "1 submission(s)" in line and "'loops'" in line and "ann" not in line, said
    assert "--regrade --jobs 1" in line
