"""The exercises of notebooks 08 and 09: solutions pass, stubs are not attempted, known mistakes are named.

tests/test_checks.py runs the generic checks over every question; these add
the specific wrong answers a learner is likely to give, and tie q3 of
notebook 08 to the numbers the notebook itself computes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from helpers.course import CORRECT, INCORRECT, NOT_ATTEMPTED, nb08, nb09
from helpers.course import progress_file as _progress

QUESTIONS = [nb08.q1, nb08.q2, nb08.q3, nb09.q1, nb09.q2, nb09.q3]


@pytest.fixture(autouse=True)
def progress_file(tmp_path, monkeypatch):
    monkeypatch.setenv("TOPK_COURSE_PROGRESS", str(tmp_path / "progress.json"))
    monkeypatch.setattr(_progress, "_memory", {})
    monkeypatch.setattr(_progress, "_problem", None)


@pytest.mark.parametrize("q", QUESTIONS, ids=lambda q: q.id)
def test_solution_stub_and_mistakes(q):
    assert q.check(q.answer_from(q.solution_code)).outcome == CORRECT
    assert q.check(q.stub()).outcome == NOT_ATTEMPTED
    assert len(q.mistakes) >= 2
    for mistake in q.mistakes:
        result = q.check(q.answer_from(mistake.function))
        assert result.outcome == INCORRECT and result.mistake == mistake.label, (
            mistake.label,
            result.message,
        )


def test_nb08_q1_learner_variants():
    def with_percentile(samples, confidence):
        tail = 100 * (1 - confidence) / 2
        low, high = np.percentile(samples, [tail, 100 - tail])
        return low, high

    assert nb08.q1.check(with_percentile).outcome == CORRECT

    def sorted_index(samples, confidence):  # nearest-rank, not numpy's interpolation
        s = sorted(samples)
        n = len(s)
        return s[int((1 - confidence) / 2 * n)], s[int((1 + confidence) / 2 * n) - 1]

    result = nb08.q1.check(sorted_index)
    assert result.outcome == INCORRECT and result.mistake is None
    assert "percentile_interval(" in result.message


def test_nb08_q2_vectorised_learner_answer_is_accepted():
    def vectorised(differences, signs):
        d = np.array(differences)
        flipped = np.abs(np.array(signs) @ d / len(d))
        return (1 + np.sum(flipped >= abs(d.mean()) - 1e-9)) / (len(signs) + 1)

    assert nb08.q2.check(vectorised).outcome == CORRECT


def test_nb08_q3_is_the_notebook_difference():
    scores = nb08.notebook_scores()
    assert set(scores) == {"Random", "MostPopular", "ItemKNN", "EASE", "PureSVD"}
    value = float((scores["PureSVD"]["ndcg@10"] - scores["MostPopular"]["ndcg@10"]).mean())
    assert 0.1 < value < 0.5  # a personalised model far above popularity
    assert nb08.q3.check(value).outcome == CORRECT
    assert nb08.q3.check(round(value, 2)).outcome == INCORRECT  # rounding is not the value
    assert nb08.q3.check("0.25").outcome == INCORRECT


def test_nb09_values():
    assert nb09.q2.check(100 * 49 / 999).outcome == CORRECT
    rank = nb09.first_rank_below_half()
    from helpers.experiments.sampled import expected_sampled_hit

    assert expected_sampled_hit(rank, 1000, 100, 10) < 0.5 <= expected_sampled_hit(rank - 1, 1000, 100, 10)
    assert nb09.q3.check(rank).outcome == CORRECT
    assert nb09.q3.check(rank + 1).outcome == INCORRECT
    assert nb09.q1.check(lambda p, negs: 1 + len([s for s in negs if s > p])).outcome == CORRECT
    assert nb09.q1.check(lambda p, negs: float(1 + sum(s > p for s in negs))).outcome == CORRECT
    assert math.isclose(nb09.q2.reference(), 4.904904904904905)


def test_observed_power_is_a_function_of_the_p_value_alone():
    """Section 8: observed power = power_from_p(p) in every study; significance tracks true power."""
    import math
    from statistics import NormalDist

    from helpers.course.nb08 import observed_power_simulation, power_from_p

    studies = observed_power_simulation(effects=(0.0, 0.0132), n_studies=400, n=200, seed=1)
    for p, observed in zip(studies["p"], studies["observed power"], strict=True):
        if p > 1e-12:
            assert observed == pytest.approx(power_from_p(p), abs=1e-6)
    for _, group in studies.groupby("effect"):
        true_power = group["true power"].iloc[0]
        share = (group["p"] <= 0.05).mean()
        assert abs(share - true_power) < 4 * math.sqrt(true_power * (1 - true_power) / len(group)) + 0.01
    # by hand: at p = 0.05, |z| is the critical value, so observed power is 1/2 (+ a tiny far tail)
    crit = NormalDist().inv_cdf(0.975)
    assert power_from_p(0.05) == pytest.approx(0.5 + NormalDist().cdf(-2 * crit))
    grid = [0.001, 0.01, 0.05, 0.2, 0.8]
    assert all(power_from_p(a) > power_from_p(b) for a, b in zip(grid, grid[1:], strict=False))
