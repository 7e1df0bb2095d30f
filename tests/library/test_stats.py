"""topkeval.stats: bootstrap intervals and paired tests, against known answers."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from topkeval.stats import (
    ConfidenceInterval,
    bootstrap_ci,
    compare,
    paired_bootstrap_ci,
    paired_t_test,
    percentile_interval,
    permutation_test,
    sign_flip_p_value,
)


def test_bootstrap_ci_is_close_to_the_normal_interval():
    rng = np.random.default_rng(0)
    x = rng.normal(0.3, 0.2, size=400)
    ci = bootstrap_ci(x, n_resamples=4000, seed=1)
    half = 1.96 * x.std(ddof=1) / math.sqrt(x.size)
    assert isinstance(ci, ConfidenceInterval) and type(ci.low) is float
    assert ci.estimate == pytest.approx(float(x.mean()))
    assert ci.low == pytest.approx(x.mean() - half, abs=0.004)
    assert ci.high == pytest.approx(x.mean() + half, abs=0.004)
    assert bootstrap_ci(x, n_resamples=4000, seed=1) == ci  # seeded
    narrower = bootstrap_ci(x, confidence=0.5, n_resamples=4000, seed=1)
    assert ci.low < narrower.low < narrower.high < ci.high


def test_bootstrap_ci_covers_the_true_mean_about_95_percent_of_the_time():
    rng = np.random.default_rng(42)
    covered = 0
    trials = 150
    for trial in range(trials):
        sample = rng.exponential(1.0, size=80)  # skewed, true mean 1
        ci = bootstrap_ci(sample, n_resamples=500, seed=trial)
        covered += ci.low <= 1.0 <= ci.high
    assert 0.86 <= covered / trials <= 0.99


def test_percentile_interval_and_str():
    assert percentile_interval(range(101), 0.9) == pytest.approx((5.0, 95.0))
    assert percentile_interval([1.0, 2.0, 3.0, 4.0, 5.0], 0.5) == pytest.approx((2.0, 4.0))
    ci = bootstrap_ci([0.0, 1.0] * 10, seed=0)
    assert str(ci).startswith("0.5000 (95% CI ")


def test_paired_interval_is_narrower_than_separate_ones():
    rng = np.random.default_rng(3)
    base = rng.uniform(0, 1, size=300)  # user difficulty, shared by both models
    a = base + 0.02 + rng.normal(0, 0.02, size=300)
    b = base + rng.normal(0, 0.02, size=300)
    sep_a, sep_b = bootstrap_ci(a, seed=0), bootstrap_ci(b, seed=0)
    assert sep_a.low < sep_b.high  # separate intervals overlap
    paired = paired_bootstrap_ci(a, b, seed=0)
    assert paired.low > 0  # the paired one does not include 0
    assert paired.high - paired.low < (sep_a.high - sep_a.low) / 3


def test_series_are_aligned_by_user():
    a = pd.Series([1.0, 0.0, 0.5], index=["u", "v", "w"])
    b = pd.Series([0.5, 1.0, 0.0], index=["w", "u", "v"])  # same users, other order
    result = compare(a, b, n_permutations=999)
    assert result.difference == pytest.approx(0.0)
    assert (result.wins, result.losses, result.ties) == (0, 0, 3)  # by position they would all differ
    with pytest.raises(ValueError, match="same users"):
        compare(a, b.rename(index={"w": "x"}))


def test_permutation_test_values():
    assert permutation_test([0.1, 0.4, 0.3], [0.1, 0.4, 0.3], n_resamples=500) == 1.0
    assert permutation_test([1.0] * 20, [0.0] * 20, n_resamples=999) == pytest.approx(0.001)
    # exact answer for n=10 users all +1: only 2 of 1024 sign patterns are as extreme
    p = permutation_test([1.0] * 10, [0.0] * 10, n_resamples=20000, seed=0)
    assert p == pytest.approx(2 / 1024, abs=0.0015)
    # no real difference: p is rarely small
    rng = np.random.default_rng(0)
    ps = [
        permutation_test(rng.normal(size=50), rng.normal(size=50), n_resamples=200, seed=s) for s in range(40)
    ]
    assert 0.0 < np.mean(np.array(ps) < 0.05) <= 0.2


def test_sign_flip_p_value_by_hand():
    signs = [[1, 1], [1, -1], [-1, 1], [-1, -1]]
    # means: 1, 0, 0, -1 -> |.| >= 1 for 2 draws
    assert sign_flip_p_value([1.0, 1.0], signs) == pytest.approx(3 / 5)
    assert sign_flip_p_value([0.0, 0.0], signs) == 1.0
    with pytest.raises(ValueError, match="shape"):
        sign_flip_p_value([1.0, 2.0, 3.0], signs)


def test_paired_t_test_by_hand_and_against_scipy():
    result = paired_t_test([3.0, 4.0, 5.0, 6.0], [1.0, 3.0, 2.0, 5.0])
    d = np.array([2.0, 1.0, 3.0, 1.0])
    assert result.t == pytest.approx(d.mean() / (d.std(ddof=1) / 2))
    assert result.df == 3
    scipy_stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(7)
    for n in (3, 8, 50, 700):
        a, b = rng.normal(size=n), rng.normal(0.1, 1.0, size=n)
        ours = paired_t_test(a, b)
        theirs = scipy_stats.ttest_rel(a, b)
        assert ours.t == pytest.approx(float(theirs.statistic), rel=1e-10)
        assert ours.p_value == pytest.approx(float(theirs.pvalue), rel=1e-8, abs=1e-15)


def test_paired_t_test_degenerate_differences():
    assert paired_t_test([1.0, 2.0], [1.0, 2.0]) == paired_t_test([0.0, 0.0], [0.0, 0.0])
    assert paired_t_test([1.0, 2.0], [1.0, 2.0]).p_value == 1.0
    same_gain = paired_t_test([2.0, 3.0, 4.0], [1.0, 2.0, 3.0])
    assert same_gain.t == math.inf and same_gain.p_value == 0.0


def test_compare_record():
    result = compare([1.0, 0.5, 0.0, 1.0], [0.5, 0.5, 0.0, 0.0], n_resamples=1000, n_permutations=999)
    assert result.mean_a == 0.625 and result.mean_b == 0.25
    assert result.difference == pytest.approx(0.375)
    assert result.low <= result.difference <= result.high
    assert 0 < result.p_value <= 1
    assert "A - B = +0.3750" in str(result)
    all_ahead = compare([1.0] * 30, [0.0] * 30, n_permutations=999)
    assert "permutation p < 0.001," in str(all_ahead)  # the floor 1/(B+1) is written as a bound


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: bootstrap_ci([1.0]), "at least 2 users"),
        (lambda: bootstrap_ci([1.0, float("nan")]), "NaN"),
        (lambda: bootstrap_ci([[1.0, 2.0]]), "1-D"),
        (lambda: bootstrap_ci([1.0, 2.0], confidence=95), r"must be in \(0, 1\)"),
        (lambda: bootstrap_ci([1.0, 2.0], n_resamples=10), "n_resamples"),
        (lambda: compare([1.0, 2.0], [1.0, 2.0, 3.0]), "one value per user"),
        (lambda: percentile_interval([], 0.9), "non-empty"),
    ],
)
def test_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()
