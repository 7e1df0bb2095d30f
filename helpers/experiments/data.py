"""Interaction data: a seeded synthetic generator, and the library's MovieLens loaders.

The course cannot download anything while it runs, so every notebook works on
:func:`synthetic_interactions`, a small log with the features that make real
evaluation hard (a popularity long tail, users with different tastes, and
timestamps). When you have MovieLens on disk, :func:`load_movielens_100k`
and :func:`load_movielens_latest` read it into the same columns.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from topkeval.checks import check_int, check_number
from topkeval.datasets import (
    MOVIELENS,
    DownloadError,
    default_cache_dir,
    download_movielens,
    load_movielens,
    load_movielens_100k,
    load_movielens_latest,
)

__all__ = [
    "synthetic_interactions",
    "synthetic_item_genres",
    "synthetic_item_factors",
    "load_movielens_100k",
    "load_movielens_latest",
    "MOVIELENS",
    "DownloadError",
    "default_cache_dir",
    "download_movielens",
    "load_movielens",
]

#: Start of the synthetic log: 2025-01-01 00:00:00 UTC, in Unix seconds.
SYNTHETIC_START = 1_735_689_600
_DAY = 86_400


def _item_draws(rng: np.random.Generator, n_items: int, n_factors: int) -> tuple[np.ndarray, np.ndarray]:
    """The first draws of :func:`synthetic_interactions`: each item's popularity rank and taste vector."""
    popularity_rank = rng.permutation(n_items) + 1
    item_taste = rng.normal(size=(n_items, n_factors))
    return popularity_rank, item_taste


