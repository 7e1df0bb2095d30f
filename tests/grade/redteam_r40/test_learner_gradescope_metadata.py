"""Red team 40: a learner's ``submission_metadata.yml`` makes a folder or zip "Gradescope's export".

Red team 39's fix says only the instructor names Canvas's download (``--canvas``), since anybody can
type a Canvas-shaped name. Gradescope's export is still recognised by its contents:
``collect._gradescope_root`` takes ANY folder given (or any zip, or a zip's single top folder) that
holds a file named ``submission_metadata.yml`` for Gradescope's export, and then believes that file's
``:submitters`` (``:sid`` to the roster's ``id``, ``:email`` to ``login``) as the platform's word, and
refuses every other notebook in the source ("not a submission folder listed in ...").

Anybody can write that file:

1. ``test_metadata_file_in_a_folder_of_learner_files``: in a folder of files the learners named
   themselves (a shared drive, red team 32's setting), Mallory adds ``submission_metadata.yml`` and a
   folder ``x/`` holding a blank notebook, listed with Bo's ``:sid``. Every classmate's own notebook is
   refused (Cy, the honest classmate, gets no grade) and Bo is graded on Mallory's blank notebook.
2. ``test_emailed_zip_with_metadata_takes_a_classmate``: after the class is graded, Mallory emails a
   zip (given by itself, as the README gives a late file) holding the same two entries. Her blank
   notebook is graded as Bo (``:sid`` s2): Bo's 14/14 is REPLACED by 0 (a ``REPLACED`` line is printed,
   but the current result, grades.csv and canvas.csv are Mallory's notebook).

3. ``test_broken_metadata_prints_learner_text_raw``: a ``submission_metadata.yml`` that is not valid
   YAML is refused with PyYAML's message (``collect._read_metadata``: ``str(exc)[:120]``), which
   quotes the offending line: the learner's newlines and bidi controls (U+202E, U+2066) reach the
   instructor's terminal unescaped (``instructor_lines`` quotes names, never reasons).

Suggested fix principle (as for ``--canvas``): the instructor names Gradescope's export (e.g.
``--gradescope EXPORT``); in any other source a ``submission_metadata.yml`` is an ordinary
(ignored, reported) file and folders are not Gradescope submissions.

Closed at stop 44: the instructor names Gradescope's export (``--gradescope EXPORT``) and a folder of
per-learner folders (``--learner-folders FOLDER``), as Canvas's download; in a plain source a folder
is not read (refused, saying which option reads it) and ``submission_metadata.yml`` is an ordinary file.
Reasons and notes are printed with control and format characters escaped (``instructor_lines``), and
an unreadable metadata file is named by its line, never quoted.

The honest classmate Cy is asserted graded 14/14 in every run.
"""

from __future__ import annotations

import csv
import io
import shutil
import zipfile

from tests.grade.redteam_r5.common import CORPUS
from tests.grade.redteam_r5.downloads import grade_sources

ROSTER = (
    "file,id,name,login\nhw1_bsmith*.ipynb,s2,Bo,bsmith\nhw1_cy*.ipynb,s4,Cy,cy\nhw1_mal*.ipynb,s3,Mal,mal\n"
)
METADATA = (
    "x:\n  :submitters:\n  - :sid: s2\n    :name: Bo\n  :created_at: 2026-01-01 10:00:00.000000000 +0000\n"
)


def _grade(tmp_path, *sources):
    rows, said, err = grade_sources(tmp_path, ROSTER, *sources)
    return rows, said + err


def test_metadata_file_in_a_folder_of_learner_files(tmp_path, bwrap):
    subs = tmp_path / "subs"
    (subs / "x").mkdir(parents=True)
    shutil.copyfile(CORPUS / "perfect.ipynb", subs / "hw1_bsmith.ipynb")  # Bo, honest
    shutil.copyfile(CORPUS / "perfect.ipynb", subs / "hw1_cy.ipynb")  # Cy, the honest classmate
    (subs / "submission_metadata.yml").write_text(METADATA)  # Mallory's
    shutil.copyfile(CORPUS / "empty_notebook.ipynb", subs / "x" / "hw.ipynb")  # Mallory's
    rows, said = _grade(tmp_path, subs)
    assert rows["s4"]["score"] == "14", (rows["s4"], said)  # the honest classmate is graded
    assert rows["s2"]["score"] == "14" and rows["s2"]["file"].endswith("hw1_bsmith.ipynb"), (rows["s2"], said)


def test_emailed_zip_with_metadata_takes_a_classmate(tmp_path, bwrap):
    subs = tmp_path / "subs"
    subs.mkdir()
    shutil.copyfile(CORPUS / "perfect.ipynb", subs / "hw1_bsmith.ipynb")  # Bo, honest
    shutil.copyfile(CORPUS / "perfect.ipynb", subs / "hw1_cy.ipynb")  # Cy, the honest classmate
    rows, _ = _grade(tmp_path, subs)
    assert rows["s2"]["score"] == rows["s4"]["score"] == "14"
    emailed = tmp_path / "mail" / "hw1_mal.zip"  # Mallory's late work, emailed as a zip
    emailed.parent.mkdir()
    with zipfile.ZipFile(emailed, "w") as z:
        z.writestr("submission_metadata.yml", METADATA)
        z.write(CORPUS / "empty_notebook.ipynb", "x/hw.ipynb")
    _grade(tmp_path, emailed)  # its one folder's notebook is read by its name (nobody's): never Bo's
    rows = {
        r["learner_id"]: r for r in csv.DictReader(io.StringIO((tmp_path / "out" / "grades.csv").read_text()))
    }
    assert rows["s4"]["score"] == "14", rows["s4"]  # the honest classmate
    # Bo keeps his own result: a file Mallory sent is never the platform's word for Bo
    assert rows["s2"]["score"] == "14" and rows["s2"]["file"].endswith("hw1_bsmith.ipynb"), rows["s2"]


def test_broken_metadata_prints_learner_text_raw(tmp_path, bwrap):
    emailed = tmp_path / "mail" / "hw1_mal.zip"
    emailed.parent.mkdir()
    with zipfile.ZipFile(emailed, "w") as z:
        z.writestr("submission_metadata.yml", "\u202e\u2066: b: c\n".encode())
        z.write(CORPUS / "empty_notebook.ipynb", "x/hw.ipynb")
    cy = tmp_path / "mail" / "hw1_cy.ipynb"
    shutil.copyfile(CORPUS / "perfect.ipynb", cy)
    rows, said = _grade(tmp_path, emailed, cy)
    assert rows["s4"]["score"] == "14", rows["s4"]  # the honest classmate
    assert "\u202e" not in said and "\u2066" not in said, said
