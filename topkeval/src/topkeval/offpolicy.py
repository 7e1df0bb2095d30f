"""Off-policy evaluation: a new policy's or ranking's value estimated from a log that another one produced.

A log records, for each event, the action the deployed (logging) policy took,
the probability it had of taking it (its *propensity*) and the reward that
followed (a click, say). Re-weighting each event by how much more or less
often a new policy would take the same action estimates the new policy's
mean reward without deploying it:

- :func:`ips`: inverse propensity scoring, mean of ``w * reward`` with
  ``w = target probability / logging probability``; unbiased when every
  action the new policy can take had a propensity above 0, but its weights
  are unbounded, so one estimate can land far outside the reward's range
  (a click rate above 1);
- :func:`snips`: self-normalised IPS, ``sum(w * reward) / sum(w)``
  (Swaminathan and Joachims, NeurIPS 2015); stays within the rewards' range
  and varies less, at the price of a bias that vanishes as the log grows;
- :func:`clipped_ips`: IPS with every weight capped at ``clip`` (Ionides,
  JCGS 2008; Bottou et al., JMLR 2013); less variance, and, for rewards >= 0,
  a bias that can only be downward;
- :func:`pbm_ips`: ranked lists under the position-based click model, the
  counterfactual estimator of Joachims, Swaminathan and Schnabel (WSDM 2017),
  after the position-bias weighting of Wang, Bendersky, Metzler and Najork
  (SIGIR 2016): each click at logged rank r is divided by the examination
  probability of rank r (:func:`position_propensities`), which gives an
  unbiased estimate of a new ranking's DCG (or sum of ranks, or expected
  clicks) over the logged items;
- :func:`direct_method` and :func:`doubly_robust` (Dudík, Langford and Li, ICML 2011): the direct
  method averages a reward model's prediction for the new policy and uses no weights (biased as far as
  the model is wrong); the doubly robust estimator adds the IPS-weighted residual of the model on the
  logged actions, and is unbiased when either the propensities or the reward model are right.

Each returns an :class:`OffPolicyEstimate`: the estimate, its standard error,
a normal interval, and the weights' diagnostics (effective sample size,
largest weight). Everything returns builtin floats. A standard error of
exactly 0 (every weighted term equal, e.g. a single event with a non-zero
weight under SNIPS) gives a zero-width interval that claims a certainty the
log cannot give: the estimate is returned as computed, with a
:class:`RuntimeWarning` saying so.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from ._cutoff import discounts
from ._registry import OPTIONS
from ._validation import Constraint, Integer, InvalidInputError, Maybe, Real, validate_params

__all__ = [
    "OffPolicyEstimate",
    "importance_weights",
    "ips",
    "snips",
    "clipped_ips",
    "position_propensities",
    "pbm_ips",
    "pbm_ips_per_session",
    "direct_method",
    "doubly_robust",
]


@dataclass(frozen=True)
class OffPolicyEstimate:
    """An off-policy estimate with its standard error, a normal interval and the weights' diagnostics.

    ``effective_n`` is Kish's effective sample size of the importance weights,
    ``(sum w)^2 / sum w^2``: how many equally weighted events the log is worth
    (0 when every weight is 0), never more than ``n``. ``max_weight`` is the largest weight.
    For :func:`pbm_ips` ``n`` counts sessions and a session's weight is the sum of its clicks'
    inverse propensities (0 for a session without a click), so ``effective_n`` counts sessions too.
    When ``standard_error`` is 0 the interval has zero width; the estimators warn
    (:class:`RuntimeWarning`), since no log proves a value exactly.
    """

    estimate: float
    standard_error: float
    low: float
    high: float
    confidence: float
    n: int
    effective_n: float
    max_weight: float
    estimator: str

    def __str__(self) -> str:
        return (
            f"{self.estimator}: {self.estimate:.4f} ({self.confidence:.0%} CI {self.low:.4f} to "
            f"{self.high:.4f}, n={self.n}, effective n {self.effective_n:.1f})"
        )


# ------------------------------------------------------------------ inputs
def _vector(values, name: str) -> np.ndarray:
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 1:
        raise InvalidInputError(f"{name} must be one number per logged event (1-D); got shape {array.shape}.")
    if not np.isfinite(array).all():
        raise InvalidInputError(f"{name} has NaN or infinite values; drop or fix those events.")
    return array


def _first_bad(mask: np.ndarray) -> str:
    return f"event {int(np.flatnonzero(mask)[0])} (0-based)"


def _probabilities(values, name: str, *, zero_allowed: bool) -> np.ndarray:
    array = _vector(values, name)
    low = array < 0 if zero_allowed else array <= 0
    if low.any():
        what = ">= 0" if zero_allowed else "> 0"
        why = (
            ""
            if zero_allowed
            else ": an action its policy could not take cannot be in its log (a 0 often means the "
            "propensity was not recorded)"
        )
        raise InvalidInputError(
            f"{name} must be {what} for every event; {_first_bad(low)} has {float(array[low][0])!r}{why}."
        )
    high = array > 1
    if high.any():
        raise InvalidInputError(
            f"{name} are probabilities, at most 1; {_first_bad(high)} has {float(array[high][0])!r} "
            "(a weight or a score instead of a probability?)."
        )
    return array


def _log(rewards, target_probability, logging_probability) -> tuple[np.ndarray, np.ndarray]:
    """(rewards, weights) of a checked log."""
    reward = _vector(rewards, "rewards")
    target = _probabilities(target_probability, "target_probability", zero_allowed=True)
    logging = _probabilities(logging_probability, "logging_probability", zero_allowed=False)
    if not reward.size == target.size == logging.size:
        raise InvalidInputError(
            "rewards, target_probability and logging_probability need one entry per logged event each; "
            f"got lengths {reward.size}, {target.size} and {logging.size}."
        )
    if reward.size < 2:
        raise InvalidInputError(
            f"the log needs at least 2 events to estimate a standard error; got {reward.size}."
        )
    return reward, target / logging


#: The constraints the estimators share (declared beside each, by name).
_CONFIDENCE: dict[str, Constraint] = {
    "confidence": Real(0, 1, low_open=True, high_open=True, meaning=" (e.g. 0.95)")
}
_ETA = Real(0, 10, meaning=" (the position-bias exponent, e.g. 1.0)")


def _z(confidence: float) -> float:
    """The normal quantile of a two-sided interval (``confidence`` declared by each estimator)."""
    return NormalDist().inv_cdf((1 + confidence) / 2)


def _result(estimate, se, weights: np.ndarray, n: int, confidence: float, name: str) -> OffPolicyEstimate:
    half = _z(confidence) * se
    if se == 0:
        warnings.warn(
            f"{name}: the standard error is 0 (every term of the estimate is equal: no reward at all, "
            "say, or a single event with a non-zero weight), so the interval has zero width; it does not "
            "mean the value is known. Look at effective_n and log more events.",
            RuntimeWarning,
            stacklevel=3,
        )
    total, squares = float(weights.sum()), float((weights**2).sum())
    return OffPolicyEstimate(
        estimate=float(estimate),
        standard_error=float(se),
        low=float(estimate - half),
        high=float(estimate + half),
        confidence=float(confidence),
        n=int(n),
        effective_n=total**2 / squares if squares > 0 else 0.0,
        max_weight=float(weights.max()) if weights.size else 0.0,
        estimator=name,
    )


def _mean_with_se(terms: np.ndarray) -> tuple[float, float]:
    return float(terms.mean()), float(terms.std(ddof=1) / math.sqrt(terms.size))


# ------------------------------------------------------------------ one action per event
def importance_weights(target_probability, logging_probability) -> list[float]:
    """The importance weight of each logged event: target probability / logging probability.

    Parameters
    ----------
    target_probability : array-like of float
        The new policy's probability of the action each event logged, in [0, 1].
    logging_probability : array-like of float
        The logging policy's probability of that action (its propensity), in (0, 1].

    Returns
    -------
    list of float
        One weight per event: above 1 where the new policy takes the action more often than
        the logging policy did.

    Examples
    --------
    >>> importance_weights([0.5, 0.0, 0.9], [0.25, 0.5, 0.01])
    [2.0, 0.0, 90.0]
    """
    target = _probabilities(target_probability, "target_probability", zero_allowed=True)
    logging = _probabilities(logging_probability, "logging_probability", zero_allowed=False)
    if target.size != logging.size:
        raise InvalidInputError(
            f"target_probability and logging_probability need one entry per event each; got lengths "
            f"{target.size} and {logging.size}."
        )
    return [float(w) for w in target / logging]


@validate_params(_CONFIDENCE)
def ips(rewards, target_probability, logging_probability, *, confidence: float = 0.95) -> OffPolicyEstimate:
    """Inverse propensity scoring: the new policy's mean reward, estimated from another policy's log.

    ``V = (1/n) sum_i w_i r_i`` with ``w_i = target_probability_i / logging_probability_i``.
    Unbiased whenever the logging policy gave every action the new policy can take a probability
    above 0. The weights are unbounded: an event the logging policy rarely produced but the new
    policy favours can carry a weight of thousands, so a single estimate can lie far outside the
    rewards' range (a click rate above 1) while the mean over many logs is right. The standard
    error is the sample standard deviation of ``w_i r_i`` over ``sqrt(n)``; the normal interval
    built from it covers poorly when ``effective_n`` is small.

    Parameters
    ----------
    rewards : array-like of float
        The reward that followed each logged event (e.g. 1 for a click, 0 otherwise).
    target_probability : array-like of float
        The new policy's probability of the action each event logged, in [0, 1].
    logging_probability : array-like of float
        The logging policy's probability of that action, in (0, 1].
    confidence : float
        Level of the normal interval.

    Returns
    -------
    OffPolicyEstimate
        The estimate, its standard error, the interval and the weights' diagnostics.

    Examples
    --------
    Two events logged with probability 1/2 each; the new policy always takes the first action:

    >>> result = ips([1, 0], [1.0, 0.0], [0.5, 0.5])
    >>> result.estimate, result.max_weight  # (2 * 1 + 0 * 0) / 2
    (1.0, 2.0)
    """
    reward, weight = _log(rewards, target_probability, logging_probability)
    estimate, se = _mean_with_se(weight * reward)
    return _result(estimate, se, weight, reward.size, confidence, "IPS")


@validate_params(_CONFIDENCE)
def snips(rewards, target_probability, logging_probability, *, confidence: float = 0.95) -> OffPolicyEstimate:
    """Self-normalised IPS: ``sum_i w_i r_i / sum_i w_i``.

    Dividing by the sum of the weights instead of ``n`` keeps the estimate within the range of
    the rewards (a click rate within [0, 1]) and removes most of IPS's variance when the weights
    are uneven. It is biased for a finite log (a ratio of two unbiased sums is not unbiased), and
    the bias shrinks like ``1/n``; its sign depends on the log (when the weights are very uneven
    it can be either way). Swaminathan and Joachims (NeurIPS 2015) introduced it for off-policy
    learning. The standard error is the delta method's,
    ``sqrt(n / (n - 1) * sum_i w_i^2 (r_i - V)^2) / sum_i w_i``, which reduces to the usual standard
    error of a mean when every weight is equal. The estimate stays in the rewards' range, but the
    normal interval around it need not (with few effective events it can reach past 1 for clicks),
    and it covers poorly when ``effective_n`` is small.

    Parameters
    ----------
    rewards : array-like of float
        The reward that followed each logged event.
    target_probability : array-like of float
        The new policy's probability of the action each event logged, in [0, 1].
    logging_probability : array-like of float
        The logging policy's probability of that action, in (0, 1].
    confidence : float
        Level of the normal interval.

    Returns
    -------
    OffPolicyEstimate
        The estimate, its standard error, the interval and the weights' diagnostics.

    Raises
    ------
    InvalidInputError
        If every weight is 0 (the new policy takes none of the logged actions): the ratio is 0/0.

    Examples
    --------
    >>> snips([1, 0, 1], [0.9, 0.05, 0.05], [0.1, 0.5, 0.4]).estimate  # (9 + 0.125) / (9 + 0.1 + 0.125)
    0.989159891598916
    """
    reward, weight = _log(rewards, target_probability, logging_probability)
    total = weight.sum()
    if total <= 0:
        raise InvalidInputError(
            "every importance weight is 0: the new policy never takes an action the log holds, so SNIPS "
            "is 0/0. The log says nothing about this policy; log with more exploration."
        )
    estimate = float((weight * reward).sum() / total)
    n = reward.size
    se = math.sqrt(n / (n - 1) * float((weight**2 * (reward - estimate) ** 2).sum())) / total
    return _result(estimate, se, weight, n, confidence, "SNIPS")


@validate_params(
    {"clip": Real(0, low_open=True, meaning=" (the largest weight allowed, e.g. 10)"), **_CONFIDENCE}
)
def clipped_ips(
    rewards, target_probability, logging_probability, *, clip: float, confidence: float = 0.95
) -> OffPolicyEstimate:
    """IPS with every weight capped: ``(1/n) sum_i min(w_i, clip) r_i``.

    Capping the weights at ``clip`` (often written M) bounds each event's contribution, which
    bounds the variance. The price is a bias of ``-E[(w - clip)_+ r]`` under the logging policy:
    for rewards >= 0 (clicks, ratings) clipping can only lower each term, so the estimator
    **underestimates** in expectation: the bias is never positive, no smaller in size for a smaller
    ``clip``, larger the more the new policy favours actions the logging policy rarely took, and 0
    once ``clip`` reaches the largest weight the two policies can produce. ``clip=inf`` is plain
    :func:`ips`. Capped (truncated) weights go back to Ionides (JCGS 2008); Bottou et al. (JMLR
    2013) use them for counterfactual estimates of ad systems. The standard error and interval
    describe the clipped estimator's own spread: they do not account for its bias, so they can miss
    the true value however large the log.

    Parameters
    ----------
    rewards : array-like of float
        The reward that followed each logged event.
    target_probability : array-like of float
        The new policy's probability of the action each event logged, in [0, 1].
    logging_probability : array-like of float
        The logging policy's probability of that action, in (0, 1].
    clip : float
        The cap M on each weight, > 0.
    confidence : float
        Level of the normal interval.

    Returns
    -------
    OffPolicyEstimate
        The estimate, its standard error, the interval and the diagnostics of the clipped weights.

    Examples
    --------
    >>> clipped_ips([1, 0, 1], [0.9, 0.05, 0.05], [0.1, 0.5, 0.4], clip=5).estimate  # (5 + 0.125) / 3
    1.7083333333333333
    """
    reward, weight = _log(rewards, target_probability, logging_probability)
    clipped = np.minimum(weight, clip)
    estimate, se = _mean_with_se(clipped * reward)
    return _result(estimate, se, clipped, reward.size, confidence, f"clipped IPS (M = {clip:g})")


# ------------------------------------------------------------------ ranked lists
@validate_params({"k": Integer(1, " (logged ranks)"), "eta": _ETA})
def position_propensities(k: int, eta: float) -> list[float]:
    """Examination probabilities of ranks 1..k under the position-based model: ``(1/r) ** eta``.

    ``eta = 0`` means every rank is read; ``eta = 1`` means rank 2 is read half as often as rank 1.
    ``eta = 1`` is a common default severity in simulations (Joachims, Swaminathan and Schnabel,
    WSDM 2017, vary it around 1), not a constant of nature: the right value is a property of the
    users and of the interface, and is estimated, e.g. by swapping results between ranks in a small
    share of sessions. There is no default.

    Parameters
    ----------
    k : int
        Number of ranks, >= 1.
    eta : float
        Severity of the position bias, >= 0.

    Returns
    -------
    list of float
        ``k`` probabilities, the first 1.0.

    Examples
    --------
    >>> position_propensities(4, eta=1.0)
    [1.0, 0.5, 0.3333333333333333, 0.25]
    """
    return [float(r**-eta) for r in range(1, k + 1)]


#: pbm_ips's named lambda(rank): "dcg" (the library's default DCG discount), each of the library's
#: ``discount=`` values (topkeval.OPTIONS["discount"]), and "rank".
_PBM_DISCOUNTS = ("dcg", *OPTIONS["discount"].values, "rank")


def _rank_weights(discount, max_rank: int) -> np.ndarray:
    """lambda(rank) for ranks 0..max_rank, with lambda(0) = 0 (the new ranking does not show the item)."""
    ranks = np.arange(max_rank + 1, dtype=np.float64)
    if isinstance(discount, str):
        if discount not in _PBM_DISCOUNTS:
            named = ", ".join(repr(name) for name in _PBM_DISCOUNTS)
            raise InvalidInputError(
                f"discount must be {named} or a sequence of per-rank weights; got {discount!r}."
            )
        if discount == "rank":
            return ranks
        kind = OPTIONS["discount"].default if discount == "dcg" else discount
        return np.concatenate([[0.0], discounts(max_rank, kind)])
    weights = _vector(discount, "discount")
    if weights.size < max_rank:
        raise InvalidInputError(
            f"discount gives weights for ranks 1..{weights.size}, but new_ranks reaches rank {max_rank}; "
            "give one weight per rank the new ranking uses."
        )
    return np.concatenate([[0.0], weights[:max_rank]])


def _examination(k: int, eta, propensities) -> np.ndarray:
    if eta is not None and propensities is not None:
        raise InvalidInputError("give eta or propensities, not both.")
    if propensities is None:
        if eta is None:
            raise InvalidInputError(
                "give the examination probabilities: eta=... for (1/r) ** eta (eta=0.0 reads clicks as "
                "labels, the naive estimator) or propensities=[...] per logged rank. There is no default: "
                "the position bias is a property of your users, and a wrong one biases the estimate."
            )
        return np.asarray(position_propensities(k, eta))
    given = _vector(propensities, "propensities")
    if given.size < k:
        raise InvalidInputError(f"propensities needs one probability per logged rank, {k}; got {given.size}.")
    bad = (given[:k] <= 0) | (given[:k] > 1)
    if bad.any():
        rank = int(np.flatnonzero(bad)[0]) + 1
        raise InvalidInputError(
            f"propensities must lie in (0, 1]; rank {rank} has {float(given[rank - 1])!r}. A rank nobody "
            "examines (0) gives its clicks no unbiased weight: cut the lists before it."
        )
    return given[:k]


def _session_matrices(clicks, new_ranks) -> tuple[np.ndarray, np.ndarray]:
    click = np.asarray(clicks)
    rank = np.asarray(new_ranks)
    if click.ndim != 2 or click.shape != rank.shape:
        raise InvalidInputError(
            "clicks and new_ranks must be (sessions x k) matrices of the same shape, column r - 1 for the "
            f"item shown at logged rank r; got shapes {click.shape} and {rank.shape}."
        )
    if click.shape[0] < 1:
        raise InvalidInputError("the log holds no session.")
    if not np.isin(click, (0, 1)).all():
        raise InvalidInputError("clicks must be 0 or 1 (one click at most per shown item).")
    if not np.issubdtype(rank.dtype, np.integer) or (rank < 0).any():
        raise InvalidInputError(
            "new_ranks must be ints >= 0: the 1-based rank the new ranking gives each logged item, "
            "0 where it does not show the item."
        )
    ordered = np.sort(rank, axis=1)
    if ((np.diff(ordered, axis=1) == 0) & (ordered[:, 1:] > 0)).any():
        session = int(np.flatnonzero(((np.diff(ordered, axis=1) == 0) & (ordered[:, 1:] > 0)).any(axis=1))[0])
        raise InvalidInputError(f"new_ranks gives one rank to two items in session {session} (0-based).")
    return click.astype(np.float64), rank.astype(np.int64)


@validate_params({"eta": Maybe(_ETA), **_CONFIDENCE})
def pbm_ips(
    clicks,
    new_ranks,
    *,
    eta: float | None = None,
    propensities: Sequence[float] | None = None,
    discount: str | Sequence[float] = "dcg",
    confidence: float = 0.95,
) -> OffPolicyEstimate:
    """A new ranking's metric estimated from logged clicks under the position-based model.

    The position-based model: an item shown at rank r is examined with probability ``theta_r`` and,
    once examined, clicked with probability ``a`` (its relevance to this user). A click at rank r
    is then evidence of relevance seen through ``theta_r``; dividing it by ``theta_r`` undoes the
    position bias (Wang, Bendersky, Metzler and Najork, SIGIR 2016; Joachims, Swaminathan and
    Schnabel, WSDM 2017). For each session the estimate is

        ``sum over clicked items i of lambda(new_rank_i) / theta_(logged_rank_i)``

    and the result is its mean over sessions, an unbiased estimate of the mean of ``sum_i a_i
    lambda(new_rank_i)``: the new ranking's DCG with ``a`` as graded relevance (``discount="dcg"``,
    or ``"clipped_log2"`` for the clipped discount), its sum of the ranks of relevant items
    (``"rank"``, lower is better, the paper's metric), or, with ``discount=position_propensities(k,
    eta)``, the clicks it would get under the same model. Four conditions make it unbiased: clicks
    follow the model, the propensities are right, every logged rank has a propensity above 0, and
    the new ranking reorders the logged items (an item the log never showed has no click to weigh,
    so it counts 0; an item the new ranking drops, new rank 0, counts 0 too). ``discount="rank"``
    refuses new rank 0: counting a dropped item as 0 would make dropping items score best on a
    lower-is-better metric. ``eta=0`` (every propensity 1) is the naive estimator that reads clicks
    as relevance labels; it estimates the mean of ``sum_i theta_(logged_rank_i) a_i
    lambda(new_rank_i)``, not the metric, and favours rankings that agree with the logging ranking.
    The standard error is the sample standard deviation of the per-session estimates over the square
    root of the number of sessions; ``effective_n`` is that of the per-session weights (each
    session's sum of its clicks' inverse propensities), at most the number of sessions.

    Parameters
    ----------
    clicks : array-like, (sessions x k)
        ``clicks[s, r - 1]`` is 1 if the item the log showed at rank r in session s was clicked.
    new_ranks : array-like of int, (sessions x k)
        The 1-based rank the new ranking gives that same item, 0 where it does not show it.
    eta : float, optional
        Propensities ``(1/r) ** eta`` (:func:`position_propensities`). Give ``eta`` or
        ``propensities``, exactly one.
    propensities : sequence of float, optional
        The examination probability of each logged rank, in (0, 1], instead of ``eta``.
    discount : {"dcg", "log2", "clipped_log2", "rank"} or sequence of float
        lambda(rank): the DCG discount of :func:`topkeval.rank_discount` (``"dcg"`` is the
        library's default ``discount=``, ``"log2"``: ``1 / log2(1 + rank)``; ``"clipped_log2"``:
        ``1 / log2(max(rank, 2))``), the rank itself, or one weight per new rank.
    confidence : float
        Level of the normal interval.

    Returns
    -------
    OffPolicyEstimate
        The estimate (mean over sessions), its standard error and interval; ``n`` is the number of
        sessions and ``effective_n`` and ``max_weight`` describe the per-session weights.

    Raises
    ------
    InvalidInputError
        If neither or both of ``eta`` and ``propensities`` are given, or if ``discount="rank"`` meets
        a new rank of 0.

    Examples
    --------
    Session 1 has clicks at logged ranks 1 and 3, which the new ranking swaps; session 2, none:

    >>> est = pbm_ips([[1, 0, 1], [0, 0, 0]], [[3, 2, 1], [1, 2, 3]], eta=1.0, discount="rank")
    >>> est.estimate  # session 1: 3 / 1 + 1 / (1/3) = 6; session 2: 0; mean 3
    3.0
    """
    per_session, weights, name = _pbm_terms(clicks, new_ranks, eta, propensities, discount)
    if per_session.size < 2:
        raise InvalidInputError(
            f"the log needs at least 2 sessions to estimate a standard error; got {per_session.size}."
        )
    estimate, se = _mean_with_se(per_session)
    return _result(estimate, se, weights, per_session.size, confidence, name)


@validate_params({"eta": Maybe(_ETA)})
def pbm_ips_per_session(
    clicks,
    new_ranks,
    *,
    eta: float | None = None,
    propensities: Sequence[float] | None = None,
    discount: str | Sequence[float] = "dcg",
) -> list[float]:
    """Each session's term of :func:`pbm_ips`, for a paired comparison of two new rankings on one log.

    Session s contributes ``sum over its clicked items i of lambda(new_rank_i) / p_(logged_rank_i)``;
    :func:`pbm_ips` is their mean. Two rankings scored on the same sessions give paired values, which
    :func:`topkeval.stats.verdict` compares.

    Parameters
    ----------
    clicks : array-like, (sessions x k)
        ``clicks[s, r - 1]`` is 1 if the item the log showed at rank r in session s was clicked.
    new_ranks : array-like of int, (sessions x k)
        The 1-based rank the new ranking gives that same item, 0 where it does not show it.
    eta : float, optional
        Propensities ``(1/r) ** eta``; give ``eta`` or ``propensities``, exactly one.
    propensities : sequence of float, optional
        The examination probability of each logged rank, in (0, 1], instead of ``eta``.
    discount : {"dcg", "log2", "clipped_log2", "rank"} or sequence of float
        lambda(rank), as in :func:`pbm_ips`.

    Returns
    -------
    list of float
        One value per session.

    Examples
    --------
    >>> pbm_ips_per_session([[1, 0, 1], [0, 0, 0]], [[3, 2, 1], [1, 2, 3]], eta=1.0, discount="rank")
    [6.0, 0.0]
    """
    per_session, _, _ = _pbm_terms(clicks, new_ranks, eta, propensities, discount)
    return [float(value) for value in per_session]


def _pbm_terms(clicks, new_ranks, eta, propensities, discount) -> tuple[np.ndarray, np.ndarray, str]:
    """(per-session values, per-session weights (sums of the clicks' inverse propensities), the name)."""
    click, rank = _session_matrices(clicks, new_ranks)
    exam = _examination(click.shape[1], eta, propensities)
    if isinstance(discount, str) and discount == "rank" and (rank == 0).any():
        session, position = (int(i) for i in np.argwhere(rank == 0)[0])
        raise InvalidInputError(
            f"discount='rank' needs every logged item ranked by the new ranking; session {session} "
            f"(0-based), logged rank {position + 1}, has new rank 0 (not shown). The sum of ranks is "
            "lower-is-better, so counting a dropped item as 0 would make dropping items score best. Give "
            "every logged item a rank, or use 'dcg' or per-rank weights, where a dropped item counts 0."
        )
    lam = _rank_weights(discount, int(rank.max()))
    per_session = (click * lam[rank] / exam[None, :]).sum(axis=1)
    weights = (click / exam[None, :]).sum(axis=1)
    name = "naive clicks (no propensity)" if np.all(exam == 1.0) else "PBM-IPS"
    return per_session, weights, name


# ------------------------------------------------------------------ reward models: DM and DR
def _predictions(values, name: str, n: int) -> np.ndarray:
    array = _vector(values, name)
    if array.size != n:
        raise InvalidInputError(f"{name} needs one entry per logged event; got {array.size} for {n} events.")
    return array


@validate_params(_CONFIDENCE)
def direct_method(predicted_target_reward, *, confidence: float = 0.95) -> OffPolicyEstimate:
    """The direct method: the mean of a reward model's prediction for the new policy, over the contexts.

    ``V_DM = (1/n) sum_i rhat(x_i, pi)``, where ``rhat(x_i, pi) = sum_a pi(a | x_i) rhat(x_i, a)`` is the
    model's expected reward of the new policy in the context of event ``i`` (Dudík, Langford and Li, ICML
    2011). No importance weights, so its variance is small; its bias is the model's error averaged under
    the new policy, and no amount of logging removes it. The standard error is that of the mean over
    contexts only: it leaves out the model's own error, so the interval can exclude the true value
    however many events there are.

    Parameters
    ----------
    predicted_target_reward : array-like of float
        ``rhat(x_i, pi)`` for each logged event.
    confidence : float
        Level of the normal interval.

    Returns
    -------
    OffPolicyEstimate
        ``effective_n`` is ``n`` and ``max_weight`` 1 (every context counts once).

    Examples
    --------
    >>> from topkeval.offpolicy import direct_method
    >>> direct_method([0.2, 0.4, 0.3, 0.5]).estimate
    0.35
    """
    predicted = _vector(predicted_target_reward, "predicted_target_reward")
    if predicted.size < 2:
        raise InvalidInputError(
            f"the log needs at least 2 events to estimate a standard error; got {predicted.size}."
        )
    estimate, se = _mean_with_se(predicted)
    return _result(estimate, se, np.ones(predicted.size), predicted.size, confidence, "DM")


@validate_params(_CONFIDENCE)
def doubly_robust(
    rewards,
    target_probability,
    logging_probability,
    predicted_reward,
    predicted_target_reward,
    *,
    confidence: float = 0.95,
) -> OffPolicyEstimate:
    """The doubly robust estimator: the direct method plus the IPS-weighted error of its reward model.

    ``V_DR = (1/n) sum_i [ rhat(x_i, pi) + w_i (r_i - rhat(x_i, a_i)) ]`` with
    ``w_i = target_probability_i / logging_probability_i`` (Dudík, Langford and Li, ICML 2011). Its
    expectation is the new policy's value when the propensities are right (the weighted residual then
    removes the model's bias) *or* when the reward model is right (the residual then has mean 0 whatever
    the weights): hence "doubly" robust. With a good model the residuals are small, so it varies less
    than IPS; with a bad model and wrong propensities it has neither protection. The standard error is
    the sample standard deviation of the bracketed terms over ``sqrt(n)``.

    Parameters
    ----------
    rewards, target_probability, logging_probability : array-like of float
        As in :func:`ips`: one entry per logged event.
    predicted_reward : array-like of float
        ``rhat(x_i, a_i)``: the model's prediction for the action that was logged.
    predicted_target_reward : array-like of float
        ``rhat(x_i, pi)``: the model's expected reward of the new policy in that context.
    confidence : float
        Level of the normal interval.

    Returns
    -------
    OffPolicyEstimate
        The weights' diagnostics are those of IPS (the same weights).

    Examples
    --------
    The new policy always takes action 1; two events, each action logged with probability 1/2; the model
    predicts 0.5 for every action:

    >>> from topkeval.offpolicy import doubly_robust
    >>> result = doubly_robust([1, 0], [1.0, 0.0], [0.5, 0.5], [0.5, 0.5], [0.5, 0.5])
    >>> result.estimate   # ((0.5 + 2 * (1 - 0.5)) + (0.5 + 0 * (0 - 0.5))) / 2
    1.0
    """
    reward, weight = _log(rewards, target_probability, logging_probability)
    logged = _predictions(predicted_reward, "predicted_reward", reward.size)
    target = _predictions(predicted_target_reward, "predicted_target_reward", reward.size)
    estimate, se = _mean_with_se(target + weight * (reward - logged))
    return _result(estimate, se, weight, reward.size, confidence, "DR")
