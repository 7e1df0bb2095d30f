"""Red team 51: two files under one platform key fall back to ``file:<report name>``, which is a plain
file's own key when the report name needed no hash.

Without a roster, two files of one run under one learner key (``grader._learner_keys``) are "each a
learner of its own, ``file:`` and its report name (which holds a hash of its path)". The hash is only
there when the report names collide (``files.report_names``): two notebooks in ONE learner's folder
(``--learner-folders``: both ``folder:mallory``) whose names differ keep their plain stems, so Mal's
``mallory/bo.ipynb`` is keyed ``file:bo``, exactly the key of Bo's emailed plain ``bo.ipynb``
(``grader.no_roster_key``). In the next run that grades the hub's folders into the same ``--out``,
Mal's notebook REPLACES Bo's 14/14 (and meets Bo's hidden cases).

Severity: medium (no roster; a learner's own folder holding a second notebook named after a classmate
lowers that classmate's grade; the REPLACED line warns, the grade is replaced in grades.csv).
Fix principle: the fallback key of a shared platform key must live in its own namespace (e.g. the
platform key plus a hash of where the file was given), never ``file:`` and a name a learner types.

Closed at stop 45: a file that shares its learner key with another of the run is keyed ``file:``,
its report name and a hash of where it was given (``grader._own_key``, ``files.origin_digest``),
which nobody can type; two ``hw.ipynb`` keep the keys they had (their report names already end in
that hash).
"""

from __future__ import annotations

import contextlib
import csv
import io
import shutil

from helpers.grade import grader as grade
from tests.grade.redteam_r5.common import CORPUS


def _grade(tmp_path, *sources) -> dict[str, dict]:
    out = tmp_path / "out"
    args = ["--assignment", "from-scratch", "--out", str(out), "--jobs", "2", "--quiet", *map(str, sources)]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert grade.main(args) == 0
    rows = csv.DictReader(io.StringIO((out / "grades.csv").read_text("utf-8")))
    return {r["file"]: r for r in rows}


def test_second_notebook_in_own_folder_does_not_take_a_plain_classmates_key(tmp_path, bwrap):
    emailed = tmp_path / "emailed"
    emailed.mkdir()
    shutil.copy(CORPUS / "perfect.ipynb", emailed / "bo.ipynb")  # Bo: honest, emailed, plain
    shutil.copy(CORPUS / "perfect.ipynb", emailed / "cy.ipynb")  # Cy: honest, emailed, plain
    rows = _grade(tmp_path, emailed)
    assert rows["bo.ipynb"]["score"] == "14" and rows["cy.ipynb"]["score"] == "14", rows

    hub = tmp_path / "hub"  # the hub's per-learner folders, graded into the same --out
    (hub / "mallory").mkdir(parents=True)
    shutil.copy(CORPUS / "constant_zero.ipynb", hub / "mallory" / "bo.ipynb")
    shutil.copy(CORPUS / "constant_zero.ipynb", hub / "mallory" / "hw.ipynb")
    rows = _grade(tmp_path, "--learner-folders", hub, emailed / "cy.ipynb")
    assert rows["cy.ipynb"]["score"] == "14", rows  # the honest classmate in this run: untouched
    assert rows.get("bo.ipynb", {}).get("score") == "14", {k: v["score"] for k, v in rows.items()}
