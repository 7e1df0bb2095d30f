"""topkeval.stats: power analysis, Holm's adjustment, p-value text and verdicts.

Checked against simulation and by hand.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from topkeval.stats import (
    Verdict,
    _format_p_bound,
    _holm_bounds,
    _regularized_beta,
    format_p_value,
    holm,
    minimum_detectable_effect,
    paired_t_test,
    users_needed,
    verdict,
    verdicts,
)


def _two_sided_p(t: float, df: int) -> float:
    """The paired t-test's p-value formula (checked against scipy in test_stats.py)."""
    return _regularized_beta(df / 2.0, 0.5, df / (df + t * t))


def _critical_t(df: int, alpha: float = 0.05) -> float:
    """|t| at which the two-sided test starts rejecting, by bisection (independent of the quantile code)."""
    low, high = 0.0, 50.0
    for _ in range(100):
        middle = (low + high) / 2
        low, high = (middle, high) if _two_sided_p(middle, df) > alpha else (low, middle)
    return (low + high) / 2


def _rejection_rate(differences: np.ndarray, alpha: float = 0.05) -> float:
    """Share of simulated experiments (rows) whose two-sided paired t-test rejects at ``alpha``."""
    n = differences.shape[1]
    t = differences.mean(axis=1) / (differences.std(axis=1, ddof=1) / math.sqrt(n))
    critical = _critical_t(n - 1, alpha)
    row = differences[0]
    assert (paired_t_test(row, np.zeros(n)).p_value <= alpha) == (abs(t[0]) >= critical)
    return float((np.abs(t) >= critical).mean())


@pytest.mark.parametrize(
    "n, draw",
    [
        (30, lambda rng, size: rng.normal(0.0, 1.0, size)),  # small sample: the t correction matters
        (400, lambda rng, size: rng.choice([-1.0, 0.0, 0.0, 0.0, 1.0], size)),  # a hit-rate-like difference
        (1500, lambda rng, size: rng.exponential(0.3, size) - 0.3),  # skewed, like NDCG differences
    ],
)
def test_stated_power_is_achieved_in_simulation(n, draw):
    """At the minimum detectable effect the test rejects 80 % of the time, within Monte-Carlo error."""
    rng = np.random.default_rng(n)
    noise = draw(rng, (4000, n))
    noise -= noise.mean()  # the population mean is 0 for every draw shape; centring fixes the empirical one
    sd = float(noise.std(ddof=1))
    mde = minimum_detectable_effect(sd, n)
    achieved = _rejection_rate(noise + mde)
    standard_error = math.sqrt(0.8 * 0.2 / noise.shape[0])
    assert abs(achieved - 0.8) < 3.5 * standard_error + 0.005, achieved
    # and at half the effect the power is far lower: the simulation can tell the formula is wrong
    assert _rejection_rate(noise + mde / 2) < 0.4
    # no effect: the level is alpha
    assert abs(_rejection_rate(noise) - 0.05) < 0.02


def test_minimum_detectable_effect_by_hand():
    # large n: the normal quantiles 1.959964 + 0.841621
    assert minimum_detectable_effect(1.0, 10**8) == pytest.approx(2.801585 / 10**4, rel=1e-5)
    # small n: Student's t quantiles t(0.975, 9) = 2.262157 and t(0.8, 9) = 0.883404
    assert minimum_detectable_effect(1.0, 10) == pytest.approx(
        (2.262157 + 0.883404) / math.sqrt(10), rel=1e-5
    )
    assert minimum_detectable_effect(0.0, 50) == 0.0
    assert type(minimum_detectable_effect(0.3, 100)) is float
    # a stricter alpha or a higher power needs a larger effect
    base = minimum_detectable_effect(0.3, 100)
    assert minimum_detectable_effect(0.3, 100, alpha=0.01) > base
    assert minimum_detectable_effect(0.3, 100, power=0.9) > base


def test_users_needed_is_the_smallest_sufficient_n():
    for effect, sd in ((0.0049, 0.22), (0.05, 0.4), (0.5, 1.0), (-0.02, 0.1)):
        n = users_needed(effect, sd)
        assert minimum_detectable_effect(sd, n) <= abs(effect)
        assert n == 2 or minimum_detectable_effect(sd, n - 1) > abs(effect)
    # scales as 1 / effect^2
    assert users_needed(0.01, 0.2) == pytest.approx(4 * users_needed(0.02, 0.2), rel=0.01)
    assert users_needed(10.0, 0.01) == 2


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: minimum_detectable_effect(-0.1, 10), ValueError, "sd"),
        (lambda: minimum_detectable_effect(0.1, 1), ValueError, "n "),
        (lambda: minimum_detectable_effect(0.1, 10, power=1.0), ValueError, "power"),
        (lambda: minimum_detectable_effect(0.1, 10, alpha=0), ValueError, "alpha"),
        (lambda: users_needed(0.0, 0.1), ValueError, "must not be 0"),
        (lambda: holm([]), ValueError, "non-empty"),
        (lambda: holm([0.5, 1.2]), ValueError, r"\[0, 1\]"),
        (lambda: verdicts({}, family="x"), TypeError, "empty"),
        (lambda: verdicts({"a": ([1.0, 2.0], [1.0, 2.0])}, family="x"), TypeError, "name_a, name_b"),
        (lambda: verdicts([1, 2], family="x"), TypeError, "mapping"),
        (lambda: verdict([1.0, 2.0], [1.0, 3.0], names=("only one",)), ValueError, "two names"),
        (lambda: verdict([1.0, 2.0], [1.0, 3.0], names="AB"), ValueError, "two names"),
    ],
)
def test_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_holm_by_hand_and_against_a_naive_oracle():
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5]) == [0.5]
    assert holm([0.2, 0.3, 0.9]) == pytest.approx([0.6, 0.6, 0.9])
    rng = np.random.default_rng(1)
    for _ in range(50):
        p = rng.uniform(0, 0.2, size=rng.integers(1, 12))
        m = p.size
        ranked = sorted(range(m), key=lambda i: p[i])
        naive = [0.0] * m
        running = 0.0
        for position, i in enumerate(ranked):
            running = max(running, min(1.0, (m - position) * p[i]))
            naive[i] = running
        assert holm(p) == pytest.approx(naive)


