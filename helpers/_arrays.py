"""Array inputs shared by the batch kernels of ``helpers.user_models`` and ``helpers.beyond``.

The batch functions there take the same inputs as :func:`helpers.evaluate_arrays`:
an integer (users x K) matrix of recommended item ids (negative = empty slot)
and, where relevance matters, the relevant items in CSR form. This module
checks those inputs and turns CSR relevance into a (users x K) grade matrix.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._validation import check_k

__all__ = ["top_matrix", "csr_relevance", "grade_matrix", "cut"]


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
            f"top_items must hold integer item ids (0..n_items-1, negative = empty slot); got dtype {top.dtype}."
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


def csr_relevance(indptr: Any, items: Any, grades: Any, n_users: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Checked CSR relevance: (indptr, items, grades); grades default to 1.

    >>> csr_relevance([0, 1, 1], [4], None, 2)[2]
    array([1.])
    """
    indptr = np.asarray(indptr)
    items = np.asarray(items)
    for name, array in (("relevant_indptr", indptr), ("relevant_items", items)):
        if array.ndim != 1:
            raise ValueError(f"{name} must be a 1-D array; got shape {array.shape}.")
        if array.size and not np.issubdtype(array.dtype, np.integer):
            raise TypeError(f"{name} must hold integers; got dtype {array.dtype}.")
    indptr, items = indptr.astype(np.int64), items.astype(np.int64)
    if indptr.shape[0] != n_users + 1:
        raise ValueError(
            f"relevant_indptr must have n_users + 1 = {n_users + 1} entries (one row per row of "
            f"top_items, CSR style); got {indptr.shape[0]}."
        )
    if indptr[0] != 0 or indptr[-1] != items.shape[0] or np.any(np.diff(indptr) < 0):
        raise ValueError(
            "relevant_indptr must start at 0, never decrease and end at len(relevant_items) "
            f"= {items.shape[0]}."
        )
    if items.size and items.min() < 0:
        raise ValueError(f"relevant_items must be item ids >= 0; the smallest is {items.min()}.")
    if grades is None:
        grades = np.ones(items.shape[0])
    grades = np.asarray(grades, dtype=np.float64)
    if grades.shape != items.shape:
        raise ValueError(
            f"relevant_grades must have one grade per relevant item ({items.shape[0]}); got shape {grades.shape}."
        )
    if not np.all(np.isfinite(grades)) or (grades.size and grades.min() < 0):
        raise ValueError("relevance grades must be finite numbers >= 0 (0 means judged not relevant).")
    return indptr, items, grades


def grade_matrix(top: np.ndarray, indptr: np.ndarray, items: np.ndarray, grades: np.ndarray) -> np.ndarray:
    """The grade of every cell of ``top`` (0 for empty slots and unjudged items).

    One sorted search over (user, item) keys; no loop over users.

    >>> top = np.array([[3, 1], [2, -1]])
    >>> grade_matrix(top, np.array([0, 1, 2]), np.array([1, 2]), np.array([2.0, 1.0]))
    array([[0., 2.],
           [1., 0.]])
    """
    n_users = top.shape[0]
    owner = np.repeat(np.arange(n_users, dtype=np.int64), np.diff(indptr))
    width = int(max(top.max(initial=-1), items.max(initial=-1))) + 1
    keys = owner * width + items
    order = np.argsort(keys, kind="stable")
    keys, sorted_grades = keys[order], grades[order]
    if keys.size > 1 and np.any(keys[1:] == keys[:-1]):
        at = int(np.flatnonzero(keys[1:] == keys[:-1])[0])
        raise ValueError(
            f"user {int(keys[at] // width)} lists relevant item {int(keys[at] % width)} twice in relevant_items."
        )
    cells = np.arange(n_users, dtype=np.int64)[:, None] * width + np.maximum(top, 0)
    found = np.searchsorted(keys, cells)
    found = np.minimum(found, max(keys.size - 1, 0))
    hit = (keys.size > 0) & (top >= 0)
    if keys.size:
        hit = hit & (keys[found] == cells)
    out = np.zeros(top.shape, dtype=np.float64)
    if keys.size:
        out[hit] = sorted_grades[found[hit]]
    return out
