"""Beyond accuracy: coverage, novelty, diversity, popularity bias, exposure and calibration of top-k lists.

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
  near 1: a few items take every slot);
* **exposure**: the attention each item gets, the sum over users of a
  position weight for the slot it takes (Singh and Joachims, KDD 2018), so
  slot 1 counts more than slot 10; its Gini index, and per group of items the
  gap between each group's share of exposure and a target share;
* **calibration**: how far the genre mix of a user's list is from the genre
  mix of their history, as a Kullback-Leibler divergence (Steck, RecSys 2018).

Per-user functions take one ranking, as the accuracy metrics do; the
aggregate ones take every user's ranking. The batch versions take an integer
(users x K) matrix as :func:`topkeval.evaluate_arrays` does; both are tested
against slow oracles.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd

from . import _registry
from ._arrays import cut, top_matrix
from ._cutoff import discounts
from ._docs import document
from ._validation import (
    CUTOFF,
    Constraint,
    Cutoffs,
    InputTypeError,
    Integer,
    InvalidInputError,
    Maybe,
    Number,
    OneOf,
    Ranking,
    Real,
    check_columns,
    check_ks,
    check_ranking,
    column_constraints,
    validate_params,
)

__all__ = [
    "item_popularity",
    "novelty_at_k",
    "arp_at_k",
    "intra_list_diversity_at_k",
    "catalog_coverage",
    "gini_index",
    "gini_of_counts",
    "item_exposure",
    "exposure_gini",
    "group_exposure",
    "exposure_disparity",
    "calibration_kl_at_k",
    "calibration_by_user",
    "mean_calibration_kl",
    "evaluate_beyond",
    "coverage_batch",
    "gini_batch",
    "exposure_batch",
    "exposure_gini_batch",
    "BEYOND_METRICS",
]

#: The constraints the functions below share (declared beside each, by name).
_K = Integer(1, CUTOFF)
_P = Number("p")
_ALPHA = Real(0, 1, low_open=True, high_open=True, meaning=" (the share of p mixed into q)")
_N_ITEMS = Integer(1, " (the catalogue size)")

#: The registry entries (``topkeval._registry.BEYOND_METRICS``): which function computes which metric.
BEYOND_METRICS = _registry.BEYOND_METRICS


# ----------------------------------------------------------------- inputs
@validate_params(column_constraints("user_col", "item_col"))
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


def _listed(ranking: Sequence[Hashable], k: int) -> list:
    """The top k of a ranking its public function checked (declared ``Ranking()``, ``k``)."""
    items = list(ranking[:k])
    if not items:
        raise InvalidInputError("the ranking is empty, so it has no recommended item to describe.")
    return items


# ----------------------------------------------------------------- per user
@validate_params({"ranking": Ranking(), "k": _K})
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


@validate_params({"ranking": Ranking(), "k": _K})
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


@validate_params({"ranking": Ranking(), "k": _K})
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
def _counts(
    rankings: Iterable[Sequence[Hashable]], catalog: Collection, k: int, weights: np.ndarray | None = None
) -> dict:
    """Each catalogue item's number of top-k slots, or (given ``weights[rank - 1]``) its summed weight."""
    counts: dict[Hashable, float] = dict.fromkeys(catalog, 0)
    if not counts:
        raise InvalidInputError("catalog is empty; give the ids of every item that could be recommended.")
    for ranking in rankings:
        for rank, item in enumerate(check_ranking(ranking)[:k]):
            if item not in counts:
                raise InvalidInputError(f"item {item!r} is recommended but is not in the catalog.")
            counts[item] += 1 if weights is None else float(weights[rank])
    return counts


@validate_params({"k": _K})
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
_DENOMINATOR = OneOf("denominator", _GINI.values)


@validate_params({"denominator": _DENOMINATOR})
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


@validate_params({"k": _K, "denominator": _DENOMINATOR})
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


