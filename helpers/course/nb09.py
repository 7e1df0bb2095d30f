"""Exercises of ``notebooks/09-sampled-metrics.ipynb``: ranks among sampled negatives."""

from __future__ import annotations

from helpers.checking.questions import FunctionQuestion, Mistake, ValueQuestion
from helpers.experiments.sampled import expected_negatives_above as _expected_negatives_above
from helpers.experiments.sampled import expected_sampled_hit as _expected_sampled_hit
from helpers.experiments.sampled import rank_among as _rank_among

__all__ = ["q1", "q2", "q3", "rank_among", "expected_above", "first_rank_below_half"]


# ---------------------------------------------------------------- q1
def rank_among(positive_score, negative_scores):
    """1 + the number of negatives that score higher than the held-out item.

    The rank of the held-out item in a sampled evaluation; a tie with a negative is resolved in
    the item's favour (only strictly higher scores push it down).

    Parameters
    ----------
    positive_score : float
        The model's score of the held-out item.
    negative_scores : iterable of float
        The scores of the sampled negatives.

    Returns
    -------
    int
        The rank, from 1 (no negative above it) to ``len(negative_scores) + 1``.

    Examples
    --------
    >>> rank_among(0.5, [0.9, 0.1, 0.7, 0.5])
    3
    """
    return 1 + sum(1 for score in negative_scores if score > positive_score)


q1 = FunctionQuestion(
    id="09.q1",
    title="the rank of the held-out item among sampled negatives",
    function_name="rank_among",
    reference=lambda positive, negatives: _rank_among(positive, negatives),
    cases=[
        (0.7, [0.9, 0.1, 0.75, 0.3]),
        (2.0, [0.5, 1.5, -1.0]),
        (-3.0, [1.0, 2.0, 0.0, -1.0, 5.0]),
        (0.4, [0.41]),
        (0.5, [0.5, 0.9, 0.1, 0.5]),  # ties go to the held-out item
        (1.0, []),  # no negatives at all
    ],
    hints=[
        "Rank 1 means no negative beats the held-out item; "
        "a negative with exactly the same score does not beat it.",
        "Count the negatives with a higher score and add 1.",
    ],
    solution_code=rank_among,
    mistakes=[
        Mistake(
            "0-based rank",
            "Counting the negatives above gives 0 for the best position; ranks start at 1.",
            lambda positive, negatives: sum(1 for s in negatives if s > positive),
        ),
        Mistake(
            "counted the negatives below",
            "Higher scores rank first: count the negatives that score above the held-out item.",
            lambda positive, negatives: 1 + sum(1 for s in negatives if s < positive),
        ),
        Mistake(
            "ties counted as above",
            "A negative with exactly the held-out item's score does not beat it: "
            "count score > positive_score, not >=.",
            lambda positive, negatives: 1 + sum(1 for s in negatives if s >= positive),
        ),
    ],
)


# ---------------------------------------------------------------- q2
def expected_above():
    """49 of the 999 others beat it; a uniform sample of 100 holds on average 100 * 49 / 999 of them.

    Returns
    -------
    float
        The expected number of sampled negatives ranked above an item at exact rank 50 of 1000.

    Examples
    --------
    >>> round(expected_above(), 4)
    4.9049
    """
    return 100 * (50 - 1) / (1000 - 1)


q2 = ValueQuestion(
    id="09.q2",
    title="expected negatives above an item at exact rank 50",
    prompt="the expected number of the 100 sampled negatives that beat an item at exact rank 50 of 1000, "
    "to 3 decimals (or exactly)",
    reference=lambda: _expected_negatives_above(50, 1000, 100),
    decimals=3,
    hints=[
        "How many of the 999 other candidates score above an item at rank 50?",
        "Each of those 49 is drawn with probability 100/999: the expectation is 100 * 49 / 999.",
    ],
    solution_code=expected_above,
    mistakes=[
        Mistake(
            "counted the item itself",
            "Rank 50 means 49 items above, not 50.",
            lambda: 100 * 50 / 999,
        ),
        Mistake(
            "divided by all 1000 candidates",
            "4.9 is 100 * 49 / 1000, as if the held-out item could be drawn as its own negative; "
            "negatives come from the 999 other items. "
            "(If you rounded the right value to one decimal instead: the question asks for 3.)",
            lambda: 100 * 49 / 1000,
        ),
        Mistake(
            "the expected sampled rank, not the count above",
            "The expected sampled rank is one more than the expected number of negatives above.",
            lambda: 1 + 100 * 49 / 999,
        ),
    ],
)


# ---------------------------------------------------------------- q3
def first_rank_below_half():
    """Walk down the exact ranks until the chance of a sampled hit@10 drops below 0.5.

    Uses :func:`helpers.experiments.sampled.expected_sampled_hit` with the notebook's catalogue
    and sample size.

    Returns
    -------
    int
        The first exact rank at which a sampled hit@10 is less likely than not.

    Examples
    --------
    >>> first_rank_below_half()
    97
    """
    from helpers.experiments.sampled import expected_sampled_hit

    rank = 1
    while expected_sampled_hit(rank, 1000, 100, 10) >= 0.5:
        rank += 1
    return rank


def _first_below(threshold: float, k: int = 10) -> int:
    rank = 1
    while _expected_sampled_hit(rank, 1000, 100, k) >= threshold:
        rank += 1
    return rank


q3 = ValueQuestion(
    id="09.q3",
    title="the exact rank where a sampled hit@10 becomes a coin flip",
    prompt="the smallest exact rank (of 1000 candidates) with P(sampled hit@10, 100 negatives) < 0.5",
    reference=lambda: _first_below(0.5),
    hints=[
        "expected_sampled_hit(rank, 1000, 100, 10) is the probability for one rank; "
        "it falls as the rank grows.",
        "Start at rank 1 and step down until the probability is below 0.5; return that rank.",
    ],
    solution_code=first_rank_below_half,
    mistakes=[
        Mistake(
            "the last rank still at or above one half",
            "That is one rank too early: the question asks for the first rank *below* 0.5.",
            lambda: _first_below(0.5) - 1,
        ),
        Mistake(
            "the exact cutoff",
            "Exact HR@10 stops at rank 10, but with 100 of 999 negatives an item at rank 11 is still almost "
            "always a sampled hit.",
            lambda: 11,
        ),
        Mistake(
            "proportional guess",
            "10 * 999 / 100 + 1 = 100.9 is where on average 10 negatives beat the item; the median is "
            "earlier. Compute the probability with expected_sampled_hit.",
            lambda: 101,
        ),
    ],
)