def synthetic_interactions(
    n_users: int = 1000,
    n_items: int = 500,
    *,
    mean_interactions: float = 30.0,
    min_interactions: int = 5,
    n_factors: int = 8,
    taste_strength: float = 2.0,
    popularity_exponent: float = 1.0,
    days: int = 365,
    seed: int = 0,
) -> pd.DataFrame:
    """Generate a seeded implicit-feedback log with a long tail and timestamps.

    Parameters
    ----------
    n_users, n_items : int
        Size of the log. Users are ``0 .. n_users-1`` and items
        ``0 .. n_items-1``.
    mean_interactions : float
        Typical (median) number of distinct items a user interacts with.
        Counts are log-normal, so a few heavy users have many more.
    min_interactions : int
        Every user has at least this many interactions (>= 2, so that
        leave-one-out always leaves something to train on).
    n_factors : int
        Dimension of the hidden taste vectors.
    taste_strength : float
        How much taste matters relative to popularity: 0 gives a log where
        everyone follows the same popularity curve (only MostPopular can
        learn anything); larger values make users more different.
    popularity_exponent : float
        Zipf exponent of item popularity: the item of popularity rank r is
        about ``r ** -popularity_exponent`` times as likely as the top one.
    days : int
        Length of the observation window.
    seed : int
        Seed of the random generator: the same arguments give the same log.

    Returns
    -------
    pandas.DataFrame
        Columns ``user``, ``item`` (int64) and ``timestamp`` (int64 Unix
        seconds, from 2025-01-01), one row per interaction, sorted by
        ``timestamp`` then ``user``. No (user, item) pair repeats.

    Notes
    -----
    How a user's items are drawn: each item has a popularity weight
    ``log p_i`` (a Zipf curve over a shuffled item order, so item ids say
    nothing about popularity) and a taste vector ``v_i``; each user has a
    taste vector ``u_u``. The user picks ``n_u`` distinct items with
    probabilities proportional to ``exp(log p_i + taste_strength * u_u . v_i)``
    (sampling without replacement, by the Gumbel top-k trick). Each user
    joins at a uniformly random time in the first 80 % of the window, stays
    active for a random share of the rest, and the picked items are spread
    in random order over that activity period. Timestamps of one user are
    distinct; two users can share a timestamp.

    There is no rating column: the log is implicit feedback (every row is
    a positive interaction).

    Examples
    --------
    >>> from helpers.experiments.data import synthetic_interactions
    >>> log = synthetic_interactions(n_users=50, n_items=40, seed=1)
    >>> list(log.columns)
    ['user', 'item', 'timestamp']
    >>> int(log.groupby("user").size().min()) >= 5
    True
    >>> log.equals(synthetic_interactions(n_users=50, n_items=40, seed=1))
    True
    """
    n_users = check_int(n_users, "n_users")
    min_interactions = check_int(min_interactions, "min_interactions", 2)
    n_items = check_int(n_items, "n_items", min_interactions)
    n_factors = check_int(n_factors, "n_factors")
    days = check_int(days, "days")
    mean_interactions = check_number(mean_interactions, "mean_interactions", 0, low_open=True)
    taste_strength = check_number(taste_strength, "taste_strength", 0)
    popularity_exponent = check_number(popularity_exponent, "popularity_exponent", 0)
    rng = np.random.default_rng(seed)

    # items: shuffled Zipf popularity and taste vectors
    popularity_rank, item_taste = _item_draws(rng, n_items, n_factors)
    log_pop = -popularity_exponent * np.log(popularity_rank)
    user_taste = rng.normal(size=(n_users, n_factors)) / math.sqrt(n_factors)

    # how many items each user picks
    counts = np.exp(rng.normal(math.log(mean_interactions), 0.6, size=n_users))
    counts = np.clip(np.rint(counts), min_interactions, max(min_interactions, n_items // 2)).astype(np.int64)

    # Gumbel top-k: sampling without replacement proportional to exp(logit)
    logits = log_pop[None, :] + taste_strength * (user_taste @ item_taste.T)
    keys = logits + rng.gumbel(size=logits.shape)
    order = np.argsort(-keys, axis=1, kind="stable")
    take = np.arange(n_items)[None, :] < counts[:, None]
    users = np.repeat(np.arange(n_users), counts)
    items = order[take]

    # time: each user is active over [start, start + length]
    span = days * _DAY
    start = rng.uniform(0, 0.8 * span, size=n_users)
    length = rng.uniform(0.05, 1.0, size=n_users) * (span - start)
    # picks happen at independent uniform times, so their order is random
    offsets = rng.uniform(size=users.size)
    times = SYNTHETIC_START + np.floor(start[users] + offsets * length[users]).astype(np.int64)
    frame = pd.DataFrame({"user": users.astype(np.int64), "item": items.astype(np.int64), "timestamp": times})
    frame = frame.sort_values(["user", "timestamp"], kind="stable").reset_index(drop=True)
    # one user's timestamps are distinct: push repeats forward by whole seconds
    position = frame.groupby("user").cumcount().to_numpy()
    shifted = pd.Series(frame["timestamp"].to_numpy() - position).groupby(frame["user"]).cummax()
    frame["timestamp"] = shifted.to_numpy() + position
    return frame.sort_values(["timestamp", "user"], kind="stable").reset_index(drop=True)


def synthetic_item_factors(n_items: int = 500, *, n_factors: int = 8, seed: int = 0) -> pd.DataFrame:
    """The hidden taste vectors ``v_i`` of the items of :func:`synthetic_interactions`.

    Users pick items with probability proportional to
    ``exp(log p_i + taste_strength * u_u . v_i)``: both signs of each factor
    drive the choices. :func:`synthetic_item_genres` keeps only the positive
    side; this function shows the whole vector, e.g. to count the items that
    are strongly *negative* on some factor. Call it with the ``n_items``,
    ``n_factors`` and ``seed`` of the log.

    Parameters
    ----------
    n_items : int
        As given to :func:`synthetic_interactions`.
    n_factors : int
        As given to :func:`synthetic_interactions`.
    seed : int
        As given to :func:`synthetic_interactions`.

    Returns
    -------
    pandas.DataFrame
        Index: item ids ``0 .. n_items-1``; columns ``"g0" .. "g<n_factors - 1>"``
        (named as the genres); values: standard normal draws.

    Examples
    --------
    >>> from helpers.experiments.data import synthetic_item_factors
    >>> factors = synthetic_item_factors(n_items=40, seed=1)
    >>> factors.shape, list(factors.columns[:3])
    ((40, 8), ['g0', 'g1', 'g2'])
    """
    n_items = check_int(n_items, "n_items")
    n_factors = check_int(n_factors, "n_factors")
    _, taste = _item_draws(np.random.default_rng(seed), n_items, n_factors)
    return pd.DataFrame(
        taste, index=pd.RangeIndex(n_items, name="item"), columns=[f"g{d}" for d in range(n_factors)]
    )


def synthetic_item_genres(
    n_items: int = 500, *, n_factors: int = 8, threshold: float = 1.0, seed: int = 0
) -> pd.Series:
    """Genres for the items of :func:`synthetic_interactions`: the taste dimensions each item is strong on.

    The generator gives every item a hidden taste vector ``v_i`` (one value
    per factor) and users pick items whose taste matches theirs. These
    genres are a construction from the positive side of those factors: item
    ``i`` belongs to genre ``"g<d>"`` for every factor ``d`` with
    ``v_i[d] > threshold``, and to its largest factor alone when none passes
    (even when that factor is negative). The negative side of each factor and
    the items' popularity also drive users' choices and are not represented
    (:func:`synthetic_item_factors` gives the whole vectors); real genres are
    coarser, hand-made labels. A user's history still has a genre mix that
    follows their taste. Call it with the ``n_items``, ``n_factors`` and
    ``seed`` of the log.

    Parameters
    ----------
    n_items : int
        As given to :func:`synthetic_interactions`.
    n_factors : int
        As given to :func:`synthetic_interactions`; the number of genres.
    threshold : float
        A factor above this value is one of the item's genres (factors are
        standard normal, so 1.0 gives 16 % of items each genre).
    seed : int
        As given to :func:`synthetic_interactions`.

    Returns
    -------
    pandas.Series
        Index: item ids ``0 .. n_items-1``; values: tuples of genre names,
        one or more per item, e.g. ``("g2", "g5")``.

    Examples
    --------
    >>> from helpers.experiments.data import synthetic_item_genres
    >>> genres = synthetic_item_genres(n_items=40, seed=1)
    >>> len(genres), int(genres.map(len).min())
    (40, 1)
    >>> sorted({g for item in genres for g in item})
    ['g0', 'g1', 'g2', 'g3', 'g4', 'g5', 'g6', 'g7']
    """
    n_items = check_int(n_items, "n_items")
    n_factors = check_int(n_factors, "n_factors")
    threshold = check_number(threshold, "threshold", -math.inf)
    taste = synthetic_item_factors(n_items, n_factors=n_factors, seed=seed).to_numpy()
    strong = taste > threshold
    strong[np.arange(n_items), taste.argmax(axis=1)] = True  # at least the largest factor
    genres = [tuple(f"g{d}" for d in np.flatnonzero(row)) for row in strong]
    return pd.Series(genres, index=pd.RangeIndex(n_items, name="item"), name="genres")
