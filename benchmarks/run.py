"""Benchmark: users per second and peak memory of topkeval's batch paths, against peers.

    python -m benchmarks.run                          # U = 1e5, 1e6; K = 10, 100 (about 40 minutes)
    python -m benchmarks.run --users 100000 --k 100   # one size
    python -m benchmarks.run --quick                  # the smoke run that `make test` does
    python -m benchmarks.run --relevant 1             # leave-one-out: 1 relevant item per user (`10`: ten)

Every route starts from the same deterministic data and computes the same six
metrics per user: P@K, R@K, Hit@K, RR@K, AP@K (denominator |R|, trec_eval's
map_cut) and NDCG@K (linear gain). Routes:

* ``arrays``   topkeval.evaluate_arrays on an int (users x K) matrix + CSR relevance
* ``frames``   topkeval.evaluate on pandas DataFrames with str ids, end to end
               (id encoding included): rank rows, grouped by user
* ``scores``   the same rows with a ``score`` column (K + 1 - rank) instead of
               ranks, grouped by user (what a recommender writes)
* ``unsorted`` the score rows still grouped by user, but each user's rows in a
               random order (a recommender that scores candidates in item order)
* ``shuffled`` those score rows in a random order
* ``<kind>-object``, ``<kind>-arrow``, ``<kind>-polars``  each of the three
               kinds with object columns of Python str, as a pyarrow Table or
               as a Polars DataFrame (the truth too), if installed
* ``pytrec_eval`` end to end: dict-of-dicts built from the same DataFrames (score
               K + 1 - rank, so every route ranks the same way), then
               RelevanceEvaluator + evaluate + means (if installed)
* ``ranx``     end to end: Qrels/Run from the same DataFrames, then evaluate
               (if installed; its one-time JIT compile is excluded by a warm-up)
* ``python``   a plain per-user loop over lists and sets (conversion included)

Each time is the median of ``--repeats`` runs (a peer whose first run takes
over a minute is run once); the ratio columns divide a peer's time by ours,
measured in the same process minutes apart (on a noisy 2-core machine ratios
moved by up to 30 % between runs; absolute times move more). Above
``PEER_CHUNK`` users a peer evaluates consecutive chunks of users one after
the other, as one would on this machine (pytrec_eval needs about 29 GiB for
1e6 users x 100 in one go); its time is the sum over all chunks. Before
timing, every route's per-user values are checked against topkeval's per-user
functions on the first ``--check`` users (to 1e-9), and each peer's values
for every user are compared with ours after timing (to 1e-9: "max |diff| ...
(all users)"); every input kind must give the frames route's values exactly.
Peak memory is a route's peak resident memory minus its resident memory just
before it starts (Linux: VmHWM, reset through /proc/self/clear_refs, after
gc and glibc's ``malloc_trim(0)``), so NumPy, Arrow, Polars and the peers'
C/C++ allocations all count. Measured in the timing process, that number is
too low for a route that reuses memory an earlier route's allocator kept
(Polars' and Arrow's allocators keep freed memory for a while; an earlier
version of this benchmark showed pytrec_eval at +0.002 GiB for 1e8 rows). So
by default (``--memory subprocess``) every route's peak is measured again, one
run, in a fresh process on the same data (saved to a temporary .npz file, the
frames rebuilt from it exactly as here) with nothing else allocated: the times
stay side by side in one process, the memory column comes from the fresh
processes. ``--memory inline`` (and ``--quick``) keep the in-process number.
A chunked peer's peak is measured on its first chunk (the chunks are alike
and run one after another). "inputs" is the size of the arrays (arrays route) or of the two
frames.

Input kinds: ``frames``, ``scores``, ``unsorted`` and ``shuffled`` hold pandas' default
``str`` columns (Arrow-backed in pandas 3 with pyarrow installed);
``-object`` the same ids as ``object`` columns of Python str (pandas 2's
default, or ``dtype=object``); ``-arrow`` a pyarrow Table; ``-polars`` a
Polars DataFrame. ``--libraries str arrow`` limits the run to those id holders.

The last lines compare the largest run with the targets of the performance
issues: arrays >= 500 k users/s at K = 100 (stretch 850 k) and >= 1.2 M at
K = 10, extra peak memory <= 0.5 GB; frames >= 5x faster than pytrec_eval and
ranx end to end; score rows grouped by user >= 10x and shuffled score rows
>= 5x faster than pytrec_eval, each with a lower peak memory than
pytrec_eval's. ``--ranx-chunks N`` times ranx on its first N chunks only and
scales the time to all users (its throughput is flat in the number of users;
the output says so).
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import importlib.util
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

import numpy as np
import pandas as pd

import topkeval

N_ITEMS = 100_003  # prime: arithmetic progressions modulo it never repeat within a list
METRICS = list(topkeval.DEFAULT_METRICS)  # the registry's default metrics: the six the peers compute too
# above this many users a peer runs chunk by chunk (in one go pytrec_eval needs ~29 GiB and
# the Python loop ~11 GiB at 1e6 users x 100: perf-baseline.md)
PEER_CHUNK = {"pytrec_eval": 100_000, "ranx": 100_000, "python": 250_000}
SINGLE_RUN_AFTER = 60.0  # seconds: a peer this slow is timed once, not --repeats times
#: ``--relevant``: relevant items per user, in words (every output names the shape it measured)
SHAPES = {
    "mixed": "1-20 relevant items per user (mean 13.3), 5 % of users none",
    "1": "1 relevant item per user (leave-one-out)",
    "10": "10 relevant items per user",
}
#: the row order of each input kind, in words
ROW_ORDER = {
    "frames": "rank rows grouped by user",
    "scores": "score rows grouped by user, best first",
    "unsorted": "score rows grouped by user, unordered within a user",
    "shuffled": "score rows shuffled",
}


# ---------------------------------------------------------------- data
def make_data(n_users: int, k: int, relevant: str = "mixed") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Deterministic synthetic run: (top (U x K), indptr, relevant items), ids in [0, N_ITEMS).

    ``relevant`` is the shape of the truth (see ``SHAPES``): ``"mixed"`` (the default) draws |R| from
    1..20 with P(|R| = m) = (2m - 1)/400 (mean 13.3) and gives 5 % of users none; ``"1"`` gives every
    user exactly one relevant item (leave-one-out); ``"10"`` gives every user exactly ten. Each
    relevant item is in the list with probability 0.15 (K <= 10) or 0.85, at a pseudo-random
    position; the others are ids the list does not hold.
    """
    if relevant not in SHAPES:
        raise ValueError(f"relevant={relevant!r}: choose one of {', '.join(SHAPES)}")
    if relevant == "mixed":  # the seed the earlier recorded runs used: the same data as then
        rng = np.random.default_rng([20240611, n_users, k])
        sizes = np.arange(1, 21)
        n_rel = rng.choice(sizes, size=n_users, p=(2 * sizes - 1) / 400.0)
        n_rel[rng.random(n_users) < 0.05] = 0
    else:
        rng = np.random.default_rng([20240611, n_users, k, int(relevant)])
        n_rel = np.full(n_users, int(relevant))
    base = rng.integers(0, N_ITEMS, size=n_users)
    step = rng.integers(1, N_ITEMS, size=n_users)
    top = (base[:, None] + step[:, None] * np.arange(k)) % N_ITEMS  # K distinct ids per user
    indptr = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(n_rel, out=indptr[1:])
    owner = np.repeat(np.arange(n_users), n_rel)
    j = np.arange(indptr[-1]) - indptr[owner]  # 0.. |R|-1 within the user
    in_list = rng.random(indptr[-1]) < (0.15 if k <= 10 else 0.85)
    in_list &= j < k
    coprime = np.array([s for s in range(1, k + 1) if math.gcd(s, k) == 1])
    offset = rng.integers(0, k, size=n_users)[owner]
    stride = coprime[rng.integers(0, len(coprime), size=n_users)][owner]
    pos = (offset + stride * j) % k  # distinct positions within a user
    outside = (base[owner] + step[owner] * (k + j)) % N_ITEMS  # ids beyond the list: never listed
    items = np.where(in_list, top[owner, pos], outside)
    order = np.lexsort((items, owner))  # sorted within each user, as a CSR matrix keeps them
    return top.astype(np.int64), indptr, items[order].astype(np.int64)


