"""The ninth red team: the runner's job says how long the longest hidden case is, before any case runs.

``sandbox._Runs.job`` sets ``command_bytes`` (the cap of one command line the runner reads) to
``longest + 256``, where ``longest`` is the length of the JSON text of the longest case of every
function question still to run, *hidden ones included*. The job reaches the runner (``child.runner``
holds it in its frame, and the bootstrap's ``data`` holds its bytes) before any cell runs, so the
notebook's code reads a function of the hidden cases while the run is still "clean": a worked example
returns it and the feedback shows it (``got``), in the learner's Markdown and in Gradescope's
results.json.

What it tells: over 300 seeds, the longest from-scratch case has 15 lengths (3.3 bits of entropy),
leave-one-out's 190 (7.4 bits); one number per seed, beyond the README's decision ("at most one bit
per hidden check ... and whether the process ended during a question's hidden checks"). The honest
classmate graded beside the probe keeps 14/14.

The principle that would close it: nothing the runner can read before a case runs is computed from a
hidden case (its size included): the command cap is a fixed bound (or one computed from the public
cases and the course's declared bounds), never from the drawn cases.
"""

from __future__ import annotations

import json
import re
import shutil

from ..redteam_r5.common import CORPUS, A, grade_class, notebook, own_plan, section

PROBE = """import sys
def _cap():
    frame = sys._getframe()
    while frame is not None:
        job = frame.f_locals.get("job")
        if type(job) is dict and "command_bytes" in job:
            return job["command_bytes"]
        frame = frame.f_back
    return -1
def precision_at_k(ranking, relevant, k):
    return float(_cap())
"""


def _longest(seed: int) -> int:
    plan = own_plan(seed, "probe.ipynb")  # the probe's own cases (grade_class checks it meets them)
    return max(len(json.dumps(args)) for q in A.questions for args in plan.encoded[q.name])


def test_a_worked_example_cannot_read_the_size_of_the_hidden_cases(bwrap, tmp_path):
    seeds = (1, 2)
    assert _longest(1) != _longest(2)  # the two runs' hidden cases differ in length
    shown = {}
    for seed in seeds:
        folder = tmp_path / f"class{seed}"
        folder.mkdir()
        shutil.copyfile(CORPUS / "perfect.ipynb", folder / "honest.ipynb")
        notebook(folder / "probe.ipynb", PROBE)
        graded = grade_class(folder, tmp_path / f"out{seed}", seed)
        assert graded["honest.ipynb"]["report"]["score"] == 14.0, graded["honest.ipynb"]["report"]
        got = re.findall(r"got ` ([-\d.]+) `", section(graded["probe.ipynb"]["feedback"], "precision_at_k"))
        shown[seed] = (got, graded["probe.ipynb"]["results"])
    read = {seed: shown[seed][0] for seed in seeds}
    assert read[1] != [f"{_longest(1) + 256:.1f}"] * len(read[1]) or not read[1], (
        f"the worked examples show the longest hidden case's length + 256: {read}"
    )
    assert shown[1] == shown[2], f"one notebook, two seeds: its worked examples show {read}"
