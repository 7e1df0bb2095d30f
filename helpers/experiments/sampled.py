"""Sampled versus full-ranking evaluation under leave-one-out.

Many papers rank each user's held-out item not against the whole catalog
but against ``n`` (often 100) randomly sampled items the user never touched,
then report "HR@10" and "NDCG@10" on that short list. Krichene and Rendle
(KDD 2020, "On Sampled Metrics for Item Recommendation") showed that these
sampled metrics can order models differently from the exact ones. This
module computes both from the same model so the two can be compared:

- :func:`sample_negatives` draws the negatives (seeded);
- :func:`held_out_ranks` gives the rank of each held-out item, among all
  unseen items (exact) or among the sampled ones;
- :func:`rank_metrics` turns ranks into per-user hit@k, rr@k and ndcg@k;
- :func:`compare_protocols` does all of it for several models;
- :func:`expected_sampled_hit` says what sampled HR@k a given full rank
  turns into on average;
- :func:`sampled_rank_distribution` and :func:`corrected_values` give
  Krichene and Rendle's corrected values for sampled ranks (their
  bias-variance estimator; ``gamma = 0`` is their "minimal bias" one).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from topkeval import rank_discount as discounts_at
from topkeval.checks import check_columns, check_k, check_ks, check_options

from .models import Recommender

__all__ = [
    "sample_negatives",
    "held_out_ranks",
    "rank_metrics",
    "compare_protocols",
    "protocol_table",
    "expected_sampled_hit",
    "expected_negatives_above",
    "rank_among",
    "sampled_rank_distribution",
    "corrected_values",
]


def _one_per_user(test: pd.DataFrame, user_col: str, item_col: str) -> None:
    check_columns(test, "test", [user_col, item_col], " (user_col=..., item_col=...)")
    if test[user_col].duplicated().any():
        user = test.loc[test[user_col].duplicated(), user_col].iloc[0]
        raise ValueError(
            f"test must hold one held-out item per user (the leave-one-out protocol); user {user!r} has "
            "several. Use helpers.leave_one_out_split to build it."
        )


def sample_negatives(
    train: pd.DataFrame,
    test: pd.DataFrame,
    n_negatives: int = 100,
    *,
    items: Sequence | None = None,
    seed: int = 0,
    user_col: str = "user",
    item_col: str = "item",
) -> pd.DataFrame:
    """Draw, for each test user, ``n_negatives`` items they never interacted with.

    Parameters
    ----------
    train, test : pandas.DataFrame
        The leave-one-out split (``test``: one row per user).
    n_negatives : int
        Negatives per user (100 in most papers that use the protocol).
    items : sequence, optional
        The catalog to draw from; default: the items of ``train`` (the ones
        a model can score).
    seed : int
        Seed of the random generator.
    user_col, item_col : str
        The names of the user and item columns of every frame.

    Returns
    -------
    pandas.DataFrame
        Columns ``user`` and ``item``, ``n_negatives`` rows per test user,
        users in sorted order, items in the order drawn.

    Notes
    -----
    Negatives are drawn uniformly **without replacement** from the catalog
    minus every item the user has in ``train`` or ``test``. A user with
    fewer than ``n_negatives`` such items raises ValueError.

    Examples
    --------
    >>> import pandas as pd
    >>> from helpers.experiments.sampled import sample_negatives
    >>> train = pd.DataFrame({"user": [1, 1, 2], "item": ["a", "b", "c"]})
    >>> test = pd.DataFrame({"user": [1, 2], "item": ["c", "a"]})
    >>> sample_negatives(train, test, n_negatives=1, seed=0)  # user 1 has touched all of a, b, c
    Traceback (most recent call last):
    ...
    ValueError: user 1 has only 0 item(s) left to sample from (catalog of 3 minus 3 of their own); \
