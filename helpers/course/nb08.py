"""Exercises of ``notebooks/08-evaluating-a-recommender.ipynb``.

q1 and q2 rebuild two pieces of :mod:`topkeval.stats` (the percentile
interval of a bootstrap and the sign-flip p-value); q3 reads a paired
difference off the notebook's own evaluation, which this module recomputes
with the same seeded data, split and models (once, on first use).
"""

from __future__ import annotations

import functools
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd

from helpers import evaluate as _evaluate
from helpers.checking.questions import FunctionQuestion, Mistake, ValueQuestion
from helpers.experiments.data import synthetic_interactions as _synthetic
from helpers.experiments.models import EASE, ItemKNN, MostPopular, PureSVD, RandomRecommender
from topkeval import stats as _stats
from topkeval.splits import temporal_split as _temporal_split

__all__ = [
    "q1",
    "q2",
    "q3",
    "percentile_interval",
    "sign_flip_p_value",
    "svd_minus_pop",
    "notebook_scores",
    "observed_power_simulation",
    "power_from_p",
]

#: The notebook's set-up, in one place.
DATA: dict[str, Any] = {"n_users": 1500, "n_items": 1000, "taste_strength": 3.0, "seed": 42}
TEST_FRACTION = 0.2
KS = (5, 10, 20)


@functools.lru_cache(maxsize=1)
def notebook_scores() -> dict:
    """Per-user scores of the notebook's five models (same data, split, models and cutoffs).

    Fits Random, MostPopular, ItemKNN, EASE and PureSVD on the notebook's synthetic log and
    evaluates each at the notebook's cutoffs; computed once per session (it takes seconds).

    Returns
    -------
    dict
        Model name -> its per-user table from :func:`helpers.evaluate` (one row per test user,
        the same users in every table, so differences can be paired).
    """
    log = _synthetic(**DATA)
    train, test = _temporal_split(log, test_fraction=TEST_FRACTION)
    users = np.sort(test["user"].unique())
    candidates = {
        "Random": RandomRecommender(seed=0),
        "MostPopular": MostPopular(),
        "ItemKNN": ItemKNN(n_neighbors=100),
        "EASE": EASE(l2=100.0),
        "PureSVD": PureSVD(n_factors=32),
    }
    return {
        name: _evaluate(model.fit(train).recommend(users, k=max(KS)), test, k=list(KS))
        for name, model in candidates.items()
    }


# ---------------------------------------------------------------- q1
def percentile_interval(samples, confidence):
    """Central interval: cut (1 - confidence) / 2 off each tail.

    Parameters
    ----------
    samples : array_like of float
        The bootstrap means (or any samples).
    confidence : float
        The share of the samples the interval holds, in (0, 1).

    Returns
    -------
    tuple of float
        ``(low, high)``, quantiles by NumPy's default (linear) definition.

    Examples
    --------
    >>> percentile_interval([1, 2, 3, 4, 5], 0.5)
    (2.0, 4.0)
    """
    tail = (1 - confidence) / 2
    low, high = np.quantile(samples, [tail, 1 - tail])
    return float(low), float(high)


_SKEWED = [0.0, 0.0, 0.1, 0.1, 0.2, 0.3, 0.3, 0.4, 0.6, 0.9, 1.4, 2.2]
_EVEN = [float(i) for i in range(21)]

