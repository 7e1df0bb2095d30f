"""Red team 52: Gradescope's metadata is read with YAML 1.1 typing, so a typed sid that is a
sexagesimal number reads as a classmate's numeric student id.

``collect`` reads ``submission_metadata.yml`` with ``yaml.safe_load`` and then ``str()`` of each
``:sid``. PyYAML resolves plain scalars by YAML 1.1: ``1:00:00:00`` is the int 216000 (base 60, any
number of groups). Gradescope writes its export with Ruby's Psych, which quotes a string only when
its own scanner reads it as a non-string, and Psych reads base 60 with at most two ``:`` groups
(``/^[-+]?[0-9][0-9_]*(:[0-5]?[0-9]){1,2}$/``): the Student ID a learner typed as ``1:00:00:00``
is written plain, and read here as ``"216000"``, a classmate's id. With a roster the learner
contests Bo's row (id ``216000``): a CONFLICT, and Bo's row is ``conflict`` with no grade; without
one both share ``gradescope:sid=216000`` and fall back to path keys (round 50/51's split).

The test writes the metadata as Psych would (Bo's numeric-looking string id quoted, Mal's plain).
It asserts what PyYAML reads, so it holds whatever Gradescope's writer does with other spellings.

Severity: low (a self-typed Student ID in a roster of numeric ids; depends on Gradescope writing the
typed text plain, which is Psych's documented behaviour). Fix principle: read a platform's metadata
as text (``yaml.BaseLoader``, or refuse any ``:sid``/``:email`` that is not a ``str``): an id is the
characters Gradescope wrote, never a number YAML computed from them.

Closed at stop 45: Gradescope's metadata is read as text (``collect._read_metadata``:
``yaml.BaseLoader``, every value the characters Gradescope wrote; ``:created_at`` parsed from its
text by ``_utc``), so no name or id is a date, a number or an error that refuses the export.
"""

from __future__ import annotations

from tests.grade.redteam_r5.downloads import CY_ROW, full_marks, grade_download, gs_export, gs_record


def test_a_base60_sid_does_not_contest_a_roster_learner(tmp_path, bwrap):
    meta = gs_record(1, {"name": "Bo", "sid": "'216000'", "email": "bo@x.edu"})
    meta += gs_record(2, {"name": "Mal", "sid": "1:00:00:00", "email": "mal@x.edu"}, day=21)
    export = gs_export(tmp_path / "export.zip", meta, {1: "perfect.ipynb", 2: "constant_zero.ipynb"})
    roster = f"file,id,name,login\n{CY_ROW},cy@x.edu\nbo.ipynb,216000,Bo,bo@x.edu\n"
    rows, _, _ = grade_download(tmp_path, "--gradescope", export, roster)
    assert full_marks(rows, "216000"), rows["216000"]
