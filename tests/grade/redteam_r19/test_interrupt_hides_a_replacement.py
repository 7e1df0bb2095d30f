"""The nineteenth red team: Ctrl-C (or SIGTERM) that lands while a result is being committed makes a
replacement of a learner's result silent for good.

``grader._Run.finished`` commits the result with Ctrl-C/SIGTERM held (``_signals_held``, red team 17's
graded-twice fix) and delivers the held signal as soon as the commit ends, *before* the ``REPLACED``
line for that learner is printed (``_replacement``, after ``_settle_contest`` and the JSON report).
So the run stops with the replacement recorded and unsaid; ``_summary`` is not reached on an interrupt;
and running the same command again, as the README says to, finds the file already graded and
current: ``already graded (same file, same seed): kept``, no ``REPLACED`` line either. The README's
promise "A run that replaces a learner's result by another file's says so" is broken for that learner
(without a roster a classmate can hand in a file under Bob's name: the line is how the instructor
learns it, red team 15).

The test sends SIGINT to itself while ``Gradebook.record`` runs (the held window; an instructor's
Ctrl-C at that moment, a few milliseconds per learner, or a ``timeout``/CI SIGTERM). The honest
classmate Ann keeps 14/14 (asserted).

Closed at stop 42: ``_Run.finished`` holds the signals over the whole step, the commit, the JSON
report and the lines it says.

The principle that would close it: say (or store, to be said by the next run) a replacement in the
same step as the commit it describes, e.g. print the line inside the held block before the commit,
or record "replaced, not yet said" in the gradebook and have every run, and ``history``, say it.
"""

from __future__ import annotations

import io
import os
import shutil
import signal

import pytest

from helpers.grade import collect, grader, isolation
from helpers.grade.assignments import ASSIGNMENTS
from helpers.grade.gradebook import Gradebook

from ..redteam_r5.common import CORPUS
from .test_overlapping_runs import STUB

SEED = 2**100 + 1917
A = ASSIGNMENTS["from-scratch"]


def _run(folder, out, progress):
    work = out.parent / f"work-{len(list(out.parent.glob('work-*')))}"
    work.mkdir()
    found = collect.collect([folder], None, work)
    return grader.grade_many(
        found.submissions, A, out, jobs=1, seed=SEED, mode=isolation.BUBBLEWRAP, progress=progress
    )


def test_a_replacement_interrupted_at_its_commit_is_still_said(bwrap, tmp_path, monkeypatch):
    cls, late, out = tmp_path / "class", tmp_path / "late", tmp_path / "out"
    cls.mkdir(), late.mkdir()
    shutil.copyfile(CORPUS / "perfect.ipynb", cls / "ann.ipynb")  # the honest classmate
    shutil.copyfile(CORPUS / "perfect.ipynb", cls / "bob.ipynb")
    shutil.copyfile(STUB, late / "bob.ipynb")  # another file under Bob's name
    _run(cls, out, io.StringIO())

    real = Gradebook.record

    def interrupted(self, *args, **kwargs):
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C while the result is committed (held)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Gradebook, "record", interrupted)
    first = io.StringIO()
    with pytest.raises(KeyboardInterrupt):
        _run(late, out, first)
    monkeypatch.setattr(Gradebook, "record", real)
    again = io.StringIO()
    _run(late, out, again)  # "run the same command again to grade the rest"

    with Gradebook.open(out) as book:
        current = {r.who: r for r in book.current()}
    assert current["file:ann"].score == 14  # the honest classmate
    assert current["file:bob"].score == 0  # replaced by the late file
    said = first.getvalue() + again.getvalue()
    assert "kept" in again.getvalue()
    assert "REPLACED" in said, f"Bob's 14/14 became 0/14 and neither run said so:\n{said}"
