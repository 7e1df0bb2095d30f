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
- :func:`compare`: all of the paired results at once, as one record;
- :func:`verdict`: the same comparison turned into a sentence that says
  "ahead" only when the data support it, with the smallest difference the
  sample could have detected; :func:`verdicts` does it for a family of
  comparisons with Holm-adjusted p-values (:func:`holm`);
- :func:`minimum_detectable_effect` and :func:`users_needed`: power analysis
  for a paired comparison (how small a difference n users can detect, how
  many users a given difference needs);
- :func:`format_p_value`: a permutation p-value as text, ``p < 1/(B+1)``
  when no resample was as extreme.

Everything is seeded and returns builtin floats.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from statistics import NormalDist

import numpy as np
import pandas as pd

from ._validation import (
    Constraint,
    InputTypeError,
    Integer,
    InvalidInputError,
    Maybe,
    Real,
    Text,
    validate_params,
)

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
    "Verdict",
    "verdict",
    "verdicts",
    "holm",
    "minimum_detectable_effect",
    "users_needed",
    "format_p_value",
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
    n_permutations: int | None = None

    def __str__(self) -> str:
        p_text = format_p_value(self.p_value, self.n_permutations)
        return (
            f"A - B = {self.difference:+.4f} ({self.confidence:.0%} CI {self.low:+.4f} to {self.high:+.4f}), "
            f"permutation {p_text}, n={self.n} users (A better for {self.wins}, "
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
                "a and b must score the same users for a paired comparison; "
                f"{len(only_a)} user(s) only in a, "
                f"{len(only_b)} only in b. Evaluate both models on the same test users."
            )
        b = b.reindex(a.index)
    a, b = _values(a, "a"), _values(b, "b")
    if a.size != b.size:
        raise InvalidInputError(
            f"a and b must have one value per user each, for the same users; got {a.size} and {b.size}."
        )
    return a, b


#: The constraints of the settings the functions below share (declared beside each, by name).
_CONFIDENCE = Real(0, 1, low_open=True, high_open=True, meaning=" (e.g. 0.95)")
_RESAMPLES = Integer(100, " (thousands are usual)")
_SEED = Integer(0, " (the random generator's seed: the same seed gives the same numbers)")
_ALPHA = Real(0, 1, low_open=True, high_open=True, meaning=" (the test's two-sided level, e.g. 0.05)")
_POWER = Real(0, 1, low_open=True, high_open=True, meaning=" (e.g. 0.8)")
_SD = Real(0, meaning=" (the standard deviation of the per-user differences a - b)")
_RESAMPLING: dict[str, Constraint] = {"confidence": _CONFIDENCE, "n_resamples": _RESAMPLES, "seed": _SEED}
_PERMUTATIONS = Integer(1, " (the permutation test's resamples)")
_PLANNING: dict[str, Constraint] = {"alpha": _ALPHA, "power": _POWER}


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
@validate_params({"confidence": _CONFIDENCE})
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


@validate_params(_RESAMPLING)
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
    means = _bootstrap_means(x, n_resamples, seed)
    low, high = percentile_interval(means, confidence)
    return ConfidenceInterval(float(x.mean()), low, high, confidence, int(x.size), n_resamples)


@validate_params(_RESAMPLING)
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


@validate_params({"n_resamples": _RESAMPLES, "seed": _SEED})
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


@validate_params({**_RESAMPLING, "n_permutations": _PERMUTATIONS})
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
        n_permutations=n_permutations,
    )


# ------------------------------------------------------------------ power
def _t_upper_tail(t: float, df: int) -> float:
    """P(T > t) for Student's t with ``df`` degrees of freedom, t >= 0."""
    return 0.5 * _regularized_beta(df / 2.0, 0.5, df / (df + t * t))


def _t_quantile(q: float, df: int) -> float:
    """The ``q`` quantile of Student's t (bisection on the incomplete beta; normal for huge df)."""
    if q < 0.5:
        return -_t_quantile(1.0 - q, df)
    if q == 0.5:
        return 0.0
    if df > 10**7:
        return NormalDist().inv_cdf(q)
    tail = 1.0 - q
    low, high = 0.0, 1.0
    while _t_upper_tail(high, df) > tail:
        low, high = high, 2.0 * high
    for _ in range(100):
        middle = 0.5 * (low + high)
        low, high = (middle, high) if _t_upper_tail(middle, df) > tail else (low, middle)
    return 0.5 * (low + high)


