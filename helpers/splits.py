"""Train/test splits of an interaction log."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._validation import check_columns

__all__ = ["leave_one_out_split"]


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
        be the ``truth`` of :func:`helpers.evaluate`; ``train`` holds the
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
    RR@k and NDCG@k = 1/log2(r + 1): see ``notebooks/06-leave-one-out.ipynb``.

    Examples
    --------
    >>> import pandas as pd
    >>> from helpers import leave_one_out_split
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
    check_columns(interactions, "interactions", [user_col, item_col, time_col], " (user_col=..., item_col=..., time_col=...)")
    times = interactions[time_col]
    if times.isna().any():
        raise ValueError(f"interactions' {time_col!r} column has missing values; drop or fill those rows first.")
    sizes = interactions.groupby(user_col, sort=False)[item_col].transform("size")
    single = interactions.loc[sizes.to_numpy() < 2, user_col]
    if len(single):
        shown = ", ".join(repr(u) for u in single.iloc[:3])
        raise ValueError(
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
