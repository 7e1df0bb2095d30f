"""The tenth red team: a classmate's file named after the report name a later learner will get takes
that learner's feedback file and JSON report.

Every current result is written as ``OUT/<submission>.json`` and ``OUT/feedback/<submission>.md``
(``exports.write_class_files``), ``<submission>`` being the report name. A run's names are unique
among themselves (``files.report_names``), and ``grader._report_name`` renames a name another
learner's *current* result already uses to ``<name>-<first 8 hex of sha256(learner id)>``. That new
name is checked against nothing: neither the current results nor this run's names. Both parts are
known to a classmate (the course's notebook name, a roster id), so:

1. batch 1 (per-learner folders, the early submitters): Carol's ``s200/hw.ipynb`` (report ``hw``),
   and Mallory's ``s999/hw-<sha256("s123")[:8]>.ipynb``, her own file, named in advance;
2. batch 2 (Bob hands in later, into the same gradebook): Bob's ``s123/hw.ipynb``. ``hw`` is
   Carol's, so Bob's report is renamed to ``hw-<8 hex>``: Mallory's. Both are current under one
   name; the files are written in learner order, so Mallory's (s999) overwrites Bob's (s123).

Bob's feedback file (the one handed back) and his JSON report show Mallory's notebook and her 0/14;
canvas.csv still has Bob's 14, and the run prints no line about it. The principle that would close
it: a report name is unique among every current result and every name of the run (a renamed name is
checked again, or derived from something no learner chooses, e.g. the result's id).
"""

from __future__ import annotations

import csv
import hashlib
import json
import shutil

from ..redteam_r5.common import CORPUS
from ..redteam_r5.test_roster_claims import ROSTER, _canvas, _grade


def test_a_renamed_report_never_shares_a_classmates_name(bwrap, tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER)
    first, second = tmp_path / "batch1", tmp_path / "batch2"
    for folder in (first / "s200", first / "s999", second / "s123"):
        folder.mkdir(parents=True)
    bobs = "hw-" + hashlib.sha256(b"s123").hexdigest()[:8]
    shutil.copyfile(CORPUS / "perfect.ipynb", first / "s200" / "hw.ipynb")  # Carol
    shutil.copyfile(CORPUS / "constant_zero.ipynb", first / "s999" / f"{bobs}.ipynb")  # Mallory's own
    shutil.copyfile(CORPUS / "perfect.ipynb", second / "s123" / "hw.ipynb")  # Bob, later
    out = tmp_path / "out"
    _grade(first, out, roster, "--learner-folders")
    said = _grade(second, out, roster, "--learner-folders")
    canvas = _canvas(out)
    assert canvas == {"s123": "14", "s200": "14", "s999": "0"}, canvas  # the gradebook is right
    rows = list(csv.DictReader((out / "grades.csv").read_text(encoding="utf-8").splitlines()))
    names = {row["learner_id"]: row["submission"] for row in rows}
    assert len(set(names.values())) == len(names), (names, said)  # one file per learner's result
    report = json.loads((out / f"{names['s123']}.json").read_text(encoding="utf-8"))
    assert report["score"] == 14 and "s123" in (out / "feedback" / f"{names['s123']}.md").read_text()
