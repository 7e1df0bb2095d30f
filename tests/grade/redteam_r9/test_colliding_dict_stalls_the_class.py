"""The ninth red team: one submission's result, decoded by the grader, holds every grading thread.

The runner tags at most 10,000 items of a container (``child._MAX_ITEMS``), but the grader does not
re-check it: the supervisor forwards whatever reply carries its command's nonce
(``child._Supervisor.step``), and the learner's function reaches the nonce and the reply pipe in the
runner's frame (``sys._getframe``). So a worked example's "value" is any tag within the 4 MiB result
cap: here a ``dict`` of 24,000 ``int`` keys that are multiples of ``2**61 - 1``, all with one hash
(CPython hashes an int modulo ``2**61 - 1``). ``scoring.decode`` builds it with ``dict(pairs)``:
quadratic, in C, holding the GIL for the whole call. Measured here (2 cores, shared; the decode
alone): 10,000 keys 3 s, 20,000 keys 12 s, 40,000 keys 49 s of the grader's own CPU (a 4 MiB run
holds ~65,000 keys); none of it counts against ``--timeout`` or the submission's wall cap, which bound
the sandbox runs only.

While the GIL is held the other ``--jobs`` thread cannot read its own sandbox's channel: the honest
classmate being graded at that moment passes its deadline and gets 0 ("timed out"). Seen with 30
honest classmates, ``--jobs 2``, ``--timeout 2`` and 25,000 keys: one classmate 0/14 "timed out after
2 s", the attacker's grading 35 s against a 16 s wall cap. With the default ``--timeout 10``, ~35,000
keys (2 MiB) suffice.

The principle that would close it: the grader's work on what comes back is bounded (linear) by what
the grader itself accepts, whatever the sandbox sends: ``validate_event`` enforces the runner's own
caps (items per container, items per event), the supervisor forwards only replies of the shape its
command asks for, and decoding never builds a hash table of learner-chosen keys (compare pairs
sorted, or cap their number), or it runs under the submission's own deadline.
"""

from __future__ import annotations

import io
import shutil
import time

from helpers.grade import grader as grade
from helpers.grade import isolation, scoring
from helpers.grade.sandbox import Limits

from ..redteam_r5.common import CORPUS, A, notebook

KEYS = 24_000
TIMEOUT = 2.0
CODE = f"""
import sys
M = (1 << 61) - 1  # every multiple of M has the hash 0
TAG = {{"t": "dict", "v": [[{{"t": "int", "v": str(M * (i + 1))}}, {{"t": "none"}}] for i in range({KEYS})]}}
SENT = [0]
def precision_at_k(ranking, relevant, k):
    if SENT[0] == 0:  # the first worked example: a reply the runner would never make, sent first
        SENT[0] = 1
        frame = sys._getframe(1)
        while frame is not None:
            seen = frame.f_locals
            if "nonce" in seen and "replies" in seen:
                seen["replies"].send({{"n": seen["nonce"].decode(), "case": {{"value": TAG}}}})
                break
            frame = frame.f_back
    return 0.0
"""


def test_decoding_one_result_neither_outlasts_the_wall_cap_nor_times_out_a_classmate(bwrap, tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    notebook(folder / "attacker.ipynb", CODE)
    for i in range(20):
        shutil.copyfile(CORPUS / "perfect.ipynb", folder / f"honest{i:02d}.ipynb")
    done = grade.grade_many(
        sorted(folder.iterdir()),
        A,
        tmp_path / "out",
        jobs=2,
        seed=5,
        mode=isolation.BUBBLEWRAP,
        progress=io.StringIO(),
        limits=Limits(timeout=TIMEOUT),
    )
    by_file = {r["file"]: r for r in done}
    cap = TIMEOUT * (len(A.questions) + 1)
    hurt = {
        f: (r["score"], r.get("reason"))
        for f, r in by_file.items()
        if f != "attacker.ipynb" and r["score"] != 14
    }
    took = by_file["attacker.ipynb"]["seconds"]
    assert not hurt and took <= cap + 5, (
        f"the attacker's grading took {took} s (wall cap {cap:g} s); classmates hurt meanwhile: {hurt}"
    )


def _decode_seconds(keys: list[int]) -> float:
    tag = {"t": "dict", "v": [[{"t": "int", "v": str(k)}, {"t": "none"}] for k in keys]}
    started = time.perf_counter()
    scoring.decode(tag)
    return time.perf_counter() - started


def test_decoding_a_dict_is_linear_whatever_its_keys():
    """The same decode, 8,000 keys: distinct hashes vs one hash (what test 1's notebook sends)."""
    plain = _decode_seconds(list(range(1, 8001)))
    colliding = _decode_seconds([((1 << 61) - 1) * i for i in range(1, 8001)])
    shown = f"8,000 keys: {plain:.3f} s with distinct hashes, {colliding:.2f} s with one"
    assert colliding <= 10 * plain + 0.2, shown
