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
``topkeval.metrics`` and ``topkeval.dcg`` to 1e-12 (the test suite checks it).

:func:`evaluate` spends most of its time turning ids into integer codes. It
is fastest when each user's rows come together with ranks 1..K (what a
recommender's top-K output looks like: the list matrix is then a reshape),
and when ids are small non-negative integers (their own codes) or Arrow
strings (pandas 3's default ``str``, pyarrow, Polars: hashed by Arrow in one
thread per CPU, users and items at the same time, :mod:`topkeval._encoding`;
``TOPKEVAL_THREADS=1`` turns the threads off). Score rows are ordered per
user, not by one global sort (:mod:`topkeval._ranking`): rows already best
first are kept as they are, others get a row-wise sort or partition when
each user's rows come together, after one grouping sort when they are
shuffled; blocks of users are ordered in the same threads.
``python -m benchmarks.run`` measures every input kind against pytrec_eval,
ranx and a plain Python loop.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from . import _encoding, _kernels, _ranking, _registry
from ._cutoff import discounts, gains, ideal_dcg_table
from ._frames import arrow_numbers, as_pandas, decoded, is_string_view, mask_rows, without_views
from ._kernels import Cut
from ._registry import Settings
from ._validation import (
    Cutoffs,
    DuplicateRecommendationError,
    DuplicateRelevantError,
    InputTypeError,
    Integer,
    InvalidInputError,
    Maybe,
    Metrics,
    OneOf,
    check_columns,
    check_grades,
    check_id_array,
    check_ks,
    check_metrics,
    check_settings,
    column_constraints,
    describe_examples,
    duplicate_in_frames,
    duplicate_recommendation,
    duplicate_relevant,
    err_scale,
    plain,
    settings_constraints,
    validate_params,
)

__all__ = ["evaluate", "evaluate_arrays"]

_BITMAP_BYTES = 1 << 22  # about 4 MiB per bitmap: one sub-block of users x n_items
_DEFAULT_BLOCK = 8192
#: lists at least this wide have their metric blocks computed in threads: a narrower block's work is mostly
#: Python bookkeeping that holds the GIL (10^6 users: no gain at width 10, 25 % less time at width 100)
_THREADED_WIDTH = 32
_RUN_SAMPLE = 4096  # rows sampled to tell shuffled rows from rows grouped by user
_SPARSE_IDS = 1 << 22  # above this many item ids, ids that are sparser than the data get renumbered


