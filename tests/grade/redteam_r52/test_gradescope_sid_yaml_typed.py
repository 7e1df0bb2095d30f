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
    :sid: '216000'
    :email: bo@x.edu
  :created_at: 2026-11-20 10:00:00.000000000 +00:00
submission_2:
  :submitters:
  - :name: Mal
    :sid: 1:00:00:00
    :email: mal@x.edu
  :created_at: 2026-11-21 10:00:00.000000000 +00:00
"""


def test_a_base60_sid_does_not_contest_a_roster_learner(tmp_path, bwrap):
    shutil.copy(CORPUS / "perfect.ipynb", tmp_path / "hw_cy.ipynb")  # Cy: an honest plain file
    roster = "file,id,name,login\nhw_cy.ipynb,cy,Cy,cy@x.edu\nbo.ipynb,216000,Bo,bo@x.edu\n"
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
    assert (rows["216000"]["status"], rows["216000"]["score"]) == ("graded", "14"), rows["216000"]
