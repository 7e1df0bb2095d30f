"""What offline metrics cannot tell you: a small simulated world of clicks.

Offline evaluation scores lists against a frozen log. Online, users *react*
to what they are shown. This module simulates that reaction, with NumPy only,
so the three online methods can be compared with the truth known:

* :func:`ab_test`: split sessions between two rankers and compare clicks per session;
* :func:`team_draft_interleave` and :func:`interleaving_test`: show one list
  merged from both rankers and credit each click to the ranker that
  contributed the item (Radlinski, Kurup and Joachims, CIKM 2008);
* :func:`logged_bandit` and :func:`ips_estimate`: estimate, from a log
  collected by one (randomised) policy, the click rate another policy would
  get, by inverse propensity scoring, with its variance (the estimators are
  :mod:`topkeval.offpolicy`'s; :func:`clipped_value` and :func:`clipped_sd`
  are clipped IPS's exact expectation and standard deviation,
  :func:`estimator_sds` the exact spreads of IPS, doubly robust and SNIPS, and
  :func:`weight_tail` how much of the value rides on rare heavy weights);
* :func:`logged_sessions`, :func:`rerank`, :func:`ranks_in` and
  :func:`graded_dcg`: a deployed ranker's click log, new rankings of the same
  items, and the truth that :func:`topkeval.offpolicy.pbm_ips` estimates;
  :func:`pbm_expectation` is that estimator's exact expectation for any
  propensities (right, wrong, or none).

The world (:func:`click_world`) is a *position-based model*: a user examines
rank r with probability ``examination[r]`` and, having examined item i,
clicks with probability ``attractiveness[u, i]``. Expected clicks are then
known exactly (:func:`expected_clicks`, :func:`policy_value`), which a real
system never offers.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from topkeval import offpolicy, rank_discount
from topkeval.checks import check_int

__all__ = [
    "ClickWorld",
    "click_world",
    "noisy_ranker",
    "expected_clicks",
    "simulate_clicks",
    "ABResult",
    "ab_test",
    "team_draft_interleave",
    "InterleavingResult",
    "interleaving_test",
    "logged_bandit",
    "softmax_policy",
    "policy_value",
    "IPSResult",
    "ips_estimate",
    "clipped_value",
    "clipped_sd",
    "weight_tail",
    "rerank",
    "ranks_in",
    "logged_sessions",
    "graded_dcg",
    "pbm_expectation",
]

_Z95 = 1.959963984540054  # the 97.5 % quantile of the standard normal


@dataclass(frozen=True)
class ClickWorld:
    """Users' click behaviour: ``attractiveness`` (users x items) and ``examination`` (per rank).

    Parameters
    ----------
    attractiveness : numpy.ndarray
        ``attractiveness[u, i]``: the probability that user u clicks item i once they examine it.
    examination : numpy.ndarray
        ``examination[r - 1]``: the probability that a user examines rank r; its length is the
        longest list the world shows.

    Examples
    --------
    >>> world = ClickWorld(np.array([[0.5, 0.1], [0.2, 0.9]]), np.array([1.0, 0.5]))
    >>> world.n_users, world.n_items
    (2, 2)
    """

    attractiveness: np.ndarray
    examination: np.ndarray

    @property
    def n_users(self) -> int:
        return self.attractiveness.shape[0]

    @property
    def n_items(self) -> int:
        return self.attractiveness.shape[1]


def click_world(
    n_users: int = 2000,
    n_items: int = 200,
    *,
    k: int = 10,
    position_bias: float = 0.8,
    n_factors: int = 4,
    seed: int = 0,
) -> ClickWorld:
    """A seeded position-based click model.

    Parameters
    ----------
    n_users, n_items : int
        Size of the world.
    k : int
        Number of ranks a list has.
    position_bias : float
        Examination of rank r is ``r ** -position_bias``: 0 means every rank
        is read, 1 means rank 2 is read half as often as rank 1.
    n_factors : int
        Dimension of the hidden tastes that make attractiveness personal.
    seed : int
        The same arguments give the same world.

    Returns
    -------
    ClickWorld
        Attractiveness from item popularity plus personal taste (mostly small: most items are
        rarely clicked), examination falling with rank.

    Raises
    ------
    ValueError
        For a size that is not a positive integer or a ``position_bias`` outside 0 to 3.

    Examples
    --------
    >>> from helpers.experiments.online import click_world
    >>> world = click_world(n_users=5, n_items=8, k=3, seed=1)
    >>> world.attractiveness.shape, world.examination.round(3).tolist()
    ((5, 8), [1.0, 0.574, 0.415])
    """
    n_users, n_items, k = check_int(n_users, "n_users"), check_int(n_items, "n_items"), check_int(k, "k")
    if not 0 <= position_bias <= 3:
        raise ValueError(f"position_bias must be between 0 and 3; got {position_bias!r}.")
    rng = np.random.default_rng(seed)
    popularity = rng.normal(-2.5, 0.8, size=n_items)
    users = rng.normal(size=(n_users, n_factors))
    items = rng.normal(size=(n_items, n_factors))
    logits = popularity[None, :] + 1.2 * (users @ items.T) / math.sqrt(n_factors)
    attractiveness = 1.0 / (1.0 + np.exp(-logits))
    examination = np.arange(1, k + 1, dtype=np.float64) ** -float(position_bias)
    return ClickWorld(attractiveness, examination)


def noisy_ranker(world: ClickWorld, noise: float, *, seed: int = 0) -> np.ndarray:
    """Top-k lists from the true attractiveness blurred by Gaussian noise on the logit scale.

    Parameters
    ----------
    world : ClickWorld
        The click model (from :func:`click_world`).
    noise : float
        Standard deviation of the noise: 0 is the best possible ranker; more noise, a worse one.
    seed : int
        Seed of the noise.

    Returns
    -------
    numpy.ndarray
        A (users x k) int matrix of item ids, best first.

    Examples
    --------
    >>> world = ClickWorld(np.array([[0.1, 0.9, 0.5]]), np.ones(2))
    >>> noisy_ranker(world, 0.0).tolist()
    [[1, 2]]
    """
    rng = np.random.default_rng(seed)
    logit = np.log(world.attractiveness) - np.log1p(-world.attractiveness)
    scores = logit + noise * rng.normal(size=logit.shape)
    return np.argsort(-scores, axis=1, kind="stable")[:, : world.examination.size]


def _check_lists(world: ClickWorld, top: np.ndarray, name: str) -> np.ndarray:
    top = np.asarray(top)
    if top.ndim != 2 or top.shape[0] != world.n_users or top.shape[1] > world.examination.size:
        raise ValueError(
            f"{name} must be a (n_users x k) int matrix with n_users = {world.n_users} and k <= "
            f"{world.examination.size}; got shape {top.shape}."
        )
    if top.size and (top.min() < 0 or top.max() >= world.n_items):
        raise ValueError(f"{name} holds item ids outside 0..{world.n_items - 1}.")
    return top.astype(np.int64)


def expected_clicks(world: ClickWorld, top: np.ndarray) -> np.ndarray:
    """Each user's expected number of clicks on their list: sum over r of exam[r] * attr[u, top[u, r]].

    Parameters
    ----------
    world : ClickWorld
        The click model (from :func:`click_world`).
    top : numpy.ndarray
        A (users x k) int matrix: each user's list, with k at most the world's ranks.

    Returns
    -------
    numpy.ndarray
        One expected click count per user (exact: no sampling).

    Raises
    ------
    ValueError
        For lists of the wrong shape or holding ids outside the catalogue.

    Examples
    --------
    >>> import numpy as np
    >>> from helpers.experiments.online import ClickWorld, expected_clicks
    >>> world = ClickWorld(np.array([[0.5, 0.1]]), np.array([1.0, 0.5]))
    >>> expected_clicks(world, np.array([[0, 1]])).tolist()  # 0.5 + 0.5 * 0.1
    [0.55]
    """
    top = _check_lists(world, top, "top")
    attr = np.take_along_axis(world.attractiveness, top, axis=1)
    return attr @ world.examination[: top.shape[1]]


def simulate_clicks(
    world: ClickWorld, users: np.ndarray, lists: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """A (sessions x k) 0/1 matrix of clicks for the given users shown the given lists.

    Each position is clicked independently with probability examination times attractiveness
    (the position-based model); no input is validated, callers pass checked lists.

    Parameters
    ----------
    world : ClickWorld
        The click model (from :func:`click_world`).
    users : numpy.ndarray
        The user of each session.
    lists : numpy.ndarray
        The (sessions x k) list shown in each session.
    rng : numpy.random.Generator
        The source of randomness (advanced by the call).

    Returns
    -------
    numpy.ndarray
        0/1 int clicks, column r - 1 for rank r.

    Examples
    --------
    >>> world = ClickWorld(np.array([[1.0, 0.0]]), np.array([1.0, 1.0]))
    >>> rng = np.random.default_rng(0)
    >>> clicks = simulate_clicks(world, np.array([0, 0]), np.array([[0, 1], [1, 0]]), rng)
    >>> clicks.tolist()  # item 0 is always clicked, item 1 never
    [[1, 0], [0, 1]]
    """
    attr = np.take_along_axis(world.attractiveness[users], lists, axis=1)
    probability = attr * world.examination[None, : lists.shape[1]]
    return (rng.random(lists.shape) < probability).astype(np.int64)


# ----------------------------------------------------------------- A/B test
@dataclass(frozen=True)
class ABResult:
    """Clicks per session in each arm, their difference B - A and its normal 95 % interval.

    Parameters
    ----------
    clicks_a, clicks_b : float
        Mean clicks per session in arm A and in arm B.
    difference : float
        ``clicks_b - clicks_a``.
    low, high : float
        The 95 % interval of the difference (normal approximation, unequal variances).
    sessions_a, sessions_b : int
        Sessions sent to each arm.

    Examples
    --------
    >>> ABResult(1.0, 1.2, 0.2, 0.05, 0.35, 500, 500).difference
    0.2
    """

    clicks_a: float
    clicks_b: float
    difference: float
    low: float
    high: float
    sessions_a: int
    sessions_b: int


def ab_test(world: ClickWorld, top_a, top_b, n_sessions: int, *, seed: int = 0) -> ABResult:
    """Send each session's user to ranker A or B at random (half each) and count clicks.

    Parameters
    ----------
    world : ClickWorld
        The click model (from :func:`click_world`).
    top_a, top_b : array_like of int
        The (users x k) lists of the two rankers.
    n_sessions : int
        Sessions in the test (at least 4); users are drawn uniformly, with repetition.
    seed : int
        Seed of users, arms and clicks.

    Returns
    -------
    ABResult
        Clicks per session in each arm, and the difference with its interval.

    Raises
    ------
    ValueError
        For lists of the wrong shape, too few sessions, or an arm left with fewer than two.

    Examples
    --------
    >>> from helpers.experiments.online import ab_test, click_world, noisy_ranker
    >>> world = click_world(n_users=200, n_items=50, seed=0)
    >>> result = ab_test(world, noisy_ranker(world, 3.0), noisy_ranker(world, 0.0), 4000, seed=1)
    >>> result.sessions_a + result.sessions_b, result.difference > 0
    (4000, True)
    """
    top_a, top_b = _check_lists(world, top_a, "top_a"), _check_lists(world, top_b, "top_b")
    n_sessions = check_int(n_sessions, "n_sessions", 4)
    rng = np.random.default_rng(seed)
    users = rng.integers(world.n_users, size=n_sessions)
    arm_b = rng.random(n_sessions) < 0.5
    lists = np.where(arm_b[:, None], top_b[users], top_a[users])
    clicks = simulate_clicks(world, users, lists, rng).sum(axis=1).astype(np.float64)
    a, b = clicks[~arm_b], clicks[arm_b]
    if a.size < 2 or b.size < 2:
        raise ValueError("each arm needs at least two sessions; use more sessions.")
    diff = b.mean() - a.mean()
    se = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    return ABResult(
        float(a.mean()),
        float(b.mean()),
        float(diff),
        float(diff - _Z95 * se),
        float(diff + _Z95 * se),
        int(a.size),
        int(b.size),
    )


# ----------------------------------------------------------------- interleaving
def team_draft_interleave(list_a, list_b, k: int, rng: np.random.Generator) -> tuple[list, list]:
    """Merge two rankings by team draft; return the merged list and who contributed each item.

    In each round a coin decides which ranker picks first; each then adds its
    highest-ranked item not already in the merged list. The team of an item
    is ``"a"`` or ``"b"``. When one ranking runs out, the other fills the list; the merged list
    is shorter than ``k`` only when both together hold fewer than ``k`` distinct items.

    Parameters
    ----------
    list_a, list_b : sequence
        The two rankings, best first.
    k : int
        The length of the merged list.
    rng : numpy.random.Generator
        The coin (advanced by the call).

    Returns
    -------
    tuple of (list, list of str)
        The merged list and, for each of its items, the team that contributed it.

    Examples
    --------
    >>> import numpy as np
    >>> from helpers.experiments.online import team_draft_interleave
    >>> merged, teams = team_draft_interleave([1, 2, 3], [2, 4, 5], 4, np.random.default_rng(0))
    >>> sorted(merged[:2]) == [1, 2] and len(set(merged)) == 4
    True
    """
    merged: list = []
    teams: list[str] = []
    seen: set = set()
    position = {"a": 0, "b": 0}
    source = {"a": list(list_a), "b": list(list_b)}

    def pick(team: str) -> None:
        ranking = source[team]
        while position[team] < len(ranking) and ranking[position[team]] in seen:
            position[team] += 1
        if position[team] < len(ranking) and len(merged) < k:
            item = ranking[position[team]]
            merged.append(item)
            teams.append(team)
            seen.add(item)

    while len(merged) < k and (position["a"] < len(source["a"]) or position["b"] < len(source["b"])):
        first = "a" if rng.random() < 0.5 else "b"
        before = len(merged)
        for team in (first, "b" if first == "a" else "a"):
            pick(team)
        if len(merged) == before:
            break
    return merged, teams


@dataclass(frozen=True)
class InterleavingResult:
    """Sessions won by each ranker, ties, and the preference for B with its 95 % interval.

    Parameters
    ----------
    wins_a, wins_b, ties : int
        Sessions in which A's items got more clicks, B's did, or neither.
    preference : float
        ``(wins_b + ties / 2) / sessions - 1/2``: 0 means no preference, positive favours B.
    low, high : float
        The preference's 95 % interval (normal approximation).

    Examples
    --------
    >>> InterleavingResult(40, 55, 5, 0.075, 0.0, 0.15).preference > 0
    True
    """

    wins_a: int
    wins_b: int
    ties: int
    preference: float
    low: float
    high: float


def interleaving_test(
    world: ClickWorld, top_a, top_b, n_sessions: int, *, seed: int = 0
) -> InterleavingResult:
    """Show each session a team-draft interleaving of A and B; the ranker with more clicks wins it.

    Parameters
    ----------
    world : ClickWorld
        The click model (from :func:`click_world`).
    top_a, top_b : array_like of int
        The (users x k) lists of the two rankers.
    n_sessions : int
        Sessions in the test (at least 4).
    seed : int
        Seed of users, coins and clicks.

    Returns
    -------
    InterleavingResult
        Wins, ties and the preference for B.

    Raises
    ------
    ValueError
        For lists of the wrong shape or too few sessions.

    Examples
    --------
    >>> from helpers.experiments.online import click_world, interleaving_test, noisy_ranker
    >>> world = click_world(n_users=200, n_items=50, seed=0)
    >>> result = interleaving_test(world, noisy_ranker(world, 3.0), noisy_ranker(world, 0.0), 500, seed=1)
    >>> result.wins_a + result.wins_b + result.ties, result.preference > 0
    (500, True)
    """
    top_a, top_b = _check_lists(world, top_a, "top_a"), _check_lists(world, top_b, "top_b")
    n_sessions = check_int(n_sessions, "n_sessions", 4)
    k = world.examination.size
    rng = np.random.default_rng(seed)
    users = rng.integers(world.n_users, size=n_sessions)
    lists = np.empty((n_sessions, k), dtype=np.int64)
    is_b = np.zeros((n_sessions, k), dtype=bool)
    for s, user in enumerate(users):
        merged, teams = team_draft_interleave(top_a[user].tolist(), top_b[user].tolist(), k, rng)
        lists[s] = merged
        is_b[s] = [t == "b" for t in teams]
    clicks = simulate_clicks(world, users, lists, rng)
    credit_b, credit_a = (clicks * is_b).sum(axis=1), (clicks * ~is_b).sum(axis=1)
    outcome = np.sign(credit_b - credit_a)  # +1 B wins, -1 A wins, 0 tie
    score = (outcome + 1) / 2.0  # 1, 0 or 1/2 per session
    preference = score.mean() - 0.5
    se = score.std(ddof=1) / math.sqrt(n_sessions)
    return InterleavingResult(
        int((outcome < 0).sum()),
        int((outcome > 0).sum()),
        int((outcome == 0).sum()),
        float(preference),
        float(preference - _Z95 * se),
        float(preference + _Z95 * se),
    )


# ----------------------------------------------------------------- off-policy
def softmax_policy(scores: np.ndarray, temperature: float) -> np.ndarray:
    """Row-wise softmax of ``scores / temperature``: a randomised top-1 policy (users x items).

    Parameters
    ----------
    scores : array_like of float
        A (users x items) score matrix.
    temperature : float
        Above 0: small makes the policy nearly greedy, large nearly uniform.

    Returns
    -------
    numpy.ndarray
        Rows of probabilities that sum to 1.

    Raises
    ------
    ValueError
        For a temperature that is not above 0.

    Examples
    --------
    >>> softmax_policy(np.array([[0.0, np.log(3)]]), 1.0).round(2).tolist()
    [[0.25, 0.75]]
    """
    if not temperature > 0:
        raise ValueError(f"temperature must be > 0; got {temperature!r}.")
    z = np.asarray(scores, dtype=np.float64) / temperature
    z = np.exp(z - z.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


def logged_bandit(world: ClickWorld, logging_policy: np.ndarray, n_events: int, *, seed: int = 0) -> dict:
    """A log of top-1 recommendations drawn from ``logging_policy`` (users x items probabilities).

    Parameters
    ----------
    world : ClickWorld
        The click model (from :func:`click_world`).
    logging_policy : array_like of float
        A (users x items) matrix whose rows sum to 1.
    n_events : int
        Events in the log; users are drawn uniformly.
    seed : int
        Seed of users, items and clicks.

    Returns
    -------
    dict
        Arrays ``user``, ``item``, ``propensity`` (the logging policy's probability of the item
        shown) and ``click`` (0/1, with the rank-1 examination).

    Raises
    ------
    ValueError
        For a policy of the wrong shape or whose rows do not sum to 1.

    Examples
    --------
    >>> world = ClickWorld(np.array([[0.5, 0.5]]), np.array([1.0]))
    >>> log = logged_bandit(world, np.array([[0.9, 0.1]]), 5, seed=0)
    >>> sorted(log), log["propensity"].shape
    (['click', 'item', 'propensity', 'user'], (5,))
    """
    n_events = check_int(n_events, "n_events")
    policy = np.asarray(logging_policy, dtype=np.float64)
    if policy.shape != world.attractiveness.shape or not np.allclose(policy.sum(axis=1), 1.0):
        raise ValueError("logging_policy must be a (users x items) matrix whose rows sum to 1.")
    rng = np.random.default_rng(seed)
    users = rng.integers(world.n_users, size=n_events)
    cumulative = np.cumsum(policy[users], axis=1)
    items = np.minimum((cumulative < rng.random(n_events)[:, None]).sum(axis=1), world.n_items - 1)
    propensity = policy[users, items]
    click = (rng.random(n_events) < world.examination[0] * world.attractiveness[users, items]).astype(
        np.int64
    )
    return {"user": users, "item": items, "propensity": propensity, "click": click}


def policy_value(world: ClickWorld, policy: np.ndarray) -> float:
    """The true click rate of a top-1 policy (users x items probabilities), users equally likely.

    Parameters
    ----------
    world : ClickWorld
        The click model (from :func:`click_world`).
    policy : array_like of float
        A (users x items) matrix of probabilities.

    Returns
    -------
    float
        The expected clicks per event, exactly: what the off-policy estimators try to recover.

    Examples
    --------
    >>> world = ClickWorld(np.array([[0.5, 0.2]]), np.array([1.0]))
    >>> policy_value(world, np.array([[0.1, 0.9]]))  # 0.1 * 0.5 + 0.9 * 0.2
    0.23
    """
    policy = np.asarray(policy, dtype=np.float64)
    return float((policy * world.attractiveness).sum(axis=1).mean() * world.examination[0])


@dataclass(frozen=True)
class IPSResult:
    """An inverse-propensity estimate of a policy's click rate.

    Parameters
    ----------
    estimate : float
        The IPS estimate.
    variance : float
        The estimated variance of ``estimate`` (sample variance of the weighted clicks / n).
    low, high : float
        The estimate's 95 % interval.
    effective_n : float
        (sum w)^2 / sum w^2, the number of events the log is worth for this policy.
    snips : float
        The self-normalised estimate sum(w * click) / sum(w) (NaN when every weight is 0).

    Examples
    --------
    >>> IPSResult(0.8, 0.04, 0.41, 1.19, 1.6, 0.8).effective_n
    1.6
    """

    estimate: float
    variance: float
    low: float
    high: float
    effective_n: float
    snips: float


def ips_estimate(log: dict, target_policy: np.ndarray) -> IPSResult:
    """Estimate the click rate of ``target_policy`` from a log collected by another policy.

    V_IPS = mean over events of w * click, with w = pi_target(item | user) / propensity: the
    course's wrapper around :func:`topkeval.offpolicy.ips` and :func:`topkeval.offpolicy.snips`
    for a log of :func:`logged_bandit` and a (users x items) policy matrix.

    Parameters
    ----------
    log : dict
        A log as :func:`logged_bandit` returns it.
    target_policy : array_like of float
        The (users x items) probabilities of the policy being evaluated.

    Returns
    -------
    IPSResult
        The plain estimate with its variance and interval, the effective sample size and SNIPS.

    Examples
    --------
    >>> import numpy as np
    >>> from helpers.experiments.online import ips_estimate
    >>> log = {"user": np.array([0, 0]), "item": np.array([0, 1]), "propensity": np.array([0.5, 0.5]),
    ...        "click": np.array([1, 0])}
    >>> ips_estimate(log, np.array([[0.8, 0.2]])).estimate  # (1.6 * 1 + 0.4 * 0) / 2
    0.8
    """
    target, click, propensity = _logged_columns(log, target_policy)
    plain = offpolicy.ips(click, target, propensity)
    with warnings.catch_warnings():  # only SNIPS's estimate is kept, so a warning about its interval is moot
        warnings.simplefilter("ignore", RuntimeWarning)
        snips = offpolicy.snips(click, target, propensity).estimate if plain.max_weight > 0 else float("nan")
    return IPSResult(plain.estimate, plain.standard_error**2, plain.low, plain.high, plain.effective_n, snips)


def _logged_columns(log: dict, target_policy) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(the target policy's probability of each logged item, the clicks, the propensities)."""
    target = np.asarray(target_policy, dtype=np.float64)
    return target[log["user"], log["item"]], np.asarray(log["click"]), np.asarray(log["propensity"])


