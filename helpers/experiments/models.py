"""Baseline recommenders in plain numpy, all with the same small interface.

Every model learns from a log of (user, item) interactions and produces
top-K lists in the shape :func:`helpers.evaluate` reads::

    model = EASE(l2=200.0).fit(train)
    recs = model.recommend(k=10)          # columns user, item, rank, score
    scores = helpers.evaluate(recs, test, k=10)

The models:

- :class:`RandomRecommender`: a random score per (user, item), seeded.
- :class:`MostPopular`: the items most users interacted with, same list for all.
- :class:`ItemKNN`: item-to-item cosine similarity over the user's history.
- :class:`EASE`: Steck's (2019) linear item-item model, solved in closed form.
- :class:`PureSVD`: a truncated SVD of the interaction matrix (latent factors).

The interaction matrix is held dense (users x items, float64), which is
right for the course's sizes (a few thousand users and items); EASE also
inverts an items x items matrix, so it needs roughly
``8 * n_items ** 2`` bytes and grows with the cube of ``n_items``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from topkeval.checks import check_columns, check_k

__all__ = ["Recommender", "RandomRecommender", "MostPopular", "ItemKNN", "EASE", "PureSVD"]

_BLOCK = 1024
#: Models whose full users x items score matrix has at most this many entries keep it
#: after the first use (16 MB), so evaluating several protocols does not recompute it.
_CACHE_ENTRIES = 2_000_000


class Recommender:
    """Common base: fitting, scoring and top-K lists. Subclasses define ``_fit`` and ``_scores``.

    After :meth:`fit`, ``users_`` and ``items_`` (pandas Index, sorted) are the
    known users and the item catalog; every score matrix has one column per
    item of ``items_``, in that order.

    Examples
    --------
    >>> import pandas as pd
    >>> train = pd.DataFrame({"user": [1, 1, 2, 3], "item": ["a", "b", "a", "c"]})
    >>> recs = MostPopular().fit(train).recommend(k=2)  # never an item the user already has
    >>> recs[recs.user == 3]
       user item  rank  score
    3     3    a     1    2.0
    4     3    b     2    1.0
    """

    name = "recommender"

    # ------------------------------------------------------------- fitting
    def fit(self, train: pd.DataFrame, *, user_col: str = "user", item_col: str = "item") -> Recommender:
        """Learn from the training interactions; returns the model itself.

        Parameters
        ----------
        train : pandas.DataFrame
            One row per interaction with columns ``user`` and ``item``. Every
            row counts as a positive (implicit feedback); repeated (user,
            item) pairs count once. Other columns are ignored.
        user_col, item_col : str
            Column names, if yours differ.
        """
        check_columns(train, "train", [user_col, item_col], " (user_col=..., item_col=...)")
        if len(train) == 0:
            raise ValueError("train is empty; a model needs at least one interaction to learn from.")
        if train[user_col].isna().any() or train[item_col].isna().any():
            raise ValueError(f"train has missing {user_col!r} or {item_col!r} values; drop those rows first.")
        user_codes, users = pd.factorize(train[user_col], sort=True)
        item_codes, items = pd.factorize(train[item_col], sort=True)
        self.users_ = pd.Index(users, name=user_col)
        self.items_ = pd.Index(items, name=item_col)
        self.user_col_, self.item_col_ = user_col, item_col
        matrix = np.zeros((len(users), len(items)), dtype=np.float64)
        matrix[user_codes, item_codes] = 1.0
        self.matrix_ = matrix
        self._all_scores: np.ndarray | None = None
        self._fit(matrix)
        return self

    def _block_scores(self, rows: np.ndarray) -> np.ndarray:
        """Scores for the given user rows, from the cache when the matrix is small (read-only)."""
        if self.matrix_.size > _CACHE_ENTRIES:
            return self._scores(rows)
        cached = getattr(self, "_all_scores", None)
        if cached is None:
            cached = self._all_scores = self._scores(np.arange(self.matrix_.shape[0]))
        return cached[rows]

    def _fit(self, matrix: np.ndarray) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _scores(self, rows: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _check_fitted(self) -> None:
        if not hasattr(self, "matrix_"):
            raise RuntimeError(f"{type(self).__name__} is not fitted yet; call .fit(train) first.")

    # ------------------------------------------------------------- lookup
    def user_rows(self, users: Iterable) -> np.ndarray:
        """Return the row number of each user; raise ValueError naming unknown users."""
        self._check_fitted()
        index = pd.Index(list(users) if not isinstance(users, (pd.Index, pd.Series, np.ndarray)) else users)
        rows = self.users_.get_indexer(index)
        if (rows < 0).any():
            unknown = index[rows < 0]
            shown = ", ".join(repr(u) for u in unknown[:3])
            raise ValueError(
                f"{len(unknown)} user(s) were not in the training data (e.g. {shown}); the model has no "
                "history for them. Keep only test users that occur in train, e.g. "
                "test[test['user'].isin(train['user'])]."
            )
        return rows

    def item_columns(self, items: Iterable) -> np.ndarray:
        """Return the catalog column of each item, -1 for items not seen in training."""
        self._check_fitted()
        return self.items_.get_indexer(pd.Index(np.asarray(items).ravel()))

    # ------------------------------------------------------------- scoring
    def score(self, users: Iterable) -> np.ndarray:
        """Score every catalog item for the given users.

        Returns
        -------
        numpy.ndarray
            Shape ``(len(users), len(items_))``, higher = better, columns in
            the order of ``items_``. Items a user already has are scored like
            any other (``recommend`` is where they are excluded).
        """
        return np.array(self._block_scores(self.user_rows(users)), dtype=np.float64)

    def score_candidates(self, users: Iterable, candidates) -> np.ndarray:
        """Score a given candidate list per user (for sampled evaluation).

        Parameters
        ----------
        users : sequence
            ``n`` known users.
        candidates : array-like, shape (n, m)
            Row ``i`` lists the item ids to score for ``users[i]``.

        Returns
        -------
        numpy.ndarray
            Shape ``(n, m)``. Items absent from the training data get
            ``-inf``: the model cannot rank an item it has never seen above
            anything.
        """
        rows = self.user_rows(users)
        candidates = np.asarray(candidates)
        if candidates.ndim != 2 or candidates.shape[0] != rows.size:
            raise ValueError(
                f"candidates must be a 2-D array with one row per user ({rows.size} rows); got shape "
                f"{candidates.shape}."
            )
        cols = self.item_columns(candidates).reshape(candidates.shape)
        out = np.full(candidates.shape, -np.inf)
        for start in range(0, rows.size, _BLOCK):
            block = slice(start, start + _BLOCK)
            full = self._block_scores(rows[block])
            known = cols[block] >= 0
            picked = np.take_along_axis(full, np.where(known, cols[block], 0), axis=1)
            out[block] = np.where(known, picked, -np.inf)
        return out

    def recommend(
        self, users: Iterable | None = None, k: int = 10, *, exclude_seen: bool = True
    ) -> pd.DataFrame:
        """Top-``k`` lists for the given users (default: every training user).

        Parameters
        ----------
        users : sequence, optional
            Known users; unknown ones raise ValueError.
        k : int
            List length.
        exclude_seen : bool
            Leave out items the user has in the training data (default), as
            in any evaluation where the test items are new to the user.

        Returns
        -------
        pandas.DataFrame
            Columns ``user``, ``item``, ``rank`` (1 = best) and ``score``,
            ``k`` rows per user (fewer if the user has fewer unseen items),
            users in the given order.

        Notes
        -----
        Equal scores are ordered by item id, ascending (the catalog order),
        the same rule as ``helpers.evaluate(..., ties="item_ascending")`` and
        as :func:`helpers.experiments.sampled.held_out_ranks`.
        """
        self._check_fitted()
        k = check_k(k)
        users = self.users_ if users is None else users
        rows = self.user_rows(users)
        width = min(k, len(self.items_))
        out_users, out_items, out_scores, out_ranks = [], [], [], []
        for start in range(0, rows.size, _BLOCK):
            block = rows[start : start + _BLOCK]
            scores = self._block_scores(block)
            if exclude_seen:
                scores = np.where(self.matrix_[block] > 0, -np.inf, scores)
            top = np.argsort(-scores, axis=1, kind="stable")[:, :width]
            top_scores = np.take_along_axis(scores, top, axis=1)
            keep = np.isfinite(top_scores) if exclude_seen else np.ones(top.shape, dtype=bool)
            out_users.append(np.repeat(block, width).reshape(-1, width)[keep])
            out_items.append(top[keep])
            out_scores.append(top_scores[keep])
            out_ranks.append(np.broadcast_to(np.arange(1, width + 1), top.shape)[keep])
        rows_out = np.concatenate(out_users) if out_users else np.zeros(0, dtype=np.int64)
        items_out = np.concatenate(out_items) if out_items else np.zeros(0, dtype=np.int64)
        return pd.DataFrame(
            {
                self.user_col_: self.users_[rows_out],
                self.item_col_: self.items_[items_out],
                "rank": (np.concatenate(out_ranks) if out_ranks else np.zeros(0)).astype(np.int64),
                "score": np.concatenate(out_scores) if out_scores else np.zeros(0),
            }
        )

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self._params().items())
        return f"{type(self).__name__}({params})"

    def _params(self) -> dict:
        return {}


class RandomRecommender(Recommender):
    """Random scores: the floor every real model must beat.

    Parameters
    ----------
    seed : int
        The scores are drawn once at ``fit`` from this seed, so recommending
        twice gives the same lists.

    Examples
    --------
    >>> import pandas as pd
    >>> from helpers.experiments.models import RandomRecommender
    >>> train = pd.DataFrame({"user": [1, 1, 2], "item": ["a", "b", "c"]})
    >>> recs = RandomRecommender(seed=3).fit(train).recommend(k=2)
    >>> recs[["user", "item", "rank"]].values.tolist()
    [[1, 'c', 1], [2, 'a', 1], [2, 'b', 2]]
    """

    name = "Random"

    def __init__(self, seed: int = 0):
        self.seed = seed

    def _params(self):
        return {"seed": self.seed}

    def _fit(self, matrix):
        self.random_scores_ = np.random.default_rng(self.seed).random(matrix.shape)

    def _scores(self, rows):
        return self.random_scores_[rows]


class MostPopular(Recommender):
    """Recommend the items with the most distinct users, the same list to everyone.

    Examples
    --------
    >>> import pandas as pd
    >>> from helpers.experiments.models import MostPopular
    >>> train = pd.DataFrame({"user": [1, 2, 2, 3, 3], "item": ["a", "a", "b", "a", "c"]})
    >>> MostPopular().fit(train).recommend([1], k=2)
       user item  rank  score
    0     1    b     1    1.0
    1     1    c     2    1.0
    """

    name = "MostPopular"

    def _fit(self, matrix):
        self.popularity_ = matrix.sum(axis=0)

    def _scores(self, rows):
        return np.broadcast_to(self.popularity_, (len(rows), self.popularity_.size)).copy()


class ItemKNN(Recommender):
    """Item-based k-nearest neighbours with cosine similarity.

    ``score(u, j) = sum of sim(i, j) over the items i in u's history that are
    among j's ``n_neighbors`` most similar items``, where
    ``sim(i, j) = |U_i & U_j| / sqrt(|U_i| |U_j|)`` over the sets of users.

    Parameters
    ----------
    n_neighbors : int or None
        How many neighbours each item keeps (the rest of its column of the
        similarity matrix is zeroed). None keeps them all.

    Notes
    -----
    An item is not its own neighbour (the diagonal is zero). Ties among
    neighbours are broken by item id, ascending. A user whose history has no
    neighbour of an item scores it 0: with few neighbours many items tie at
    0, and ``recommend`` orders those by item id.

    Examples
    --------
    >>> import pandas as pd
    >>> from helpers.experiments.models import ItemKNN
    >>> train = pd.DataFrame({"user": [1, 1, 2, 2, 3], "item": ["a", "b", "a", "b", "a"]})
    >>> model = ItemKNN(n_neighbors=None).fit(train)
    >>> round(float(model.similarity_[0, 1]), 4)  # 2 common users / sqrt(3 * 2)
    0.8165
    >>> model.recommend([3], k=1)
       user item  rank     score
    0     3    b     1  0.816497
    """

    name = "ItemKNN"

    def __init__(self, n_neighbors: int | None = 50):
        if n_neighbors is not None:
            n_neighbors = check_k(n_neighbors, "n_neighbors")
        self.n_neighbors = n_neighbors

    def _params(self):
        return {"n_neighbors": self.n_neighbors}

    def _fit(self, matrix):
        counts = matrix.T @ matrix
        norms = np.sqrt(np.diag(counts))
        with np.errstate(divide="ignore", invalid="ignore"):
            sim = counts / np.outer(norms, norms)
        sim[~np.isfinite(sim)] = 0.0
        np.fill_diagonal(sim, 0.0)
        n = sim.shape[0]
        if self.n_neighbors is not None and self.n_neighbors < n - 1:
            # keep, in each column j, the n_neighbors largest sim(i, j)
            order = np.argsort(-sim, axis=0, kind="stable")
            drop = order[self.n_neighbors :]
            np.put_along_axis(sim, drop, 0.0, axis=0)
        self.similarity_ = sim

    def _scores(self, rows):
        return self.matrix_[rows] @ self.similarity_


class EASE(Recommender):
    """Embarrassingly Shallow Autoencoder (Steck, WWW 2019), closed form.

    Learns an item-item weight matrix ``B`` minimising
    ``||X - X B||^2 + l2 * ||B||^2`` subject to ``diag(B) = 0``. With
    ``P = (X^T X + l2 I)^-1`` the solution is ``B_ij = -P_ij / P_jj`` for
    ``i != j``. Scores are ``X B``.

    Parameters
    ----------
    l2 : float
        Ridge penalty (> 0). Larger values shrink towards popularity-like
        scores; tune it on a validation split (hundreds are typical).

    Examples
    --------
    >>> import pandas as pd
    >>> from helpers.experiments.models import EASE
    >>> train = pd.DataFrame({"user": [1, 1, 2, 2, 3], "item": ["a", "b", "a", "b", "a"]})
    >>> model = EASE(l2=1.0).fit(train)
    >>> model.weights_.round(4).tolist()
    [[0.0, 0.5], [0.6667, 0.0]]
    >>> model.recommend([3], k=1)[["user", "item", "rank"]]
       user item  rank
    0     3    b     1
    """

    name = "EASE"

    def __init__(self, l2: float = 200.0):
        if isinstance(l2, bool) or not isinstance(l2, (int, float, np.integer, np.floating)) or not l2 > 0:
            raise ValueError(f"l2 must be a number > 0 (the ridge penalty); got {l2!r}.")
        self.l2 = float(l2)

    def _params(self):
        return {"l2": self.l2}

    def _fit(self, matrix):
        gram = matrix.T @ matrix
        gram[np.diag_indices_from(gram)] += self.l2
        inverse = np.linalg.inv(gram)
        weights = -inverse / np.diag(inverse)[None, :]
        np.fill_diagonal(weights, 0.0)
        self.weights_ = weights

    def _scores(self, rows):
        return self.matrix_[rows] @ self.weights_


class PureSVD(Recommender):
    """Truncated SVD of the 0/1 interaction matrix (Cremonesi et al., RecSys 2010).

    With ``X ~ U S V^T`` keeping ``n_factors`` singular values, a user's
    scores are ``x_u V V^T``: their history projected on the top latent
    factors.

    Parameters
    ----------
    n_factors : int
        Number of latent factors (at most min(n_users, n_items)).

    Notes
    -----
    The factors are the top eigenvectors of ``X^T X`` (the right singular
    vectors of ``X``). The scores do not depend on their signs, so they are
    the same on every platform up to rounding.

    Examples
    --------
    >>> import pandas as pd
    >>> from helpers.experiments.models import PureSVD
    >>> train = pd.DataFrame({"user": [1, 1, 2, 2, 3], "item": ["a", "b", "a", "b", "c"]})
    >>> PureSVD(n_factors=1).fit(train).recommend(k=1)[["user", "item"]].values.tolist()
    [[1, 'c'], [2, 'c'], [3, 'a']]
    """

    name = "PureSVD"

    def __init__(self, n_factors: int = 32):
        self.n_factors = check_k(n_factors, "n_factors")

    def _params(self):
        return {"n_factors": self.n_factors}

    def _fit(self, matrix):
        if self.n_factors > min(matrix.shape):
            raise ValueError(
                f"n_factors={self.n_factors} is more than min(n_users, n_items) = {min(matrix.shape)}; "
                "choose fewer factors."
            )
        # the right singular vectors of X are the eigenvectors of X^T X (items x items,
        # much faster than a full SVD when there are more users than items)
        values, vectors = np.linalg.eigh(matrix.T @ matrix)
        order = np.argsort(-values, kind="stable")[: self.n_factors]
        self.factors_ = vectors[:, order]

    def _scores(self, rows):
        return (self.matrix_[rows] @ self.factors_) @ self.factors_.T