def make_frames(top: np.ndarray, indptr: np.ndarray, items: np.ndarray) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The same data as DataFrames with str ids (what a practitioner holds): pandas' default ``str``
    columns (Arrow-backed in pandas 3 with pyarrow; built straight from Arrow, which is faster and gives
    the same frames)."""
    n_users, k = top.shape
    user_ids = [f"user{u}" for u in range(n_users)]
    item_ids = [f"item{i}" for i in range(N_ITEMS)]
    owner = np.repeat(np.arange(n_users), np.diff(indptr))
    columns = {
        "recs": (np.repeat(np.arange(n_users), k), top.ravel()),
        "truth": (owner, items),
    }
    default = pd.Series(["a"]).dtype  # pandas' own str dtype (pandas 3: Arrow-backed when pyarrow is there)
    if getattr(default, "storage", None) == "pyarrow":
        import pyarrow as pa

        books = [pa.array(ids, type=pa.large_string()) for ids in (user_ids, item_ids)]

        def column(book, codes):
            return pd.Series(book.take(pa.array(codes)), dtype=default)
    else:
        books = [np.array(ids, dtype=object) for ids in (user_ids, item_ids)]

        def column(book, codes):
            return pd.Series(book[codes])

    recs = pd.DataFrame(
        {
            "user": column(books[0], columns["recs"][0]),
            "item": column(books[1], columns["recs"][1]),
            "rank": np.tile(np.arange(1, k + 1), n_users),
        }
    )
    truth = pd.DataFrame({"user": column(books[0], owner), "item": column(books[1], items)})
    return recs, truth


def object_frames(
    top: np.ndarray, indptr: np.ndarray, items: np.ndarray
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The same frames with ``object`` columns of Python str (pandas 2's default; ``dtype=object``
    in pandas 3): one str object per distinct id, shared by its rows, as a CSV reader makes them."""
    n_users, k = top.shape
    user_ids = np.array([f"user{u}" for u in range(n_users)], dtype=object)
    item_ids = np.array([f"item{i}" for i in range(N_ITEMS)], dtype=object)
    owner = np.repeat(np.arange(n_users), np.diff(indptr))
    recs = pd.DataFrame(
        {
            "user": pd.Series(np.repeat(user_ids, k), dtype=object),
            "item": pd.Series(item_ids[top.ravel()], dtype=object),
            "rank": np.tile(np.arange(1, k + 1), n_users),
        }
    )
    truth = pd.DataFrame(
        {"user": pd.Series(user_ids[owner], dtype=object), "item": pd.Series(item_ids[items], dtype=object)}
    )
    return recs, truth