def clipped_value(world: ClickWorld, logging_policy, target_policy, clip: float) -> float:
    """The exact expected value of clipped IPS (weights capped at ``clip``) on logs of ``logging_policy``.

    E = mean over users of sum over items of pi_log * min(pi_target / pi_log, clip) * attractiveness,
    times the rank-1 examination. The difference from :func:`policy_value` of the target is clipping's
    bias, which is never positive because clicks are never negative, and is 0 once ``clip`` reaches the
    largest weight. With ``clip`` = inf it equals :func:`policy_value` only if the logging policy gives
    every item the target can show a probability above 0: an item the logging policy never shows never
    enters a log, so its weight counts 0 here, and the shortfall is plain IPS's own bias.

    Parameters
    ----------
    world : ClickWorld
        The click model (from :func:`click_world`).
    logging_policy : array_like of float
        The (users x items) probabilities with which the log was collected.
    target_policy : array_like of float
        The (users x items) probabilities of the policy being evaluated.
    clip : float
        The cap on each weight (``numpy.inf`` for plain IPS).

    Returns
    -------
    float
        The estimator's expectation.

    Examples
    --------
    >>> import numpy as np
    >>> from helpers.experiments.online import ClickWorld, clipped_value
    >>> world = ClickWorld(np.array([[0.5, 0.2]]), np.array([1.0]))
    >>> clipped_value(world, np.array([[0.9, 0.1]]), np.array([[0.1, 0.9]]), clip=2.0)  # 0.1*0.5 + 0.2*0.2
    0.09
    """
    click_mass, weight = _event_table(world, logging_policy, target_policy)
    return float((click_mass * np.minimum(weight, clip)).sum())


