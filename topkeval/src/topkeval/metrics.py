"""Per-user set and rank metrics: precision, recall, hit, reciprocal rank, AP, bpref, IPS-weighted P and R.

bpref and condensed lists serve incomplete judgments; propensity-weighted
precision and recall serve a log that observes items unevenly.

Each function scores one user's ranked list. They are written for reading:
the batch path in ``topkeval.batch`` computes the same numbers for millions of
users and is tested against these functions.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from . import _registry
from ._cutoff import hit_ranks
from ._validation import (
    PER_USER,
    Judgments,
    OneOf,
    Ranking,
    Relevant,
    check_k,
    check_propensity,
    check_ranking,
    check_relevance,
    check_relevant_set,
    empty_relevant_error,
    validate_params,
)

__all__ = [
    "hit_ranks_at_k",
    "precision_at_k",
    "recall_at_k",
    "hit_at_k",
    "reciprocal_rank_at_k",
    "average_precision_at_k",
    "r_precision_at_k",
    "bpref_at_k",
    "condensed",
    "ips_precision_at_k",
    "ips_recall_at_k",
]


def _prepare(ranking: Any, relevant: Relevant, k: Any) -> tuple[list, set, int]:
    """The arguments as the bodies use them (already checked by the declared constraints)."""
    return list(ranking), check_relevant_set(relevant), k


@validate_params(PER_USER)
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


@validate_params(PER_USER)
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


@validate_params(PER_USER)
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


@validate_params(PER_USER)
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


@validate_params(PER_USER)
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


@validate_params({**PER_USER, "denominator": OneOf("denominator")})
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


@validate_params(PER_USER)
def r_precision_at_k(ranking: Sequence[Hashable], relevant: Relevant, k: int) -> float:
    """Precision at rank |R|: the share of the first |R| positions that hold a relevant item.

    R-Prec@k = (number of relevant items among the first min(k, |R|)) / |R|

    Parameters
    ----------
    ranking : sequence of hashable
        Recommended item ids, best first. No duplicates.
    relevant : set of hashable, or mapping item -> grade
        The user's relevant items (grade > 0 in a mapping). Must not be empty.
    k : int
        Cutoff, at least 1: the list is cut at k first, so with k < |R| the
        ranks k + 1 .. |R| count as misses.

    Returns
    -------
    float
        A value in [0, 1]. A list whose first |R| items are the relevant ones scores 1.

    Raises
    ------
    ValueError
        If the user has no relevant item (|R| = 0), or for the input errors of
        :func:`precision_at_k`.

    See Also
    --------
    precision_at_k : The same count at a fixed cutoff k.
    recall_at_k : Equal to R-precision at k = |R|.

    Notes
    -----
    trec_eval's ``Rprec`` (and ir_measures' ``Rprec``) reads the whole list:
    it is R-Prec@k for any k >= |R|. Positions past the end of a short list
    count as misses, as in trec_eval. At rank |R| precision and recall are
    equal, so R-precision is also recall@|R|. With one relevant item
    (leave-one-out) it is 1 when that item is ranked first, else 0.

    Examples
    --------
    >>> from topkeval import r_precision_at_k
    >>> r_precision_at_k(["a", "b", "c", "d"], {"a", "c", "x"}, k=10)  # |R| = 3: 2 hits in the top 3
    0.6667
    >>> r_precision_at_k(["a", "b", "c", "d"], {"a", "c", "x"}, k=2)  # cut at 2: 1 hit / 3
    0.3333
    """
    items, rel, k = _prepare(ranking, relevant, k)
    if not rel:
        raise empty_relevant_error("r_precision_at_k")
    return len(hit_ranks(items, rel, min(k, len(rel)))) / len(rel)


@validate_params({"ranking": Ranking(), "judgments": Judgments()})
def condensed(ranking: Sequence[Hashable], judgments: Relevant) -> list:
    """The ranking without its unjudged items: a condensed list (Sakai 2007).

    Parameters
    ----------
    ranking : sequence of hashable
        Recommended item ids, best first. No duplicates.
    judgments : set of hashable, or mapping item -> grade
        A mapping lists the judged items (grade 0 = judged not relevant);
        an item absent from it is unjudged and is dropped. A set lists the
        relevant items and judges every other item not relevant, so nothing
        is dropped.

    Returns
    -------
    list
        The judged items of ``ranking``, in their order. Any metric of the
        condensed list is that metric "on judged items only" (trec_eval
        ``-J``; ``unjudged="condense"`` in :func:`topkeval.evaluate`).

    Examples
    --------
    >>> from topkeval import condensed, precision_at_k
    >>> judgments = {"a": 1, "c": 0, "d": 1}  # b is unjudged
    >>> condensed(["a", "b", "c", "d"], judgments)
    ['a', 'c', 'd']
    >>> precision_at_k(condensed(["a", "b", "c", "d"], judgments), judgments, k=3)  # 2 of 3
    0.6667
    """
    items = check_ranking(ranking)
    grades = check_relevance(judgments, "judgments")
    if not isinstance(judgments, Mapping):
        return items
    return [item for item in items if item in grades]


def _bpref_counts(relevant: Relevant) -> tuple[dict[Any, float], int, int]:
    """The checked grades, |R| and min(|R|, N) (N taken >= |R| for a set: complete judgments)."""
    grades = check_relevance(relevant)
    n_relevant = sum(1 for grade in grades.values() if grade > 0)
    if not n_relevant:
        raise empty_relevant_error("bpref_at_k")
    if not isinstance(relevant, Mapping):
        return grades, n_relevant, n_relevant
    return grades, n_relevant, min(n_relevant, sum(1 for grade in grades.values() if grade == 0))


@validate_params(PER_USER)
def bpref_at_k(ranking: Sequence[Hashable], relevant: Relevant, k: int) -> float:
    """Binary preference: the share of judged non-relevant items that each found relevant item is above.

    bpref@k = (1 / |R|) * sum over the relevant ranks i <= k of (1 - min(n_i, |R|) / min(|R|, N))

    where n_i is the number of judged non-relevant items ranked above rank i
    and N the number of judged non-relevant items in all (Buckley and
    Voorhees, SIGIR 2004). Unjudged items are skipped: they neither count as
    relevant nor push a relevant item down, so bpref changes little when the
    judgments are incomplete.

    Parameters
    ----------
    ranking : sequence of hashable
        Recommended item ids, best first. No duplicates.
    relevant : set of hashable, or mapping item -> grade
        A mapping is a set of judgments: grade > 0 relevant, grade 0 judged
        not relevant, and an item absent from it unjudged. A set lists the
        relevant items and judges every other item not relevant (complete
        judgments); there are then taken to be at least |R| non-relevant
        items, so min(|R|, N) = |R|. Must hold a relevant item.
    k : int
        Cutoff, at least 1: only the top k are read (trec_eval's ``bpref``
        reads the whole list, i.e. k >= its length).

    Returns
    -------
    float
        A value in [0, 1].

    Raises
    ------
    ValueError
        If the user has no relevant item (0/0), or for the input errors of
        :func:`precision_at_k`.

    See Also
    --------
    condensed : Drop the unjudged items, then use any metric.

    Notes
    -----
    As trec_eval's ``bpref``: a relevant item with no judged non-relevant
    item above it adds 1 (so with N = 0, bpref@k = R@k); the min with |R|
    counts only the first |R| judged non-relevant items, so a long tail of
    them does not sink the score. Relevant items that are not listed (or are
    below k) add 0.

    Examples
    --------
    >>> from topkeval import bpref_at_k
    >>> judgments = {"a": 1, "c": 0, "d": 1, "e": 0}  # b is unjudged, so it changes nothing
    >>> bpref_at_k(["a", "b", "c", "d"], judgments, k=4)  # (1 + (1 - 1/2)) / 2
    0.75
    >>> bpref_at_k(["a", "b", "c", "d"], {"a", "d"}, k=4)  # a set: b and c judged not relevant
    0.5
    """
    items, k = check_ranking(ranking), check_k(k)
    grades, n_relevant, pool = _bpref_counts(relevant)
    judged = isinstance(relevant, Mapping)
    total, above = 0.0, 0
    for item in items[:k]:
        grade = grades.get(item, None if judged else 0.0)  # None: unjudged, skipped
        if grade is not None and grade > 0:
            total += 1.0 - (min(above, n_relevant) / pool if above else 0.0)
        elif grade is not None:
            above += 1
    return total / n_relevant


def _ips_weights(
    ranking: Any, observed: Any, propensity: Any, k: Any, clip: Any
) -> tuple[list, set, int, dict[Hashable, float]]:
    items, seen, k = check_ranking(ranking), check_relevant_set(observed, "observed"), check_k(k)
    weight = check_propensity(propensity, seen, clip)
    return items, seen, k, weight


@validate_params({"ranking": Ranking(), "observed": Judgments(), "k": PER_USER["k"]})
def ips_precision_at_k(
    ranking: Sequence[Hashable],
    observed: Relevant,
    propensity: Mapping[Hashable, float] | Sequence[float],
    k: int,
    *,
    clip: float | None = None,
) -> float:
    """Propensity-weighted precision@k: an unbiased estimate of P@k from a log that misses items unevenly.

    IPS-P@k = (1 / k) * sum over the observed items i in the top k of 1 / propensity_i

    When an item the user would like is observed (logged as relevant) with
    probability propensity_i, every logged hit stands for 1 / propensity_i
    true ones, so the expectation over the logging process is the P@k the
    full truth would give (Yang et al., RecSys 2018; Schnabel et al. 2016).

    Parameters
    ----------
    ranking : sequence of hashable
        Recommended item ids, best first. No duplicates.
    observed : set of hashable, or mapping item -> grade
        The items the log shows as relevant for this user (grade > 0).
    propensity : mapping item -> float, or sequence of float indexed by item id
        The probability that a relevant item is observed, in (0, 1]; needed
        for every observed item.
    k : int
        Cutoff, at least 1.
    clip : float, optional
        Largest weight: 1 / propensity is cut at ``clip`` (>= 1). Clipping
        lowers the variance and biases the estimate down. Default: no clip.

    Returns
    -------
    float
        A value >= 0; it can exceed 1 (a single user's estimate is noisy;
        the mean over users is what is unbiased).

    Raises
    ------
    ValueError, TypeError
        For an observed item without a propensity, a propensity outside
        (0, 1], a bad ``clip``, or the input errors of :func:`precision_at_k`.

    See Also
    --------
    ips_recall_at_k : The same weights, over the estimated number of relevant items.

    Notes
    -----
    The estimate is unbiased only with the true propensities, and only for
    the relevant items that can be observed at all (propensity > 0); with
    estimated ones it inherits their error. It needs the probability that an
    item is observed given that it is relevant, per item (here) or per user
    and item (pass one mapping per user).

    Examples
    --------
    >>> from topkeval import ips_precision_at_k
    >>> propensity = {"a": 0.5, "b": 1.0, "c": 0.25}
    >>> ips_precision_at_k(["a", "b", "c", "d"], {"a", "c"}, propensity, k=4)  # (2 + 4) / 4
    1.5
    >>> ips_precision_at_k(["a", "b", "c", "d"], {"a", "c"}, propensity, k=4, clip=3)  # (2 + 3) / 4
    1.25
    """
    items, seen, k, weight = _ips_weights(ranking, observed, propensity, k, clip)
    return float(sum(weight[item] for item in items[:k] if item in seen) / k)


@validate_params({"ranking": Ranking(), "observed": Judgments(), "k": PER_USER["k"]})
def ips_recall_at_k(
    ranking: Sequence[Hashable],
    observed: Relevant,
    propensity: Mapping[Hashable, float] | Sequence[float],
    k: int,
    *,
    clip: float | None = None,
) -> float:
    """Propensity-weighted recall@k: the weighted share of the observed items found in the top k.

    IPS-R@k = (sum over the observed items i in the top k of w_i) / (sum over all observed items of w_i),
    with w_i = 1 / propensity_i.

    The numerator estimates the number of truly relevant items in the top
    k, the denominator |R|; both are unbiased, their ratio is consistent
    (self-normalised, as Yang et al. RecSys 2018 normalise per user), and it
    stays in [0, 1].

    Parameters
    ----------
    ranking : sequence of hashable
        Recommended item ids, best first. No duplicates.
    observed : set of hashable, or mapping item -> grade
        The items the log shows as relevant for this user (grade > 0). Must
        not be empty.
    propensity : mapping item -> float, or sequence of float indexed by item id
        As in :func:`ips_precision_at_k`.
    k : int
        Cutoff, at least 1.
    clip : float, optional
        Largest weight, as in :func:`ips_precision_at_k`.

    Returns
    -------
    float
        A value in [0, 1].

    Raises
    ------
    ValueError
        If nothing is observed (0/0), or for the errors of :func:`ips_precision_at_k`.

    Examples
    --------
    >>> from topkeval import ips_recall_at_k
    >>> propensity = {"a": 0.5, "b": 1.0, "c": 0.25}
    >>> ips_recall_at_k(["a", "b", "d"], {"a", "c"}, propensity, k=3)  # 2 / (2 + 4)
    0.3333
    """
    items, seen, k, weight = _ips_weights(ranking, observed, propensity, k, clip)
    if not seen:
        raise empty_relevant_error("ips_recall_at_k")
    found = sum(weight[item] for item in items[:k] if item in seen)
    return float(found / sum(weight[item] for item in seen))
