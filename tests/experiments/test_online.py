"""The simulated online world: exact expectations, and each method finding the truth."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.experiments import online


@pytest.fixture(scope="module")
def world():
    return online.click_world(n_users=300, n_items=60, k=5, seed=0)


def test_expected_clicks_matches_a_monte_carlo_count(world):
    top = online.noisy_ranker(world, 1.0, seed=0)
    rng = np.random.default_rng(0)
    users = np.repeat(np.arange(world.n_users), 200)
    clicks = online.simulate_clicks(world, users, top[users], rng).sum(axis=1).reshape(world.n_users, 200)
    assert clicks.mean() == pytest.approx(online.expected_clicks(world, top).mean(), abs=0.02)


def test_better_ranker_has_more_expected_clicks(world):
    good, bad = online.noisy_ranker(world, 0.0), online.noisy_ranker(world, 3.0, seed=1)
    assert online.expected_clicks(world, good).mean() > online.expected_clicks(world, bad).mean()


def test_ab_and_interleaving_find_the_better_ranker(world):
    good, bad = online.noisy_ranker(world, 0.0), online.noisy_ranker(world, 3.0, seed=1)
    ab = online.ab_test(world, bad, good, 6000, seed=0)
    assert ab.low > 0 and ab.sessions_a + ab.sessions_b == 6000
    truth = online.expected_clicks(world, good).mean() - online.expected_clicks(world, bad).mean()
    assert ab.low < truth < ab.high
    il = online.interleaving_test(world, bad, good, 1500, seed=0)
    assert il.low > 0 and il.wins_b > il.wins_a
    same = online.interleaving_test(world, good, good, 300, seed=0)
    assert same.low < 0 < same.high  # identical rankers: clicks are credited by the coin, no preference


def test_team_draft_takes_each_rankers_best_unused_item():
    rng = np.random.default_rng(1)
    for _ in range(50):
        merged, teams = online.team_draft_interleave([1, 2, 3, 4], [4, 3, 2, 1], 4, rng)
        assert sorted(merged) == [1, 2, 3, 4] and len(teams) == 4
        assert set(merged[:2]) == {1, 4}  # round one: each ranker's top item
        assert teams.count("a") == teams.count("b") == 2


def test_ips_is_unbiased_and_its_variance_is_honest(world):
    logit = np.log(world.attractiveness) - np.log1p(-world.attractiveness)
    target = online.softmax_policy(logit, 1.0)
    logging = np.full(world.attractiveness.shape, 1 / world.n_items)
    estimates = [
        online.ips_estimate(online.logged_bandit(world, logging, 3000, seed=s), target) for s in range(40)
    ]
    values = np.array([e.estimate for e in estimates])
    truth = online.policy_value(world, target)
    assert values.mean() == pytest.approx(truth, rel=0.05)
    predicted_sd = np.sqrt(np.mean([e.variance for e in estimates]))
    assert values.std(ddof=1) == pytest.approx(predicted_sd, rel=0.35)
    covered = np.mean([e.low <= truth <= e.high for e in estimates])
    assert covered >= 0.8


def test_ips_on_the_logging_policy_itself_is_the_click_rate(world):
    logging = online.softmax_policy(np.zeros(world.attractiveness.shape), 1.0)
    log = online.logged_bandit(world, logging, 500, seed=0)
    result = online.ips_estimate(log, logging)
    assert result.estimate == pytest.approx(log["click"].mean())
    assert result.effective_n == pytest.approx(500)


def test_clipped_value_is_the_monte_carlo_mean_of_clipped_ips_and_never_above_the_truth(world):
    from topkeval.offpolicy import clipped_ips

    logit = np.log(world.attractiveness) - np.log1p(-world.attractiveness)
    target = online.softmax_policy(logit, 0.5)
    logging = online.softmax_policy(np.zeros(world.attractiveness.shape), 1.0)
    truth = online.policy_value(world, target)
    assert online.clipped_value(world, logging, target, np.inf) == pytest.approx(truth)
    exact = [online.clipped_value(world, logging, target, m) for m in (1.0, 3.0, 10.0)]
    assert exact[0] < exact[1] < exact[2] <= truth
    values = []
    for s in range(60):
        log = online.logged_bandit(world, logging, 2000, seed=s)
        values.append(
            clipped_ips(log["click"], target[log["user"], log["item"]], log["propensity"], clip=3.0)
        )
    estimates = np.array([v.estimate for v in values])
    assert abs(estimates.mean() - exact[1]) < 4 * estimates.std(ddof=1) / np.sqrt(estimates.size)


def test_reranked_lists_hold_the_same_items_and_pbm_ips_finds_their_graded_dcg(world):
    from topkeval.offpolicy import pbm_ips

    logged = online.noisy_ranker(world, 2.0, seed=3)
    new = online.rerank(world, logged, 0.0)
    assert (np.sort(new, axis=1) == np.sort(logged, axis=1)).all()
    ranks = online.ranks_in(new, logged)
    assert (np.take_along_axis(new, ranks - 1, axis=1) == logged).all()
    truth = online.graded_dcg(world, new).mean()
    assert truth > online.graded_dcg(world, logged).mean()  # sorted by the truth: the best order
    estimates = []
    for s in range(30):
        log = online.logged_sessions(world, logged, 3000, seed=s)
        estimates.append(pbm_ips(log["clicks"], ranks[log["user"]], propensities=world.examination).estimate)
    assert np.mean(estimates) == pytest.approx(truth, rel=0.02)
    assert online.ranks_in(np.array([[4, 5]]), np.array([[1, 2]])).tolist() == [[0, 0]]


def _naive_moments(world, logging, target, clip):
    """Mean and second moment of one event's term min(w, clip) * click, one (user, item) at a time."""
    mean = square = 0.0
    for u in range(world.n_users):
        for i in range(world.n_items):
            p_click = logging[u, i] / world.n_users * world.attractiveness[u, i] * world.examination[0]
            w = min(target[u, i] / logging[u, i], clip)
            mean, square = mean + p_click * w, square + p_click * w * w
    return mean, square


