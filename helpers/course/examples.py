"""The seed posts' worked examples, as named data shared by notebooks, exercises and tests.

Every example of the five seed posts (``shared/seeds/000`` to ``004``) lives
here once, with where it comes from. The notebooks compute every number from
these inputs with :mod:`helpers`; the only numbers typed here are the values
the seeds *state* (``STATED``), kept so the course can show each erratum next
to the exact value.

Two converters turn the seeds' notations into helpers' inputs:

- :func:`from_binary` turns a list of 0/1 labels in rank order into item ids
  and a relevant set;
- :func:`from_grades` turns a list of grades in rank order into item ids and
  an ``item -> grade`` mapping.

Examples
--------
>>> from helpers import precision_at_k
>>> from helpers.course.examples import CAR_ITEMS, CAR_RELEVANT
>>> precision_at_k(CAR_ITEMS, CAR_RELEVANT, k=5)
0.8
>>> ranking, relevant = from_binary(CASE_A_LABELS)
>>> ranking, sorted(relevant)
(['i1', 'i2', 'i3', 'i4', 'i5'], ['i1', 'i3', 'i5'])
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "from_binary",
    "from_grades",
    "CAR_ITEMS",
    "CAR_LABELS",
    "CAR_RELEVANT",
    "CAR_P_CUTOFFS",
    "CAR_AP_CUTOFFS",
    "CASE_A_LABELS",
    "CASE_B_LABELS",
    "BDZ_RELEVANT",
    "BDZ_RANKING_1",
    "BDZ_RANKING_2",
    "BDZ_K",
    "SEED001_P",
    "SEED001_T",
    "SEED001_LOO_TARGET",
    "SEED001_K",
    "GRADED_A",
    "GRADED_B",
    "BINARY_10",
    "TIE_RELEVANT",
    "TIE_RANKING_1",
    "TIE_RANKING_2",
    "LOO_K",
    "STATED",
    "EDGE_CASES",
]


def from_binary(labels: Sequence[int], prefix: str = "i") -> tuple[list[str], set[str]]:
    """Item ids ``i1, i2, ...`` for 0/1 labels in rank order, and the relevant set.

    Parameters
    ----------
    labels : sequence of {0, 1}
        ``labels[j]`` is 1 when the item at rank ``j + 1`` is relevant.
    prefix : str
        Prefix of the generated item ids.

    Returns
    -------
    ranking : list of str
    relevant : set of str
        Only the listed relevant items: a seed that gives a 0/1 list knows
        nothing about relevant items that were not recommended.

    Examples
    --------
    >>> ranking, relevant = from_binary([0, 1, 1])
    >>> ranking, sorted(relevant)
    (['i1', 'i2', 'i3'], ['i2', 'i3'])
    """
    if any(label not in (0, 1) for label in labels):
        raise ValueError(f"labels must be 0 or 1 in rank order; got {list(labels)!r}.")
    ranking = [f"{prefix}{rank}" for rank in range(1, len(labels) + 1)]
    return ranking, {item for item, label in zip(ranking, labels, strict=True) if label}


def from_grades(grades: Sequence[float], prefix: str = "i") -> tuple[list[str], dict[str, float]]:
    """Item ids ``i1, i2, ...`` for grades in rank order, and the ``item -> grade`` mapping.

    Lets an exercise about graded relevance be written as a list of grades and still call the
    library's ``(ranking, relevance, k)`` functions.

    Parameters
    ----------
    grades : sequence of float
        The grade of the item at each rank, best rank first; 0 means irrelevant.
    prefix : str, default "i"
        The start of every item id.

    Returns
    -------
    tuple of (list of str, dict)
        The ranking and the item -> grade mapping (the zero grades included).

    Raises
    ------
    ValueError
        For a negative grade.

    Examples
    --------
    >>> from_grades([2, 0, 1])
    (['i1', 'i2', 'i3'], {'i1': 2, 'i2': 0, 'i3': 1})
    """
    if any(grade < 0 for grade in grades):
        raise ValueError(f"grades must be >= 0; got {list(grades)!r}.")
    ranking = [f"{prefix}{rank}" for rank in range(1, len(grades) + 1)]
    return ranking, dict(zip(ranking, grades, strict=True))


# ----------------------------------------------------------------- seed 000
#: Seed 000's ten car-accessory recommendations, best first (names translated).
CAR_ITEMS: list[str] = [
    "engine oil",
    "car battery",
    "air freshener",
    "toy car",
    "washer fluid",
    "beginner-driver sticker",
    "tyre",
    "driver insurance",
    "rental-car voucher",
    "phone mount",
]
#: Seed 000's verdicts in rank order: 1 = the user wanted it (ranks 1, 2, 3, 5, 7, 10).
CAR_LABELS: list[int] = [1, 1, 1, 0, 1, 0, 1, 0, 0, 1]
#: The relevant car items. Seed 000 lists no relevant item outside the ten.
CAR_RELEVANT: set[str] = {item for item, label in zip(CAR_ITEMS, CAR_LABELS, strict=True) if label}
#: The cutoffs seed 000 computes P@K for.
CAR_P_CUTOFFS: tuple[int, ...] = (3, 5, 7, 10)
#: The cutoffs seed 000 computes AP@K for.
CAR_AP_CUTOFFS: tuple[int, ...] = (5, 7, 9, 10)
#: Seed 000, Case A: three hits at ranks 1, 3 and 5 (K = 5).
CASE_A_LABELS: list[int] = [1, 0, 1, 0, 1]
#: Seed 000, Case B: three hits at ranks 2, 4 and 5 (K = 5).
CASE_B_LABELS: list[int] = [0, 1, 0, 1, 1]

# ----------------------------------------------------------------- seed 004
#: Seed 004: the user's relevant items; Z is never recommended.
BDZ_RELEVANT: set[str] = {"B", "D", "Z"}
#: Seed 004, example 1: hits at ranks 2 and 4.
BDZ_RANKING_1: list[str] = ["A", "B", "C", "D", "E"]
#: Seed 004, example 2: the same five items, hits at ranks 4 and 5.
BDZ_RANKING_2: list[str] = ["A", "C", "E", "B", "D"]
#: Seed 004's cutoff.
BDZ_K: int = 5

# ----------------------------------------------------------------- seed 001
#: Seed 001: the system's ranking of all n = 10 items (item ids are numbers).
SEED001_P: list[int] = [4, 6, 2, 3, 1, 8, 10, 9, 5, 7]
#: Seed 001, general case: the items the user actually liked (at ranks 2, 5, 8).
SEED001_T: set[int] = {1, 6, 9}
#: Seed 001, leave-one-out case: the single held-out item (at rank 3).
SEED001_LOO_TARGET: int = 2
#: Seed 001's cutoff.
SEED001_K: int = 5

# ----------------------------------------------------------------- seed 003
#: Seed 003, list A: graded relevance in rank order.
GRADED_A: list[int] = [2, 3, 3, 1, 2]
#: Seed 003, list B: the same grades sorted best first (the ideal order of A's items).
GRADED_B: list[int] = [3, 3, 2, 2, 1]
#: Seed 003's binary example: hits at ranks 1, 2, 6, 7 and 9 of ten (K = 10).
BINARY_10: list[int] = [1, 1, 0, 0, 0, 1, 1, 0, 1, 0]
#: Seed 003's tie example: the user interacted with C and D.
TIE_RELEVANT: set[str] = {"C", "D"}
#: Seed 003's tie example, first list.
TIE_RANKING_1: list[str] = ["C", "A", "B", "E", "D"]
#: Seed 003's tie example, second list (C and D swapped).
TIE_RANKING_2: list[str] = ["D", "A", "B", "E", "C"]

# ----------------------------------------------------------------- seed 002
#: Seed 002's setting: leave-one-out with top-10 lists.
LOO_K: int = 10

#: Numbers as the seeds state them (quotations, some wrong): the course shows
#: each one next to the exact value that helpers computes.
STATED: dict[str, float] = {
    "seed000_case_a_ap5": 0.75,  # exact 34/45 = 0.7556
    "seed000_case_b_ap5": 0.53,
    "seed000_car_p7": 0.714,
    "seed001_loo_ndcg5": 0.43067655807339306,  # exact 0.5 (off-by-one in the code)
    "seed001_ndcg5": 0.4776237035032179,
    "seed002_gap_10_vs_miss": 0.14,  # MRR gives 0.1, nDCG 0.289
    "seed003_cg_a_typo_second_term": 33,  # "2 + 33 + 3 + 1 + 2 = 11"
    "seed003_dcg_a": 6.64,  # exact 6.5972
    "seed003_dcg_b": 7.14,
    "seed003_ndcg_a": 0.93,  # exact 0.9238
    "seed003_dcg_binary": 2.62,
    "seed003_idcg_binary": 2.94,  # exact 2.9485
    "seed003_ndcg_binary": 0.89,
    "seed004_map5": 0.275,
}


#: Small made-up inputs ``(ranking, relevant, k)`` that separate the usual slips in a top-k
#: function: a hit exactly at rank k, a hit only at rank k + 1, lists shorter than k, relevant
#: items that are never recommended, more relevant items than slots, and k = 1. The exercise
#: checks use them next to the seeds' examples; they are not from the seeds.
EDGE_CASES: list[tuple[list[str], set[str], int]] = [
    (["p", "q", "r", "s"], {"s", "t"}, 4),  # the only hit sits exactly at rank k
    (["p", "q", "r", "s"], {"s"}, 3),  # the only hit sits at rank k + 1
    (["a", "b", "c"], {"a", "c"}, 5),  # a list shorter than k
    (["a", "b", "c"], {"a", "b", "x", "y", "z", "w"}, 5),  # shorter than k, |R| > list length
    (["a", "b", "c", "d"], {"a", "c", "x", "y", "z"}, 3),  # |R| > k, some relevant items never recommended
    (["a", "b", "c", "d"], {"d", "x", "y", "z", "w"}, 2),  # no hit in the top k
    (["a", "b", "c", "d", "e", "f"], {"b", "e"}, 4),
    (["a", "b"], {"a", "q"}, 1),  # k = 1
    (["u", "v", "w", "x", "y", "z"], {"w", "x", "z"}, 6),  # three hits, the last at rank k
]