# ---------------------------------------------------------------- routes
def route_arrays(data, k):
    top, indptr, items, _, _ = data
    return topkeval.evaluate_arrays(
        top, indptr, items, k=k, denominator="n_relevant", empty="zero", n_items=N_ITEMS
    )


def route_pytrec_eval(data, k):
    import pytrec_eval

    _, _, _, recs, truth = data
    qrels: dict[str, dict[str, int]] = {}
    for user, item in zip(truth["user"].tolist(), truth["item"].tolist(), strict=True):
        qrels.setdefault(user, {})[item] = 1
    run: dict[str, dict[str, float]] = {}
    for user, item, rank in zip(
        recs["user"].tolist(), recs["item"].tolist(), recs["rank"].tolist(), strict=True
    ):
        run.setdefault(user, {})[item] = float(k + 1 - rank)
    measures = {f"P.{k}", f"recall.{k}", f"success.{k}", "recip_rank", f"map_cut.{k}", f"ndcg_cut.{k}"}
    result = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    names = [f"P_{k}", f"recall_{k}", f"success_{k}", "recip_rank", f"map_cut_{k}", f"ndcg_cut_{k}"]
    frame = pd.DataFrame.from_dict(result, orient="index")[names]
    frame.columns = [f"{m}@{k}" for m in METRICS]
    return frame


def route_ranx(data, k):
    import ranx

    _, _, _, recs, truth = data
    ids = {"user": object, "item": object}  # ranx asserts object dtype; pandas 3 reads str ids as "str"
    recs, truth = recs.astype(ids), truth.astype(ids)
    qrels = ranx.Qrels.from_df(truth.assign(score=1), q_id_col="user", doc_id_col="item", score_col="score")
    run = ranx.Run.from_df(
        recs.assign(score=(k + 1 - recs["rank"]).astype(float)),
        q_id_col="user",
        doc_id_col="item",
        score_col="score",
    )
    names = [f"precision@{k}", f"recall@{k}", f"hit_rate@{k}", f"mrr@{k}", f"map@{k}", f"ndcg@{k}"]
    ranx.evaluate(qrels, run, names, make_comparable=True)
    frame = pd.DataFrame({name: run.scores[name] for name in names})
    frame.columns = [f"{m}@{k}" for m in METRICS]
    return frame


def route_python(data, k):
    top, indptr, items, _, _ = data
    rankings = top.tolist()
    relevant = [set(items[indptr[u] : indptr[u + 1]].tolist()) for u in range(len(rankings))]
    discounts = [1.0 / math.log2(i + 2) for i in range(k)]
    ideal = [0.0]
    for d in discounts:
        ideal.append(ideal[-1] + d)
    rows = []
    for ranking, rel in zip(rankings, relevant, strict=True):
        if not rel:
            continue
        hits = 0
        first = 0
        ap = 0.0
        dcg = 0.0
        for i, item in enumerate(ranking[:k]):
            if item in rel:
                hits += 1
                ap += hits / (i + 1)
                dcg += discounts[i]
                if not first:
                    first = i + 1
        rows.append(
            (
                hits / k,
                hits / len(rel),
                float(hits > 0),
                1 / first if first else 0.0,
                ap / len(rel),
                dcg / ideal[min(len(rel), k)],
            )
        )
    return pd.DataFrame(rows, columns=[f"{m}@{k}" for m in METRICS])


def route_frames(data, k):
    _, _, _, recs, truth = data
    return topkeval.evaluate(recs, truth, k=k, denominator="n_relevant", empty="skip")


