"""Cumulative gain, step by step: CG, DCG, IDCG and NDCG for one user.

``relevant`` is either a set of item ids (binary relevance: grade 1 each) or
a mapping item -> grade (graded relevance; 0 means judged not relevant).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from . import _registry
from ._cutoff import dcg_of, discounts_at, gain_of, normalised, top_k
from ._cutoff import discount as _discount
from ._validation import (
    PER_USER,
    InvalidInputError,
    OneOf,
    Relevant,
    check_relevance,
    empty_relevant_error,
    validate_params,
)

__all__ = ["gains_at_k", "cg_at_k", "dcg_at_k", "idcg_at_k", "ndcg_at_k", "dcg_table", "rank_discount"]

_GAIN = _registry.OPTIONS["gain"]
_IDEAL = _registry.OPTIONS["ideal"]
_DISCOUNT = _registry.OPTIONS["discount"]
#: The constraints of the functions that take every DCG option.
_DCG_OPTIONS = {**PER_USER, "gain": OneOf("gain"), "ideal": OneOf("ideal"), "discount": OneOf("discount")}


def _grades(ranking: Any, relevant: Relevant, k: Any, gain: Any) -> tuple[list, dict, int, str]:
    """The arguments as the bodies use them (already checked by the declared constraints)."""
    return list(ranking), check_relevance(relevant), k, gain


def _gains(items: list, grades: dict, k: int, gain: str) -> list[float]:
    return [gain_of(grades.get(item, 0.0), gain) for item in top_k(items, k)]


def _ideal_gains(items: list, grades: dict, k: int, gain: str, ideal: str) -> list[float]:
    if ideal == "all":
        pool = [g for g in grades.values() if g > 0]
    else:
        pool = [grades[item] for item in items if grades.get(item, 0.0) > 0]
    return [gain_of(g, gain) for g in sorted(pool, reverse=True)[:k]]


@validate_params({**PER_USER, "gain": OneOf("gain")})
def gains_at_k(
    ranking: Sequence[Hashable], relevant: Relevant, k: int, *, gain: str = _GAIN.default
) -> list[float]:
    """The gain at each of the first ``k`` ranks, best first.

    Parameters
    ----------
    ranking : sequence of hashable
        Recommended item ids, best first. No duplicates.
    relevant : set of hashable, or mapping item -> grade
        A set gives every listed relevant item grade 1.
    k : int
        Cutoff, at least 1.
    gain : {"linear", "exponential"}
        ``grade`` or ``2**grade - 1``.

    Returns
    -------
    list of float
        ``min(k, len(ranking))`` gains; unjudged items have gain 0.

    Examples
    --------
    >>> from topkeval import gains_at_k
    >>> gains_at_k(["a", "b", "c"], {"a": 2, "c": 1}, k=3)
    [2.0, 0.0, 1.0]
    >>> gains_at_k(["a", "b", "c"], {"a": 2, "c": 1}, k=3, gain="exponential")
    [3.0, 0.0, 1.0]
    """
    items, grades, k, gain = _grades(ranking, relevant, k, gain)
    return _gains(items, grades, k, gain)


@validate_params({**PER_USER, "gain": OneOf("gain")})
def cg_at_k(ranking: Sequence[Hashable], relevant: Relevant, k: int, *, gain: str = _GAIN.default) -> float:
    """Cumulative gain: the sum of the gains of the top ``k`` items, ignoring order.

    CG@k = sum over i <= k of gain_i

    Parameters
    ----------
    ranking : sequence of hashable
        Recommended item ids, best first. No duplicates.
    relevant : set of hashable, or mapping item -> grade
        A set means grade 1 for each listed item.
    k : int
        Cutoff, at least 1.
    gain : {"linear", "exponential"}
        ``grade`` or ``2**grade - 1``.

    Returns
    -------
    float
        The sum of the top k gains (>= 0).

    Examples
    --------
    >>> from topkeval import cg_at_k
    >>> grades = {"a": 2, "b": 3, "c": 3, "d": 1, "e": 2}
    >>> cg_at_k(["a", "b", "c", "d", "e"], grades, k=5)  # 2 + 3 + 3 + 1 + 2
    11.0
    >>> cg_at_k(["b", "c", "a", "e", "d"], grades, k=5)  # same items, same CG
    11.0
    """
    items, grades, k, gain = _grades(ranking, relevant, k, gain)
    return float(sum(_gains(items, grades, k, gain)))


@validate_params({**PER_USER, "gain": OneOf("gain"), "discount": OneOf("discount")})
@_registry.document("gain", "discount")
def dcg_at_k(
    ranking: Sequence[Hashable],
    relevant: Relevant,
    k: int,
    *,
    gain: str = _GAIN.default,
    discount: str = _DISCOUNT.default,
) -> float:
    """Discounted cumulative gain of the top ``k`` items.

    DCG@k = sum over ranks i <= k of gain_i / log2(i + 1)

    Parameters
    ----------
    ranking : sequence of hashable
        Recommended item ids, best first. No duplicates.
    relevant : set of hashable, or mapping item -> grade
        A set means grade 1 for each listed item; grades must be >= 0.
    k : int
        Cutoff, at least 1.
    gain : {"linear", "exponential"}
        See Notes.
    discount : {"log2", "clipped_log2"}
        The position discount. See Notes.

    Returns
    -------
    float
        A value >= 0 (not normalised; see :func:`ndcg_at_k`).

    See Also
    --------
    idcg_at_k, ndcg_at_k, dcg_table

    Notes
    -----
    %(gain)s

    %(discount)s

    The discount 1/log2(i + 1) gives rank 1 full weight. Spark and Microsoft
    Recommenders use the natural log, which cancels in NDCG but not in DCG.
    LensKit's default clips the discount to 1/log2(max(i, 2)), so ranks 1 and
    2 weigh the same. Järvelin and Kekäläinen's original DCG used that
    clipped form.

    Examples
    --------
    >>> from topkeval import dcg_at_k
    >>> dcg_at_k(["a", "b", "c"], {"a", "c"}, k=3)  # 1/log2(2) + 1/log2(4)
    1.5
    >>> dcg_at_k(["a", "b", "c"], {"a": 2, "c": 1}, k=3, gain="exponential")  # 3 + 1/2
    3.5
    >>> dcg_at_k(["b", "a"], {"a"}, k=2, discount="clipped_log2")  # rank 2 weighs 1/log2(2) = 1
    1.0
    """
    items, grades, k, gain = _grades(ranking, relevant, k, gain)
    return dcg_of(_gains(items, grades, k, gain), discount)


@validate_params(_DCG_OPTIONS)
@_registry.document("ideal")
def idcg_at_k(
    ranking: Sequence[Hashable],
    relevant: Relevant,
    k: int,
    *,
    gain: str = _GAIN.default,
    ideal: str = _IDEAL.default,
    discount: str = _DISCOUNT.default,
) -> float:
    """DCG@k of the best possible ordering: the normaliser of NDCG@k.

    IDCG@k = DCG@k of the relevant items sorted by grade, best first.

    Parameters
    ----------
    ranking : sequence of hashable
        Recommended item ids, best first. Used only when ``ideal="listed"``.
    relevant : set of hashable, or mapping item -> grade
    k : int
    gain : {"linear", "exponential"}
    ideal : {"all", "listed"}
        Which items the ideal ordering is built from. See Notes.
    discount : {"log2", "clipped_log2"}
        The position discount, as in :func:`dcg_at_k`.

    Returns
    -------
    float
        A value >= 0; 0 when there is nothing relevant to order.

    Notes
    -----
    %(ideal)s

    With binary relevance and ``ideal="all"``, IDCG@k = sum over
    i <= min(|R|, k) of 1/log2(i + 1).

    Examples
    --------
    >>> from topkeval import idcg_at_k
    >>> idcg_at_k(["a", "b"], {"a", "c", "x"}, k=2)  # 1 + 1/log2(3): 2 slots, 3 relevant
    1.6309
    >>> idcg_at_k(["a", "b"], {"a", "c", "x"}, k=2, ideal="listed")  # only "a" is listed
    1.0
    """
    items, grades, k, gain = _grades(ranking, relevant, k, gain)
    return dcg_of(_ideal_gains(items, grades, k, gain, ideal), discount)


@validate_params(_DCG_OPTIONS)
@_registry.document("gain", "ideal", "discount")
def ndcg_at_k(
    ranking: Sequence[Hashable],
    relevant: Relevant,
    k: int,
    *,
    gain: str = _GAIN.default,
    ideal: str = _IDEAL.default,
    discount: str = _DISCOUNT.default,
) -> float:
    """Normalised DCG: DCG@k divided by the DCG@k of an ideal ordering.

    NDCG@k = DCG@k / IDCG@k

    Parameters
    ----------
    ranking : sequence of hashable
        Recommended item ids, best first. No duplicates.
    relevant : set of hashable, or mapping item -> grade
        A set means binary relevance. Must hold at least one item with
        grade > 0.
    k : int
        Cutoff, at least 1.
    gain : {"linear", "exponential"}
        ``grade`` or ``2**grade - 1``.
    ideal : {"all", "listed"}
        Build IDCG from all judged relevant items, or only from the listed ones.
    discount : {"log2", "clipped_log2"}
        The position discount, used by DCG and IDCG alike.

    Returns
    -------
    float
        A value in [0, 1].

    Raises
    ------
    ValueError
        If no item has grade > 0 (IDCG would be 0), or for bad input.

    See Also
    --------
    dcg_at_k, idcg_at_k, dcg_table

    Notes
    -----
    %(gain)s

    %(ideal)s

    %(discount)s

    IDCG is always cut at k, in every library. With ``ideal="listed"`` and
    relevant items that exist but are not listed, IDCG is 0 and the result is
    0.0 (scikit-learn's rule). Binary NDCG cannot tell two relevant items
    apart: swapping them leaves it unchanged. With one relevant item at rank
    r <= k, NDCG@k = 1/log2(r + 1).

    Examples
    --------
    >>> from topkeval import ndcg_at_k
    >>> ndcg_at_k(["a", "b", "c"], {"c"}, k=3)  # leave-one-out: 1/log2(3 + 1)
    0.5
    >>> grades = {"a": 2, "b": 3, "c": 3, "d": 1, "e": 2}
    >>> round(ndcg_at_k(["a", "b", "c", "d", "e"], grades, k=5), 4)
    0.9238
    >>> round(ndcg_at_k(["a", "b", "c", "d", "e"], grades, k=5, gain="exponential"), 4)
    0.857
    >>> ndcg_at_k(["b", "a"], {"a"}, k=2, discount="clipped_log2")  # LensKit's default: 1/1
    1.0
    """
    items, grades, k, gain = _grades(ranking, relevant, k, gain)
    if not any(g > 0 for g in grades.values()):
        raise empty_relevant_error("ndcg_at_k")
    best = dcg_of(_ideal_gains(items, grades, k, gain, ideal), discount)
    return float(normalised(dcg_of(_gains(items, grades, k, gain), discount), best))


@validate_params(_DCG_OPTIONS)
def dcg_table(
    ranking: Sequence[Hashable],
    relevant: Relevant,
    k: int,
    *,
    gain: str = _GAIN.default,
    ideal: str = _IDEAL.default,
    discount: str = _DISCOUNT.default,
):
    """A DataFrame that shows DCG@k and IDCG@k being built, one rank per row.

    Columns: ``rank``, ``item``, ``grade``, ``gain``, ``discount``
    (1/log2(rank + 1), or 1/log2(max(rank, 2)) with
    ``discount="clipped_log2"``), ``dcg`` (running sum of gain * discount),
    ``ideal_gain`` and ``idcg`` (the same for the ideal ordering). The last
    row's ``dcg / idcg`` is NDCG@k.

    Parameters
    ----------
    ranking : sequence of hashable
        Recommended item ids, best first. No duplicates.
    relevant : set of hashable, or mapping item -> grade
        A set means grade 1 for each listed item.
    k : int
        Cutoff, at least 1.
    gain, ideal, discount : str
        As in :func:`ndcg_at_k`.

    Returns
    -------
    pandas.DataFrame
        One row per rank up to k (or up to the longer of the list and the ideal).

    Examples
    --------
    >>> from topkeval import dcg_table
    >>> dcg_table(["a", "b", "c"], {"a", "c"}, k=3).round(4)
       rank item  grade  gain  discount  dcg  ideal_gain    idcg
    0     1    a    1.0   1.0    1.0000  1.0         1.0  1.0000
    1     2    b    0.0   0.0    0.6309  1.0         1.0  1.6309
    2     3    c    1.0   1.0    0.5000  1.5         0.0  1.6309
    """
    import pandas as pd

    items, grades, k, gain = _grades(ranking, relevant, k, gain)
    kind = discount
    shown = top_k(items, k)
    ideal_gains = _ideal_gains(items, grades, k, gain, ideal)
    n = max(len(shown), len(ideal_gains))
    rows = []
    dcg = idcg = 0.0
    for rank in range(1, n + 1):
        item = shown[rank - 1] if rank <= len(shown) else None
        grade = grades.get(item, 0.0) if item is not None else 0.0
        g = gain_of(grade, gain) if item is not None else 0.0
        ig = ideal_gains[rank - 1] if rank <= len(ideal_gains) else 0.0
        weight = _discount(rank, kind)
        dcg += g * weight
        idcg += ig * weight
        rows.append((rank, item, grade, g, weight, dcg, ig, idcg))
    columns = ["rank", "item", "grade", "gain", "discount", "dcg", "ideal_gain", "idcg"]
    return pd.DataFrame(rows, columns=columns)


@validate_params({"discount": OneOf("discount")})
def rank_discount(ranks: Any, discount: str = _DISCOUNT.default) -> Any:
    """The DCG position discount of each 1-based rank: what a relevant item at that rank is worth.

    Parameters
    ----------
    ranks : float or array-like of float
        Ranks >= 1 (1 = best); fractional ranks (e.g. expected ranks) are allowed.
    discount : {"log2", "clipped_log2"}
        ``1 / log2(rank + 1)``, or ``1 / log2(max(rank, 2))`` (ranks 1 and 2
        weigh the same), as the ``discount=`` option of :func:`ndcg_at_k`.

    Returns
    -------
    float or numpy.ndarray
        A float for one rank, an array of the same shape for an array.

    Raises
    ------
    topkeval.InvalidInputError
        For a rank below 1, NaN, or an unknown ``discount``.

    See Also
    --------
    dcg_at_k : The sum of gain times this discount over the top k.

    Examples
    --------
    >>> from topkeval import rank_discount
    >>> rank_discount(3)  # 1 / log2(4)
    0.5
    >>> rank_discount([1, 2, 3], discount="clipped_log2").round(4).tolist()
    [1.0, 1.0, 0.6309]
    """
    kind = discount
    values = np.asarray(ranks, dtype=np.float64)
    if values.size and not (values >= 1).all():  # NaN fails too
        raise InvalidInputError(f"ranks must be numbers >= 1 (1 = best); got {float(np.min(values))!r}.")
    weights = discounts_at(values, kind)
    return float(weights) if weights.ndim == 0 else weights
