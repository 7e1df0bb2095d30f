"""The fifteenth red team: on a case-insensitive file system (macOS's and Windows' defaults), removing
a learner's stale report deletes a classmate's current feedback and JSON report.

``grader._report_names`` keeps report names unique among current results *case-blind*, because
"``HW.json`` and ``hw.json`` are one file on macOS and Windows". But ``exports._remove_stale``, run at
the end of every export, deletes ``OUT/<name>.json`` and ``OUT/feedback/<name>.md`` of every name in
the history that is no current result, comparing names *exactly*. A name that is no longer current
is no longer reserved, so:

1. Mallory (s999) hands in ``s999/HW.ipynb``: report name ``HW``;
2. she hands in again (``s999/mine.ipynb``): her current result is ``mine``; ``HW`` is stale;
3. Bob (s123) hands in ``s123/hw.ipynb``: ``hw`` is free (``HW`` is nobody's current name), so his
   files are ``hw.json`` and ``feedback/hw.md``; then ``_remove_stale`` unlinks ``HW.json`` and
   ``feedback/HW.md``, which on macOS/Windows *are* Bob's files. Bob's feedback file, the one handed
   back, is gone (and every later export deletes it again), while grades.csv still has his row.

Bob's file name is the course's (every learner hands in the notebook under the name it has), so
Mallory knows it in advance. This test runs on Linux (case-sensitive), so it records what
``_remove_stale`` unlinks and asserts that no unlinked name is, case-blind, a current result's name.
The honest classmate's score is asserted too. This is a finding by reading the code, shown with a
recorded unlink, not on a case-insensitive disk.

The principle that would close it: a file is removed only when no current result's name equals it
case-blind (the same rule ``_report_names`` uses), or stale files are found by listing the folder
and comparing each with the current names case-blind.

Closed: ``exports._remove_stale`` compares names case-blind, as report names are given.
"""

from __future__ import annotations

import io
import os
import pathlib
import shutil

from helpers.grade import collect, grader, isolation
from helpers.grade.assignments import ASSIGNMENTS

from ..redteam_r5.common import CORPUS

SEED = 2**100 + 1517
A = ASSIGNMENTS["from-scratch"]


def _grade(tmp, files: dict[str, str], out):
    subs = []
    for rel, source in files.items():
        path = tmp / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(CORPUS / source, path)
        subs.append(collect.Submission(path, os.path.basename(rel), rel.split("/")[0], None))
    return grader.grade_many(
        subs, A, out, jobs=2, seed=SEED, mode=isolation.BUBBLEWRAP, progress=io.StringIO()
    )


def test_removing_a_stale_report_spares_a_current_one_case_blind(bwrap, tmp_path, monkeypatch):
    out = tmp_path / "out"
    _grade(tmp_path / "b1", {"s999/HW.ipynb": "constant_zero.ipynb"}, out)
    _grade(tmp_path / "b2", {"s999/mine.ipynb": "constant_one.ipynb"}, out)  # another file
    unlinked: list[str] = []
    real = pathlib.Path.unlink

    def spy(self, missing_ok=False):
        unlinked.append(self.name)
        return real(self, missing_ok=missing_ok)

    monkeypatch.setattr(pathlib.Path, "unlink", spy)
    done = _grade(tmp_path / "b3", {"s123/hw.ipynb": "perfect.ipynb", "s200/ann.ipynb": "perfect.ipynb"}, out)
    monkeypatch.undo()
    assert sorted(r["score"] for r in done) == [14.0, 14.0]  # Bob and the honest classmate Ann
    bob = next(r["submission"] for r in done if r["learner"] == "s123")
    current = {f"{bob}.json".casefold(), f"{bob}.md".casefold()}
    clashes = [name for name in unlinked if name.casefold() in current]
    assert not clashes, f"removing stale files unlinks {clashes}: on macOS/Windows, Bob's {bob}.json and .md"