# ----------------------------------------------------------------- exposure
_EXPOSURE = _registry.BEYOND_OPTIONS["exposure_weighting"]
_CALIBRATION = _registry.BEYOND_OPTIONS["calibration_weighting"]
#: exposure's and calibration's browsing models and their persistence
_CALIBRATED: dict[str, Constraint] = {"weighting": OneOf("weighting", _CALIBRATION.values), "p": _P}
_EXPOSED: dict[str, Constraint] = {"weighting": OneOf("weighting", _EXPOSURE.values), "p": _P}
_PERSISTENCE = cast(float, _registry.PARAMETERS["p"].default)  # RBP's persistence, 0.8
#: Steck's smoothing of the list's genre mix towards the history's, so that the divergence stays finite.
CALIBRATION_ALPHA = 0.01


def _position_weights(n: int, weighting: Any, p: Any, allowed: tuple[str, ...]) -> np.ndarray:
    """The attention w(r) of ranks 1..n under a browsing model (registry ``_POSITION_WEIGHTS``)."""
    if weighting not in allowed:  # pragma: no cover - every caller declares weighting
        raise RuntimeError(f"weighting {weighting!r} is not one of {allowed}")
    if weighting == "log2":
        return discounts(n, "log2")
    if weighting == "rbp":
        return float(p) ** np.arange(n, dtype=np.float64)
    return np.ones(n)


def _exposures(rankings: Any, catalog: Collection, k: Any, weighting: Any, p: Any) -> dict:
    weights = _position_weights(k, weighting, p, _EXPOSURE.values)
    return _counts(rankings, catalog, k, weights)


@validate_params({"k": _K, **_EXPOSED})
@document("exposure_weighting")
def item_exposure(
    rankings: Iterable[Sequence[Hashable]],
    catalog: Collection,
    k: int,
    *,
    weighting: str = _EXPOSURE.default,
    p: float = _PERSISTENCE,
) -> pd.Series:
    """Each catalogue item's exposure: the sum over users of the position weight of the slot it takes.

    An item at rank r of a user's top k receives w(r) of that user's
    attention (Singh and Joachims, KDD 2018: exposure is the probability of
    being examined, given by a model of how users browse a list). Summed
    over every user's list, an item shown at rank 1 to ten users gets 10;
    shown at rank 10 to the same users it gets 10 / log2(11) = 2.89 under
    the default DCG weights, where a recommendation count says 10 both times.

    Parameters
    ----------
    rankings : iterable of sequences
        Every user's ranking, best first.
    catalog : collection of hashable
        Every item that could be recommended; items never shown get 0.
    k : int
        Cutoff, at least 1.
    weighting : {"log2", "rbp", "uniform"}
        The browsing model w(r): see Notes.
    p : float
        The persistence of ``weighting="rbp"``, in (0, 1); ignored otherwise.

    Returns
    -------
    pandas.Series
        Index: the catalogue, in the order given; values: float exposure >= 0.

    Notes
    -----
    %(exposure_weighting)s

    Examples
    --------
    >>> from topkeval.beyond import item_exposure
    >>> item_exposure([["a", "b"], ["a", "c"]], catalog="abcd", k=2).round(4).to_dict()
    {'a': 2.0, 'b': 0.6309, 'c': 0.6309, 'd': 0.0}
    >>> item_exposure([["a", "b"], ["a", "c"]], catalog="abcd", k=2, weighting="rbp", p=0.5).to_dict()
    {'a': 2.0, 'b': 0.5, 'c': 0.5, 'd': 0.0}
    """
    exposure = _exposures(rankings, catalog, k, weighting, p)
    return pd.Series(
        [float(v) for v in exposure.values()], index=list(exposure), name="exposure", dtype=float
    )


