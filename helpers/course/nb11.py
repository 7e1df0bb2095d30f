"""Exercises of ``notebooks/11-beyond-accuracy.ipynb``: novelty, Gini, exposure and three choice questions."""

from __future__ import annotations

import math

from helpers.checking.questions import FunctionQuestion, Mistake
from helpers.course.choice import choice
from topkeval.beyond import calibration_kl_at_k, gini_of_counts, item_exposure, novelty_at_k

__all__ = ["q1", "q2", "q3", "q4", "q5", "q6", "novelty", "gini", "exposure"]

_POP = {"a": 0.5, "b": 0.25, "c": 0.125, "d": 1.0, "e": 0.01, "f": 0.3}
_NOVELTY_CASES = [
    (["d", "a"], 2, _POP),
    (["a", "b", "c"], 3, _POP),
    (["e", "f", "a", "b"], 2, _POP),  # the cutoff matters
    (["c"], 5, _POP),  # shorter than k: average over the items shown
    (["f", "e", "d", "c", "b", "a"], 6, _POP),
]


def novelty(ranking, k, popularity):
    """Mean self-information of the top k items: mean of -log2(popularity share).

    An item that every user has seen carries no surprise (share 1, 0 bits); a rare one carries
    many bits.

    Parameters
    ----------
    ranking : sequence
        The recommended items, best first (not empty).
    k : int
        The cutoff; a shorter list is averaged over the items it has.
    popularity : mapping
        Each item's share of users who interacted with it, in (0, 1].

    Returns
    -------
    float
        The mean number of bits of the items shown.

    Examples
    --------
    >>> novelty(["a", "b"], 2, {"a": 0.5, "b": 0.25})  # (1 + 2) / 2 bits
    1.5
    """
    shown = ranking[:k]
    return sum(-math.log2(popularity[item]) for item in shown) / len(shown)


def gini(counts):
    """Gini index of per-item recommendation counts (zeros included).

    Parameters
    ----------
    counts : sequence of int
        How often each catalogue item was recommended, one count per item, the never-recommended
        items included as 0 (leaving them out would hide the concentration). At least one count
        must be positive.

    Returns
    -------
    float
        0 when every item is recommended equally often, approaching 1 when one item takes all.

    Examples
    --------
    >>> gini([5, 5, 5]), gini([0, 0, 0, 10])
    (0.0, 0.75)
    """
    ordered = sorted(counts)
    n, total = len(ordered), sum(ordered)
    return sum((2 * i - n - 1) * c for i, c in enumerate(ordered, start=1)) / (n * total)


def _gini_sorted_as_given(counts):
    ordered = list(counts)
    n, total = len(ordered), sum(ordered)
    return sum((2 * i - n - 1) * c for i, c in enumerate(ordered, start=1)) / (n * total)


q1 = FunctionQuestion(
    id="11.q1",
    title="Novelty@k: mean self-information of the recommended items",
    function_name="novelty",
    reference=lambda ranking, k, popularity: novelty_at_k(ranking, k, popularity=popularity),
    cases=_NOVELTY_CASES,
    hints=[
        "An item with popularity share s carries -log2(s) bits: 1 bit for s = 1/2, 3 bits for s = 1/8.",
        "Average over the items actually shown: shown = ranking[:k]; divide by len(shown).",
    ],
    solution_code=novelty,
    mistakes=[
        Mistake(
            "natural log",
            "Self-information in bits uses log2; math.log gives nats, a smaller unit.",
            lambda ranking, k, popularity: (
                sum(-math.log(popularity[i]) for i in ranking[:k]) / len(ranking[:k])
            ),
        ),
        Mistake(
            "sum instead of mean",
            "Novelty is the mean over the list; a sum grows with the list length.",
            lambda ranking, k, popularity: sum(-math.log2(popularity[i]) for i in ranking[:k]),
        ),
        Mistake(
            "divides by k",
            "A list shorter than k has fewer items; average over the items shown, len(ranking[:k]).",
            lambda ranking, k, popularity: sum(-math.log2(popularity[i]) for i in ranking[:k]) / k,
        ),
    ],
)