ROUTES: dict[str, Callable] = {
    "arrays": route_arrays,
    "frames": route_frames,
    "pytrec_eval": route_pytrec_eval,
    "ranx": route_ranx,
    "python": route_python,
}
PEERS = ["pytrec_eval", "ranx", "python"]
#: rank rows; score rows grouped by user, best first; grouped, each user's rows in random order; shuffled
KINDS = ["frames", "scores", "unsorted", "shuffled"]
#: how the frames hold their ids: pandas' default str (Arrow-backed in pandas 3), pandas object columns of
#: Python str, a pyarrow Table, a Polars DataFrame
LIBRARIES = {"": None, "-object": "object", "-arrow": "pyarrow", "-polars": "polars"}
OURS = ["arrays"] + [kind + lib for kind in KINDS for lib in LIBRARIES]
#: the id holders a run measures (``--libraries``): all of LIBRARIES unless narrowed
SELECTED = dict(LIBRARIES)


def score_rows(recs: pd.DataFrame, k: int) -> pd.DataFrame:
    """The rank rows as score rows (K + 1 - rank: the same order), still grouped by user."""
    return pd.DataFrame(
        {"user": recs["user"], "item": recs["item"], "score": (k + 1 - recs["rank"]).astype(float)}
    )


def unsorted_rows(scores: pd.DataFrame, rank: np.ndarray, seed: int = 25) -> pd.DataFrame:
    """The score rows, still grouped by user (a user's rows start at rank 1), each user's rows shuffled."""
    group = np.cumsum(rank == 1)
    order = np.lexsort((np.random.default_rng(seed).random(len(group)), group))
    return scores.take(order).reset_index(drop=True)


def shuffled_rows(scores: pd.DataFrame, seed: int = 26) -> pd.DataFrame:
    return scores.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def as_library(frame: pd.DataFrame, library: str | None):
    """The frame as pandas (None), a pyarrow Table or a Polars DataFrame."""
    if library is None:
        return frame
    import pyarrow as pa

    table = pa.Table.from_pandas(frame, preserve_index=False)
    if library == "pyarrow":
        return table
    import polars as pl

    return pl.from_arrow(table)


def _kind_rows(recs: pd.DataFrame, kind: str, k: int) -> pd.DataFrame:
    rows = recs if kind == "frames" else score_rows(recs, k)
    if kind == "unsorted":
        return unsorted_rows(rows, recs["rank"].to_numpy())
    return shuffled_rows(rows) if kind == "shuffled" else rows


def our_inputs(data, k: int, only: str | None = None):
    """Yield (route name, recommendations, truth) for every input kind (or the one named ``only``);
    each frame built when needed."""
    top, indptr, items, recs, truth = data
    for kind in KINDS:
        wanted = [s for s in LIBRARIES if only == kind + s or (only is None and s in SELECTED)]
        if not wanted:
            continue
        rows = None  # the str rows, built only for the holders that need them
        for suffix in wanted:
            library = LIBRARIES[suffix]
            if library == "object":
                object_recs, object_truth = object_frames(top, indptr, items)
                yield kind + suffix, _kind_rows(object_recs, kind, k), object_truth
                del object_recs, object_truth
            elif library is None or importlib.util.find_spec(library) is not None:
                rows = _kind_rows(recs, kind, k) if rows is None else rows
                yield kind + suffix, as_library(rows, library), as_library(truth, library)
        del rows
        gc.collect()


def route_ours(recs, truth, k):
    return topkeval.evaluate(recs, truth, k=k, denominator="n_relevant", empty="skip")


def in_chunks(route: Callable, chunk: int, limit: int | None = None) -> Callable:
    """Run ``route`` on consecutive chunks of ``chunk`` users and stack the results (the first ``limit``)."""

    def chunked(data, k):
        top, indptr, items, recs, truth = data
        n_users = top.shape[0]
        parts = []
        for a in range(0, n_users, chunk)[:limit]:
            b = min(n_users, a + chunk)
            r0, r1 = indptr[a], indptr[b]
            part = (
                top[a:b],
                indptr[a : b + 1] - r0,
                items[r0:r1],
                recs.iloc[a * k : b * k],
                truth.iloc[r0:r1],
            )
            parts.append(route(part, k))
        return pd.concat(parts)

    return chunked


def available(peer: str) -> bool:
    return peer == "python" or importlib.util.find_spec(peer) is not None


# ---------------------------------------------------------------- measuring
def _release() -> None:
    """Hand freed memory back to the system, so the next peak is measured from a true baseline."""
    gc.collect()
    try:
        import pyarrow as pa

        pa.default_memory_pool().release_unused()
    except ImportError:
        pass
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _status_kib(field: str) -> int | None:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")  # resets VmHWM to the current resident size (Linux >= 4.0)
        return True
    except OSError:
        return False


