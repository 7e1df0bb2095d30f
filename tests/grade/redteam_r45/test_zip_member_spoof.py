"""Red team 45: a plain file named ``<classmate's zip>:<member>`` is shown exactly as the classmate's
zipped notebook, in every place the instructor reads, and shares its origin hash.

Without a roster a learner is told apart by the name the file was handed in under. A zip member is
shown as ``<zip name>:<member>`` (``collect._zip_source``'s prefix) and its origin is
``<zip's absolute path>:<member>`` (``collect._origin``, red team 44's fix). A colon is an ordinary
character of a Linux file name, so Mallory e-mails a notebook named ``bo.zip:hw.ipynb``; the instructor
saves it beside Bo's e-mailed ``bo.zip`` (holding ``hw.ipynb``) and grades the files as the README
says (single notebooks and zips as plain paths). Then:

- grades.csv has two rows whose ``file`` is ``bo.zip:hw.ipynb``, byte for byte, with no
  ``[look-alike i/n: ...]`` marker, although the README promises one "when two files would look the
  same" (``reports.display_names`` marks only names that differ as strings);
- both feedback files are titled "feedback for ``bo.zip:hw.ipynb``", and the terminal names
  ``bo.zip_hw-<h>`` (Mallory's) beside ``hw-<h>`` (Bo's);
- the origin strings are equal (``/d/bo.zip:hw.ipynb`` for the member and for Mallory's plain file),
  so the two report names even carry the SAME 10-hex hash (``files.report_names``): nothing the
  instructor sees tells which row is Bo's. Mallory's 14/14 reads as Bo's grade (Bo's own 4/14 row
  reads as a duplicate), and handing back "bo.zip:hw.ipynb"'s feedback may give Bo Mallory's.

The honest classmate Cy keeps 14/14, alone under his name.

Suggested fix principle: a name shown (and an origin hashed) must be unambiguous: write a zip member's
place with a separator no file name can hold (``bo.zip/hw.ipynb`` or ``bo.zip ▸ hw.ipynb`` with the
plain name's look-alikes escaped), encode origins unambiguously (e.g. a JSON pair), and mark any two
rows whose shown names are equal.

Closed at stop 44: a zip member is shown as ``<zip>/<member>`` (``/`` is in no file name), its
origin is the JSON pair of the zip's path and the member (never equal to a path), and two files
handed over under the same name are numbered ``[same name i/n]`` (``reports.display_names``).
"""

from __future__ import annotations

import contextlib
import csv
import io
import shutil
import zipfile

from helpers.grade import grader as grade
from tests.grade.redteam_r5.common import CORPUS


def _rows(out):
    return list(csv.DictReader(io.StringIO((out / "grades.csv").read_text(encoding="utf-8"))))


def test_a_plain_name_is_never_shown_as_a_classmates_zip_member(tmp_path, bwrap):
    emails = tmp_path / "emails"
    emails.mkdir()
    with zipfile.ZipFile(emails / "bo.zip", "w") as zf:  # Bo: an honest, partly right notebook, zipped
        zf.write(CORPUS / "partially_correct.ipynb", "hw.ipynb")
    with zipfile.ZipFile(emails / "ann.zip", "w") as zf:  # Ann: the course's file name too
        zf.write(CORPUS / "partially_correct.ipynb", "hw.ipynb")
    shutil.copy(CORPUS / "perfect.ipynb", emails / "bo.zip:hw.ipynb")  # Mallory's e-mailed attachment
    shutil.copy(CORPUS / "perfect.ipynb", emails / "cy.ipynb")  # the honest classmate
    out = tmp_path / "out"
    sources = ["bo.zip", "ann.zip", "bo.zip:hw.ipynb", "cy.ipynb"]
    args = ["--assignment", "from-scratch", "--out", str(out), "--quiet", "--jobs", "2"]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert grade.main([*args, *(str(emails / s) for s in sources)]) == 0
    rows = _rows(out)
    cy = [r for r in rows if r["file"] == "cy.ipynb"]
    assert len(cy) == 1 and cy[0]["score"] == "14", rows  # the honest classmate is untouched
    assert len(rows) == 4, rows
    shown = [r["file"] for r in rows]
    # every row's shown file name tells it apart: no two rows read the same
    assert len(set(shown)) == len(shown), sorted((r["file"], r["submission"], r["score"]) for r in rows)
