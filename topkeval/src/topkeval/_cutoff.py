"""Cutoff, gain and discount: the only place that cuts a list at k, finds hits, or defines a gain or \
a discount.

Per-user metrics (``topkeval.metrics``, ``topkeval.dcg``), the batch kernels
(``topkeval._kernels``, ``topkeval.batch``), the library conventions
(``topkeval.conventions``) and the sampled-metrics protocol
(``helpers.experiments.sampled``) all build on these definitions, so a change
to what "the top k", a gain or a discount means is made once.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

__all__ = [
    "top_k",
    "hit_ranks",
    "discount",
    "discounts",
    "discounts_at",
    "gain_of",
    "gains",
    "ideal_dcg_table",
    "dcg_of",
    "normalised",
    "satisfaction",
]


def top_k(items: list, k: int) -> list:
    """The first ``k`` items of a ranking; a shorter ranking is kept whole.

    Positions past the end of a short list are empty: they hold no item and so
    no hit, but they still count in P@k's denominator (trec_eval's rule).
    """
    return items[:k]


def hit_ranks(items: list, relevant: set, k: int) -> list[int]:
    """1-based ranks i <= k whose item is relevant, in increasing order."""
    return [rank for rank, item in enumerate(top_k(items, k), start=1) if item in relevant]


def discount(rank: int, kind: str = "log2") -> float:
    """The DCG position discount for a 1-based ``rank``.

    ``kind="log2"``: 1 / log2(rank + 1). ``kind="clipped_log2"``:
    1 / log2(max(rank, 2)), Järvelin and Kekäläinen's original form, where
    ranks 1 and 2 weigh the same (LensKit's default).
    """
    if kind == "clipped_log2":
        return 1.0 / math.log2(max(rank, 2))
    return 1.0 / math.log2(rank + 1)


def discounts_at(ranks: np.ndarray, kind: str = "log2") -> np.ndarray:
    """:func:`discount` of every 1-based rank in an array (batch path)."""
    ranks = np.asarray(ranks, dtype=np.float64)
    if kind == "clipped_log2":
        return 1.0 / np.log2(np.maximum(ranks, 2.0))
    return 1.0 / np.log2(ranks + 1.0)


def discounted(values: Any, ranks: Any) -> np.ndarray:
    """``values / log2(rank + 1)`` for 1-based ranks (arrays, or numbers): each value discounted at its
    rank, divided rather than multiplied by :func:`discounts_at`, as trec_eval computes it, so that its
    measures come out equal to the last bit."""
    return np.asarray(values, dtype=np.float64) / np.log2(np.asarray(ranks, dtype=np.float64) + 1.0)


def discounts(n: int, kind: str = "log2") -> np.ndarray:
    """Discounts for ranks 1..n as a float64 array; ``kind`` as in :func:`discount`."""
    return discounts_at(np.arange(1, n + 1), kind)


def gain_of(grade: float, gain: str) -> float:
    """Gain of one graded item: ``grade`` (linear) or ``2**grade - 1`` (exponential)."""
    return grade if gain == "linear" else 2.0**grade - 1.0


def gains(grades: np.ndarray, gain: str) -> np.ndarray:
    """:func:`gain_of` for an array of grades (batch path)."""
    return grades if gain == "linear" else np.exp2(grades) - 1.0


def dcg_of(gains: Iterable[float], kind: str = "log2") -> float:
    """DCG of one list: the sum over ranks i = 1, 2, ... of gain_i * :func:`discount` (i).

    The per-user functions and the library conventions sum DCG and IDCG
    with this; the batch kernel sums the same products per user.

    >>> dcg_of([1.0, 0.0, 1.0])
    1.5
    """
    total = 0.0
    for rank, gain in enumerate(gains, start=1):
        total += gain * discount(rank, kind)
    return total


def normalised(dcg: Any, ideal: Any) -> np.ndarray:
    """NDCG from DCG and IDCG (scalars or arrays): DCG / IDCG, and 0 where IDCG is 0.

    IDCG is 0 only when nothing relevant can be placed (with ``ideal="listed"``
    and no relevant item listed): the list then scores 0, as in scikit-learn.

    >>> float(normalised(1.5, 2.0)), float(normalised(0.0, 0.0))
    (0.75, 0.0)
    """
    dcg, ideal = np.asarray(dcg, dtype=np.float64), np.asarray(ideal, dtype=np.float64)
    return np.where(ideal > 0, dcg / np.where(ideal > 0, ideal, 1.0), 0.0)


def satisfaction(grade: Any, top_grade: Any) -> Any:
    """ERR's chance that an item of ``grade`` satisfies the user: (2**grade - 1) / 2**top_grade.

    The exponential gain over 2**g_max; scalars or arrays.

    >>> float(satisfaction(1.0, 1.0)), float(satisfaction(2.0, 2.0))
    (0.5, 0.75)
    """
    return gains(np.asarray(grade, dtype=np.float64), "exponential") / np.exp2(top_grade)


def ideal_dcg_table(n: int, kind: str = "log2") -> np.ndarray:
    """IDCG of binary relevance with m relevant slots, for m = 0..n.

    ``table[m] = sum(discount(i) for i in 1..m)``; IDCG@k with |R| relevant
    items is ``table[min(|R|, k)]``.
    """
    table = np.zeros(n + 1, dtype=np.float64)
    np.cumsum(discounts(n, kind), out=table[1:])
    return table
