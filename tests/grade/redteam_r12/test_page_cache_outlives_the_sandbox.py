"""The twelfth red team: the page cache carries a classmate's answers even when no two notebooks run
at the same time (``--jobs 1``).

Round 11 closed file *locks* on the runtime's files (the same inodes in every sandbox, bound read-only),
but those inodes' page cache is one kernel object for the whole machine and it outlives every sandbox,
so a notebook graded *earlier* leaves a message that one graded *later* reads. The sender drops chosen
pages (``posix_fadvise(..., POSIX_FADV_DONTNEED)`` on each page) and reads back one byte of the pages of
its 1 bits (``POSIX_FADV_RANDOM``: no read-ahead), then ends; the receiver asks each page with
``preadv2(..., RWF_NOWAIT)`` (``EAGAIN``: not cached). The slots are the full pages of standard-library
files no grading run reads or maps (``pydoc_data/topics.py``, its ``.pyc``, ``lib-dynload/_test*.so``:
788 pages in the sandbox), split into two regions of 288 bits; a run writes or reads the region its own
data draw names (one bit of a hash of ``HELPERS_GRADING_SEED``), so Alice's second draw does not
overwrite her first (with these two regions that holds for half of all gradebook seeds, for this test's
seed it does; more unused files give more regions).

Alice (graded first, ``jobs=1``) computes ``choosing-metrics``' five answers honestly and, in one more
cell, leaves them in the cache (8-bit tag, four doubles, ``answer_q3`` as 16 bits, 8-bit checksum) and
ends. Mallory's notebook holds no metric code at all; it reads the region of its own draw once.
Every learner of a gradebook has the same two draws, so Mallory scores **10/10**, one notebook after
another, with no overlap of runs; Bob (the course's solution) keeps 10/10, the blank notebook 0.

The principle that would close it: no state a sandbox can set survives it where another sandbox can
read it -- the runtime a sandbox reads is not a set of inodes shared with every other sandbox (private
copies whose page cache dies with them, e.g. files on the sandbox's own tmpfs or a loop-mounted image
per run), or the calls that set and read cache state of a file (``fadvise64``, ``readahead``,
``preadv2``/``pwritev2`` with ``RWF_NOWAIT``, ``mincore``) are refused -- and, because cold-read timing
still leaks a bit per page, answers a classmate computed are not one's own (data drawn per learner).
Serialising the class (one sandbox at a time) does not close it. (With ``--jobs 2`` the same channel
works while both run, by polling, but whether both draws overlap depends on timing; this test does not.)
The test drops the slots' pages first, so no earlier run of it can have left the message.

Since then every learner meets data of their own (``grader.learner_seed``), so in the class run Mallory's
tag never matches Alice's draw and she scores 0 whether the cache carries anything or not. The channel
is therefore also tested by itself: Alice, then Mallory, graded on one plan (Alice's), as if their
draws coincided.
"""

from __future__ import annotations

import glob
import hashlib
import io
import os
import shutil
from pathlib import Path

from helpers.grade import grader as grade
from helpers.grade import isolation
from helpers.grade.assignments import ASSIGNMENTS

from ..redteam_r5.common import grade_on_one_plan, notebook, own_draws, own_plan
from ..redteam_r8.test_runtime_syntax_error_channel import _honest_source

ROOT = Path(__file__).resolve().parents[3]
A = ASSIGNMENTS["choosing-metrics"]

SHARED = """
import glob, hashlib, os, struct
_TOP = os.path.dirname(os.__file__)
_SLOTS = []  # (descriptor, offset): full pages of standard-library files no grading run reads or maps
for _p in ("pydoc_data/topics.py", "pydoc_data/__pycache__/topics.*.pyc", "lib-dynload/_test*.so"):
    for _f in sorted(glob.glob(os.path.join(_TOP, _p))):
        _fd = os.open(_f, os.O_RDONLY)  # the same inode in every sandbox
        os.posix_fadvise(_fd, 0, 0, os.POSIX_FADV_RANDOM)  # one page per read, no read-ahead
        _SLOTS += [(_fd, 4096 * k) for k in range(os.fstat(_fd).st_size // 4096)]
_H = hashlib.sha256(os.environ["HELPERS_GRADING_SEED"].encode()).digest()
_N = 288
_REGION = _SLOTS[(_H[1] & 1) * _N:][:_N]  # the half this data draw names
"""