# ----------------------------------------------------------------- validation
def _check_csr(
    indptr: Any, items: Any, grades: Any, n_users: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    indptr = check_id_array(indptr, "relevant_indptr", 1)
    items = check_id_array(items, "relevant_items", 1)
    if indptr.shape[0] != n_users + 1:
        raise InvalidInputError(
            f"relevant_indptr must have n_users + 1 = {n_users + 1} entries (one row per row of "
            f"top_items, CSR style); got {indptr.shape[0]}."
        )
    if indptr[0] != 0 or indptr[-1] != items.shape[0] or np.any(np.diff(indptr) < 0):
        raise InvalidInputError(
            "relevant_indptr must start at 0, never decrease and end at len(relevant_items) "
            f"= {items.shape[0]}; got start {indptr[0]} and end {indptr[-1]}."
        )
    if items.size and items.min() < 0:
        raise InvalidInputError(f"relevant_items must be item ids >= 0; the smallest is {items.min()}.")
    if grades is None:
        return indptr, items, None
    grades = check_grades(grades, "relevant_grades holds")
    if grades.shape != items.shape:
        raise InvalidInputError(
            f"relevant_grades must have one grade per relevant item ({items.shape[0]}); "
            f"got shape {grades.shape}."
        )
    keep = grades > 0
    if not keep.all():  # judged-not-relevant entries do not count in |R|
        owner = np.repeat(np.arange(n_users), np.diff(indptr))
        indptr = np.concatenate([[0], np.cumsum(np.bincount(owner[keep], minlength=n_users))])
        items, grades = items[keep], grades[keep]
    return indptr, items, grades


# ------------------------------------------------------------------ core
@dataclass(frozen=True)
class _Request:
    """What to compute: the cutoffs, the metric keys, and every option."""

    ks: tuple[int, ...]
    keys: tuple[str, ...]
    settings: Settings

    @property
    def needs(self) -> frozenset[str]:
        """What the kernels asked for read besides the hits (the registry's ``needs`` of each metric)."""
        return frozenset(need for key in self.keys for need in _registry.METRICS[key].needs)

    def reads(self, option: str) -> bool:
        """Whether a metric asked for takes the option (so its value changes what is computed)."""
        return any(option in _registry.METRICS[key].options for key in self.keys)


class _Shared:
    """What every block needs besides its own hits: options, discounts, gains and grades of the relevant
    items, and the weight of unjudged items (RBP's residual).

    Tables are sized by what the data can reach, never by k alone: the
    discounts by the list width and the largest |R|, the ideal DCG by
    min(k, largest |R|). A cutoff beyond the longest list costs nothing.
    """

    def __init__(self, request: _Request, width: int, indptr: np.ndarray, grades: np.ndarray | None):
        settings, keys = request.settings, request.keys
        self.request, self.settings = request, settings
        most_relevant = int(np.diff(indptr).max(initial=0))
        self.ideal_width = max(1, min(max(request.ks), most_relevant))
        self.disc = discounts(max(width, self.ideal_width), settings.discount)
        self.idcg_table = ideal_dcg_table(self.ideal_width, settings.discount)
        needs = request.needs
        self.rel_gains = gains(grades, settings.gain) if (grades is not None and "gains" in needs) else None
        self.grades = grades if "grades" in needs else None
        n_users = indptr.size - 1
        self.top_grade = _top_grades(n_users, settings.max_grade, grades) if "grades" in needs else None
        self.kernels = {key: getattr(_kernels, _registry.METRICS[key].kernel) for key in keys}
        #: RBP's residual: per cutoff, the weight of each user's unjudged items (None: every item judged)
        self.unjudged: dict[int, np.ndarray] | None = None
        #: bpref: the judged items' CSR and their hit finder (None: every item judged)
        self.judged: tuple[np.ndarray, np.ndarray] | None = None
        self.judged_bitmap: _Bitmap | None = None

    def needs_hit_index(self, duplicates: str) -> bool:
        """Which relevant item each hit is: needed for graded metrics,
        and to find repeated recommendations."""
        return self.rel_gains is not None or self.grades is not None or duplicates != "none"

    def use_judgments(
        self, judged: tuple[np.ndarray, np.ndarray] | None, n_items: int, block_size: int
    ) -> None:
        """Keep the judged items for bpref, when it is asked for and not every item is judged."""
        if judged is not None and "judged" in self.request.needs:
            self.judged, self.judged_bitmap = judged, _Bitmap(n_items, judged[0], block_size)

    def judged_cumulative(self, block: np.ndarray, b0: int) -> np.ndarray | None:
        """How many judged items each position of a block's lists holds up to and including it, or None."""
        if self.judged is None or self.judged_bitmap is None:
            return None
        return np.cumsum(_judged_in(self.judged_bitmap, block, self.judged, b0), axis=1)

    def nonrelevant(self, b0: int, nrel: np.ndarray) -> np.ndarray | None:
        """N per user of a block: judged items less relevant ones (None: every unlisted item judged)."""
        if self.judged is None:
            return None
        return np.diff(self.judged[0][b0 : b0 + nrel.size + 1]) - nrel

    def unjudged_at(self, k: int, b0: int, nb: int) -> np.ndarray | None:
        """The weight of the unjudged items in the top k of users ``b0 .. b0 + nb - 1``, or None."""
        return None if self.unjudged is None else self.unjudged[k][b0 : b0 + nb]


def _list_width(request: _Request, length: int) -> int:
    """How much of each list is read: the whole list for NDCG's ``ideal="listed"``,
    else up to the largest k."""
    full = request.reads("ideal") and request.settings.ideal == "listed"
    return length if full else min(length, max(request.ks))


def _err_max_grade(grades: np.ndarray | None, max_grade: float | None) -> float:
    """ERR's g_max for the whole batch: ``max_grade`` (checked), else the largest grade of the truth (>= 1).

    g_max is a property of the grading scale (Chapelle et al. 2009), the same for every user; without
    ``max_grade`` the truth's largest grade is the best estimate of the scale's top.
    """
    largest = float(grades.max(initial=0.0)) if grades is not None else 1.0
    return err_scale(max_grade, largest, batch=True)


def _top_grades(n_users: int, max_grade: float | None, grades: np.ndarray | None) -> np.ndarray:
    """ERR's top of the grade scale for every user: one value for all (see :func:`_err_max_grade`)."""
    return np.full(n_users, _err_max_grade(grades, max_grade))


def _unjudged_weight(
    top: np.ndarray,
    judged: tuple[np.ndarray, np.ndarray] | None,
    n_items: int,
    request: _Request,
    block_size: int,
) -> dict[int, np.ndarray] | None:
    """RBP's residual: per cutoff k, (1 - p) * sum of p**(i - 1) over the ranks i <= k with an unjudged item.

    The listed items' weight minus the judged ones' (RBP with every judged item counted as a hit).
    None when the residual is not asked for or every item is judged (``judged`` is None).
    """
    if judged is None or "unjudged" not in request.needs:
        return None
    p = request.settings.p
    present = top[:, : max(request.ks)] >= 0  # never wider than the lists: a huge k costs nothing
    weights = (1.0 - p) * p ** np.arange(present.shape[1], dtype=np.float64)
    listed = np.cumsum(present * weights, axis=1) if present.shape[1] else np.zeros((top.shape[0], 1))
    as_hits = _Request(request.ks, ("rbp",), request.settings.replaced(unjudged="keep"))
    judged_rbp = _compute(top, judged[0], judged[1], None, n_items, as_hits, block_size, "none", False)
    return {
        k: np.maximum(listed[:, min(k, listed.shape[1]) - 1] - judged_rbp[f"rbp@{k}"], 0.0)
        for k in request.ks
    }


def _needs_judgments(request: _Request) -> bool:
    """Whether the judged items (grade 0 too) are read: RBP's residual, bpref, or condensed lists."""
    return bool({"unjudged", "judged"} & request.needs) or request.settings.unjudged == "condense"


def _judged_in(
    bitmap: _Bitmap, block: np.ndarray, judged: tuple[np.ndarray, np.ndarray], b0: int
) -> np.ndarray:
    """A (nb x width) mask: True where the block's lists hold an item the user's judgments name."""
    indptr, items = judged
    b1 = b0 + block.shape[0]
    r0, r1 = int(indptr[b0]), int(indptr[b1])
    local_ptr = indptr[b0 : b1 + 1] - r0
    seg = np.repeat(np.arange(b1 - b0, dtype=np.int64), np.diff(local_ptr))
    found: np.ndarray = bitmap.find(block, items[r0:r1], local_ptr, seg, b0, False) != 0
    return found


def _condensed(
    top: np.ndarray, judged: tuple[np.ndarray, np.ndarray] | None, n_items: int, block_size: int
) -> np.ndarray:
    """The lists without their unjudged items (``unjudged="condense"``): judged items move up, in order.

    None for ``judged`` means every item is judged (a truth of relevant items only): nothing moves.
    """
    if judged is None or not top.size:
        return top
    bitmap = _Bitmap(n_items, judged[0], block_size)
    out = np.full_like(top, -1)
    for b0 in range(0, top.shape[0], block_size):
        block = top[b0 : b0 + block_size]
        keep = _judged_in(bitmap, block, judged, b0)
        rows, _ = np.nonzero(keep)  # row by row, in list order
        place = np.cumsum(keep, axis=1)[keep] - 1  # a kept item's position in its condensed list
        out[b0 + rows, place] = block[keep]
    return out


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


def _maybe(values: np.ndarray | None, selection: Any) -> np.ndarray | None:
    """``values[selection]`` (everything when ``selection`` is None), or None when there are no values."""
    if values is None:
        return None
    return values if selection is None else values[selection]


class _Hits:
    """Where the hits of one block are: row, position and ordinal of each, per-user counts and first hit."""

    def __init__(self, flat: np.ndarray, width: int, nb: int):
        self.row = flat // width if width else flat
        self.pos = flat - self.row * width
        self.counts = np.bincount(self.row, minlength=nb)
        starts = np.cumsum(self.counts) - self.counts
        self.ordinal = np.arange(1, flat.size + 1) - starts[self.row]
        self.first = np.full(nb, np.iinfo(np.int64).max, dtype=np.int64)
        self.first[self.counts > 0] = self.pos[starts[self.counts > 0]]


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
    judged_cum: np.ndarray | None = None,  # judged items up to each position (bpref), or None
) -> None:
    """Fill ``out[key@k][b0:b0+nb]`` for every metric and cutoff:
    one :class:`~topkeval._kernels.Cut` per k."""
    nb = nrel.size
    hits = _Hits(flat, width, nb)
    judged_above = judged_cum[hits.row, hits.pos] - 1 if judged_cum is not None else None
    nonrelevant = shared.nonrelevant(b0, nrel)
    hit_gains = _maybe(shared.rel_gains, hit_rel) if hit_rel is not None else None
    hit_grades = _maybe(shared.grades, hit_rel) if hit_rel is not None else None
    ideal_cum = _block_ideal(shared, hits, hit_gains, seg_rel, r0, nb)
    for k in shared.request.ks:
        sel = None if k >= width else hits.pos < k
        cut = Cut(
            k=k,
            hits=hits.counts if sel is None else np.bincount(hits.row[sel], minlength=nb),
            n_relevant=nrel,
            first=hits.first,
            row=_take(hits.row, sel),
            position=_take(hits.pos, sel),
            ordinal=_take(hits.ordinal, sel),
            listed_hits=hits.counts,
            gains=_maybe(hit_gains, sel),
            ideal=_maybe(ideal_cum, (slice(None), min(k, shared.ideal_width) - 1)),
            discounts=shared.disc,
            binary_idcg=shared.idcg_table,
            options=shared.settings,
            grades=_maybe(hit_grades, sel),
            top_grade=_maybe(shared.top_grade, slice(b0, b0 + nb)),
            unjudged=shared.unjudged_at(k, b0, nb),
            judged_above=_maybe(judged_above, sel),
            nonrelevant=nonrelevant,
        )
        for key, kernel in shared.kernels.items():
            out[f"{key}@{k}"][b0 : b0 + nb] = kernel(cut)