@validate_params({"k": _K, **_EXPOSED, "denominator": _DENOMINATOR})
@document("exposure_weighting", "gini_denominator")
def exposure_gini(
    rankings: Iterable[Sequence[Hashable]],
    catalog: Collection,
    k: int,
    *,
    weighting: str = _EXPOSURE.default,
    p: float = _PERSISTENCE,
    denominator: str = _GINI.default,
) -> float:
    """Gini index of the catalogue items' exposure (:func:`item_exposure`) instead of their slot counts.

    :func:`gini_index` counts slots, so an item always shown first and an
    item always shown last weigh the same; here each slot counts its
    position weight, and two items recommended equally often but at
    different ranks are unequal. With ``weighting="uniform"`` it is
    :func:`gini_index`.

    Parameters
    ----------
    rankings : iterable of sequences
        Every user's ranking, best first.
    catalog : collection of hashable
        Every item that could be recommended; items never shown count 0.
    k : int
        Cutoff, at least 1.
    weighting : {"log2", "rbp", "uniform"}
        The browsing model: see Notes.
    p : float
        The persistence of ``weighting="rbp"``, in (0, 1).
    denominator : {"n", "n_minus_1"}
        Which published Gini, as in :func:`gini_index`.

    Returns
    -------
    float
        In [0, 1 - 1/n] with ``denominator="n"``, in [0, 1] with ``"n_minus_1"``.

    Notes
    -----
    %(exposure_weighting)s

    %(gini_denominator)s

    Examples
    --------
    >>> from topkeval.beyond import exposure_gini, gini_index
    >>> lists = [["a", "b"], ["a", "b"]]  # a always first, b always second
    >>> gini_index(lists, catalog="ab", k=2)  # two slots each: equal
    0.0
    >>> round(exposure_gini(lists, catalog="ab", k=2), 4)  # exposure 2 against 2 / log2(3)
    0.1131
    """
    exposure = _exposures(rankings, catalog, k, weighting, p)
    return _gini(np.fromiter(exposure.values(), dtype=np.float64, count=len(exposure)), denominator)


def _group_of(groups: Mapping, item: Hashable) -> Hashable:
    try:
        return groups[item]
    except KeyError:
        raise InvalidInputError(
            f"item {item!r} of the catalog has no group; give groups= a group for every catalogue item."
        ) from None


def _merit_of(merit: Mapping, item: Hashable) -> float:
    value = merit.get(item, 0.0)
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= float(value) < math.inf:
        raise InvalidInputError(f"item {item!r} has merit {value!r}; merit must be a finite number >= 0.")
    return float(value)


def _check_merit(merit: Any, catalog: Sequence) -> None:
    """``merit`` must be a mapping item -> merit whose items are all in the catalogue."""
    if not isinstance(merit, (Mapping, pd.Series)):
        raise InputTypeError(
            f"merit must be a mapping item -> merit (a dict or a pandas Series indexed by item); got "
            f"{type(merit).__name__}. For merits in catalogue order, pass dict(zip(catalog, merit))."
        )
    known = set(catalog)
    unknown = [item for item in merit.keys() if item not in known][:3]
    if unknown:
        raise InvalidInputError(
            f"merit names items that are not in the catalog, e.g. {unknown}; their merit could never be met "
            "by exposure. Keep only catalogue items (e.g. merit.reindex(catalog, fill_value=0))."
        )


def _target_totals(catalog: Sequence, groups: Mapping, merit: Mapping | None) -> dict:
    if merit is not None:
        _check_merit(merit, catalog)
    totals: dict = {}
    for item in catalog:
        group = _group_of(groups, item)
        totals[group] = totals.get(group, 0.0) + (1.0 if merit is None else _merit_of(merit, item))
    if sum(totals.values()) <= 0:
        raise InvalidInputError("every catalogue item has merit 0, so the target shares are undefined (0/0).")
    return totals