SEND = (
    SHARED
    + """
_body = _H[:1] + struct.pack("<4dH", answer_q1, answer_q2, answer_q4, answer_q5, int(answer_q3))
_body += hashlib.sha256(_body).digest()[:1]
for _i, _bit in enumerate((b >> j) & 1 for b in _body for j in range(8)):
    _fd, _at = _REGION[_i]
    os.posix_fadvise(_fd, _at, 4096, os.POSIX_FADV_DONTNEED)
    if _bit:
        os.pread(_fd, 1, _at)
"""
)

RECEIVE = (
    SHARED
    + """
def _bit(slot, buf=bytearray(1)):
    try:
        os.preadv(slot[0], [buf], slot[1], os.RWF_NOWAIT)
        return 1
    except BlockingIOError:
        return 0

_bits = [_bit(s) for s in _REGION]
_got = bytes(sum(_bits[8 * i + j] << j for j in range(8)) for i in range(_N // 8))
if _got[:1] == _H[:1] and hashlib.sha256(_got[:-1]).digest()[:1] == _got[-1:]:
    answer_q1, answer_q2, answer_q4, answer_q5, answer_q3 = struct.unpack("<4dH", _got[1:-1])
"""
)


def _forget_the_slots() -> None:
    """Drop the slots' pages from the cache before grading, so nothing but Alice's run (no earlier run of
    this test) can have left a message there."""
    top = os.path.dirname(os.__file__)  # the sandbox binds the runtime's files at their own paths
    for pattern in ("pydoc_data/topics.py", "pydoc_data/__pycache__/topics.*.pyc", "lib-dynload/_test*.so"):
        for name in glob.glob(os.path.join(top, pattern)):
            fd = os.open(name, os.O_RDONLY)
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def test_a_notebook_cannot_read_what_a_classmate_graded_before_it_computed(bwrap, tmp_path):
    _forget_the_slots()
    folder = tmp_path / "class"
    folder.mkdir()
    notebook(folder / "a_alice.ipynb", _honest_source(), SEND)  # honest, and leaves her answers behind
    notebook(folder / "b_mallory.ipynb", RECEIVE)  # no metric code at all
    shutil.copyfile(ROOT / "exercises" / "source" / "choosing-metrics.ipynb", folder / "c_bob.ipynb")
    shutil.copyfile(ROOT / "exercises" / "choosing-metrics.ipynb", folder / "d_blank.ipynb")
    with own_draws(A, 12):  # each learner graded on data of their own
        done = grade.grade_many(
            sorted(folder.iterdir()), A, tmp_path / "out", jobs=1, seed=12, mode=isolation.BUBBLEWRAP,
            progress=io.StringIO(),
        )  # fmt: skip
    scores = {r["file"]: r["score"] for r in done}
    assert scores["a_alice.ipynb"] == scores["c_bob.ipynb"] == 10.0, scores
    assert scores["b_mallory.ipynb"] <= scores["d_blank.ipynb"] == 0.0, (
        f"a notebook without metric code scored {scores['b_mallory.ipynb']}/10 on answers a classmate "
        "graded before it left in the page cache of the shared runtime files"
    )


def test_the_page_cache_carries_nothing_even_between_learners_of_the_same_data(bwrap, tmp_path):
    """The channel alone: were Mallory's data Alice's, her receiver would bind Alice's right answers."""
    _forget_the_slots()
    plan = own_plan(12, "a_alice.ipynb", A)  # the class run's seed: Alice's own data
    # the premise: Alice's two draws write two different regions, so her second does not overwrite her first
    assert len({hashlib.sha256(d.encode()).digest()[1] & 1 for d in plan.data_seeds}) == 2
    alice = notebook(tmp_path / "a_alice.ipynb", _honest_source(), SEND)
    mallory = notebook(tmp_path / "b_mallory.ipynb", RECEIVE)
    scores = {
        name: r["score"] for name, r in grade_on_one_plan([alice, mallory], plan, together=False).items()
    }
    assert scores["a_alice.ipynb"] == 10.0, scores
    assert scores["b_mallory.ipynb"] == 0.0, (
        f"a notebook without metric code scored {scores['b_mallory.ipynb']}/10 on the answers a classmate "
        "graded before it on the same data left in the page cache of the shared runtime files"
    )
