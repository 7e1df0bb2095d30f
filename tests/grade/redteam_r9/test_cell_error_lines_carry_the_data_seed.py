"""The ninth red team: the cell-error lines of a learner's feedback carry the run's data seed.

Red team 8 read the data seed (``HELPERS_GRADING_SEED``, ``grader.data_seed``: one per gradebook seed,
so one for a whole class, its late files and regrades, and every resubmission of a Gradescope package)
from the *message* of a raised ``SyntaxError``; the fix (``decode._ran_error``) drops that message. But
every other part of a cell-error line is still the notebook's choice, made while the data seed sits in
its environment (the cells run before any question, in the first run, which is "clean" only of hidden
*cases*):

* **which** statement raises (the line shown is the statement's line, so a cell of 128 one-line
  statements of which exactly one raises carries 7 bits) and **the type name** shown: ``child.describe``
  writes ``type(exc).__qualname__``, which ``type(name, (Exception,), {})`` sets to any name, and
  ``inert.exception_label`` shows it verbatim whenever it is a built-in or NumPy name (64 of the
  built-in type names: 6 bits). Ten lines are shown (``reports.feedback_markdown``): 10 x 13 = 130 bits
  in one submission, more than the data seed's 128. Test 1 reads the whole seed from one probe's
  feedback, then five typed numbers (no code) graded with the same seed score 10/10, as in red team 8.
* a cell that **ends the process** (``os._exit(n)``) is shown as ``this cell did not finish: the process
  exited with code n`` (``sandbox._describe_exit``, via ``decode.hung_cell_error``): the run is clean,
  so the exit status is shown (7 bits a line for 0..127; 128..255 read as a signal number, shown too).
  Test 2 grades one probe with two gradebook seeds and finds different feedback.

The honest classmate graded beside the probes keeps 10/10.

The principle that would close it: what a learner reads of a run must be a function of the notebook
alone, or of code that ran before *anything* drawn at grading (hidden cases *and* the data seed) reached
it. For cell errors either show only what the grader itself finds (its parse: syntax errors, and that a
cell raised or did not finish, without type, line or exit status), or run the cells first with the
public data seed of the notebook (the one a learner has at home) and show that run's cell errors only.
"""

from __future__ import annotations

import builtins
import re
from pathlib import Path

from helpers.grade import grader as grade
from helpers.grade.assignments import ASSIGNMENTS

from ..redteam_r5.common import grade_class, learner, notebook
from ..redteam_r8.test_runtime_syntax_error_channel import _grade, _honest_source

A = ASSIGNMENTS["choosing-metrics"]
#: the names the probe picks from (the sandbox runs the grader's own interpreter: the same list)
NAMES = sorted(n for n, v in vars(builtins).items() if isinstance(v, type))[:64]
BLOCKS, POSITIONS = 10, 128

#: Cell 1 reads the data seed; cell 2 + b raises, at the statement numbered by the seed's 13 bits of
#: block b (high 7 bits), an exception class named by the low 6 bits.
PROBE_HEAD = """import builtins, os
_N = sorted(n for n, v in vars(builtins).items() if isinstance(v, type))[:64]
_S = int(os.environ["HELPERS_GRADING_SEED"], 16)
def _r(block, j):
    chunk = (_S >> (13 * block)) & 0x1FFF
    if j == chunk >> 6:
        raise type(_N[chunk & 63], (Exception,), {})()
"""
_LINE = re.compile(r"^- cell (\d+), line (\d+): raised ` (\S+) `$", re.MULTILINE)


def _probe_cells() -> list[str]:
    return [PROBE_HEAD] + ["\n".join(f"_r({b}, {j})" for j in range(POSITIONS)) for b in range(BLOCKS)]


def _read_seed(shown: str) -> str | None:
    """What Mallory does with her feedback: each line gives 13 bits of the seed."""
    seed, found = 0, set()
    for cell, line, name in _LINE.findall(shown):
        block = int(cell) - 2
        if 0 <= block < BLOCKS and name in NAMES:
            seed |= (((int(line) - 1) << 6) | NAMES.index(name)) << (13 * block)
            found.add(block)
    return f"{seed & ((1 << 128) - 1):032x}" if found == set(range(BLOCKS)) else None


def test_type_names_and_lines_of_cell_errors_do_not_carry_the_data_seed(bwrap, tmp_path):
    first, second, out = tmp_path / "batch1", tmp_path / "batch2", tmp_path / "out"
    first.mkdir()
    second.mkdir()
    notebook(first / "honest.ipynb", _honest_source())
    notebook(first / "probe.ipynb", *_probe_cells())
    run1 = _grade(first, out)
    assert run1["honest.ipynb"]["report"]["score"] == 10.0, run1["honest.ipynb"]["report"]
    leaked = _read_seed(run1["probe.ipynb"]["shown"].split("\n### ")[0])
    typed = 0.0
    if leaked:  # offline, with the course's public code; then her own notebook of five typed numbers
        answers = {q.target: q.reference(leaked) for q in A.questions}
        notebook(second / "probe.ipynb", "".join(f"{name} = {value!r}\n" for name, value in answers.items()))
        typed = _grade(second, out)["probe.ipynb"]["report"]["score"]
    assert typed < 10.0, f"five typed numbers scored {typed}/10 (the data seed was read: {leaked})"
    assert leaked is None, "the probe's cell-error lines spell the run's data seed"


#: each of ten cells ends the process with 7 bits of the data seed as its exit status
EXIT_PROBE = ['import os\n_S = int(os.environ["HELPERS_GRADING_SEED"], 16)\n'] + [
    f"os._exit((_S >> {7 * b}) & 127)" for b in range(BLOCKS)
]


def _shown(folder: Path, out: Path, seed: int) -> dict[str, dict]:
    return grade_class(folder, out, seed, A)


def test_exit_status_of_a_cell_that_ends_the_process_does_not_carry_the_data_seed(bwrap, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    notebook(tmp_path / "a" / "honest.ipynb", _honest_source())
    notebook(tmp_path / "a" / "probe.ipynb", *EXIT_PROBE)
    notebook(tmp_path / "b" / "probe.ipynb", *EXIT_PROBE)
    one = _shown(tmp_path / "a", tmp_path / "out_a", seed=8088)
    two = _shown(tmp_path / "b", tmp_path / "out_b", seed=9099)
    assert one["honest.ipynb"]["report"]["score"] == 10.0, one["honest.ipynb"]["report"]
    codes = re.findall(r"exited with code (\d+)", one["probe.ipynb"]["feedback"])
    data = int(grade.data_seed(grade.learner_seed(8088, learner("probe.ipynb"))), 16)  # the probe's own
    spelled = [int(c) for c in codes] == [(data >> (7 * b)) & 127 for b in range(BLOCKS)]
    assert not spelled, f"the exit statuses shown spell 70 bits of the data seed: {codes}"
    assert one["probe.ipynb"]["feedback"] == two["probe.ipynb"]["feedback"], (
        "one notebook, two data seeds: the learner's feedback differs"
    )
    assert one["probe.ipynb"]["results"] == two["probe.ipynb"]["results"]