@validate_params({"k": _K, **_EXPOSED})
@document("exposure_weighting")
def group_exposure(
    rankings: Iterable[Sequence[Hashable]],
    catalog: Collection,
    k: int,
    *,
    groups: Mapping,
    merit: Mapping | None = None,
    weighting: str = _EXPOSURE.default,
    p: float = _PERSISTENCE,
) -> pd.DataFrame:
    """Exposure per group of items (e.g. providers), next to the share each group should get.

    A group's exposure is the sum of its items' :func:`item_exposure`. Its
    target share is its share of the catalogue (``merit=None``: every item
    deserves the same exposure, Singh and Joachims' demographic parity) or
    of the total merit (``merit``, e.g. each item's number of held-out
    interactions: exposure proportional to merit, their disparate-treatment
    constraint Exposure(G0) / Merit(G0) = Exposure(G1) / Merit(G1)).
    Singh and Joachims state the constraint per ranking; exposure and merit
    summed over every user's list, as here, give its amortized form (Biega
    et al., Equity of Attention, SIGIR 2018). Merit read from logged
    interactions inherits the exposure of the system that produced the log.
    The ``ratio`` column is exposure share / target share per group; the
    ratio of two groups' ratios is Singh and Joachims' disparate treatment
    ratio. Shares, ratios and the disparity do not depend on the base of the
    logarithm in ``weighting="log2"``; raw exposure does.

    Parameters
    ----------
    rankings : iterable of sequences
        Every user's ranking, best first.
    catalog : collection of hashable
        Every item that could be recommended.
    k : int
        Cutoff, at least 1.
    groups : mapping item -> group
        The group of every catalogue item (a pandas Series works).
    merit : mapping item -> float, optional
        Each item's merit >= 0 (a dict or a pandas Series); catalogue items
        it does not list have merit 0, and an item outside the catalogue is
        an error (no exposure could ever meet its merit).
    weighting : {"log2", "rbp", "uniform"}
        The browsing model: see Notes.
    p : float
        The persistence of ``weighting="rbp"``, in (0, 1).

    Returns
    -------
    pandas.DataFrame
        One row per group (in order of first appearance in the catalogue):
        ``exposure``, ``exposure share``, ``target share`` and ``ratio``
        (exposure share / target share: 1 is proportional, above 1 more than
        its share; inf for exposure with no merit, NaN for neither).

    Notes
    -----
    %(exposure_weighting)s

    Examples
    --------
    >>> from topkeval.beyond import group_exposure
    >>> groups = {"a": "head", "b": "tail", "c": "tail", "d": "tail"}
    >>> group_exposure([["a", "b"], ["a", "c"]], catalog="abcd", k=2, groups=groups).round(4)
          exposure  exposure share  target share   ratio
    head    2.0000          0.6131          0.25  2.4526
    tail    1.2619          0.3869          0.75  0.5158
    """
    exposure = _exposures(rankings, catalog, k, weighting, p)
    items = list(exposure)
    targets = _target_totals(items, groups, merit)
    shown = dict.fromkeys(targets, 0.0)
    for item, value in exposure.items():
        shown[_group_of(groups, item)] += value
    total = sum(shown.values())
    if total == 0:
        raise InvalidInputError("no item was recommended, so exposure shares are undefined (0/0).")
    frame = pd.DataFrame({"exposure": pd.Series(shown, dtype=float)})
    frame["exposure share"] = frame["exposure"] / total
    frame["target share"] = pd.Series(targets, dtype=float) / sum(targets.values())
    with np.errstate(divide="ignore", invalid="ignore"):
        frame["ratio"] = frame["exposure share"].to_numpy() / frame["target share"].to_numpy()
    return frame


