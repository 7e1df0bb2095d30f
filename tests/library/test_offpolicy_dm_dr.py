"""topkeval.offpolicy.direct_method and doubly_robust against naive loops and a simulated bandit.

The oracle is written from Dudík, Langford and Li (ICML 2011), one event at a time. The simulation draws
many logs from a three-action world whose true value is known, and checks the doubly robust property:
DR is unbiased with the right propensities and a wrong model, and with a right model and wrong
propensities; DM is biased by exactly its model's error; DR with both wrong is biased.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from topkeval import InvalidInputError
from topkeval.offpolicy import direct_method, doubly_robust, ips


def naive_dr(rewards, target, logging, predicted, predicted_target):
    terms = [
        q + (t / p) * (r - m)
        for r, t, p, m, q in zip(rewards, target, logging, predicted, predicted_target, strict=True)
    ]
    n = len(terms)
    mean = sum(terms) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in terms) / (n - 1))
    return mean, sd / math.sqrt(n)


def test_dr_and_dm_match_the_naive_loop():
    rng = np.random.default_rng(3)
    n = 40
    rewards = (rng.random(n) < 0.4).astype(float)
    target, logging = rng.random(n), rng.uniform(0.05, 1, n)
    predicted, predicted_target = rng.random(n), rng.random(n)
    result = doubly_robust(rewards, target, logging, predicted, predicted_target)
    mean, se = naive_dr(rewards, target, logging, predicted, predicted_target)
    assert result.estimate == pytest.approx(mean) and result.standard_error == pytest.approx(se)
    assert result.low == pytest.approx(mean - 1.959963984540054 * se) and result.estimator == "DR"
    assert result.max_weight == pytest.approx(max(target / logging))
    dm = direct_method(predicted_target)
    assert dm.estimate == pytest.approx(sum(predicted_target) / n) and dm.effective_n == pytest.approx(n)
    # a model that predicts 0 everywhere turns DR into IPS
    zero = doubly_robust(rewards, target, logging, np.zeros(n), np.zeros(n))
    assert zero.estimate == pytest.approx(ips(rewards, target, logging).estimate)


# ---------------------------------------------------------------- a world with a known value
P_CLICK = np.array([0.6, 0.3, 0.1])  # true reward probability of each action (one context type)
LOGGING = np.array([0.1, 0.3, 0.6])  # the logging policy favours the worst action
TARGET = np.array([0.8, 0.1, 0.1])  # the new policy favours the best
TRUTH = float(TARGET @ P_CLICK)


def _mean_estimates(model, logging_assumed, n_logs=2000, n=200, seed=0):
    """Mean over many logs of (DM, DR) with a reward model and assumed logging propensities."""
    rng = np.random.default_rng(seed)
    actions = rng.choice(3, p=LOGGING, size=(n_logs, n))
    rewards = (rng.random((n_logs, n)) < P_CLICK[actions]).astype(float)
    weights = TARGET[actions] / logging_assumed[actions]
    model_target = float(TARGET @ model)
    dr = (model_target + weights * (rewards - model[actions])).mean(axis=1)
    one = doubly_robust(
        rewards[0],
        TARGET[actions[0]],
        logging_assumed[actions[0]],
        model[actions[0]],
        np.full(n, model_target),
    )
    assert one.estimate == pytest.approx(dr[0])  # the library agrees with the vectorised oracle on a log
    return model_target, float(dr.mean()), float(dr.std(ddof=1) / math.sqrt(n_logs))


def test_doubly_robust_with_right_propensities_and_a_wrong_model_is_unbiased():
    wrong_model = np.array([0.2, 0.5, 0.4])
    dm, dr, se = _mean_estimates(wrong_model, LOGGING)
    assert abs(dm - TRUTH) > 0.2  # the direct method carries the model's error
    assert abs(dr - TRUTH) < 4 * se


def test_doubly_robust_with_a_right_model_and_wrong_propensities_is_unbiased():
    wrong_logging = np.array([0.3, 0.3, 0.4])
    dm, dr, se = _mean_estimates(P_CLICK, wrong_logging)
    assert dm == pytest.approx(TRUTH)
    assert abs(dr - TRUTH) < 4 * se


def test_doubly_robust_with_both_wrong_is_biased():
    dm, dr, se = _mean_estimates(np.array([0.2, 0.5, 0.4]), np.array([0.3, 0.3, 0.4]))
    assert abs(dr - TRUTH) > 10 * se


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: direct_method([0.5]), "at least 2 events"),
        (lambda: direct_method([0.5, float("nan")]), "NaN"),
        (lambda: doubly_robust([1, 0], [1, 0], [0.5, 0.5], [0.5], [0.5, 0.5]), "predicted_reward needs one"),
        (lambda: doubly_robust([1, 0], [1, 0], [0.5, 0.5], [0.5, 0.5], [0.5]), "predicted_target_reward"),
        (lambda: doubly_robust([1, 0], [1, 0], [0.0, 0.5], [0.5, 0.5], [0.5, 0.5]), "> 0"),
    ],
)
def test_bad_input_is_named(call, message):
    with pytest.raises(InvalidInputError, match=message):
        call()
