"""Exercises of ``notebooks/12-user-models-and-online-evaluation.ipynb``."""

from __future__ import annotations

import math

import numpy as np

from helpers.checking.questions import FunctionQuestion, Mistake
from helpers.course.choice import choice
from topkeval.offpolicy import pbm_ips_per_session
from topkeval.user_models import rbp_at_k

__all__ = ["q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8", "rbp", "ips", "pbm_dcg", "doubly_robust"]

q1 = choice(
    "12.q1",
    "Predict, then run: which list has the higher ERR@3?",
    "the list with the higher ERR@3",
    {
        "a": (
            "L1: grades [3, 0, 0], one perfect item on top.",
            "Yes: a grade-3 item (of 3) satisfies with probability 7/8, so most users stop at rank 1 with a "
            "reciprocal rank of 1. The cascade gives the later good items of L2 little credit.",
            True,
        ),
        "b": (
            "L2: grades [2, 2, 2], three good items.",
            "More relevant material in total, but each grade-2 item satisfies only 3/8 of users, "
            "and those who go on meet the others at ranks 2 and 3, worth 1/2 and 1/3.",
        ),
        "c": (
            "They are equal: both sum to more than 2.",
            "ERR is not a sum of grades: it is the expected 1/rank at which the user stops.",
        ),
    },
    [
        "R(g) = (2^g - 1) / 2^3 with max_grade 3: what is R for g = 3, and for g = 2?",
        "ERR@3 = R1 + (1 - R1) R2 / 2 + (1 - R1)(1 - R2) R3 / 3.",
    ],
)


def rbp(ranking, relevant, k, p):
    """Rank-biased precision: (1 - p) * sum of p^(rank - 1) over the relevant ranks <= k.

    Parameters
    ----------
    ranking : sequence
        The recommended items, best first.
    relevant : set
        The relevant items.
    k : int
        The cutoff.
    p : float
        The persistence: the chance that the user goes on from one rank to the next, in [0, 1).

    Returns
    -------
    float
        Between 0 and 1; the weights ``(1 - p) * p**(rank - 1)`` of all ranks sum to 1.

    Examples
    --------
    >>> rbp(["a", "b", "c"], {"a", "c"}, 3, 0.5)  # 0.5 * (1 + 0.25)
    0.625
    """
    return (1 - p) * sum(
        p ** (rank - 1) for rank, item in enumerate(ranking[:k], start=1) if item in relevant
    )


_RBP_CASES = [
    (["a", "b", "c", "d"], {"a", "c"}, 4, 0.8),
    (["a", "b", "c", "d"], {"d"}, 4, 0.5),
    (["a", "b", "c", "d"], {"b", "d"}, 3, 0.5),  # one relevant item beyond the cutoff
    (["x", "y"], {"z"}, 2, 0.9),
    (list("abcdefgh"), set("aceg"), 8, 0.95),
]

q2 = FunctionQuestion(
    id="12.q2",
    title="RBP@k: the patience model",
    function_name="rbp",
    reference=lambda ranking, relevant, k, p: rbp_at_k(ranking, relevant, k, p=p),
    cases=_RBP_CASES,
    hints=[
        "The user reads rank 1, then each next rank with probability p: "
        "rank i is read with probability p^(i-1).",
        "(1 - p) * sum(p ** (rank - 1) for rank, item in enumerate(ranking[:k], start=1) "
        "if item in relevant)",
    ],
    solution_code=rbp,
    mistakes=[
        Mistake(
            "p^rank instead of p^(rank - 1)",
            "Rank 1 is always read: its weight is p^0 = 1 (times 1 - p).",
            lambda ranking, relevant, k, p: (
                (1 - p) * sum(p**r for r, i in enumerate(ranking[:k], 1) if i in relevant)
            ),
        ),
        Mistake(
            "no (1 - p) factor",
            "Without (1 - p) the weights sum to 1/(1 - p), not 1, and RBP is no longer in [0, 1].",
            lambda ranking, relevant, k, p: sum(
                p ** (r - 1) for r, i in enumerate(ranking[:k], 1) if i in relevant
            ),
        ),
        Mistake(
            "ignores the cutoff k",
            "Only the ranks 1..k count: ranking[:k].",
            lambda ranking, relevant, k, p: (
                (1 - p) * sum(p ** (r - 1) for r, i in enumerate(ranking, 1) if i in relevant)
            ),
        ),
    ],
)

