"""Red team 44: two zips whose notebooks share a name are two learners keyed by a TEMPORARY path.

Without a roster, ``grader._learner_keys`` keys two files of one run that share a name by their report
names (``file:`` and ``files.report_names``' name, ``<stem>-<10 hex of the absolute path>``). For a
notebook that came in a zip, that path is the member extracted into the run's private work folder,
``tempfile.TemporaryDirectory(prefix="helpers-grade-collect-")/archive-N/...``: a new random folder in
every run. So the learner key of such a notebook changes from run to run.

Learners hand in zips whose notebook has the course's own name (``from-scratch.ipynb``, or ``hw.ipynb``
here): nothing unusual, nothing hostile. The instructor grades the emailed zips (the README: "single
notebooks, and flat folders and zips of them as plain paths") and later runs the SAME command again
(after Ctrl-C, or to pick up a run that stopped). The README promises that "running the same command
again grades only the rest: a file already graded for that learner with the same seed is kept", and
that the key is "never the zip or folder the instructor keeps it in, nor a per-submission id".
Instead every file is graded again under a NEW learner key: ``grades.csv`` gains a second row for
each of them (a third after a third run...), each row meets other hidden cases (a partly wrong
notebook can get two different scores for one file), no ``REPLACED`` line is said, and nothing
tells the instructor which row is whose. The same happens to a learner folder holding two notebooks
in a ``--learner-folders`` zip.

The honest classmate Cy (a plain notebook given beside the zips) keeps one row and full marks.

Suggested fix principle: a key (and the report name it comes from) must rest on what the instructor
gave, never on where the run extracted it: hash the path as shown (``ann.zip:hw.ipynb``, the source
as given on the command line), not the temporary extraction path.

Closed at stop 44: a report name's hash (and so the key of two files of one run under one name) is
taken from where the instructor gave the file (``collect.Submission.origin``: ``<zip's path>:<member>``),
never from the run's temporary extraction folder (``files.report_names``).
"""

from __future__ import annotations

import contextlib
import csv
import io
import shutil
import zipfile

from helpers.grade import grader as grade
from tests.grade.redteam_r5.common import CORPUS


def _run(out, *paths):
    args = ["--assignment", "from-scratch", "--out", str(out), "--quiet", "--jobs", "2"]
    with contextlib.redirect_stdout(io.StringIO()) as said, contextlib.redirect_stderr(io.StringIO()) as err:
        assert grade.main([*args, *map(str, paths)]) == 0
    return said.getvalue() + err.getvalue()


def _rows(out):
    return list(csv.DictReader(io.StringIO((out / "grades.csv").read_text(encoding="utf-8"))))


def test_same_command_again_keeps_zipped_notebooks_of_one_name(tmp_path, bwrap):
    for zip_name, source in (("ann.zip", "perfect.ipynb"), ("bo.zip", "partially_correct.ipynb")):
        with zipfile.ZipFile(tmp_path / zip_name, "w") as zf:
            zf.write(CORPUS / source, "hw.ipynb")  # both learners kept the course's file name
    shutil.copy(CORPUS / "perfect.ipynb", tmp_path / "cy.ipynb")  # the honest classmate, a plain file
    out = tmp_path / "out"
    sources = (tmp_path / "ann.zip", tmp_path / "bo.zip", tmp_path / "cy.ipynb")
    _run(out, *sources)
    first = _rows(out)
    assert len(first) == 3, first
    said = _run(out, *sources)  # the same command again (e.g. after an interrupted run)
    rows = _rows(out)
    cy = [r for r in rows if r["file"] == "cy.ipynb"]
    assert len(cy) == 1 and cy[0]["score"] == "14", rows  # the honest classmate
    by_file = sorted((r["file"], r["score"]) for r in rows)
    assert by_file == [("ann.zip/hw.ipynb", "14"), ("bo.zip/hw.ipynb", "4"), ("cy.ipynb", "14")], (
        by_file,
        said,
    )
