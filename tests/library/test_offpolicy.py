"""topkeval.offpolicy against naive loops, against the truth of simulated worlds, and on bad input.

The oracles below are written from the definitions, one event (or one click) at a time, sharing no
code with the library. The Monte-Carlo tests draw many logs from a world whose true value is known
and check that the mean estimate lands within Monte-Carlo error of it (IPS, PBM-IPS), of the exact
expectation of the clipped estimator (below the truth), or far from it (the naive click metric).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from topkeval import InvalidInputError
from topkeval.offpolicy import (
    OffPolicyEstimate,
    clipped_ips,
    importance_weights,
    ips,
    pbm_ips,
    pbm_ips_per_session,
    position_propensities,
    snips,
)

Z95 = 1.959963984540054


# ---------------------------------------------------------------- naive oracles
def naive_ips(rewards, target, logging, clip=math.inf):
    terms = [min(t / p, clip) * r for r, t, p in zip(rewards, target, logging, strict=True)]
    n = len(terms)
    mean = sum(terms) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in terms) / (n - 1))
    return mean, sd / math.sqrt(n)


def naive_snips(rewards, target, logging):
    weights = [t / p for t, p in zip(target, logging, strict=True)]
    value = sum(w * r for w, r in zip(weights, rewards, strict=True)) / sum(weights)
    n = len(weights)
    spread = sum(w * w * (r - value) ** 2 for w, r in zip(weights, rewards, strict=True))
    return value, math.sqrt(n / (n - 1) * spread) / sum(weights)


def naive_pbm(clicks, new_ranks, exam, lam):
    per_session = []
    for session_clicks, session_ranks in zip(clicks, new_ranks, strict=True):
        total = 0.0
        for logged_rank, (clicked, new_rank) in enumerate(zip(session_clicks, session_ranks, strict=True), 1):
            if clicked and new_rank > 0:
                total += lam(new_rank) / exam[logged_rank - 1]
        per_session.append(total)
    n = len(per_session)
    mean = sum(per_session) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in per_session) / (n - 1))
    return mean, sd / math.sqrt(n)


def random_log(seed, n=40):
    rng = np.random.default_rng(seed)
    logging = rng.uniform(0.01, 1.0, size=n)
    target = rng.uniform(0.0, 1.0, size=n) * (rng.random(n) < 0.8)
    rewards = (rng.random(n) < 0.3).astype(float)
    return rewards.tolist(), target.tolist(), logging.tolist()


@pytest.mark.parametrize("seed", range(5))
def test_ips_snips_and_clipped_ips_match_naive_loops(seed):
    rewards, target, logging = random_log(seed)
    for got, (value, se) in [
        (ips(rewards, target, logging), naive_ips(rewards, target, logging)),
        (snips(rewards, target, logging), naive_snips(rewards, target, logging)),
        (clipped_ips(rewards, target, logging, clip=3.0), naive_ips(rewards, target, logging, clip=3.0)),
    ]:
        assert got.estimate == pytest.approx(value, rel=1e-12)
        assert got.standard_error == pytest.approx(se, rel=1e-12)
        assert got.low == pytest.approx(value - Z95 * se, rel=1e-9, abs=1e-12)
        assert got.high == pytest.approx(value + Z95 * se, rel=1e-9, abs=1e-12)
        assert got.n == len(rewards)
    weights = [t / p for t, p in zip(target, logging, strict=True)]
    assert importance_weights(target, logging) == pytest.approx(weights, rel=1e-15)
    result = ips(rewards, target, logging)
    assert result.max_weight == pytest.approx(max(weights))
    assert result.effective_n == pytest.approx(sum(weights) ** 2 / sum(w * w for w in weights))


def test_every_number_is_a_builtin_and_the_record_prints():
    result = ips([1, 0, 1], [0.5, 0.2, 0.1], [0.5, 0.5, 0.2])
    for field in ("estimate", "standard_error", "low", "high", "confidence", "effective_n", "max_weight"):
        assert type(getattr(result, field)) is float, field
    assert type(result.n) is int
    assert str(result).startswith("IPS: 0.5000 (95% CI")  # (1 + 0 + 0.5) / 3
    assert isinstance(pbm_ips([[1, 0], [0, 1]], [[1, 2], [2, 1]], eta=1.0), OffPolicyEstimate)
    assert all(type(p) is float for p in position_propensities(3, eta=1.0))


def test_clipping_at_infinity_is_ips_and_equal_weights_make_snips_a_plain_mean():
    rewards, target, logging = random_log(7)
    assert (
        clipped_ips(rewards, target, logging, clip=math.inf).estimate
        == ips(rewards, target, logging).estimate
    )
    same = snips([1, 0, 1, 1], [0.2] * 4, [0.4] * 4)
    plain = np.array([1, 0, 1, 1.0])
    assert same.estimate == pytest.approx(plain.mean())
    assert same.standard_error == pytest.approx(plain.std(ddof=1) / 2)


def test_snips_stays_in_the_rewards_range_where_ips_does_not():
    rewards, target, logging = [1, 0, 0, 0], [0.9, 0.1, 0.1, 0.1], [0.05, 0.5, 0.5, 0.5]
    assert ips(rewards, target, logging).estimate == pytest.approx(18 / 4)  # a "click rate" of 4.5
    assert 0 <= snips(rewards, target, logging).estimate <= 1


@pytest.mark.parametrize("seed", range(4))
def test_pbm_ips_matches_a_naive_loop(seed):
    rng = np.random.default_rng(seed)
    sessions, k = 30, 6
    clicks = (rng.random((sessions, k)) < 0.3).astype(int)
    dropped = np.array([rng.permutation(k + 2)[:k] for _ in range(sessions)])  # 0 = not shown; ranks up to 7
    dropped[dropped > k] = 0
    kept = np.array([rng.permutation(k) + 1 for _ in range(sessions)])  # every logged item ranked
    eta = 0.7
    exam = [(1 / r) ** eta for r in range(1, k + 1)]
    for discount, lam, new_ranks in [("dcg", lambda r: 1 / math.log2(1 + r), dropped), ("rank", float, kept)]:
        got = pbm_ips(clicks, new_ranks, eta=eta, discount=discount)
        value, se = naive_pbm(clicks.tolist(), new_ranks.tolist(), exam, lam)
        per_session = pbm_ips_per_session(clicks, new_ranks, eta=eta, discount=discount)
        assert per_session == pytest.approx(
            [
                naive_pbm([c, c], [r, r], exam, lam)[0]
                for c, r in zip(clicks.tolist(), new_ranks.tolist(), strict=True)
            ]
        )
        assert got.estimate == pytest.approx(value, rel=1e-12)
        assert got.standard_error == pytest.approx(se, rel=1e-12)
    weights = [0.9**r for r in range(1, k + 1)]
    got = pbm_ips(clicks, dropped, propensities=exam, discount=weights)
    assert got.estimate == pytest.approx(naive_pbm(clicks, dropped, exam, lambda r: weights[r - 1])[0])
    naive = pbm_ips(clicks, kept, eta=0.0, discount="rank")
    assert naive.estimate == pytest.approx(naive_pbm(clicks, kept, [1.0] * k, float)[0])
    assert naive.estimator.startswith("naive")


@pytest.mark.parametrize("eta", [0.0, 1.0])
def test_pbm_ips_effective_n_counts_sessions_weighted_by_their_clicks_inverse_propensities(eta):
    rng = np.random.default_rng(9)
    clicks = (rng.random((50, 5)) < 0.6).astype(int)  # many sessions with several clicks
    new_ranks = np.tile(np.arange(1, 6), (50, 1))
    exam = [(1 / r) ** eta for r in range(1, 6)]
    session_weights = [sum(c / e for c, e in zip(row, exam, strict=True)) for row in clicks.tolist()]
    got = pbm_ips(clicks, new_ranks, eta=eta)
    assert got.effective_n == pytest.approx(sum(session_weights) ** 2 / sum(w * w for w in session_weights))
    assert got.max_weight == pytest.approx(max(session_weights))
    assert clicks.sum() > got.n >= got.effective_n  # more clicks than sessions; effective n still <= n


def test_the_rank_discount_refuses_a_dropped_item_instead_of_scoring_it_best():
    clicks = [[1, 0, 1], [1, 1, 0]]
    kept = pbm_ips(clicks, [[3, 2, 1], [1, 2, 3]], eta=1.0, discount="rank").estimate
    assert kept == pytest.approx((3 + 1 * 3 + 1 + 2 * 2) / 2)  # a real sum of ranks, lower is better
    with pytest.raises(InvalidInputError, match=r"session 0 \(0-based\), logged rank 1, has new rank 0"):
        pbm_ips(clicks, [[0, 0, 0], [0, 0, 0]], eta=1.0, discount="rank")  # would have scored 0, "best"
    with pytest.raises(InvalidInputError, match=r"dropping items score best"):
        pbm_ips_per_session(clicks, [[1, 2, 3], [1, 0, 2]], eta=1.0, discount="rank")
    # with the DCG discount a dropped item counts 0, which is the worst it can get
    with pytest.warns(RuntimeWarning, match="zero width"):
        assert pbm_ips(clicks, [[0, 0, 0], [0, 0, 0]], eta=1.0).estimate == 0.0


def test_a_zero_standard_error_warns_that_the_interval_has_zero_width():
    with pytest.warns(RuntimeWarning, match="standard error is 0"):
        one = snips([1, 0], [1.0, 0.0], [0.5, 0.5])  # one event with a non-zero weight
    assert (one.estimate, one.low, one.high, one.effective_n) == (1.0, 1.0, 1.0, 1.0)
    with pytest.warns(RuntimeWarning, match="zero width"):
        ips([0, 0, 0], [0.5, 0.2, 0.1], [0.5, 0.5, 0.2])  # no click at all: 0 with a zero-width interval
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert snips([1, 0], [0.8, 0.2], [0.5, 0.5]).standard_error > 0  # no warning otherwise


def test_position_propensities_follow_the_power_law():
    assert position_propensities(3, eta=0.0) == [1.0, 1.0, 1.0]
    assert position_propensities(4, eta=2.0) == pytest.approx([1, 1 / 4, 1 / 9, 1 / 16])


# ---------------------------------------------------------------- Monte Carlo: against the truth
ACTIONS_LOGGING = np.array([0.6, 0.25, 0.1, 0.04, 0.01])
ACTIONS_TARGET = np.array([0.1, 0.1, 0.2, 0.2, 0.4])
ACTIONS_REWARD = np.array([0.1, 0.2, 0.4, 0.6, 0.9])  # click probability of each action
TRUTH = float(ACTIONS_TARGET @ ACTIONS_REWARD)


def simulated_logs(n_logs, n_events, seed):
    rng = np.random.default_rng(seed)
    actions = rng.choice(ACTIONS_LOGGING.size, size=(n_logs, n_events), p=ACTIONS_LOGGING)
    rewards = (rng.random((n_logs, n_events)) < ACTIONS_REWARD[actions]).astype(float)
    return actions, rewards


def test_ips_is_unbiased_and_clipped_ips_is_biased_down_by_its_exact_bias():
    actions, rewards = simulated_logs(2000, 200, seed=1)
    plain, clipped = [], []
    for a, r in zip(actions, rewards, strict=True):
        plain.append(ips(r, ACTIONS_TARGET[a], ACTIONS_LOGGING[a]).estimate)
        clipped.append(clipped_ips(r, ACTIONS_TARGET[a], ACTIONS_LOGGING[a], clip=5.0).estimate)
    plain, clipped = np.array(plain), np.array(clipped)
    assert abs(plain.mean() - TRUTH) < 4 * plain.std(ddof=1) / math.sqrt(plain.size)
    weights = ACTIONS_TARGET / ACTIONS_LOGGING
    expected_clipped = float(ACTIONS_LOGGING @ (np.minimum(weights, 5.0) * ACTIONS_REWARD))
    assert expected_clipped < TRUTH - 0.2  # the bias is large here: 40 weights of 40 capped at 5
    assert abs(clipped.mean() - expected_clipped) < 4 * clipped.std(ddof=1) / math.sqrt(clipped.size)
    assert clipped.std() < plain.std() / 2  # what the bias buys


def test_snips_is_consistent_and_the_ips_interval_covers_near_its_level_when_weights_are_mild():
    actions, rewards = simulated_logs(400, 3000, seed=2)
    target = np.array([0.3, 0.3, 0.2, 0.15, 0.05])  # weights at most 5
    truth = float(target @ ACTIONS_REWARD)
    estimates = [snips(r, target[a], ACTIONS_LOGGING[a]) for a, r in zip(actions, rewards, strict=True)]
    values = np.array([e.estimate for e in estimates])
    assert abs(values.mean() - truth) < 4 * values.std(ddof=1) / math.sqrt(values.size)
    covered = np.mean([e.low <= truth <= e.high for e in estimates])
    assert 0.9 <= covered <= 0.99
    intervals = [ips(r, target[a], ACTIONS_LOGGING[a]) for a, r in zip(actions, rewards, strict=True)]
    assert 0.9 <= np.mean([e.low <= truth <= e.high for e in intervals]) <= 0.99


def pbm_world():
    """Three users, logged lists of 4 items each, known click probabilities once examined."""
    attractiveness = np.array([[0.05, 0.1, 0.6, 0.8], [0.7, 0.2, 0.1, 0.5], [0.3, 0.3, 0.9, 0.1]])
    logged_new_rank = np.array([[4, 3, 2, 1], [1, 3, 4, 2], [3, 4, 1, 2]])  # a ranking sorted by relevance
    return attractiveness, logged_new_rank


def test_pbm_ips_is_unbiased_for_the_new_rankings_dcg_and_the_naive_click_metric_is_not():
    attractiveness, new_rank = pbm_world()
    exam = np.array(position_propensities(4, eta=1.0))
    dcg = 1 / np.log2(1 + new_rank)
    truth = float((attractiveness * dcg).sum(axis=1).mean())
    rng = np.random.default_rng(3)
    pbm, naive = [], []
    for _ in range(1500):
        users = rng.integers(3, size=100)
        clicks = (rng.random((100, 4)) < exam * attractiveness[users]).astype(int)
        pbm.append(pbm_ips(clicks, new_rank[users], eta=1.0).estimate)
        naive.append(pbm_ips(clicks, new_rank[users], eta=0.0).estimate)
    pbm, naive = np.array(pbm), np.array(naive)
    assert abs(pbm.mean() - truth) < 4 * pbm.std(ddof=1) / math.sqrt(pbm.size)
    naive_expected = float((attractiveness * exam * dcg).sum(axis=1).mean())
    assert abs(naive.mean() - naive_expected) < 4 * naive.std(ddof=1) / math.sqrt(naive.size)
    assert naive.mean() < truth - 0.3  # the clicks the logged order hid are lost


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: ips([1, 0], [0.5, 0.5], [0.5, 0.0]), r"logging_probability must be > 0.*event 1"),
        (lambda: ips([1, 0], [0.5, 0.5], [0.5, 1.5]), r"at most 1; event 1 \(0-based\) has 1.5"),
        (lambda: ips([1, 0], [-0.1, 0.5], [0.5, 0.5]), r"target_probability must be >= 0"),
        (lambda: ips([1, 0, 1], [0.5, 0.5], [0.5, 0.5]), r"got lengths 3, 2 and 2"),
        (lambda: ips([1], [0.5], [0.5]), r"at least 2 events"),
        (lambda: ips([1, float("nan")], [0.5, 0.5], [0.5, 0.5]), r"rewards has NaN"),
        (lambda: ips([[1, 0]], [0.5, 0.5], [0.5, 0.5]), r"rewards must be one number per logged event"),
        (lambda: ips([1, 0], [0.5, 0.5], [0.5, 0.5], confidence=95), r"confidence"),
        (lambda: snips([1, 0], [0.0, 0.0], [0.5, 0.5]), r"every importance weight is 0"),
        (
            lambda: clipped_ips([1, 0], [0.5, 0.5], [0.5, 0.5], clip=0),
            r"clip must be in \(0, inf\] \(the largest weight allowed",
        ),
        (lambda: importance_weights([0.5], [0.5, 0.5]), r"got lengths 1 and 2"),
        (lambda: position_propensities(0, eta=1.0), r"k must be an int >= 1"),
        (lambda: position_propensities(3, eta=-1), r"eta"),
        (lambda: pbm_ips([[1, 0], [0, 1]], [[1, 2]], eta=1.0), r"same shape"),
        (lambda: pbm_ips([[1, 0]], [[1, 2]], eta=1.0), r"at least 2 sessions"),
        (lambda: pbm_ips_per_session(np.zeros((0, 2)), np.zeros((0, 2), int), eta=1.0), r"no session"),
        (lambda: pbm_ips([[2, 0], [0, 1]], [[1, 2], [1, 2]], eta=1.0), r"clicks must be 0 or 1"),
        (lambda: pbm_ips([[1, 0], [0, 1]], [[1.5, 2], [1, 2]], eta=1.0), r"new_ranks must be ints >= 0"),
        (lambda: pbm_ips([[1, 0], [0, 1]], [[1, 2], [2, 2]], eta=1.0), r"one rank to two items in session 1"),
        (lambda: pbm_ips([[1, 0], [0, 1]], [[1, 2], [2, 1]], eta=1, propensities=[1, 1]), r"not both"),
        (
            lambda: pbm_ips([[1, 0], [0, 1]], [[1, 2], [2, 1]]),
            r"give the examination probabilities.*no default",
        ),
        (lambda: pbm_ips_per_session([[1, 0]], [[1, 2]]), r"eta=\.\.\. for \(1/r\) \*\* eta"),
        (lambda: pbm_ips([[1, 0], [0, 1]], [[1, 2], [2, 1]], propensities=[1.0, 0.0]), r"rank 2 has 0.0"),
        (lambda: pbm_ips([[1, 0], [0, 1]], [[1, 2], [2, 1]], propensities=[1.0]), r"one probability per"),
        (
            lambda: pbm_ips([[1, 0], [0, 1]], [[1, 2], [2, 1]], discount="ndcg", eta=1.0),
            r"discount must be 'dcg'",
        ),
        (
            lambda: pbm_ips([[1, 0], [0, 1]], [[1, 3], [2, 1]], discount=[1.0, 0.5], eta=1.0),
            r"reaches rank 3",
        ),
    ],
)
def test_bad_input_gets_a_clear_error(call, message):
    with pytest.raises(InvalidInputError, match=message):
        call()


def test_a_new_ranking_that_shows_none_of_the_logged_items_scores_zero():
    with pytest.warns(RuntimeWarning, match="zero width"):  # every session's term is 0
        assert pbm_ips([[1, 1], [1, 0]], [[0, 0], [0, 0]], eta=1.0).estimate == 0.0


def test_one_session_has_its_value_but_no_standard_error():
    assert pbm_ips_per_session([[0, 1]], [[1, 2]], eta=1.0, discount="rank") == [4.0]  # 2 / (1/2)
