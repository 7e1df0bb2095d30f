"""Train/test splits of an interaction log."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ._validation import (
    InvalidInputError,
    Maybe,
    OneOf,
    Real,
    check_columns,
    column_constraints,
    validate_params,
)

__all__ = ["leave_one_out_split"]


@validate_params(column_constraints("user_col", "item_col", "time_col"))
def leave_one_out_split(
    interactions: pd.DataFrame,
    *,
    user_col: str = "user",
    item_col: str = "item",
    time_col: str = "timestamp",
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Hold out each user's last interaction: the leave-one-out protocol.

    Parameters
    ----------
    interactions : pandas.DataFrame
        One row per interaction, with columns ``user``, ``item`` and
        ``timestamp`` (any sortable type: numbers or datetimes).
    user_col, item_col, time_col : str
        Column names, if yours differ.

    Returns
    -------
    train, test : pandas.DataFrame
        ``test`` holds exactly one row per user (the held-out item), ready to
        be the ``truth`` of :func:`topkeval.evaluate`; ``train`` holds the
        rest. Both keep the input's columns and index labels.

    Raises
    ------
    ValueError
        If a column is missing, a timestamp is missing, or a user has a
        single interaction.

    Notes
    -----
    Decisions, each tested:

    - The held-out row is the one with the latest timestamp. Ties on the
      timestamp go to the row that comes **last in the input** (logs are
      appended in time order), so the split is deterministic.
    - A user with a single interaction would have nothing to train on;
      rather than drop such users silently, the function raises and names
      them. Filter them first, e.g.
      ``df[df.groupby("user")["item"].transform("size") > 1]``.
    - Repeated (user, item) interactions are kept as they are: if the held-out
      item also occurs earlier, it stays in ``train`` too, as in a real log.
      Remove repeats first if the model must not see the test item.

    With one held-out item per user, recall@k equals hit@k, AP@k equals
    RR@k and NDCG@k = 1/log2(r + 1).

    Examples
    --------
    >>> import pandas as pd
    >>> from topkeval import leave_one_out_split
    >>> log = pd.DataFrame({"user": ["u", "u", "u", "v", "v"],
    ...                     "item": ["a", "b", "c", "a", "d"],
    ...                     "timestamp": [1, 3, 2, 5, 5]})
    >>> train, test = leave_one_out_split(log)
    >>> test
      user item  timestamp
    1    u    b          3
    4    v    d          5
    >>> sorted(train.index)
    [0, 2, 3]
    """
    check_columns(
        interactions,
        "interactions",
        [user_col, item_col, time_col],
        " (user_col=..., item_col=..., time_col=...)",
    )
    times = interactions[time_col]
    if times.isna().any():
        raise InvalidInputError(
            f"interactions' {time_col!r} column has missing values; drop or fill those rows first."
        )
    sizes = interactions.groupby(user_col, sort=False)[item_col].transform("size")
    single = interactions.loc[sizes.to_numpy() < 2, user_col]
    if len(single):
        shown = ", ".join(repr(u) for u in single.iloc[:3])
        raise InvalidInputError(
            f"{len(single)} user(s) have a single interaction (e.g. {shown}); leave-one-out would leave "
            "them nothing to train on. Filter them first, e.g. "
            "df[df.groupby(user)[item].transform('size') > 1]."
        )
    row = np.arange(len(interactions))
    ordered = interactions.assign(_row=row).sort_values([user_col, time_col, "_row"], kind="stable")
    last = ~ordered[user_col].duplicated(keep="last").to_numpy()
    held = np.zeros(len(interactions), dtype=bool)
    held[ordered["_row"].to_numpy()[last]] = True
    return interactions.loc[~held], interactions.loc[held]


