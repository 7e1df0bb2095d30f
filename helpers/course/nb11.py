"""Exercises of ``notebooks/11-beyond-accuracy.ipynb``: novelty, Gini, and two choice questions."""

from __future__ import annotations

import math

from helpers.checking.questions import FunctionQuestion, Mistake
from helpers.course.choice import choice
from topkeval.beyond import gini_of_counts, novelty_at_k

__all__ = ["q1", "q2", "q3", "q4", "novelty", "gini"]

_POP = {"a": 0.5, "b": 0.25, "c": 0.125, "d": 1.0, "e": 0.01, "f": 0.3}
_NOVELTY_CASES = [
    (["d", "a"], 2, _POP),
    (["a", "b", "c"], 3, _POP),
    (["e", "f", "a", "b"], 2, _POP),  # the cutoff matters
    (["c"], 5, _POP),  # shorter than k: average over the items shown
    (["f", "e", "d", "c", "b", "a"], 6, _POP),
]


def novelty(ranking, k, popularity):
    """Mean self-information of the top k items: mean of -log2(popularity share)."""
    shown = ranking[:k]
    return sum(-math.log2(popularity[item]) for item in shown) / len(shown)


def gini(counts):
    """Gini index of per-item recommendation counts (zeros included)."""
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
