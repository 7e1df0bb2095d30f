"""Each user's top of a list given by scores, without one global sort of every row.

:func:`topkeval.evaluate` used to order ``(user, item, score)`` rows with one
``np.lexsort`` over (user, score, tie-break): a comparison sort of all rows
with three keys. Real inputs have structure that makes most of that work
unnecessary:

* **rows grouped by user** (every recommender writes a user's list in one
  piece): each user's rows are a contiguous run, so only the rows *within*
  a run need ordering;
* **the same number of rows per user** (a top-N for everyone): the runs
  form an (n_users, N) matrix, and a row-wise sort of that matrix (or, when
  k is much smaller than N, a row-wise partition then a sort of the first
  k + 1) replaces the global sort;
* **shuffled rows**: a counting sort of the dense user codes (pandas'
  Cython ``groupsort_indexer``: count the rows per user, then place them)
  groups the rows by user while keeping each user's rows in input order;
  then the grouped path applies. Where pandas lacks that routine, one value
  sort of ``user_code << b | row_index`` does the same, five times slower.

Users of different list lengths are processed in blocks of similar
length, padded with NaN keys (which sort last). Nothing here holds more
than one extra copy of the rows: blocks of about a million rows at a time.

Tie rules are kept exactly (:data:`topkeval._registry.BATCH_OPTIONS`'s
``ties``): a fast unstable sort orders every row; the rows where two equal
keys meet within the first ``width + 1`` positions (the only rows whose
top ``width`` depends on the tie rule) are sorted again with the rule's
tie-break (item code up or down, or the input order). For ``ties="raise"``
a tie within the top ``kmax`` returns None, and the caller's general path
raises its usual error.
"""

from __future__ import annotations

from concurrent.futures import Executor

import numpy as np

from ._encoding import submit

_BLOCK_ROWS = 1 << 20  # rows ordered per block: bounds the temporaries (key, index, items) to ~24 MiB
_GROUP_ROWS = 1 << 22  # rows placed per slice by the counting sort: its temporaries stay ~130 MiB


class _Groups:
    """Where each user's rows are: group g is rows ``pick[start[g]:start[g] + length[g]]``."""

    def __init__(self, pick: np.ndarray | None, start: np.ndarray, length: np.ndarray, user: np.ndarray):
        self.pick, self.start, self.length, self.user = pick, start, length, user  # pick None: identity


def _grouped(run_users: np.ndarray, heads: np.ndarray, grouped: bool, n_users: int) -> _Groups:
    """Groups of rows for users: the runs themselves when each user is one run, else a grouping sort."""
    n = heads.size
    if grouped:
        start = np.flatnonzero(heads)
        return _Groups(None, start, np.diff(np.append(start, n)), run_users)
    if run_users.size == n:  # every row starts a run (shuffled rows): the run codes are the row codes
        codes = run_users
    else:
        codes = np.repeat(run_users, np.diff(np.append(np.flatnonzero(heads), n)))
    counts = np.bincount(codes, minlength=n_users)
    pick = _counting_order(codes, counts)
    if pick is None:
        pick = _sorting_order(codes)
    user = np.flatnonzero(counts)
    length = counts[user]
    return _Groups(pick, np.cumsum(length) - length, length, user)


def _counting_order(codes: np.ndarray, counts: np.ndarray) -> np.ndarray | None:
    """Row indices grouped by user code, each user's rows in input order, by a counting sort (no
    comparisons); ``counts`` holds the rows of each code. None when this pandas lacks the routine it
    uses.

    The rows are placed a slice at a time: pandas' ``groupsort_indexer`` (the Cython counting sort its
    groupby uses) groups one slice, and the slice's rows of user u go to the next free places of u's
    range. So the only full-length array is the answer (int32 below 2^31 rows), not int64 copies of
    the codes and of the order: 10^8 rows take 1.5 GB less at the peak, for about a second more.
    """
    try:
        from pandas._libs.algos import groupsort_indexer
    except ImportError:  # a private routine: kept optional, the value sort is the fallback
        return None
    n_users = counts.size
    free = np.cumsum(counts) - counts  # the next free place in each user's range
    pick = np.empty(codes.size, dtype=np.int32 if codes.size < 2**31 else np.int64)
    for s0 in range(0, codes.size, _GROUP_ROWS):
        part = codes[s0 : s0 + _GROUP_ROWS].astype(np.intp)
        order, found = groupsort_indexer(part, n_users)  # found[0]: rows of code -1 (none here)
        found = found[1:]
        users = part[order]
        shift = free - (np.cumsum(found) - found)  # where the slice's range of u starts, to u's place
        position = np.arange(users.size, dtype=np.int64)
        position += shift[users]
        order += s0
        pick[position] = order
        free += found
    return pick


