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

from tests.grade.redteam_r5.downloads import CY_ROW, full_marks, grade_download, gs_export, gs_record


def test_an_impossible_date_name_does_not_refuse_the_export(tmp_path, bwrap):
    meta = gs_record(1, {"name": "Bo", "sid": "bo", "email": "bo@x.edu"})
    meta += gs_record(2, {"name": "2001-02-30", "sid": "mal", "email": "mal@x.edu"}, day=21)
    export = gs_export(tmp_path / "export.zip", meta, {1: "perfect.ipynb", 2: "constant_zero.ipynb"})
    roster = f"file,id,name,login\n{CY_ROW},cy@x.edu\nbo.ipynb,bo,Bo,bo@x.edu\nmal.ipynb,mal,Mal,mal@x.edu\n"
    rows, _, _ = grade_download(tmp_path, "--gradescope", export, roster)
    assert full_marks(rows, "bo"), rows["bo"]