def _event_table(world: ClickWorld, logging_policy, target_policy) -> tuple[np.ndarray, np.ndarray]:
    """(probability that one logged event shows item i to user u and is clicked, the weight of (u, i))."""
    logging = np.asarray(logging_policy, dtype=np.float64)
    target = np.asarray(target_policy, dtype=np.float64)
    weight = np.divide(target, logging, out=np.zeros_like(target), where=logging > 0)
    click_mass = logging * world.attractiveness * world.examination[0] / world.n_users
    return click_mass, weight


def clipped_sd(world: ClickWorld, logging_policy, target_policy, clip: float, n_events: int) -> float:
    """The exact standard deviation of clipped IPS (``clip`` = inf: plain IPS) on a log of ``n_events``.

    Each event's term min(w, clip) * click has mean E (:func:`clipped_value`) and, a click being 0 or 1,
    second moment S = sum of P(event is (u, i) and clicked) * min(w, clip) ** 2; the estimate, a mean of
    ``n_events`` independent terms, has standard deviation sqrt((S - E ** 2) / n_events).

    Parameters
    ----------
    world : ClickWorld
        The click model (from :func:`click_world`).
    logging_policy : array_like of float
        The (users x items) probabilities with which the log was collected.
    target_policy : array_like of float
        The (users x items) probabilities of the policy being evaluated.
    clip : float
        The cap on each weight.
    n_events : int
        Events in one log.

    Returns
    -------
    float
        The estimate's standard deviation over logs of that size.

    Examples
    --------
    >>> import numpy as np
    >>> from helpers.experiments.online import ClickWorld, clipped_sd
    >>> world = ClickWorld(np.array([[1.0, 0.0]]), np.array([1.0]))
    >>> clipped_sd(world, np.array([[0.5, 0.5]]), np.array([[1.0, 0.0]]), np.inf, 4)  # term 2 or 0
    0.5
    """
    n_events = check_int(n_events, "n_events")
    click_mass, weight = _event_table(world, logging_policy, target_policy)
    capped = np.minimum(weight, clip)
    mean, square = float((click_mass * capped).sum()), float((click_mass * capped**2).sum())
    return math.sqrt(max(square - mean * mean, 0.0) / n_events)


