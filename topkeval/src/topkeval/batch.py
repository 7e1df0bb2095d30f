"""Every metric for many users at once, vectorised with NumPy.

Two entry points:

* :func:`evaluate` takes pandas DataFrames with any hashable ids and returns
  one row per user and one column per metric (``precision@10``, ...).
* :func:`evaluate_arrays` is the fast path for people who already hold an
  integer (users x K) matrix of recommended items and the relevant items in
  CSR form; :func:`evaluate` encodes its DataFrames into exactly that.

There is no Python loop over users. Users are processed in blocks; inside a
block the hits are found with a cache-sized bitmap (one row of ``n_items``
one-byte cells per user of a small sub-block), and the metrics are computed
from the list of hit positions, so the work grows with the number of hits
rather than with K. The results equal the per-user functions in
``topkeval.metrics`` and ``topkeval.dcg`` to 1e-12 (``tests/library/test_batch.py``).

:func:`evaluate` spends most of its time turning ids into integer codes. It
is fastest when each user's rows come together with ranks 1..K (what a
recommender's top-K output looks like: the list matrix is then a reshape),
and when ids are small non-negative integers (their own codes) or pandas 3
strings (one Arrow hash pass). Score rows are ordered per user, not by one
global sort (:mod:`topkeval._ranking`): a row-wise sort or partition when
each user's rows come together, after one grouping sort when they are
shuffled. ``python -m benchmarks.run`` measures every input kind against
pytrec_eval, ranx and a plain Python loop.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from . import _ranking, _registry
from ._cutoff import discounts, gains, ideal_dcg_table
from ._frames import as_pandas
from ._kernels import Cut
from ._validation import (
    check_columns,
    check_int,
    check_ks,
    check_max_grade,
    check_option,
    check_options,
    check_parameters,
    describe_examples,
)

__all__ = ["evaluate", "evaluate_arrays"]

_BITMAP_BYTES = 1 << 22  # about 4 MiB per bitmap: one sub-block of users x n_items
_DEFAULT_BLOCK = 8192
_SPARSE_IDS = 1 << 22  # above this many item ids, ids that are sparser than the data get renumbered


# ----------------------------------------------------------------- validation
def _check_metrics(metrics: Iterable[str] | None) -> tuple[str, ...]:
    if metrics is None:
        return _registry.DEFAULT_METRIC_KEYS
    if isinstance(metrics, str):
        metrics = [metrics]
    chosen = []
    for name in metrics:
        key = check_option("metrics", name, _registry.METRIC_KEYS)
        if key not in chosen:
            chosen.append(key)
    if not chosen:
        raise ValueError(
            "metrics must name at least one of "
            + ", ".join(repr(m) for m in _registry.METRIC_KEYS)
            + " (or be None for all); got an empty list."
        )
    return tuple(m for m in _registry.METRIC_KEYS if m in chosen)


def _int_array(value: Any, name: str, ndim: int) -> np.ndarray:
    array = np.asarray(value)
    if array.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array; got shape {array.shape}.")
    if array.size and not np.issubdtype(array.dtype, np.integer):
        raise TypeError(
            f"{name} must hold integers (item ids coded 0..n_items-1); got dtype {array.dtype}. "
            "Use topkeval.evaluate for arbitrary ids: it encodes them for you."
        )
    return array.astype(np.int64, copy=False)


def _check_csr(
    indptr: Any, items: Any, grades: Any, n_users: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    indptr = _int_array(indptr, "relevant_indptr", 1)
    items = _int_array(items, "relevant_items", 1)
    if indptr.shape[0] != n_users + 1:
        raise ValueError(
            f"relevant_indptr must have n_users + 1 = {n_users + 1} entries (one row per row of "
            f"top_items, CSR style); got {indptr.shape[0]}."
        )
    if indptr[0] != 0 or indptr[-1] != items.shape[0] or np.any(np.diff(indptr) < 0):
        raise ValueError(
            "relevant_indptr must start at 0, never decrease and end at len(relevant_items) "
            f"= {items.shape[0]}; got start {indptr[0]} and end {indptr[-1]}."
        )
    if items.size and items.min() < 0:
        raise ValueError(f"relevant_items must be item ids >= 0; the smallest is {items.min()}.")
    if grades is None:
        return indptr, items, None
    grades = np.asarray(grades, dtype=np.float64)
    if grades.shape != items.shape:
        raise ValueError(
            f"relevant_grades must have one grade per relevant item ({items.shape[0]}); got shape {grades.shape}."
        )
    if not np.all(np.isfinite(grades)):
        raise ValueError("relevance grades must be finite numbers >= 0; found NaN or infinity.")
    if grades.size and grades.min() < 0:
        raise ValueError(
            f"relevance grades must be >= 0 (0 means judged not relevant); the smallest is {grades.min()}."
        )
    keep = grades > 0
    if not keep.all():  # judged-not-relevant entries do not count in |R|
        owner = np.repeat(np.arange(n_users), np.diff(indptr))
        indptr = np.concatenate([[0], np.cumsum(np.bincount(owner[keep], minlength=n_users))])
        items, grades = items[keep], grades[keep]
    return indptr, items, grades


# ------------------------------------------------------------------ core
class _Options:
    __slots__ = ("ks", "keys", "denominator", "gain", "ideal", "discount", "p", "max_grade")

    def __init__(self, ks, keys, denominator, gain, ideal, discount="log2", p=0.8, max_grade=None):
        self.ks, self.keys = ks, keys
        self.denominator, self.gain, self.ideal = denominator, gain, ideal
        self.discount = discount  # "log2" or "clipped_log2" (LensKit); see _cutoff.discounts
        self.p, self.max_grade = p, max_grade  # RBP's persistence, ERR's top grade (None: each user's own)


class _Shared:
    """What every block needs besides its own hits: options, discounts, gains and grades of the relevant items."""

    def __init__(
        self,
        opts: _Options,
        disc: np.ndarray,
        idcg_table: np.ndarray,
        rel_gains: np.ndarray | None,
        grades: np.ndarray | None,
        top_grade: np.ndarray | None,
    ):
        self.opts, self.disc, self.idcg_table = opts, disc, idcg_table
        self.rel_gains, self.grades, self.top_grade = rel_gains, grades, top_grade


def _top_grades(grades: np.ndarray | None, indptr: np.ndarray, max_grade: float | None) -> np.ndarray | None:
    """ERR's top of the grade scale for every user: ``max_grade``, or each user's highest grade."""
    n_users = indptr.size - 1
    if max_grade is not None:
        largest = float(grades.max(initial=0.0)) if grades is not None else 1.0
        return np.full(n_users, check_max_grade(max_grade, largest))
    if grades is None:
        return None
    top = np.ones(n_users)
    has = np.diff(indptr) > 0
    if has.any():
        top[has] = np.maximum.reduceat(grades, indptr[:-1][has])
    return top


def _ideal_cumulative(
    seg: np.ndarray, gains: np.ndarray, nb: int, width: int, disc: np.ndarray
) -> np.ndarray:
    """Running IDCG (nb x width) from per-row gains listed by row ``seg``."""
    ideal = np.zeros((nb, width), dtype=np.float64)
    if gains.size:
        order = np.lexsort((-gains, seg))
        seg_sorted = seg[order]
        starts = np.searchsorted(seg_sorted, np.arange(nb))
        rank = np.arange(seg_sorted.size) - starts[seg_sorted]
        keep = rank < width
        ideal[seg_sorted[keep], rank[keep]] = gains[order][keep]
    ideal *= disc[:width]
    np.cumsum(ideal, axis=1, out=ideal)
    return ideal


def _take(values: np.ndarray, selection: np.ndarray | None) -> np.ndarray:
    return values if selection is None else values[selection]


def _block_metrics(
    flat: np.ndarray,  # flat indices of the hits in the block's (nb, width) list matrix, increasing
    width: int,
    hit_rel: np.ndarray | None,  # index into the relevant arrays of each hit (graded metrics), or None
    nrel: np.ndarray,
    seg_rel: np.ndarray,  # block row of each of the block's relevant items
    r0: int,  # index of the block's first relevant item
    b0: int,  # index of the block's first user
    shared: _Shared,
    out: dict[str, np.ndarray],
) -> None:
    """Fill ``out[key@k][b0:b0+nb]`` for every metric and cutoff: one :class:`~topkeval._kernels.Cut` per k."""
    opts, nb = shared.opts, nrel.size
    row = flat // width if width else flat
    pos = flat - row * width
    counts = np.bincount(row, minlength=nb)
    starts = np.cumsum(counts) - counts
    ordinal = np.arange(1, flat.size + 1) - starts[row]
    first = np.full(nb, np.iinfo(np.int64).max, dtype=np.int64)
    first[counts > 0] = pos[starts[counts > 0]]
    hit_gains = shared.rel_gains[hit_rel] if shared.rel_gains is not None else None
    hit_grades = shared.grades[hit_rel] if shared.grades is not None and "err" in opts.keys else None
    top_grade = shared.top_grade[b0 : b0 + nb] if shared.top_grade is not None else None
    ideal_cum = None
    if hit_gains is not None:
        seg, values = (
            (seg_rel, shared.rel_gains[r0 : r0 + seg_rel.size]) if opts.ideal == "all" else (row, hit_gains)
        )
        ideal_cum = _ideal_cumulative(seg, values, nb, max(opts.ks), shared.disc)
    for k in opts.ks:
        sel = None if k >= width else pos < k
        cut = Cut(
            k=k,
            hits=counts if sel is None else np.bincount(row[sel], minlength=nb),
            n_relevant=nrel,
            first=first,
            row=_take(row, sel),
            position=_take(pos, sel),
            ordinal=_take(ordinal, sel),
            listed_hits=counts,
            gains=None if hit_gains is None else _take(hit_gains, sel),
            ideal=None if ideal_cum is None else ideal_cum[:, k - 1],
            discounts=shared.disc,
            binary_idcg=shared.idcg_table,
            denominator=opts.denominator,
            ideal_from=opts.ideal,
            grades=None if hit_grades is None else _take(hit_grades, sel),
            top_grade=top_grade,
            p=opts.p,
        )
        for key in opts.keys:
            out[f"{key}@{k}"][b0 : b0 + nb] = _registry.METRICS[key].kernel(cut)


def _smallest_uint(largest: int) -> type:
    """The narrowest unsigned dtype that holds 0..largest."""
    for dtype in (np.uint8, np.uint16, np.uint32):
        if largest <= np.iinfo(dtype).max:
            return dtype
    return np.uint64


def _compute(
    top: np.ndarray,
    indptr: np.ndarray,
    items: np.ndarray,
    grades: np.ndarray | None,
    n_items: int,
    opts: _Options,
    block_size: int,
    duplicates: str,
    check_relevant: bool,
) -> dict[str, np.ndarray]:
    """Every metric for every row of ``top``, one block of users at a time.

    Hits are found with a bitmap: each user of a sub-block owns a row of
    ``n_items + 1`` cells (the last one for empty slots). A cell holds 0, or
    1 + the position of that item among the user's relevant items, so its
    dtype only needs to hold the largest |R| (usually one byte: four times
    more users per cache-sized bitmap than int32 codes). Reading the bitmap
    at the recommended items gives the hits. Reading it back at the relevant
    items finds a relevant item listed twice for one user (the later code
    overwrote the earlier). ``duplicates="all"`` sorts each row to find
    repeated recommendations; ``"hits"`` only counts how often each relevant
    item was hit.
    """
    n_users, length = top.shape
    kmax = max(opts.ks)
    full = "ndcg" in opts.keys and opts.ideal == "listed"
    width = length if full else min(length, kmax)
    nrel_all = np.diff(indptr)
    out = {f"{key}@{k}": np.empty(n_users, dtype=np.float64) for k in opts.ks for key in opts.keys}
    disc = discounts(max(width, kmax), opts.discount)
    idcg_table = ideal_dcg_table(kmax, opts.discount)
    rel_gains = gains(grades, opts.gain) if (grades is not None and "ndcg" in opts.keys) else None
    top_grade = _top_grades(grades, indptr, opts.max_grade) if "err" in opts.keys else None
    shared = _Shared(opts, disc, idcg_table, rel_gains, grades, top_grade)
    # which relevant item each hit is: for graded metrics, and to find repeated recommendations
    need_rel = rel_gains is not None or (grades is not None and "err" in opts.keys) or duplicates != "none"

    stride = n_items + 1  # column n_items is the sentinel for empty slots
    code_type = _smallest_uint(int(nrel_all.max(initial=0)))
    sub = int(max(1, min(block_size, _BITMAP_BYTES // (stride * np.dtype(code_type).itemsize))))
    bitmap = np.zeros(sub * stride, dtype=code_type)
    if check_relevant and items.size:  # ids strictly increasing within each user: no repeats
        rising = items[1:] > items[:-1]  # a bool array: np.diff would allocate int64
        rising[indptr[1:-1][(indptr[1:-1] > 0) & (indptr[1:-1] < items.size)] - 1] = True
        check_relevant = not rising.all()

    for b0 in range(0, n_users, block_size):
        b1 = min(n_users, b0 + block_size)
        nb = b1 - b0
        block = top[b0:b1, :width]
        if duplicates == "all" and width > 1:
            _check_rows(block, b0)
        r0, r1 = int(indptr[b0]), int(indptr[b1])
        nrel = nrel_all[b0:b1]
        local = np.arange(nb, dtype=np.int64) % sub
        seg_rel = np.repeat(np.arange(nb, dtype=np.int64), nrel)
        rel_flat = local[seg_rel] * stride + items[r0:r1]
        rel_code = (np.arange(r0, r1, dtype=np.int64) - indptr[b0:b1][seg_rel] + 1).astype(code_type)
        gather = block + (local * stride)[:, None]
        if block.size and block.min() < 0:
            gather[block < 0] = (local * stride + n_items)[np.nonzero(block < 0)[0]]
        hit_code = np.empty((nb, width), dtype=code_type)
        readback = np.empty(r1 - r0, dtype=code_type) if check_relevant else None
        bounds = (indptr[b0:b1:sub] - r0).tolist() + [r1 - r0]
        for i, s0 in enumerate(range(0, nb, sub)):
            where = rel_flat[bounds[i] : bounds[i + 1]]
            bitmap[where] = rel_code[bounds[i] : bounds[i + 1]]
            if readback is not None:
                np.take(bitmap, where, out=readback[bounds[i] : bounds[i + 1]])
            np.take(bitmap, gather[s0 : s0 + sub], out=hit_code[s0 : s0 + sub])
            bitmap[where] = 0
        if readback is not None and not np.array_equal(readback, rel_code):
            bad = int(np.flatnonzero(readback != rel_code)[0])
            raise _DuplicateRelevant(b0 + int(seg_rel[bad]), int(items[r0 + bad]))
        flat = np.flatnonzero(hit_code != 0)  # 3-4x faster than nonzero on the codes themselves
        hit_rel = None
        if need_rel and flat.size:
            # global index of each hit's relevant item: the row's first one + (code - 1)
            hit_rel = indptr[b0 + flat // width] + hit_code.ravel()[flat] - 1
            if duplicates != "none":
                seen = np.bincount(hit_rel - r0, minlength=r1 - r0)
                if seen.max() > 1:
                    at = int(np.flatnonzero(seen[hit_rel - r0] > 1)[0])
                    r = int(flat[at] // width)
                    raise _DuplicateRecommendation(b0 + r, block[r], int(items[hit_rel[at]]))
        elif need_rel:
            hit_rel = np.zeros(0, dtype=np.int64)
        _block_metrics(flat, width, hit_rel, nrel, seg_rel, r0, b0, shared, out)
    return out


def _check_rows(block: np.ndarray, b0: int) -> None:
    """Raise _DuplicateRecommendation for the first row of ``block`` that repeats an item."""
    narrow = np.int32 if block.size and block.max() <= np.iinfo(np.int32).max else block.dtype
    ordered = np.sort(block.astype(narrow), axis=1)  # int32 sorts twice as fast as int64
    repeat = (ordered[:, 1:] == ordered[:, :-1]) & (ordered[:, 1:] >= 0)  # empty slots (< 0) may repeat
    if repeat.any():
        r, c = (int(x) for x in np.argwhere(repeat)[0])
        raise _DuplicateRecommendation(b0 + r, block[r], int(ordered[r, c]))


class _DuplicateRelevant(ValueError):
    def __init__(self, row: int, item: int):
        self.row, self.item = row, item
        super().__init__(
            f"the relevant items of row {row} list item {item} more than once; each relevant item must "
            "appear once per user."
        )


class _DuplicateRecommendation(ValueError):
    def __init__(self, row: int, listed: np.ndarray, item: int):
        self.row, self.item = row, item
        self.ranks = [int(p) + 1 for p in np.flatnonzero(listed == item)]
        super().__init__(
            f"row {row} of top_items lists item {item} more than once (at ranks "
            f"{', '.join(map(str, self.ranks))}); a ranking must not contain duplicates. Remove repeats "
            "before evaluating."
        )


# --------------------------------------------------------------- fast path API
@_registry.document("metrics")
def evaluate_arrays(
    top_items: Any,
    relevant_indptr: Any,
    relevant_items: Any,
    *,
    k: int | Sequence[int] | None = None,
    metrics: Iterable[str] | None = None,
    relevant_grades: Any = None,
    n_items: int | None = None,
    denominator: str = _registry.OPTIONS["denominator"].default,
    gain: str = _registry.OPTIONS["gain"].default,
    ideal: str = _registry.OPTIONS["ideal"].default,
    empty: str = _registry.BATCH_OPTIONS["empty"].default,
    block_size: int = _DEFAULT_BLOCK,
    discount: str = _registry.OPTIONS["discount"].default,
    duplicates: str = "check_hits",
    p: float = _registry.PARAMETERS["p"].default,
    max_grade: float | None = _registry.PARAMETERS["max_grade"].default,
) -> pd.DataFrame:
    """Every metric for every row of an integer (users x K) matrix: the fast path.

    Parameters
    ----------
    top_items : array of int, shape (n_users, K)
        Row u lists user u's recommended item ids, best first. Ids are
        integers in ``[0, n_items)``; a negative value marks an empty slot
        (for a list shorter than K).
    relevant_indptr, relevant_items : arrays of int
        The relevant items in CSR form: user u's are
        ``relevant_items[relevant_indptr[u]:relevant_indptr[u + 1]]``
        (``scipy.sparse.csr_matrix.indptr`` and ``.indices`` have this form).
    k : int or list of int, optional
        Cutoff(s); default K, the width of ``top_items``.
    metrics : list of str, optional
        %(metrics)s
    relevant_grades : array of float, optional
        One grade per entry of ``relevant_items`` (graded NDCG). Entries
        with grade 0 are judged not relevant and do not count in |R|.
    n_items : int, optional
        Size of the item id space; default the largest id + 1. Sparse ids
        (more than four million possible ids and fewer entries in the data
        than that, e.g. hashes) are renumbered internally first; results and
        error messages use the ids you passed.
    denominator, gain, ideal, discount
        As in :func:`topkeval.average_precision_at_k` and
        :func:`topkeval.ndcg_at_k`.
    p, max_grade : float
        RBP's persistence and ERR's top grade, as in :func:`topkeval.rbp_at_k`
        and :func:`topkeval.err_at_k`.
    empty : {"raise", "skip", "zero"}
        What users with no relevant item count as (see :func:`evaluate`).
    block_size : int
        Users per block; memory grows with ``block_size * K``.
    duplicates : {"check_hits", "check_all", "none"}
        A row that lists an item twice is not a ranking. ``"check_hits"``
        (default, nearly free) raises when a row repeats a *relevant* item,
        the only repeats that change a metric (they inflate P, R, AP and
        NDCG past their bounds, as in Spark and LensKit); ``"check_all"``
        also catches repeated non-relevant items (it sorts each row: about
        1.2x the run time at K = 10 to 100;
        :func:`evaluate` always does this); ``"none"`` trusts the input.
        A user's relevant items must not repeat; that is always checked.

    Returns
    -------
    pandas.DataFrame
        One row per user (index: row number in ``top_items``) and one column
        per metric and cutoff, e.g. ``ap@10``.

    Examples
    --------
    >>> import numpy as np
    >>> from topkeval import evaluate_arrays
    >>> top = np.array([[3, 1, 2], [0, 2, -1]])  # user 1 has only two items
    >>> indptr, items = np.array([0, 2, 3]), np.array([1, 2, 2])  # R_0 = {1, 2}, R_1 = {2}
    >>> evaluate_arrays(top, indptr, items, k=2, metrics=["precision", "rr"])
       precision@2  rr@2
    0          0.5   0.5
    1          0.5   0.5
    """
    top = _int_array(top_items, "top_items", 2)
    n_users, length = top.shape
    indptr, items, grades = _check_csr(relevant_indptr, relevant_items, relevant_grades, n_users)
    if k is None and length == 0:
        raise ValueError("top_items has no columns, so there is no default cutoff; pass k=...")
    ks = check_ks(length if k is None else k)
    keys = _check_metrics(metrics)
    chosen = check_options(denominator=denominator, gain=gain, ideal=ideal, discount=discount, empty=empty)
    chosen.update(check_parameters(p=p, max_grade=max_grade))
    empty = chosen.pop("empty")
    opts = _Options(ks, keys, **chosen)
    largest = max(int(top.max(initial=-1)), int(items.max(initial=-1)))
    if n_items is None:
        n_items = largest + 1
    elif largest >= n_items:
        raise ValueError(f"n_items is {n_items} but an item id is {largest}; ids must be below n_items.")
    block_size = check_int(block_size, "block_size")
    duplicates = check_option("duplicates", duplicates, ("check_hits", "check_all", "none"))
    mode = {"check_hits": "hits", "check_all": "all", "none": "none"}[duplicates]
    ids = None
    if n_items > _SPARSE_IDS and n_items > top.size + items.size:
        # sparse ids (hashed, say): a bitmap row of n_items cells per user would not fit in the
        # cache, or in memory; renumber the ids that occur (order kept) and report the originals
        listed = top[top >= 0]
        ids = np.unique(np.concatenate([listed, items]))
        coded = np.full(top.shape, -1, dtype=np.int64)
        coded[top >= 0] = np.searchsorted(ids, listed)
        original, top, items, n_items = top, coded, np.searchsorted(ids, items), ids.size
    try:
        result = _compute(top, indptr, items, grades, int(n_items), opts, int(block_size), mode, True)
    except _DuplicateRelevant as err:
        if ids is None:
            raise
        raise _DuplicateRelevant(err.row, int(ids[err.item])) from None
    except _DuplicateRecommendation as err:
        if ids is None:
            raise
        raise _DuplicateRecommendation(err.row, original[err.row], int(ids[err.item])) from None
    return _apply_empty(result, pd.RangeIndex(n_users), np.diff(indptr) == 0, empty)


def _apply_empty(
    result: dict[str, np.ndarray],
    index: pd.Index,
    is_empty: np.ndarray,
    empty: str,
    attrs: dict | None = None,
) -> pd.DataFrame:
    """The result frame, with users who have no relevant item raised on, skipped or zeroed."""
    n_empty = int(is_empty.sum())
    skipped: list = []
    if n_empty and empty == "raise":
        raise ValueError(
            f"{n_empty} of {len(index)} users have no relevant item (e.g. {describe_examples(index[is_empty])}), "
            "so recall, AP and NDCG are 0/0 for them. Choose what they count as: empty='skip' leaves "
            "them out (trec_eval, ranx, RecBole), empty='zero' scores them 0 (Spark, torchmetrics)."
        )
    if n_empty and empty == "zero":
        for values in result.values():
            values[is_empty] = 0.0
    elif n_empty:  # skip: filter the arrays before the frame exists (cheaper than frame.loc)
        keep = ~is_empty
        skipped = index[is_empty].tolist()
        result = {name: values[keep] for name, values in result.items()}
        index = index[keep]
    frame = pd.DataFrame(result, index=index, copy=False)
    frame.attrs.update(attrs or {})
    frame.attrs.update(empty=empty, n_empty_users=n_empty, skipped_users=skipped)
    return frame


# ---------------------------------------------------------------- DataFrames
def _codes(
    values: pd.Series, other: pd.Series, what: str, runs: bool = False, sort: bool = True
) -> tuple[np.ndarray, np.ndarray, pd.Index, np.ndarray]:
    """Encode two columns of ids with one shared code book (sorted if ``sort``).

    With ``runs=True`` only the first row of each run of equal values is
    hashed (recommendations usually list a user's rows together): the codes
    of ``values`` are then one per run, with a mask of the rows that start a
    run; ``other``'s codes are always one per row.
    """
    kinds = {_id_kind(values), _id_kind(other)} - {"empty"}
    if len(kinds) > 1:
        raise TypeError(
            f"{what} ids in recommendations are {_id_kind(values)} ({values.dtype}) but in truth they are "
            f"{_id_kind(other)} ({other.dtype}), so no id could ever match. Convert one side, e.g. "
            f".astype(str)."
        )
    for frame, column in (("recommendations", values), ("truth", other)):
        if column.isna().any():
            raise ValueError(
                f"{frame}'s {column.name!r} column has missing {what} ids (NaN/None) in "
                f"{int(column.isna().sum())} row(s); drop or fill those rows first, e.g. "
                f"{frame}.dropna(subset=[{column.name!r}])."
            )
    heads = _run_heads(values) if runs else np.zeros(0, dtype=bool)
    other_heads = _run_heads(other) if runs else np.zeros(0, dtype=bool)
    if runs:  # every row a head (shuffled rows): no masked copy of the column
        values = values if heads.all() else values[heads]
        other = other if other_heads.all() else other[other_heads]
    encoded = _small_int_codes(values, other) if not runs else None
    if encoded is None:
        encoded = _arrow_codes(values, other, sort)
    if encoded is None:
        parts = [c.reset_index(drop=True) for c in (values, other) if len(c)] or [
            values.reset_index(drop=True)
        ]
        both = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
        try:
            codes, uniques = pd.factorize(both, sort=sort)
        except TypeError:  # ids of mixed types cannot be sorted: keep first-seen order
            codes, uniques = pd.factorize(both, sort=False)
        encoded = codes[: len(values)], codes[len(values) :], pd.Index(uniques)
    first, second, index = encoded
    if runs:
        second = _expand_runs(second, other_heads)
    return first, second, index, heads


def _small_int_codes(values: pd.Series, other: pd.Series) -> tuple[np.ndarray, np.ndarray, pd.Index] | None:
    """Integer ids in a compact range [0, n) are their own codes: no hashing at all.

    The code book then holds every id below the largest, used or not (a few
    empty bitmap columns), which is why this is only for items, not users.
    """
    if not all(isinstance(c.dtype, np.dtype) and c.dtype.kind in "iu" for c in (values, other)):
        return None
    first, second = values.to_numpy(), other.to_numpy()
    low = min(int(first.min(initial=0)), int(second.min(initial=0)))
    high = max(int(first.max(initial=0)), int(second.max(initial=0)))
    if low < 0 or high >= min(_SPARSE_IDS, 4 * (first.size + second.size) + 1024):
        return None
    return first.astype(np.int64, copy=False), second.astype(np.int64, copy=False), pd.RangeIndex(high + 1)


def _arrow_codes(
    values: pd.Series, other: pd.Series, sort: bool
) -> tuple[np.ndarray, np.ndarray, pd.Index] | None:
    """Codes for Arrow-backed columns (pandas 3's default str), with one hash table for both.

    Half the memory traffic of ``pd.factorize`` on the concatenated columns:
    no concatenated copy, int32 codes, no unifying of per-chunk dictionaries.
    """
    arrays = [getattr(c.array, "__arrow_array__", None) for c in (values, other)]
    if any(a is None for a in arrays):
        return None
    try:  # optional (the `arrow` extra): a speed-up only; pandas' own factorize is the fallback
        import pyarrow as pa
        import pyarrow.compute as pc
    except ImportError:
        return None
    first, second = (pa.chunked_array(a()) for a in arrays)
    if first.type != second.type or not (
        pa.types.is_string(first.type) or pa.types.is_large_string(first.type)
    ):
        return None
    encoded = pa.chunked_array(first.chunks + second.chunks, type=first.type).dictionary_encode()
    if encoded.num_chunks == 0:
        return None
    dictionary = encoded.chunk(encoded.num_chunks - 1).dictionary
    if not all(chunk.dictionary.equals(dictionary) for chunk in encoded.chunks[:-1]):
        return None  # one memo table is shared across chunks, so this does not happen; be safe
    chunks = [chunk.indices.to_numpy(zero_copy_only=False) for chunk in encoded.chunks]
    split = first.num_chunks  # a one-chunk column's codes are a view of Arrow's buffer: no copy
    parts = (chunks[:split], chunks[split:])
    if sum(len(c) for c in parts[0]) != len(values):  # chunks not kept one for one: slice the whole
        whole = np.concatenate(chunks)
        parts = ([whole[: len(values)]], [whole[len(values) :]])
    codes = [part[0] if len(part) == 1 else np.concatenate(part or [np.zeros(0, np.int32)]) for part in parts]
    if sort:
        order = pc.array_sort_indices(dictionary).to_numpy()
        rank = np.empty(order.size, dtype=np.int32)
        rank[order] = np.arange(order.size, dtype=np.int32)
        codes, dictionary = [rank[c] for c in codes], dictionary.take(pa.array(order))
    index = pd.Index(pd.array(dictionary, dtype=values.dtype))  # zero-copy
    return codes[0], codes[1], index


def _run_heads(column: pd.Series) -> np.ndarray:
    """True for each row whose value differs from the row before it."""
    if len(column) == 0:
        return np.zeros(0, dtype=bool)
    values = _arrow_strings(column) if len(column) > 1 else None
    if values is not None:  # Arrow strings: compare two zero-copy slices, no shifted copy of the column
        import pyarrow.compute as pc

        differs = pc.not_equal(values.slice(1), values.slice(0, len(column) - 1))
        heads = np.empty(len(column), dtype=bool)
        heads[1:] = pc.fill_null(differs, True).to_numpy(zero_copy_only=False)
    else:
        heads = np.array(column.ne(column.shift(1)).to_numpy(dtype=bool, na_value=True))
    heads[0] = True
    return heads


def _arrow_strings(column: pd.Series):
    """The column's Arrow string data (zero-copy), or None when it is not Arrow-backed strings."""
    arrow = getattr(column.array, "__arrow_array__", None)
    if arrow is None or isinstance(column.dtype, pd.CategoricalDtype):
        return None
    try:
        import pyarrow as pa
    except ImportError:
        return None
    values = arrow()
    kinds = (pa.types.is_string, pa.types.is_large_string, pa.types.is_string_view)
    return values if any(kind(values.type) for kind in kinds) else None


def _expand_runs(codes: np.ndarray, heads: np.ndarray) -> np.ndarray:
    """Give every row of a run the code of its first row."""
    if heads.size == 0:
        return codes
    return np.repeat(codes, np.diff(np.append(np.flatnonzero(heads), heads.size)))


def _id_kind(column: pd.Series) -> str:
    if len(column) == 0:
        return "empty"
    if pd.api.types.is_bool_dtype(column.dtype):
        return "boolean"
    if pd.api.types.is_numeric_dtype(column.dtype):
        return "numbers"
    return "strings or objects"


def _positions(user_codes: np.ndarray, n_users: int) -> tuple[np.ndarray, np.ndarray]:
    """Position of each row within its user's block (rows sorted by user)."""
    counts = np.bincount(user_codes, minlength=n_users)
    starts = np.cumsum(counts) - counts
    return np.arange(user_codes.size, dtype=np.int64) - starts[user_codes], counts


def _csr_order(user_codes: np.ndarray, indptr: np.ndarray) -> np.ndarray:
    """Row order that sorts rows by user, keeping each user's rows in input order (a stable sort).

    When each user's rows are already together (the usual layout), every run
    moves as a block: no comparison sort.
    """
    n = user_codes.size
    heads = np.empty(n, dtype=bool)
    heads[0] = True
    np.not_equal(user_codes[1:], user_codes[:-1], out=heads[1:])
    starts = np.flatnonzero(heads)
    run_users = user_codes[starts]
    if np.bincount(run_users).max() > 1:  # some user's rows are apart
        return np.argsort(user_codes, kind="stable")
    by_user = np.argsort(run_users)  # one entry per run: cheap
    moved = starts[by_user]
    lengths = np.diff(np.append(starts, n))[by_user]
    return np.repeat(moved - indptr[run_users[by_user]], lengths) + np.arange(n)


def _top_from_runs(
    key: np.ndarray,
    items: np.ndarray,
    run_users: np.ndarray,
    run_length: np.ndarray,
    n_users: int,
    kmax: int,
    ideal: str,
) -> tuple[np.ndarray, np.ndarray, bool] | None:
    """The list matrix straight from the rows, its users' list lengths, and whether it is in run order.

    Works when each user's rows form one run, every run has the same length
    L and the ranks rise along every run: row r of the input's L-wide reshape
    is then the list of user ``run_users[r]``, with no sort and no per-row
    position. When every user has a list, that reshape (a view) is returned
    as it is, its rows in run order (flag True unless that is also user
    order); otherwise its rows are placed at their users' codes.
    Returns None when the shortcut does not apply.
    """
    if run_length.size == 0 or np.any(run_length != run_length[0]):
        return None
    length = int(run_length[0])
    ranks = key.reshape(-1, length)
    in_order = np.array_equal(ranks[0], np.arange(1, length + 1)) and bool(
        (ranks == np.arange(1, length + 1, dtype=ranks.dtype)).all()  # ranks 1..L: one comparison
    )
    if not in_order and not bool((ranks[:, 1:] > ranks[:, :-1]).all()):
        return None
    width = max(1, length if ideal == "listed" else min(kmax, length))
    rows = items.reshape(-1, length)[:, :width]
    list_length = np.zeros(n_users, dtype=np.int64)
    list_length[run_users] = length
    if run_users.size == n_users:  # every user has a list: the rows, as they come, are the matrix
        return rows, list_length, not bool(np.all(run_users[1:] > run_users[:-1]))
    top = np.full((n_users, width), -1, dtype=rows.dtype)  # users with no list get empty rows
    top[run_users] = rows
    return top, list_length, False


@_registry.document("metrics", "empty", "ties")
def evaluate(
    recommendations: pd.DataFrame,
    truth: pd.DataFrame,
    k: int | Sequence[int],
    *,
    metrics: Iterable[str] | None = None,
    denominator: str = _registry.OPTIONS["denominator"].default,
    gain: str = _registry.OPTIONS["gain"].default,
    ideal: str = _registry.OPTIONS["ideal"].default,
    empty: str = _registry.BATCH_OPTIONS["empty"].default,
    ties: str = _registry.BATCH_OPTIONS["ties"].default,
    user_col: str = "user",
    item_col: str = "item",
    rank_col: str = "rank",
    score_col: str = "score",
    relevance_col: str = "relevance",
    discount: str = _registry.OPTIONS["discount"].default,
    p: float = _registry.PARAMETERS["p"].default,
    max_grade: float | None = _registry.PARAMETERS["max_grade"].default,
) -> pd.DataFrame:
    """Score every user's recommendations: one row per user, one column per metric.

    Parameters
    ----------
    recommendations : pandas.DataFrame, pyarrow.Table or polars.DataFrame
        Columns ``user``, ``item`` and either ``rank`` (1 = best) or
        ``score`` (higher = better). Rows may come in any order. Items
        ranked below the largest ``k`` are ignored. Arrow and Polars data
        are read in place through Arrow (pyarrow needed), not copied.
    truth : pandas.DataFrame, pyarrow.Table or polars.DataFrame
        Columns ``user`` and ``item``, plus an optional ``relevance`` grade
        (>= 0; 0 = judged not relevant). Without it every row is relevant
        with grade 1.
    k : int or list of int
        Cutoff(s). Several give columns for each, e.g. ``ap@5`` and ``ap@10``.
    metrics : list of str, optional
        %(metrics)s
    denominator : {"min_k_n_relevant", "n_relevant", "n_hits"}
        AP's denominator, as in :func:`topkeval.average_precision_at_k`.
    gain : {"linear", "exponential"}
        NDCG's gain, as in :func:`topkeval.ndcg_at_k`.
    ideal : {"all", "listed"}
        Where NDCG's ideal ordering comes from, as in :func:`topkeval.ndcg_at_k`.
    empty : {"raise", "skip", "zero"}
        What users with no relevant item count as. See Notes.
    ties : {"item_ascending", "item_descending", "input_order", "raise"}
        How equal scores are ordered (``score`` input only). See Notes.
    user_col, item_col, rank_col, score_col, relevance_col : str
        Column names, if yours differ.
    discount : {"log2", "clipped_log2"}
        NDCG's position discount, as in :func:`topkeval.ndcg_at_k`.
    p : float
        RBP's persistence (``rbp`` column), as in :func:`topkeval.rbp_at_k`.
    max_grade : float, optional
        ERR's top grade (``err`` column), as in :func:`topkeval.err_at_k`.

    Returns
    -------
    pandas.DataFrame
        Indexed by user id (sorted), columns ``<metric>@<k>`` in the order
        precision, recall, hit, rr, ap, ndcg for each k. ``.mean()`` gives
        P@k, R@k, HR@k, MRR@k, MAP@k and NDCG@k. ``.attrs`` records the
        options, the number of users with no relevant item and which were
        skipped.

    Notes
    -----
    The users are those of ``recommendations`` and ``truth`` together. A
    user with relevant items but no recommendations scores 0 on every metric
    (an empty list finds nothing). A user with recommendations but no
    relevant item (absent from ``truth``, or only grade-0 rows) is handled by
    ``empty``:

    %(empty)s

    %(ties)s

    Ranks give the order only: a user's rows ranked 1, 5 and 9 are that
    user's first, second and third items, so all three count at k = 3 (as
    when seen items were filtered out of a longer list). With both a
    ``rank`` and a ``score`` column, ``rank`` orders the list and the scores
    are not read; to rank by score, drop the rank column first.

    Examples
    --------
    >>> import pandas as pd
    >>> from topkeval import evaluate
    >>> recs = pd.DataFrame({"user": ["u1"] * 3 + ["u2"] * 3,
    ...                      "item": ["a", "b", "c", "c", "a", "d"],
    ...                      "rank": [1, 2, 3, 1, 2, 3]})
    >>> truth = pd.DataFrame({"user": ["u1", "u1", "u2"], "item": ["a", "c", "d"]})
    >>> scores = evaluate(recs, truth, k=3, metrics=["precision", "ap", "ndcg"])
    >>> scores.round(4)
          precision@3    ap@3  ndcg@3
    user
    u1         0.6667  0.8333  0.9197
    u2         0.3333  0.3333  0.5000
    >>> scores.mean().round(4)  # P@3, MAP@3, NDCG@3
    precision@3    0.5000
    ap@3           0.5833
    ndcg@3         0.7099
    dtype: float64
    """
    ks = check_ks(k)
    keys = _check_metrics(metrics)
    check_options(denominator=denominator, gain=gain, ideal=ideal, discount=discount, empty=empty, ties=ties)
    p, max_grade = check_parameters(p=p, max_grade=max_grade).values()
    cols = dict(user=user_col, item=item_col, rank=rank_col, score=score_col, relevance=relevance_col)
    recommendations, truth = as_pandas(recommendations, "recommendations"), as_pandas(truth, "truth")
    by_rank = _check_frames(recommendations, truth, cols)

    run_users, truth_users, users, heads = _codes(
        recommendations[user_col], truth[user_col], "user", runs=True
    )
    # item codes need the ids' order only to break ties between equal scores
    rec_items, truth_items, item_index, _ = _codes(
        recommendations[item_col], truth[item_col], "item", sort=not by_rank
    )
    lists = _Lists(users, run_users, heads, rec_items, len(item_index))
    key = _order_key(recommendations, by_rank, cols)
    top, list_length = _list_matrix(lists, key, by_rank, max(ks), ideal, ties, cols)
    indptr, truth_items, rel_grades, n_relevant = _truth_csr(truth, truth_users, truth_items, lists, cols)

    opts = _Options(ks, keys, denominator, gain, ideal, discount, p, max_grade)
    try:
        result = _compute(
            top, indptr, truth_items, rel_grades, lists.n_items, opts, _DEFAULT_BLOCK, "all", True
        )
    except (_DuplicateRelevant, _DuplicateRecommendation) as err:
        raise _frame_error(err, lists, item_index) from None
    if lists.row_of_user is not None:  # back to user order
        result = {name: values[lists.row_of_user] for name, values in result.items()}
    attrs = dict(
        k=list(ks),
        denominator=denominator,
        gain=gain,
        ideal=ideal,
        discount=discount,
        ties=ties if not by_rank else None,
        n_users_without_recommendations=int(((list_length == 0) & (n_relevant > 0)).sum()),
    )
    return _apply_empty(result, pd.Index(users, name=user_col), n_relevant == 0, empty, attrs)


class _Lists:
    """The encoded recommendations: users, runs of rows, items; and where each user's list row is."""

    def __init__(
        self, users: pd.Index, run_users: np.ndarray, heads: np.ndarray, items: np.ndarray, n_items: int
    ):
        self.users, self.run_users, self.heads, self.items = users, run_users, heads, items
        self.n_users, self.n_items = len(users), n_items
        self.row_of_user: np.ndarray | None = None  # list rows are users in code order, unless set

    def user_of_row(self, row: int):
        user = self.users[row if self.row_of_user is None else self.run_users[row]]
        return user.item() if isinstance(user, np.generic) else user  # 1, not np.int64(1), in messages


def _check_frames(recommendations: pd.DataFrame, truth: pd.DataFrame, cols: dict[str, str]) -> bool:
    """Check the columns; return True when the lists are given by rank, False when by score."""
    names = ", ".join(f"{n}_col=..." for n in cols)
    hint = f" ({names})"
    check_columns(recommendations, "recommendations", [cols["user"], cols["item"]], hint)
    check_columns(truth, "truth", [cols["user"], cols["item"]], hint)
    if cols["rank"] in recommendations.columns:
        return True
    if cols["score"] not in recommendations.columns:
        raise ValueError(
            f"recommendations needs a {cols['rank']!r} column (1 = best) or a {cols['score']!r} column "
            f"(higher = better); it has {', '.join(repr(str(c)) for c in recommendations.columns)}. "
            "Pass rank_col=... or score_col=... if yours are named differently."
        )
    return False


def _order_key(recommendations: pd.DataFrame, by_rank: bool, cols: dict[str, str]) -> np.ndarray:
    """What orders each user's rows, smallest first: the rank, or minus the score."""
    if not by_rank:
        scores = recommendations[cols["score"]]
        if scores.dtype == np.float64 and isinstance(scores.dtype, np.dtype):  # one pass, no NA-filled copy
            key = np.negative(scores.to_numpy())
            if not np.isnan(key).any():
                return key
        return -_numeric(scores, cols["score"], "recommendations")  # its checks and messages
    rank_col = cols["rank"]
    key = _numeric(recommendations[rank_col], rank_col, "recommendations", keep_int=True)
    if key.size and (key.min() < 1 or (key.dtype.kind == "f" and not np.all(key == np.floor(key)))):
        raise ValueError(
            f"{rank_col} must hold whole numbers >= 1 (1 = best); found "
            f"{key[(key < 1) | (key != np.floor(key))][0].item():.15g}."
        )
    return key


def _list_matrix(
    lists: _Lists, key: np.ndarray, by_rank: bool, kmax: int, ideal: str, ties: str, cols: dict[str, str]
) -> tuple[np.ndarray, np.ndarray]:
    """The (users x width) matrix of item codes, best first, -1 for empty slots; and each list's length."""
    heads = lists.heads
    grouped = (
        lists.run_users.size == 0 or np.bincount(lists.run_users).max() == 1
    )  # one block of rows per user
    found = None
    if not by_rank:  # per-user sorts (topkeval._ranking); None only for ties="raise" with a tie
        found = _ranking.top_by_score(
            key, lists.items, lists.run_users, heads, grouped, lists.n_users, kmax, ideal, ties
        )
    run_start = np.flatnonzero(heads) if found is None else None
    run_length = np.diff(np.append(run_start, heads.size)) if found is None else None
    if by_rank and grouped:  # the common case: every user has a list of the same length, best first
        found = _top_from_runs(key, lists.items, lists.run_users, run_length, lists.n_users, kmax, ideal)
    if found is not None:
        top, list_length, in_run_order = found
        if in_run_order:  # keep the rows where they are; move the (much smaller) truth and results
            lists.row_of_user = np.empty(lists.n_users, dtype=np.int64)
            lists.row_of_user[lists.run_users] = np.arange(lists.n_users)
        return top, list_length
    rec_users = _expand_runs(lists.run_users, heads)
    if by_rank and grouped and np.all((key[1:] > key[:-1]) | heads[1:]):
        # rows grouped by user, best first: no sort needed
        sorted_users, sorted_items = rec_users, lists.items
        position = np.arange(rec_users.size, dtype=np.int64) - np.repeat(run_start, run_length)
    else:
        sorted_users, sorted_items, position = _sorted_lists(lists, rec_users, key, by_rank, kmax, ties, cols)
    list_length = np.bincount(sorted_users, minlength=lists.n_users)
    longest = int(list_length.max(initial=0))
    width = max(1, longest if ideal == "listed" else min(kmax, longest))
    keep = position < width
    top = np.full((lists.n_users, width), -1, dtype=np.int64)
    if keep.all():
        top[sorted_users, position] = sorted_items
    else:
        top[sorted_users[keep], position[keep]] = sorted_items[keep]
    return top, list_length


def _sorted_lists(
    lists: _Lists,
    rec_users: np.ndarray,
    key: np.ndarray,
    by_rank: bool,
    kmax: int,
    ties: str,
    cols: dict[str, str],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows sorted by user then key (ties broken by the ``ties`` rule); each row's position in its list."""
    items = lists.items
    if by_rank or ties in ("input_order", "raise"):
        order = np.lexsort((key, rec_users))  # lexsort is stable: equal keys keep row order
    else:
        tiebreak = items if ties == "item_ascending" else -items
        order = np.lexsort((tiebreak, key, rec_users))
    sorted_users, sorted_items = rec_users[order], items[order]
    position, _ = _positions(sorted_users, lists.n_users)
    sorted_key = key[order]
    same = (sorted_users[1:] == sorted_users[:-1]) & (sorted_key[1:] == sorted_key[:-1])
    if by_rank and same.any():
        at = int(np.flatnonzero(same)[0])
        raise ValueError(
            f"user {lists.users[sorted_users[at]]!r} has two items at {cols['rank']} {sorted_key[at]:g}; "
            "ranks must be distinct within a user. Give the tied items distinct ranks, or pass "
            "scores instead and choose ties=..."
        )
    if ties == "raise" and not by_rank and (same & (position[1:] < kmax)).any():
        at = int(np.flatnonzero(same & (position[1:] < kmax))[0])
        raise ValueError(
            f"user {lists.users[sorted_users[at]]!r} has tied scores ({float(-sorted_key[at])!r}) in its top "
            f"{kmax}; pass ties='item_ascending', 'item_descending' or 'input_order' to choose an order."
        )
    return sorted_users, sorted_items, position


def _truth_grades(truth: pd.DataFrame, relevance_col: str) -> np.ndarray | None:
    """The relevance column as checked float grades, or None when there is none (binary relevance)."""
    if relevance_col not in truth.columns:
        return None
    grades = _numeric(truth[relevance_col], relevance_col, "truth")
    if np.isnan(grades).any() or np.isinf(grades).any():
        raise ValueError(
            f"truth's {relevance_col!r} column must hold finite grades >= 0; found NaN or infinity. "
            "Drop unjudged rows instead of marking them NaN."
        )
    if grades.size and grades.min() < 0:
        raise ValueError(
            f"truth's {relevance_col!r} grades must be >= 0 (0 = judged not relevant); the smallest is "
            f"{grades.min():g}. Shift or clip negative ratings first."
        )
    return grades


def _truth_csr(
    truth: pd.DataFrame, truth_users: np.ndarray, truth_items: np.ndarray, lists: _Lists, cols: dict[str, str]
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray]:
    """The relevant rows as CSR aligned with the list matrix's rows: (indptr, items, grades, |R| per user)."""
    grades = _truth_grades(truth, cols["relevance"])
    if grades is not None:
        positive = grades > 0
        truth_users, truth_items, grades = truth_users[positive], truth_items[positive], grades[positive]
    n_relevant = np.bincount(truth_users, minlength=lists.n_users)
    row_of_user = lists.row_of_user
    truth_rows = truth_users if row_of_user is None else row_of_user[truth_users]
    indptr = np.zeros(lists.n_users + 1, dtype=np.int64)
    np.cumsum(n_relevant if row_of_user is None else n_relevant[lists.run_users], out=indptr[1:])
    if truth_rows.size > 1 and not np.all(truth_rows[1:] >= truth_rows[:-1]):
        order = _csr_order(truth_rows, indptr)
        truth_items = truth_items[order]
        grades = grades[order] if grades is not None else None
    return indptr, truth_items, grades, n_relevant


def _frame_error(err: ValueError, lists: _Lists, item_index: pd.Index) -> ValueError:
    """A duplicate found by the array path, told in the DataFrames' own ids."""
    user = lists.user_of_row(err.row)
    if isinstance(err, _DuplicateRelevant):
        return ValueError(
            f"truth lists user {user!r} and item {item_index[err.item]!r} more than once; "
            "keep one row per (user, item), e.g. truth.drop_duplicates([user, item])."
        )
    return ValueError(
        f"recommendations list item {item_index[err.item]!r} more than once for user "
        f"{user!r} (at positions {', '.join(map(str, err.ranks))} of its list); a ranking "
        "must not contain duplicates. "
        "Keep each user's best row per item, e.g. recommendations.drop_duplicates([user, item])."
    )


def _numeric(column: pd.Series, name: str, frame: str, keep_int: bool = False) -> np.ndarray:
    """The column as float64 (or, with ``keep_int``, as its own integer dtype: no copy)."""
    if len(column) == 0:
        return np.zeros(0, dtype=np.float64)
    if not pd.api.types.is_numeric_dtype(column.dtype) or pd.api.types.is_bool_dtype(column.dtype):
        raise TypeError(f"{frame}'s {name!r} column must be numeric; got dtype {column.dtype}.")
    if keep_int and isinstance(column.dtype, np.dtype) and column.dtype.kind == "i":  # unsigned diffs wrap
        return column.to_numpy()
    values = column.to_numpy(dtype=np.float64, na_value=np.nan)
    if np.isnan(values).any():
        raise ValueError(f"{frame}'s {name!r} column has missing values; drop or fill those rows first.")
    return values