def test_format_p_value():
    assert format_p_value(0.39) == "p = 0.3900"
    assert format_p_value(1 / 10001, 10000) == "p < 0.0001"
    assert format_p_value(1 / 1000, 999) == "p < 0.001"
    assert format_p_value(1 / 1234, 1233) == "p < 0.00082"  # rounded up: 1/1234 = 0.000810..., never down
    assert format_p_value(1 / 1235, 1234) == "p < 0.00081"  # 1/1235 = 0.000809...
    assert format_p_value(2 / 10001, 10000) == "p = 0.0002"
    assert format_p_value(3e-7) == "p = 3e-07"
    assert format_p_value(0.0) == "p = 0.0000"


def _users(n: int, gain: float, seed: int) -> tuple[pd.Series, pd.Series]:
    rng = np.random.default_rng(seed)
    users = [f"u{i}" for i in range(n)]
    b = rng.uniform(0, 1, n)
    a = b + gain + rng.normal(0, 0.2, n)
    return pd.Series(a, index=users), pd.Series(b, index=users)


def test_verdict_says_ahead_only_when_the_interval_excludes_zero():
    a, b = _users(2000, 0.05, seed=0)
    clear = verdict(a, b, names=("EASE", "ItemKNN"), metric="NDCG@10", n_permutations=999)
    assert isinstance(clear, Verdict)
    assert clear.low > 0 and clear.ahead == "EASE"
    assert clear.text.startswith("EASE ahead of ItemKNN on NDCG@10: EASE - ItemKNN = +0.0")
    assert "p < 0.001" in clear.text and "tie" not in clear.text
    assert f"{clear.mde:.4f}" in clear.text
    # B ahead: the winner comes first, the difference keeps the stated order A - B
    flipped = verdict(b, a, names=("ItemKNN", "EASE"), n_permutations=999)
    assert flipped.ahead == "EASE" and flipped.text.startswith("EASE ahead of ItemKNN: ItemKNN - EASE = -0.0")


def test_verdict_says_tie_with_the_sample_size_it_would_take():
    a, b = _users(300, 0.004, seed=3)
    tie = verdict(a, b, names=("EASE", "ItemKNN"), n_permutations=999)
    assert tie.low < 0 < tie.high and tie.ahead is None
    assert "EASE vs ItemKNN: a tie at this sample size (EASE - ItemKNN = " in tie.text
    assert "ahead" not in tie.text and "the interval contains 0" in tie.text
    assert tie.mde > abs(tie.difference)
    assert (
        "planning, not evidence: with 300 users the smallest difference detectable with 80% power at "
        f"alpha = 0.05 is {tie.mde:.4f}" in tie.text
    )
    # users needed for an effect chosen beforehand sizes a new study; the verdict does not quote it, and
    # there is no default from the observed difference (that would restate the p-value)
    needed = users_needed(0.01, tie.sd)
    assert tie.users_needed_for(0.01) == needed and "users)" not in tie.text and f"{needed:,}" not in tie.text
    assert not hasattr(tie, "users_needed")
    with pytest.raises(TypeError):
        tie.users_needed_for()
    # the minimum detectable effect comes from the paired standard deviation
    assert tie.sd == pytest.approx(float((a - b).std(ddof=1)))
    assert tie.mde == pytest.approx(minimum_detectable_effect(tie.sd, 300))


def test_no_difference_at_all_is_a_tie_without_a_sample_size():
    same = verdict([0.1, 0.4, 0.3], [0.1, 0.4, 0.3], n_permutations=999)
    assert same.ahead is None and "would need" not in same.text