def test_clipped_sd_and_weight_tail_match_naive_sums_and_the_spread_of_simulated_logs(world):
    from topkeval.offpolicy import ips

    logit = np.log(world.attractiveness) - np.log1p(-world.attractiveness)
    target = online.softmax_policy(logit, 0.5)
    logging = online.softmax_policy(logit.mean(axis=0)[None, :].repeat(world.n_users, 0), 0.5)
    for clip in (2.0, np.inf):
        mean, square = _naive_moments(world, logging, target, clip)
        assert online.clipped_sd(world, logging, target, clip, 400) == pytest.approx(
            np.sqrt((square - mean**2) / 400), rel=1e-9
        )
    estimates = []
    for s in range(300):
        log = online.logged_bandit(world, logging, 400, seed=s)
        estimates.append(ips(log["click"], target[log["user"], log["item"]], log["propensity"]).estimate)
    exact = online.clipped_sd(world, logging, target, np.inf, 400)
    assert np.std(estimates, ddof=1) == pytest.approx(exact, rel=0.15)  # 300 logs: sd known to ~4 %
    weight = target / logging
    threshold = float(np.quantile(weight, 0.95))
    p_event = logging / world.n_users * world.examination[0]
    heavy = weight > threshold
    contribution = p_event * weight * world.attractiveness
    share, rate = online.weight_tail(world, logging, target, threshold)
    assert share == pytest.approx(contribution[heavy].sum() / contribution.sum())
    assert rate == pytest.approx((p_event * world.attractiveness)[heavy].sum())
    assert 0 < share < 1 and online.weight_tail(world, logging, target, weight.max()) == (0.0, 0.0)


def _enumerated_sd(world, logging, target, rhat, term, n_events):
    """The sd of a mean of n_events terms, one (user, item, click) outcome at a time."""
    outcomes = []
    model = (target * rhat).sum(axis=1)
    for u in range(world.n_users):
        for i in range(world.n_items):
            q = world.attractiveness[u, i] * world.examination[0]
            for click, p_click in ((1, q), (0, 1 - q)):
                w = target[u, i] / logging[u, i]
                p = logging[u, i] / world.n_users * p_click
                outcomes.append((p, term(w, click, rhat[u, i], model[u])))
    p, x = np.array(outcomes).T
    return np.sqrt(((p * x * x).sum() - (p * x).sum() ** 2) / n_events)