def estimator_sds(world: ClickWorld, logging_policy, target_policy, reward_model, n_events: int) -> dict:
    """The exact standard deviations of IPS, doubly robust and SNIPS on a log of ``n_events`` events.

    One logged event draws a user uniformly, an item i from ``logging_policy[u]`` and a click with
    probability q = attractiveness * examination[0]. With w = target / logging, rhat = ``reward_model``
    and m_u = sum_i target[u, i] * rhat[u, i], the terms are w * click (IPS) and m_u + w * (click - rhat)
    (doubly robust, :func:`topkeval.offpolicy.doubly_robust`); their variances are sums over every user,
    item and click, divided by ``n_events``. SNIPS is a ratio, so its value is to first order (the delta
    method, exact as ``n_events`` grows): Var(w * (click - V)) / (E[w] ** 2 * n_events), with
    V = E[w * click] / E[w]. No sampling is involved, so rare heavy weights count with their true
    probability, however seldom a finite set of simulated logs holds them. SNIPS's estimate lies in
    [0, 1], so its true standard deviation is at most 0.5: a first-order value above that says the log
    is far too small for the approximation, not that SNIPS spreads that much.

    Parameters
    ----------
    world : ClickWorld
        The click model (from :func:`click_world`).
    logging_policy : array_like of float
        The (users x items) probabilities with which the log was collected.
    target_policy : array_like of float
        The (users x items) probabilities of the policy being evaluated.
    reward_model : array_like of float
        The doubly robust estimator's predicted click probability of each (user, item).
    n_events : int
        Events in one log.

    Returns
    -------
    dict
        ``{"IPS": sd, "DR": sd, "SNIPS": sd}``.

    Raises
    ------
    ValueError
        When ``reward_model`` does not have the policies' shape.

    Examples
    --------
    >>> import numpy as np
    >>> from helpers.experiments.online import ClickWorld, estimator_sds
    >>> world = ClickWorld(np.array([[1.0, 0.0]]), np.array([1.0]))
    >>> sds = estimator_sds(world, np.array([[0.5, 0.5]]), np.array([[1.0, 0.0]]), np.zeros((1, 2)), 4)
    >>> sds["IPS"], sds["DR"], sds["SNIPS"]  # IPS and DR: a term of 2 or 0; SNIPS is always 1
    (0.5, 0.5, 0.0)
    """
    n_events = check_int(n_events, "n_events")
    logging = np.asarray(logging_policy, dtype=np.float64)
    target = np.asarray(target_policy, dtype=np.float64)
    rhat = np.asarray(reward_model, dtype=np.float64)
    if rhat.shape != target.shape:
        raise ValueError(
            f"reward_model has shape {rhat.shape}; it needs one prediction per (user, item), "
            f"shape {target.shape}"
        )
    weight = np.divide(target, logging, out=np.zeros_like(target), where=logging > 0)
    shown = logging / world.n_users  # P(event is (u, i))
    q = world.attractiveness * world.examination[0]
    model = (target * rhat).sum(axis=1, keepdims=True)

    def variance(first, second) -> float:  # E[x | u, i] and E[x ** 2 | u, i]
        mean = float((shown * first).sum())
        return max(float((shown * second).sum()) - mean * mean, 0.0)

    ips = variance(weight * q, weight**2 * q)
    residual_square = q * (1 - rhat) ** 2 + (1 - q) * rhat**2  # E[(click - rhat) ** 2 | u, i]
    dr_mean = model + weight * (q - rhat)
    dr = variance(dr_mean, model**2 + 2 * model * weight * (q - rhat) + weight**2 * residual_square)
    mean_weight = float((shown * weight).sum())
    value = float((shown * weight * q).sum()) / mean_weight
    snips = float((shown * weight**2 * (q * (1 - value) ** 2 + (1 - q) * value**2)).sum()) / mean_weight**2
    return {name: math.sqrt(v / n_events) for name, v in [("IPS", ips), ("DR", dr), ("SNIPS", snips)]}


