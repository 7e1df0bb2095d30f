"""Red team 43: more ways a notebook could make what its learner reads depend on a hidden input or on the
data drawn at grading (all held).

Each is graded in the real bubblewrap sandbox beside an honest classmate who must keep full marks; the
file name is chosen so that the learner's own hidden bit is 1 (the attack fires).

1. ``float_reply`` (from-scratch): on ``precision_at_k``'s first randomised (hidden) case with an odd
   ``k``, the notebook forges the runner's reply with a JSON *float* in it (the runner's walk to its
   ``nonce``, as red team 41). The supervisor's own writer (``child._to_json``) knows no float: its
   ``Channel.send`` falls back to a ``warning`` event ``<TypeError object at 0x...>`` in place of the
   question's ``result``. Held: the warning comes after the part-2 announcement (``after_hidden``, to
   ``withheld``); the question reads ``stopped`` with the fixed phrase, which the README's decision
   already counts ("whether the process ended during a question's hidden checks").
2. ``flush_hang`` (from-scratch): ``sys.stdout`` is replaced by an object whose ``flush`` sleeps past
   the wall clock when a hidden ``k`` of ``ndcg_at_k`` was odd, so the run times out in the runner's
   final ``flush`` (the ``e`` command), after every result was sent. Held: no question is left to
   blame (``_Runs.step``: nothing to do), and the cut output and invalid-message notes are withheld
   once a hidden input reached the run (``sandbox._run_once``); score and feedback are as without it.
3. ``numpy_type`` (choosing-metrics): every answer is computed right, but returned as a
   ``numpy.float32``/``float64`` or a plain ``float`` according to bits of the data seed; the grader's
   ``notes`` ("returned a numpy float64 (accepted)") differ. Held: ``notes`` are the instructor's only
   (no writer of the feedback or ``results.json`` reads them).
"""

from __future__ import annotations

from helpers.grade import grader as grade
from helpers.grade.assignments import ASSIGNMENTS

from ..redteam_r5.common import FORGE, PERFECT_CELLS, beside_honest, call_numbers, learner, odd_k_file, shown
from ..redteam_r8.test_runtime_syntax_error_channel import _honest_source

SEED = 4343
PERFECT = PERFECT_CELLS


FLOAT_REPLY = (
    FORGE
    + r"""
_calls = [0]
_real = precision_at_k
def precision_at_k(ranking, relevant, k):
    _calls[0] += 1
    if _calls[0] == FIRST and k % 2 == 1:
        _forge('"case": {"value": {"t": "float", "v": "0x1p-1"}, "extra": 0.5}')
    return _real(ranking, relevant, k)
"""
)

FLUSH_HANG = r"""
import sys as _sys, time as _time
_flag = [False]
_calls = [0]
_real_ndcg = ndcg_at_k
def ndcg_at_k(ranking, relevant, k):
    _calls[0] += 1
    if _calls[0] == FIRST and k % 2 == 1:
        _flag[0] = True
    return _real_ndcg(ranking, relevant, k)
class _Out:
    def __init__(self, real):
        self.real = real
    def write(self, text):
        return self.real.write(text)
    def flush(self):
        if _flag[0]:
            _time.sleep(60)
        self.real.flush()
_sys.stdout = _Out(_sys.stdout)
"""

NUMPY_TYPE = r"""
import os as _os
import numpy as _np
_bits = int(_os.environ["HELPERS_GRADING_SEED"], 16)
_kinds = [_np.float32, _np.float64, float]
answer_q1 = _kinds[_bits % 3](answer_q1) if _bits % 3 != 0 else answer_q1
answer_q5 = _np.float64(answer_q5) if _bits & 8 else answer_q5
"""


def test_float_reply_after_a_hidden_case(bwrap, tmp_path):
    name = odd_k_file("precision_at_k", SEED, "float")
    first, _ = call_numbers("precision_at_k", SEED, name)
    graded = beside_honest(tmp_path, name, (*PERFECT, FLOAT_REPLY.replace("FIRST", str(first))), SEED)
    assert graded["honest.ipynb"]["report"]["score"] == 14.0
    report = graded[name]["report"]
    q1 = next(q for q in report["questions"] if q["target"] == "precision_at_k")
    assert q1["status"] == "no report" and "hidden check" in q1["reason"], q1  # the allowed "stopped" bit
    assert report["score"] == 12.0
    assert any("TypeError object" in w for w in report.get("withheld", [])), report.get("withheld")
    seen = shown(graded[name])
    assert "TypeError" not in seen and "object at" not in seen and "note:" not in seen


def test_flush_hang_after_the_last_case(bwrap, tmp_path):
    name = odd_k_file("ndcg_at_k", SEED, "flush")
    first, _ = call_numbers("ndcg_at_k", SEED, name)
    graded = beside_honest(tmp_path, name, (*PERFECT, FLUSH_HANG.replace("FIRST", str(first))), SEED)
    assert graded["honest.ipynb"]["report"]["score"] == 14.0
    assert graded[name]["report"]["score"] == 14.0
    seen = shown(graded[name])
    assert "timed out" not in seen and "note:" not in seen and "stopped" not in seen


def test_answer_type_chosen_from_the_data(bwrap, tmp_path):
    a = ASSIGNMENTS["choosing-metrics"]
    seed_of = lambda f: int(grade.data_seed(grade.learner_seed(SEED, learner(f))), 16)
    name = next(f"kind{i}.ipynb" for i in range(60) if seed_of(f"kind{i}.ipynb") % 3 == 1)
    graded = beside_honest(tmp_path, name, (_honest_source(), NUMPY_TYPE), SEED, a, _honest_source())
    assert graded["honest.ipynb"]["report"]["score"] == 10.0
    report = graded[name]["report"]
    assert report["score"] == 10.0
    assert any("numpy" in n for q in report["questions"] for n in q.get("notes", [])), report["questions"]
    assert "numpy" not in shown(graded[name]).lower()
