"""The fifteenth red team: without a roster, the name of the zip the instructor keeps a download in
(and Canvas's submission id) is part of every learner's key, so a re-downloaded zip, or a learner's
resubmission on Canvas, is another learner with other hidden cases.

Red team 14's fix made a learner without a roster id "the name the file was handed in under"
(``gradebook.file_names`` of ``Submission.display``), "never the folder the instructor keeps it in, so a
late file or a re-downloaded copy graded from another folder is the same learner" (README, Hidden
cases). But ``collect._zip_source`` prefixes every member's ``display`` with the zip's own file name
(``submissions.zip:bob_12_34_hw.ipynb``), a name the learner never handed in under and the
instructor's browser chooses (a second download of Canvas's "Download Submissions" is
``submissions (1).zip``). So:

1. ``test_a_redownloaded_zip_keeps_every_learner``: the class graded from ``submissions.zip``, then
   the same download graded again from ``submissions (1).zip`` (or its unzipped folder): every learner
   gets a second key (``file:submissions (1).zip:...``), meets new hidden cases (``learner_seed``),
   and grades.csv holds two rows per learner; no REPLACED line (``file:`` keys never print one);
2. ``test_a_canvas_resubmission_is_the_same_learner``: Canvas names a file
   ``<name>_<user id>_<submission id>_<original>``; the submission id changes when the learner hands
   in again, so the resubmission (graded into the same folder, as the README's late workflow says) is
   a new learner with a fresh draw of hidden cases: a learner re-rolls their cases by resubmitting
   (the README's decision says a learner's late files and regrades meet the same cases), and their
   old row stays beside the new one.

3. ``test_late_files_from_per_learner_folders_stay_their_learners``: a folder of per-learner folders
   (``subs/ann/hw.ipynb``, ``subs/bob/hw.ipynb``, the layout of nbgrader, GitHub Classroom and many
   LMS exports) graded without a roster keys each learner by ``ann/hw.ipynb``; the README's late-file
   workflow (``... --out grades/ late/bo_fixed.ipynb``) applied to ``late/ann/hw.ipynb`` keys it
   ``file:hw``: Ann's late file is another learner (new cases, a second row), and Bob's late file,
   graded the next day the same way, is *the same* ``file:hw``: it replaces Ann's late result,
   silently (grades.csv: Ann's 4/14 row, Bob's 14/14 row, and one ``hw.ipynb`` row of 0/14 that is
   Bob's late file; Ann's fixed 14/14 is gone from every export). Two learners merged, each split.

The honest classmate graded beside keeps 14/14 (asserted). Held by a roster: with one, Canvas's user
id names the learner.

The principle that would close it: a learner key without a roster is what the *platform* says
identifies the learner (Canvas's user id, Gradescope's submitters, a per-learner folder's name),
else the file's own name; never a container's name (zip, folder) nor a per-submission id.

Closed: without a roster id a learner is who the platform says (``collect.Submission.key``: Canvas's
user id in a Canvas download given with ``--canvas`` (red team 39), a per-learner folder's name,
Gradescope's submitters), else the file's
exact name (``grader.no_roster_key``). A per-learner folder's late file is that learner's when the
folder holding the per-learner folders is given (``late/``); a notebook given by itself is keyed by
its own name since red team 32 (a learner's folder may be named as the instructor's ``late/``).
"""

from __future__ import annotations

import csv
import io
import shutil
import zipfile
from pathlib import Path

import pytest

from helpers.grade import collect, grader, isolation
from helpers.grade.assignments import ASSIGNMENTS

from ..redteam_r5.common import CORPUS

SEED = 2**100 + 1515
A = ASSIGNMENTS["from-scratch"]


def _grade(sources: list[Path], out: Path, work: Path, canvas=(), folders=()) -> list[dict]:
    work.mkdir()
    found = collect.collect(sources, None, work, canvas=canvas, learner_folders=folders)
    return grader.grade_many(
        found.submissions, A, out, jobs=2, seed=SEED, mode=isolation.BUBBLEWRAP, progress=io.StringIO()
    )


