"""The eighth red team: a runtime ``SyntaxError`` carries any text of the notebook's run to the learner,
and the choosing-metrics answers are one set of numbers for the whole class.

``reports._cell_error_line`` shows a cell error's *message* when its text starts with ``SyntaxError:``
("a syntax error is found by the grader parsing the learner's own cell, so its message is shown; a
runtime error's message is not"). But the sandbox's cell errors (``child.describe``: type name and
message of whatever a top-level cell raised) start with ``SyntaxError:`` just as well when the cell
*raises* one: ``raise SyntaxError(anything)`` puts ``anything`` (cut to 500 characters) in the
learner's feedback and Gradescope's ``results.json``.

What is worth reading at that point: ``HELPERS_GRADING_SEED``, the run's data seed
(``grader.data_seed``: then one per run, the same for every learner of the run and for every submission of
a Gradescope package; now one per learner of a run, ``grader.learner_seed``, still the same for every
resubmission of one learner). The choosing-metrics answers are ``q.reference(data seed)``
(``grader.make_plan``), computed from the public ``helpers.experiments.choosing_metrics_data``. So:

1. Mallory hands in a probe: one cell ``raise SyntaxError("SEED=" + os.environ[...])``; her feedback
   shows the data seed;
2. offline she computes the five answers from it (the course's own public functions);
3. a notebook of five typed numbers (no code), graded with the same seed (a later batch into the same
   folder, a Gradescope resubmission; a classmate she gave them to, before each learner had data of
   their own), scores 10/10: the feedback's own line "a number typed in scores only by chance" is false.

The honest classmate, graded beside the probe, keeps 10/10. Asserted: the data seed never reaches the
learner's feedback or results.json, and typed numbers do not score full marks.
"""

from __future__ import annotations

import inspect
import io
import json
import re
from pathlib import Path

from helpers.grade import answer_key, exports, isolation
from helpers.grade import grader as grade
from helpers.grade.assignments import ASSIGNMENTS

from ..redteam_r5.common import notebook, own_draws

A = ASSIGNMENTS["choosing-metrics"]
SEED = 8088


def _honest_source() -> str:
    """The honest classmate computes every answer with helpers, from the data the notebook loads."""
    code = "from helpers.experiments.exercise_data import choosing_metrics_data\n\n"
    functions = (answer_key._frames, answer_key._mean, answer_key._answer_q3)
    code += "\n".join(inspect.getsource(f) for f in functions)
    return code + (
        '\nanswer_q1 = _mean(None, "A", "precision", 5, empty="zero")\n'
        'answer_q2 = _mean(None, "B", "rr", 5, empty="zero") - _mean(None, "A", "rr", 5, empty="zero")\n'
        "answer_q3 = _answer_q3(None)\n"
        'answer_q4 = (_mean(None, "A", "ap", 5, empty="skip", denominator="n_relevant")'
        ' - _mean(None, "A", "ap", 5, empty="skip", denominator="min_k_n_relevant"))\n'
        'answer_q5 = _mean(None, "B", "recall", 5, empty="skip")\n'
    )


def _grade(folder: Path, out: Path) -> dict[str, dict]:
    with own_draws(A, SEED):  # each file graded on its learner's own data
        done = grade.grade_many(
            sorted(folder.iterdir()),
            A,
            out,
            jobs=2,
            seed=SEED,
            mode=isolation.BUBBLEWRAP,
            progress=io.StringIO(),
        )
    graded = {}
    for report in done:
        feedback = (out / "feedback" / f"{report['submission']}.md").read_text(encoding="utf-8")
        graded[report["file"]] = {
            "report": report,
            "shown": feedback + json.dumps(exports.gradescope_results(report, A.title)),
        }
    return graded


def test_the_data_seed_does_not_reach_the_learner_and_typed_numbers_do_not_score(bwrap, tmp_path):
    first, second, out = tmp_path / "batch1", tmp_path / "batch2", tmp_path / "out"
    first.mkdir()
    second.mkdir()
    notebook(first / "honest.ipynb", _honest_source())
    probe = 'import os\nraise SyntaxError("SEED=" + os.environ["HELPERS_GRADING_SEED"])'
    notebook(first / "probe.ipynb", probe)
    run1 = _grade(first, out)
    assert run1["honest.ipynb"]["report"]["score"] == 10.0, run1["honest.ipynb"]["report"]
    leaked = re.search(r"SEED=([0-9a-f]{32})", run1["probe.ipynb"]["shown"])
    typed = 0.0
    if leaked:  # what Mallory does offline with the course's public code, then types in and hands in again
        answers = {q.target: q.reference(leaked.group(1)) for q in A.questions}
        # her own resubmission (the same learner: her data are her own, a classmate's differ)
        notebook(second / "probe.ipynb", "".join(f"{name} = {value!r}\n" for name, value in answers.items()))
        typed = _grade(second, out)["probe.ipynb"]["report"]["score"]
    assert typed < 10.0, f"five typed numbers scored {typed}/10 (the data seed leaked: {bool(leaked)})"
    assert leaked is None, "the run's data seed is in the probe's feedback"
