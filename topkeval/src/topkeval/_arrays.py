"""Array inputs of the beyond-accuracy batch functions (``topkeval.beyond``).

The batch functions there take the list matrix of :func:`topkeval.evaluate_arrays`:
an integer (users x K) matrix of recommended item ids (negative = empty slot).
This module checks it and cuts it at k.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._validation import check_k

__all__ = ["top_matrix", "cut"]


def top_matrix(top_items: Any, *, check_duplicates: bool = True) -> np.ndarray:
    """Return ``top_items`` as a 2-D int64 array, or raise.

    >>> top_matrix([[3, 1], [2, -1]]).dtype
    dtype('int64')
    """
    top = np.asarray(top_items)
    if top.ndim != 2:
        raise ValueError(
            f"top_items must be a 2-D (users x K) array of item ids, best first; got shape {top.shape}."
        )
    if top.size and not np.issubdtype(top.dtype, np.integer):
        raise TypeError(
            "top_items must hold integer item ids (0..n_items-1, negative = empty slot); "
            f"got dtype {top.dtype}."
        )
    top = top.astype(np.int64, copy=False)
    if check_duplicates and top.shape[1] > 1:
        ordered = np.sort(top, axis=1)
        repeated = (ordered[:, 1:] == ordered[:, :-1]) & (ordered[:, 1:] >= 0)
        if repeated.any():
            row = int(np.flatnonzero(repeated.any(axis=1))[0])
            item = int(ordered[row, 1:][repeated[row]][0])
            raise ValueError(
                f"row {row} of top_items lists item {item} twice; a ranking shows each item once."
            )
    return top


def cut(top: np.ndarray, k: Any) -> tuple[np.ndarray, int]:
    """The first ``k`` columns (all of them when k is None) and the cutoff."""
    if k is None:
        if top.shape[1] == 0:
            raise ValueError("top_items has no columns, so there is no default cutoff; pass k=...")
        k = top.shape[1]
    k = check_k(k)
    return top[:, :k], k
