"""Array inputs of the beyond-accuracy batch functions (``topkeval.beyond``).

The batch functions there take the list matrix of :func:`topkeval.evaluate_arrays`:
an integer (users x K) matrix of recommended item ids (negative = empty slot).
This module checks it and cuts it at k.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._validation import InvalidInputError, check_k, check_top_items

__all__ = ["top_matrix", "cut"]


def top_matrix(top_items: Any, *, check_duplicates: bool = True) -> np.ndarray:
    """Return ``top_items`` as a 2-D int64 array, or raise (the same checks and words as evaluate_arrays).

    >>> top_matrix([[3, 1], [2, -1]]).dtype
    dtype('int64')
    """
    return check_top_items(top_items, duplicates=check_duplicates)


def cut(top: np.ndarray, k: Any) -> tuple[np.ndarray, int]:
    """The first ``k`` columns (all of them when k is None) and the cutoff."""
    if k is None:
        if top.shape[1] == 0:
            raise InvalidInputError("top_items has no columns, so there is no default cutoff; pass k=...")
        k = top.shape[1]
    k = check_k(k)
    return top[:, :k], k