@validate_params({"k": _K, **_EXPOSED})
@document("exposure_weighting")
def exposure_disparity(
    rankings: Iterable[Sequence[Hashable]],
    catalog: Collection,
    k: int,
    *,
    groups: Mapping,
    merit: Mapping | None = None,
    weighting: str = _EXPOSURE.default,
    p: float = _PERSISTENCE,
) -> float:
    """How far the groups' exposure shares are from their target shares: 1/2 sum of |difference|.

    The total variation distance between the exposure shares and the target
    shares of :func:`group_exposure`: the smallest share of all exposure
    that would have to move between groups to make exposure proportional to
    the target. It is 0 exactly when Singh and Joachims' constraint holds
    (every group's exposure / merit is the same), in its amortized form
    over all users' lists (Biega et al., SIGIR 2018), and works for any
    number of groups; with two groups it is the gap of either group's share.
    It saturates at a group's target share when that group gets no exposure;
    the ``ratio`` column of :func:`group_exposure` keeps telling heavy skews
    apart.

    Parameters
    ----------
    rankings : iterable of sequences
        Every user's ranking, best first.
    catalog : collection of hashable
        Every item that could be recommended.
    k : int
        Cutoff, at least 1.
    groups : mapping item -> group
        The group of every catalogue item.
    merit : mapping item -> float, optional
        Each item's merit >= 0, catalogue items only, as in
        :func:`group_exposure` (default: every item 1, so the target is the
        group's share of the catalogue).
    weighting : {"log2", "rbp", "uniform"}
        The browsing model: see Notes.
    p : float
        The persistence of ``weighting="rbp"``, in (0, 1).

    Returns
    -------
    float
        In [0, 1]; 0 when exposure is proportional to the target.

    Notes
    -----
    %(exposure_weighting)s

    Examples
    --------
    >>> from topkeval.beyond import exposure_disparity
    >>> groups = {"a": "head", "b": "tail", "c": "tail", "d": "tail"}
    >>> round(exposure_disparity([["a", "b"], ["a", "c"]], catalog="abcd", k=2, groups=groups), 4)
    0.3631
    >>> exposure_disparity([["a", "b"]], catalog="ab", k=2, groups={"a": 0, "b": 1}, weighting="uniform")
    0.0
    """
    table = group_exposure(rankings, catalog, k, groups=groups, merit=merit, weighting=weighting, p=p)
    return float(0.5 * np.abs(table["exposure share"] - table["target share"]).sum())


# ----------------------------------------------------------------- calibration
def _genres_of(genres: Mapping, item: Hashable) -> frozenset:
    if item not in genres:
        raise InvalidInputError(
            f"item {item!r} has no entry in genres; give every item its genres (an empty set for none)."
        )
    value = genres[item]
    return frozenset([value] if isinstance(value, (str, bytes, numbers.Number)) else value)


def _genre_mix(items: Sequence, genres: Mapping, weights: np.ndarray) -> dict:
    """sum over items of w_i p(g|i) / sum of w_i over items with a genre, p(g|i) = 1/|genres(i)|."""
    mix: dict = {}
    total = 0.0
    for item, weight in zip(items, weights, strict=True):
        labels = _genres_of(genres, item)
        for genre in labels:
            mix[genre] = mix.get(genre, 0.0) + float(weight) / len(labels)
        total += float(weight) if labels else 0.0
    return {genre: value / total for genre, value in mix.items()} if total > 0 else {}


def _history_items(history: Any) -> list:
    if isinstance(history, (str, bytes, Mapping)) or not isinstance(history, Iterable):
        raise InvalidInputError(
            f"history must be a collection of item ids (the user's past items); got {type(history).__name__}."
        )
    return list(dict.fromkeys(history))


def _kl(target: dict, mix: dict, alpha: float) -> float:
    """sum over g of p(g) ln(p(g) / ((1 - alpha) q(g) + alpha p(g))); genres with p(g) = 0 add 0."""
    total = 0.0
    for genre, share in target.items():
        smoothed = (1.0 - alpha) * mix.get(genre, 0.0) + alpha * share
        total += share * math.log(share / smoothed)
    return max(total, 0.0)  # >= 0 in exact arithmetic; rounding can leave -1e-17