def timed(function, *args, repeats: int) -> tuple[float, int, pd.DataFrame, float]:
    """Median seconds over ``repeats`` runs (one if the first takes over a minute), runs, result, peak GiB.

    The peak is the extra resident memory of the first run (NaN where Linux's
    /proc interface is missing).
    """
    times: list[float] = []
    result = None
    peak = float("nan")
    while len(times) < repeats and not (times and times[0] > SINGLE_RUN_AFTER):
        result = None
        _release()
        before = _status_kib("VmRSS") if not times and _reset_peak() else None
        start = time.perf_counter()
        result = function(*args)
        times.append(time.perf_counter() - start)
        if before is not None:
            peak = (_status_kib("VmHWM") - before) / 2**20
    return statistics.median(times), len(times), result, peak


def full_agreement(
    peer: str, got: pd.DataFrame, ours: dict[str, pd.DataFrame], indptr: np.ndarray, partial: bool = False
) -> float:
    """Largest |difference| between a peer and our values over every user it scored (with relevant items)."""
    if peer == "python":  # one row per user with relevant items, in user order
        want = ours["arrays"].to_numpy()[np.diff(indptr) > 0]
        got_values = got.to_numpy()
    else:  # indexed by user id, like evaluate's result
        want_frame = ours["frames"]
        if (len(got) != len(want_frame) and not partial) or not got.index.isin(want_frame.index).all():
            raise AssertionError(f"{peer} scored a different set of users than topkeval.evaluate")
        want, got_values = want_frame.loc[got.index].to_numpy(), got.to_numpy()
    if want.shape != got_values.shape:
        raise AssertionError(f"{peer} returned {got_values.shape} values, topkeval {want.shape}")
    return float(np.abs(want - got_values).max(initial=0.0))


def check_agreement(data, k: int, n_check: int, peers: list[str]) -> float:
    """Largest |difference| between every route and the per-user functions, first n_check users."""
    top, indptr, items, _, _ = data
    small = (top[:n_check], indptr[: n_check + 1], items[: indptr[n_check]])
    recs, truth = make_frames(*small)
    sample = (*small, recs, truth)
    expected = {}
    for u in range(n_check):
        rel = set(items[indptr[u] : indptr[u + 1]].tolist())
        if not rel:
            continue
        ranking = top[u].tolist()
        expected[f"user{u}"] = [
            topkeval.precision_at_k(ranking, rel, k),
            topkeval.recall_at_k(ranking, rel, k),
            topkeval.hit_at_k(ranking, rel, k),
            topkeval.reciprocal_rank_at_k(ranking, rel, k),
            topkeval.average_precision_at_k(ranking, rel, k, denominator="n_relevant"),
            topkeval.ndcg_at_k(ranking, rel, k),
        ]
    want = pd.DataFrame.from_dict(expected, orient="index").sort_index()
    worst = 0.0
    results = [(name, ROUTES[name](sample, k)) for name in ["arrays", *peers]]
    results += [(name, route_ours(r, t, k)) for name, r, t in our_inputs(sample, k)]
    for name, got in results:
        if name == "arrays":
            got.index = [f"user{u}" for u in got.index]
            got = got.loc[want.index]
        elif name == "python":
            got.index = want.index.sort_values(key=lambda s: s.str[4:].astype(int))
        got = got.sort_index()
        diff = float(np.abs(got.to_numpy() - want.to_numpy()).max())
        if diff > 1e-9:
            raise AssertionError(f"{name} disagrees with the per-user functions by {diff:.3g}")
        worst = max(worst, diff)
    return worst


def frames_gib(recs, truth) -> float:
    def size(frame) -> float:
        if isinstance(frame, pd.DataFrame):
            return float(frame.memory_usage(deep=True).sum())
        return float(frame.nbytes if hasattr(frame, "nbytes") else frame.estimated_size())

    return (size(recs) + size(truth)) / 2**30


def _ours_row(k, n_users, name, seconds, peak, inputs, agreement) -> dict:
    return dict(
        k=k,
        users=n_users,
        route=name,
        seconds=seconds,
        users_per_s=n_users / seconds,
        peak_gib=peak,
        input_gib=inputs,
        agreement=agreement,
    )


def time_ours(data, k: int, repeats: int, worst: float) -> tuple[list[dict], dict[str, pd.DataFrame]]:
    """Every route of ours on every input kind: rows of the table, and the arrays and frames results."""
    n_users = data[0].shape[0]
    seconds, _, arrays_result, peak = timed(route_arrays, data, k, repeats=repeats)
    rows = [_ours_row(k, n_users, "arrays", seconds, peak, sum(a.nbytes for a in data[:3]) / 2**30, worst)]
    values = {"arrays": arrays_result}
    for name, recs, truth in our_inputs(data, k):
        seconds, _, got, peak = timed(route_ours, recs, truth, k, repeats=repeats)
        if name == "frames":
            values["frames"] = got
            diff = worst
        else:  # every input kind must give exactly the rank rows' values
            diff = float(np.abs(got.to_numpy() - values["frames"].loc[got.index].to_numpy()).max(initial=0.0))
            if len(got) != len(values["frames"]) or diff > 1e-12:
                raise AssertionError(f"{name} disagrees with frames by {diff:.3g}")
        rows.append(_ours_row(k, n_users, name, seconds, peak, frames_gib(recs, truth), diff))
        del got, recs, truth
    return rows, values