def test_estimator_sds_match_an_enumeration_and_the_spread_of_simulated_logs(world):
    from topkeval.offpolicy import doubly_robust, snips

    tiny = online.ClickWorld(np.array([[0.9, 0.2, 0.05], [0.1, 0.6, 0.3]]), np.array([0.7, 0.4]))
    logging = np.array([[0.7, 0.2, 0.1], [0.05, 0.9, 0.05]])
    target = np.array([[0.1, 0.1, 0.8], [0.6, 0.2, 0.2]])
    rhat = np.array([[0.5, 0.3, 0.1], [0.2, 0.4, 0.4]])
    sds = online.estimator_sds(tiny, logging, target, rhat, 7)
    assert sds["IPS"] == pytest.approx(
        _enumerated_sd(tiny, logging, target, rhat, lambda w, c, r, m: w * c, 7)
    )
    assert sds["DR"] == pytest.approx(
        _enumerated_sd(tiny, logging, target, rhat, lambda w, c, r, m: m + w * (c - r), 7)
    )
    assert sds["IPS"] == pytest.approx(online.clipped_sd(tiny, logging, target, np.inf, 7))
    # a perfect reward model leaves DR the spread of the users' values plus the weighted click noise
    q = tiny.attractiveness * 0.7
    noise = (logging * (target / logging) ** 2 * q * (1 - q)).sum(axis=1).mean()
    perfect = online.estimator_sds(tiny, logging, target, q, 7)["DR"]
    assert perfect == pytest.approx(np.sqrt((np.var((target * q).sum(axis=1)) + noise) / 7))

    logit = np.log(world.attractiveness) - np.log1p(-world.attractiveness)
    target = online.softmax_policy(logit, 0.5)
    logging = online.softmax_policy(logit.mean(axis=0)[None, :].repeat(world.n_users, 0), 0.5)
    rhat = np.tile(world.attractiveness.mean(axis=0), (world.n_users, 1))
    model = (target * rhat).sum(axis=1)
    snips_values, dr_values = [], []
    for s in range(300):
        log = online.logged_bandit(world, logging, 2000, seed=s)
        u, i = log["user"], log["item"]
        snips_values.append(snips(log["click"], target[u, i], log["propensity"]).estimate)
        dr = doubly_robust(log["click"], target[u, i], log["propensity"], rhat[u, i], model[u])
        dr_values.append(dr.estimate)
    exact = online.estimator_sds(world, logging, target, rhat, 2000)
    assert np.std(snips_values, ddof=1) == pytest.approx(exact["SNIPS"], rel=0.15)  # first order, 300 logs
    assert np.std(dr_values, ddof=1) == pytest.approx(exact["DR"], rel=0.15)
    with pytest.raises(ValueError, match="one prediction per"):
        online.estimator_sds(world, logging, target, rhat[:, :3], 2000)


def test_pbm_expectation_is_the_truth_with_the_right_propensities_and_the_naive_mean_without(world):
    from topkeval.offpolicy import pbm_ips

    logged = online.noisy_ranker(world, 2.0, seed=3)
    new = online.rerank(world, logged, 0.5, seed=1)
    assert online.pbm_expectation(world, logged, new, world.examination) == pytest.approx(
        online.graded_dcg(world, new).mean(), rel=1e-12
    )
    ranks = online.ranks_in(new, logged)
    naive, wrong = [], []
    for s in range(100):
        log = online.logged_sessions(world, logged, 1000, seed=s)
        naive.append(pbm_ips(log["clicks"], ranks[log["user"]], eta=0.0).estimate)
        wrong.append(pbm_ips(log["clicks"], ranks[log["user"]], eta=1.5).estimate)
    for values, propensities in [(naive, np.ones(5)), (wrong, np.arange(1, 6) ** -1.5)]:
        exact = online.pbm_expectation(world, logged, new, propensities)
        assert abs(np.mean(values) - exact) < 4 * np.std(values, ddof=1) / np.sqrt(len(values))
    assert online.pbm_expectation(world, logged, new, np.ones(5)) < online.graded_dcg(world, new).mean() - 0.1


@pytest.mark.parametrize(
    "call, match",
    [
        (
            lambda w: online.ab_test(w, np.zeros((3, 5), dtype=int), np.zeros((3, 5), dtype=int), 10),
            "n_users",
        ),
        (
            lambda w: online.ab_test(w, online.noisy_ranker(w, 1.0), online.noisy_ranker(w, 1.0), 2),
            "n_sessions",
        ),
        (lambda w: online.logged_bandit(w, np.ones((w.n_users, w.n_items)), 10), "sum to 1"),
        (lambda w: online.softmax_policy(np.zeros((2, 2)), 0), "temperature"),
        (lambda w: online.click_world(n_users=0), "n_users"),
    ],
)
def test_bad_inputs(world, call, match):
    with pytest.raises(ValueError, match=match):
        call(world)