def _block_ideal(
    shared: _Shared, hits: _Hits, hit_gains: np.ndarray | None, seg_rel: np.ndarray, r0: int, nb: int
) -> np.ndarray | None:
    """Running IDCG per user of a block (graded relevance only): from all relevant items,
    or the listed hits."""
    if shared.rel_gains is None or hit_gains is None:
        return None
    if shared.settings.ideal == "all":
        seg, values = seg_rel, shared.rel_gains[r0 : r0 + seg_rel.size]
    else:
        seg, values = hits.row, hit_gains
    return _ideal_cumulative(seg, values, nb, shared.ideal_width, shared.disc)


def _smallest_uint(largest: int) -> type:
    """The narrowest unsigned dtype that holds 0..largest."""
    for dtype in (np.uint8, np.uint16, np.uint32):
        if largest <= np.iinfo(dtype).max:
            return dtype
    return np.uint64


def _relevant_may_repeat(items: np.ndarray, indptr: np.ndarray) -> bool:
    """False when every user's relevant ids strictly increase (so none repeats): no read-back needed."""
    if not items.size:
        return False
    rising = items[1:] > items[:-1]  # a bool array: np.diff would allocate int64
    rising[indptr[1:-1][(indptr[1:-1] > 0) & (indptr[1:-1] < items.size)] - 1] = True
    return not bool(rising.all())


class _Bitmap:
    """The hit finder: each user of a sub-block owns a row of ``n_items + 1`` cells (the last for empty
    slots).

    A cell holds 0, or 1 + the position of that item among the user's
    relevant items, so its dtype only needs to hold the largest |R| (usually
    one byte: four times more users per cache-sized bitmap than int32 codes).
    Reading the bitmap at the recommended items gives the hits. Reading it
    back at the relevant items finds a relevant item listed twice for one
    user (the later code overwrote the earlier).
    """

    def __init__(self, n_items: int, indptr: np.ndarray, block_size: int):
        self.n_items, self.stride = n_items, n_items + 1  # column n_items is the sentinel for empty slots
        self.code_type = _smallest_uint(int(np.diff(indptr).max(initial=0)))
        cells = _BITMAP_BYTES // (self.stride * np.dtype(self.code_type).itemsize)
        self.sub = int(max(1, min(block_size, cells)))
        self.cells: np.ndarray = np.zeros(self.sub * self.stride, dtype=self.code_type)

    def find(
        self,
        block: np.ndarray,
        rel_items: np.ndarray,
        local_ptr: np.ndarray,
        seg_rel: np.ndarray,
        b0: int,
        readback: bool,
    ) -> np.ndarray:
        """Hit codes (nb x width) of a block; raises when a user's relevant items repeat
        (with ``readback``)."""
        nb, width = block.shape
        sub, stride = self.sub, self.stride
        local = np.arange(nb, dtype=np.int64) % sub
        rel_flat = local[seg_rel] * stride + rel_items
        rel_code = (np.arange(rel_items.size, dtype=np.int64) - local_ptr[:-1][seg_rel] + 1).astype(
            self.code_type
        )
        gather = block + (local * stride)[:, None]
        if block.size and block.min() < 0:
            gather[block < 0] = (local * stride + self.n_items)[np.nonzero(block < 0)[0]]
        hit_code: np.ndarray = np.empty((nb, width), dtype=self.code_type)
        back: np.ndarray | None = np.empty(rel_items.size, dtype=self.code_type) if readback else None
        bounds = local_ptr[:-1][::sub].tolist() + [rel_items.size]
        for i, s0 in enumerate(range(0, nb, sub)):
            where = rel_flat[bounds[i] : bounds[i + 1]]
            self.cells[where] = rel_code[bounds[i] : bounds[i + 1]]
            if back is not None:
                np.take(self.cells, where, out=back[bounds[i] : bounds[i + 1]])
            np.take(self.cells, gather[s0 : s0 + sub], out=hit_code[s0 : s0 + sub])
            self.cells[where] = 0
        if back is not None and not np.array_equal(back, rel_code):
            bad = int(np.flatnonzero(back != rel_code)[0])
            raise duplicate_relevant(b0 + int(seg_rel[bad]), int(rel_items[bad]))
        return hit_code


