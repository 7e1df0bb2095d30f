"""Red team 41: the "ignored N invalid ... message(s)" note is shown to the learner after a hidden input.

``sandbox._run_once`` ends every run with::

    if reader.invalid:
        result.warnings.append(f"ignored {reader.invalid} invalid or out-of-order message(s) ...")

into ``result.warnings`` (what the learner reads: a ``- note:`` of the Markdown feedback and of Gradescope's
``results.json``) whether or not a hidden input had reached the notebook (``reader.hidden``, ``tainted``)
and whether or not the run held the data drawn at grading (``_Runs.drawn``). Every other note of a run is
routed by those flags (``_keep_output``: "how much it printed could carry one"; ``take_events``: channel
warnings after a hidden input go to ``withheld``); this one is not.

The learner decides whether (and how many) messages are invalid, after seeing the hidden input: only the
supervisor writes to the channel, but it forwards what the runner replies, and the runner is the
learner's process. The learner's function walks its frames to the runner's ``nonce`` and ``replies``
and writes a reply first, whose case is not a valid tag (``{"t": "float", "v": 1}``); the supervisor's
``result`` event then fails ``validate_event`` and is counted. For an assignment of drawn data the same
works from a CELL (a forged reply to the cell command makes the ``loaded`` event invalid), with the data
seed in the environment.

Both channels are outside the README's decision ("at most one bit per hidden check ..., the question's
points ... and whether the process ended during a question's hidden checks"; for drawn data "of each
answer it reads right, not attempted or wrong, never why"): the note is one more switch the notebook
sets from what it must not carry (red team 11's class: statuses spelling the data seed).

1. ``test_note_after_a_hidden_case_is_withheld`` (from-scratch): the note appears iff the learner's own
   hidden ``k`` of ``precision_at_k``'s first randomised case is odd (the file name is chosen so it is).
2. ``test_note_of_a_drawn_run_is_withheld`` (choosing-metrics): the note appears iff bit 0 of the
   learner's own data seed is 1 (the file name is chosen so it is).

Honest classmates are graded beside each and keep full marks. Severity: low (a few bits per
submission of the learner's own hidden input or drawn data, in the feedback). Suggested fix: route the
note like every other note of a run: to ``withheld`` when ``tainted or reader.hidden`` or the run holds
drawn data (``_Runs.drawn``).

Closed at stop 44: the note goes to the instructor's ``withheld`` list once a hidden input or drawn
data reached the notebook (``sandbox._run_once``), as every other note of a run's end.
"""

from __future__ import annotations

from helpers.grade import grader as grade
from helpers.grade.assignments import ASSIGNMENTS

from ..redteam_r5.common import FORGE, PERFECT_CELLS, beside_honest, call_numbers, learner, odd_k_file, shown
from ..redteam_r8.test_runtime_syntax_error_channel import _honest_source

NOTE = "invalid or out"  # as Markdown escapes it: "invalid or out\\-of\\-order message(s)"
SEED = 7
PERFECT = PERFECT_CELLS


HIDDEN_BIT = (
    FORGE
    + r"""
_calls = [0]
_real = precision_at_k
def precision_at_k(ranking, relevant, k):
    _calls[0] += 1
    if _calls[0] == FIRST and k % 2 == 1:  # a bit of this learner's own hidden input
        _forge('"case": {"value": {"t": "float", "v": 1}}')
    return _real(ranking, relevant, k)
"""
)

DRAWN_BIT = (
    FORGE
    + r"""
if int(_os.environ["HELPERS_GRADING_SEED"], 16) & 1:  # a bit of the data drawn at grading
    _forge('"errors": [{"cell": "x"}]')
"""
)


def test_note_after_a_hidden_case_is_withheld(bwrap, tmp_path):
    name = odd_k_file("precision_at_k", SEED, "mallory")
    first, _ = call_numbers("precision_at_k", SEED, name)
    graded = beside_honest(tmp_path, name, (*PERFECT, HIDDEN_BIT.replace("FIRST", str(first))), SEED)
    assert graded["honest.ipynb"]["report"]["score"] == 14.0
    assert NOTE not in shown(graded["honest.ipynb"])
    # the hidden k was odd, so the notebook spoiled one reply: the learner must not read that it did
    assert NOTE not in shown(graded[name]), "the note tells the learner its hidden k was odd"
    assert any(NOTE in w for w in graded[name]["report"]["withheld"])  # the forge fired: the instructor's


def test_note_of_a_drawn_run_is_withheld(bwrap, tmp_path):
    a = ASSIGNMENTS["choosing-metrics"]
    seed_of = lambda f: int(grade.data_seed(grade.learner_seed(SEED, learner(f))), 16)
    name = next(f"probe{i}.ipynb" for i in range(50) if seed_of(f"probe{i}.ipynb") & 1)
    graded = beside_honest(tmp_path, name, (DRAWN_BIT,), SEED, a, _honest_source())
    assert graded["honest.ipynb"]["report"]["score"] == 10.0
    assert NOTE not in shown(graded["honest.ipynb"])
    assert NOTE not in shown(graded[name]), "the note tells the learner bit 0 of its data seed is 1"
    assert any(NOTE in w for w in graded[name]["report"]["withheld"])  # the forge fired: the instructor's
