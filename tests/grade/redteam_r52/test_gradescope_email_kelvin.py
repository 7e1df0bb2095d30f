"""Red team 52: a Gradescope email spelled with the KELVIN SIGN claims a classmate's roster row.

Round 51 made Gradescope's identities compare "as Gradescope spelled them"
(``Roster.with_field(..., exact=True)``): an id exactly, a login "lower-cased only". But
``str.lower`` is itself a Unicode fold: ``"\\u212a".lower() == "k"`` (KELVIN SIGN -> ASCII k). A
learner whose Gradescope email is ``bo\\u212a@x.edu`` (and whose sid names no roster row) is read as
the roster row whose login is ``bok@x.edu``: Bo's. Bo's own submission then shares his row with
Mal's, the run reports a CONFLICT and Bo's row is ``conflict``, with no grade, for as long as Mal's
submission is in the export (round 51's NFD-sid hole, through the login).

Severity: low (a roster with logins; an email the learner typed into Gradescope with a look-alike
character). Fix principle: compare a platform's login by ASCII case only (``str.lower`` restricted to
A-Z, or compare the exact text after an ASCII-only case fold), never a Unicode case mapping.

Closed at stop 45: a platform's login is compared with its ASCII letters lower-cased only
(``reports._ascii_lower`` in ``Roster.with_field(..., exact=True)``).
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
    :email: bok@x.edu
  :created_at: 2026-11-20 10:00:00.000000000 +00:00
submission_2:
  :submitters:
  - :name: Mal
    :sid: mal9
    :email: "bo\\u212a@x.edu"
  :created_at: 2026-11-21 10:00:00.000000000 +00:00
"""


def test_a_kelvin_sign_email_does_not_contest_a_roster_learner(tmp_path, bwrap):
    shutil.copy(CORPUS / "perfect.ipynb", tmp_path / "hw_cy.ipynb")  # Cy: an honest plain file
    roster = "file,id,name,login\nhw_cy.ipynb,cy,Cy,cy@x.edu\nbo.ipynb,bo,Bo,bok@x.edu\n"
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