q3 = choice(
    "12.q3",
    "Explain the difference: micro recall@10 is below macro recall@10",
    "the reason micro recall@10 is lower here",
    {
        "a": (
            "Micro averaging drops the users with no hit.",
            "Neither average drops anyone; micro sums hits and relevant items over all users.",
        ),
        "b": (
            "Heavy users have many relevant items, so their recall@10 is capped low, "
            "and micro averaging gives each of them weight in proportion to that many items.",
            "Yes: micro recall = total hits / total relevant items, a mean weighted by |R|. "
            "Users with |R| > 10 cannot reach recall 1 at k = 10, and they carry the most weight.",
            True,
        ),
        "c": (
            "Micro averaging uses a different cutoff.",
            "Both use the same top-10 lists; only the weights of the users differ.",
        ),
    },
    [
        "Write micro recall as a weighted mean of the per-user recalls: what is each user's weight?",
        "Can a user with 30 relevant items reach recall@10 = 1?",
    ],
)


def ips(clicks, target_probs, logging_probs):
    """Inverse propensity scoring: mean of click * target / logging probability over the logged events.

    Parameters
    ----------
    clicks : array_like of float
        The reward of each logged event (1 for a click, 0 otherwise).
    target_probs : array_like of float
        The probability the new policy gives the logged action.
    logging_probs : array_like of float
        The probability the logging policy gave it (all positive: an action never logged cannot
        be reweighted).

    Returns
    -------
    float
        The estimated mean reward of the new policy.

    Examples
    --------
    >>> round(ips([1, 0, 1], [0.5, 0.5, 1.0], [0.25, 0.5, 0.5]), 4)  # (2 + 0 + 2) / 3
    1.3333
    """
    clicks, target, logging = (np.asarray(a, dtype=float) for a in (clicks, target_probs, logging_probs))
    return float(np.mean(clicks * target / logging))


def _ips_reference(clicks, target_probs, logging_probs):
    from helpers.experiments.online import ips_estimate

    n = len(clicks)
    target = np.zeros((n, n))
    target[np.arange(n), np.arange(n)] = target_probs
    log = {
        "user": np.arange(n),
        "item": np.arange(n),
        "propensity": np.asarray(logging_probs, dtype=float),
        "click": np.asarray(clicks),
    }
    return ips_estimate(log, target).estimate


# The prompt says arrays, so the cases are arrays: np.mean(clicks * target_probs / logging_probs)
# works as written.
# The first case's estimate is above 1 and the last one's only click carries a weight of 45: clipping the
# estimate to [0, 1], or capping the weights, changes the answer (the mistakes below).
_IPS_CASES = [
    tuple(np.asarray(column, dtype=float) for column in case)
    for case in [
        ([1, 0, 1, 1], [1.0, 0.0, 0.5, 0.2], [0.5, 0.25, 0.5, 0.1]),
        ([0, 0, 1], [0.3, 0.3, 0.3], [0.9, 0.1, 0.6]),
        ([1, 1, 1, 0, 0], [1.0, 1.0, 0.0, 1.0, 0.0], [0.2, 0.8, 0.5, 0.5, 0.5]),
        ([1, 0, 0, 0, 0], [0.9, 0.025, 0.025, 0.025, 0.025], [0.02, 0.245, 0.245, 0.245, 0.245]),
    ]
]


def _clipped_weights(c, t, lp, cap=10.0):
    return float(np.mean(np.asarray(c) * np.minimum(np.asarray(t) / np.asarray(lp), cap)))


