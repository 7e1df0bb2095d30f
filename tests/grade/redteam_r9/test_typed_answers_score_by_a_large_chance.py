"""The ninth red team: five typed numbers, the same for every learner, score about 2/10 on average.

The README's rule for functions is that one that returns the same value whatever its input scores
zero; an answer variable of ``choosing-metrics`` has no such rule, only "a number typed in scores only
by chance" (the data are drawn anew per grading seed). How large the chance is was never measured.
Over 748 random 128-bit seeds (``grader.data_seed``, the answers ``q.reference``), the most frequent
value (within the question's ``abs_tol``) is right for: q1 19.9 %, q2 1.9 %, q3 30.6 %, q4 29.0 %,
q5 3.9 %. A notebook of five typed numbers, no code, taken from 300 other seeds' modes (below)
expects 2 x (0.199 + 0.019 + 0.306 + 0.290 + 0.039) = 1.7 of 10 points, and scores at least 2 with
probability 1 - 0.80 x 0.98 x 0.69 x 0.71 x 0.96 = 63 %. In a class graded with one seed, every
learner who types them gets the same points; on Gradescope, the first try is as good as any.

The test grades that notebook, beside an honest classmate (10/10), with a seed where q3 and q4 are
right (about one seed in nine): it scores 4/10.

The principle that would close it: an answer variable scores only when the notebook computes it, as
a function's points need its randomised check: e.g. run the cells under two data seeds (the
grading one and a second drawn one) and score the variable only when both values are right, so a
typed number earns points with probability p**2 (or never, when its right values differ); or draw
the data so that no value is right for more than ~1 % of seeds.
"""

from __future__ import annotations

import io
import itertools

from helpers.grade import grader as grade
from helpers.grade import isolation
from helpers.grade.assignments import ASSIGNMENTS

from ..redteam_r5.common import learner, notebook, own_draws
from ..redteam_r8.test_runtime_syntax_error_channel import _honest_source

A = ASSIGNMENTS["choosing-metrics"]
#: the most frequent right value of each answer over the data seeds of grading seeds 10**40 + 0..299
TYPED = {
    "answer_q1": 0.125,
    "answer_q2": -0.16666666666666669,
    "answer_q3": 3,
    "answer_q4": -0.005714285714285713,
    "answer_q5": 0.16666666666666666,
}


def _hits(seed: int) -> bool:
    """Whether the typed q3 and q4 are right for typed.ipynb's own data (its learner's: ``learner_seed``)
    under a grading seed, as the grader judges: within abs_tol."""
    data = grade.data_seed(grade.learner_seed(seed, learner("typed.ipynb")))
    questions = [A.question(name) for name in ("q3", "q4")]
    return all(abs(q.reference(data) - TYPED[q.target]) <= q.abs_tol + 1e-12 for q in questions)


def test_five_typed_numbers_score_nothing(bwrap, tmp_path):
    seed = next(s for s in itertools.count(10**38) if _hits(s))
    folder = tmp_path / "class"
    folder.mkdir()
    notebook(folder / "honest.ipynb", _honest_source())
    notebook(folder / "typed.ipynb", "".join(f"{name} = {value!r}\n" for name, value in TYPED.items()))
    with own_draws(A, seed):  # typed.ipynb graded on the data _hits read
        done = grade.grade_many(
            sorted(folder.iterdir()),
            A,
            tmp_path / "out",
            jobs=2,
            seed=seed,
            mode=isolation.BUBBLEWRAP,
            progress=io.StringIO(),
        )
    scores = {r["file"]: r["score"] for r in done}
    assert scores["honest.ipynb"] == 10.0, scores
    assert scores["typed.ipynb"] == 0.0, f"five typed numbers (no code) scored {scores['typed.ipynb']}/10"