@validate_params(
    {
        "test_fraction": Maybe(
            Real(0, 1, low_open=True, high_open=True, meaning=" (the share of rows, by time)")
        ),
        "cold": OneOf("cold", ("drop", "keep")),
        **column_constraints("user_col", "item_col", "time_col"),
    }
)
def temporal_split(
    interactions: pd.DataFrame,
    *,
    test_fraction: float | None = None,
    cutoff=None,
    cold: str = "drop",
    user_col: str = "user",
    item_col: str = "item",
    time_col: str = "timestamp",
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split a log at one global point in time: the past trains, the future tests.

    Parameters
    ----------
    interactions : pandas.DataFrame
        One row per interaction, with columns ``user``, ``item`` and
        ``timestamp`` (numbers or datetimes).
    test_fraction : float, optional
        Share of the rows (0 < f < 1) that should fall after the cutoff; the
        cutoff is then the timestamp of the first test row in time order.
    cutoff : optional
        The cutoff time itself (same type as the timestamps). Give exactly
        one of ``test_fraction`` and ``cutoff``.
    cold : {"drop", "keep"}
        What to do with test rows whose user or item never occurs in
        ``train`` (see Notes).
    user_col, item_col, time_col : str
        Column names, if yours differ.

    Returns
    -------
    train, test : pandas.DataFrame
        ``train`` holds the rows with ``timestamp < cutoff`` and ``test``
        those with ``timestamp >= cutoff`` (minus cold rows if
        ``cold="drop"``). Both keep the input's columns and index labels.
        ``test.attrs["cutoff"]`` records the cutoff and
        ``test.attrs["n_cold_dropped"]`` how many rows were dropped.

    Raises
    ------
    ValueError
        If both or neither of ``test_fraction`` and ``cutoff`` are given,
        the fraction is outside (0, 1), a column or timestamp is missing, or
        one side of the split is empty.

    Notes
    -----
    Decisions, each tested:

    - Rows whose timestamp equals the cutoff go to ``test``, so no row
      shares a timestamp across the two sides' boundary in the wrong
      direction. With ``test_fraction`` the test share can therefore be a
      little larger than asked when timestamps tie at the cutoff.
    - ``cold="drop"`` (default) removes test rows of users who have no
      training row (no history to personalise from) and of items that never
      occur in training (no model can recommend an item it has never seen).
      ``cold="keep"`` keeps them; then count on every model missing them.
    - Unlike :func:`leave_one_out_split`, a user can have several test rows
      (everything they did after the cutoff) and many users have none.

    Examples
    --------
    >>> import pandas as pd
    >>> from topkeval.splits import temporal_split
    >>> log = pd.DataFrame({"user": ["u", "u", "v", "v", "w"],
    ...                     "item": ["a", "b", "b", "c", "a"],
    ...                     "timestamp": [1, 4, 2, 5, 6]})
    >>> train, test = temporal_split(log, cutoff=4)
    >>> test  # c is new at time 5 and w has no history: both dropped
      user item  timestamp
    1    u    b          4
    >>> test.attrs["n_cold_dropped"]
    2
    >>> train, test = temporal_split(log, test_fraction=0.4, cold="keep")
    >>> test.attrs["cutoff"], len(test)
    (5, 2)
    """
    check_columns(
        interactions,
        "interactions",
        [user_col, item_col, time_col],
        " (user_col=..., item_col=..., time_col=...)",
    )
    if (test_fraction is None) == (cutoff is None):
        raise InvalidInputError(
            "give exactly one of test_fraction (e.g. test_fraction=0.2: the last 20% of rows in time) "
            "and cutoff (a timestamp: rows at or after it are test)."
        )
    times = interactions[time_col]
    if times.isna().any():
        raise InvalidInputError(
            f"interactions' {time_col!r} column has missing values; drop or fill those rows first."
        )
    if len(interactions) < 2:
        raise InvalidInputError(f"a temporal split needs at least 2 interactions; got {len(interactions)}.")
    if test_fraction is not None:
        cutoff = _fraction_cutoff(times, test_fraction)
    is_test = (times >= cutoff).to_numpy()
    train, test = interactions.loc[~is_test], interactions.loc[is_test]
    if len(train) == 0 or len(test) == 0:
        side = "train" if len(train) == 0 else "test"
        raise InvalidInputError(
            f"the cutoff {cutoff!r} leaves {side} empty (timestamps run from {times.min()!r} to "
            f"{times.max()!r}); choose a cutoff inside that range."
        )
    n_dropped = 0
    if cold == "drop":
        warm = test[user_col].isin(train[user_col].unique()) & test[item_col].isin(train[item_col].unique())
        n_dropped = int((~warm).sum())
        test = test.loc[warm.to_numpy()]
    test = test.copy()
    test.attrs.update(cutoff=cutoff, n_cold_dropped=n_dropped)
    return train, test


__all__.append("temporal_split")


def _fraction_cutoff(times: pd.Series, test_fraction: Any) -> Any:
    """The timestamp at which the last ``test_fraction`` of the rows start
    (a builtin or a pandas Timestamp)."""
    ordered = np.sort(times.to_numpy(), kind="stable")
    n_test = max(1, int(round(float(test_fraction) * len(ordered))))
    cutoff = ordered[len(ordered) - n_test]
    if isinstance(cutoff, np.datetime64):
        return pd.Timestamp(cutoff)
    return cutoff.item() if isinstance(cutoff, np.generic) else cutoff