q2 = FunctionQuestion(
    id="11.q2",
    title="Gini index of recommendation counts",
    function_name="gini",
    reference=gini_of_counts,
    cases=[([5, 5, 5, 5],), ([0, 0, 0, 8],), ([3, 0, 1, 0, 6],), ([1, 2, 3, 4, 10],), ([7, 0],)],
    hints=[
        "Sort the counts in increasing order first; c_(1) is the smallest.",
        "G = sum over i = 1..n of (2i - n - 1) * c_(i), divided by n * sum(c). "
        "Keep the zeros: they are items nobody was shown.",
    ],
    solution_code=gini,
    mistakes=[
        Mistake(
            "drops the zeros",
            "Items recommended to nobody are the heart of popularity bias; "
            "they stay in the catalogue with count 0.",
            lambda counts: gini_of_counts([c for c in counts if c > 0]),
        ),
        Mistake(
            "forgets to divide by n",
            "The sum is divided by n * sum(c), the number of items times the total count.",
            lambda counts: gini_of_counts(counts) * len(counts),
        ),
        Mistake(
            "not sorted",
            "The formula needs the counts in increasing order; the catalogue order means nothing.",
            lambda counts: _gini_sorted_as_given(counts),
        ),
    ],
)

q3 = choice(
    "11.q3",
    "Predict, then run: how many distinct items does MostPopular show?",
    "what MostPopular's top-10 lists cover",
    {
        "a": (
            "Exactly 10 items: it shows everyone the same list.",
            "Close, but recommend() leaves out items the user already has, so a user who owns some of the "
            "ten most popular items gets the 11th, 12th, ... instead.",
        ),
        "b": (
            "More than 10, but far fewer than the personalised models: "
            "one ranking, minus what each user has.",
            "Yes: the list is shared, but seen items are excluded, "
            "so users who own popular items reach a bit further down the popularity order.",
            True,
        ),
        "c": (
            "About as many as Random: every user gets different items.",
            "MostPopular ignores who the user is; "
            "only the exclusion of seen items makes lists differ at all.",
        ),
    },
    [
        "MostPopular ranks items by how many users had them; who is the same for every user?",
        "Read Recommender.recommend's exclude_seen: what happens to items the user already has?",
    ],
)

q4 = choice(
    "11.q4",
    "Explain the difference: more neighbours, higher NDCG, lower coverage",
    "the reason for ItemKNN's trade-off",
    {
        "a": (
            "Coverage was computed on fewer users for ItemKNN(400).",
            "Both models are scored on exactly the same test users; the table says so.",
        ),
        "b": (
            "Summing similarities over more neighbours favours items similar to many things, "
            "i.e. popular ones, and popular items are more often in a user's test set.",
            "Yes: ARP rises and novelty falls with more neighbours, so the lists lean to popular items; "
            "those are the likeliest hits, so NDCG rises while fewer distinct items get shown.",
            True,
        ),
        "c": (
            "NDCG and coverage always move in opposite directions.",
            "Not always: in the table ItemKNN(100) has both a higher mean NDCG@10 and a wider coverage than "
            "EASE(100). "
            "A trade-off is common, not a law.",
        ),
    },
    [
        "Compare ItemKNN(100) and ItemKNN(400) on ARP and novelty, not only on NDCG and coverage.",
        "Which items are similar to many other items?",
    ],
)


_LISTS = [["a", "b", "c"], ["b", "a", "c"], ["a", "c", "d"]]
_EXPOSURE_CASES = [
    (_LISTS, "a", 3),
    (_LISTS, "c", 3),
    (_LISTS, "c", 2),  # the cutoff matters: c's slot-3 appearances drop out
    (_LISTS, "e", 3),  # never recommended
    ([["x", "y"], ["y", "x"], ["z", "y", "x", "w"]], "x", 4),
    ([[f"i{j}" for j in range(10)]] * 4, "i9", 10),  # always in slot 10
    ([["p", "q"]], "q", 5),  # a list shorter than k
]


def exposure(rankings, item, k):
    """Position-weighted exposure of one item: sum over lists of 1/log2(rank + 1) where it is in the top k.

    Parameters
    ----------
    rankings : iterable of sequence
        One recommended list per user.
    item : hashable
        The item whose exposure is summed.
    k : int
        The cutoff: a rank below ``k`` gives no exposure.

    Returns
    -------
    float
        The item's total exposure over the lists (rank 1 counts 1, rank 2 about 0.63, ...).

    Examples
    --------
    >>> round(exposure([["a", "b"], ["b", "a"]], "a", 2), 4)
    1.6309
    """
    total = 0.0
    for ranking in rankings:
        for rank, shown in enumerate(ranking[:k], start=1):
            if shown == item:
                total += 1 / math.log2(rank + 1)
    return total


def _exposure_reference(rankings, item, k):
    catalog = {shown for ranking in rankings for shown in ranking} | {item}
    return float(item_exposure(rankings, sorted(catalog), k)[item])