def _sorting_order(codes: np.ndarray) -> np.ndarray:
    """:func:`_counting_order` by one value sort of ``user code << b | row index`` (SIMD-sorted int64;
    the row index in the low bits makes it stable)."""
    n = codes.size
    shift = max(1, int(n - 1).bit_length())
    packed = codes.astype(np.int64)
    packed <<= shift
    for s0 in range(0, n, _BLOCK_ROWS):  # in blocks: no full-length temporary
        packed[s0 : s0 + _BLOCK_ROWS] |= np.arange(s0, min(n, s0 + _BLOCK_ROWS), dtype=np.int64)
    packed.sort()
    packed &= (1 << shift) - 1
    return packed


def _in_order(key: np.ndarray) -> np.ndarray:
    """Which rows of ``key`` (nb x n) are already smallest first (NaN padding, always at the end, too)."""
    if key.shape[1] < 2:
        return np.ones(key.shape[0], dtype=bool)
    rising = key[:, 1:] >= key[:, :-1]
    rising |= np.isnan(key[:, 1:])
    return np.asarray(rising.all(axis=1))


def _order_rows(key: np.ndarray, head: int, ties: str) -> tuple[np.ndarray, np.ndarray]:
    """The first ``head`` columns of every row of ``key`` in order (stable for ``input_order`` and
    ``raise``: equal keys keep their order), and their keys. Rows with a tie are redone by the caller,
    except under ``raise``."""
    n = key.shape[1]
    stable = ties in ("input_order", "raise")
    if ties != "raise" and n >= 4 * head:  # k much smaller than the list: partition, then sort the head
        part = np.argpartition(key, head - 1, axis=1)[:, :head]
        sub = np.take_along_axis(key, part, axis=1)
        inner = np.argsort(sub, axis=1)
        return np.take_along_axis(part, inner, axis=1), np.take_along_axis(sub, inner, axis=1)
    order = np.argsort(key, axis=1, kind="stable" if stable else None)[:, :head]
    return order, np.take_along_axis(key, order, axis=1)


def _first_order(key: np.ndarray, head: int, ties: str) -> tuple[np.ndarray | None, np.ndarray]:
    """The first ``head`` columns of each row of ``key`` in order (None: every row is in order already),
    and their keys. Only the rows out of order are sorted."""
    in_order = _in_order(key)
    if in_order.all():  # the identity is the stable order of every row
        return None, key[:, :head]
    if not in_order.any():
        return _order_rows(key, head, ties)
    order = np.empty((key.shape[0], head), dtype=np.intp)
    order[in_order] = np.arange(head)
    ranked = key[:, :head].copy()
    todo = np.flatnonzero(~in_order)
    order[todo], ranked[todo] = _order_rows(key[todo], head, ties)
    return order, ranked


def _sorted_block(
    key: np.ndarray, items: np.ndarray, width: int, ties: str, kmax: int
) -> np.ndarray | slice | None:
    """Column order of the first ``width`` entries of every row of ``key`` (nb x n), by the tie rule.

    Rows already in order (a recommender usually writes its lists best first) are not sorted; when
    every row is in order and no tie needs breaking, the order is ``slice(0, width)``. Returns None
    when ``ties == "raise"`` and some row ties within its top ``kmax``.
    """
    n = key.shape[1]
    head = min(width + 1, n)  # the top width is settled when no two equal keys meet in the first width+1
    order, ranked = _first_order(key, head, ties)
    tied = ranked[:, 1:] == ranked[:, :-1]
    if ties == "raise":
        if tied[:, : max(0, min(kmax, n) - 1)].any():
            return None
        return slice(0, width) if order is None else order[:, :width]  # stable beyond kmax
    redo = np.flatnonzero(tied.any(axis=1))
    if order is None and not redo.size:
        return slice(0, width)
    out = np.empty((key.shape[0], width), dtype=np.intp)
    out[:] = np.arange(width) if order is None else order[:, :width]
    if redo.size:
        rows = key[redo]
        if ties == "input_order":
            fixed = np.argsort(rows, axis=1, kind="stable")
        else:
            breaker = items[redo].astype(np.int64)
            fixed = np.lexsort((breaker if ties == "item_ascending" else -breaker, rows), axis=1)
        out[redo] = fixed[:, :width]
    return out


def _block_rows(groups: _Groups, members: np.ndarray | slice, longest: int) -> tuple[np.ndarray, np.ndarray]:
    """Row indices (nb x longest) of the groups in ``members``, and which of them are real (not padding)."""
    start, length = groups.start[members], groups.length[members]
    column = np.arange(longest)
    valid = column < length[:, None]
    index = np.where(valid, start[:, None] + column, 0)
    if groups.pick is not None:
        index = groups.pick[index]
    return index, valid


