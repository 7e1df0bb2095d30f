"""Exercises of ``notebooks/15-unobserved-is-not-irrelevant.ipynb``.

Why the log moves recall, then IPS precision.
"""

from __future__ import annotations

from helpers.checking.questions import FunctionQuestion, Mistake
from helpers.course.choice import choice

__all__ = ["q1", "q2", "ips_precision"]

q1 = choice(
    "15.q1",
    "Explain the difference: MostPopular's recall@10 is higher under the log than under the truth",
    "the reason the log raises MostPopular's recall@10 (while it lowers its precision@10)",
    {
        "a": (
            "The log's test set is a random 20% of the log, so it is an unbiased sample of the truth.",
            "It is a random sample of the LOG, not of the truth: the log already over-represents visible "
            "items.",
        ),
        "b": (
            "Recall divides by the user's relevant items in the test set. The log holds only the few "
            "relevant items "
            "that were shown, mostly visible ones, and MostPopular's list is made of visible items: it "
            "finds a "
            "large share of a small, visible denominator.",
            "Yes: the log shrinks the denominator towards the items MostPopular recommends. Precision "
            "divides by "
            "k = 10 instead, so every unshown relevant item in the list simply counts as a miss.",
            True,
        ),
        "c": (
            "Popular items are truly relevant to more users, so the log is right to reward them.",
            "True popularity is only partly related to visibility here (the notebook prints both "
            "correlations); "
            "the gain comes from what was shown, not from what is relevant.",
        ),
        "d": (
            "MostPopular recommends items the user has already seen in training.",
            "Every model's lists leave out the training items (exclude_seen), MostPopular's too.",
        ),
    },
    [
        "Write recall@10 as hits / |relevant test items|. Which of the two numbers does the log change most "
        "for a list of visible items?",
        "Compare with precision@10 = hits / 10: its denominator does not depend on the log.",
    ],
)


def ips_precision(ranking, logged, propensity, k):
    """Propensity-weighted precision@k: each logged hit in the top k counts 1 / propensity, over k.

    A hit on an item that the logging policy rarely showed counts for more, undoing the bias of
    the log towards what was already shown.

    Parameters
    ----------
    ranking : sequence
        The recommended items, best first.
    logged : set
        The items the user clicked in the log.
    propensity : mapping
        The probability that each logged item was shown (positive).
    k : int
        The cutoff.

    Returns
    -------
    float
        The weighted hit count over ``k``; may exceed 1, as an unbiased estimate can.

    Examples
    --------
    >>> ips_precision(["a", "b", "c"], {"a", "c"}, {"a": 0.5, "c": 0.25}, 2)  # (1 / 0.5) / 2
    1.0
    """
    return sum(1 / propensity[item] for item in ranking[:k] if item in logged) / k


def _reference(ranking, logged, propensity, k):
    weights = [1.0 / float(propensity[item]) for item in list(ranking)[:k] if item in set(logged)]
    return float(sum(weights)) / k


_CASES = [
    (["a", "b", "c", "d"], {"a", "c"}, {"a": 0.4, "b": 0.1, "c": 0.3, "d": 0.8}, 3),
    (["a", "b", "c", "d"], {"d"}, {"a": 0.5, "b": 0.5, "c": 0.5, "d": 0.2}, 4),
    (["a", "b", "c", "d"], {"b", "d"}, {"a": 0.9, "b": 0.4, "c": 0.9, "d": 0.05}, 3),  # d: just past k
    (["x", "y"], {"z"}, {"x": 0.3, "y": 0.3, "z": 0.3}, 2),
    (list("abcdefgh"), set("aceg"), {c: 0.1 * (i + 1) for i, c in enumerate("abcdefgh")}, 5),
    ([1, 2, 3], {1, 2, 3}, {1: 1.0, 2: 0.5, 3: 0.25}, 3),
    (["a", "b", "c"], {"a", "b"}, {"a": 0.02, "b": 0.5, "c": 0.5}, 3),  # a weight of 50: nothing clips it
    (["a", "b"], {"a", "b"}, {"a": 0.25, "b": 0.5}, 5),  # a list shorter than k: still over k
]

q2 = FunctionQuestion(
    id="15.q2",
    title="Propensity-weighted precision@k",
    function_name="ips_precision",
    reference=_reference,
    cases=_CASES,
    hints=[
        "A logged hit on an item that is logged with probability q stands for 1/q true hits on average.",
        "sum(1 / propensity[item] for item in ranking[:k] if item in logged) / k",
    ],
    solution_code=ips_precision,
    mistakes=[
        Mistake(
            "multiplies by the propensity",
            "Rarely logged items must count MORE, not less: divide by the propensity.",
            lambda r, logged, p, k: sum(p[i] for i in r[:k] if i in logged) / k,
        ),
        Mistake(
            "no weights (the log's precision)",
            "That is precision@k under the log, which counts every unlogged relevant item as a miss; the "
            "weights "
            "1 / propensity are the correction.",
            lambda r, logged, p, k: sum(1 for i in r[:k] if i in logged) / k,
        ),
        Mistake(
            "divides by the number of hits",
            "Precision divides by k, the length of the list; dividing by the hits gives the mean weight of "
            "a hit.",
            lambda r, logged, p, k: (
                sum(1 / p[i] for i in r[:k] if i in logged) / max(1, sum(1 for i in r[:k] if i in logged))
            ),
        ),
        Mistake(
            "clips the weights",
            "The plain IPS estimate keeps every weight 1 / propensity, however large: clipping (at 10, "
            "say) is a different estimator, with less variance and a downward bias.",
            lambda r, logged, p, k: sum(min(1 / p[i], 10.0) for i in r[:k] if i in logged) / k,
        ),
        Mistake(
            "divides by the list's length instead of k",
            "Precision@k divides by k even when the list is shorter: the missing slots are misses.",
            lambda r, logged, p, k: sum(1 / p[i] for i in r[:k] if i in logged) / max(1, len(r[:k])),
        ),
        Mistake(
            "ignores the cutoff k",
            "Only the top k count: ranking[:k].",
            lambda r, logged, p, k: sum(1 / p[i] for i in r if i in logged) / k,
        ),
    ],
)