def weight_tail(world: ClickWorld, logging_policy, target_policy, threshold: float) -> tuple[float, float]:
    """How much of IPS's expectation rides on weights above ``threshold``, and how rare such clicks are.

    Parameters
    ----------
    world : ClickWorld
        The click model (from :func:`click_world`).
    logging_policy : array_like of float
        The (users x items) probabilities with which the log was collected.
    target_policy : array_like of float
        The (users x items) probabilities of the policy being evaluated.
    threshold : float
        The weight above which a (user, item) pair counts as heavy.

    Returns
    -------
    tuple of float
        The share of E[IPS] = sum of P(event is (u, i) and clicked) * w that comes from pairs with
        w > threshold, and the probability that one logged event is such a pair and is clicked.
        Multiplied by the number of events in all the logs, the second is the number of such
        clicks to expect in them.

    Examples
    --------
    >>> import numpy as np
    >>> from helpers.experiments.online import ClickWorld, weight_tail
    >>> world = ClickWorld(np.array([[0.5, 0.5]]), np.array([1.0]))
    >>> weight_tail(world, np.array([[0.9, 0.1]]), np.array([[0.5, 0.5]]), 2.0)  # item 1 has w = 5
    (0.5, 0.05)
    """
    click_mass, weight = _event_table(world, logging_policy, target_policy)
    heavy = weight > threshold
    total = float((click_mass * weight).sum())
    share = float((click_mass * weight)[heavy].sum()) / total if total > 0 else 0.0
    return share, float(click_mass[heavy].sum())


