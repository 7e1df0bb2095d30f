"""Red team 51: two Gradescope submitters whose ids differ only in Unicode normalisation share a
no-roster key.

``collect._submitters_key`` writes each id through ``files.exact_name``, which NFC-normalises it (a
rule made for FILE names typed two ways). Gradescope's Student ID is a string the learner types when
enrolling; Gradescope keeps it as typed, so ``jose\u0301`` (NFD, pasted from a macOS file name) and
``jos\u00e9`` (NFC) are two distinct, accepted ids. Both become ``gradescope:sid=jos\u00e9``: Mal
(alone, ``jose\u0301``) and Jo (``jos\u00e9``) share one key in a run that holds both, so both fall
back to a path-derived key (``grader._learner_keys``): re-grading the next export into the same
``--out`` grades Jo AGAIN under another key, with NEW hidden cases, and the class's files hold Jo twice.
This is round 50's hole (distinct submitter sets sharing a key) through another spelling.

Severity: low (no roster; a self-typed id). Fix principle: a platform's id is compared as the exact
string the platform gave (NFC folds only names the instructor's file system may respell), or the key
is an injective encoding of the exact ids.

Closed at stop 45: Gradescope's ids are compared and keyed as Gradescope spelled them
(``Roster.with_field(..., exact=True)``: ids exact, a login lower-cased only; ``collect._key_text``:
no Unicode normalisation, ``%``, ``,`` and lone surrogates written ``%XX``).
"""

from __future__ import annotations

import contextlib
import csv
import io
import shutil
import zipfile

from helpers.grade import grader as grade
from tests.grade.redteam_r5.common import CORPUS

JO = """\
submission_1:
  :submitters:
  - :name: Jo
    :sid: "jos\\u00e9"
  :created_at: 2026-11-20 10:00:00.000000000 +00:00
"""
MAL = """\
submission_2:
  :submitters:
  - :name: Mal
    :sid: "jose\\u0301"
  :created_at: 2026-11-21 10:00:00.000000000 +00:00
"""


def _export(path, meta: str, mal: bool) -> None:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("submission_metadata.yml", meta)
        zf.write(CORPUS / "perfect.ipynb", "submission_1/hw.ipynb")  # Jo: honest
        if mal:
            zf.write(CORPUS / "constant_zero.ipynb", "submission_2/hw.ipynb")


def _grade(tmp_path, export) -> list[dict]:
    out = tmp_path / "out"
    args = ["--assignment", "from-scratch", "--out", str(out), "--jobs", "2", "--quiet"]
    args += ["--gradescope", str(export), str(tmp_path / "hw_cy.ipynb")]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert grade.main(args) == 0
    return list(csv.DictReader(io.StringIO((out / "grades.csv").read_text("utf-8"))))


def test_an_nfd_sid_does_not_share_a_classmates_key(tmp_path, bwrap):
    shutil.copy(CORPUS / "perfect.ipynb", tmp_path / "hw_cy.ipynb")  # Cy: an honest plain file
    _export(tmp_path / "export.zip", JO, mal=False)
    rows = _grade(tmp_path, tmp_path / "export.zip")
    assert [r["score"] for r in rows if r["file"] == "hw_cy.ipynb"] == ["14"]
    _export(tmp_path / "export.zip", JO + MAL, mal=True)  # the next export: Mal's submission added
    rows = _grade(tmp_path, tmp_path / "export.zip")
    assert [r["score"] for r in rows if r["file"] == "hw_cy.ipynb"] == ["14"]  # Cy untouched
    jo = [r for r in rows if "submission_1" in r["file"]]
    assert len(jo) == 1, [(r["submission"], r["file"], r["score"]) for r in rows]


def test_an_nfd_sid_does_not_contest_a_roster_learner(tmp_path, bwrap):
    """With a roster, ``Roster.with_field("id", sid)`` compares NFC too: Mal's distinct Gradescope id
    ``jose\u0301`` claims Jo's row ``jos\u00e9`` by the platform's word, so Jo's own submission is in a
    CONFLICT and Jo's row is ``conflict`` (no grade) for as long as Mal's submission is in the export."""
    shutil.copy(CORPUS / "perfect.ipynb", tmp_path / "hw_cy.ipynb")  # Cy: an honest plain file
    (tmp_path / "roster.csv").write_text("file,id,name\nhw_cy.ipynb,cy,Cy\njo.ipynb,jos\u00e9,Jo\n", "utf-8")
    _export(tmp_path / "export.zip", JO + MAL, mal=True)
    out = tmp_path / "out"
    args = ["--assignment", "from-scratch", "--out", str(out), "--jobs", "2", "--quiet"]
    args += ["--roster", str(tmp_path / "roster.csv"), "--gradescope", str(tmp_path / "export.zip")]
    args += [str(tmp_path / "hw_cy.ipynb")]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert grade.main(args) == 0
    rows = {r["learner_id"]: r for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text("utf-8")))}
    assert rows["cy"]["score"] == "14", rows["cy"]  # untouched
    assert (rows["jos\u00e9"]["status"], rows["jos\u00e9"]["score"]) == ("graded", "14"), rows["jos\u00e9"]
