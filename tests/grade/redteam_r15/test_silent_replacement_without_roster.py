"""The fifteenth red team: without a roster, a later file under a classmate's name replaces the
classmate's result silently, and two different file names whose escaped forms coincide are one
learner.

``grader._replacement`` writes the README's ``REPLACED: ...`` line ("A run that replaces a learner's
result by another file's says so") only for roster learners: ``who.startswith("file:")`` returns
``""``. Without a roster the learner key is the name handed in (``gradebook.file_names``), so:

1. ``test_a_replaced_result_is_said``: Bob's ``bob.ipynb`` (14/14) is graded; a later batch holds
   another ``bob.ipynb`` (any classmate can name a file so: 0/14). Bob's row becomes 0/14 and the
   run prints nothing about it (no REPLACED line, no warning); only ``history`` shows it;
2. ``test_names_that_differ_are_not_merged``: the key is built from ``display_name`` (undecodable
   bytes and control characters written as ``\\xe9``, ``\\n``), so a file whose name *is* the
   escape (``caf\\xe9.ipynb``, ASCII backslash, typed by anybody) and one whose name holds the byte
   ``0xe9`` (a Latin-1 ``café.ipynb``) are one learner across runs: the second replaces the first,
   silently (in one run the two are told apart, by their report names).

The honest classmate Ann keeps 14/14 (asserted). Held with a roster (the line is printed).

The principle that would close it: every replacement of a current result by another file's is said,
with or without a roster; and a learner key is built from the name's exact bytes (or an escape that
is itself unambiguous, e.g. escaping the backslash), never from a lossy display form.

Closed: every replacement of a current result by another file's prints REPLACED, with or without a
roster (``grader._replacement``), and keys use the name's exact bytes (``files.exact_name``).
"""

from __future__ import annotations

import csv
import io
import os
import shutil
from pathlib import Path

from helpers.grade import collect, grader, isolation
from helpers.grade.assignments import ASSIGNMENTS

from ..redteam_r5.common import CORPUS

SEED = 2**100 + 1516
A = ASSIGNMENTS["from-scratch"]


def _grade(folder: Path, out: Path) -> tuple[list[dict], str]:
    progress = io.StringIO()
    found = collect.collect([folder], None, folder.parent)
    done = grader.grade_many(
        found.submissions, A, out, jobs=2, seed=SEED, mode=isolation.BUBBLEWRAP, progress=progress
    )
    return done, progress.getvalue()


def _rows(out: Path) -> list[dict]:
    with open(out / "grades.csv", encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_a_replaced_result_is_said(bwrap, tmp_path):
    first, late, out = tmp_path / "subs", tmp_path / "late", tmp_path / "out"
    first.mkdir()
    late.mkdir()
    shutil.copyfile(CORPUS / "perfect.ipynb", first / "ann.ipynb")  # the honest classmate
    shutil.copyfile(CORPUS / "perfect.ipynb", first / "bob.ipynb")
    shutil.copyfile(CORPUS / "constant_zero.ipynb", late / "bob.ipynb")  # not Bob's: anybody's file
    _grade(first, out)
    _, said = _grade(late, out)
    rows = _rows(out)
    assert [float(r["score"]) for r in rows if r["file"] == "ann.ipynb"] == [14.0]
    assert [float(r["score"]) for r in rows if r["file"] == "bob.ipynb"] == [0.0]  # replaced
    assert "REPLACED" in said and "bob" in said, said


def test_names_that_differ_are_not_merged(bwrap, tmp_path):
    first, late, out = tmp_path / "subs", tmp_path / "late", tmp_path / "out"
    first.mkdir()
    late.mkdir()
    shutil.copyfile(CORPUS / "perfect.ipynb", first / "ann.ipynb")  # the honest classmate
    shutil.copyfile(CORPUS / "perfect.ipynb", os.path.join(os.fsencode(first), b"caf\xe9.ipynb"))
    shutil.copyfile(CORPUS / "constant_zero.ipynb", late / "caf\\xe9.ipynb")  # the escape, typed
    keys = [r["learner"] for r in _grade(first, out)[0]] + [r["learner"] for r in _grade(late, out)[0]]
    rows = _rows(out)
    assert [float(r["score"]) for r in rows if r["file"] == "ann.ipynb"] == [14.0]
    assert len(set(keys)) == 3, keys
    assert sorted(float(r["score"]) for r in rows) == [0.0, 14.0, 14.0], [
        (r["file"], r["score"]) for r in rows
    ]