q4 = FunctionQuestion(
    id="12.q4",
    title="An inverse-propensity estimate of a new policy's click rate",
    function_name="ips",
    reference=_ips_reference,
    cases=_IPS_CASES,
    hints=[
        "Each logged event is re-weighted by w = target probability / logging probability of the item shown.",
        "np.mean(clicks * target_probs / logging_probs)",
    ],
    solution_code=ips,
    mistakes=[
        Mistake(
            "multiplies by the propensity",
            "Items the logging policy rarely showed must count MORE, not less: divide by its probability.",
            lambda c, t, lp: float(np.mean(np.asarray(c) * np.asarray(t) * np.asarray(lp))),
        ),
        Mistake(
            "self-normalised (SNIPS)",
            "Dividing by the sum of the weights instead of the number of events is SNIPS, a different "
            "(biased, lower-variance) estimator; IPS divides by n.",
            lambda c, t, lp: float(
                np.sum(np.asarray(c) * np.asarray(t) / np.asarray(lp))
                / np.sum(np.asarray(t) / np.asarray(lp))
            ),
        ),
        Mistake(
            "clips the estimate to [0, 1]",
            "A click rate lies in [0, 1], but an IPS estimate need not: a rare event with a large weight "
            "can push "
            "one estimate above 1 (notebook 12 shows one). IPS is unbiased only unclipped; clipping is "
            "another, "
            "biased estimator.",
            lambda c, t, lp: float(
                min(1.0, max(0.0, np.mean(np.asarray(c) * np.asarray(t) / np.asarray(lp))))
            ),
        ),
        Mistake(
            "caps the weights (clipped IPS)",
            "Capping each weight w = target / logging probability lowers the variance but biases the "
            "estimate "
            "down; plain IPS keeps every weight as it is.",
            _clipped_weights,
        ),
        Mistake(
            "plain click rate of the log",
            "That is the logging policy's own click rate; "
            "the weights are what turn it into the new policy's.",
            lambda c, t, lp: float(np.mean(c)),
        ),
    ],
)

q5 = choice(
    "12.q5",
    "Explain the difference: why interleaving needs fewer sessions than an A/B test",
    "the reason interleaving is more sensitive",
    {
        "a": (
            "Interleaving shows longer lists, so there are more clicks.",
            "The merged list has the same length k as either ranker's list.",
        ),
        "b": (
            "Each interleaved session compares both rankers on the same user at the same moment, "
            "so the large differences between users cancel; an A/B test compares different users.",
            "Yes: in an A/B test most of the variance in clicks per session comes from who the user is; "
            "interleaving asks each user to choose between the two, a paired comparison.",
            True,
        ),
        "c": (
            "Interleaving measures a bigger effect because it counts wins, not clicks.",
            "Wins are coarser than clicks; the gain comes from pairing, not from the unit.",
        ),
    },
    ["Notebook 08's paired bootstrap made the same move. What did pairing remove there?"],
)


def pbm_dcg(clicks, new_ranks, eta):
    """One session's PBM-IPS estimate of a new ranking's DCG.

    Under the position-based model a click at logged rank r was seen with probability
    ``(1 / r) ** eta``; each click counts ``1 / log2(1 + new rank)`` divided by that probability.

    Parameters
    ----------
    clicks : sequence of bool or int
        Whether the item at each logged rank (1, 2, ...) was clicked.
    new_ranks : sequence of int
        The rank each logged item gets in the new ranking, 0 when the new ranking drops it (a
        dropped item contributes nothing).
    eta : float
        The severity of position bias (0: every rank seen; larger: low ranks rarely seen).

    Returns
    -------
    float
        The estimate for this session.

    Examples
    --------
    >>> pbm_dcg([0, 1], [3, 1], 1.0)  # the click at logged rank 2 moves to rank 1: 2 / log2(2)
    2.0
    """
    return float(
        sum(
            r**eta / math.log2(1 + new)
            for r, (clicked, new) in enumerate(zip(clicks, new_ranks, strict=True), start=1)
            if clicked and new > 0
        )
    )


def _pbm(
    propensity=lambda r, new, eta: r**-eta,
    discount=lambda r, new: 1 / math.log2(1 + new),
    shown=lambda new: new > 0,
):
    """A variant of :func:`pbm_dcg`: a click's weight, the rank its discount reads, which clicks count."""

    def wrong(clicks, new_ranks, eta):
        return float(
            sum(
                discount(r, new) / propensity(r, new, eta)
                for r, (clicked, new) in enumerate(zip(clicks, new_ranks, strict=True), start=1)
                if clicked and shown(new)
            )
        )

    return wrong


