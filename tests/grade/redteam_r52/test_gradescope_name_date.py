"""Red team 52: one learner's Gradescope NAME spelled as an impossible date makes the whole export
unreadable, and every classmate in it goes ungraded.

``collect._read_metadata`` parses ``submission_metadata.yml`` with ``yaml.safe_load``, which
constructs YAML 1.1 timestamps: the plain scalar ``2001-02-30`` is built as ``datetime.date(2001, 2,
30)`` and raises ``ValueError`` ("day is out of range"), caught for the WHOLE file: "cannot read
submission_metadata.yml", and no submission of the export is graded. Gradescope writes the file
with Ruby's Psych, whose scanner tries ``Date.strptime`` on such a string, fails, and keeps it a
string, so it is written PLAIN (unquoted): a learner who sets her Gradescope display name (which
Gradescope lets a user edit, and writes as ``:name:``) to ``2001-02-30`` -- or ``2001-13-45``, or
her typed Student ID -- makes the next export refused as a whole. The test writes the metadata as
Psych does (the name plain).

Severity: high if Gradescope writes names plain as Psych does (every learner of a Gradescope
export loses their grade until the instructor edits the metadata by hand); the honest plain file
beside the export is untouched. Fix principle: read a platform's metadata as text
(``yaml.BaseLoader``: no typed scalars), and let one submission's bad field refuse that submission
alone, never the export.

Closed at stop 45: Gradescope's metadata is read as text (``collect._read_metadata``:
``yaml.BaseLoader``, every value the characters Gradescope wrote; ``:created_at`` parsed from its
text by ``_utc``), so no name or id is a date, a number or an error that refuses the export.
"""

from __future__ import annotations

import contextlib
import csv
import io
import shutil
import zipfile

from helpers.grade import grader as grade
from tests.grade.redteam_r5.common import CORPUS

META = """\
submission_1:
  :submitters:
  - :name: Bo
    :sid: bo
    :email: bo@x.edu
  :created_at: 2026-11-20 10:00:00.000000000 +00:00
submission_2:
  :submitters:
  - :name: 2001-02-30
    :sid: mal
    :email: mal@x.edu
  :created_at: 2026-11-21 10:00:00.000000000 +00:00
"""


def test_an_impossible_date_name_does_not_refuse_the_export(tmp_path, bwrap):
    shutil.copy(CORPUS / "perfect.ipynb", tmp_path / "hw_cy.ipynb")  # Cy: an honest plain file
    roster = "file,id,name,login\nhw_cy.ipynb,cy,Cy,cy@x.edu\nbo.ipynb,bo,Bo,bo@x.edu\n"
    roster += "mal.ipynb,mal,Mal,mal@x.edu\n"
    (tmp_path / "roster.csv").write_text(roster, "utf-8")
    with zipfile.ZipFile(tmp_path / "export.zip", "w") as zf:
        zf.writestr("submission_metadata.yml", META)
        zf.write(CORPUS / "perfect.ipynb", "submission_1/hw.ipynb")  # Bo: honest
        zf.write(CORPUS / "constant_zero.ipynb", "submission_2/hw.ipynb")  # Mal
    out = tmp_path / "out"
    args = ["--assignment", "from-scratch", "--out", str(out), "--jobs", "2", "--quiet"]
    args += ["--roster", str(tmp_path / "roster.csv"), "--gradescope", str(tmp_path / "export.zip")]
    args += [str(tmp_path / "hw_cy.ipynb")]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert grade.main(args) == 0
    rows = {r["learner_id"]: r for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text("utf-8")))}
    assert rows["cy"]["score"] == "14", rows["cy"]  # the plain honest classmate: untouched
    assert (rows["bo"]["status"], rows["bo"]["score"]) == ("graded", "14"), rows["bo"]