def _block(
    groups: _Groups, key: np.ndarray, items: np.ndarray, bounds: tuple[int, int], members: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """Sort keys (minus the scores) and items (nb x longest) of groups ``bounds[0]:bounds[1]``;
    ``members``, when the groups were reordered by length, says which groups those are (their rows then
    padded: key NaN, item -1)."""
    g0, g1 = bounds
    if members is None:  # equal lengths: the block's rows are consecutive (in place, or in pick order)
        size = int(groups.length[g0]) if g1 > g0 else 0
        rows = slice(int(groups.start[g0]), int(groups.start[g0]) + (g1 - g0) * size)
        index = rows if groups.pick is None else groups.pick[rows]  # a reshape, no copy, when in place
        return np.negative(key[index]).reshape(-1, size), items[index].reshape(-1, size)
    size = int(groups.length[members].max(initial=0))
    where, valid = _block_rows(groups, members, size)
    block_key = np.where(valid, np.negative(key[where]), np.nan)  # NaN (never a real key) sorts last
    return block_key, np.where(valid, items[where], -1)


def _blocks(length: np.ndarray) -> tuple[np.ndarray | None, list[tuple[int, int]]]:
    """Groups in an order where neighbours have similar lengths (None: as they are), cut into blocks."""
    equal = length.size == 0 or bool(np.all(length == length[0]))
    order = None if equal else np.argsort(length, kind="stable")
    sizes = length if order is None else length[order]
    bounds, g0, total = [], 0, sizes.size
    while g0 < total:
        nb = max(1, _BLOCK_ROWS // max(1, int(sizes[g0])))
        while nb > 1 and nb * int(sizes[min(total, g0 + nb) - 1]) > 2 * _BLOCK_ROWS:
            nb //= 2
        bounds.append((g0, min(total, g0 + nb)))
        g0 += nb
    return order, bounds


def top_by_score(
    key: np.ndarray,
    items: np.ndarray,
    run_users: np.ndarray,
    heads: np.ndarray,
    grouped: bool,
    n_users: int,
    kmax: int,
    ideal: str,
    ties: str,
    executor: Executor | None = None,
) -> tuple[np.ndarray, np.ndarray, bool] | None:
    """The (users x width) list matrix of item codes ordered by score (largest first), -1 for empty slots.

    ``key`` is the score per row (negated block by block: no copy of every
    row), ``items`` the item codes (sorted like
    the ids, so the item tie rules compare codes), ``run_users`` the user code
    of each run of rows (a run starts at each True of ``heads``);
    ``grouped`` says that each user is one run. Returns the matrix, each
    user's list length, and whether the matrix rows are in run order (True
    only when every user is one run of the same length and the runs are not
    in user order); None when ``ties="raise"`` finds a tie (the caller's
    general path then raises its error).
    """
    groups = _grouped(run_users, heads, grouped, n_users)
    list_length = np.zeros(n_users, dtype=np.int64)
    list_length[groups.user] = groups.length
    longest = int(groups.length.max(initial=0))
    width = max(1, longest if ideal == "listed" else min(kmax, longest))
    order, bounds = _blocks(groups.length)
    in_run_order = order is None and groups.pick is None and groups.user.size == n_users
    in_run_order = in_run_order and not bool(np.all(groups.user[1:] > groups.user[:-1]))
    top = np.full((n_users, width), -1, dtype=items.dtype if items.dtype.kind == "i" else np.int64)

    def place(g0: int, g1: int) -> bool:
        """Order the groups g0 .. g1 - 1 and write their top rows; False for a tie under ties="raise"."""
        chosen = None if order is None else order[g0:g1]  # the groups of this block, when reordered
        members = slice(g0, g1) if chosen is None else chosen
        size = int(groups.length[members].max(initial=0))
        block_key, block_items = _block(groups, key, items, (g0, g1), chosen)
        position = _sorted_block(block_key, block_items, min(width, size), ties, kmax)
        if position is None:
            return False
        if isinstance(position, slice):
            ranked = block_items[:, position]
        else:
            ranked = np.take_along_axis(block_items, position, axis=1)
        dest = np.arange(g0, g1) if in_run_order else groups.user[members]
        top[dest, : ranked.shape[1]] = ranked
        return True

    jobs = [submit(executor, place, g0, g1) for g0, g1 in bounds]  # blocks write disjoint rows of top
    if not all([job.result() for job in jobs]):  # a list: wait for every block
        return None
    return top, list_length, in_run_order
