"""The ninth red team: a worked example left unanswered in the first run is filled in from a later one.

Red team 5 read a hidden input back through the wall clock of a restarted run; the fix
(``decode.with_public``) shows a question's status and public cases from the first, clean run only.
But ``with_public`` fills every public case the clean run left ``None`` from the later run
(``mine if mine is not None else theirs``), and the notebook can make the clean run leave one ``None``:

1. the supervisor takes as a case's reply any line on the reply pipe that carries the command's nonce
   (``child._Supervisor.step``) and reads its ``case`` with ``.get("case")``; the runner holds the
   nonce and the pipe in its own frame (``child.runner``: ``nonce``, ``replies``), which the learner's
   function reaches with ``sys._getframe``. On recall's first worked example it sends ``{"n": nonce}``
   first: the public event says ``None`` for that case (``decode._valid_public`` accepts it);
2. precision's first randomised (hidden) case sleeps until a wall-clock phase that encodes its ``k``
   (``k % 16`` half-seconds of an 8 s cycle), then ends the process (red team 5's scheme);
3. the new sandbox runs the notebook again for the questions left; its cell reads the clock, and recall's
   worked example returns it (as a string, marked ``restarted``). The grader fills the clean run's
   ``None`` with it, and the feedback and results.json show it as the worked example's ``got``: about
   4 bits of a hidden input per restart, from a run the README says is never shown ("what its public
   cases return is not shown (the first run's is: the clock alone could carry the hidden input into
   them)").

The honest classmate graded beside it keeps 14/14.

The principle that would close it: a public case's value is taken from the clean run or not at all (a
public case that run did not report fails, or is shown as not reported); only hidden indices come
from a later run. And the supervisor takes a reply only with the fields its command asks for.
"""

from __future__ import annotations

import re

from ..redteam_r5.common import call_numbers, grade_class, hidden_k, notebook, section, with_honest

SEED = 5
CODE = """
import sys, time, os
C, SLOT = 8.0, 0.5
PHASE = time.time() % C
CALLS = [0]
RECALLS = [0]
def _forge():
    frame = sys._getframe(1)
    while frame is not None:
        seen = frame.f_locals
        if "nonce" in seen and "replies" in seen:
            seen["replies"].send({{"n": seen["nonce"].decode()}})
            return
        frame = frame.f_back
def precision_at_k(ranking, relevant, k):
    CALLS[0] += 1
    if CALLS[0] == {call}:  # the first randomised (hidden) case: crash at a phase that encodes k
        now = time.time()
        target = now - (now % C) + (k % 16) * SLOT + 0.05
        if target < now + 0.01:
            target += C
        time.sleep(target - now)
        os._exit(3)
    return 0.0
def recall_at_k(ranking, relevant, k):
    RECALLS[0] += 1
    if CALLS[0] == 0:  # precision is not asked again: this is the run after the crash
        return f"restarted {{PHASE / C:.4f}}"
    if RECALLS[0] == 1:  # the clean run: leave the first worked example unanswered
        _forge()
    return 0.0
"""


def test_a_worked_example_shown_comes_from_the_clean_run_only(bwrap, tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    notebook(
        folder / "attacker.ipynb", CODE.format(call=call_numbers("precision_at_k", SEED, "attacker.ipynb")[0])
    )
    with_honest(folder, "honest.ipynb")
    graded = grade_class(folder, tmp_path / "out", SEED)
    assert graded["honest.ipynb"]["report"]["score"] == 14.0, graded["honest.ipynb"]["report"]
    shown = graded["attacker.ipynb"]
    phase = re.search(r"restarted (0\.\d+)", section(shown["feedback"], "recall_at_k"))
    read = None if phase is None else int(((float(phase.group(1)) * 8.0 - 0.15) % 8.0) // 0.5)
    assert phase is None, (
        f"a worked example's value from the run after a hidden case is shown: phase {phase.group(0)!r}, "
        f"read k % 16 = {read}, hidden k % 16 = {hidden_k('precision_at_k', SEED, 'attacker.ipynb') % 16}"
    )
    assert "restarted" not in shown["results"]