# ----------------------------------------------------------------- off-policy, ranked lists
def rerank(world: ClickWorld, lists: np.ndarray, noise: float, *, seed: int = 0) -> np.ndarray:
    """The same items as ``lists``, reordered by the true attractiveness blurred by noise on the logit scale.

    Parameters
    ----------
    world : ClickWorld
        The click model (from :func:`click_world`).
    lists : numpy.ndarray
        The (users x k) logged lists.
    noise : float
        Standard deviation of the noise (0: the best order of these items).
    seed : int
        Seed of the noise.

    Returns
    -------
    numpy.ndarray
        The reordered lists, same shape.

    Raises
    ------
    ValueError
        For lists of the wrong shape or holding ids outside the catalogue.

    Examples
    --------
    >>> import numpy as np
    >>> from helpers.experiments.online import ClickWorld, rerank
    >>> world = ClickWorld(np.array([[0.1, 0.9, 0.5]]), np.ones(3))
    >>> rerank(world, np.array([[0, 1, 2]]), noise=0.0).tolist()
    [[1, 2, 0]]
    """
    lists = _check_lists(world, lists, "lists")
    attr = np.take_along_axis(world.attractiveness, lists, axis=1)
    scores = np.log(attr) - np.log1p(-attr) + noise * np.random.default_rng(seed).normal(size=attr.shape)
    return np.take_along_axis(lists, np.argsort(-scores, axis=1, kind="stable"), axis=1)


