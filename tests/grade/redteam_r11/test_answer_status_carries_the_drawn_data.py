"""The eleventh red team: an answer variable's shown status still carries the data drawn at grading.

Red team 9's fix (``sandbox._Runs.drawn``): for an assignment with answer variables every run holds
the drawn data from its first cell, so its cell errors, hung cells, warnings and how it ended go to the
instructor's ``withheld``; the learner reads one fixed note. But whether a cell raised is still
shown, one question at a time: a statement that raises (or is not run) leaves ``answer_qN`` unbound,
and the feedback says ``missing: answer variable answer_qN is not defined in the notebook`` (and
"failed: answer (public)"); an ``answer_qN = ...`` left as the placeholder says ``not attempted``; a
wrong number says ``wrong: no hidden check passed``. Each answer variable is thus a three-way switch
the notebook sets from the data it holds (``HELPERS_GRADING_SEED``, or the drawn data themselves),
none of the three being a right answer. Bound-or-not alone reads back exactly: "missing" is bit 0,
"wrong" bit 1 of the first draw, 5 bits a submission, in the Markdown feedback and in Gradescope's
results.json, on top of what right/wrong must say; the placeholder and the second draw (a variable
bound on one draw and not the other shows ``wrong`` with ``RuntimeError: no answer on another draw``
instead of ``not attempted``) add more, entangled. The data seed is one per gradebook (the whole
class, its late files, regrades, every resubmission of a Gradescope package), so 26 resubmissions
spell all 128 bits of the first draw.

Asserted: the statuses a notebook that answers nothing right shows its learner do not spell bits of
the run's data seed (they spell bits 0-4 exactly), while the honest classmate graded beside it scores
10/10. (Graded with two gradebook seeds whose data seeds differ in those bits, one notebook's
feedback differs: what a learner reads depends on the data drawn.) The principle that would close it: for an
assignment whose data are drawn at grading, what a learner reads of an answer variable is a
function of right-or-wrong only (an unbound, placeholder or unreadable answer is "wrong", the
instructor's report keeps the detail), as for every other part of a run that held the drawn data.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from helpers.grade import grader as grade
from helpers.grade.assignments import ASSIGNMENTS

from ..redteam_r5.common import grade_class, learner, notebook
from ..redteam_r8.test_runtime_syntax_error_channel import _honest_source

A = ASSIGNMENTS["choosing-metrics"]
SEED = 13
#: answer_qN is bound to a wrong number, or left unbound (as when its statement raised), by bit N-1 of
#: the data seed
PROBE = ['import os\nS = int(os.environ["HELPERS_GRADING_SEED"], 16)\n'] + [
    f"if (S >> {i}) & 1:\n    answer_q{i + 1} = -1.0" for i in range(5)
]
_STATUS = re.compile(r"\(` answer_q(\d) `\): 0 / 2 — ([a-z ]+)$", re.MULTILINE)
_READ = {"missing": 0, "wrong": 1}


def _graded(folder: Path, out: Path, seed: int) -> dict[str, dict]:
    graded = grade_class(folder, out, seed, A)
    return {f: {**g, "score": g["report"]["score"]} for f, g in graded.items()}


def test_what_an_answer_variable_shows_does_not_carry_the_drawn_data(bwrap, tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    notebook(folder / "honest.ipynb", _honest_source())
    notebook(folder / "probe.ipynb", *PROBE)
    run = _graded(folder, tmp_path / "out", SEED)
    assert run["honest.ipynb"]["score"] == 10.0, run["honest.ipynb"]
    probe = run["probe.ipynb"]
    assert probe["score"] == 0.0
    data = int(grade.data_seed(grade.learner_seed(SEED, learner("probe.ipynb"))), 16)  # the probe's own
    bits = {i + 1: (data >> i) & 1 for i in range(5)}
    assert set(bits.values()) == {0, 1}  # the premise: both states occur
    read = {
        int(q): _READ.get(s, -1) for q, s in _STATUS.findall(probe["feedback"])
    }  # what Mallory reads back
    tests = json.loads(probe["results"])["tests"]
    in_results = {i + 1: _READ.get(t["output"].split(":")[0], -1) for i, t in enumerate(tests)}
    assert read != bits, f"the answer statuses spell bits 0-4 of the run's data seed: {bits}"
    assert in_results != bits, "and so does Gradescope's results.json"
