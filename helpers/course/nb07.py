"""Exercise of ``notebooks/07-same-name-different-numbers.ipynb``: which convention produced this number?

The number the learner sees is computed by :func:`helpers.average_precision_at_k`; the
libraries named in each option come from the convention table (:mod:`topkeval.conventions`).
"""

from __future__ import annotations

from helpers import average_precision_at_k
from helpers.course.choice import choice
from topkeval.conventions import libraries_using

__all__ = ["q1", "MYSTERY_RANKING", "MYSTERY_RELEVANT", "MYSTERY_K", "mystery_value"]

#: One user's list and relevant items: hits at ranks 1 and 3, four relevant items, cutoff 3.
MYSTERY_RANKING: list[str] = ["a", "x", "b"]
MYSTERY_RELEVANT: set[str] = {"a", "b", "c", "d"}
MYSTERY_K: int = 3


def mystery_value() -> float:
    """The AP@3 a colleague's library printed for this user (one of the three denominators).

    Question 07.q1 asks which denominator produced it; this is the value shown in the notebook,
    computed by :func:`helpers.average_precision_at_k` with that convention.

    Returns
    -------
    float
        The printed AP@3.

    Examples
    --------
    >>> round(mystery_value(), 4)
    0.5556
    """
    return average_precision_at_k(
        MYSTERY_RANKING, MYSTERY_RELEVANT, MYSTERY_K, denominator="min_k_n_relevant"
    )


def _first_libraries(value: str, n: int = 3) -> str:
    names = libraries_using("denominator", value).split(", ")
    return ", ".join(names[:n]) + (", ..." if len(names) > n else "")


q1 = choice(
    "07.q1",
    "Which convention produced this number?",
    "the convention behind the printed AP@3",
    {
        "a": (
            f"÷ |R|, as in {_first_libraries('n_relevant')}",
            "÷ |R| divides the sum of precisions (1 + 2/3) by all four relevant items: 5/12, not the printed "
            "value. Two of the four could never fit in a top 3.",
        ),
        "b": (
            f"÷ min(k, |R|), as in {_first_libraries('min_k_n_relevant')}",
            "Yes: min(3, 4) = 3 slots could hold a hit, and (1 + 2/3) / 3 = 5/9 is the printed value.",
            True,
        ),
        "c": (
            f"÷ hits in the top k, as in {_first_libraries('n_hits')}",
            "÷ hits divides by the 2 hits found: 5/6, the largest of the three, since misses below the last "
            "hit and relevant items never retrieved cost nothing.",
        ),
    },
    [
        "Compute the sum of P@i at the hit ranks first: the hits are at ranks 1 and 3.",
        "Divide that sum by 4 (|R|), by 3 (min(k, |R|)) and by 2 (the hits): which one prints?",
    ],
)