def _peer_route(peer: str, n_users: int, ranx_chunks: int | None) -> tuple[Callable, int | None]:
    """The peer's route, chunked above PEER_CHUNK users, and how many chunks it runs (None: all)."""
    chunk = PEER_CHUNK[peer]
    limit = ranx_chunks if peer == "ranx" and ranx_chunks and n_users > chunk * ranx_chunks else None
    return (ROUTES[peer] if n_users <= chunk else in_chunks(ROUTES[peer], chunk, limit)), limit


def time_peer(peer, data, k, repeats, values, ranx_chunks) -> dict:
    n_users = data[0].shape[0]
    chunk = PEER_CHUNK[peer]
    route, limit = _peer_route(peer, n_users, ranx_chunks)
    seconds, runs, got, peak = timed(route, data, k, repeats=repeats)
    diff = full_agreement(peer, got, values, data[1], partial=limit is not None)
    if diff > 1e-9:
        raise AssertionError(f"{peer} disagrees with topkeval by {diff:.3g} at U = {n_users:,}, K = {k}")
    scale = n_users / len(got) if limit else 1.0
    return dict(
        k=k,
        users=n_users,
        route=peer,
        seconds=seconds * scale,
        users_per_s=n_users / (seconds * scale),
        peak_gib=peak,
        chunks=-(-n_users // chunk),
        timed_chunks=limit,
        runs=runs,
        repeats=repeats,
        agreement=diff,
    )


def _warm_up_ranx() -> None:
    """ranx compiles its kernels with numba on first use (about 30 s): do it on tiny data, untimed."""
    tiny = make_data(50, 10)
    route_ranx((*tiny, *make_frames(*tiny)), 10)


def _route_on(data, k: int, route: str) -> tuple[Callable, tuple]:
    """The function and arguments that run ``route`` on ``data`` (a chunked peer: its first chunk)."""
    if route == "arrays":
        return route_arrays, (data, k)
    if route in PEERS:
        n_users = data[0].shape[0]
        if n_users > PEER_CHUNK[route]:  # one chunk: the chunks are alike and run one after another
            return in_chunks(ROUTES[route], PEER_CHUNK[route], 1), (data, k)
        return ROUTES[route], (data, k)
    _, recs, truth = next(our_inputs(data, k, only=route))
    return route_ours, (recs, truth, k)


def memory_child(route: str, k: int, path: str) -> float:
    """Extra peak resident memory (GiB) of one run of ``route``, in this fresh process, on the data in
    ``path``: its frames are built, the route is run once on 50 users (imports, JIT compiles and
    caches are not the route's footprint), everything else freed, then the peak is reset and measured."""
    tiny = make_data(50, k)
    function, args = _route_on((*tiny, *make_frames(*tiny)), k, route)
    function(*args)
    with np.load(path) as saved:
        arrays = (saved["top"], saved["indptr"], saved["items"])
    # an object route builds its own frames from the arrays: no str frames beside them (at 10^8 rows they
    # and the object frames would not fit in memory together with the timing process)
    frames = (None, None) if route.endswith("-object") else make_frames(*arrays)
    function, args = _route_on((*arrays, *frames), k, route)
    _release()
    if not _reset_peak():
        return float("nan")
    before = _status_kib("VmRSS")
    function(*args)
    return (_status_kib("VmHWM") - before) / 2**20


def measure_memory(rows: list[dict], arrays, k: int) -> None:
    """Each route's peak, measured again in a fresh process on the same data (saved to a file), into
    ``rows``: in the timing process, memory an allocator kept from an earlier route hides part of a
    later route's peak."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory(prefix="topkeval-bench-") as folder:
        path = os.path.join(folder, "data.npz")
        np.savez(path, top=arrays[0], indptr=arrays[1], items=arrays[2])
        for row in rows:
            command = [sys.executable, "-m", "benchmarks.run", "--memory-child", row["route"]]
            command += ["--k", str(k), "--data", path]
            done = subprocess.run(command, cwd=root, capture_output=True, text=True)
            if done.returncode != 0:  # e.g. killed for memory: this process holds the data too
                print(f"memory of {row['route']}: child exited {done.returncode}; peak n/a", file=sys.stderr)
                row["peak_gib"] = float("nan")
                continue
            row["peak_gib"] = float(done.stdout.split()[-1])


def run(
    users: list[int],
    ks: list[int],
    peers: list[str],
    repeats: int,
    n_check: int,
    out=sys.stdout,
    ranx_chunks: int | None = None,
    memory: str = "inline",
    relevant: str = "mixed",
) -> list[dict]:
    peers = [p for p in peers if available(p)]
    rows = []
    print(
        f"topkeval {topkeval.__version__}, numpy {np.__version__}, pandas {pd.__version__}; "
        f"peers: {', '.join(peers) or 'none'}; median of {repeats}; load average {_load()} at the start; "
        f"peak memory measured {'in a fresh process per route' if memory == 'subprocess' else 'here'}",
        file=out,
    )
    print(shape_line(relevant), file=out)
    if "ranx" in peers:  # warm up numba (its first compile takes ~30 s) on tiny data
        _warm_up_ranx()
    for k in ks:
        for n_users in users:
            shape = {"n_users": n_users, "k": k, "relevant": relevant, "n_check": n_check}
            rows += _measure_shape(shape, peers, repeats, ranx_chunks, memory == "subprocess", out)
            print(f"  (load average {_load()} after K={k}, U={n_users:,})", file=out)
            gc.collect()
    print_targets(rows, out)
    return rows


def _measure_shape(
    shape: dict, peers: list[str], repeats: int, ranx_chunks: int | None, in_subprocess: bool, out
) -> list[dict]:
    """Every route's row at one (U, K): our routes, then each peer timed against them, then memory."""
    n_users, k = shape["n_users"], shape["k"]
    arrays = make_data(n_users, k, shape["relevant"])
    data = (*arrays, *make_frames(*arrays))
    worst = check_agreement(data, k, min(shape["n_check"], n_users), peers)
    ours, values = time_ours(data, k, repeats, worst)
    rows = list(ours)
    by_name = {r["route"]: r["seconds"] for r in ours}
    for peer in peers:
        row = time_peer(peer, data, k, repeats, values, ranx_chunks)
        row["versus"] = {name: row["seconds"] / by_name[name] for name in by_name}
        rows.append(row)
    if in_subprocess:
        measure_memory(rows, arrays, k)
    print_rows(rows, out)
    return rows


def header(argv: list[str]) -> str:
    """A run's first line: its command, date and commit (benchmarks/readme_table.py reads it)."""
    import datetime

    here = os.path.dirname(os.path.abspath(__file__))
    try:
        command = ["git", "rev-parse", "--short", "HEAD"]
        done = subprocess.run(command, cwd=here, capture_output=True, text=True)
        commit = done.stdout.strip() or "n/a"
    except OSError:
        commit = "n/a"
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M")
    return f"# python -m benchmarks.run {' '.join(argv)}, {now} UTC, commit {commit}"


def shape_line(relevant: str) -> str:
    """What was measured besides U and K (printed under the header; the README's speed table quotes it)."""
    return (
        f"shape: {SHAPES[relevant]}; ids str ('user<n>', 'item<n>'; pandas str unless the route names "
        "pyarrow, Polars or object; arrays: int ids); rows: "
        + "; ".join(f"{kind} = {order}" for kind, order in ROW_ORDER.items())
    )


def _load() -> str:
    """The 1, 5 and 15 minute load averages (the machine may be shared: they qualify every time printed)."""
    try:
        return " / ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def _memory(r: dict) -> str:
    return "peak n/a" if math.isnan(r["peak_gib"]) else f"peak +{r['peak_gib']:.3f} GiB"


def print_rows(rows: list[dict], out=sys.stdout) -> None:
    for r in rows:
        head = f"K={r['k']:<4} U={r['users']:>9,}  {r['route']:<16}"
        if "versus" not in r:
            print(
                f"{head} {r['seconds']:8.3f} s {r['users_per_s']:>12,.0f} users/s  {_memory(r)} "
                f"(inputs {r['input_gib']:.3f} GiB)  max |diff| {r['agreement']:.1e}",
                file=out,
            )
            continue
        how = [f"{r['chunks']} chunks of {PEER_CHUNK[r['route']]:,} users"] if r["chunks"] > 1 else []
        if r.get("timed_chunks"):
            how += [f"first {r['timed_chunks']} chunks timed, scaled to all users"]
        how += [f"timed once: over {SINGLE_RUN_AFTER:.0f} s"] if r["runs"] < r["repeats"] else []
        shown = [n for n in ("arrays", *KINDS) if n in r["versus"]]
        print(
            f"{head} {r['seconds']:8.3f} s {r['users_per_s']:>12,.0f} users/s  {_memory(r)}  "
            + ", ".join(versus(r["versus"][n], n) for n in shown)
            + f"  max |diff| {r['agreement']:.1e} ({'users timed' if r.get('timed_chunks') else 'all users'})"
            + (f"  ({', '.join(how)})" if how else ""),
            file=out,
        )
    out.flush()


def versus(ratio: float, ours: str) -> str:
    """A peer's time over ours, in words."""
    if ratio >= 1:
        return f"{ratio:.1f}x slower than {ours}"
    return f"{1 / ratio:.1f}x faster than {ours}"


def _target_lines(at: dict, k: int) -> list[tuple[str, bool]]:
    arrays = at["arrays"]
    goal = 500_000 if k >= 100 else 1_200_000
    lines = [
        (
            f"arrays {arrays['users_per_s'] / 1e3:,.0f} k users/s (>= {goal / 1e3:,.0f} k"
            + (", stretch 850 k" if k >= 100 else "")
            + ")",
            arrays["users_per_s"] >= goal,
        ),
        (
            f"arrays extra peak {arrays['peak_gib'] * 2**30 / 1e9:.2f} GB (<= 0.5 GB)",
            arrays["peak_gib"] <= 0.5e9 / 2**30,
        ),
    ]
    for peer in ("pytrec_eval", "ranx"):
        if peer in at:
            lines.append(
                (
                    f"frames {at[peer]['versus']['frames']:.1f}x faster than {peer} (>= 5x)",
                    at[peer]["versus"]["frames"] >= 5,
                )
            )
    if "pytrec_eval" in at:
        peer = at["pytrec_eval"]
        for name, goal_ratio in (("scores", 10), ("unsorted", 10), ("shuffled", 5)):
            if name in peer["versus"]:
                ratio = peer["versus"][name]
                lines.append(
                    (f"{name} {ratio:.1f}x faster than pytrec_eval (>= {goal_ratio}x)", ratio >= goal_ratio)
                )
                mine, theirs = at[name]["peak_gib"], peer["peak_gib"]
                lines.append(
                    (f"{name} peak +{mine:.2f} GiB vs pytrec_eval's +{theirs:.2f} GiB (below)", mine < theirs)
                )
    return lines


def print_targets(rows: list[dict], out=sys.stdout) -> None:
    """The performance issues' targets, checked on the largest U measured at each K."""
    if not rows:
        return
    note = "" if max(r["users"] for r in rows) >= 1_000_000 else " (the targets are set for U = 1,000,000)"
    print(f"targets (largest U at each K){note}:", file=out)
    for k in sorted({r["k"] for r in rows}):
        n_users, at = _largest_shape(rows, k)
        for line, ok in _target_lines(at, k):
            print(f"  K={k:<4} U={n_users:>9,}  {'met   ' if ok else 'MISSED'} {line}", file=out)
    out.flush()


def _largest_shape(rows: list[dict], k: int) -> tuple[int, dict]:
    """The largest U measured at ``k``, and its rows by route."""
    n_users = max(r["users"] for r in rows if r["k"] == k)
    return n_users, {r["route"]: r for r in rows if r["k"] == k and r["users"] == n_users}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--k", type=int, nargs="+", default=[10, 100])
    parser.add_argument("--peers", nargs="*", default=PEERS, choices=PEERS)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--check", type=int, default=2000, help="users checked against the per-user functions"
    )
    parser.add_argument(
        "--quick", action="store_true", help="smoke run: 2,000 users, K = 10, no ranx, 1 repeat"
    )
    parser.add_argument(
        "--ranx-chunks",
        type=int,
        default=None,
        help="time ranx on its first N chunks only (scaled to all users)",
    )
    parser.add_argument(
        "--memory",
        choices=["subprocess", "inline"],
        default="subprocess",
        help="measure each route's peak memory in a fresh process (default) or in the timing process",
    )
    parser.add_argument(
        "--libraries",
        nargs="+",
        choices=["str", "object", "arrow", "polars"],
        default=None,
        help="measure only these id holders (default: all installed); str is always measured: every other "
        "holder's values are checked against it",
    )
    parser.add_argument(
        "--relevant",
        choices=list(SHAPES),
        default="mixed",
        help="relevant items per user: mixed (1-20, the default), 1 (leave-one-out) or 10",
    )
    parser.add_argument("--memory-child", help=argparse.SUPPRESS)  # internal: one route's peak
    parser.add_argument("--data", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.memory_child:
        print(memory_child(args.memory_child, args.k[0], args.data))
        return 0
    if args.libraries:
        suffix = {"str": "", "object": "-object", "arrow": "-arrow", "polars": "-polars"}
        keep = {suffix[name] for name in args.libraries} | {""}  # str: the values the others must equal
        for name in list(SELECTED):
            if name not in keep:
                del SELECTED[name]
    print(header(sys.argv[1:] if argv is None else argv), flush=True)
    if args.quick:
        args.users, args.k, args.repeats, args.check = [2000], [10], 1, 300
        args.peers = [p for p in args.peers if p != "ranx"]
    run(
        args.users,
        args.k,
        args.peers,
        args.repeats,
        args.check,
        ranx_chunks=args.ranx_chunks,
        memory="inline" if args.quick else args.memory,
        relevant=args.relevant,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
