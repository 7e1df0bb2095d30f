"""The nineteenth red team: two grading runs into one ``--out`` at the same time (a late file graded
while a ``--new-seed`` regrade of the class is still running) give two learners one report name, so
one learner's feedback file is the other's; and a replacement made by the other run is never said.

Nothing stops a second run from opening ``OUT/gradebook.sqlite`` while a first one is grading
(SQLite serialises single writes, nothing serialises runs). Each run decides at its start, from the
gradebook's current results, (1) each file's report name (``grader._plan_run`` -> ``_report_names``:
unique among *current* results and the run's own names) and (2) each learner's previous result, for the
``REPLACED`` line (``grade_many``: ``run.previous``). A run that records in between is invisible to
both decisions:

1. ``test_two_runs_do_not_share_a_report_name``: run A (``--new-seed``, the class from per-learner
   folders ``class/ann/hw.ipynb`` and ``class/cy/cy.ipynb``, no roster) starts; while it grades, run B
   grades a late file ``late/bob/hw.ipynb`` (Bob's folder). Both name their file ``hw`` (free when
   each started), both results are current (``folder:ann``, ``folder:bob``), and ``feedback/hw.md`` /
   ``hw.json`` hold only one of them: Ann (14/14) or Bob (a blank stub, 0) reads the other's feedback.
   The honest classmate Cy keeps 14/14 (asserted).
2. ``test_a_replacement_by_another_run_is_said``: run B grades Ann's late ``late/ann/hw_fixed.ipynb``
   (14/14) and, while its sandbox runs, run A regrades the class with ``--new-seed`` (Ann's stub
   ``class/ann/hw.ipynb``, 0/14). A is the later run, so the stub is Ann's current result; A's
   ``previous`` is the stub too (same sha256: no line); B then prints ``REPLACED: folder:ann's result
   of 'hw.ipynb' (0/14) by 'hw_fixed.ipynb' (14/14)``, which the gradebook does not hold. The
   instructor reads that the fix counts; Ann is exported with 0/14 and no line says so.

The overlap is forced in the test by running B inside A's first sandbox call (the same timing as two
terminals, or a scheduled late-file job beside a manual regrade): it is an instructor-workflow race,
not a learner's action.

Closed at stop 42: one run at a time per gradebook (``Gradebook.hold_for_run``, a ``flock`` on
``OUT/gradebook.lock``); the second run is refused with who holds it, and run again afterwards.

The principle that would close it: one run at a time per gradebook (an exclusive lock on the output
folder held for the whole run, a second run refused with who holds it), or every decision that depends
on the class's current results (report names, REPLACED) taken again at commit time, in the same
transaction as the record.
"""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest

from helpers.grade import collect, grader, isolation
from helpers.grade.assignments import ASSIGNMENTS
from helpers.grade.gradebook import Gradebook, GradebookError

from ..redteam_r5.common import CORPUS

SEED = 2**100 + 1919
A = ASSIGNMENTS["from-scratch"]
STUB = Path(__file__).resolve().parents[3] / "exercises" / "from-scratch.ipynb"


def _run(folders: list[Path], out: Path, progress: io.StringIO, **options) -> list[dict]:
    work = out.parent / f"work-{len(list(out.parent.glob('work-*')))}"
    work.mkdir()
    found = collect.collect([], None, work, learner_folders=folders)
    return grader.grade_many(
        found.submissions, A, out, jobs=1, mode=isolation.BUBBLEWRAP, progress=progress, **options
    )


def _overlapping(monkeypatch, out: Path, outer: tuple, inner: tuple) -> tuple[str, str]:
    """Run ``outer`` (folders, options); inside its first sandbox call, run ``inner`` to its end: what
    the outer run decided at its start is then older than the inner run's records."""
    real = grader._safe_grade
    said_outer, said_inner = io.StringIO(), io.StringIO()
    state = {"inner": False}

    def overlapping(path, plan, runtime, limits, name):
        if not state["inner"]:
            state["inner"] = True
            with pytest.raises(
                GradebookError, match="another grading run is writing .*run this command again"
            ):
                _run(inner[0], out, said_inner, **inner[1])  # refused: one run at a time (stop 42)
        return real(path, plan, runtime, limits, name)

    monkeypatch.setattr(grader, "_safe_grade", overlapping)
    _run(outer[0], out, said_outer, **outer[1])
    assert state["inner"]
    monkeypatch.setattr(grader, "_safe_grade", real)
    return said_outer.getvalue(), said_inner.getvalue()


