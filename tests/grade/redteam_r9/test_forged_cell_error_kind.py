"""The ninth red team: an exception class named "this cell did not finish" shows its whole message.

``reports._cell_error_line`` decides what kind of cell error a line is by the *text* of the error:
text that starts with ``this cell did not finish`` is taken for the grader's own note about a hung cell
(``decode.hung_cell_error``) and written out whole. But the text of a run-time error is
``child.describe``'s ``f"{type(exc).__qualname__}: {exc}"``, and the notebook names its classes:

    raise type("this cell did not finish", (Exception,), {})("SEED=" + os.environ["HELPERS_GRADING_SEED"])

puts its message (up to 500 characters) in the feedback and in Gradescope's results.json. Red team 8's
fix (``decode._ran_error``) drops the message of a run-time ``SyntaxError:``/``IndentationError:``/
``TabError:`` only, by the same kind of prefix test. One probe reads the run's data seed; five typed
numbers then score 10/10 with the same seed (as in red team 8). The honest classmate keeps 10/10.

The principle that would close it: the kind of a cell error (found by the grader's parse, raised while
the cell ran, or a cell the run stopped in) is a field the grader sets where it makes the entry, never
read back from text the notebook can write; a run-time error is shown as its type only, whatever its
type's name says.
"""

from __future__ import annotations

import re

from helpers.grade.assignments import ASSIGNMENTS

from ..redteam_r5.common import notebook
from ..redteam_r8.test_runtime_syntax_error_channel import _grade, _honest_source

A = ASSIGNMENTS["choosing-metrics"]
PROBE = (
    "import os\n"
    'raise type("this cell did not finish", (Exception,), {})("SEED=" + os.environ["HELPERS_GRADING_SEED"])\n'
)


def test_a_class_named_like_the_graders_note_does_not_show_its_message(bwrap, tmp_path):
    first, second, out = tmp_path / "batch1", tmp_path / "batch2", tmp_path / "out"
    first.mkdir()
    second.mkdir()
    notebook(first / "honest.ipynb", _honest_source())
    notebook(first / "probe.ipynb", PROBE)
    run1 = _grade(first, out)
    assert run1["honest.ipynb"]["report"]["score"] == 10.0, run1["honest.ipynb"]["report"]
    leaked = re.search(r"SEED\\?=([0-9a-f]{32})", run1["probe.ipynb"]["shown"])
    typed = 0.0
    if leaked:  # offline, with the course's public code; then a notebook of five typed numbers
        answers = {q.target: q.reference(leaked.group(1)) for q in A.questions}
        notebook(second / "typed.ipynb", "".join(f"{name} = {value!r}\n" for name, value in answers.items()))
        typed = _grade(second, out)["typed.ipynb"]["report"]["score"]
    assert typed < 10.0, f"five typed numbers scored {typed}/10 (the data seed was read: {bool(leaked)})"
    assert leaked is None, "the probe's message, the run's data seed, is in its feedback"
