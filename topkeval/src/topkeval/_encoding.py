"""Integer codes for Arrow string ids, hashed in parallel threads.

:func:`topkeval.evaluate` spends most of its time turning string ids into
integer codes. For Arrow-backed strings (pandas 3's default ``str``, a
``pd.ArrowDtype`` column, a pyarrow Table, a Polars frame) pyarrow's
``dictionary_encode`` does the hashing and releases the GIL, so a long
column is cut into one slice per worker thread and the slices are hashed at
the same time. Each slice gets its own small dictionary; the dictionaries
are then unified (one more ``dictionary_encode`` over their concatenation,
which keeps first-seen order, so the code book is the one a single pass
would have built), and each slice's codes are mapped to the shared book in
the same threads. With ``sort`` the book is put in the ids' sorted order in
that same mapping step, so sorting costs no extra pass over the rows.

Nothing here holds more than the codes themselves (int32, written straight
into their final array and mapped there in place), the small dictionaries,
and one slice's Arrow codes per thread. Threads only help where
the work releases the GIL: NumPy's and pyarrow's compute kernels do; Python
objects (pandas ``object`` columns) do not, and take the single-threaded
route in :mod:`topkeval.batch`. By default one thread per CPU that no other
program is using at the time (at most four); set the environment variable
``TOPKEVAL_THREADS`` to choose the number of threads (1: none; anything but a
whole number >= 1 is an error).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any

import numpy as np

from ._errors import InvalidInputError

#: below this many rows a column is hashed in one piece (threads would cost more than they save)
PARALLEL_ROWS = 1 << 22
#: at most this many threads (hashing is memory bound: more rarely helps)
MAX_THREADS = 4
#: codes mapped to the shared code book per step (bounds the temporaries)
_REMAP_ROWS = 1 << 20


def n_threads() -> int:
    """Worker threads to use: ``TOPKEVAL_THREADS`` if set, else the CPUs this process may run on that no
    other task is using right now, at most :data:`MAX_THREADS`.

    Hashing in two threads on a core another program keeps busy costs more than it saves (the threads
    take turns and evict each other's hash tables), so busy CPUs are not counted.
    """
    chosen = os.environ.get("TOPKEVAL_THREADS", "").strip()
    if chosen:
        if not (chosen.isdigit() and int(chosen) > 0):
            raise InvalidInputError(
                f"the environment variable TOPKEVAL_THREADS is {chosen!r}; it must be a whole number of "
                "threads, at least 1 (1: no threads), or unset to use the idle CPUs."
            )
        return int(chosen)
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(MAX_THREADS, cpus - _busy_elsewhere()))


def _busy_elsewhere() -> int:
    """How many other tasks are running or ready to run right now (Linux' /proc/loadavg; 0 elsewhere)."""
    try:
        with open("/proc/loadavg") as status:
            running = status.read().split()[3].split("/")[0]
    except (OSError, IndexError):
        return 0
    return max(0, int(running) - 1) if running.isdigit() else 0  # this thread is one of them


class Pool(ThreadPoolExecutor):
    """A thread pool that knows its size: work is cut into one piece per thread it was made with."""

    def __init__(self, threads: int):
        super().__init__(threads, thread_name_prefix="topkeval")
        self.threads = threads


def pool() -> Pool | None:
    """A thread pool for one call of :func:`topkeval.evaluate`, or None on a one-CPU machine.

    The CPUs are counted once, here: counted again while the pool works, its own busy threads would look
    like other programs' and the next column would be hashed in one piece.
    """
    threads = n_threads()
    return Pool(threads) if threads > 1 else None


def release_unused() -> None:
    """Give the memory Arrow's allocator kept from freed arrays (hash tables, codes, masks) back to the
    system now: mimalloc would keep it for a while, and it would count in this call's peak."""
    pyarrow = sys.modules.get("pyarrow")
    if pyarrow is not None:  # never imported here just for this
        pyarrow.default_memory_pool().release_unused()


class _Done:
    """A finished result with the interface of a Future (the single-threaded route)."""

    def __init__(self, value: Any):
        self.value = value

    def result(self) -> Any:
        return self.value


def submit(executor: Executor | None, function: Callable, *args: Any) -> Future | _Done:
    """``function(*args)`` in ``executor``, or right now when there is none."""
    if executor is None:
        return _Done(function(*args))
    return executor.submit(function, *args)


def _pieces(n: int, executor: Executor | None) -> list[tuple[int, int]]:
    """Row ranges of about equal size, one per thread of ``executor`` (one range for short columns)."""
    count = getattr(executor, "threads", 1) if executor is not None and n >= PARALLEL_ROWS else 1
    bounds = [n * i // count for i in range(count + 1)]
    return [(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a] or [(0, n)]


def _dictionary_codes(piece: Any) -> tuple[list[np.ndarray], Any]:
    """Arrow's dictionary codes of a chunked string array, one NumPy view per chunk, and its dictionary."""
    import pyarrow as pa

    encoded = piece.dictionary_encode()
    if encoded.num_chunks == 0:
        return [], _readable(pa.array([], type=piece.type))
    dictionary = _readable(encoded.chunk(encoded.num_chunks - 1).dictionary)  # one memo table for every chunk
    return [chunk.indices.to_numpy(zero_copy_only=False) for chunk in encoded.chunks], dictionary


def _readable(dictionary: Any) -> Any:
    """A ``string_view`` dictionary (Polars' strings) as ``large_string``; others as they are.

    Arrow has no sort (``array_sort_indices``) or ``take`` kernel for views and pandas no Index of them;
    the dictionary holds each id once, so the copy is small next to the column hashed into it.
    """
    import pyarrow as pa

    # by name: pyarrow < 16 has no pa.types.is_string_view (and no views to cast)
    return dictionary.cast(pa.large_string()) if str(dictionary.type) == "string_view" else dictionary


def _encode_whole(column: Any) -> tuple[np.ndarray, Any]:
    """The int32 codes of a whole column (a view of Arrow's buffer when it has one chunk), and its
    dictionary."""
    chunks, dictionary = _dictionary_codes(column)
    codes = chunks[0] if len(chunks) == 1 else np.concatenate(chunks or [np.zeros(0, np.int32)])
    return codes.astype(np.int32, copy=False), dictionary


def _encode_piece(piece: Any, out: np.ndarray) -> Any:
    """Write the dictionary codes of one slice of a chunked string array into ``out`` (int32); return the
    slice's dictionary. Arrow's own codes are freed at once: one slice's at a time per thread."""
    dictionary = _copy_codes(piece, out)
    release_unused()  # this thread's share of Arrow's allocator: the codes are copied out and gone
    return dictionary


def _copy_codes(piece: Any, out: np.ndarray) -> Any:
    """:func:`_encode_piece`'s copy: Arrow's codes of ``piece`` into ``out``; its dictionary."""
    chunks, dictionary = _dictionary_codes(piece)
    at = 0
    for codes in chunks:
        out[at : at + codes.size] = codes
        at += codes.size
    return dictionary


def _unify(dictionaries: list[Any], sort: bool) -> tuple[Any, list[np.ndarray | None]]:
    """One code book for every piece (first-seen order, or sorted) and each piece's local-to-shared map.

    A map of None means the piece's codes are already the shared ones.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    maps: list[np.ndarray | None]
    if len(dictionaries) == 1:
        dictionary, maps = dictionaries[0], [None]
    else:
        combined = pa.concat_arrays(dictionaries).dictionary_encode()
        dictionary = combined.dictionary
        shared = combined.indices.to_numpy(zero_copy_only=False).astype(np.int32, copy=False)
        offsets = np.cumsum([0] + [len(d) for d in dictionaries])
        maps = [shared[a:b] for a, b in zip(offsets[:-1], offsets[1:], strict=True)]
        maps[0] = None  # the first piece's dictionary starts the shared one, in its order
    if sort:
        order = pc.array_sort_indices(dictionary).to_numpy()
        rank = np.empty(order.size, dtype=np.int32)
        rank[order] = np.arange(order.size, dtype=np.int32)
        maps = [rank if m is None else rank[m] for m in maps]
        dictionary = dictionary.take(pa.array(order))
    return dictionary, maps


def _remap(mapping: np.ndarray, codes: np.ndarray) -> None:
    """Map a piece's codes to the shared code book, in place, a block at a time (small temporaries)."""
    for at in range(0, codes.size, _REMAP_ROWS):
        part = codes[at : at + _REMAP_ROWS]
        part[:] = mapping[part]


def arrow_codes(
    first: Any, second: Any, sort: bool, executor: Executor | None
) -> Callable[[], tuple[np.ndarray, np.ndarray, Any]]:
    """Start hashing two chunked string arrays with one code book; return a function that finishes it.

    The hashing starts at once in ``executor``'s threads; calling the
    returned function waits for it and gives the int32 codes of ``first``,
    those of ``second``, and the code book (a pyarrow array: code i is id
    ``book[i]``), sorted when ``sort``.

    >>> import pyarrow as pa
    >>> finish = arrow_codes(pa.chunked_array([["b", "a", "b"]]), pa.chunked_array([["c"]]), True, None)
    >>> codes, other, book = finish()
    >>> codes.tolist(), other.tolist(), book.to_pylist()
    ([1, 0, 1], [2], ['a', 'b', 'c'])
    """
    import pyarrow as pa

    whole = pa.chunked_array(first.chunks + second.chunks, type=first.type)
    n, split = len(whole), len(first)
    ranges = _pieces(n, executor)
    if len(ranges) == 1:  # one piece (in a thread all the same, beside the other column's hashing)
        return _one_piece(submit(executor, _encode_whole, whole), split, sort)
    out = np.empty(n, dtype=np.int32)
    pending = [submit(executor, _encode_piece, whole.slice(a, b - a), out[a:b]) for a, b in ranges]

    def finish() -> tuple[np.ndarray, np.ndarray, Any]:
        dictionary, maps = _unify([p.result() for p in pending], sort)
        jobs = [
            submit(executor, _remap, mapping, out[a:b])
            for (a, b), mapping in zip(ranges, maps, strict=True)
            if mapping is not None
        ]
        for job in jobs:
            job.result()
        return out[:split], out[split:], dictionary

    return finish


def _one_piece(
    pending: Future | _Done, split: int, sort: bool
) -> Callable[[], tuple[np.ndarray, np.ndarray, Any]]:
    """:func:`arrow_codes`' finishing step for a column hashed in one piece: Arrow's codes as they are
    (no copy), or mapped to the sorted code book."""

    def finish() -> tuple[np.ndarray, np.ndarray, Any]:
        codes, dictionary = pending.result()
        dictionary, maps = _unify([dictionary], sort)
        if maps[0] is not None:
            codes = maps[0][codes]
        return codes[:split], codes[split:], dictionary

    return finish


def _differs(values: Any, a: int, b: int, out: np.ndarray) -> None:
    """``out[i] = values[a + i + 1] != values[a + i]`` for the rows a .. b - 1 (b - a - 1 comparisons)."""
    import pyarrow.compute as pc

    if b - a < 2:
        return
    differs = pc.not_equal(values.slice(a + 1, b - a - 1), values.slice(a, b - a - 1))
    out[: b - a - 1] = pc.fill_null(differs, True).to_numpy(zero_copy_only=False)


def arrow_run_heads(values: Any, executor: Executor | None) -> np.ndarray:
    """True for each row whose value differs from the row before (the first row is True).

    Compares zero-copy slices of the Arrow data, one range of rows per thread.

    >>> import pyarrow as pa
    >>> arrow_run_heads(pa.chunked_array([["u1", "u1", "u2", "u1"]]), None).tolist()
    [True, False, True, True]
    """
    n = len(values)
    heads = np.ones(n, dtype=bool)
    ranges = _pieces(n, executor)
    # each range compares its own rows; the row at a range's start is compared with the row before it
    jobs = [submit(executor, _differs, values, max(0, a - 1), b, heads[max(1, a) :]) for a, b in ranges]
    for job in jobs:
        job.result()
    return heads