q5 = FunctionQuestion(
    id="11.q5",
    title="Position-weighted exposure of one item",
    function_name="exposure",
    reference=_exposure_reference,
    cases=_EXPOSURE_CASES,
    hints=[
        "Loop over the lists; in each, find the item's 1-based rank within ranking[:k].",
        "A slot at rank r gets 1 / log2(r + 1): rank 1 gets 1, rank 3 gets 0.5. Sum over the lists, "
        "and return 0.0 for an item no list shows.",
    ],
    solution_code=exposure,
    mistakes=[
        Mistake(
            "counts the slots",
            "That is the recommendation count the Gini index uses; exposure weighs each slot by "
            "1/log2(rank + 1), so slot 1 counts more than slot 10.",
            lambda rankings, item, k: float(sum(item in ranking[:k] for ranking in rankings)),
        ),
        Mistake(
            "1/rank instead of 1/log2(rank + 1)",
            "1/rank is the reciprocal-rank weight; exposure here uses the DCG discount 1/log2(rank + 1).",
            lambda rankings, item, k: sum(
                1 / r for ranking in rankings for r, x in enumerate(ranking[:k], 1) if x == item
            ),
        ),
        Mistake(
            "ignores the cutoff k",
            "Only the top k is shown: an item at rank k + 1 or lower gets no exposure.",
            lambda rankings, item, k: sum(
                1 / math.log2(r + 1) for ranking in rankings for r, x in enumerate(ranking, 1) if x == item
            ),
        ),
        Mistake(
            "natural log",
            "1/ln(rank + 1) is not the DCG discount: with the natural log rank 1 gets 1/ln 2 = 1.44 "
            "instead of 1; use math.log2 (Singh and Joachims write log without a base, the course "
            "fixes it at 2).",
            lambda rankings, item, k: sum(
                1 / math.log(r + 1) for ranking in rankings for r, x in enumerate(ranking[:k], 1) if x == item
            ),
        ),
        Mistake(
            "mean over lists",
            "Exposure is summed over the users' lists: an item shown to more users gets more attention.",
            lambda rankings, item, k: exposure(rankings, item, k) / len(rankings),
        ),
    ],
)


def _c_kl(dramas: int) -> float:
    """C_KL@10 of a list of ``dramas`` dramas and 10 - dramas comedies, for a 70 % drama history."""
    genres = {**{f"d{j}": "drama" for j in range(10)}, **{f"c{j}": "comedy" for j in range(10)}}
    history = [f"d{j}" for j in range(7)] + [f"c{j}" for j in range(3)]
    listed = [f"d{j}" for j in range(dramas)] + [f"c{j}" for j in range(10 - dramas)]
    return calibration_kl_at_k(history, listed, 10, genres=genres)


q6 = choice(
    "11.q6",
    "Calibration: a history is 70 % drama and 30 % comedy. Which top-10 list has the lowest C_KL@10?",
    "the list with the lowest C_KL@10",
    {
        "a": (
            "Eight dramas and two comedies: one more of what the user likes most.",
            f"C_KL@10 = {_c_kl(8):.4f} nats. KL(p || q~) weighs each genre by the history's share p and "
            "punishes q most where it falls below p: two comedies against a 30 % share cost more than "
            "four against it.",
        ),
        "b": (
            "Six dramas and four comedies.",
            f"Yes: C_KL@10 = {_c_kl(6):.4f} nats against {_c_kl(8):.4f} for 8/2. Both lists are one item "
            "from 7/3, but the divergence is not symmetric: it grows fast as the list's share of a genre "
            "of the history shrinks towards 0, so under-serving the minor genre costs more than "
            "over-serving it.",
            True,
        ),
        "c": (
            "They tie: 8/2 and 6/4 are each one item away from 7/3.",
            f"One item either way is not the same divergence: 8/2 gives {_c_kl(8):.4f} nats and 6/4 "
            f"{_c_kl(6):.4f}. ln(p/q) grows faster as q shrinks, so taking a comedy away costs more than "
            "adding one.",
        ),
        "d": (
            "Nine dramas and one comedy: a list should lean to the user's main taste.",
            f"C_KL@10 = {_c_kl(9):.4f} nats, the largest of the three lists: one comedy against a 30 % "
            "share leaves most of the comedy term.",
        ),
    },
    [
        "Compute both: sum over the genres of p ln(p / q~), with p = (0.7, 0.3) and q~ = 0.99 q + 0.01 p.",
        "KL(p || q) is not symmetric in how q misses p: a genre whose list share falls below its history "
        "share costs more than one whose share rises by the same amount.",
    ],
)
