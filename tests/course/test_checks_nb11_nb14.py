"""Notebooks 11-14's exercises: the right answers pass, known-wrong ones are named, choice feedback works.

The generic rules (stubs, hints, solutions, no expected value in messages) are checked for every
question by tests/course/test_checks.py; these tests add known-right and known-wrong answers.
"""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest

from helpers.course import CORRECT, INCORRECT, NOT_ATTEMPTED
from helpers.course.choice import ChoiceQuestion


@pytest.fixture(autouse=True)
def _progress(tmp_path, monkeypatch):
    monkeypatch.setenv("TOPK_COURSE_PROGRESS", str(tmp_path / "progress.json"))


def module(number):
    return importlib.import_module(f"helpers.course.nb{number}")


def choices():
    found = []
    for number in ("11", "12", "13", "14"):
        try:
            mod = module(number)
        except ModuleNotFoundError:
            continue
        found += [q for q in vars(mod).values() if isinstance(q, ChoiceQuestion)]
    return found


@pytest.mark.parametrize("q", choices(), ids=lambda q: q.id)
def test_choice_questions_give_feedback_for_every_option(q):
    assert q.check(q.correct_letter.upper()).outcome == CORRECT
    assert q.check(f" {q.correct_letter} ").outcome == CORRECT
    for letter, option in q.options.items():
        result = q.check(letter)
        assert option.feedback in result.message
        assert result.outcome == (CORRECT if option.correct else INCORRECT)
    assert q.check("z").outcome == INCORRECT and "one letter" in q.check("z").message
    assert q.check(3).outcome == INCORRECT
    assert q.check(...).outcome == NOT_ATTEMPTED
    assert "(a)" in repr(q)


def test_nb11_novelty_and_gini():
    nb = module("11")
    assert nb.q1.check(nb.novelty).outcome == CORRECT

    def wrong_log(ranking, k, popularity):
        return sum(-math.log(popularity[i]) for i in ranking[:k]) / len(ranking[:k])

    assert nb.q1.check(wrong_log).mistake == "natural log"
    assert nb.q2.check(nb.gini).outcome == CORRECT
    assert nb.q2.check(lambda counts: float(np.std(counts))).outcome == INCORRECT

    def without_zeros(counts):
        return nb.gini([c for c in counts if c])

    assert nb.q2.check(without_zeros).mistake == "drops the zeros"


def test_nb11_exposure_natural_log_is_named_and_q6_asks_for_the_asymmetry():
    nb = module("11")

    def natural_log(rankings, item, k):
        return sum(
            1 / math.log(r + 1) for ranking in rankings for r, x in enumerate(ranking[:k], 1) if x == item
        )

    assert nb.q5.check(natural_log).mistake == "natural log"

    # naive KL for a 70/30 history, alpha = 0.01: the right option is the smallest, and 8/2 and 6/4 differ
    def kl(dramas):
        q = (dramas / 10, 1 - dramas / 10)
        return sum(p * math.log(p / (0.99 * qg + 0.01 * p)) for p, qg in zip((0.7, 0.3), q, strict=True))

    values = {8: kl(8), 6: kl(6), 9: kl(9)}
    assert min(values, key=values.get) == 6 and values[8] - values[6] > 0.005
    assert nb.q6.correct_letter == "b" and "Six dramas" in nb.q6.options["b"].text
    for dramas, value in values.items():
        assert nb._c_kl(dramas) == pytest.approx(value)
        assert f"{value:.4f}" in " ".join(option.feedback for option in nb.q6.options.values())


def test_nb12_rbp_and_ips():
    nb = module("12")
    assert nb.q2.check(nb.rbp).outcome == CORRECT

    def rbp_without_factor(ranking, relevant, k, p):
        return sum(p ** (r - 1) for r, i in enumerate(ranking[:k], 1) if i in relevant)

    assert nb.q2.check(rbp_without_factor).mistake == "no (1 - p) factor"
    assert nb.q4.check(nb.ips).outcome == CORRECT

    def snips(clicks, target, logging):
        w = np.asarray(target) / np.asarray(logging)
        return float(np.sum(w * np.asarray(clicks)) / np.sum(w))

    assert nb.q4.check(snips).mistake == "self-normalised (SNIPS)"
    assert nb.q4.check(lambda c, t, lp: 0.5).outcome == INCORRECT
    assert nb.q6.check(nb.pbm_dcg).outcome == CORRECT

    def naive(clicks, new_ranks, eta):  # the click metric without the propensity
        return sum(1 / np.log2(1 + n) for c, n in zip(clicks, new_ranks, strict=True) if c and n)

    assert nb.q6.check(naive).mistake == "no propensity (the naive click metric)"
    assert nb.q7.check("b").outcome == CORRECT and nb.q7.check("c").outcome == INCORRECT