q1 = FunctionQuestion(
    id="08.q1",
    title="the percentile interval of bootstrap means",
    function_name="percentile_interval",
    reference=lambda samples, confidence: _stats.percentile_interval(samples, confidence),
    cases=[(_EVEN, 0.9), (_EVEN, 0.5), (_SKEWED, 0.95), (_SKEWED, 0.8)],
    hints=[
        "A 95% interval leaves 2.5% of the samples below it and 2.5% above it.",
        "np.quantile(samples, [tail, 1 - tail]) with tail = (1 - confidence) / 2; "
        "return a tuple of two floats.",
    ],
    solution_code=percentile_interval,
    mistakes=[
        Mistake(
            "whole tail on each side",
            "Quantiles at 1 - confidence and confidence cut 5% off each end of a 95% interval: that is a "
            "90% interval. Split the leftover (1 - confidence) between the two tails.",
            lambda samples, confidence: tuple(
                float(v) for v in np.quantile(samples, [1 - confidence, confidence])
            ),
        ),
        Mistake(
            "normal approximation",
            "mean -/+ 1.96 standard deviations assumes a symmetric, normal spread and a 95% level; the "
            "percentile interval reads the quantiles of the samples themselves.",
            lambda samples, confidence: (
                float(np.mean(samples) - 1.96 * np.std(samples)),
                float(np.mean(samples) + 1.96 * np.std(samples)),
            ),
        ),
        Mistake(
            "percentiles given as fractions",
            "np.percentile expects 0-100: np.percentile(samples, [2.5, 97.5]), or use np.quantile with "
            "fractions.",
            lambda samples, confidence: tuple(
                float(v) for v in np.percentile(samples, [(1 - confidence) / 2, 1 - (1 - confidence) / 2])
            ),
        ),
        Mistake(
            "another quantile definition",
            'The exercise asks for numpy.quantile\'s default definition (method="linear"), which '
            'interpolates between neighbouring samples; method="nearest" (or "lower", "higher") '
            "is a defensible interval too, but on a dozen samples it lands on other values. Drop the "
            "method argument.",
            lambda samples, confidence: tuple(
                float(v)
                for v in np.quantile(
                    samples, [(1 - confidence) / 2, 1 - (1 - confidence) / 2], method="nearest"
                )
            ),
        ),
    ],
)


# ---------------------------------------------------------------- q2
def sign_flip_p_value(differences, signs):
    """(1 + number of sign draws at least as extreme as the data) / (1 + number of draws).

    The paired permutation test: if two models were interchangeable, each user's difference
    would be as likely with either sign. The "+ 1" counts the observed data as one of the
    draws, so the p-value is never 0.

    Parameters
    ----------
    differences : array_like of float
        Per-user differences between two models' scores.
    signs : array_like of {-1, 1}
        One row of signs per draw, one column per user.

    Returns
    -------
    float
        The two-sided p-value of the mean difference.

    Examples
    --------
    >>> float(sign_flip_p_value([0.1, 0.2, -0.05], [[1, 1, 1], [-1, 1, 1], [1, -1, -1], [-1, -1, 1]]))
    0.6
    """
    d = np.asarray(differences, dtype=float)
    s = np.asarray(signs, dtype=float)
    observed = abs(d.mean())
    flipped = np.abs((s * d).mean(axis=1))
    extreme = np.count_nonzero(flipped >= observed - 1e-12)
    return (1 + extreme) / (1 + len(s))


_SIGNS = [
    [1, 1, 1, 1],
    [1, -1, 1, -1],
    [-1, -1, -1, -1],
    [-1, 1, 1, 1],
    [1, 1, -1, 1],
    [-1, -1, 1, -1],
    [1, -1, -1, -1],
]

#: Five users, one large difference and four small ones: the mean and the median disagree.
_SKEWED_D = [0.8, 0.1, -0.1, 0.05, -0.05]
_SIGNS5 = [
    [1, 1, 1, 1, 1],
    [-1, 1, 1, 1, 1],
    [1, -1, 1, -1, 1],
    [-1, -1, 1, 1, -1],
    [1, 1, -1, -1, -1],
    [-1, 1, -1, 1, 1],
    [1, -1, -1, 1, -1],
    [-1, -1, -1, -1, 1],
]


def _median_p_value(d, s):
    """The mistake: the sign-flip test on the median instead of the mean."""
    flipped = np.abs(np.median(np.asarray(s) * np.asarray(d), axis=1))
    return (1 + np.count_nonzero(flipped >= abs(np.median(d)) - 1e-12)) / (1 + len(s))