@validate_params({"ranking": Ranking(), "k": _K, "alpha": _ALPHA, **_CALIBRATED})
@document("calibration_weighting")
def calibration_kl_at_k(
    history: Collection[Hashable],
    ranking: Sequence[Hashable],
    k: int,
    *,
    genres: Mapping,
    alpha: float = CALIBRATION_ALPHA,
    weighting: str = _CALIBRATION.default,
    p: float = _PERSISTENCE,
) -> float:
    """Miscalibration of one list: KL divergence of its genre mix from the user's history's (Steck, 2018).

    p(g|u) is the genre mix of the history, each item spread evenly over its
    genres (p(g|i) = 1/|genres(i)|); q(g|u) is the same mix over the top
    ``k``. The value is KL(p || q~) = sum over g of p(g|u) ln(p(g|u) /
    q~(g|u)) with q~ = (1 - alpha) q + alpha p, which keeps it finite when
    the list misses a genre of the history. Steck weights each history item
    by a w_u,i (e.g. how recently it was played) and each listed item by a
    rank weight w_r (e.g. the MRR or nDCG discount); here every history item
    weighs 1, and so does every listed item by default
    (``weighting="uniform"``); ``"log2"`` or ``"rbp"`` give his rank-weighted
    q(g|u).

    Parameters
    ----------
    history : collection of hashable
        The user's past items (repeats count once).
    ranking : sequence of hashable
        Recommended item ids, best first.
    k : int
        Cutoff, at least 1.
    genres : mapping item -> genre or collection of genres
        Every history and recommended item's genres; an empty collection
        means "no genre" and the item is left out of the mix it is in.
    alpha : float
        Smoothing in (0, 1); Steck uses 0.01. 0 would make a missed genre
        infinite and 1 would make every list score 0 (q~ = p), so both are
        errors.
    weighting : {"uniform", "log2", "rbp"}
        How the list's items are weighted in q(g|u): see Notes.
    p : float
        The persistence of ``weighting="rbp"``, in (0, 1).

    Returns
    -------
    float
        Nats, in [0, ln(1/alpha)]: 0 when the list's mix equals the
        history's; an empty list (or one whose items have no genre) shows
        none of the user's genres and gets the maximum, ln(1/alpha).

    Raises
    ------
    InvalidInputError
        If no history item has a genre (p(g|u) is undefined), or an item is
        missing from ``genres``.

    Notes
    -----
    %(calibration_weighting)s

    Examples
    --------
    >>> from topkeval.beyond import calibration_kl_at_k
    >>> genres = {"a": "drama", "b": "drama", "c": "comedy", "d": {"drama", "comedy"}}
    >>> calibration_kl_at_k(["a", "c"], ["d"], k=1, genres=genres)  # 50/50 both
    0.0
    >>> round(calibration_kl_at_k(["a", "c"], ["a", "b"], k=2, genres=genres), 4)  # 50/50 vs 100/0
    1.9585
    >>> round(calibration_kl_at_k(["a", "c"], [], k=2, genres=genres), 4)  # ln(1 / 0.01)
    4.6052
    """
    items = _history_items(history)
    target = _genre_mix(items, genres, np.ones(len(items)))
    if not target:
        raise InvalidInputError(
            "no item of the history has a genre, so the user's genre mix p(g|u) is undefined; "
            "leave this user out (calibration_by_user gives NaN for such users)."
        )
    shown = ranking[:k]
    weights = _position_weights(len(shown), weighting, p, _CALIBRATION.values)
    return float(_kl(target, _genre_mix(shown, genres, weights), alpha))