def _current(out: Path) -> dict[str, tuple[str, float, str]]:
    with Gradebook.open(out) as book:
        return {r.who: (r.submission, r.score, r.display) for r in book.current()}


def test_two_runs_do_not_share_a_report_name(bwrap, tmp_path, monkeypatch):
    cls, late, out = tmp_path / "class", tmp_path / "late", tmp_path / "out"
    for folder in (cls / "ann", cls / "cy", late / "bob"):
        folder.mkdir(parents=True)
    shutil.copyfile(CORPUS / "perfect.ipynb", cls / "cy" / "cy.ipynb")
    _run([cls], out, io.StringIO(), seed=SEED)  # the class's first run: Cy only
    shutil.copyfile(CORPUS / "perfect.ipynb", cls / "ann" / "hw.ipynb")  # Ann's file, in the next run
    shutil.copyfile(STUB, late / "bob" / "hw.ipynb")

    # run A: the class again with fresh cases; while it grades, run B: Bob's late file (refused)
    _overlapping(monkeypatch, out, ([cls], {"new_seed": True}), ([late], {}))
    assert "folder:bob" not in _current(out)
    _run([late], out, io.StringIO())  # B again, once A has ended

    current = _current(out)
    assert current["folder:cy"][1] == 14  # the honest classmate
    assert current["folder:ann"][1] == 14 and current["folder:bob"][1] == 0
    names = [current["folder:ann"][0], current["folder:bob"][0]]
    feedback = (out / "feedback" / f"{names[0]}.md").read_text(encoding="utf-8")
    assert names[0].casefold() != names[1].casefold(), (
        f"Ann and Bob share the report name {names[0]!r}; feedback/{names[0]}.md scores "
        f"{'14' if '14/14' in feedback else 'not 14'}/14"
    )


def test_a_replacement_by_another_run_is_said(bwrap, tmp_path, monkeypatch):
    cls, late, out = tmp_path / "class", tmp_path / "late", tmp_path / "out"
    for folder in (cls / "ann", cls / "cy", late / "ann"):
        folder.mkdir(parents=True)
    shutil.copyfile(STUB, cls / "ann" / "hw.ipynb")
    shutil.copyfile(CORPUS / "perfect.ipynb", cls / "cy" / "cy.ipynb")
    shutil.copyfile(CORPUS / "perfect.ipynb", late / "ann" / "hw_fixed.ipynb")
    _run([cls], out, io.StringIO(), seed=SEED)

    # run B: Ann's late fix; while its sandbox runs, run A: the class again with --new-seed
    said_b, said_a = _overlapping(
        monkeypatch,
        out,
        ([late], {}),
        ([cls], {"new_seed": True}),  # late/ holds ann/hw_fixed.ipynb
    )

    current = _current(out)
    assert current["folder:cy"][1] == 14  # the honest classmate
    assert current["folder:ann"][1] == 14 and "REPLACED" in said_b and not said_a  # A was refused
    fix_said = "REPLACED" in said_b and "hw_fixed" in said_b  # "Ann's stub replaced by hw_fixed (14/14)"
    now = current["folder:ann"][2]
    # what the instructor read must be what the gradebook holds: the fix current, or a line saying
    # the stub came back over it
    assert not fix_said or now.endswith("hw_fixed.ipynb") or "REPLACED" in said_a, (
        f"run B said Ann's result is now hw_fixed.ipynb (14/14); her current result is {now!r} "
        f"({current['folder:ann'][1]:g}/14) and no line says so"
    )
