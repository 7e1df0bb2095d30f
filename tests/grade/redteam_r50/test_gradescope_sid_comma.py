"""Red team 50: Gradescope submitters' ids are joined with ``,`` into the no-roster key, so one learner's
``:sid`` can spell a GROUP's key.

Without a roster, a submission of Gradescope's export (``--gradescope``) is keyed by its submitters
(``collect._submitters_key``: ``gradescope:`` and the sorted ``sid=...`` joined by ``,``). The join is
not injective: Mal, alone, with the Student ID ``al,sid=bo`` (typed by the learner when she enrols with
the course's entry code; unique as a string, so Gradescope has no reason to refuse it) has the key
``gradescope:sid=al,sid=bo``, exactly the key of Al and Bo's group. In one run the two share a key,
so both fall back to a path-derived key (``grader._learner_keys``): the group is no longer the
learner the gradebook knows. Re-grading the next export into the same ``--out`` (the README's "a file
already graded for that learner with the same seed is kept") grades the group AGAIN under a new key,
with NEW hidden cases (partial credit can change), and the class's files hold the group twice.

Severity: low (no roster, a self-typed SID with a comma; it splits a group's identity and re-draws its
cases, it does not hand anyone another's score). Fix principle: encode each id unambiguously (e.g. a
JSON list of the sorted ids) so that distinct submitter sets never share a key.

Closed at stop 45: ``%`` and ``,`` in a submitter's id are written ``%25`` and ``%2C``
(``collect._submitters_key``), so distinct submitter sets never share a key; the usual keys are
unchanged (a gradebook of earlier runs keeps its learners).
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
  - :name: Al
    :sid: al
  - :name: Bo
    :sid: bo
  :created_at: 2026-11-20 10:00:00.000000000 +00:00
"""
MAL = """\
submission_2:
  :submitters:
  - :name: Mal
    :sid: al,sid=bo
  :created_at: 2026-11-21 10:00:00.000000000 +00:00
"""


def _export(path, meta: str, mal: bool) -> None:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("submission_metadata.yml", meta)
        zf.write(CORPUS / "perfect.ipynb", "submission_1/hw.ipynb")  # Al and Bo's group: honest
        if mal:
            zf.write(CORPUS / "constant_zero.ipynb", "submission_2/hw.ipynb")


def _grade(tmp_path, export) -> list[dict]:
    out = tmp_path / "out"
    args = ["--assignment", "from-scratch", "--out", str(out), "--jobs", "2", "--quiet"]
    args += ["--gradescope", str(export), str(tmp_path / "hw_cy.ipynb")]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert grade.main(args) == 0
    return list(csv.DictReader(io.StringIO((out / "grades.csv").read_text("utf-8"))))


def test_a_sid_with_a_comma_does_not_take_a_groups_key(tmp_path, bwrap):
    shutil.copy(CORPUS / "perfect.ipynb", tmp_path / "hw_cy.ipynb")  # Cy: an honest plain file
    _export(tmp_path / "export.zip", META, mal=False)
    rows = _grade(tmp_path, tmp_path / "export.zip")
    assert [r["score"] for r in rows if r["file"] == "hw_cy.ipynb"] == ["14"]
    # the next export (same name, re-downloaded): the group unchanged, Mal's late submission added
    _export(tmp_path / "export.zip", META + MAL, mal=True)
    rows = _grade(tmp_path, tmp_path / "export.zip")
    assert [r["score"] for r in rows if r["file"] == "hw_cy.ipynb"] == ["14"]  # Cy untouched
    group = [r for r in rows if "submission_1" in r["file"]]
    assert len(group) == 1, [(r["submission"], r["file"], r["score"]) for r in rows]