@validate_params({"k": _K, "alpha": _ALPHA, **_CALIBRATED})
@document("calibration_weighting")
def calibration_by_user(
    histories: Mapping,
    rankings: Mapping,
    k: int,
    *,
    genres: Mapping,
    alpha: float = CALIBRATION_ALPHA,
    weighting: str = _CALIBRATION.default,
    p: float = _PERSISTENCE,
) -> pd.Series:
    """:func:`calibration_kl_at_k` for every user of ``rankings``; NaN for a user with no genre history.

    Parameters
    ----------
    histories : mapping user -> collection of items
        Each user's past items; a user missing here has no history.
    rankings : mapping user -> sequence of items
        Each user's ranking, best first (a pandas Series of lists works).
    k : int
        Cutoff, at least 1.
    genres : mapping item -> genre or collection of genres
        As in :func:`calibration_kl_at_k`.
    alpha : float
        Smoothing in (0, 1).
    weighting : {"uniform", "log2", "rbp"}
        How the list's items are weighted: see Notes.
    p : float
        The persistence of ``weighting="rbp"``, in (0, 1).

    Returns
    -------
    pandas.Series
        Index: the users of ``rankings``; values: nats, NaN where the user's
        history is missing or has no item with a genre (their mix is
        undefined, so they are left out rather than scored 0 or maximal).

    Notes
    -----
    %(calibration_weighting)s

    Examples
    --------
    >>> from topkeval.beyond import calibration_by_user
    >>> genres = {"a": "drama", "b": "drama", "c": "comedy"}
    >>> calibration_by_user({1: ["a", "c"]}, {1: ["a", "b"], 2: ["c"]}, k=2, genres=genres).round(4)
    1    1.9585
    2       NaN
    Name: calibration_kl, dtype: float64
    """
    for name, given in (("histories", histories), ("rankings", rankings)):
        if not isinstance(given, (Mapping, pd.Series)):
            raise InputTypeError(
                f"{name} must be a mapping user -> items (a dict, or a pandas Series such as "
                f"log.groupby('user')['item'].agg(list)); got {type(given).__name__}."
            )
    values = {}
    for user, ranking in rankings.items():
        history = _history_items(histories.get(user, ()))
        if not _genre_mix(history, genres, np.ones(len(history))):
            values[user] = math.nan
            continue
        values[user] = calibration_kl_at_k(
            history, ranking, k, genres=genres, alpha=alpha, weighting=weighting, p=p
        )
    return pd.Series(values, name="calibration_kl", dtype=float)


@validate_params({"k": _K, "alpha": _ALPHA, **_CALIBRATED})
@document("calibration_weighting")
def mean_calibration_kl(
    histories: Mapping,
    rankings: Mapping,
    k: int,
    *,
    genres: Mapping,
    alpha: float = CALIBRATION_ALPHA,
    weighting: str = _CALIBRATION.default,
    p: float = _PERSISTENCE,
) -> float:
    """The mean of :func:`calibration_by_user` over the users who have a genre history.

    Parameters
    ----------
    histories : mapping user -> collection of items
        Each user's past items.
    rankings : mapping user -> sequence of items
        Each user's ranking, best first.
    k : int
        Cutoff, at least 1.
    genres : mapping item -> genre or collection of genres
        As in :func:`calibration_kl_at_k`.
    alpha : float
        Smoothing in (0, 1).
    weighting : {"uniform", "log2", "rbp"}
        How the list's items are weighted: see Notes.
    p : float
        The persistence of ``weighting="rbp"``, in (0, 1).

    Returns
    -------
    float
        Nats; the users without a genre history are left out of the mean.

    Raises
    ------
    InvalidInputError
        If no user of ``rankings`` has a history with a genre.

    Notes
    -----
    %(calibration_weighting)s

    Examples
    --------
    >>> from topkeval.beyond import mean_calibration_kl
    >>> genres = {"a": "drama", "b": "drama", "c": "comedy"}
    >>> round(mean_calibration_kl({1: ["a", "c"], 2: ["c"]}, {1: ["a", "c"], 2: ["a"]}, 2, genres=genres), 4)
    2.3026
    """
    per_user = calibration_by_user(
        histories, rankings, k, genres=genres, alpha=alpha, weighting=weighting, p=p
    ).dropna()
    if per_user.empty:
        raise InvalidInputError(
            "no user of rankings has a history with a genre, so there is no calibration to average."
        )
    return float(per_user.mean())