def ranks_in(new_lists: np.ndarray, logged_lists: np.ndarray) -> np.ndarray:
    """For each logged item, the 1-based rank the new list gives it (0 if the new list does not hold it).

    Parameters
    ----------
    new_lists : numpy.ndarray
        The (users x k') new lists.
    logged_lists : numpy.ndarray
        The (users x k) logged lists.

    Returns
    -------
    numpy.ndarray
        A (users x k) int matrix of ranks in the new lists.

    Examples
    --------
    >>> import numpy as np
    >>> from helpers.experiments.online import ranks_in
    >>> ranks_in(np.array([[7, 5, 9]]), np.array([[5, 8, 7]])).tolist()
    [[2, 0, 1]]
    """
    new_lists, logged_lists = np.asarray(new_lists), np.asarray(logged_lists)
    match = logged_lists[:, :, None] == new_lists[:, None, :]  # (users, logged rank, new rank)
    return (match * np.arange(1, new_lists.shape[1] + 1)).sum(axis=2)


def logged_sessions(world: ClickWorld, lists: np.ndarray, n_sessions: int, *, seed: int = 0) -> dict:
    """A click log of a deployed ranker: random users, each shown their list, clicks from the click model.

    Parameters
    ----------
    world : ClickWorld
        The click model (from :func:`click_world`).
    lists : numpy.ndarray
        The (users x k) deployed lists.
    n_sessions : int
        Sessions in the log; users are drawn uniformly.
    seed : int
        Seed of users and clicks.

    Returns
    -------
    dict
        ``user`` (sessions) and ``clicks`` (sessions x k, column r - 1 for rank r).

    Raises
    ------
    ValueError
        For lists of the wrong shape or a session count that is not a positive integer.

    Examples
    --------
    >>> from helpers.experiments.online import click_world, logged_sessions, noisy_ranker
    >>> world = click_world(n_users=20, n_items=30, k=5, seed=0)
    >>> log = logged_sessions(world, noisy_ranker(world, 1.0), 100, seed=1)
    >>> log["user"].shape, log["clicks"].shape
    ((100,), (100, 5))
    """
    lists = _check_lists(world, lists, "lists")
    n_sessions = check_int(n_sessions, "n_sessions")
    rng = np.random.default_rng(seed)
    users = rng.integers(world.n_users, size=n_sessions)
    return {"user": users, "clicks": simulate_clicks(world, users, lists[users], rng)}


