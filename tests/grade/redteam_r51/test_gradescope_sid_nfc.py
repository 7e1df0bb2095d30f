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

from tests.grade.redteam_r5.downloads import (
    CY_ROW,
    class_list,
    full_marks,
    grade_download,
    gs_export,
    gs_record,
)

JO = gs_record(1, {"name": "Jo", "sid": '"jos\\u00e9"'})
MAL = gs_record(2, {"name": "Mal", "sid": '"jose\\u0301"'}, day=21)
BOTH = {1: "perfect.ipynb", 2: "constant_zero.ipynb"}


def test_an_nfd_sid_does_not_share_a_classmates_key(tmp_path, bwrap):
    export = tmp_path / "export.zip"
    grade_download(tmp_path, "--gradescope", gs_export(export, JO, {1: "perfect.ipynb"}), None)
    grade_download(tmp_path, "--gradescope", gs_export(export, JO + MAL, BOTH), None)  # Mal's added
    jo = [r for r in class_list(tmp_path / "out") if "submission_1" in r["file"]]
    assert len(jo) == 1, jo


def test_an_nfd_sid_does_not_contest_a_roster_learner(tmp_path, bwrap):
    """With a roster, ``Roster.with_field("id", sid)`` compares NFC too: Mal's distinct Gradescope id
    ``jose\u0301`` claims Jo's row ``jos\u00e9`` by the platform's word, so Jo's own submission is in a
    CONFLICT and Jo's row is ``conflict`` (no grade) for as long as Mal's submission is in the export."""
    export = gs_export(tmp_path / "export.zip", JO + MAL, BOTH)
    rows, _, _ = grade_download(
        tmp_path, "--gradescope", export, f"file,id,name\n{CY_ROW}\njo.ipynb,jos\u00e9,Jo\n"
    )
    assert full_marks(rows, "jos\u00e9"), rows["jos\u00e9"]