q2 = FunctionQuestion(
    id="08.q2",
    title="the sign-flip permutation p-value",
    function_name="sign_flip_p_value",
    reference=lambda differences, signs: _stats.sign_flip_p_value(differences, signs),
    cases=[
        ([0.3, 0.1, 0.2, 0.4], _SIGNS),
        ([0.5, -0.1, 0.0, 0.2], _SIGNS),
        ([0.0, 0.0, 0.0, 0.0], _SIGNS[:3]),
        ([-0.2, -0.3, 0.1, -0.4], _SIGNS),
        (_SKEWED_D, _SIGNS5),  # the median (0.05) and the mean (0.16) give different p-values
    ],
    hints=[
        "Each row of signs is one draw: multiply it with the differences, take the mean, and compare its "
        "absolute value with the absolute value of the observed mean.",
        "Count the rows with |mean(s * d)| >= |mean(d)| (allow for rounding, e.g. subtract 1e-12), then "
        "return (1 + count) / (1 + number of rows).",
    ],
    solution_code=sign_flip_p_value,
    mistakes=[
        Mistake(
            "no +1 correction",
            "count / B can be exactly 0, which no finite test can justify; the observed data is itself one "
            "possible draw, hence (1 + count) / (1 + B).",
            lambda d, s: float(
                np.count_nonzero(
                    np.abs((np.asarray(s) * np.asarray(d)).mean(axis=1)) >= abs(np.mean(d)) - 1e-12
                )
                / len(s)
            ),
        ),
        Mistake(
            "one-sided test",
            "Comparing signed means only counts draws in the observed direction; 'is there a difference?' is "
            "two-sided, so compare absolute values.",
            lambda d, s: (
                (1 + np.count_nonzero((np.asarray(s) * np.asarray(d)).mean(axis=1) >= np.mean(d) - 1e-12))
                / (1 + len(s))
            ),
        ),
        Mistake(
            "strict inequality",
            "A draw exactly as extreme as the data counts (>=, not >): the all-plus row always ties with the "
            "observed mean.",
            lambda d, s: (
                (
                    1
                    + np.count_nonzero(
                        np.abs((np.asarray(s) * np.asarray(d)).mean(axis=1)) > abs(np.mean(d)) + 1e-12
                    )
                )
                / (1 + len(s))
            ),
        ),
        Mistake(
            "the median instead of the mean",
            "The test statistic is the mean difference (the quantity the verdict reports); the median of "
            "the flipped differences is a different test, and ignores how large the large differences are.",
            _median_p_value,
        ),
    ],
)


# ---------------------------------------------------------------- q3
def svd_minus_pop():
    """In the notebook: (scores["PureSVD"]["ndcg@10"] - scores["MostPopular"]["ndcg@10"]).mean().

    The value of question 08.q3, from :func:`notebook_scores` (so it takes seconds the first
    time).

    Returns
    -------
    float
        The mean per-user NDCG@10 difference of PureSVD over MostPopular.
    """
    scores = notebook_scores()
    return float((scores["PureSVD"]["ndcg@10"] - scores["MostPopular"]["ndcg@10"]).mean())


def _difference(a, b, column):
    scores = notebook_scores()
    return _stats.compare(
        scores[a][column], scores[b][column], n_resamples=200, n_permutations=200
    ).difference


q3 = ValueQuestion(
    id="08.q3",
    title="a paired difference: PureSVD minus MostPopular on NDCG@10",
    prompt="the mean per-user NDCG@10 of PureSVD minus that of MostPopular, to 4 decimals (or unrounded)",
    reference=lambda: _difference("PureSVD", "MostPopular", "ndcg@10"),
    decimals=4,
    hints=[
        "scores[name] has one row per user and a column 'ndcg@10'.",
        "Subtract the two columns (the users line up) and take .mean(); PureSVD first.",
    ],
    solution_code=svd_minus_pop,
    mistakes=[
        Mistake(
            "ratio instead of difference",
            "Dividing the two means says how many times better PureSVD is; the question asks for the "
            "difference (PureSVD minus MostPopular).",
            lambda: float(
                notebook_scores()["PureSVD"]["ndcg@10"].mean()
                / notebook_scores()["MostPopular"]["ndcg@10"].mean()
            ),
        ),
        Mistake(
            "wrong cutoff (K = 5)",
            "That is the NDCG@5 difference; use the 'ndcg@10' column.",
            lambda: _difference("PureSVD", "MostPopular", "ndcg@5"),
        ),
        Mistake(
            "hit ratio instead of NDCG",
            "That is the HR@10 difference; use the 'ndcg@10' column.",
            lambda: _difference("PureSVD", "MostPopular", "hit@10"),
        ),
    ],
)