# The first case is the notebook's hand-worked session. The third has a click on an item the new ranking
# does not show (new rank 0): it counts nothing. The last is eta = 0, where every propensity is 1.
_PBM_CASES = [
    ([1, 0, 1], [2, 3, 1], 1.0),
    ([0, 1, 0, 1], [1, 4, 2, 3], 0.5),
    ([1, 1, 0], [0, 1, 2], 1.0),
    ([0, 0, 0], [1, 2, 3], 1.0),
    ([1, 0, 0, 0, 1], [5, 4, 3, 2, 1], 0.0),
    ([1, 1, 1, 1], [4, 3, 2, 1], 2.0),
]

q6 = FunctionQuestion(
    id="12.q6",
    title="Position-bias correction: one session's estimate of a new ranking's DCG",
    function_name="pbm_dcg",
    reference=lambda clicks, new_ranks, eta: pbm_ips_per_session([clicks], [new_ranks], eta=eta)[0],
    cases=_PBM_CASES,
    hints=[
        "A click at logged rank r was seen with probability (1/r) ** eta; divide by it, i.e. multiply by "
        "r ** eta. The DCG discount reads the NEW rank of the clicked item: 1 / log2(1 + new rank).",
        "new rank 0 means the new ranking does not show the item: it counts 0. Skip it before taking "
        "1 / log2(1 + new rank), which is a division by zero at new rank 0 (a ZeroDivisionError).",
        "sum(r ** eta / math.log2(1 + new) for r, (c, new) in enumerate(zip(clicks, new_ranks), start=1) "
        "if c and new > 0)",
    ],
    solution_code=pbm_dcg,
    mistakes=[
        Mistake(
            "no guard for new rank 0",
            "New rank 0 means the new ranking does not show the item: its click counts 0. Skip it before "
            "taking the discount, whose log of (1 + new rank) is 0 at new rank 0: a division by zero.",
            _pbm(shown=lambda new: True),
        ),
        Mistake(
            "multiplies by the propensity",
            "A click at a rank few users read is MORE telling: divide by (1/r) ** eta, do not multiply.",
            _pbm(propensity=lambda r, new, eta: r**eta),
        ),
        Mistake(
            "no propensity (the naive click metric)",
            "Without the propensity this is the naive click metric, which favours rankings that agree "
            "with the logged order; divide each click by (1/r) ** eta.",
            _pbm(propensity=lambda r, new, eta: 1.0),
        ),
        Mistake(
            "propensity of the new rank",
            "The click happened in the LOGGED list: its propensity is that of the logged rank r, not of "
            "the rank the new ranking gives the item.",
            _pbm(propensity=lambda r, new, eta: new**-eta),
        ),
        Mistake(
            "discounts by the logged rank",
            "The DCG being estimated is the NEW ranking's: the discount reads the new rank of the item.",
            _pbm(discount=lambda r, new: 1 / math.log2(1 + r)),
        ),
    ],
)

q7 = choice(
    "12.q7",
    "Predict, then run: which way does clipping the weights move the IPS estimate, on average?",
    "the direction of clipped IPS's bias for clicks",
    {
        "a": (
            "Up: the estimates that clipping removes are the ones below the truth.",
            "Clipping changes weights, not whole estimates, and the weights it caps are the largest ones, "
            "which push estimates up.",
        ),
        "b": (
            "Down: capping a weight can only shrink a term w * click, because a click is never negative.",
            "Yes: each term min(w, M) * click is at most w * click, so the expected value is at most the "
            "truth; the bias is -E[(w - M)+ * click]: never positive, no smaller in size for a smaller M, "
            "and 0 once M reaches the largest weight.",
            True,
        ),
        "c": (
            "Neither: clipping lowers the variance and leaves the mean where it was.",
            "Only if no weight ever exceeds M. Whenever one does, its term shrinks and the mean with it.",
        ),
    },
    [
        "Compare min(w, M) * click with w * click for one event, when click is 0 and when it is 1.",
        "Section 6 plots the exact bias against M.",
    ],
)


