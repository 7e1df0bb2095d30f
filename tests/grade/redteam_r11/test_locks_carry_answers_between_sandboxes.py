"""The eleventh red team: two sandboxes graded at the same time talk through file locks.

Every sandbox has its own network, IPC, PID and UTS namespaces, but it sees the runtime's files
through read-only bind mounts: the *same inodes* in every sandbox. POSIX record locks are allowed
(seccomp denies neither ``fcntl`` nor ``flock``), a read lock needs only a descriptor opened for
reading, and a lock on an inode is seen by every process on the machine: ``F_GETLK`` asks, without
write access, whether a write lock on a byte range would conflict. So a notebook holding read locks
on chosen bytes of one file of the standard library (``os.py``: one descriptor, so the sandbox's
small ``RLIMIT_NOFILE`` does not matter; with one ``flock`` per file it did) writes bits that a
notebook graded beside it (``--jobs 2`` or more) reads exactly: a noiseless channel of thousands of
bits a second, unlike ``/proc/loadavg`` (the known, noisy one).

Here Alice computes ``choosing-metrics``' five answers honestly and, in one more cell, broadcasts
them (16 bits naming her data draw, the five numbers, a 16-bit checksum: 352 locked bytes, held 4 s);
Mallory's notebook holds no metric code at all, only a receiver that polls for a broadcast whose
header matches her own draw and binds the five numbers it reads. Every learner of a gradebook has the
same two data draws, so Alice's answers are Mallory's, on both draws: Mallory scores **10/10** having
chosen and computed nothing (no similarity check can see it: no line of a solution is in her
notebook). Bob, graded in the same run, keeps 10/10; the blank notebook 0. (Not tried here: the same
channel could carry a function question's hidden results, the same for the whole class too.)

The principle that would close it: sandboxes share no kernel object a learner can name, lock or wait
on: the runtime's files are not shared inodes (a private copy or overlay per sandbox), or seccomp
denies ``fcntl``'s lock commands and ``flock`` (a notebook has no use for them); and what every
learner must compute is drawn per learner (a per-learner data seed), so a classmate's answer is not
theirs.

Since then every learner meets data of their own (``grader.learner_seed``), so in the class run Mallory's
header never matches Alice's draw and she scores 0 whether the locks carry anything or not. The
channel is therefore also tested by itself: Alice and Mallory graded at once on one plan (Alice's),
as if their draws coincided.
"""

from __future__ import annotations

import io
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
import fcntl, hashlib, os, struct, time
_FD = os.open(os.__file__, os.O_RDONLY)  # one file of the runtime, the same inode in every sandbox
_TAG = hashlib.sha256(os.environ["HELPERS_GRADING_SEED"].encode()).digest()[:2]
"""

#: bit i of the message is a read lock on byte 4096 + i of that file
SEND = (
    SHARED
    + """
_body = _TAG + struct.pack("<5d", answer_q1, answer_q2, float(answer_q3), answer_q4, answer_q5)
_body += hashlib.sha256(_body).digest()[:2]
for _i, _bit in enumerate((b >> j) & 1 for b in _body for j in range(8)):
    if _bit:
        fcntl.lockf(_FD, fcntl.LOCK_SH, 1, 4096 + _i)
time.sleep(4)
"""
)

#: F_GETLK asks whether a write lock on byte 4096 + i would conflict (it needs no write access)
RECEIVE = (
    SHARED
    + """
def _bit(i):
    ask = struct.pack("hhqqi", fcntl.F_WRLCK, os.SEEK_SET, 4096 + i, 1, 0)
    return int(struct.unpack("hhqqi", fcntl.fcntl(_FD, fcntl.F_GETLK, ask))[0] != fcntl.F_UNLCK)

_end = time.monotonic() + 9
while time.monotonic() < _end:
    _bits = [_bit(i) for i in range(352)]
    _got = bytes(sum(_bits[8 * i + j] << j for j in range(8)) for i in range(44))
    if _got[:2] == _TAG and hashlib.sha256(_got[:-2]).digest()[:2] == _got[-2:]:
        answer_q1, answer_q2, _q3, answer_q4, answer_q5 = struct.unpack("<5d", _got[2:-2])
        answer_q3 = int(_q3)
        break
    time.sleep(0.02)
"""
)


def test_a_notebook_cannot_read_what_a_classmate_graded_beside_it_computed(bwrap, tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    notebook(folder / "a_alice.ipynb", _honest_source(), SEND)  # honest, and broadcasts
    notebook(folder / "b_mallory.ipynb", RECEIVE)  # no metric code at all
    shutil.copyfile(ROOT / "exercises" / "source" / "choosing-metrics.ipynb", folder / "c_bob.ipynb")
    shutil.copyfile(ROOT / "exercises" / "choosing-metrics.ipynb", folder / "d_blank.ipynb")
    with own_draws(A, 11):  # each learner graded on data of their own
        done = grade.grade_many(
            sorted(folder.iterdir()), A, tmp_path / "out", jobs=2, seed=11, mode=isolation.BUBBLEWRAP,
            progress=io.StringIO(),
        )  # fmt: skip
    scores = {r["file"]: r["score"] for r in done}
    assert scores["a_alice.ipynb"] == scores["c_bob.ipynb"] == 10.0, scores
    assert scores["b_mallory.ipynb"] <= scores["d_blank.ipynb"] == 0.0, (
        f"a notebook without metric code scored {scores['b_mallory.ipynb']}/10 on a classmate's answers "
        "read through file locks"
    )


def test_the_locks_carry_nothing_even_between_learners_of_the_same_data(bwrap, tmp_path):
    """The channel alone: were Mallory's data Alice's, her receiver would bind Alice's right answers."""
    alice = notebook(tmp_path / "a_alice.ipynb", _honest_source(), SEND)
    mallory = notebook(tmp_path / "b_mallory.ipynb", RECEIVE)
    scores = {
        name: report["score"]
        for name, report in grade_on_one_plan(
            [alice, mallory], own_plan(11, alice.name, A), together=True
        ).items()
    }
    assert scores["a_alice.ipynb"] == 10.0, scores
    assert scores["b_mallory.ipynb"] == 0.0, (
        f"a notebook without metric code scored {scores['b_mallory.ipynb']}/10 on the answers a classmate "
        "graded beside it on the same data computed, read through file locks"
    )
