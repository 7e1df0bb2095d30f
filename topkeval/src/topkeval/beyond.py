"""Beyond accuracy: coverage, novelty, diversity and popularity bias of top-k lists.

Accuracy metrics ask "did the list hold what the user liked?". These ask what
the lists are like, whatever the user liked:

* **catalogue coverage**: the share of the catalogue that appears in at least
  one user's top k (a property of all the lists together);
* **novelty**: the mean self-information -log2(popularity share) of the
  recommended items, where an item's popularity share is the share of
  training users who interacted with it. An item everyone has scores 0 bits;
  an item one user in 1024 has scores 10 bits;
* **intra-list diversity** (ILD): the mean distance between the pairs of items
  in one list, from item vectors (cosine distance) or categories (Jaccard
  distance between the category sets);
* **popularity bias**: the average recommendation popularity (ARP, the mean
  popularity share of the recommended items) and the **Gini index** of how
  often each catalogue item is recommended (0: every item equally often;
  near 1: a few items take every slot).

Per-user functions take one ranking, as the accuracy metrics do; the
aggregate ones take every user's ranking. The batch versions take an integer
(users x K) matrix as :func:`topkeval.evaluate_arrays` does; both are tested
against slow oracles.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from . import _registry
from ._arrays import cut, top_matrix
from ._docs import document
from ._validation import InvalidInputError, check_columns, check_k, check_ks, check_option, check_ranking

__all__ = [
    "item_popularity",
    "novelty_at_k",
    "arp_at_k",
    "intra_list_diversity_at_k",
    "catalog_coverage",
    "gini_index",
    "gini_of_counts",
    "evaluate_beyond",
    "coverage_batch",
    "gini_batch",
    "BEYOND_METRICS",
]

#: The registry entries (``topkeval._registry.BEYOND_METRICS``): which function computes which metric.
BEYOND_METRICS = _registry.BEYOND_METRICS


# ----------------------------------------------------------------- inputs
def item_popularity(
    interactions: pd.DataFrame, *, user_col: str = "user", item_col: str = "item"
) -> pd.Series:
    """Each item's popularity share: the share of users who interacted with it.

    Parameters
    ----------
    interactions : pandas.DataFrame
        The training log, one row per interaction (repeats count once).
    user_col, item_col : str
        Column names.

    Returns
    -------
    pandas.Series
        Index: item ids (sorted); values in (0, 1].

    Examples
    --------
    >>> import pandas as pd
    >>> from topkeval.beyond import item_popularity
    >>> log = pd.DataFrame({"user": [1, 1, 2, 3], "item": ["a", "b", "a", "a"]})
    >>> item_popularity(log).round(4).to_dict()
    {'a': 1.0, 'b': 0.3333}
    """
    check_columns(interactions, "interactions", [user_col, item_col], " (user_col=..., item_col=...)")
    n_users = interactions[user_col].nunique()
    if n_users == 0:
        raise InvalidInputError("interactions is empty; popularity needs at least one interaction.")
    pairs = interactions[[user_col, item_col]].drop_duplicates()
    return (pairs.groupby(item_col).size() / n_users).rename("popularity").sort_index()


def _share(popularity: Mapping, item: Hashable) -> float:
    try:
        share = popularity[item]
    except KeyError:
        raise InvalidInputError(
            f"item {item!r} has no popularity share; give every recommended item its share of the "
            "training users (topkeval.beyond.item_popularity(train))."
        ) from None
    share = float(share)
    if not 0 < share <= 1:
        raise InvalidInputError(
            f"item {item!r} has popularity share {share}; shares must be in (0, 1] (an item nobody "
            "interacted with has infinite self-information)."
        )
    return share


def _listed(ranking: Any, k: Any) -> list:
    items = check_ranking(ranking)[: check_k(k)]
    if not items:
        raise InvalidInputError("the ranking is empty, so it has no recommended item to describe.")
    return items


# ----------------------------------------------------------------- per user
def novelty_at_k(ranking: Sequence[Hashable], k: int, *, popularity: Mapping) -> float:
    """Mean self-information of the top ``k`` items: mean of -log2(popularity share).

    Parameters
    ----------
    ranking : sequence of hashable
        Recommended item ids, best first. No duplicates.
    k : int
        Cutoff, at least 1.
    popularity : mapping item -> share
        Each item's share of training users in (0, 1], e.g. from
        :func:`item_popularity` (a pandas Series works).

    Returns
    -------
    float
        Bits, >= 0; higher means less familiar items.

    Examples
    --------
    >>> from topkeval.beyond import novelty_at_k
    >>> novelty_at_k(["a", "b"], k=2, popularity={"a": 0.5, "b": 0.125})  # (1 + 3) / 2
    2.0
    """
    items = _listed(ranking, k)
    return float(sum(-math.log2(_share(popularity, item)) for item in items) / len(items))


def arp_at_k(ranking: Sequence[Hashable], k: int, *, popularity: Mapping) -> float:
    """Average recommendation popularity: the mean popularity share of the top ``k`` items.

    Parameters
    ----------
    ranking : sequence of hashable
        Recommended item ids, best first.
    k : int
        Cutoff, at least 1.
    popularity : mapping item -> float
        Each item's popularity share (e.g. its share of the training interactions).

    Returns
    -------
    float
        The mean share over the top k (lower means less popular items).

    Examples
    --------
    >>> from topkeval.beyond import arp_at_k
    >>> arp_at_k(["a", "b"], k=2, popularity={"a": 0.5, "b": 0.125})
    0.3125
    """
    items = _listed(ranking, k)
    return float(sum(_share(popularity, item) for item in items) / len(items))


def _vector(features: Mapping, item: Hashable) -> np.ndarray:
    if item not in features:
        raise InvalidInputError(f"item {item!r} has no feature vector in features.")
    vector = np.asarray(features[item], dtype=np.float64).ravel()
    norm = float(np.linalg.norm(vector))
    if norm == 0 or not math.isfinite(norm):
        raise InvalidInputError(
            f"item {item!r} has a zero or non-finite feature vector; cosine distance is undefined."
        )
    return vector / norm


def _category_set(categories: Mapping, item: Hashable) -> frozenset:
    if item not in categories:
        raise InvalidInputError(f"item {item!r} has no entry in categories.")
    value = categories[item]
    return frozenset([value] if isinstance(value, (str, bytes, numbers.Number)) else value)


def _jaccard_distance(a: frozenset, b: frozenset) -> float:
    union = len(a | b)
    return 0.0 if union == 0 else 1.0 - len(a & b) / union


def intra_list_diversity_at_k(
    ranking: Sequence[Hashable],
    k: int,
    *,
    features: Mapping | None = None,
    categories: Mapping | None = None,
) -> float:
    """Intra-list diversity: the mean distance over the pairs of items in the top ``k``.

    Give exactly one of ``features`` (item -> vector; distance 1 - cosine
    similarity, in [0, 2]) and ``categories`` (item -> category or set of
    categories; Jaccard distance, in [0, 1]).

    Parameters
    ----------
    ranking : sequence of hashable
        Recommended item ids, best first.
    k : int
        Cutoff, at least 1.
    features : mapping item -> vector, optional
        Item vectors (cosine distance).
    categories : mapping item -> category or set of categories, optional
        Item categories (Jaccard distance).

    Returns
    -------
    float
        The mean over the k(k - 1)/2 pairs; 0.0 for a list of one item.

    Examples
    --------
    >>> from topkeval.beyond import intra_list_diversity_at_k
    >>> genres = {"a": {"drama"}, "b": {"drama"}, "c": {"comedy"}}
    >>> round(intra_list_diversity_at_k(["a", "b", "c"], 3, categories=genres), 4)  # (0 + 1 + 1) / 3
    0.6667
    >>> intra_list_diversity_at_k(["a", "c"], 2, features={"a": [1, 0], "c": [0, 1]})
    1.0
    """
    items = _listed(ranking, k)
    if (features is None) == (categories is None):
        raise InvalidInputError(
            "give exactly one of features= (item vectors) and categories= (item categories)."
        )
    pairs = [(a, b) for i, a in enumerate(items) for b in items[i + 1 :]]
    if not pairs:
        return 0.0
    if features is not None:
        unit = {item: _vector(features, item) for item in items}
        total = sum(1.0 - float(unit[a] @ unit[b]) for a, b in pairs)
    else:
        assert categories is not None  # one of the two was checked to be given
        sets = {item: _category_set(categories, item) for item in items}
        total = sum(_jaccard_distance(sets[a], sets[b]) for a, b in pairs)
    return float(total / len(pairs))


# ----------------------------------------------------------------- all users
def _counts(rankings: Iterable[Sequence[Hashable]], catalog: Collection, k: int) -> dict:
    k = check_k(k)
    counts = dict.fromkeys(catalog, 0)
    if not counts:
        raise InvalidInputError("catalog is empty; give the ids of every item that could be recommended.")
    for ranking in rankings:
        for item in check_ranking(ranking)[:k]:
            if item not in counts:
                raise InvalidInputError(f"item {item!r} is recommended but is not in the catalog.")
            counts[item] += 1
    return counts


def catalog_coverage(rankings: Iterable[Sequence[Hashable]], catalog: Collection, k: int) -> float:
    """Share of the catalogue that appears in at least one top ``k``.

    Parameters
    ----------
    rankings : iterable of sequences
        Every user's ranking, best first.
    catalog : collection of hashable
        Every item that could be recommended (the denominator).
    k : int
        Cutoff, at least 1.

    Returns
    -------
    float
        Distinct items shown in any top k / catalogue size, in [0, 1].

    Examples
    --------
    >>> from topkeval.beyond import catalog_coverage
    >>> catalog_coverage([["a", "b"], ["a", "c"]], catalog="abcd", k=1)  # only "a" is shown
    0.25
    >>> catalog_coverage([["a", "b"], ["a", "c"]], catalog="abcd", k=2)
    0.75
    """
    counts = _counts(rankings, catalog, k)
    return float(sum(1 for c in counts.values() if c > 0) / len(counts))


_GINI = _registry.BEYOND_OPTIONS["gini_denominator"]


@document("gini_denominator")
def gini_of_counts(counts: Any, *, denominator: str = _GINI.default) -> float:
    """Gini index of a vector of non-negative counts (one per catalogue item, zeros included).

    Parameters
    ----------
    counts : array-like of float
        One count >= 0 per catalogue item, never-recommended items included.
    denominator : {"n", "n_minus_1"}
        Which published Gini: see Notes.

    Returns
    -------
    float
        The Gini index: in [0, 1 - 1/n] with ``denominator="n"``, in [0, 1]
        with ``"n_minus_1"``.

    Notes
    -----
    %(gini_denominator)s

    Examples
    --------
    >>> from topkeval.beyond import gini_of_counts
    >>> gini_of_counts([5, 5, 5, 5])
    0.0
    >>> gini_of_counts([0, 0, 0, 8])  # one item of four takes every slot: 1 - 1/4
    0.75
    >>> gini_of_counts([0, 0, 0, 8], denominator="n_minus_1")  # Shani and Gunawardana: 0.75 * 4/3
    1.0
    """
    values = np.asarray(counts, dtype=np.float64)
    if values.ndim != 1 or values.size == 0:
        raise InvalidInputError(
            f"counts must be a non-empty 1-D sequence, one count per item; got shape {values.shape}."
        )
    if not np.all(np.isfinite(values)) or values.min() < 0:
        raise InvalidInputError("counts must be finite numbers >= 0.")
    return _gini(values, denominator)


def _gini(counts: np.ndarray, denominator: str = _GINI.default) -> float:
    """sum over i of (2i - n - 1) c_(i) / (d * sum c), counts sorted ascending; d = n or n - 1."""
    denominator = check_option("denominator", denominator, _GINI.values)
    total = counts.sum()
    if total == 0:
        raise InvalidInputError(
            "no item was recommended, so the Gini index of the counts is undefined (0/0)."
        )
    ordered = np.sort(counts.astype(np.float64))
    n = ordered.size
    if denominator == "n_minus_1" and n < 2:
        raise InvalidInputError(
            "denominator='n_minus_1' divides by n - 1, which is 0 for a catalogue of one item; "
            "use denominator='n' (it gives 0) or a larger catalogue."
        )
    ranks = np.arange(1, n + 1)
    gini = float((2.0 * np.sum(ranks * ordered)) / (n * total) - (n + 1) / n)  # the n form
    return gini if denominator == "n" else gini * n / (n - 1)


@document("gini_denominator")
def gini_index(
    rankings: Iterable[Sequence[Hashable]], catalog: Collection, k: int, *, denominator: str = _GINI.default
) -> float:
    """Gini index of how many top-``k`` slots each catalogue item gets.

    G = sum over i of (2i - n - 1) c_(i) / (n * sum c), with the counts c
    sorted ascending over the n catalogue items (never-recommended items
    count 0). G = 0 when every item is recommended equally often; it tends
    to 1 when one item takes every slot (reaches 1 with
    ``denominator="n_minus_1"``).

    Parameters
    ----------
    rankings : iterable of sequences
        Every user's ranking, best first.
    catalog : collection of hashable
        Every item that could be recommended; items never shown count 0.
    k : int
        Cutoff, at least 1.
    denominator : {"n", "n_minus_1"}
        Which published Gini: see Notes.

    Returns
    -------
    float
        The Gini index: in [0, 1 - 1/n] with ``denominator="n"``, in [0, 1]
        with ``"n_minus_1"``.

    Notes
    -----
    Same name, different numbers: the two published denominators differ by
    the factor n/(n - 1).

    %(gini_denominator)s

    Examples
    --------
    >>> from topkeval.beyond import gini_index
    >>> gini_index([["a", "b"], ["b", "a"]], catalog="ab", k=2)
    0.0
    >>> gini_index([["a"], ["a"]], catalog="ab", k=1)  # all slots on one of two items
    0.5
    """
    counts = _counts(rankings, catalog, k)
    return _gini(np.fromiter(counts.values(), dtype=np.float64, count=len(counts)), denominator)


# ----------------------------------------------------------------- batch
def _n_items(top: np.ndarray, n_items: Any) -> int:
    if isinstance(n_items, bool) or not isinstance(n_items, numbers.Integral) or n_items < 1:
        raise InvalidInputError(f"n_items must be an int >= 1 (the catalogue size); got {n_items!r}.")
    if top.size and int(top.max()) >= n_items:
        raise InvalidInputError(
            f"n_items is {n_items} but an item id is {int(top.max())}; ids must be below n_items."
        )
    return int(n_items)


def coverage_batch(top_items: Any, n_items: int, *, k: int | None = None) -> float:
    """Catalogue coverage of an integer (users x K) matrix (negative ids are empty slots).

    Parameters
    ----------
    top_items : array of int, shape (n_users, K)
        Each user's recommended item ids, best first; negative = empty slot.
    n_items : int
        The catalogue size (ids are 0..n_items-1).
    k : int, optional
        Cutoff; default K.

    Returns
    -------
    float
        Distinct items in any top k / n_items.

    Examples
    --------
    >>> import numpy as np
    >>> from topkeval.beyond import coverage_batch
    >>> coverage_batch(np.array([[0, 1], [0, 2]]), n_items=4, k=1)
    0.25
    """
    top, _ = cut(top_matrix(top_items), k)
    n = _n_items(top, n_items)
    return float(np.unique(top[top >= 0]).size / n)


def gini_batch(
    top_items: Any, n_items: int, *, k: int | None = None, denominator: str = _GINI.default
) -> float:
    """Gini index of the recommendation counts of an integer (users x K) matrix.

    Parameters
    ----------
    top_items : array of int, shape (n_users, K)
        Each user's recommended item ids, best first; negative = empty slot.
    n_items : int
        The catalogue size (ids are 0..n_items-1); items never shown count 0.
    k : int, optional
        Cutoff; default K.
    denominator : {"n", "n_minus_1"}
        As in :func:`gini_index`.

    Returns
    -------
    float
        The Gini index, 0 when every item gets as many slots; in [0, 1 - 1/n]
        with ``denominator="n"``, in [0, 1] with ``"n_minus_1"``.

    Examples
    --------
    >>> import numpy as np
    >>> from topkeval.beyond import gini_batch
    >>> gini_batch(np.array([[0], [0]]), n_items=2)
    0.5
    """
    top, _ = cut(top_matrix(top_items), k)
    n = _n_items(top, n_items)
    return _gini(np.bincount(top[top >= 0], minlength=n), denominator)


def _row_mean(values: np.ndarray, present: np.ndarray) -> np.ndarray:
    count = present.sum(axis=1)
    total = np.where(present, values, 0.0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def _ild(top: np.ndarray, present: np.ndarray, item_vectors: Any, item_categories: Any, n: int) -> np.ndarray:
    safe = np.where(present, top, 0)
    if item_vectors is not None:
        vectors = np.asarray(item_vectors, dtype=np.float64)
        if vectors.ndim != 2 or vectors.shape[0] != n:
            raise InvalidInputError(
                f"item_vectors must be a 2-D array with one row per item ({n}); got shape {vectors.shape}."
            )
        norms = np.linalg.norm(vectors, axis=1)
        used = np.unique(top[present])
        if used.size and (np.any(norms[used] == 0) or not np.all(np.isfinite(norms[used]))):
            raise InvalidInputError(
                "a recommended item has a zero or non-finite vector; cosine distance is undefined."
            )
        unit = vectors / np.where(norms > 0, norms, 1.0)[:, None]
        chosen = unit[safe]  # users x k x d
        distance = 1.0 - np.einsum("ukd,uld->ukl", chosen, chosen)
    else:
        member = np.asarray(item_categories).astype(bool)
        if member.ndim != 2 or member.shape[0] != n:
            raise InvalidInputError(
                f"item_categories must be a 2-D (n_items x n_categories) 0/1 array with {n} rows; "
                f"got shape {member.shape}."
            )
        chosen = member[safe].astype(np.float64)
        shared = np.einsum("ukc,ulc->ukl", chosen, chosen)
        sizes = chosen.sum(axis=2)
        union = sizes[:, :, None] + sizes[:, None, :] - shared
        with np.errstate(invalid="ignore", divide="ignore"):
            distance = np.where(union > 0, 1.0 - shared / np.where(union > 0, union, 1.0), 0.0)
    width = top.shape[1]
    upper = np.triu(np.ones((width, width), dtype=bool), 1)
    pair = present[:, :, None] & present[:, None, :] & upper
    n_pairs = pair.sum(axis=(1, 2))
    total = np.where(pair, distance, 0.0).sum(axis=(1, 2))
    return np.where(n_pairs > 0, total / np.maximum(n_pairs, 1), 0.0)


def _check_shares(used: np.ndarray) -> None:
    """Every recommended item's popularity share must be in (0, 1]."""
    bad = (used <= 0) | (used > 1) | ~np.isfinite(used)
    if bad.any():
        raise InvalidInputError("every recommended item needs a popularity share in (0, 1].")


