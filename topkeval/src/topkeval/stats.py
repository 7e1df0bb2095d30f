"""Uncertainty for offline evaluation: bootstrap intervals and paired tests over users.

A metric such as NDCG@10 is a mean over users, so it comes with sampling
noise: another set of users would give another number. The tools here put
numbers on that noise, using the per-user scores that
:func:`topkeval.evaluate` returns (one row per user):

- :func:`bootstrap_ci`: a percentile bootstrap interval for one model's mean;
- :func:`paired_bootstrap_ci`: the same for the difference between two
  models scored on the same users;
- :func:`permutation_test`: a paired sign-flip test of "no difference";
- :func:`paired_t_test`: the classic paired t-test (no scipy needed);
- :func:`compare`: all of the paired results at once, as one record.

Everything is seeded and returns builtin floats.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._validation import InvalidInputError, check_int, check_number

__all__ = [
    "ConfidenceInterval",
    "PairedComparison",
    "TTestResult",
    "bootstrap_ci",
    "paired_bootstrap_ci",
    "permutation_test",
    "paired_t_test",
    "compare",
    "percentile_interval",
    "sign_flip_p_value",
]

_CHUNK = 256


@dataclass(frozen=True)
class ConfidenceInterval:
    """A point estimate with a bootstrap interval."""

    estimate: float
    low: float
    high: float
    confidence: float
    n: int
    n_resamples: int

    def __str__(self) -> str:
        return f"{self.estimate:.4f} ({self.confidence:.0%} CI {self.low:.4f} to {self.high:.4f}, n={self.n})"


@dataclass(frozen=True)
class TTestResult:
    """Paired t-test: statistic, degrees of freedom and two-sided p-value."""

    t: float
    df: int
    p_value: float


@dataclass(frozen=True)
class PairedComparison:
    """Model A versus model B on the same users (difference = A - B)."""

    mean_a: float
    mean_b: float
    difference: float
    low: float
    high: float
    confidence: float
    p_value: float
    n: int
    wins: int
    losses: int
    ties: int

    def __str__(self) -> str:
        return (
            f"A - B = {self.difference:+.4f} ({self.confidence:.0%} CI {self.low:+.4f} to {self.high:+.4f}), "
            f"permutation p = {self.p_value:.4f}, n={self.n} users (A better for {self.wins}, "
            f"B better for {self.losses}, equal for {self.ties})"
        )


# ------------------------------------------------------------------ inputs
def _values(values, name: str = "values") -> np.ndarray:
    array = np.asarray(
        values.to_numpy() if isinstance(values, (pd.Series, pd.Index)) else values, dtype=np.float64
    )
    if array.ndim != 1:
        raise InvalidInputError(
            f"{name} must be one number per user (1-D); got shape {array.shape}. Pick one column."
        )
    if array.size < 2:
        raise InvalidInputError(f"{name} needs at least 2 users to measure uncertainty; got {array.size}.")
    if not np.isfinite(array).all():
        raise InvalidInputError(
            f"{name} has NaN or infinite values; drop those users first (e.g. evaluate(..., empty='skip'))."
        )
    return array


def _paired(a, b) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(a, pd.Series) and isinstance(b, pd.Series):
        if not a.index.is_unique or not b.index.is_unique:
            raise InvalidInputError("a and b must have one value per user (their indexes have repeats).")
        if set(a.index) != set(b.index):
            only_a, only_b = a.index.difference(b.index), b.index.difference(a.index)
            raise InvalidInputError(
                f"a and b must score the same users for a paired comparison; {len(only_a)} user(s) only in a, "
                f"{len(only_b)} only in b. Evaluate both models on the same test users."
            )
        b = b.reindex(a.index)
    a, b = _values(a, "a"), _values(b, "b")
    if a.size != b.size:
        raise InvalidInputError(
            f"a and b must have one value per user each, for the same users; got {a.size} and {b.size}."
        )
    return a, b


def _check_confidence(confidence: float) -> float:
    return check_number(confidence, "confidence (e.g. 0.95)", 0, 1, low_open=True, high_open=True)


def _check_resamples(n_resamples: int) -> int:
    return check_int(n_resamples, "n_resamples", 100, " (thousands are usual)")


def _bootstrap_means(values: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = values.size
    means = np.empty(n_resamples)
    for start in range(0, n_resamples, _CHUNK):
        stop = min(start + _CHUNK, n_resamples)
        picks = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = values[picks].mean(axis=1)
    return means


# ------------------------------------------------------------------ public
def percentile_interval(samples, confidence: float = 0.95) -> tuple[float, float]:
    """The central ``confidence`` interval of resampled statistics: two quantiles.

    Parameters
    ----------
    samples : array-like
        Resampled means (or any statistic), e.g. from a bootstrap.
    confidence : float
        E.g. 0.95 cuts 2.5 % off each tail.

    Returns
    -------
    (low, high) : tuple of float
        ``numpy.quantile`` (linear interpolation) at ``(1 - confidence) / 2``
        and ``(1 + confidence) / 2``.

    Examples
    --------
    >>> from topkeval.stats import percentile_interval
    >>> percentile_interval(range(101), confidence=0.9)
    (5.0, 95.0)
    """
    x = np.asarray(samples, dtype=np.float64)
    if x.ndim != 1 or x.size == 0 or not np.isfinite(x).all():
        raise InvalidInputError("samples must be a non-empty 1-D sequence of finite numbers.")
    confidence = _check_confidence(confidence)
    tail = (1 - confidence) / 2
    low, high = np.quantile(x, [tail, 1 - tail])
    return float(low), float(high)


def sign_flip_p_value(differences, signs) -> float:
    """Two-sided sign-flip p-value for given per-user differences and sign draws.

    Parameters
    ----------
    differences : array-like, shape (n,)
        ``a_u - b_u`` per user.
    signs : array-like, shape (B, n)
        Each row a random draw of +1/-1 per user.

    Returns
    -------
    float
        ``(1 + #{rows with |mean(signs * d)| >= |mean(d)|}) / (1 + B)``.

    Examples
    --------
    >>> from topkeval.stats import sign_flip_p_value
    >>> sign_flip_p_value([1.0, 1.0], [[1, 1], [1, -1], [-1, 1], [-1, -1]])  # 2 of 4 as extreme
    0.6
    """
    d = np.asarray(differences, dtype=np.float64)
    flips = np.asarray(signs, dtype=np.float64)
    if d.ndim != 1 or flips.ndim != 2 or flips.shape[1] != d.size:
        raise InvalidInputError(
            f"signs must have shape (B, n) with n = len(differences) = {d.size}; got {flips.shape}."
        )
    return float((1 + _count_extreme(d, flips)) / (1 + flips.shape[0]))


def _count_extreme(d: np.ndarray, signs: np.ndarray) -> int:
    """How many sign draws give a mean difference at least as far from 0 as the observed one."""
    observed = abs(d.mean())
    tolerance = 1e-12 * max(1.0, observed)
    return int((np.abs(signs @ d / d.size) >= observed - tolerance).sum())


def bootstrap_ci(
    values, *, confidence: float = 0.95, n_resamples: int = 2000, seed: int = 0
) -> ConfidenceInterval:
    """Percentile bootstrap confidence interval for a mean over users.

    Parameters
    ----------
    values : array-like or pandas.Series
        One score per user, e.g. ``evaluate(...)["ndcg@10"]``.
    confidence : float
        Coverage of the interval, e.g. 0.95.
    n_resamples : int
        Bootstrap resamples (users drawn with replacement, same count).
    seed : int
        Seed of the resampling.

    Returns
    -------
    ConfidenceInterval
        ``estimate`` (the plain mean), ``low``, ``high`` and the settings.

    Notes
    -----
    The interval is the ``(1 - confidence) / 2`` and ``(1 + confidence) / 2``
    quantiles of the resampled means (numpy's default linear
    interpolation). It treats users as the random sample; it says nothing
    about the variation from retraining a model with another seed.

    Examples
    --------
    >>> from topkeval.stats import bootstrap_ci
    >>> ci = bootstrap_ci([0.0, 1.0] * 50, seed=0)
    >>> ci.estimate
    0.5
    >>> 0.39 < ci.low < 0.45 and 0.55 < ci.high < 0.61   # about 0.5 -/+ 1.96 * 0.05
    True
    """
    x = _values(values)
    confidence = _check_confidence(confidence)
    n_resamples = _check_resamples(n_resamples)
    means = _bootstrap_means(x, n_resamples, seed)
    low, high = percentile_interval(means, confidence)
    return ConfidenceInterval(float(x.mean()), low, high, confidence, int(x.size), n_resamples)


def paired_bootstrap_ci(
    a, b, *, confidence: float = 0.95, n_resamples: int = 2000, seed: int = 0
) -> ConfidenceInterval:
    """Bootstrap interval for mean(a - b) when both models score the same users.

    The users are resampled together, so what is common to both models (easy
    and hard users) cancels out; the interval is usually much narrower than
    the two separate intervals suggest.

    Parameters
    ----------
    a, b : array-like or pandas.Series
        Per-user scores of model A and model B. Series are matched by index
        (user id); arrays by position.
    confidence : float
        The interval's coverage, in (0, 1).
    n_resamples : int
        Bootstrap resamples of the users.
    seed : int
        Seed of the random generator (the same seed gives the same interval).

    Returns
    -------
    ConfidenceInterval
        The mean difference ``A - B`` and its interval (``low``, ``high``).

    Examples
    --------
    >>> from topkeval.stats import paired_bootstrap_ci
    >>> a = [0.5, 0.6, 0.7, 0.8]
    >>> paired_bootstrap_ci(a, [x - 0.1 for x in a]).low  # every user gains exactly 0.1
    0.1
    """
    x, y = _paired(a, b)
    return bootstrap_ci(x - y, confidence=confidence, n_resamples=n_resamples, seed=seed)


def permutation_test(a, b, *, n_resamples: int = 10000, seed: int = 0) -> float:
    """Two-sided paired permutation (sign-flip) test of "A and B are equally good".

    Under the null hypothesis each user's difference ``a_u - b_u`` is as
    likely to have either sign, so the labels A and B are swapped at random
    per user and the mean difference recomputed.

    Parameters
    ----------
    a, b : array-like or pandas.Series
        Per-user scores of the two models on the same users.
    n_resamples : int
        Random sign flips.
    seed : int
        Seed of the random generator.

    Returns
    -------
    float
        ``(1 + #{|resampled mean| >= |observed mean|}) / (1 + n_resamples)``:
        never 0, so it is a valid p-value (Phipson and Smyth, 2010).

    Examples
    --------
    >>> from topkeval.stats import permutation_test
    >>> permutation_test([1.0] * 30, [0.0] * 30, n_resamples=999)   # all 30 users favour A
    0.001
    >>> permutation_test([0.3, 0.2], [0.3, 0.2], n_resamples=999)   # no difference at all
    1.0
    """
    x, y = _paired(a, b)
    n_resamples = _check_resamples(n_resamples)
    d = x - y
    rng = np.random.default_rng(seed)
    extreme = 0
    for start in range(0, n_resamples, _CHUNK):
        stop = min(start + _CHUNK, n_resamples)
        signs = rng.integers(0, 2, size=(stop - start, d.size)) * 2 - 1
        extreme += _count_extreme(d, signs.astype(np.float64))
    return float((1 + extreme) / (1 + n_resamples))


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        for numerator in (
            m * (b - m) * x / ((a + m2 - 1) * (a + m2)),
            -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def _regularized_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularized incomplete beta function."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1) / (a + b + 2):
        return math.exp(log_front) * _betacf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _betacf(b, a, 1 - x) / b


def paired_t_test(a, b) -> TTestResult:
    """Paired t-test on per-user differences, two-sided.

    ``t = mean(d) / (sd(d) / sqrt(n))`` with ``d = a - b`` and ``sd`` the
    sample standard deviation (ddof=1); the p-value comes from Student's t
    distribution with ``n - 1`` degrees of freedom, computed here through
    the incomplete beta function.

    Notes
    -----
    If every difference is equal: all zero gives ``t = 0, p = 1``; a
    constant non-zero difference gives ``t = +/-inf, p = 0``. Per-user
    metric differences are far from normal (many are exactly 0); with
    hundreds of users the t-test is still a fair approximation, and
    :func:`permutation_test` needs no such assumption.

    Parameters
    ----------
    a, b : array-like of float
        The two models' per-user scores, aligned user by user.

    Returns
    -------
    TTestResult
        The mean difference, t statistic, degrees of freedom and two-sided p-value.

    Examples
    --------
    >>> from topkeval.stats import paired_t_test
    >>> result = paired_t_test([3.0, 4.0, 5.0, 6.0], [1.0, 3.0, 2.0, 5.0])  # d = 2, 1, 3, 1
    >>> round(result.t, 4), result.df, round(result.p_value, 4)
    (3.6556, 3, 0.0354)
    """
    x, y = _paired(a, b)
    d = x - y
    n = d.size
    mean, sd = float(d.mean()), float(d.std(ddof=1))
    if sd == 0.0:
        if mean == 0.0:
            return TTestResult(0.0, n - 1, 1.0)
        return TTestResult(math.copysign(math.inf, mean), n - 1, 0.0)
    t = mean / (sd / math.sqrt(n))
    df = n - 1
    p = _regularized_beta(df / 2.0, 0.5, df / (df + t * t))
    return TTestResult(float(t), int(df), float(min(1.0, max(0.0, p))))


def compare(
    a, b, *, confidence: float = 0.95, n_resamples: int = 2000, n_permutations: int = 10000, seed: int = 0
) -> PairedComparison:
    """Everything needed to say "A beats B by x (95% CI ...)", for one metric.

    Parameters
    ----------
    a, b : array-like or pandas.Series
        Per-user scores of the two models on the same users.
    confidence : float
        The bootstrap interval's coverage, in (0, 1).
    n_resamples, n_permutations : int
        Bootstrap resamples and permutation sign flips.
    seed : int
        Seed of the random generator.

    Returns
    -------
    PairedComparison
        The two means, their difference ``A - B`` with a paired bootstrap
        interval, the sign-flip permutation p-value and how many users each
        model wins, loses or ties.

    Examples
    --------
    >>> from topkeval.stats import compare
    >>> result = compare([1.0, 0.5, 0.0, 1.0], [0.5, 0.5, 0.0, 0.0], n_permutations=999)
    >>> result.difference, result.wins, result.losses, result.ties
    (0.375, 2, 0, 2)
    """
    x, y = _paired(a, b)
    ci = bootstrap_ci(x - y, confidence=confidence, n_resamples=n_resamples, seed=seed)
    p = permutation_test(x, y, n_resamples=n_permutations, seed=seed)
    d = x - y
    return PairedComparison(
        mean_a=float(x.mean()),
        mean_b=float(y.mean()),
        difference=ci.estimate,
        low=ci.low,
        high=ci.high,
        confidence=ci.confidence,
        p_value=p,
        n=int(d.size),
        wins=int((d > 0).sum()),
        losses=int((d < 0).sum()),
        ties=int((d == 0).sum()),
    )