ask for fewer negatives or pass a larger items=... catalog.
    >>> sample_negatives(train, test, n_negatives=1, items=["a", "b", "c", "d"], seed=0)
       user item
    0     1    d
    1     2    d
    """
    n_negatives = check_k(n_negatives, "n_negatives")
    check_columns(train, "train", [user_col, item_col], " (user_col=..., item_col=...)")
    _one_per_user(test, user_col, item_col)
    catalog = pd.Index(pd.unique(train[item_col]) if items is None else pd.unique(np.asarray(items)))
    catalog = catalog.sort_values()
    both = pd.concat([train[[user_col, item_col]], test[[user_col, item_col]]])
    both = both[both[user_col].isin(test[user_col])]
    codes = catalog.get_indexer(both[item_col])
    own = (
        pd.Series(codes, index=both[user_col].to_numpy()).groupby(level=0).agg(lambda c: np.unique(c[c >= 0]))
    )
    rng = np.random.default_rng(seed)
    users = np.sort(test[user_col].to_numpy())
    out = np.empty((users.size, n_negatives), dtype=np.int64)
    every = np.arange(len(catalog))
    for row, user in enumerate(users.tolist()):
        free = np.setdiff1d(every, own.get(user, np.zeros(0, dtype=np.int64)), assume_unique=True)
        if free.size < n_negatives:
            raise ValueError(
                f"user {user!r} has only {free.size} item(s) left to sample from (catalog of {len(catalog)} "
                f"minus {len(catalog) - free.size} of their own); ask for fewer negatives or pass a larger "
                "items=... catalog."
            )
        out[row] = rng.choice(free, size=n_negatives, replace=False)
    return pd.DataFrame({user_col: np.repeat(users, n_negatives), item_col: catalog[out.ravel()]})


def held_out_ranks(
    model: Recommender,
    test: pd.DataFrame,
    *,
    negatives: pd.DataFrame | None = None,
    user_col: str = "user",
    item_col: str = "item",
) -> pd.Series:
    """Rank of each user's held-out item: among all unseen items, or among sampled negatives.

    Parameters
    ----------
    model : helpers.experiments.models.Recommender
        A fitted model.
    test : pandas.DataFrame
        One held-out item per user.
    negatives : pandas.DataFrame, optional
        From :func:`sample_negatives`. Without it the rank is the **exact**
        one: among every catalog item the user has not interacted with in
        training, plus the held-out item.
    user_col, item_col : str
        The names of the user and item columns of every frame.

    Raises
    ------
    ValueError
        When ``test`` has not exactly one row per user, or ``negatives`` does not list the same
        number of items for every test user.

    Returns
    -------
    pandas.Series
        Indexed by user (sorted), name ``"rank"``, int64, 1 = best.

    Notes
    -----
    - Ties: an item with the same score as the held-out item ranks above it
      when its id sorts first, the rule ``Recommender.recommend`` uses.
      The exact rank r therefore equals the held-out item's position in
      ``model.recommend(k=r)`` whenever the held-out item is not also in
      the user's training rows.
    - A held-out item the model never saw in training scores ``-inf`` and
      ranks last: the number of candidates (n_negatives + 1 when sampled;
      the unseen catalog items + 1 when exact).

    Examples
    --------
    >>> import pandas as pd
    >>> from helpers.experiments.models import MostPopular
    >>> from helpers.experiments.sampled import held_out_ranks
    >>> train = pd.DataFrame({"user": [1, 1, 2, 2, 3], "item": ["a", "b", "a", "c", "a"]})
    >>> model = MostPopular().fit(train)   # a: 3 users, b: 1, c: 1
    >>> test = pd.DataFrame({"user": [1, 2, 3], "item": ["c", "b", "c"]})
    >>> held_out_ranks(model, test).tolist()  # user 3: b ties with c and sorts first
    [1, 1, 2]
    >>> negatives = pd.DataFrame({"user": [3], "item": ["a"]})
    >>> held_out_ranks(model, test[test.user == 3], negatives=negatives).tolist()
    [2]
    """
    _one_per_user(test, user_col, item_col)
    test = test.sort_values(user_col, kind="stable")
    users = test[user_col].to_numpy()
    rows = model.user_rows(users)
    pos_cols = model.item_columns(test[item_col])
    ranks = np.empty(users.size, dtype=np.int64)
    if negatives is not None:
        check_columns(negatives, "negatives", [user_col, item_col], " (user_col=..., item_col=...)")
        grouped = negatives.sort_values(user_col, kind="stable")
        sizes = grouped.groupby(user_col, sort=True).size()
        if not sizes.index.equals(pd.Index(users)) or sizes.nunique() != 1:
            raise ValueError(
                "negatives must list the same number of items for every test user, and only test users; "
                "build them with sample_negatives(train, test, ...)."
            )
        n_neg = int(sizes.iloc[0])
        neg_cols = model.item_columns(grouped[item_col]).reshape(users.size, n_neg)
    for start in range(0, users.size, 1024):
        block = slice(start, start + 1024)
        scores = model._block_scores(rows[block])
        pos = pos_cols[block]
        known = pos >= 0
        pos_score = np.where(known, scores[np.arange(scores.shape[0]), np.maximum(pos, 0)], -np.inf)
        if negatives is None:
            candidate = model.matrix_[rows[block]] == 0
            cand_cols = np.arange(scores.shape[1])[None, :]
            cand_scores = scores
        else:
            cand_cols = neg_cols[block]
            candidate = cand_cols >= 0
            cand_scores = np.take_along_axis(scores, np.maximum(cand_cols, 0), axis=1)
        not_self = cand_cols != pos[:, None]
        above = (cand_scores > pos_score[:, None]) | (
            (cand_scores == pos_score[:, None]) & (cand_cols < pos[:, None]) & known[:, None]
        )
        n_cand = (candidate & not_self).sum(axis=1)
        beat = (above & candidate & not_self).sum(axis=1)
        ranks[block] = np.where(known, beat + 1, n_cand + 1)
    return pd.Series(ranks, index=pd.Index(users, name=user_col), name="rank")


def rank_metrics(ranks: pd.Series, k: int | Sequence[int] = 10, *, discount: str = "log2") -> pd.DataFrame:
    """Per-user hit@k, rr@k and ndcg@k from the rank of a single relevant item.

    With one relevant item at rank r: ``hit@k = [r <= k]``,
    ``rr@k = 1/r if r <= k`` and ``ndcg@k = discount(r) if r <= k``
    (else 0), i.e. ``1/log2(r + 1)`` with the default discount: the same
    values :func:`helpers.evaluate` gives with the same ``discount``.

    Parameters
    ----------
    ranks : pandas.Series or array_like
        The held-out item's rank per user (1 = best), as :func:`held_out_ranks` returns.
    k : int or sequence of int
        One cutoff or several (three columns per cutoff).
    discount : str
        The rank discount of NDCG, as :func:`helpers.evaluate` names it (``"log2"``).

    Returns
    -------
    pandas.DataFrame
        One row per user (the index of ``ranks`` when it is a Series), columns ``hit@k``,
        ``rr@k`` and ``ndcg@k`` for each cutoff.

    Raises
    ------
    ValueError
        For a rank below 1 or NaN, a bad cutoff or an unknown discount.

    Examples
    --------
    >>> import pandas as pd
    >>> from helpers.experiments.sampled import rank_metrics
    >>> rank_metrics(pd.Series([1, 3, 20], index=["u", "v", "w"]), k=10).round(4)
       hit@10   rr@10  ndcg@10
    u     1.0  1.0000   1.0000
    v     1.0  0.3333   0.5000
    w     0.0  0.0000   0.0000
    """
    ks = check_ks(k)
    discount = check_options(discount=discount)["discount"]
    r = np.asarray(ranks, dtype=np.float64)
    if r.size and (np.isnan(r).any() or r.min() < 1):
        raise ValueError("ranks must be numbers >= 1 (1 = best); found a smaller value or NaN.")
    columns = {}
    for one in ks:
        hit = r <= one
        columns[f"hit@{one}"] = hit.astype(np.float64)
        columns[f"rr@{one}"] = np.where(hit, 1.0 / r, 0.0)
        columns[f"ndcg@{one}"] = np.where(hit, discounts_at(r, discount), 0.0)
    index = ranks.index if isinstance(ranks, pd.Series) else None
    return pd.DataFrame(columns, index=index)


def compare_protocols(
    models: Mapping[str, Recommender],
    test: pd.DataFrame,
    negatives: pd.DataFrame,
    *,
    k: int = 10,
    user_col: str = "user",
    item_col: str = "item",
) -> pd.DataFrame:
    """HR@k and NDCG@k of each model, exact and sampled, with the model order under each.

    Parameters
    ----------
    models : mapping of name -> fitted Recommender
    test : pandas.DataFrame
        One held-out item per user.
    negatives : pandas.DataFrame
        From :func:`sample_negatives` (the same negatives for every model).
    k : int
        The cutoff.
    user_col, item_col : str
        The names of the user and item columns of every frame.

    Returns
    -------
    pandas.DataFrame
        One row per model (in the mapping's order), columns
        ``hit@k exact``, ``hit@k sampled``, ``ndcg@k exact``,
        ``ndcg@k sampled`` (means over users) and ``place <metric> <protocol>``
        (1 = best model; ties share the better place).

    Examples
    --------
    >>> import pandas as pd
    >>> from helpers.experiments.models import MostPopular, RandomRecommender
    >>> from helpers.experiments.sampled import compare_protocols, sample_negatives
    >>> train = pd.DataFrame({"user": [1, 1, 2, 2, 3, 3], "item": ["a", "b", "a", "c", "a", "d"]})
    >>> test = pd.DataFrame({"user": [1, 2, 3], "item": ["c", "b", "b"]})
    >>> negatives = sample_negatives(train, test, n_negatives=1, seed=0)
    >>> models = {"pop": MostPopular().fit(train), "random": RandomRecommender(seed=1).fit(train)}
    >>> # MostPopular: each held-out item ties at 1 user with one other unseen item and sorts first
    >>> compare_protocols(models, test, negatives, k=1)[["hit@1 exact", "hit@1 sampled"]].round(3)
            hit@1 exact  hit@1 sampled
    pop           1.000          1.000
    random        0.333          0.333
    """
    k = check_k(k)
    exact = {
        name: held_out_ranks(m, test, user_col=user_col, item_col=item_col) for name, m in models.items()
    }
    sampled = {
        name: held_out_ranks(m, test, negatives=negatives, user_col=user_col, item_col=item_col)
        for name, m in models.items()
    }
    return protocol_table(exact, sampled, k=k)


def protocol_table(
    exact_ranks: Mapping[str, pd.Series], sampled_ranks: Mapping[str, pd.Series], *, k: int = 10
) -> pd.DataFrame:
    """The table of :func:`compare_protocols`, from ranks already computed with :func:`held_out_ranks`.

    Parameters
    ----------
    exact_ranks, sampled_ranks : mapping of model name -> pandas.Series
        Per-user ranks of each model, without and with sampled negatives;
        the same model names in both.
    k : int
        The cutoff.

    Returns
    -------
    pandas.DataFrame
        As :func:`compare_protocols` returns it.

    Raises
    ------
    ValueError
        When the two mappings do not name the same models in the same order.

    Examples
    --------
    >>> import pandas as pd
    >>> from helpers.experiments.sampled import protocol_table
    >>> exact = {"A": pd.Series([1, 30]), "B": pd.Series([12, 11])}
    >>> sampled = {"A": pd.Series([1, 4]), "B": pd.Series([2, 2])}
    >>> protocol_table(exact, sampled, k=10)[["hit@10 exact", "hit@10 sampled", "place hit@10 sampled"]]
       hit@10 exact  hit@10 sampled  place hit@10 sampled
    A           0.5             1.0                     1
    B           0.0             1.0                     1
    """
    k = check_k(k)
    if list(exact_ranks) != list(sampled_ranks):
        raise ValueError("exact_ranks and sampled_ranks must name the same models, in the same order.")
    rows = {}
    for name in exact_ranks:
        exact = rank_metrics(exact_ranks[name], k).mean()
        sampled = rank_metrics(sampled_ranks[name], k).mean()
        rows[name] = {
            f"hit@{k} exact": float(exact[f"hit@{k}"]),
            f"hit@{k} sampled": float(sampled[f"hit@{k}"]),
            f"ndcg@{k} exact": float(exact[f"ndcg@{k}"]),
            f"ndcg@{k} sampled": float(sampled[f"ndcg@{k}"]),
        }
    table = pd.DataFrame.from_dict(rows, orient="index")
    for column in list(table.columns):
        table[f"place {column}"] = table[column].rank(ascending=False, method="min").astype(np.int64)
    return table


def expected_sampled_hit(full_rank: int, n_candidates: int, n_negatives: int = 100, k: int = 10) -> float:
    """Probability that an item at exact rank ``full_rank`` is a sampled hit@k.

    Among the ``n_candidates - 1`` other candidates, ``full_rank - 1``
    score above the held-out item. Drawing ``n_negatives`` of them without
    replacement, the number drawn from above is hypergeometric; the item is
    a hit when fewer than ``k`` are.

    Parameters
    ----------
    full_rank : int
        Exact rank among all ``n_candidates`` (1 = best).
    n_candidates : int
        The held-out item plus every item that could be sampled as a negative.
    n_negatives, k : int

    Returns
    -------
    float

    Examples
    --------
    >>> from helpers.experiments.sampled import expected_sampled_hit
    >>> expected_sampled_hit(10, 1000)   # in the exact top 10: always a sampled hit
    1.0
    >>> round(expected_sampled_hit(100, 1000), 3)  # exact rank 100: a sampled hit almost half the time
    0.457
    """
    full_rank = check_k(full_rank, "full_rank")
    n_candidates = check_k(n_candidates, "n_candidates")
    n_negatives = check_k(n_negatives, "n_negatives")
    k = check_k(k)
    if full_rank > n_candidates:
        raise ValueError(f"full_rank ({full_rank}) cannot exceed n_candidates ({n_candidates}).")
    population = n_candidates - 1
    if n_negatives > population:
        raise ValueError(
            f"n_negatives ({n_negatives}) cannot exceed the {population} items other than the held-out one."
        )
    above = full_rank - 1
    total = math.comb(population, n_negatives)
    favourable = sum(
        math.comb(above, j) * math.comb(population - above, n_negatives - j)
        for j in range(0, min(k - 1, above) + 1)
    )
    return float(favourable / total)


def expected_negatives_above(full_rank: int, n_candidates: int, n_negatives: int = 100) -> float:
    """Expected number of sampled negatives that outscore an item at exact rank ``full_rank``.

    ``full_rank - 1`` of the ``n_candidates - 1`` other candidates score
    above the item; a uniform sample of ``n_negatives`` of them contains on
    average ``n_negatives * (full_rank - 1) / (n_candidates - 1)`` of those,
    so the expected sampled rank is one more than that.

    Parameters
    ----------
    full_rank : int
        The item's rank among all candidates (1 = best).
    n_candidates : int
        All candidates, the item included (at least 2).
    n_negatives : int
        Negatives sampled, uniformly without replacement.

    Returns
    -------
    float
        The expected count.

    Raises
    ------
    ValueError
        For ``full_rank`` above ``n_candidates`` or fewer than two candidates.

    Examples
    --------
    >>> from helpers.experiments.sampled import expected_negatives_above
    >>> round(expected_negatives_above(101, 1001, 100), 6)   # 100 of 1000 others are above: 10 %
    10.0
    """
    full_rank = check_k(full_rank, "full_rank")
    n_candidates = check_k(n_candidates, "n_candidates")
    n_negatives = check_k(n_negatives, "n_negatives")
    if full_rank > n_candidates or n_candidates < 2:
        raise ValueError(
            f"need 1 <= full_rank <= n_candidates and n_candidates >= 2; got {full_rank} and {n_candidates}."
        )
    return float(n_negatives * (full_rank - 1) / (n_candidates - 1))


def _check_sampling(n_candidates: int, n_negatives: int) -> tuple[int, int]:
    n_candidates = check_k(n_candidates, "n_candidates")
    n_negatives = check_k(n_negatives, "n_negatives")
    if n_negatives > n_candidates - 1:
        raise ValueError(
            f"n_negatives ({n_negatives}) cannot exceed the {n_candidates - 1} items other than the "
            "held-out one "
            f"(n_candidates = {n_candidates})."
        )
    return n_candidates, n_negatives


def sampled_rank_distribution(n_candidates: int, n_negatives: int = 100) -> np.ndarray:
    """``P[R - 1, r - 1]``: probability that an item at exact rank ``R`` has sampled rank ``r``.

    The sampled rank is one more than the number of the ``n_negatives``
    uniformly drawn negatives (without replacement, from the
    ``n_candidates - 1`` other candidates) that outscore the item; that number
    is hypergeometric: ``R - 1`` of the others are above it.

    Parameters
    ----------
    n_candidates : int
        The held-out item plus every item that could be sampled as a negative.
    n_negatives : int
        Negatives drawn per user.

    Returns
    -------
    numpy.ndarray
        Shape ``(n_candidates, n_negatives + 1)``; every row sums to 1.

    Examples
    --------
    >>> from helpers.experiments.sampled import sampled_rank_distribution
    >>> sampled_rank_distribution(4, 3)   # every other item drawn: the sampled rank is the exact rank
    array([[1., 0., 0., 0.],
           [0., 1., 0., 0.],
           [0., 0., 1., 0.],
           [0., 0., 0., 1.]])
    >>> sampled_rank_distribution(3, 1).round(2)   # one negative out of two
    array([[1. , 0. ],
           [0.5, 0.5],
           [0. , 1. ]])
    """
    n_candidates, n_negatives = _check_sampling(n_candidates, n_negatives)
    log_factorial = np.array([math.lgamma(i + 1.0) for i in range(n_candidates + 1)])

    def log_comb(n, j):
        ok = (j >= 0) & (j <= n)
        safe_j = np.clip(j, 0, n)
        value = log_factorial[n] - log_factorial[safe_j] - log_factorial[n - safe_j]
        return np.where(ok, value, -np.inf)

    above = np.arange(n_candidates)[:, None]  # R - 1 others outscore the item
    drawn_above = np.arange(n_negatives + 1)[None, :]  # r - 1 of them are drawn
    log_p = (
        log_comb(above, drawn_above)
        + log_comb(n_candidates - 1 - above, n_negatives - drawn_above)
        - (
            log_factorial[n_candidates - 1]
            - log_factorial[n_negatives]
            - log_factorial[n_candidates - 1 - n_negatives]
        )
    )
    return np.exp(log_p)


def corrected_values(
    n_candidates: int,
    n_negatives: int = 100,
    k: int = 10,
    metric: str = "hit",
    *,
    gamma: float = 0.1,
) -> np.ndarray:
    """Krichene and Rendle's corrected values for sampled ranks (their bias-variance estimator).

    A sampled metric scores sampled rank ``r`` with the metric's own value at
    ``r``, which overstates it: a sampled hit@10 needs only a moderate exact
    rank. The correction scores it with ``v[r - 1]`` instead, chosen so that
    for every exact rank ``R`` the expected value over the sampling,
    ``E_R = sum_r P[R-1, r-1] v[r-1]``, is close to the metric ``M(R)``, while
    the spread over the sampling stays small. With ``g = gamma``,
    ``v`` minimises ``sum_R (E_R - M(R))**2 + g * Var_R`` (Krichene and Rendle,
    KDD 2020, section 4: ``g = 0`` is their minimal-bias estimator, of high
    variance in practice; ``g = 1`` is the posterior mean of ``M(R)`` given ``r`` under a
    uniform prior on ``R``). The minimiser solves
    ``((1 - g) P'P + g diag(P'1)) v = P'M``.

    Parameters
    ----------
    n_candidates, n_negatives : int
        As in :func:`sampled_rank_distribution`.
    k : int
        The metric's cutoff.
    metric : {"hit", "rr", "ndcg"}
        As in :func:`rank_metrics`.
    gamma : float
        ``g`` in [0, 1]; the default 0.1 keeps the values moderate (a choice
        of this module, not a value from the paper).

    Returns
    -------
    numpy.ndarray
        ``v``, of length ``n_negatives + 1``: ``v[r - 1]`` is the corrected
        value of sampled rank ``r``. The values are not probabilities; some
        fall outside [0, 1]. The corrected metric of a run is the mean of
        ``v[sampled_rank - 1]`` over its users.

    Examples
    --------
    >>> from helpers.experiments.sampled import corrected_values
    >>> corrected_values(4, 3, k=2).round(6)   # every other item drawn: no sampling, the metric itself
    array([1., 1., 0., 0.])
    >>> v = corrected_values(1000, 100, k=10)
    >>> # sampled rank 1 counts a little more than a hit, rank 2 far less
    >>> float(v[0]) > 1 > 0.5 > float(v[1])
    True
    """
    if metric not in ("hit", "rr", "ndcg"):
        raise ValueError(f"metric must be 'hit', 'rr' or 'ndcg'; got {metric!r}.")
    g = gamma
    if isinstance(g, bool) or not isinstance(g, (int, float)) or not 0 <= g <= 1:
        raise ValueError(f"gamma must be a number in [0, 1]; got {gamma!r}.")
    k = check_k(k)
    distribution = sampled_rank_distribution(n_candidates, n_negatives)
    exact = rank_metrics(pd.Series(np.arange(1, n_candidates + 1)), k)[f"{metric}@{k}"].to_numpy()
    if g == 0:
        return np.linalg.lstsq(distribution, exact, rcond=None)[0]
    system = (1 - g) * distribution.T @ distribution + g * np.diag(distribution.sum(axis=0))
    return np.linalg.solve(system, distribution.T @ exact)


def rank_among(positive_score: float, candidate_scores) -> int:
    """Rank of a held-out item among candidates: 1 + how many score strictly higher.

    The tie-free core of :func:`held_out_ranks` (which also breaks exact
    ties by item id); here a tie goes to the held-out item.

    Parameters
    ----------
    positive_score : float
        The held-out item's score.
    candidate_scores : array_like of float
        The other candidates' scores (sampled negatives, or every unseen item).

    Returns
    -------
    int
        The rank, 1 when no candidate scores higher.

    Examples
    --------
    >>> from helpers.experiments.sampled import rank_among
    >>> rank_among(0.7, [0.9, 0.1, 0.75, 0.3])
    3
    """
    scores = np.asarray(candidate_scores, dtype=np.float64)
    return int(1 + np.count_nonzero(scores > float(positive_score)))