def _hit_relevant(
    flat: np.ndarray,
    hit_code: np.ndarray,
    block: np.ndarray,
    indptr: np.ndarray,
    items: np.ndarray,
    b0: int,
    check: bool,
) -> np.ndarray:
    """Global index of each hit's relevant item (the row's first one + code - 1); raises on a repeated hit."""
    width = block.shape[1]
    if not flat.size:
        return np.zeros(0, dtype=np.int64)
    hit_rel = indptr[b0 + flat // width] + hit_code.ravel()[flat] - 1
    if check:
        r0, r1 = int(indptr[b0]), int(indptr[b0 + block.shape[0]])
        seen = np.bincount(hit_rel - r0, minlength=r1 - r0)
        if seen.max() > 1:
            at = int(np.flatnonzero(seen[hit_rel - r0] > 1)[0])
            r = int(flat[at] // width)
            raise duplicate_recommendation(b0 + r, block[r], int(items[hit_rel[at]]))
    return hit_rel


def _compute(
    top: np.ndarray,
    indptr: np.ndarray,
    items: np.ndarray,
    grades: np.ndarray | None,
    n_items: int,
    request: _Request,
    block_size: int,
    duplicates: str,
    check_relevant: bool,
    judged: tuple[np.ndarray, np.ndarray] | None = None,
    executor: Executor | None = None,
) -> dict[str, np.ndarray]:
    """Every metric for every row of ``top``, one block of users at a time (hits found by a :class:`_Bitmap`).

    ``duplicates="all"`` sorts each row to find repeated recommendations;
    ``"hits"`` only counts how often each relevant item was hit. ``judged``
    is the CSR (indptr, items) of every judged item, relevant or not, for
    RBP's residual, bpref and condensed lists; None when every item is judged.
    With an ``executor`` the blocks run in its threads, each thread with its
    own bitmap (blocks write disjoint rows of the results); the first bad
    block, in user order, raises.
    """
    if request.settings.unjudged == "condense":
        top = _condensed(top, judged, n_items, block_size)
    n_users, length = top.shape
    width = _list_width(request, length)
    shared = _Shared(request, width, indptr, grades)
    shared.unjudged = _unjudged_weight(top, judged, n_items, request, block_size)
    shared.use_judgments(judged, n_items, block_size)
    need_rel = shared.needs_hit_index(duplicates)
    readback = check_relevant and _relevant_may_repeat(items, indptr)
    out = {f"{key}@{k}": np.empty(n_users, dtype=np.float64) for k in request.ks for key in request.keys}
    bitmaps = _Bitmaps(n_items, indptr, block_size)

    def one_block(b0: int) -> None:
        b1 = min(n_users, b0 + block_size)
        block = top[b0:b1, :width]
        if duplicates == "all" and width > 1:
            _check_rows(block, b0)
        r0, r1 = int(indptr[b0]), int(indptr[b1])
        local_ptr = indptr[b0 : b1 + 1] - r0
        nrel = np.diff(local_ptr)
        seg_rel = np.repeat(np.arange(b1 - b0, dtype=np.int64), nrel)
        hit_code = bitmaps.mine().find(block, items[r0:r1], local_ptr, seg_rel, b0, readback)
        flat = np.flatnonzero(hit_code != 0)  # 3-4x faster than nonzero on the codes themselves
        hit_rel = (
            _hit_relevant(flat, hit_code, block, indptr, items, b0, duplicates != "none")
            if need_rel
            else None
        )
        judged_cum = shared.judged_cumulative(block, b0)
        _block_metrics(flat, width, hit_rel, nrel, seg_rel, r0, b0, shared, out, judged_cum)

    if shared.judged_bitmap is not None or width < _THREADED_WIDTH:
        executor = None  # bpref's judged-item finder is one bitmap; narrow blocks gain nothing
    jobs = [_encoding.submit(executor, one_block, b0) for b0 in range(0, n_users, block_size)]
    for job in jobs:  # in user order: the first bad block raises
        job.result()
    return out


class _Bitmaps:
    """One :class:`_Bitmap` per thread (its cells are scratch space that every block overwrites)."""

    def __init__(self, n_items: int, indptr: np.ndarray, block_size: int):
        self.args, self.local = (n_items, indptr, block_size), threading.local()

    def mine(self) -> _Bitmap:
        if not hasattr(self.local, "bitmap"):
            self.local.bitmap = _Bitmap(*self.args)
        return self.local.bitmap


def _check_rows(block: np.ndarray, b0: int) -> None:
    """Raise for the first row of ``block`` that repeats an item."""
    narrow = np.int32 if block.size and block.max() <= np.iinfo(np.int32).max else block.dtype
    ordered = np.sort(block.astype(narrow), axis=1)  # int32 sorts twice as fast as int64
    repeat = (ordered[:, 1:] == ordered[:, :-1]) & (ordered[:, 1:] >= 0)  # empty slots (< 0) may repeat
    if repeat.any():
        r, c = (int(x) for x in np.argwhere(repeat)[0])
        raise duplicate_recommendation(b0 + r, block[r], int(ordered[r, c]))


# --------------------------------------------------------------- fast path API
@validate_params(
    {
        "k": Maybe(Cutoffs()),
        "metrics": Metrics(),
        "n_items": Maybe(Integer(1, " (the size of the item id space)")),
        "block_size": Integer(1, " (users per block)"),
        "duplicates": OneOf("duplicates", ("check_hits", "check_all", "none")),
        **settings_constraints("arrays"),
    }
)
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
    denominator: str = Settings.denominator,
    gain: str = Settings.gain,
    ideal: str = Settings.ideal,
    empty: str = Settings.empty,
    block_size: int = _DEFAULT_BLOCK,
    discount: str = Settings.discount,
    duplicates: str = "check_hits",
    p: float = Settings.p,
    max_grade: float | None = Settings.max_grade,
    unjudged: str = Settings.unjudged,
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
        and :func:`topkeval.err_at_k`; without ``max_grade``, ERR's g_max is
        the largest of ``relevant_grades`` (at least 1; 1 without grades), in
        ``attrs["err_max_grade"]``. With ``relevant_grades`` the CSR entries
        are judgments: RBP's residual (``rbp_residual``) counts every listed
        item not among them as unjudged, and bpref skips it.
    unjudged : {"keep", "condense"}
        ``"condense"`` drops the listed items the judgments do not name
        (only with ``relevant_grades``) before any metric, as in :func:`evaluate`.
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
    top = check_id_array(top_items, "top_items", 2)
    n_users, length = top.shape
    indptr, items, grades = _check_csr(relevant_indptr, relevant_items, relevant_grades, n_users)
    if k is None and length == 0:
        raise InvalidInputError("top_items has no columns, so there is no default cutoff; pass k=...")
    ks = check_ks(length if k is None else k)
    settings = check_settings(
        "arrays",
        denominator=denominator,
        gain=gain,
        ideal=ideal,
        discount=discount,
        empty=empty,
        p=p,
        max_grade=max_grade,
        unjudged=unjudged,
    )
    request, attrs = _with_err_scale(_Request(ks, check_metrics(metrics), settings), grades)
    judged = _judged_csr(request, relevant_indptr, relevant_items, relevant_grades, n_users)
    n_items = _check_n_items(n_items, top, items if judged is None else judged[1])
    mode = {"check_hits": "hits", "check_all": "all", "none": "none"}[duplicates]
    ids = None
    if n_items > _SPARSE_IDS and n_items > top.size + items.size:
        ids, top, items, judged = _renumber(top, items, judged)
        n_items = ids.size
    try:
        result = _compute(top, indptr, items, grades, n_items, request, block_size, mode, True, judged)
    except (DuplicateRelevantError, DuplicateRecommendationError) as err:
        raise _original_ids(err, ids, top) from None
    return _apply_empty(result, pd.RangeIndex(n_users), np.diff(indptr) == 0, settings.empty, attrs)


def _with_err_scale(request: _Request, grades: np.ndarray | None) -> tuple[_Request, dict[str, Any]]:
    """ERR's g_max settled once for the whole batch (:func:`_err_max_grade`), and ``attrs`` recording it."""
    if "grades" not in request.needs:
        return request, {}
    top = _err_max_grade(grades, request.settings.max_grade)
    return replace(request, settings=request.settings.replaced(max_grade=top)), {"err_max_grade": top}


def _judged_csr(
    request: _Request, indptr: Any, items: Any, grades: Any, n_users: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """Every judged item (grade 0 too) in CSR form, for RBP's residual, bpref and condensed lists; None
    when every item is judged or none of those is asked for.

    With ``relevant_grades`` the CSR entries are judgments, so an item not among them is unjudged;
    without grades they are the relevant items and every other item is judged not relevant.
    """
    if not _needs_judgments(request) or grades is None:
        return None
    indptr, items, _ = _check_csr(indptr, items, None, n_users)
    return indptr, items


def _check_n_items(n_items: Any, top: np.ndarray, items: np.ndarray) -> int:
    """The size of the item id space: given (an int >= 1, declared on evaluate_arrays), or the largest id + 1;
    a given size must hold every id."""
    largest = max(int(top.max(initial=-1)), int(items.max(initial=-1)))
    if n_items is None:
        return largest + 1
    if largest >= n_items:
        raise InvalidInputError(
            f"n_items is {n_items} but an item id is {largest}; ids must be below n_items."
        )
    return n_items


def _renumber(
    top: np.ndarray, items: np.ndarray, judged: tuple[np.ndarray, np.ndarray] | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray] | None]:
    """Sparse ids (hashed, say) as 0..n-1 in order: the original ids, then top_items, the relevant items
    and the judged ones (RBP's residual; None stays None) in those codes.

    A bitmap row of n_items cells per user would not fit in the cache, or in memory.
    """
    listed = top[top >= 0]
    ids = np.unique(np.concatenate([listed, items] + ([judged[1]] if judged is not None else [])))
    coded = np.full(top.shape, -1, dtype=np.int64)
    coded[top >= 0] = np.searchsorted(ids, listed)
    if judged is not None:
        judged = (judged[0], np.searchsorted(ids, judged[1]))
    return ids, coded, np.searchsorted(ids, items), judged


def _original_ids(
    err: DuplicateRelevantError | DuplicateRecommendationError, ids: np.ndarray | None, coded: np.ndarray
) -> InvalidInputError:
    """A duplicate found on renumbered ids, told with the ids the caller passed."""
    if ids is None:
        return err
    row, item = err.user, int(ids[err.item])
    if isinstance(err, DuplicateRelevantError):
        return duplicate_relevant(row, item)
    original = np.where(coded[row] >= 0, ids[np.maximum(coded[row], 0)], -1)
    return duplicate_recommendation(row, original, item)


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
        raise InvalidInputError(
            f"{n_empty} of {len(index)} users have no relevant item "
            f"(e.g. {describe_examples(index[is_empty])}), "
            "so recall, AP and NDCG are 0/0 for them. Choose what they count as: empty='skip' leaves "
            "them out (trec_eval, ranx, RecBole), empty='zero' scores them 0 (Spark, torchmetrics)."
        )
    if n_empty and empty == "zero":
        for name, values in result.items():
            # a metric whose value without relevant items is defined in words (RBP's residual) keeps it
            if not isinstance(_registry.METRICS[name.rsplit("@", 1)[0]].empty_value, str):
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
    values: pd.Series,
    other: pd.Series,
    what: str,
    runs: bool = False,
    sort: bool = True,
    executor: Executor | None = None,
) -> Callable[[], tuple[np.ndarray, np.ndarray, pd.Index, np.ndarray]]:
    """Start encoding two columns of ids with one shared code book (sorted if ``sort``); return a
    function that finishes the work and gives (codes of ``values``, codes of ``other``, book, heads).

    With ``runs=True`` only the first row of each run of equal values is
    hashed (recommendations usually list a user's rows together): the codes
    of ``values`` are then one per run, with a mask of the rows that start a
    run; ``other``'s codes are always one per row. Arrow strings are hashed in
    ``executor``'s threads (:mod:`topkeval._encoding`), started before this
    returns, so two columns can be hashed at once.
    """
    values, other = decoded(values), decoded(other)  # only the ids in use get codes
    _check_id_columns(values, other, what)
    heads = _run_heads(values, executor) if runs else np.zeros(0, dtype=bool)
    other_heads = _run_heads(other, executor) if runs else np.zeros(0, dtype=bool)
    if runs:  # every row a head (shuffled rows): no masked copy of the column
        values = values if heads.all() else mask_rows(values, heads)
        other = other if other_heads.all() else mask_rows(other, other_heads)
    encoded = _small_int_codes(values, other) if not runs else None
    strings = _arrow_strings(values, other) if encoded is None else None
    pending = _encoding.arrow_codes(*strings, sort, executor) if strings is not None else None

    def finish() -> tuple[np.ndarray, np.ndarray, pd.Index, np.ndarray]:
        if pending is not None:
            first, second, dictionary = pending()
            found = first, second, pd.Index(pd.array(dictionary, dtype=_book_dtype(values.dtype, dictionary)))
        else:
            found = encoded if encoded is not None else _factorized(values, other, sort)
        first, second, index = found
        if runs:
            second = _expand_runs(second, other_heads)
        return first, second, index, heads

    return finish


def _book_dtype(dtype: Any, dictionary: Any) -> Any:
    """The code book's pandas type: the ids' own (the book is then a zero-copy wrap), or, for
    ``string_view`` ids, the Arrow type of the dictionary :mod:`topkeval._encoding` built (``large_string``:
    pandas cannot make an Index of views)."""
    return pd.ArrowDtype(dictionary.type) if is_string_view(dtype) else dtype


def _check_id_columns(values: pd.Series, other: pd.Series, what: str) -> None:
    """Both id columns of one kind (numbers, strings, ...) and with no missing id."""
    kinds = {_id_kind(values), _id_kind(other)} - {"empty"}
    if len(kinds) > 1:
        raise InputTypeError(
            f"{what} ids in recommendations are {_id_kind(values)} ({values.dtype}) but in truth they are "
            f"{_id_kind(other)} ({other.dtype}), so no id could ever match. Convert one side, e.g. "
            f".astype(str)."
        )
    for frame, column in (("recommendations", values), ("truth", other)):
        if column.isna().any():
            raise InvalidInputError(
                f"the {column.name!r} column of {frame} has missing {what} ids (NaN/None) in "
                f"{int(column.isna().sum())} row(s); drop or fill those rows first, e.g. "
                f"{frame}.dropna(subset=[{column.name!r}])."
            )


def _factorized(values: pd.Series, other: pd.Series, sort: bool) -> tuple[np.ndarray, np.ndarray, pd.Index]:
    """Codes of both columns from one ``pd.factorize`` over the two (the general path)."""
    values, other = without_views(values), without_views(other)  # pandas cannot concatenate or factorize them
    parts = [c.reset_index(drop=True) for c in (values, other) if len(c)] or [values.reset_index(drop=True)]
    both = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    try:
        codes, uniques = pd.factorize(both, sort=sort)
    except TypeError:  # ids of mixed types cannot be sorted: keep first-seen order
        codes, uniques = pd.factorize(both, sort=False)
    return codes[: len(values)], codes[len(values) :], pd.Index(uniques)


def _small_int_codes(values: pd.Series, other: pd.Series) -> tuple[np.ndarray, np.ndarray, pd.Index] | None:
    """Integer ids in a compact range [0, n) are their own codes: no hashing at all.

    The code book then holds every id below the largest, used or not (a few
    empty bitmap columns), which is why this is only for items, not users.
    """
    first, second = _integers(values), _integers(other)
    if first is None or second is None:
        return None
    low = min(int(first.min(initial=0)), int(second.min(initial=0)))
    high = max(int(first.max(initial=0)), int(second.max(initial=0)))
    if low < 0 or high >= min(_SPARSE_IDS, 4 * (first.size + second.size) + 1024):
        return None
    return first.astype(np.int64, copy=False), second.astype(np.int64, copy=False), pd.RangeIndex(high + 1)


def _integers(column: pd.Series) -> np.ndarray | None:
    """An integer column as NumPy (Arrow integers without missing values read in place), else None."""
    if isinstance(column.dtype, np.dtype):
        return column.to_numpy() if column.dtype.kind in "iu" else None
    numbers = arrow_numbers(column)
    return numbers if numbers is not None and numbers.dtype.kind in "iu" else None


def _arrow_strings(values: pd.Series, other: pd.Series) -> tuple[Any, Any] | None:
    """Both columns as Arrow chunked string arrays of one type, or None (no pyarrow, not strings)."""
    arrays = [getattr(c.array, "__arrow_array__", None) for c in (values, other)]
    if any(a is None for a in arrays):
        return None
    try:  # optional (the `arrow` extra): a speed-up only; pandas' own factorize is the fallback
        import pyarrow as pa
    except ImportError:
        return None
    first, second = (pa.chunked_array(a()) for a in arrays if a is not None)
    if not (_is_arrow_string(first.type) and _is_arrow_string(second.type)):
        return None
    if second.type != first.type:  # e.g. a pyarrow string column with pandas' large_string: one type
        try:
            second = second.cast(first.type)
        except (pa.ArrowNotImplementedError, pa.ArrowInvalid):
            return None
    return first, second


def _is_arrow_string(kind: Any) -> bool:
    """True for Arrow's string types (string, large_string, string_view)."""
    import pyarrow as pa

    return bool(pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind))