def graded_dcg(world: ClickWorld, lists: np.ndarray) -> np.ndarray:
    """Each user's DCG of ``lists`` with the click probability once examined as the grade.

    The truth that :func:`topkeval.offpolicy.pbm_ips` estimates with ``discount="dcg"``.

    Parameters
    ----------
    world : ClickWorld
        The click model (from :func:`click_world`).
    lists : numpy.ndarray
        The (users x k) lists.

    Returns
    -------
    numpy.ndarray
        One DCG per user.

    Raises
    ------
    ValueError
        For lists of the wrong shape or holding ids outside the catalogue.

    Examples
    --------
    >>> import numpy as np
    >>> from helpers.experiments.online import ClickWorld, graded_dcg
    >>> graded_dcg(ClickWorld(np.array([[0.5, 0.3]]), np.ones(2)), np.array([[1, 0]])).round(4).tolist()
    [0.6155]
    """
    lists = _check_lists(world, lists, "lists")
    attr = np.take_along_axis(world.attractiveness, lists, axis=1)
    return attr @ rank_discount(np.arange(1, lists.shape[1] + 1))


def pbm_expectation(world: ClickWorld, logged_lists, new_lists, propensities) -> float:
    """The exact expectation of :func:`topkeval.offpolicy.pbm_ips` (DCG discount) on a ranker's logs.

    The logs show ``logged_lists``; ``new_lists`` reorder them. A session's user is drawn uniformly
    and the item at logged rank r is clicked with probability examination[r] * a, so the estimate's
    expectation is the mean over users of
    sum over r of examination[r] * a[u, logged r] / propensities[r] / log2(1 + new rank), the new rank
    0 (not shown) counting 0. With the world's own examination as ``propensities`` it is the new lists'
    :func:`graded_dcg`; with all ones it is what the naive click metric estimates; with a wrong
    examination, what a wrong correction estimates.

    Parameters
    ----------
    world : ClickWorld
        The click model (from :func:`click_world`).
    logged_lists, new_lists : array_like of int
        The (users x k) lists the logs show, and their new order.
    propensities : array_like of float
        The examination probability the estimator assumes for each rank.

    Returns
    -------
    float
        The estimator's expectation.

    Examples
    --------
    >>> import numpy as np
    >>> from helpers.experiments.online import ClickWorld, pbm_expectation
    >>> world = ClickWorld(np.array([[0.5, 0.3]]), np.array([1.0, 0.5]))
    >>> round(pbm_expectation(world, np.array([[0, 1]]), np.array([[1, 0]]), [1.0, 1.0]), 4)
    0.4655
    """
    logged_lists = _check_lists(world, logged_lists, "logged_lists")
    new_lists = _check_lists(world, new_lists, "new_lists")
    k = logged_lists.shape[1]
    propensity = np.asarray(propensities, dtype=np.float64)[:k]
    ranks = ranks_in(new_lists, logged_lists)
    discount = np.where(ranks > 0, rank_discount(np.maximum(ranks, 1)), 0.0)
    attr = np.take_along_axis(world.attractiveness, logged_lists, axis=1)
    return float((attr * discount * (world.examination[:k] / propensity)).sum(axis=1).mean())