def _assert_power_is_planned_at_the_family_alpha(first, alone):
    # the power statement is planned at the family's level, alpha / 31 (Holm's first step), not at 0.05
    assert first.mde_alpha == pytest.approx(0.05 / 31)
    assert first.mde == pytest.approx(minimum_detectable_effect(first.sd, 600, alpha=0.05 / 31))
    assert first.mde > alone.mde == pytest.approx(minimum_detectable_effect(alone.sd, 600))
    assert f"at the family's alpha = 0.05/31 (Holm's first step) is {first.mde:.4f}" in first.text
    assert first.users_needed_for(0.02) == users_needed(0.02, first.sd, alpha=0.05 / 31)
    assert first.users_needed_for(0.02) > alone.users_needed_for(0.02)


def test_a_family_applies_holm_and_can_turn_ahead_into_a_tie():
    a, b = _users(600, 0.02, seed=6)
    alone = verdict(a, b, n_permutations=2000, seed=1)
    assert alone.ahead == "A" and 0.002 < alone.p_value < 0.05  # significant on its own, not by a mile
    noise = {(f"M{i}", f"N{i}"): _users(600, 0.0, seed=100 + i) for i in range(30)}
    family = verdicts({("A", "B"): (a, b), **noise}, family="31 pairs", n_permutations=2000, seed=1)
    first = family[0]
    assert first.p_value == alone.p_value and first.family_size == 31 and first.family == "31 pairs"
    assert first.p_holm == pytest.approx(holm([v.p_value for v in family])[0]) and first.p_holm > 0.05
    assert first.interval_excludes_zero and first.ahead is None
    assert (
        "but not after Holm's correction" in first.text
        and "over the 31 comparisons of '31 pairs'" in first.text
    )
    _assert_power_is_planned_at_the_family_alpha(first, alone)
    # verdicts already computed can be adjusted as a family too
    again = verdicts([alone, *family[1:]], family="31 pairs")
    assert [v.p_holm for v in again] == [v.p_holm for v in family]
    with pytest.raises(TypeError, match="only apply"):
        verdicts([alone], family="x", seed=3)


def _holm_bound_oracle(p_values, floored):
    """Naive: a Holm value is a bound when pushing every floor p-value towards 0 lowers it."""
    lowered = [p / 1000 if low else p for p, low in zip(p_values, floored, strict=True)]
    return [after < before * (1 - 1e-9) for before, after in zip(holm(p_values), holm(lowered), strict=True)]


def _assert_holm_bounds_agree_with_the_naive_oracle():
    # the naive oracle agrees, also on families where an exact p-value inherits the floor's bound
    cases = [
        ([0.001, 0.00105, 0.5], [True, False, False]),  # 3 x 0.001 > 2 x 0.00105: the second is a bound
        ([0.001, 0.002, 0.5], [True, False, False]),  # 2 x 0.002 > 3 x 0.001: exact
        ([0.001, 0.001, 0.001], [True, True, True]),
        ([0.2, 0.3], [False, False]),
    ]
    for p_values, floored in cases:
        assert _holm_bounds(p_values, floored, holm(p_values)) == _holm_bound_oracle(p_values, floored)
    assert _holm_bounds([0.001, 0.00105, 0.5], [True, False, False], holm([0.001, 0.00105, 0.5])) == [
        True,
        True,
        False,
    ]


def test_holm_adjusted_p_from_a_permutation_floor_is_written_as_a_bound():
    clear = {(f"A{i}", f"B{i}"): _users(400, 0.1, seed=200 + i) for i in range(3)}  # all at the floor
    weak = {("C", "D"): _users(400, 0.012, seed=7)}  # an exact p-value between the floor and 1
    family = verdicts({**clear, **weak}, family="4 pairs", n_permutations=999, seed=0)
    floor = 1 / 1000
    assert [v.p_value for v in family[:3]] == [floor] * 3 and family[3].p_value > 4 * floor
    for v in family[:3]:  # 4 x 1/1000 = 0.0040 is a bound: the true p-values are below the floor
        assert v.p_holm_bound and v.p_holm == pytest.approx(4 * floor)
        assert "p < 0.001, Holm-adjusted p ≤ 0.0040 over the 4 comparisons" in v.text
        assert "Holm-adjusted p = " not in v.text
    exact = family[3]
    assert not exact.p_holm_bound and f"Holm-adjusted p = {exact.p_holm:.4f}" in exact.text
    _assert_holm_bounds_agree_with_the_naive_oracle()
    # a bound is rounded up, never down: 0.00123 is written 0.0013; tiny values keep two digits
    assert _format_p_bound(0.00123) == "p ≤ 0.0013" and _format_p_bound(3.01e-5) == "p ≤ 3.1e-05"
    assert _format_p_bound(0.004) == "p ≤ 0.0040"


def test_verdict_with_the_t_test_has_no_permutation_floor():
    a, b = _users(1500, 0.05, seed=8)
    by_t = verdict(a, b, n_permutations=None)
    by_permutation = verdict(a, b, n_permutations=999)
    assert by_t.p_value == paired_t_test(a, b).p_value < 1 / 1000 == by_permutation.p_value * 1000 / 1000
    assert (by_t.low, by_t.high, by_t.mde) == (by_permutation.low, by_permutation.high, by_permutation.mde)
    assert "(paired t-test)" in by_t.text and "p < 0.001" in by_permutation.text
