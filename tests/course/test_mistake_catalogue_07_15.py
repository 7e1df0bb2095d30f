"""Notebooks 07-15: every exercise rejects the wrong answers a learner would write, and names the common ones.

For each exercise of 07-15, a catalogue of plausible wrong answers (off-by-one cutoffs both ways, 0-based
ranks, wrong logs and denominators, the neighbouring estimator, clipping, a median for a mean, constants):
every one must get "incorrect", and every mistake attached to the question must be *named* (the question's
own cases separate it from the right answer). Right answers, and other right formulations, must pass.
A new exercise in 07-15 fails ``test_every_exercise_of_07_15_has_a_catalogue`` until it gets one.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import helpers.course as course
from helpers.course import CORRECT, INCORRECT, nb08, nb09, nb11, nb12, nb13, nb15
from helpers.course import progress_file as _progress
from helpers.course.choice import ChoiceQuestion

QUESTIONS = {
    qid: q
    for qid, q in course.all_questions().items()
    if qid[:2] in {"07", "08", "09", "11", "12", "13", "14", "15"}
}


@pytest.fixture(autouse=True)
def _no_progress_file(monkeypatch):
    monkeypatch.setenv("TOPK_COURSE_PROGRESS", "off")
    monkeypatch.setattr(_progress, "_memory", {})


def _always(value):
    return lambda *args: value


# ---------------------------------------------------------------- wrong functions beyond the attached ones
def _novelty(log=math.log2, stop=lambda k: k, over=lambda shown, k: len(shown)):
    def wrong(ranking, k, popularity):
        shown = ranking[: stop(k)]
        return sum(-log(popularity[i]) for i in shown) / over(shown, k)

    return wrong


def _exposure(discount=lambda r: 1 / math.log2(r + 1), stop=lambda k: k):
    def wrong(rankings, item, k):
        return sum(
            discount(r) for ranking in rankings for r, x in enumerate(ranking[: stop(k)], 1) if x == item
        )

    return wrong


def _rbp(stop=lambda k: k, power=lambda r: r - 1):
    def wrong(ranking, relevant, k, p):
        return (1 - p) * sum(p ** power(r) for r, x in enumerate(ranking[: stop(k)], 1) if x in relevant)

    return wrong


def _ips15(stop=lambda k: k, weight=lambda q: 1 / q, over=lambda r, logged, k: k):
    def wrong(ranking, logged, propensity, k):
        return sum(weight(propensity[i]) for i in ranking[: stop(k)] if i in logged) / over(
            ranking, logged, k
        )

    return wrong


def _loo(stop=lambda k: k, discount=lambda r: 1 / math.log2(r + 1)):
    def wrong(ranking, held_out, k):
        return next((discount(r) for r, x in enumerate(ranking[: stop(k)], 1) if x == held_out), 0.0)

    return wrong


def _np(f):
    return lambda *args: np.float64(f(*args))


EXTRA = {
    "08.q1": [
        (
            "numpy percentile with a fraction (0.025, 0.975)",
            lambda s, c: tuple(np.percentile(s, [(1 - c) / 2, (1 + c) / 2])),
        ),
        ("(high, low)", lambda s, c: tuple(reversed(nb08.percentile_interval(s, c)))),
        ("min and max", lambda s, c: (float(min(s)), float(max(s)))),
        ("mean +- sd", lambda s, c: (float(np.mean(s) - np.std(s)), float(np.mean(s) + np.std(s)))),
    ],
    "08.q2": [
        (
            "(1 + count) / B",
            lambda d, s: (
                (1 + sum(abs(np.mean(np.multiply(r, d))) >= abs(np.mean(d)) - 1e-12 for r in s)) / len(s)
            ),
        ),
        (
            "no absolute value on the draws",
            lambda d, s: (
                (1 + sum(np.mean(np.multiply(r, d)) >= abs(np.mean(d)) - 1e-12 for r in s)) / (1 + len(s))
            ),
        ),
        ("the share of positive differences", lambda d, s: float(np.mean(np.asarray(d) > 0))),
        *[(f"constant {v}", _always(v)) for v in (0.05, 1.0)],
    ],
    "09.q1": [
        ("ties counted as above (>=)", lambda pos, neg: 1 + sum(x >= pos for x in neg)),
        ("0-based", lambda pos, neg: sum(x > pos for x in neg)),
        ("counted below", lambda pos, neg: 1 + sum(x < pos for x in neg)),
        ("rank among the negatives only", lambda pos, neg: max(1, sum(x > pos for x in neg))),
    ],
    "11.q1": [
        ("log10", _novelty(log=math.log10)),
        ("ranking[:k + 1]", _novelty(stop=lambda k: k + 1)),
        ("ranking[:k - 1]", _novelty(stop=lambda k: k - 1)),
        ("whole list", _novelty(stop=lambda k: None)),
    ],
    "11.q2": [
        ("n - 1 in the denominator (Shani and Gunawardana)", lambda c: nb11.gini(c) * len(c) / (len(c) - 1)),
        ("1 - the share of the top item", lambda c: 1 - max(c) / sum(c)),
        ("sorted decreasing", lambda c: -nb11.gini(c)),
    ],
    "11.q5": [
        ("ranking[:k + 1]", _exposure(stop=lambda k: k + 1)),
        ("ranking[:k - 1]", _exposure(stop=lambda k: k - 1)),
        ("log2(rank + 2)", _exposure(discount=lambda r: 1 / math.log2(r + 2))),
        ("log2(rank) with rank 1 as 1", _exposure(discount=lambda r: 1 / math.log2(r) if r > 1 else 1.0)),
    ],
    "12.q2": [
        ("ranking[:k + 1]", _rbp(stop=lambda k: k + 1)),
        ("ranking[:k - 1]", _rbp(stop=lambda k: k - 1)),
        ("p^rank", _rbp(power=lambda r: r)),
        ("p^(rank - 2)", _rbp(power=lambda r: r - 2)),
    ],
    "12.q4": [
        (
            "divides by the sum of target probabilities",
            lambda c, t, lp: float(np.sum(c * t / lp) / np.sum(t)),
        ),
        ("logging over target", lambda c, t, lp: float(np.mean(c * lp / t)) if np.all(t > 0) else 0.0),
        ("median of the weighted clicks", lambda c, t, lp: float(np.median(c * t / lp))),
    ],
    "12.q6": [
        ("propensity of the new rank", nb12._pbm(propensity=lambda r, new, eta: new**-eta)),
        ("reciprocal rank as the discount", nb12._pbm(discount=lambda r, new: 1 / new)),
        ("natural log", nb12._pbm(discount=lambda r, new: 1 / math.log(1 + new))),
        ("0-based logged rank", nb12._pbm(propensity=lambda r, new, eta: max(r - 1, 1) ** -eta)),
    ],
    "12.q8": [
        (
            "SNIPS-style division by the sum of weights",
            lambda c, t, lp, m, q: float(np.mean(q) + np.sum(t / lp * (c - m)) / np.sum(t / lp)),
        ),
        (
            "clipped weights at 2",
            lambda c, t, lp, m, q: float(np.mean(q + np.minimum(t / lp, 2.0) * (c - m))),
        ),
        (
            "the model's prediction of the logged action as its value",
            lambda c, t, lp, m, q: float(np.mean(m + t / lp * (c - m))),
        ),
    ],
    "13.q2": [
        ("log2(rank)", _loo(discount=lambda r: 1 / math.log2(r) if r > 1 else 1.0)),
        ("reciprocal rank", _loo(discount=lambda r: 1 / r)),
        ("hit", lambda r, h, k: float(h in r[:k])),
        ("ranking[:k + 1] with the right discount", _loo(stop=lambda k: k + 1)),
        ("ranking[:k - 1] with the right discount", _loo(stop=lambda k: k - 1)),
    ],
    "15.q2": [
        ("ranking[:k + 1]", _ips15(stop=lambda k: k + 1)),
        ("ranking[:k - 1]", _ips15(stop=lambda k: k - 1)),
        ("divides by |logged|", _ips15(over=lambda r, logged, k: max(1, len(logged)))),
        ("1 - propensity as the weight", _ips15(weight=lambda q: 1 - q)),
        ("weights clipped at 20", _ips15(weight=lambda q: min(1 / q, 20.0))),
        ("divides by len(ranking)", _ips15(over=lambda r, logged, k: max(1, len(r)))),
    ],
}

VALUE_WRONG = {
    "08.q3": [-nb08.svd_minus_pop(), round(nb08.svd_minus_pop(), 2), 0.0],
    "09.q2": [49.0, 100 * 49 / 1000, 100 * 50 / 999],
    "09.q3": [nb09.first_rank_below_half() - 1, nb09.first_rank_below_half() + 1, 10],
}

RIGHT = {
    "08.q1": [nb08.percentile_interval, lambda s, c: tuple(np.percentile(s, [50 * (1 - c), 50 * (1 + c)]))],
    "08.q2": [
        nb08.sign_flip_p_value,
        lambda d, s: (
            (1 + sum(abs(np.sum(np.multiply(r, d))) >= abs(np.sum(d)) - 1e-12 for r in s)) / (1 + len(s))
        ),
    ],
    "09.q1": [nb09.rank_among, _np(nb09.rank_among)],
    "11.q1": [nb11.novelty, lambda r, k, pop: float(np.mean(-np.log2([pop[i] for i in r[:k]])))],
    "11.q2": [nb11.gini, _np(nb11.gini)],
    "11.q5": [nb11.exposure, _np(nb11.exposure)],
    "12.q2": [nb12.rbp, _np(nb12.rbp)],
    "12.q4": [nb12.ips, lambda c, t, lp: float(np.dot(c, t / lp) / len(c))],
    "12.q6": [nb12.pbm_dcg],
    "12.q8": [
        nb12.doubly_robust,
        lambda c, t, lp, m, q: float(np.mean(q) + np.mean(t / lp * c) - np.mean(t / lp * m)),
    ],
    "13.q2": [nb13.loo_ndcg, lambda r, h, k: 1 / math.log2(r.index(h) + 2) if h in r[:k] else 0.0],
    "15.q2": [nb15.ips_precision, _np(nb15.ips_precision)],
    "08.q3": [nb08.svd_minus_pop(), round(nb08.svd_minus_pop(), 4)],
    "09.q2": [100 * 49 / 999],
    "09.q3": [nb09.first_rank_below_half()],
}


def _is_function_question(q) -> bool:
    return hasattr(q, "function_name") and getattr(q, "function_name", "")


def _named_cases():
    """(qid, label, wrong answer, label it must be named with) for every attached mistake."""
    cases = []
    for qid, q in QUESTIONS.items():
        for mistake in getattr(q, "mistakes", []):
            wrong = (
                mistake.function
                if _is_function_question(q) or isinstance(q, ChoiceQuestion)
                else mistake.function
            )
            answer = wrong if _is_function_question(q) else wrong()
            cases.append(pytest.param(qid, answer, mistake.label, id=f"{qid}: {mistake.label}"))
    return cases


def test_every_exercise_of_07_15_has_a_catalogue():
    missing = [
        qid
        for qid, q in QUESTIONS.items()
        if not isinstance(q, ChoiceQuestion)
        and (qid not in RIGHT or (qid not in EXTRA and qid not in VALUE_WRONG))
    ]
    assert not missing, f"exercises of 07-15 without right and wrong answers in this catalogue: {missing}"
    for qid, q in QUESTIONS.items():
        assert getattr(q, "mistakes", None), f"{qid} has no attached mistake to name"


@pytest.mark.parametrize("qid, answer, label", _named_cases())
def test_each_attached_mistake_is_separated_from_the_right_answer_and_named(qid, answer, label):
    result = QUESTIONS[qid].check(answer)
    assert result.outcome == INCORRECT, f"{qid} accepts the mistake {label!r}"
    assert result.mistake == label, f"{qid}: the mistake {label!r} is rejected but named {result.mistake!r}"


@pytest.mark.parametrize(
    "qid, name, answer",
    [pytest.param(qid, name, f, id=f"{qid}: {name}") for qid, wrongs in EXTRA.items() for name, f in wrongs]
    + [
        pytest.param(qid, repr(v), v, id=f"{qid}: {v!r}")
        for qid, values in VALUE_WRONG.items()
        for v in values
    ],
)
def test_other_plausible_wrong_answers_are_rejected(qid, name, answer):
    result = QUESTIONS[qid].check(answer)
    assert result.outcome == INCORRECT, f"{qid} accepts the wrong answer {name!r}"


@pytest.mark.parametrize(
    "qid, index, answer",
    [
        pytest.param(qid, i, f, id=f"{qid}: right #{i}")
        for qid, rights in RIGHT.items()
        for i, f in enumerate(rights)
    ],
)
def test_right_answers_pass(qid, index, answer):
    result = QUESTIONS[qid].check(answer)
    assert result.outcome == CORRECT, f"{qid} rejects right answer #{index}: {result.message}"


@pytest.mark.parametrize("qid", [q for q, v in QUESTIONS.items() if isinstance(v, ChoiceQuestion)])
def test_choice_questions_accept_only_the_right_letter(qid):
    q = QUESTIONS[qid]
    right = [letter for letter in "abcdef" if q.check(letter).outcome == CORRECT]
    assert len(right) == 1, f"{qid}: letters accepted {right}"
    for mistake in q.mistakes:
        assert q.check(mistake.function()).outcome == INCORRECT
