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

from tests.grade.redteam_r5.downloads import CY_ROW, full_marks, grade_download, gs_export, gs_record


def test_a_kelvin_sign_email_does_not_contest_a_roster_learner(tmp_path, bwrap):
    meta = gs_record(1, {"name": "Bo", "sid": "bo", "email": "bok@x.edu"})
    meta += gs_record(2, {"name": "Mal", "sid": "mal9", "email": '"bo\\u212a@x.edu"'}, day=21)
    export = gs_export(tmp_path / "export.zip", meta, {1: "perfect.ipynb", 2: "constant_zero.ipynb"})
    roster = f"file,id,name,login\n{CY_ROW},cy@x.edu\nbo.ipynb,bo,Bo,bok@x.edu\n"
    rows, _, _ = grade_download(tmp_path, "--gradescope", export, roster)
    assert full_marks(rows, "bo"), rows["bo"]