def _rows(out: Path) -> list[dict]:
    with open(out / "grades.csv", encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def _zip(path: Path, members: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, source in members.items():
            zf.write(CORPUS / source, name)
    return path


@pytest.fixture(scope="module")
def redownloaded(bwrap, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("r15-zip")
    members = {"ann_56_78_hw.ipynb": "perfect.ipynb", "bob_12_34_hw.ipynb": "partially_correct.ipynb"}
    first = _zip(tmp / "submissions.zip", members)
    again = shutil.copyfile(first, tmp / "submissions (1).zip")  # the browser's name for a second download
    out = tmp / "out"
    keys = [
        [r["learner"] for r in _grade([], out, tmp / f"w{i}", canvas=[zip_])]
        for i, zip_ in enumerate((first, again))
    ]
    return keys, _rows(out)


def test_the_honest_classmate_keeps_full_marks(redownloaded):
    anns = [r for r in redownloaded[1] if "ann_" in r["file"]]
    assert anns and all(float(r["score"]) == 14.0 for r in anns)


def test_a_redownloaded_zip_keeps_every_learner(redownloaded):
    keys, rows = redownloaded
    assert sorted(keys[0]) == sorted(keys[1]), keys
    assert len(rows) == 2, [(r["file"], r["score"]) for r in rows]


def test_a_canvas_resubmission_is_the_same_learner(bwrap, tmp_path):
    first, late, out = tmp_path / "canvas", tmp_path / "canvas-late", tmp_path / "out"
    first.mkdir()
    late.mkdir()
    shutil.copyfile(CORPUS / "perfect.ipynb", first / "ann_56_78_hw.ipynb")  # the honest classmate
    shutil.copyfile(CORPUS / "partially_correct.ipynb", first / "bob_12_34_hw.ipynb")
    shutil.copyfile(CORPUS / "perfect.ipynb", late / "bob_12_99_hw-1.ipynb")  # Bob hands in again
    keys = [r["learner"] for r in _grade([], out, tmp_path / "w0", canvas=[first])]
    keys += [r["learner"] for r in _grade([], out, tmp_path / "w1", canvas=[late])]
    rows = _rows(out)
    assert [float(r["score"]) for r in rows if "ann_" in r["file"]] == [14.0]
    bobs = [r for r in rows if "bob_" in r["file"]]
    assert len(bobs) == 1, ([(r["file"], r["score"]) for r in bobs], keys)


def test_late_files_from_per_learner_folders_stay_their_learners(bwrap, tmp_path):
    out = tmp_path / "out"
    for who, source in (
        ("ann", "partially_correct.ipynb"),
        ("bob", "perfect.ipynb"),
        ("cy", "perfect.ipynb"),
    ):
        (tmp_path / "subs" / who).mkdir(parents=True)
        shutil.copyfile(CORPUS / source, tmp_path / "subs" / who / "hw.ipynb")
    keys = [r["learner"] for r in _grade([], out, tmp_path / "w0", folders=[tmp_path / "subs"])]
    for i, (who, source) in enumerate((("ann", "perfect.ipynb"), ("bob", "constant_zero.ipynb")), start=1):
        (tmp_path / "late" / who).mkdir(parents=True)  # one late file a day, into the late folder
        shutil.copyfile(CORPUS / source, tmp_path / "late" / who / "hw.ipynb")
        keys += [r["learner"] for r in _grade([], out, tmp_path / f"w{i}", folders=[tmp_path / "late"])]
    rows = _rows(out)
    assert [float(r["score"]) for r in rows if r["file"] == "cy/hw.ipynb"] == [14.0]  # the honest classmate
    assert len(set(keys)) == 3, keys  # Ann, Bob and Cy (the honest classmate), each one learner
    assert len(rows) == 3, [(r["submission"], r["score"]) for r in rows]
