"""Red team 53: what was tried and held (regression tests; no hole found this round).

1. Gradescope metadata text (read with YAML's base loader since round 52) carrying terminal escapes,
   an OSC-8 link, HTML, a Markdown link, a bidi override and a spreadsheet formula in a learner's
   ``:name``, ``:sid`` and ``:email`` (written double-quoted with escapes, as Psych writes such text),
   and a ``:created_at`` that is that text: with and without a roster the honest classmates keep full
   marks, the unmatched line escapes the text (``repr`` then ``collect._printable``), the bad time is
   no time (``collect._utc``), and no escape, tag, link or formula reaches the feedback, ``grades.csv``
   or ``history`` (``grader`` prints keys through the same escaping).
2. The runner (the learner's process) signals its supervisor (``os.getppid()``): SIGSTOP during a
   question costs that question only ("timed out"); SIGTERM to the supervisor and to pid 1 while a cell
   runs is that cell's error; the honest classmate graded beside it keeps 14/14.
"""

from __future__ import annotations

import contextlib
import csv
import io
import shutil
import subprocess
import sys
import zipfile

from helpers.grade import grader as grade

from ..redteam_r5.common import CORPUS, PERFECT_CELLS, grade_class, notebook

EVIL = r"\e]8;;http://e.vil\a<b>x</b>[l](http://e.vil)\u202e=cmd|'/C calc'!A0\e[2J"
META = f"""submission_1:
  :submitters:
  - :name: Bo
    :sid: bo
    :email: bo@x.edu
  :created_at: 2026-11-20 10:00:00.000000000 +00:00
submission_2:
  :submitters:
  - :name: "{EVIL}"
    :sid: "{EVIL}"
    :email: "{EVIL}@x.edu"
  :created_at: 2026-11-21 10:00:00.000000000 +00:00
submission_3:
  :submitters:
  - :name: "{EVIL}"
    :sid: mal
    :email: mal@x.edu
  :created_at: "{EVIL}"
"""
MARKS = ("\x1b", "\x07", "\u202e", "<b>", "](http", "\n=cmd", ",=cmd")


def _grade(tmp_path, with_roster: bool):
    shutil.copy(CORPUS / "perfect.ipynb", tmp_path / "hw_cy.ipynb")  # Cy: an honest plain file
    (tmp_path / "roster.csv").write_text(
        "file,id,name,login\nhw_cy.ipynb,cy,Cy,cy@x.edu\nbo.ipynb,bo,Bo,bo@x.edu\nmal.ipynb,mal,Mal,mal@x.edu\n"
    )
    with zipfile.ZipFile(tmp_path / "export.zip", "w") as zf:
        zf.writestr("submission_metadata.yml", META)
        zf.write(CORPUS / "perfect.ipynb", "submission_1/hw.ipynb")  # Bo: honest
        zf.write(CORPUS / "constant_zero.ipynb", "submission_2/hw.ipynb")
        zf.write(CORPUS / "constant_zero.ipynb", "submission_3/hw.ipynb")
    out = tmp_path / "out"
    args = ["--assignment", "from-scratch", "--out", str(out), "--jobs", "2"]
    args += ["--roster", str(tmp_path / "roster.csv")] if with_roster else []
    args += ["--gradescope", str(tmp_path / "export.zip"), str(tmp_path / "hw_cy.ipynb")]
    printed, errors = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(errors):
        assert grade.main(args) == 0
    return out, printed.getvalue() + errors.getvalue()


def test_hostile_gradescope_metadata_text_held(tmp_path, bwrap):
    for with_roster in (True, False):
        where = tmp_path / str(with_roster)
        where.mkdir()
        out, terminal = _grade(where, with_roster)
        rows = list(csv.DictReader(io.StringIO((out / "grades.csv").read_text("utf-8"))))
        honest = [r for r in rows if r["file"] in ("hw_cy.ipynb", "export.zip/submission_1/hw.ipynb")]
        assert [r["score"] for r in honest] == ["14", "14"], rows
        if with_roster:
            assert {r["learner_id"]: r["score"] for r in honest} == {"cy": "14", "bo": "14"}
        history = subprocess.run(
            [sys.executable, "-m", "helpers.grade", "history", str(out)], capture_output=True, text=True
        ).stdout
        assert "gradescope:sid=" in history or with_roster
        for text in (terminal, history):  # plain terminal text: no raw escape or bidi control
            assert not [m for m in ("\x1b", "\x07", "\u202e") if m in text]
        for path in [out / "grades.csv", *(out / "feedback").glob("*.md")]:  # nothing of it at all
            assert not [m for m in MARKS if m in path.read_text("utf-8")], path


STOP_SUPERVISOR = r"""
import os, signal
_orig = recall_at_k
_n = [0]
def recall_at_k(*a, **k):
    _n[0] += 1
    if _n[0] == 3:
        os.kill(os.getppid(), signal.SIGSTOP)
    return _orig(*a, **k)
"""
KILL_SUPERVISOR = r"""
import os, signal
for pid in (1, os.getppid()):
    try:
        os.kill(pid, signal.SIGTERM)
    except OSError:
        pass
"""


def test_runner_signalling_its_supervisor_held(tmp_path, bwrap):
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(CORPUS / "perfect.ipynb", folder / "honest.ipynb")
    notebook(folder / "stopsup.ipynb", *PERFECT_CELLS, STOP_SUPERVISOR)
    notebook(folder / "killsup.ipynb", *PERFECT_CELLS, KILL_SUPERVISOR)
    graded = grade_class(folder, tmp_path / "out", seed=7)
    assert graded["honest.ipynb"]["report"]["score"] == 14
    assert graded["stopsup.ipynb"]["report"]["score"] == 12  # recall@k alone: timed out
    assert graded["killsup.ipynb"]["report"]["score"] == 14  # its own cell's error, nothing else
