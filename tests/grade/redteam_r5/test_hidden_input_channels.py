"""The fifth red team: hidden inputs read back from the learner's own feedback through channels the
earlier red teams left open, each graded beside honest classmates who must keep full marks.

The README promises that no report or feedback file shows a hidden case's input, and
``helpers/grade/child.py`` that what a public case returned cannot depend on a hidden input. Four
channels break both, with no access to anything the sandbox hides:

1. **the exit status**: a hidden case ends the process with ``os._exit(k)``; the question's feedback
   (and results.json) says "the process exited with code k" (``sandbox._describe_exit``): 8 bits per
   question, 7 questions per submission, exact; or with ``os.kill(os.getpid(), signal)``: "killed by
   SIGUSR1", ~5 bits;
2. **the wall clock across restarts**: a hidden case sleeps until a wall-clock phase that encodes its
   input, then crashes; the grader starts a new sandbox for the remaining questions
   (``sandbox._Runs._next``), whose cells read the clock, and a *worked example* of a later question
   returns it: worked examples' values are shown, whichever run they come from. ~4 bits per restart
   (``scripts/wall_clock_attack.py`` reads k % 16 back; 9 of 9 seeds right under load 6 on 2 cores);
3. **the kind of failure**: on a later question's hidden checks the learner raises, returns a
   non-number or returns a wrong number, chosen from an earlier hidden input; the feedback groups
   hidden checks by that kind ("failed: raised an exception: `single relevant item` (hidden, ...)"):
   log2(3) bits per hidden check, ~60 bits per submission, no crash needed;
4. **the data seed**: ``HELPERS_GRADING_SEED`` is ``sha256(text + seed)`` of a 32-bit seed
   (``grader.data_seed``; ``secrets.randbits(32)`` in ``gradebook.Gradebook.seed`` and
   ``gradescope_package``), in the sandbox's environment before any case runs; a worked example
   returns 32 bits of it, and enumerating 2**32 seeds offline gives the seed: with the course's
   public case makers every hidden case and answer of that Gradescope package follows, and a table
   of answers scores full marks (shown end to end in ``/tmp/r5-seed/attack.py`` of the report).

Each test asserts the property the grader must have, so each fails until its channel is closed
(``xfail(strict=True)``: remove the mark with the fix). The class is graded once, in the real sandbox
(skipped loudly without bubblewrap, failed on CI: ``tests/grade/conftest.py``).
"""

from __future__ import annotations

import json
import re
import time
import zipfile

import pytest

from helpers.grade import gradebook, gradescope_package
from helpers.grade import grader as grade
from helpers.grade.assignments import ASSIGNMENTS

from .common import call_numbers, grade_class, hidden_k, learner, notebook, section, with_honest

SEED = 5_000_123  # a short --seed, so the attacks can be built (every seed the grader draws has 128 bits)
TARGETS = ("precision_at_k", "recall_at_k", "hit_at_k", "reciprocal_rank_at_k")


def _exit_with(code: str, file_name: str) -> str:
    """Every question ends the process on its first randomised case with exit status ``code``."""
    lines = ["import os", "N = {}"]
    for target in TARGETS:
        first, _ = call_numbers(target, SEED, file_name)
        lines += [
            f"def {target}(ranking, relevant, k):",
            f"    N[{target!r}] = N.get({target!r}, 0) + 1",
            f"    if N[{target!r}] == {first}:",
            f"        os._exit({code})",
            "    return 0.0",
        ]
    return "\n".join(lines) + "\n"


# precision's first randomised case waits 8 s, then crashes; the grader starts a new sandbox for the
# questions after it, whose cells run again; recall's worked examples return when its cell ran (seconds
# after T0, the moment grading began). scripts/wall_clock_attack.py turns this into a hidden input: the
# crash waits until a wall-clock phase that encodes k, and the restarted cell reads the phase.
CLOCK = """
import os, time
T = time.time() - {t0!r}
N = [0]
def precision_at_k(ranking, relevant, k):
    N[0] += 1
    if N[0] == {p}:
        time.sleep(8)
        os._exit(3)
    return 0.0
def recall_at_k(ranking, relevant, k):
    return T / 1000
"""


def _failing(kind: str, file_name: str) -> str:
    """recall_at_k fails every hidden case, in one way: ``kind`` (public cases: 0.0 in all of them)."""
    hidden = call_numbers("recall_at_k", SEED, file_name)[1]
    fail = {"raise": "raise ValueError('x')", "str": "return 'x'", "wrong": "return 0.3 + k / 1000"}[kind]
    return (
        f"N = [0]\nHIDDEN = {sorted(hidden)!r}\n"
        "def recall_at_k(ranking, relevant, k):\n"
        "    N[0] += 1\n"
        "    if N[0] in HIDDEN:\n"
        f"        {fail}\n"
        "    return 0.0\n"
    )


PROBE = (
    "import os\nH = int(os.environ['HELPERS_GRADING_SEED'][:8], 16)\n"
    "def precision_at_k(ranking, relevant, k):\n    return H / 2**32\n"
)