def evaluate_beyond(
    top_items: Any,
    *,
    popularity: Any,
    k: int | Sequence[int] | None = None,
    item_vectors: Any = None,
    item_categories: Any = None,
) -> pd.DataFrame:
    """Novelty, ARP and (given item vectors or categories) ILD for every row of a (users x K) matrix.

    Parameters
    ----------
    top_items : array of int, shape (n_users, K)
        Item ids ``0 .. n_items - 1``, best first; negative = empty slot.
    popularity : array of float, shape (n_items,)
        Each item's popularity share in (0, 1] (0 is allowed for items never
        recommended).
    k : int or list of int, optional
        Cutoff(s); default K.
    item_vectors : array, shape (n_items, d), optional
        For ILD with cosine distance.
    item_categories : array of 0/1, shape (n_items, n_categories), optional
        For ILD with Jaccard distance (give at most one of the two).

    Returns
    -------
    pandas.DataFrame
        Columns ``novelty@k``, ``arp@k`` (and ``ild@k``) per cutoff. A row
        with no item has NaN novelty and ARP, and ILD 0.

    Examples
    --------
    >>> import numpy as np
    >>> from topkeval.beyond import evaluate_beyond
    >>> pop = np.array([0.5, 0.125, 0.25])
    >>> evaluate_beyond(np.array([[0, 1], [2, -1]]), popularity=pop, item_categories=np.eye(3))
       novelty@2  arp@2  ild@2
    0        2.0  0.3125    1.0
    1        2.0  0.2500    0.0
    """
    top = top_matrix(top_items)
    share = np.asarray(popularity, dtype=np.float64)
    if share.ndim != 1:
        raise InvalidInputError(
            f"popularity must be a 1-D array with one share per item; got shape {share.shape}."
        )
    n = _n_items(top, share.size)
    ks = check_ks(top.shape[1] if k is None else k)
    if item_vectors is not None and item_categories is not None:
        raise InvalidInputError("give at most one of item_vectors and item_categories.")
    present_all = top >= 0
    _check_shares(share[top[present_all]])
    safe_share = np.where(present_all, share[np.where(present_all, top, 0)], 1.0)
    columns = {}
    for one in ks:
        sub, present = top[:, :one], present_all[:, :one]
        columns[f"novelty@{one}"] = _row_mean(-np.log2(safe_share[:, :one]), present)
        columns[f"arp@{one}"] = _row_mean(safe_share[:, :one], present)
        if item_vectors is not None or item_categories is not None:
            columns[f"ild@{one}"] = _ild(sub, present, item_vectors, item_categories, n)
    return pd.DataFrame(columns)