# ----------------------------------------------------------------- batch
def _n_items(top: np.ndarray, n_items: int) -> int:
    """The catalogue size (an int >= 1, declared by each caller), which must hold every listed id."""
    if top.size and int(top.max()) >= n_items:
        raise InvalidInputError(
            f"n_items is {n_items} but an item id is {int(top.max())}; ids must be below n_items."
        )
    return int(n_items)


@validate_params({"n_items": _N_ITEMS, "k": Maybe(_K)})
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


@validate_params({"n_items": _N_ITEMS, "k": Maybe(_K), "denominator": _DENOMINATOR})
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


@validate_params({"n_items": _N_ITEMS, "k": Maybe(_K), **_EXPOSED})
@document("exposure_weighting")
def exposure_batch(
    top_items: Any,
    n_items: int,
    *,
    k: int | None = None,
    weighting: str = _EXPOSURE.default,
    p: float = _PERSISTENCE,
) -> np.ndarray:
    """Each item's exposure (as :func:`item_exposure`) from an integer (users x K) matrix.

    Parameters
    ----------
    top_items : array of int, shape (n_users, K)
        Each user's recommended item ids, best first; negative = empty slot.
    n_items : int
        The catalogue size (ids are 0..n_items-1); items never shown get 0.
    k : int, optional
        Cutoff; default K.
    weighting : {"log2", "rbp", "uniform"}
        The browsing model: see Notes.
    p : float
        The persistence of ``weighting="rbp"``, in (0, 1).

    Returns
    -------
    numpy.ndarray
        float64, shape (n_items,): the summed position weights of each item's slots.

    Notes
    -----
    %(exposure_weighting)s

    Examples
    --------
    >>> import numpy as np
    >>> from topkeval.beyond import exposure_batch
    >>> exposure_batch(np.array([[0, 1], [0, 2]]), n_items=4).round(4).tolist()
    [2.0, 0.6309, 0.6309, 0.0]
    """
    top, k = cut(top_matrix(top_items), k)
    n = _n_items(top, n_items)
    slot = np.broadcast_to(_position_weights(k, weighting, p, _EXPOSURE.values)[: top.shape[1]], top.shape)
    shown = top >= 0
    return np.bincount(top[shown], weights=slot[shown], minlength=n).astype(np.float64)


@validate_params({"n_items": _N_ITEMS, "k": Maybe(_K), **_EXPOSED, "denominator": _DENOMINATOR})
@document("gini_denominator")
def exposure_gini_batch(
    top_items: Any,
    n_items: int,
    *,
    k: int | None = None,
    weighting: str = _EXPOSURE.default,
    p: float = _PERSISTENCE,
    denominator: str = _GINI.default,
) -> float:
    """Gini index of the items' exposure (:func:`exposure_batch`), as :func:`exposure_gini` for a matrix.

    Parameters
    ----------
    top_items : array of int, shape (n_users, K)
        Each user's recommended item ids, best first; negative = empty slot.
    n_items : int
        The catalogue size (ids are 0..n_items-1); items never shown count 0.
    k : int, optional
        Cutoff; default K.
    weighting : {"log2", "rbp", "uniform"}
        The browsing model, as in :func:`exposure_batch`.
    p : float
        The persistence of ``weighting="rbp"``, in (0, 1).
    denominator : {"n", "n_minus_1"}
        Which published Gini: see Notes.

    Returns
    -------
    float
        In [0, 1 - 1/n] with ``denominator="n"``, in [0, 1] with ``"n_minus_1"``.

    Notes
    -----
    %(gini_denominator)s

    Examples
    --------
    >>> import numpy as np
    >>> from topkeval.beyond import exposure_gini_batch, gini_batch
    >>> top = np.array([[0, 1], [0, 1]])  # item 0 always first, item 1 always second
    >>> gini_batch(top, n_items=2), round(exposure_gini_batch(top, n_items=2), 4)
    (0.0, 0.1131)
    """
    return _gini(exposure_batch(top_items, n_items, k=k, weighting=weighting, p=p), denominator)


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


@validate_params({"k": Maybe(Cutoffs())})
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