@pytest.fixture(scope="module")
def graded(tmp_path_factory, request):
    request.getfixturevalue("bwrap")
    folder = tmp_path_factory.mktemp("class5")
    with_honest(folder, "honest1.ipynb", "honest2.ipynb")
    notebook(folder / "exit_k.ipynb", _exit_with("k", "exit_k.ipynb"))
    notebook(folder / "exit_k_plus_1.ipynb", _exit_with("k + 1", "exit_k_plus_1.ipynb"))
    for name in ("SIGUSR1", "SIGTERM"):
        code = _exit_with(f"0 * os.kill(os.getpid(), signal.{name})", f"signal_{name}.ipynb")
        notebook(folder / f"signal_{name}.ipynb", "import signal\n" + code)
    p, _ = call_numbers("precision_at_k", SEED, "a_clock.ipynb")
    notebook(folder / "a_clock.ipynb", CLOCK.format(p=p, t0=time.time()))  # sorted first: starts at once
    for kind in ("raise", "str", "wrong"):
        notebook(folder / f"kind_{kind}.ipynb", _failing(kind, f"kind_{kind}.ipynb"))
    notebook(folder / "probe.ipynb", PROBE)
    return grade_class(folder, tmp_path_factory.mktemp("out5"), SEED)


def test_the_honest_classmates_keep_full_marks_and_no_attacker_scores(graded):
    assert graded["honest1.ipynb"]["report"]["score"] == 14.0
    assert graded["honest2.ipynb"]["report"]["score"] == 14.0
    assert all(g["report"]["score"] == 0.0 for name, g in graded.items() if not name.startswith("honest"))


def test_a_hidden_input_does_not_leak_as_the_exit_status(graded):
    assert graded["honest1.ipynb"]["report"]["score"] == 14.0
    for target in TARGETS:
        k = hidden_k(target, SEED, "exit_k.ipynb")  # exit_k's own hidden case (grade_class checks it)
        for shown in ("feedback", "results"):
            assert f"exited with code {k} " not in section(graded["exit_k.ipynb"]["feedback"], target)
            assert f"exited with code {k} " not in graded["exit_k.ipynb"][shown]
        # the property: how a hidden case ended the process does not change the feedback
        assert section(graded["exit_k.ipynb"]["feedback"], target) == section(
            graded["exit_k_plus_1.ipynb"]["feedback"], target
        )


def test_a_hidden_input_does_not_leak_as_the_signal_that_ended_the_process(graded):
    assert graded["honest1.ipynb"]["report"]["score"] == 14.0
    for target in TARGETS:
        usr1 = section(graded["signal_SIGUSR1.ipynb"]["feedback"], target)
        assert usr1 == section(graded["signal_SIGTERM.ipynb"]["feedback"], target), usr1


def test_a_worked_example_shown_ran_before_any_hidden_input_reached_the_notebook(graded):
    assert graded["honest2.ipynb"]["report"]["score"] == 14.0
    shown = re.search(
        r"got ` (\d\.\d+(?:e-\d+)?) `", section(graded["a_clock.ipynb"]["feedback"], "recall_at_k")
    )
    # the first run's cells ran within seconds of T0; a run after the 8 s hidden case, 8 s or more after
    # (8 s is the bound: under load, 2 cores shared by 5 sessions, the first run's cell ran 7.2 s after T0)
    assert shown is None or float(shown.group(1)) * 1000 < 8.0, shown.group(1)


def test_how_hidden_cases_fail_does_not_change_the_feedback(graded):
    assert graded["honest1.ipynb"]["report"]["score"] == 14.0
    kinds = ("raise", "str", "wrong")
    shown = {kind: section(graded[f"kind_{kind}.ipynb"]["feedback"], "recall_at_k") for kind in kinds}
    assert shown["raise"] == shown["str"] == shown["wrong"], shown


def test_the_data_seed_a_worked_example_shows_does_not_give_the_seed_away(graded, tmp_path):
    """A probe that read 32 bits of the data seed could, with them, enumerate the seeds and give the seed away
    only when the seed can be enumerated. This class is graded with a fixed 23-bit ``--seed`` (the
    attacks above need to know their cases): the window search finds it, and the run warned."""
    assert graded["honest2.ipynb"]["report"]["score"] == 14.0
    # an assignment without answer variables gets no data seed at all (red team 9): the probe's cell fails
    assert re.search(r"got ` (0\.\d+(?:e-\d+)?) `", graded["probe.ipynb"]["feedback"]) is None
    # what a probe of answer variables' data would hold: its own learner's data seed (its key is known)
    mine = lambda seed: grade.data_seed(grade.learner_seed(seed, learner("probe.ipynb")))
    value = int(mine(SEED)[:8], 16) / 2**32
    prefix = f"{round(value * 2**32):08x}"
    # what a learner runs offline over all 2**32 seeds (minutes on a laptop's cores), here near the seed
    found = [s for s in range(SEED - 3000, SEED + 3000) if mine(s)[:8] == prefix]
    assert SEED in found  # a short seed is enumerable: why the grader warns about one
    assert gradebook.short_seed(SEED) is not None and "--new-seed" in gradebook.short_seed(SEED)
    # every seed the grader draws itself (gradebook, Gradescope package, --write-run-autograder) is
    # 128 bits: 2**32 or even 2**64 candidates hold it with probability below 2**-64
    with gradebook.Gradebook.open(tmp_path, grade.assignment_info(ASSIGNMENTS["from-scratch"])) as book:
        drawn = book.seed(None, fresh=False)
    assert drawn >= 2**64 and gradebook.short_seed(drawn) is None
    package = gradescope_package.build("from-scratch", tmp_path / "autograder.zip")
    with zipfile.ZipFile(package) as zf:
        assert json.loads(zf.read(gradescope_package.SEED_FILE))["seed"] >= 2**64
