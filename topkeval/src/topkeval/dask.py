"""Every metric on Dask DataFrames: :func:`topkeval.evaluate` on each partition of users.

Install with ``pip install "topkeval[dask]"``. Importing :mod:`topkeval`
never imports Dask; this module does, when :func:`evaluate` is called.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

import topkeval
from topkeval._validation import (
    Cutoffs,
    Flag,
    InputTypeError,
    Integer,
    InvalidInputError,
    Maybe,
    validate_params,
)

__all__ = ["evaluate"]


def _score(recs: pd.DataFrame, truth: pd.DataFrame, k, options: dict) -> pd.DataFrame:
    return topkeval.evaluate(recs, truth, k, **options)


@validate_params(
    {
        "k": Cutoffs(),
        "partitioned_by_user": Flag(),
        "npartitions": Maybe(Integer(1, " (partitions after the shuffle)")),
    }
)
def evaluate(
    recommendations,
    truth,
    k: int | Sequence[int],
    *,
    partitioned_by_user: bool = False,
    npartitions: int | None = None,
    **options,
):
    """Score every user on Dask: one row per user (the index), one column per metric.

    Parameters
    ----------
    recommendations, truth : dask.dataframe.DataFrame
        The columns of :func:`topkeval.evaluate`.
    k : int or list of int
        Cutoff(s).
    partitioned_by_user : bool
        True when partition i of both frames already holds all rows, and
        only the rows, of the same users (e.g. both written by user hash):
        no shuffle. Default False: both are shuffled on the user column
        into ``npartitions`` partitions.
    npartitions : int, optional
        Partitions after the shuffle; default the larger count of the two frames.
    **options
        Every keyword of :func:`topkeval.evaluate` (metrics, denominator,
        gain, ideal, discount, empty, ties, column names), checked by it.

    Returns
    -------
    dask.dataframe.DataFrame
        Partition by partition, what :func:`topkeval.evaluate` returns on
        those users; ``.mean().compute()`` gives the means over users.
        ``empty="raise"`` raises when the partition holding such a user is
        computed; ``empty="skip"`` leaves them out (Dask frames keep no
        ``attrs``: compare the user counts to find them).

    Examples
    --------
    >>> import dask.dataframe as dd
    >>> import pandas as pd
    >>> recs = pd.DataFrame({"user": [1, 1, 2], "item": ["a", "b", "a"], "rank": [1, 2, 1]})
    >>> truth = pd.DataFrame({"user": [1, 2], "item": ["b", "a"]})
    >>> per_user = evaluate(dd.from_pandas(recs, npartitions=1), dd.from_pandas(truth, npartitions=1), k=2)
    >>> per_user.compute().sort_index()["ndcg@2"].round(4).tolist()
    [0.6309, 1.0]
    """
    import dask.dataframe as dd

    for frame, name in ((recommendations, "recommendations"), (truth, "truth")):
        if not isinstance(frame, dd.DataFrame):
            raise InputTypeError(
                f"{name} must be a dask DataFrame; got {type(frame).__name__}. "
                "For pandas DataFrames use topkeval.evaluate."
            )
    empty = {c: pd.Series([], dtype=d) for c, d in recommendations.dtypes.items()}
    meta = topkeval.evaluate(pd.DataFrame(empty), truth._meta, k, **options)  # checks every option
    relevance = options.get("relevance_col", "relevance")
    if options.get("max_grade") is None and "err_max_grade" in meta.attrs and relevance in truth.columns:
        # ERR's g_max is the scale's top, one for every partition: the whole truth's largest grade
        options = {**options, "max_grade": max(1.0, float(truth[relevance].max().compute()))}
    user = options.get("user_col", "user")
    if not partitioned_by_user:
        n = npartitions or max(recommendations.npartitions, truth.npartitions)
        recommendations = recommendations.shuffle(on=user, npartitions=n)
        truth = truth.shuffle(on=user, npartitions=n)
    elif recommendations.npartitions != truth.npartitions:
        raise InvalidInputError(
            f"partitioned_by_user=True needs as many partitions in both frames; got "
            f"{recommendations.npartitions} and {truth.npartitions}."
        )
    return dd.map_partitions(
        _score, recommendations, truth, k, options, meta=meta, align_dataframes=False, enforce_metadata=False
    )