# ---------------------------------------------------------------- q8: doubly robust
def doubly_robust(clicks, target_probs, logging_probs, predicted, predicted_target):
    """Dudik, Langford and Li's doubly robust estimate.

    The model's value of the new policy, plus the importance-weighted error of the model on the
    logged events: right when either the model or the logging probabilities are right.

    Parameters
    ----------
    clicks : array_like of float
        The logged rewards.
    target_probs : array_like of float
        The probability the new policy gives each logged action.
    logging_probs : array_like of float
        The probability the logging policy gave it (all positive).
    predicted : array_like of float
        The model's predicted reward of each logged action.
    predicted_target : array_like of float
        The model's predicted reward of the new policy in each logged context.

    Returns
    -------
    float
        The estimated mean reward of the new policy.

    Examples
    --------
    >>> round(doubly_robust([1, 0], [0.5, 0.5], [0.5, 0.25], [0.5, 0.5], [0.6, 0.4]), 4)
    0.25
    """
    c, t, lp = (np.asarray(v, dtype=float) for v in (clicks, target_probs, logging_probs))
    return float(np.mean(np.asarray(predicted_target) + t / lp * (c - np.asarray(predicted))))


def _dr_reference(c, t, lp, m, q):
    from topkeval.offpolicy import doubly_robust as library_dr

    return library_dr(c, t, lp, m, q).estimate


def _arrays(*columns):
    return tuple(np.asarray(column, dtype=float) for column in columns)


_DR_CASES = [
    # the model is right on some events and wrong on others; weights from 0 to 5
    _arrays(
        [1, 0, 1, 0], [1.0, 0.0, 0.5, 0.2], [0.5, 0.25, 0.1, 0.4], [0.6, 0.2, 0.3, 0.4], [0.7, 0.3, 0.5, 0.2]
    ),
    # every weight 1 (the new policy is the logging one): DR = mean(q + c - m)
    _arrays([1, 1, 0], [0.5, 0.2, 0.3], [0.5, 0.2, 0.3], [0.9, 0.1, 0.5], [0.4, 0.4, 0.4]),
    # a model that predicts 0: DR is IPS
    _arrays(
        [0, 1, 1, 0, 1],
        [0.1, 0.9, 0.4, 0.2, 0.3],
        [0.3, 0.3, 0.2, 0.6, 0.5],
        [0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0],
    ),
    # a perfect-looking model on clicks: residuals of both signs
    _arrays([1, 0], [0.8, 0.6], [0.2, 0.4], [0.5, 0.5], [0.55, 0.45]),
]

q8 = FunctionQuestion(
    id="12.q8",
    title="The doubly robust estimate of a new policy's click rate",
    function_name="doubly_robust",
    reference=_dr_reference,
    cases=_DR_CASES,
    hints=[
        "Start from the model's prediction for the new policy, predicted_target; then correct it by how "
        "wrong the model was on the logged event, click - predicted, weighted like IPS.",
        "np.mean(predicted_target + target_probs / logging_probs * (clicks - predicted))",
    ],
    solution_code=doubly_robust,
    mistakes=[
        Mistake(
            "only the weighted residual (no model term)",
            "The weighted residual corrects the model's estimate; without predicted_target there is "
            "nothing to correct.",
            lambda c, t, lp, m, q: float(np.mean(t / lp * (c - m))),
        ),
        Mistake(
            "the residual without weights",
            "The model's error on the logged events must be re-weighted to the new policy (target / "
            "logging probability), or it measures the logging policy's error.",
            lambda c, t, lp, m, q: float(np.mean(q + (c - m))),
        ),
        Mistake(
            "the residual the wrong way round",
            "The correction is click - predicted (what happened minus what the model said).",
            lambda c, t, lp, m, q: float(np.mean(q + t / lp * (m - c))),
        ),
        Mistake(
            "the direct method alone",
            "mean(predicted_target) is the direct method: it carries all of the model's bias. DR adds the "
            "weighted residual.",
            lambda c, t, lp, m, q: float(np.mean(q)),
        ),
        Mistake(
            "IPS alone",
            "mean(w * click) is IPS; DR subtracts the weighted prediction and adds the model's value.",
            lambda c, t, lp, m, q: float(np.mean(t / lp * c)),
        ),
        Mistake(
            "weights the model's value too",
            "The model's value of the new policy, predicted_target, already is the new policy's: it takes "
            "no weight.",
            lambda c, t, lp, m, q: float(np.mean(t / lp * (q + c - m))),
        ),
    ],
)