@validate_params({"sd": _SD, "n": Integer(2, " (users scored by both systems)"), **_PLANNING})
def minimum_detectable_effect(sd: float, n: int, *, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest true mean difference a paired comparison of ``n`` users detects with the given power.

    Parameters
    ----------
    sd : float
        Standard deviation of the per-user differences ``a_u - b_u``
        (sample standard deviation, ``ddof=1``), e.g. from a pilot run.
    n : int
        Number of users scored by both systems (at least 2).
    alpha : float
        Two-sided significance level of the test.
    power : float
        Probability of rejecting "no difference" when the true difference
        equals the returned value.

    Returns
    -------
    float
        ``(t[1 - alpha/2, n-1] + t[power, n-1]) * sd / sqrt(n)``, with
        ``t[q, df]`` the quantile of Student's t: the usual approximation to
        the power of the two-sided paired t-test (exact up to the tiny chance
        of rejecting in the wrong direction and the non-centrality of t). For
        large ``n`` it is ``(1.96 + 0.84) * sd / sqrt(n)`` at the defaults.

    Notes
    -----
    The paired standard deviation is what matters, not the spread of either
    system's scores: users that are easy for both cancel out. The effect is
    on the scale of the metric (e.g. NDCG@10 points), two-sided.

    Examples
    --------
    >>> from topkeval.stats import minimum_detectable_effect
    >>> round(minimum_detectable_effect(0.2, 1500), 4)   # 2.80 * 0.2 / sqrt(1500)
    0.0145
    >>> minimum_detectable_effect(0.2, 6000) < minimum_detectable_effect(0.2, 1500) / 1.9
    True
    """
    df = n - 1
    return float((_t_quantile(1.0 - alpha / 2.0, df) + _t_quantile(power, df)) * sd / math.sqrt(n))


@validate_params({"effect": Real(meaning=" (the difference to detect)"), "sd": _SD, **_PLANNING})
def users_needed(effect: float, sd: float, *, alpha: float = 0.05, power: float = 0.8) -> int:
    """How many users a paired comparison needs to detect a true difference of ``effect``.

    Parameters
    ----------
    effect : float
        The true mean difference to detect, on the metric's scale; its sign
        is ignored (the test is two-sided). Must not be 0.
    sd : float
        Standard deviation of the per-user differences (``ddof=1``).
    alpha, power : float
        As in :func:`minimum_detectable_effect`.

    Returns
    -------
    int
        The smallest ``n >= 2`` with
        ``minimum_detectable_effect(sd, n, alpha=alpha, power=power) <= |effect|``.

    Examples
    --------
    >>> from topkeval.stats import users_needed, minimum_detectable_effect
    >>> users_needed(0.0049, 0.22)
    15824
    >>> minimum_detectable_effect(0.22, 15824) <= 0.0049 < minimum_detectable_effect(0.22, 15823)
    True
    """
    effect = abs(effect)
    if effect == 0.0:
        raise InvalidInputError("effect must not be 0: no sample size detects a difference of exactly 0.")
    z = NormalDist().inv_cdf(1.0 - alpha / 2.0) + NormalDist().inv_cdf(power)
    n = max(2, math.ceil((z * sd / effect) ** 2))  # the normal answer; t needs a few more
    while minimum_detectable_effect(sd, n, alpha=alpha, power=power) > effect:
        n += 1
    while n > 2 and minimum_detectable_effect(sd, n - 1, alpha=alpha, power=power) <= effect:
        n -= 1
    return n


# ------------------------------------------------------------------ verdicts
def _ceil_2_digits(x: float) -> float:
    """``x`` rounded up to two significant digits (so that ``p < result`` stays true)."""
    exponent = math.floor(math.log10(x)) - 1
    return math.ceil(round(x / 10.0**exponent, 9)) * 10.0**exponent


@validate_params({"p_value": Real(0, 1), "n_permutations": Maybe(_PERMUTATIONS)})
def format_p_value(p_value: float, n_permutations: int | None = None) -> str:
    """A p-value as text; ``p < 1/(B+1)`` when none of ``B`` permutations was as extreme.

    Parameters
    ----------
    p_value : float
        E.g. from :func:`permutation_test`.
    n_permutations : int, optional
        The ``B`` behind a permutation p-value. Its smallest possible value is
        ``1/(B+1)``: that value says only that the true p-value is below the
        test's resolution, so it is written as an inequality.

    Returns
    -------
    str
        ``"p = 0.0280"`` (four decimals), ``"p = 3.1e-07"`` for small
        p-values of a formula, or ``"p < 0.0001"`` (the bound rounded up to two
        significant digits) for the floor of a permutation test.

    Examples
    --------
    >>> from topkeval.stats import format_p_value
    >>> format_p_value(0.028)
    'p = 0.0280'
    >>> format_p_value(1 / 10001, n_permutations=10000)
    'p < 0.0001'
    >>> format_p_value(0.0004, n_permutations=100000)
    'p = 0.0004'
    """
    p = p_value
    if n_permutations is not None:
        floor = 1.0 / (n_permutations + 1)
        if p <= floor * (1 + 1e-9):
            return f"p < {_ceil_2_digits(floor):g}"
    if p == 0.0 or p >= 0.0001:
        return f"p = {p:.4f}"
    return f"p = {p:.2g}"


def _at_floor(p_value: float, n_permutations: int | None) -> bool:
    """True when a permutation p-value is its test's smallest possible value 1/(B+1), a bound."""
    return n_permutations is not None and p_value <= (1 + 1e-9) / (n_permutations + 1)


def _format_p_bound(p_value: float) -> str:
    """``p ≤ x`` with ``x`` rounded up, for an adjusted p-value computed from a bound."""
    if p_value >= 0.0001:
        return f"p ≤ {math.ceil(round(p_value * 1e4, 9)) / 1e4:.4f}"
    return f"p ≤ {_ceil_2_digits(p_value):g}"


def _holm_bounds(p_values: Sequence[float], floored: Sequence[bool], adjusted: Sequence[float]) -> list[bool]:
    """Which Holm-adjusted p-values are only upper bounds.

    Holm's adjustment never decreases when a p-value grows, so an adjusted value reached
    through a floor p-value (itself a bound) is a bound too, unless a comparison with an
    exact p-value reaches the same value: with the p-values sorted, the ``i``-th adjusted
    value is exact when ``max over exact j <= i of min(1, (m - j) p_(j))`` equals it.
    """
    order = np.argsort(np.asarray(p_values, dtype=np.float64), kind="stable")
    m = len(order)
    exact_max, bound = -1.0, [False] * m
    for position, index in enumerate(order):
        if not floored[index]:
            exact_max = max(exact_max, min(1.0, (m - position) * p_values[index]))
        bound[index] = exact_max < adjusted[index] * (1 - 1e-9)
    return bound


def holm(p_values) -> list[float]:
    """Holm's step-down adjustment of a family of p-values (controls the family-wise error rate).

    Parameters
    ----------
    p_values : sequence of float
        One p-value per comparison of the family: every comparison that was
        looked at, not only the ones that came out small.

    Returns
    -------
    list of float
        Adjusted p-values in the input order. With the p-values sorted
        ascending, the ``i``-th (0-based) of ``m`` becomes
        ``max over j <= i of min(1, (m - j) * p_(j))``. Reject where the
        adjusted value is at most the family's ``alpha``.

    Examples
    --------
    >>> from topkeval.stats import holm
    >>> holm([0.01, 0.04, 0.03])   # 3 x 0.01; then 2 x 0.03; then max(1 x 0.04, 0.06)
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p_values, dtype=np.float64)
    if p.ndim != 1 or p.size == 0 or not np.isfinite(p).all() or (p < 0).any() or (p > 1).any():
        raise InvalidInputError("p_values must be a non-empty 1-D sequence of numbers in [0, 1].")
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, (p.size - np.arange(p.size)) * p[order])
    adjusted = np.empty_like(p)
    adjusted[order] = np.maximum.accumulate(scaled)
    return [float(value) for value in adjusted]


@dataclass(frozen=True)
class Verdict:
    """System A versus system B on the same users, with what the sample can and cannot say.

    ``difference`` is ``mean(a) - mean(b)``; ``low``/``high`` its paired
    bootstrap interval; ``p_value`` the sign-flip permutation p-value from
    ``n_permutations`` draws (the paired t-test's when that is None); ``p_holm`` the Holm-adjusted
    p-value within ``family`` (``family_size`` comparisons), or None for a single comparison
    decided in advance; ``p_holm_bound`` True when ``p_holm`` comes from permutation p-values
    at their floor ``1/(B+1)``, so that it is an upper bound (the text writes "≤"); ``sd`` the
    standard deviation of the per-user differences; ``mde`` the smallest true difference this
    many users detect with probability ``power`` at the planning level ``mde_alpha`` (``alpha`` for a
    single comparison; ``alpha / family_size``, Holm's first and strictest step, within a family).

    The minimum detectable effect is a property of the design (users and spread), stated for
    planning: it is never evidence about the observed difference, whose verdict rests on the
    interval and the p-value alone (a difference below the MDE can be significant, one above it a tie).
    """

    name_a: str
    name_b: str
    metric: str
    mean_a: float
    mean_b: float
    difference: float
    low: float
    high: float
    confidence: float
    p_value: float
    n_permutations: int | None
    n: int
    sd: float
    mde: float
    alpha: float
    power: float
    p_holm: float | None = None
    family: str | None = None
    family_size: int | None = None
    p_holm_bound: bool = False

    @property
    def interval_excludes_zero(self) -> bool:
        """True when the whole interval lies on one side of 0."""
        return self.low > 0 or self.high < 0

    @property
    def significant(self) -> bool:
        """The p-value that applies (Holm's within a family) is at most ``alpha``."""
        return (self.p_value if self.p_holm is None else self.p_holm) <= self.alpha

    @property
    def ahead(self) -> str | None:
        """The name of the system ahead, or None for a tie at this sample size.

        A system is ahead only when the interval excludes 0 and the p-value
        that applies is at most ``alpha``.
        """
        if not (self.interval_excludes_zero and self.significant):
            return None
        return self.name_a if self.difference > 0 else self.name_b

    @property
    def mde_alpha(self) -> float:
        """The level of the minimum detectable effect: ``alpha``, or ``alpha / m`` in a family of m."""
        return self.alpha if self.family_size is None else self.alpha / self.family_size

    def users_needed_for(self, effect: float) -> int:
        """Users a *new* study needs to detect ``effect``, at :attr:`mde_alpha` and ``power`` (planning only).

        ``effect`` is the smallest difference that would matter, chosen before looking; there is no
        default, because sizing a study from the observed difference (a noisy guess of the true one, and
        a selected winner's is biased upwards) restates this study's p-value instead of planning the next.
        The paired standard deviation is this verdict's.

        Examples
        --------
        >>> from topkeval.stats import verdict
        >>> v = verdict([0.2, 0.5, 0.4, 0.9], [0.1, 0.5, 0.2, 0.6], n_permutations=999)
        >>> v.users_needed_for(0.05)
        55
        """
        return users_needed(effect, self.sd, alpha=self.mde_alpha, power=self.power)

    def _evidence(self) -> str:
        ci = f"{self.confidence:.0%} CI {self.low:+.4f} to {self.high:+.4f}"
        text = f"{self.name_a} - {self.name_b} = {self.difference:+.4f} ({ci}), "
        text += format_p_value(self.p_value, self.n_permutations)
        if self.n_permutations is None:
            text += " (paired t-test)"
        if self.p_holm is not None:
            holm_p = _format_p_bound(self.p_holm) if self.p_holm_bound else format_p_value(self.p_holm)
            text += f", Holm-adjusted {holm_p} over the {self.family_size} comparisons"
            text += f" of {self.family!r}"
        return text

    def _power_note(self) -> str:
        level = f"alpha = {self.alpha:g}"
        if self.family_size is not None and self.family_size > 1:
            level = f"the family's alpha = {self.alpha:g}/{self.family_size} (Holm's first step)"
        return (
            f"planning, not evidence: with {self.n:,} users the smallest difference detectable with "
            f"{self.power:.0%} power at {level} is {self.mde:.4f}"
        )

    def _tie_reason(self) -> str:
        if not self.interval_excludes_zero:
            return "the interval contains 0"
        if self.p_holm is not None and self.p_value <= self.alpha:
            return f"the interval excludes 0, but not after Holm's correction (alpha = {self.alpha:g})"
        return f"the interval excludes 0, but p is above alpha = {self.alpha:g}"

    @property
    def text(self) -> str:
        """One sentence: "X ahead of Y ..." or "... a tie at this sample size (...)"."""
        on = f" on {self.metric}" if self.metric else ""
        winner = self.ahead
        if winner is not None:
            loser = self.name_b if winner == self.name_a else self.name_a
            return f"{winner} ahead of {loser}{on}: {self._evidence()}; {self._power_note()}."
        return (
            f"{self.name_a} vs {self.name_b}{on}: a tie at this sample size ({self._evidence()}; "
            f"{self._tie_reason()}; {self._power_note()})."
        )

    def __str__(self) -> str:
        return self.text


@validate_params(
    {
        "metric": Text(" (how the text names the metric; empty: not named)", empty_ok=True),
        **_RESAMPLING,
        "n_permutations": Maybe(_PERMUTATIONS),
        **_PLANNING,
    }
)
def verdict(
    a,
    b,
    *,
    names: tuple[str, str] = ("A", "B"),
    metric: str = "",
    confidence: float = 0.95,
    n_resamples: int = 2000,
    n_permutations: int | None = 10000,
    seed: int = 0,
    alpha: float = 0.05,
    power: float = 0.8,
) -> Verdict:
    """Compare two systems on paired per-user scores and say what the sample supports.

    Parameters
    ----------
    a, b : array-like or pandas.Series
        Per-user scores of systems A and B on the same users (Series are
        matched by index).
    names : (str, str)
        How the text names A and B.
    metric : str
        How the text names the metric, e.g. ``"NDCG@10"`` (may be empty).
    confidence, n_resamples, n_permutations, seed
        As in :func:`compare` (paired bootstrap interval, sign-flip test).
        ``n_permutations=None`` takes the p-value of :func:`paired_t_test`
        instead: it has no floor at ``1/(B+1)``, which matters when a large
        family's Holm adjustment needs p-values below ``alpha / m``.
    alpha, power : float
        Level of the test, and the power at which the minimum detectable
        effect is stated.

    Returns
    -------
    Verdict
        Its ``text`` says "A ahead of B" only when the interval excludes 0
        and ``p <= alpha``; otherwise "a tie at this sample size (...)", with
        the interval and the p-value. Both texts end with the minimum
        detectable effect at this number of users, labelled as a planning
        number (it is not evidence about the observed difference). For several
        comparisons chosen after looking at the data, use :func:`verdicts`.

    Examples
    --------
    >>> from topkeval.stats import verdict
    >>> a = [0.2, 0.5, 0.4, 0.9, 0.6, 0.3, 0.7, 0.5] * 25
    >>> b = [0.1, 0.4, 0.3, 0.8, 0.6, 0.3, 0.7, 0.4] * 25   # A better for half the users
    >>> v = verdict(a, b, names=("new", "old"), metric="NDCG@10", n_permutations=999)
    >>> v.ahead, round(v.difference, 4)
    ('new', 0.0625)
    >>> v.text.split(":")[0]
    'new ahead of old on NDCG@10'
    >>> verdict(a[:8], b[:8], names=("new", "old"), n_permutations=999).ahead is None   # 8 users: a tie
    True
    >>> verdict(a, b, n_permutations=None).p_value < 1e-40   # the paired t-test's: no 1/(B+1) floor
    True
    """
    x, y = _paired(a, b)
    ci = bootstrap_ci(x - y, confidence=confidence, n_resamples=n_resamples, seed=seed)
    if n_permutations is None:
        p = paired_t_test(x, y).p_value
    else:
        p = permutation_test(x, y, n_resamples=n_permutations, seed=seed)
    sd = float((x - y).std(ddof=1))
    if isinstance(names, str) or len(names) != 2:
        raise InvalidInputError(
            f"names must be two names, for A and for B, e.g. ('EASE', 'ItemKNN'); got {names!r}."
        )
    name_a, name_b = (str(name) for name in names)
    return Verdict(
        name_a=name_a,
        name_b=name_b,
        metric=str(metric),
        mean_a=float(x.mean()),
        mean_b=float(y.mean()),
        difference=ci.estimate,
        low=ci.low,
        high=ci.high,
        confidence=ci.confidence,
        p_value=p,
        n_permutations=n_permutations,
        n=ci.n,
        sd=sd,
        mde=minimum_detectable_effect(sd, ci.n, alpha=alpha, power=power),
        alpha=alpha,
        power=power,
    )


@validate_params({"family": Text(" (what the comparisons have in common, for the text)")})
def verdicts(comparisons, *, family: str, **settings) -> list[Verdict]:
    """Verdicts for a family of comparisons, with Holm-adjusted p-values.

    Parameters
    ----------
    comparisons : mapping or sequence
        Either a mapping ``{(name_a, name_b): (a, b)}`` of paired per-user
        scores, or a sequence of :class:`Verdict` objects already computed
        (e.g. on several metrics). Every comparison that was looked at
        belongs in the family, not only the interesting ones.
    family : str
        A name for the family, quoted in each text (e.g. ``"55 model pairs x
        2 metrics"``).
    **settings
        Passed to :func:`verdict` (``metric``, ``n_permutations``, ...);
        only with a mapping.

    Returns
    -------
    list of Verdict
        In the input order, each with ``p_holm`` (and ``p_holm_bound``) set; "ahead" then needs the
        Holm-adjusted p-value at most ``alpha``. The minimum detectable effect is restated at
        ``alpha / m`` (Holm's first step), the level a planned family of ``m`` comparisons must be
        sized for.

    Examples
    --------
    >>> from topkeval.stats import verdicts
    >>> base = [0.2, 0.5, 0.4, 0.9, 0.6, 0.3, 0.7, 0.5] * 25
    >>> pairs = {("new", "old"): (base, [v - 0.05 for v in base]),
    ...          ("new", "noise"): (base, base[1:] + base[:1])}
    >>> [v.ahead for v in verdicts(pairs, family="two candidates", n_permutations=999)]
    ['new', None]
    """
    if isinstance(comparisons, Mapping):
        items = [
            verdict(a, b, names=names, **settings) for names, (a, b) in _checked_pairs(comparisons).items()
        ]
    elif (
        isinstance(comparisons, Sequence)
        and comparisons
        and all(isinstance(item, Verdict) for item in comparisons)
    ):
        if settings:
            raise InputTypeError(f"settings {sorted(settings)} only apply to a mapping of per-user scores.")
        items = list(comparisons)
    else:
        raise InputTypeError(
            "comparisons must be a non-empty mapping {(name_a, name_b): (a, b)} or a sequence of Verdict "
            "objects."
        )
    raw = [item.p_value for item in items]
    adjusted = holm(raw)
    bounds = _holm_bounds(raw, [_at_floor(item.p_value, item.n_permutations) for item in items], adjusted)
    family = str(family)
    return [
        replace(
            item,
            p_holm=p,
            family=family,
            family_size=len(items),
            p_holm_bound=bound,
            mde=minimum_detectable_effect(item.sd, item.n, alpha=item.alpha / len(items), power=item.power),
        )
        for item, p, bound in zip(items, adjusted, bounds, strict=True)
    ]


def _checked_pairs(comparisons: Mapping) -> Mapping:
    if not comparisons:
        raise InputTypeError("comparisons is empty: a family needs at least one comparison.")
    for key, value in comparisons.items():
        if not (isinstance(key, tuple) and len(key) == 2 and isinstance(value, tuple) and len(value) == 2):
            raise InputTypeError(
                f"each entry must map (name_a, name_b) to (scores_a, scores_b); got {key!r} -> "
                f"{type(value).__name__}."
            )
    return comparisons