# ---------------------------------------------------------------- section 8: observed power
_NORMAL = NormalDist()


def power_from_p(p_value: float, alpha: float = 0.05) -> float:
    """The "observed power" of a two-sided z-test, written as a function of its p-value alone.

    ``|z| = Phi^-1(1 - p/2)``; the power at the observed difference is
    ``Phi(|z| - z_crit) + Phi(-|z| - z_crit)`` with ``z_crit = Phi^-1(1 - alpha/2)``. Since it
    depends on p only, it adds nothing to the p-value: the point notebook 08 makes.

    Parameters
    ----------
    p_value : float
        The test's two-sided p-value, in (0, 1].
    alpha : float, default 0.05
        The test's level.

    Returns
    -------
    float
        The power the test would have if the true difference were the observed one.

    Examples
    --------
    >>> round(power_from_p(0.05), 4)   # a study that lands exactly on the threshold: observed power 1/2
    0.5
    """
    z = _NORMAL.inv_cdf(1.0 - p_value / 2.0)
    crit = _NORMAL.inv_cdf(1.0 - alpha / 2.0)
    return _NORMAL.cdf(z - crit) + _NORMAL.cdf(-z - crit)


def observed_power_simulation(
    effects=(0.0, 0.0066, 0.0132, 0.0264),
    *,
    sd: float = 0.137,
    n: int = 622,
    n_studies: int = 2000,
    alpha: float = 0.05,
    seed: int = 0,
) -> pd.DataFrame:
    """Simulated paired studies: each one's p-value and its "observed power" (at its observed difference).

    For each true effect, ``n_studies`` studies of ``n`` users each draw per-user differences from a
    normal distribution with that mean and standard deviation ``sd`` (notebook 08's ItemKNN - EASE has
    sd 0.137 over 622 users), and run a two-sided z-test with the sample standard deviation.

    Parameters
    ----------
    effects : sequence of float
        The true mean differences simulated.
    sd : float
        The per-user standard deviation of the difference.
    n : int
        Users per study.
    n_studies : int
        Studies per effect.
    alpha : float
        The tests' level.
    seed : int
        Seed of the random generator (the same seed gives the same studies).

    Returns
    -------
    pandas.DataFrame
        One row per study: ``effect``, ``true power`` (of the design, at the true effect), ``p``
        and ``observed power``.

    Examples
    --------
    >>> studies = observed_power_simulation((0.0, 0.02), n=50, n_studies=100)
    >>> studies.shape, round(float(studies.groupby("effect")["true power"].first().iloc[0]), 3)
    ((200, 4), 0.05)
    """
    rng = np.random.default_rng(seed)
    crit = _NORMAL.inv_cdf(1.0 - alpha / 2.0)
    frames = []
    for effect in effects:
        users = rng.normal(effect, sd, size=(n_studies, n))
        z = np.abs(users.mean(axis=1) / (users.std(axis=1, ddof=1) / np.sqrt(n)))
        shift = effect * np.sqrt(n) / sd
        frames.append(
            pd.DataFrame(
                {
                    "effect": effect,
                    "true power": _NORMAL.cdf(shift - crit) + _NORMAL.cdf(-shift - crit),
                    "p": [2.0 * (1.0 - _NORMAL.cdf(v)) for v in z],
                    "observed power": [_NORMAL.cdf(v - crit) + _NORMAL.cdf(-v - crit) for v in z],
                }
            )
        )
    return pd.concat(frames, ignore_index=True)
