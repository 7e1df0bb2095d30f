"""Per-user set and rank metrics: precision, recall, hit, reciprocal rank, AP.

Each function scores one user's ranked list. They are written for reading:
the batch path in ``topkeval.batch`` computes the same numbers for millions of
users and is tested against these functions.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from . import _registry
from ._cutoff import hit_ranks
from ._validation import (
    Relevant,
    check_k,
    check_options,
    check_ranking,
    check_relevant_set,
    empty_relevant_error,
)

__all__ = [
    "hit_ranks_at_k",
    "precision_at_k",
    "recall_at_k",
    "hit_at_k",
    "reciprocal_rank_at_k",
    "average_precision_at_k",
]


def _prepare(ranking: Any, relevant: Relevant, k: Any) -> tuple[list, set, int]:
    return check_ranking(ranking), check_relevant_set(relevant), check_k(k)


def hit_ranks_at_k(ranking: Sequence[Hashable], relevant: Relevant, k: int) -> list[int]:
    """The 1-based ranks i <= k whose item is relevant, in increasing order.

    Every metric in this module is a function of these ranks (and of k and
    |R|): precision counts them, RR takes the first, AP averages the
    precision at each of them.

    Parameters
    ----------
    ranking : sequence of hashable
        Recommended item ids, best first. No duplicates.
    relevant : set of hashable, or mapping item -> grade
        The user's relevant items (grade > 0 in a mapping).
    k : int
        Cutoff, at least 1.

    Returns
    -------
    list of int
        The hit ranks, smallest first.

    Examples
    --------
    >>> from topkeval import hit_ranks_at_k
    >>> hit_ranks_at_k([4, 6, 2, 3, 1, 8, 10, 9, 5, 7], {1, 6, 9}, k=10)
    [2, 5, 8]
    >>> hit_ranks_at_k([4, 6, 2, 3, 1, 8, 10, 9, 5, 7], {1, 6, 9}, k=5)
    [2, 5]
    """
    items, rel, k = _prepare(ranking, relevant, k)
    return hit_ranks(items, rel, k)


def precision_at_k(ranking: Sequence[Hashable], relevant: Relevant, k: int) -> float:
    """Share of the top ``k`` positions that hold a relevant item.

    P@k = (number of relevant items among the first k) / k

    Parameters
    ----------
    ranking : sequence of hashable
        Recommended item ids, best first. No duplicates.
    relevant : set of hashable, or mapping item -> grade
        The user's relevant items. In a mapping, items with grade > 0 are
        relevant.
    k : int
        Cutoff, at least 1. May exceed ``len(ranking)``.

    Returns
    -------
    float
        A value in [0, 1].

    Raises
    ------
    TypeError, ValueError
        For a ranking that is a set or holds duplicates, or a bad ``k``.

    See Also
    --------
    recall_at_k : The same hits divided by the number of relevant items.
    hit_at_k : Whether there is at least one hit.

    Notes
    -----
    The denominator is always ``k``, even when the list is shorter: the empty
    positions count as misses. This is trec_eval's ``P.k``, ranx, Spark,
    RecBole and Microsoft Recommenders; LensKit divides by the length of the
    (truncated) list instead, and implicit's "precision" by min(k, |R|).

    With no relevant item at all the result is 0.0 (no position can hold a
    hit).

    Examples
    --------
    >>> from topkeval import precision_at_k
    >>> precision_at_k(["a", "b", "c", "d"], {"a", "c", "x"}, k=2)  # 1 hit / 2
    0.5
    >>> precision_at_k(["a", "b"], {"a"}, k=4)  # short list: 1 hit / 4
    0.25
    """
    items, rel, k = _prepare(ranking, relevant, k)
    return len(hit_ranks(items, rel, k)) / k


def recall_at_k(ranking: Sequence[Hashable], relevant: Relevant, k: int) -> float:
    """Share of the user's relevant items that appear in the top ``k``.

    R@k = (number of relevant items among the first k) / |R|

    Parameters
    ----------
    ranking : sequence of hashable
        Recommended item ids, best first. No duplicates.
    relevant : set of hashable, or mapping item -> grade
        The user's relevant items (grade > 0 in a mapping). Must not be empty.
    k : int
        Cutoff, at least 1.

    Returns
    -------
    float
        A value in [0, 1]. It cannot reach 1 when |R| > k.

    Raises
    ------
    ValueError
        If the user has no relevant item (0/0), or for the input errors of
        :func:`precision_at_k`.

    See Also
    --------
    hit_at_k : Equal to recall@k when exactly one item is relevant.

    Notes
    -----
    Every library divides by |R| except LensKit, which divides by
    min(|R|, k) so that a full top-k list scores 1. Some papers call
    :func:`hit_at_k` "Recall@k"; with one relevant item (leave-one-out) the
    two are the same number.

    Examples
    --------
    >>> from topkeval import recall_at_k
    >>> recall_at_k(["a", "b", "c", "d"], {"a", "c", "x"}, k=2)  # 1 of 3 found
    0.3333
    >>> recall_at_k(["a", "b"], set(), k=2)
    Traceback (most recent call last):
    ...
    topkeval.NoRelevantItemError: recall_at_k is undefined when the user has no relevant item (its \
denominator is 0). Leave such users out, or, in topkeval.evaluate, choose what they count as with \
empty='skip', 'zero' or 'raise'.
    """
    items, rel, k = _prepare(ranking, relevant, k)
    if not rel:
        raise empty_relevant_error("recall_at_k")
    return len(hit_ranks(items, rel, k)) / len(rel)


def hit_at_k(ranking: Sequence[Hashable], relevant: Relevant, k: int) -> float:
    """1.0 if at least one of the top ``k`` items is relevant, else 0.0.

    The mean of hit@k over users is the hit ratio HR@k.

    Parameters
    ----------
    ranking : sequence of hashable
        Recommended item ids, best first. No duplicates.
    relevant : set of hashable, or mapping item -> grade
        The user's relevant items (grade > 0 in a mapping).
    k : int
        Cutoff, at least 1.

    Returns
    -------
    float
        1.0 or 0.0.

    See Also
    --------
    recall_at_k : Equal to hit@k when exactly one item is relevant.

    Notes
    -----
    Called Success@k in trec_eval and ir_measures, hit_rate@k in ranx and
    HitRatio in Cornac; scikit-learn's ``top_k_accuracy_score`` is its mean
    when every user has exactly one relevant item. Some papers call it
    Recall@k, which it equals only in leave-one-out. With no relevant item the
    result is 0.0.

    Examples
    --------
    >>> from topkeval import hit_at_k
    >>> hit_at_k(["a", "b", "c"], {"c"}, k=2)
    0.0
    >>> hit_at_k(["a", "b", "c"], {"c"}, k=3)
    1.0
    """
    items, rel, k = _prepare(ranking, relevant, k)
    return 1.0 if hit_ranks(items, rel, k) else 0.0


def reciprocal_rank_at_k(ranking: Sequence[Hashable], relevant: Relevant, k: int) -> float:
    """1 / rank of the first relevant item, if it is within the top ``k``; else 0.

    The mean over users is MRR@k.

    Parameters
    ----------
    ranking : sequence of hashable
        Recommended item ids, best first. No duplicates.
    relevant : set of hashable, or mapping item -> grade
        The user's relevant items (grade > 0 in a mapping).
    k : int
        Cutoff, at least 1.

    Returns
    -------
    float
        A value in [0, 1]: 1, 1/2, 1/3, ... or 0.

    See Also
    --------
    average_precision_at_k : Equal to RR@k when exactly one item is relevant.

    Notes
    -----
    Only the first hit counts; later hits change nothing. trec_eval's
    ``recip_rank`` and Cornac's ``MRR`` have no cutoff: they equal RR@k only
    when the first hit is within k. ranx ``mrr@k``, RecBole, LensKit
    ``RecipRank(n)`` and ir_measures ``RR@k`` cut at k as here. With no
    relevant item the result is 0.0.

    Examples
    --------
    >>> from topkeval import reciprocal_rank_at_k
    >>> reciprocal_rank_at_k(["a", "b", "c"], {"b", "c"}, k=3)  # first hit at rank 2
    0.5
    >>> reciprocal_rank_at_k(["a", "b", "c"], {"c"}, k=2)  # first hit beyond k
    0.0
    """
    items, rel, k = _prepare(ranking, relevant, k)
    ranks = hit_ranks(items, rel, k)
    return 1.0 / ranks[0] if ranks else 0.0


@_registry.document("denominator")
def average_precision_at_k(
    ranking: Sequence[Hashable],
    relevant: Relevant,
    k: int,
    *,
    denominator: str = _registry.OPTIONS["denominator"].default,
) -> float:
    """Average of the precisions at the ranks i <= k that hold a relevant item.

    AP@k = (sum of P@i over the ranks i <= k whose item is relevant) / D

    where D is set by ``denominator``: min(k, |R|), |R| or the number of hits
    in the top k. The mean over users is MAP@k.

    Parameters
    ----------
    ranking : sequence of hashable
        Recommended item ids, best first. No duplicates.
    relevant : set of hashable, or mapping item -> grade
        The user's relevant items (grade > 0 in a mapping). Must not be empty.
    k : int
        Cutoff, at least 1.
    denominator : {"min_k_n_relevant", "n_relevant", "n_hits"}
        What the sum of precisions is divided by. See Notes.

    Returns
    -------
    float
        A value in [0, 1].

    Raises
    ------
    ValueError
        If the user has no relevant item (whatever the denominator), or
        ``denominator`` is not one of the listed names.

    See Also
    --------
    precision_at_k : The terms being averaged.
    reciprocal_rank_at_k : Equal to AP@k when exactly one item is relevant.

    Notes
    -----
    %(denominator)s

    The three agree when every relevant item is in the top k (and so
    |R| <= k); with one relevant item they all equal RR@k. They part when
    relevant items are missed: ``"n_relevant"`` charges every miss, even
    those that could not fit in k slots; ``"min_k_n_relevant"`` charges only
    the misses that could have fitted; ``"n_hits"`` charges none, so a list
    whose only hit is at rank 1 scores 1.0, and one more hit further down can
    lower the score.

    Examples
    --------
    >>> from topkeval import average_precision_at_k
    >>> ranking, relevant = ["a", "b", "c", "d"], {"a", "c", "x"}
    >>> average_precision_at_k(ranking, relevant, k=2)  # (1/1) / min(2, 3)
    0.5
    >>> average_precision_at_k(ranking, relevant, k=4)  # (1/1 + 2/3) / min(4, 3)
    0.5556
    >>> average_precision_at_k(ranking, relevant, k=4, denominator="n_hits")  # / 2 hits
    0.8333
    """
    items, rel, k = _prepare(ranking, relevant, k)
    denominator = check_options(denominator=denominator)["denominator"]
    if not rel:
        raise empty_relevant_error("average_precision_at_k")
    ranks = hit_ranks(items, rel, k)
    total = 0.0
    for hits_so_far, rank in enumerate(ranks, start=1):
        total += hits_so_far / rank
    if denominator == "n_relevant":
        return total / len(rel)
    if denominator == "min_k_n_relevant":
        return total / min(k, len(rel))
    return total / len(ranks) if ranks else 0.0