def _run_heads(column: pd.Series, executor: Executor | None = None) -> np.ndarray:
    """True for each row whose value differs from the row before it.

    Rows that come shuffled (most of the first few thousand rows start a
    run) are all taken as heads without comparing: one run per row is always
    a correct description, and the comparison would find next to nothing.
    """
    if len(column) == 0:
        return np.zeros(0, dtype=bool)
    sample = column.iloc[:_RUN_SAMPLE]
    if len(column) > _RUN_SAMPLE and sample.ne(sample.shift(1)).mean() > 0.5:
        return np.ones(len(column), dtype=bool)
    values = _arrow_string_column(column) if len(column) > 1 else None
    if values is not None:  # Arrow strings: compare zero-copy slices, no shifted copy of the column
        return _encoding.arrow_run_heads(values, executor)
    heads = np.array(column.ne(column.shift(1)).to_numpy(dtype=bool, na_value=True))
    heads[0] = True
    return heads


def _arrow_string_column(column: pd.Series) -> Any:
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
    if is_string_view(column.dtype):  # pandas' dtype checks raise NotImplementedError on it
        return "strings or objects"
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


@validate_params(
    {
        "k": Cutoffs(),
        "metrics": Metrics(),
        **settings_constraints("frames"),
        **column_constraints("user_col", "item_col", "rank_col", "score_col", "relevance_col"),
    }
)
@_registry.document("metrics", "empty", "ties", "unjudged")
def evaluate(
    recommendations: pd.DataFrame,
    truth: pd.DataFrame,
    k: int | Sequence[int],
    *,
    metrics: Iterable[str] | None = None,
    denominator: str = Settings.denominator,
    gain: str = Settings.gain,
    ideal: str = Settings.ideal,
    empty: str = Settings.empty,
    ties: str = Settings.ties,
    user_col: str = "user",
    item_col: str = "item",
    rank_col: str = "rank",
    score_col: str = "score",
    relevance_col: str = "relevance",
    discount: str = Settings.discount,
    p: float = Settings.p,
    max_grade: float | None = Settings.max_grade,
    unjudged: str = Settings.unjudged,
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
        ERR's top of the grade scale (``err`` column), as in
        :func:`topkeval.err_at_k`. Default: the largest grade in the whole
        ``truth`` (at least 1; 1 without a relevance column), the same for
        every user, since g_max belongs to the scale (Chapelle et al. 2009);
        the value used is ``attrs["err_max_grade"]``. Pass the scale's top
        (4 to match gdeval / ir_measures' ``ERR@k``) when the truth may not
        reach it.
    unjudged : {"keep", "condense"}
        Whether listed items the truth does not judge stay in the lists. See Notes.

    Returns
    -------
    pandas.DataFrame
        Indexed by user id (sorted), columns ``<metric>@<k>`` in the order
        precision, recall, hit, rr, ap, ndcg for each k. ``.mean()`` gives
        P@k, R@k, HR@k, MRR@k, MAP@k and NDCG@k. ``.attrs`` records the
        options, the number of users with no relevant item and which were
        skipped, and (with ``err``) ERR's g_max as ``err_max_grade``.

    Notes
    -----
    The users are those of ``recommendations`` and ``truth`` together. A
    user with relevant items but no recommendations scores 0 on every metric
    (an empty list finds nothing). A user with recommendations but no
    relevant item (absent from ``truth``, or only grade-0 rows) is handled by
    ``empty``:

    %(empty)s

    %(ties)s

    RBP's residual (``metrics=[..., "rbp", "rbp_residual"]``, Moffat and
    Zobel 2008): with a ``relevance`` column the truth's rows are judgments,
    so a listed item absent from it is unjudged and its weight joins the
    residual; without one every unlisted item is judged not relevant and the
    residual is p^k. RBP lies in [``rbp@k``, ``rbp@k + rbp_residual@k``].

    bpref (``metrics=[..., "bpref"]``, Buckley and Voorhees 2004) reads the
    same judgments: it skips unjudged items and compares each relevant item
    with the grade-0 rows only; without a relevance column every listed
    non-relevant item counts against it.

    %(unjudged)s

    Condensing needs judgments: only a truth with a relevance column says
    which items are unjudged (without one nothing is dropped). The whole of
    each list is read, so the top k of a condensed list can hold items
    ranked below k in the original.

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
    settings = check_settings(
        denominator=denominator,
        gain=gain,
        ideal=ideal,
        discount=discount,
        empty=empty,
        ties=ties,
        p=p,
        max_grade=max_grade,
        unjudged=unjudged,
    )
    request = _Request(ks, check_metrics(metrics), settings)
    cols = dict(user=user_col, item=item_col, rank=rank_col, score=score_col, relevance=relevance_col)
    recommendations, truth = as_pandas(recommendations, "recommendations"), as_pandas(truth, "truth")
    by_rank = _check_frames(recommendations, truth, cols)

    executor = _encoding.pool()
    try:
        lists, truth_users, truth_items, item_index = _encode_ids(
            recommendations, truth, cols, by_rank, executor
        )
        key = _order_key(recommendations, by_rank, cols)
        whole = "listed" if unjudged == "condense" else ideal  # "listed" reads every list whole
        top, list_length = _list_matrix(lists, key, by_rank, max(ks), whole, ties, cols, executor)
        judged = _truth_judged(request, truth, truth_users, truth_items, lists, cols)
        indptr, truth_items, rel_grades, n_relevant = _truth_csr(truth, truth_users, truth_items, lists, cols)
        request, err_attrs = _with_err_scale(request, rel_grades)
        result = _compute(
            top,
            indptr,
            truth_items,
            rel_grades,
            lists.n_items,
            request,
            _DEFAULT_BLOCK,
            "all",
            True,
            judged,
            executor,
        )
    except (DuplicateRelevantError, DuplicateRecommendationError) as err:
        raise duplicate_in_frames(err, lists.user_of_row(err.user), item_index[err.item]) from None
    finally:
        if executor is not None:
            executor.shutdown()
    if lists.row_of_user is not None:  # back to user order
        result = {name: values[lists.row_of_user] for name, values in result.items()}
    attrs = dict(
        k=list(ks),
        denominator=denominator,
        gain=gain,
        ideal=ideal,
        discount=discount,
        ties=ties if not by_rank else None,
        unjudged=unjudged,
        n_users_without_recommendations=int(((list_length == 0) & (n_relevant > 0)).sum()),
        **err_attrs,
    )
    return _apply_empty(result, pd.Index(lists.users, name=user_col), n_relevant == 0, empty, attrs)


def _encode_ids(
    recommendations: pd.DataFrame,
    truth: pd.DataFrame,
    cols: dict[str, str],
    by_rank: bool,
    executor: Executor | None,
) -> tuple[_Lists, np.ndarray, np.ndarray, pd.Index]:
    """Users and items as codes, hashed at the same time: the lists, the truth's user and item codes,
    and the item code book."""
    users = _codes(recommendations[cols["user"]], truth[cols["user"]], "user", runs=True, executor=executor)
    # item codes need the ids' order only to break ties between equal scores
    items = _codes(
        recommendations[cols["item"]], truth[cols["item"]], "item", sort=not by_rank, executor=executor
    )
    run_users, truth_users, user_index, heads = users()
    rec_items, truth_items, item_index, _ = items()
    _encoding.release_unused()
    lists = _Lists(user_index, run_users, heads, rec_items, len(item_index))
    return lists, truth_users, truth_items, item_index


class _Lists:
    """The encoded recommendations: users, runs of rows, items; and where each user's list row is."""

    def __init__(
        self, users: pd.Index, run_users: np.ndarray, heads: np.ndarray, items: np.ndarray, n_items: int
    ):
        self.users, self.run_users, self.heads, self.items = users, run_users, heads, items
        self.n_users, self.n_items = len(users), n_items
        self.row_of_user: np.ndarray | None = None  # list rows are users in code order, unless set

    def user_of_row(self, row: int):
        return plain(self.users[row if self.row_of_user is None else self.run_users[row]])


def _check_frames(recommendations: pd.DataFrame, truth: pd.DataFrame, cols: dict[str, str]) -> bool:
    """Check the columns; return True when the lists are given by rank, False when by score."""
    names = ", ".join(f"{n}_col=..." for n in cols)
    hint = f" ({names})"
    check_columns(recommendations, "recommendations", [cols["user"], cols["item"]], hint)
    check_columns(truth, "truth", [cols["user"], cols["item"]], hint)
    if cols["rank"] in recommendations.columns:
        return True
    if cols["score"] not in recommendations.columns:
        raise InvalidInputError(
            f"recommendations needs a {cols['rank']!r} column (1 = best) or a {cols['score']!r} column "
            f"(higher = better); it has {', '.join(repr(str(c)) for c in recommendations.columns)}. "
            "Pass rank_col=... or score_col=... if yours are named differently."
        )
    return False


def _order_key(recommendations: pd.DataFrame, by_rank: bool, cols: dict[str, str]) -> np.ndarray:
    """What orders each user's rows: the rank (smallest first), or the score (largest first).

    A float64 score column is returned as it is (no copy: each block of rows is negated when it is
    sorted)."""
    if not by_rank:
        scores = recommendations[cols["score"]]
        if scores.dtype == np.float64 and isinstance(scores.dtype, np.dtype):  # one pass, no NA-filled copy
            key = scores.to_numpy()
            if not np.isnan(key).any():
                return key
        return _numeric(scores, cols["score"], "recommendations")  # its checks and messages
    rank_col = cols["rank"]
    key = _numeric(recommendations[rank_col], rank_col, "recommendations", keep_int=True)
    if key.size and (key.min() < 1 or (key.dtype.kind == "f" and not np.all(key == np.floor(key)))):
        raise InvalidInputError(
            f"{rank_col} must hold whole numbers >= 1 (1 = best); found "
            f"{key[(key < 1) | (key != np.floor(key))][0].item():.15g}."
        )
    return key


def _list_matrix(
    lists: _Lists,
    key: np.ndarray,
    by_rank: bool,
    kmax: int,
    ideal: str,
    ties: str,
    cols: dict[str, str],
    executor: Executor | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The (users x width) matrix of item codes, best first, -1 for empty slots; and each list's length."""
    heads = lists.heads
    runs = lists.run_users.size  # one block of rows per user? (more runs than users: some user has two)
    grouped = runs == 0 or (runs <= lists.n_users and np.bincount(lists.run_users).max() == 1)
    found = None
    if not by_rank:  # per-user sorts (topkeval._ranking); None only for ties="raise" with a tie
        found = _ranking.top_by_score(
            key, lists.items, lists.run_users, heads, grouped, lists.n_users, kmax, ideal, ties, executor
        )
    elif grouped:  # the common case: every user has a list of the same length, best first
        run_length = np.diff(np.append(np.flatnonzero(heads), heads.size))
        found = _top_from_runs(key, lists.items, lists.run_users, run_length, lists.n_users, kmax, ideal)
    if found is None:  # the general path orders by minus the score, smallest first
        return _general_list_matrix(
            lists, key if by_rank else -key, by_rank, grouped, kmax, ideal, ties, cols
        )
    top, list_length, in_run_order = found
    if in_run_order:  # keep the rows where they are; move the (much smaller) truth and results
        row = np.int32 if lists.n_users < 2**31 else np.int64  # it indexes every truth row: keep it small
        lists.row_of_user = np.empty(lists.n_users, dtype=row)
        lists.row_of_user[lists.run_users] = np.arange(lists.n_users, dtype=row)
    return top, list_length


def _general_list_matrix(
    lists: _Lists,
    key: np.ndarray,
    by_rank: bool,
    grouped: bool,
    kmax: int,
    ideal: str,
    ties: str,
    cols: dict[str, str],
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_list_matrix` for any rows: each row's position in its user's list, then one scatter."""
    heads = lists.heads
    rec_users = _expand_runs(lists.run_users, heads)
    if by_rank and grouped and np.all((key[1:] > key[:-1]) | heads[1:]):
        # rows grouped by user, best first: no sort needed
        run_start = np.flatnonzero(heads)
        run_length = np.diff(np.append(run_start, heads.size))
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
        raise InvalidInputError(
            f"user {plain(lists.users[sorted_users[at]])!r} has two items at {cols['rank']} "
            f"{sorted_key[at]:g}; "
            "ranks must be distinct within a user. Give the tied items distinct ranks, or pass "
            "scores instead and choose ties=..."
        )
    if ties == "raise" and not by_rank and (same & (position[1:] < kmax)).any():
        at = int(np.flatnonzero(same & (position[1:] < kmax))[0])
        raise InvalidInputError(
            f"user {plain(lists.users[sorted_users[at]])!r} has tied scores ({float(-sorted_key[at])!r}) "
            "in its top "
            f"{kmax}; pass ties='item_ascending', 'item_descending' or 'input_order' to choose an order."
        )
    return sorted_users, sorted_items, position


def _truth_grades(truth: pd.DataFrame, relevance_col: str) -> np.ndarray | None:
    """The relevance column as checked float grades (booleans are 0/1),
    or None when there is none (binary)."""
    if relevance_col not in truth.columns:
        return None
    column = truth[relevance_col]
    if pd.api.types.is_bool_dtype(column.dtype):
        column = column.astype("float64")
    return check_grades(
        _numeric(column, relevance_col, "truth"), f"the {relevance_col!r} column of truth holds"
    )


def _truth_judged(
    request: _Request,
    truth: pd.DataFrame,
    truth_users: np.ndarray,
    truth_items: np.ndarray,
    lists: _Lists,
    cols: dict[str, str],
) -> tuple[np.ndarray, np.ndarray] | None:
    """Every judged item (the truth's rows, grade 0 too) as CSR, for RBP's residual, bpref and condensed
    lists; None when not needed.

    Only a truth with a relevance column lists judgments; without one every unlisted item is judged not
    relevant, and nothing is unjudged.
    """
    if not _needs_judgments(request) or cols["relevance"] not in truth.columns:
        return None
    indptr, items, _, _ = _truth_csr(truth, truth_users, truth_items, lists, cols, keep_zero=True)
    return indptr, items


def _truth_csr(
    truth: pd.DataFrame,
    truth_users: np.ndarray,
    truth_items: np.ndarray,
    lists: _Lists,
    cols: dict[str, str],
    keep_zero: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray]:
    """The relevant rows as CSR aligned with the list matrix's rows: (indptr, items, grades, |R| per user).

    With ``keep_zero`` every row counts, grade 0 too: the judged items (RBP's residual).
    """
    grades = _truth_grades(truth, cols["relevance"])
    if grades is not None and not keep_zero:
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


def _numeric(column: pd.Series, name: str, frame: str, keep_int: bool = False) -> np.ndarray:
    """The column as float64 (or, with ``keep_int``, as its own integer dtype: no copy)."""
    if len(column) == 0:
        return np.zeros(0, dtype=np.float64)
    if (
        is_string_view(column.dtype)  # checked first: pandas' is_numeric_dtype raises on it
        or not pd.api.types.is_numeric_dtype(column.dtype)
        or pd.api.types.is_bool_dtype(column.dtype)
    ):
        raise InputTypeError(f"the {name!r} column of {frame} must be numeric; got dtype {column.dtype}.")
    values = _own_numbers(column)
    if keep_int and values.dtype.kind == "i":  # unsigned diffs wrap
        return values
    values = values.astype(np.float64, copy=False)
    if np.isnan(values).any():
        raise InvalidInputError(
            f"the {name!r} column of {frame} has missing values; drop or fill those rows first."
        )
    return values


def _own_numbers(column: pd.Series) -> np.ndarray:
    """A numeric column's values in its own dtype where that needs no copy (NumPy columns; Arrow ones,
    from pyarrow or Polars, without missing values), else as float64 with NaN for the missing ones."""
    if isinstance(column.dtype, np.dtype):
        return column.to_numpy()
    values = arrow_numbers(column)  # Arrow's own buffer
    return values if values is not None else column.to_numpy(dtype=np.float64, na_value=np.nan)
