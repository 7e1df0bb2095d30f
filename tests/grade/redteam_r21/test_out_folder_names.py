"""The twenty-first red team: the output folder's own file names, as a learner's file can take them.

1. ``test_names_like_the_locks_held`` (held): learners hand in ``gradebook.lock.ipynb``,
   ``gradebook.sqlite.ipynb`` and ``feedback.ipynb`` (a copy of the honest solution and two blank
   stubs) beside an honest classmate. Their reports are ``<stem>.json`` in ``OUT`` and ``<stem>.md``
   in ``OUT/feedback`` (``grader._Run.finished``, ``exports._write_class_files``): never
   ``OUT/gradebook.lock`` (``Gradebook.hold_for_run``) nor the folder ``OUT/feedback`` that
   ``exports._writing`` locks. After the run the lock is free: an ``export`` and a second run (a late
   file: the ``gradebook.lock.ipynb`` learner again) go through at once, and the lock file, the
   gradebook and the honest classmate's single result stay.
2. ``test_a_learner_named_similarity`` (BROKEN, low): report names reserve ``grades``/``canvas`` only
   by their suffix (``.csv``); ``similarity --out OUT`` writes ``OUT/similarity.json``, the very file
   of a learner who handed in ``similarity.ipynb``. With one ``--out`` for grading and for the copy
   report (the README uses ``grades/`` and ``report/``, but nothing refuses one folder), the copy
   report overwrites that learner's JSON report, every later export overwrites the copy report with
   the learner's, and once that learner's result is replaced by a file of another name,
   ``_remove_stale`` deletes ``OUT/similarity.json`` (the instructor's copy report). The honest
   classmate is untouched. Principle: a report name never equals a name the tools write in ``OUT``
   (reserve ``similarity``, ``gradebook``..., case-blind, as ``_report_names`` reserves current
   results), or ``similarity`` refuses an ``OUT`` that holds a gradebook.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

from helpers.grade import exports, isolation, similarity
from helpers.grade import grader as grade
from helpers.grade.gradebook import Gradebook

from ..redteam_r5.common import CORPUS, A, grade_class, notebook, own_draws, with_honest

SEED = 2**100 + 2121
STUB = Path(__file__).resolve().parents[3] / "exercises" / "from-scratch.ipynb"


def _late(out: Path, *paths: Path) -> list[dict]:
    with own_draws(A, SEED):
        return grade.grade_many(
            list(paths), A, out, jobs=1, seed=SEED, mode=isolation.BUBBLEWRAP, progress=io.StringIO()
        )


def test_names_like_the_locks_held(bwrap, tmp_path):
    folder, out = tmp_path / "subs", tmp_path / "out"
    folder.mkdir()
    with_honest(folder, "honest.ipynb", "gradebook.lock.ipynb")
    shutil.copyfile(STUB, folder / "gradebook.sqlite.ipynb")
    shutil.copyfile(STUB, folder / "feedback.ipynb")
    graded = grade_class(folder, out, seed=SEED)
    scores = {name: g["report"]["score"] for name, g in graded.items()}
    assert scores == {"honest.ipynb": 14.0, "gradebook.lock.ipynb": 14.0,
                      "gradebook.sqlite.ipynb": 0.0, "feedback.ipynb": 0.0}  # fmt: skip
    assert (out / "feedback").is_dir() and (out / "gradebook.lock").is_file()
    assert (out / "feedback" / "feedback.md").is_file() and (out / "gradebook.lock.json").is_file()
    with Gradebook.open(out) as book:  # the lock is free: an export goes through at once
        exports.write_class_files(out, book)
    # a second run (a late file of the same learner) is not refused: the first run let the lock go
    late = tmp_path / "late"
    late.mkdir()
    shutil.copyfile(CORPUS / "perfect.ipynb", late / "gradebook.lock.ipynb")  # same name, same learner
    done = _late(out, late / "gradebook.lock.ipynb")
    assert [r["score"] for r in done] == [14.0]
    assert (out / "gradebook.lock").is_file() and (out / "gradebook.sqlite").is_file()
    honest = json.loads((out / "honest.json").read_text(encoding="utf-8"))
    assert honest["final_score"] == 14.0
    with Gradebook.open(out) as book:
        assert sum(1 for r in book.history() if r.submission == "honest") == 1


def test_a_learner_named_similarity(bwrap, tmp_path):
    folder, out = tmp_path / "subs", tmp_path / "out"
    folder.mkdir()
    with_honest(folder, "honest.ipynb")
    notebook(folder / "similarity.ipynb", "def precision_at_k(ranking, relevant, k):\n    return 0.0\n")
    graded = grade_class(folder, out, seed=SEED)
    assert graded["honest.ipynb"]["report"]["score"] == 14.0
    mine = graded["similarity.ipynb"]["report"]["submission"]
    assert similarity.main(["--assignment", "from-scratch", "--out", str(out), str(folder)]) == 0
    with Gradebook.open(out) as book:  # e.g. a hand grade saved on the review page: an export
        exports.write_class_files(out, book)
    copy_report = json.loads((out / "similarity.json").read_text(encoding="utf-8"))
    report = json.loads((out / f"{mine}.json").read_text(encoding="utf-8"))
    honest = json.loads((out / "honest.json").read_text(encoding="utf-8"))
    assert honest["final_score"] == 14.0
    assert report.get("file") == "similarity.ipynb"  # the learner's report is the learner's
    assert "pairs" in copy_report  # and the copy report survives the export
