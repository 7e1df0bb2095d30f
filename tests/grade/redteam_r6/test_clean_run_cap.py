"""The sixth red team: a run the grader counts as clean although a hidden input reached the notebook.

x1 made a run *tainted* once the supervisor announces a function's hidden cases (``start`` with
``part: 2``, ``sandbox._Reader._phase`` sets ``hidden``); what a tainted run shows the learner is cut
to fixed phrases (``withheld``). The announcement is only seen if the grader *reads* it. The reader
stops at the first chunk that takes the result channel past ``Limits.result_bytes`` (4 MiB,
``sandbox._Reader._feed``) and drops that chunk unparsed, so ``hidden`` stays ``False``. The
notebook controls how many bytes come back before part 2 (q1's first public case returns 20 lists of
10,000 integers and one shorter list), so it puts the channel's total just under the cap when part 1
ends: the chunk holding ``start q1 part 2`` is dropped, while the supervisor, whose pipe still has
room, goes on and sends q1's first hidden case to the runner. Between that and the grader's kill the
notebook writes one byte to its output or not, chosen from the hidden input (``k % 2``); it had
printed ``--output-bytes - 1`` before. The run is "clean" (``tainted`` False in
``sandbox._Runs.step``), so ``_keep_output`` puts "the printed output was cut" in the learner's
warnings (and the stuck question's reason is the real one, not ``HIDDEN_END``).

One bit of a hidden input per submission; Gradescope's package keeps its seed, so resubmissions read
the same hidden cases bit by bit (here a fixed hidden check's ``k``, the same for every learner).
It is a race the notebook wins by a wide margin: the grader spends ~0.56 s parsing and validating
q1's 4 MB public event (measured, nice 10), while the supervisor runs the other questions' public
cases, announces part 2 and hands over the hidden case, and the runner writes its byte, in
milliseconds. Measured: 9 of 9 right with a padding of long strings (load 3-6, 2 cores; it lost once
in a pytest run at load 2, whence the integers, slower to parse), 5 of 5 with the integers.

The padding is found the way an attacker would (the channel's bytes are fixed by the public
``child.py`` and the notebook): one probe run, reading where part 2 begins.
"""

from __future__ import annotations

import io
import re
import shutil

import pytest

from helpers.grade import grader as grade
from helpers.grade import isolation, sandbox

from ..redteam_r5.common import A, notebook, own_draws, own_plan, with_honest

SEED = 5_000_123
ELEMENT = len('{"t":"int","v":"1"},')  # one padding integer on the channel (child.tag, compact JSON)

SOURCE = """
import os
os.write(1, b"." * {pre})
N = {{}}
def _make(name, public):
    def f(ranking, relevant, k):
        N[name] = N.get(name, 0) + 1
        if name == "precision_at_k" and N[name] == 1:
            return [[1] * 10000] * {m} + [[1] * {r}]
        if name == "precision_at_k" and N[name] == public + 1 and {test}:
            os.write(1, b"!")
        return 0.0
    return f
"""


def _public_calls(file_name: str) -> dict[str, int]:
    plan = own_plan(SEED, file_name)
    out = {}
    for q in A.questions:
        hidden = {c.name for c in q.checks if c.hidden}
        out[q.target] = sum(1 for check, _ in plan.cases[q.name] if check not in hidden)
    return out


def _source(m: int, r: int, test: str, file_name: str) -> str:
    code = SOURCE.format(pre=sandbox.Limits().output_bytes - 1, m=m, r=r, test=test)
    return code + "".join(f"{t} = _make({t!r}, {n})\n" for t, n in _public_calls(file_name).items())


def _first_hidden_k(file_name: str) -> int:
    """The ``k`` of precision_at_k's first hidden case that ``file_name`` meets (its own draw)."""
    q = A.question("precision_at_k")
    hidden = {c.name for c in q.checks if c.hidden}
    return next(args[2] for check, args in own_plan(SEED, file_name).cases[q.name] if check in hidden)


def _grade(files: list, out) -> dict:
    with own_draws(A, SEED):  # each file graded on its learner's own cases, as computed here
        done = grade.grade_many(
            files, A, out, jobs=2, seed=SEED, mode=isolation.BUBBLEWRAP, progress=io.StringIO()
        )
    return {r["file"]: r for r in done}


def _part_two_offset(tmp, m0: int) -> int:
    """Bytes on the result channel before ``start q1 part 2`` (a probe run, reading what the grader reads)."""
    seen = bytearray()
    feed = sandbox._Reader._feed

    def spy(self, chunk):
        seen.extend(chunk)
        return feed(self, chunk)

    sandbox._Reader._feed = spy
    try:
        _grade([notebook(tmp / "probe.ipynb", _source(m0, 0, "False", "probe.ipynb"))], tmp / "probe_out")
    finally:
        sandbox._Reader._feed = feed
    return re.search(rb'(?m)^\{"ev":"start","q":"q1","part":2\}$', bytes(seen)).start()


@pytest.fixture(scope="module")
def graded(bwrap, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cap")
    m = 20  # lists of 10,000 integers: about 4.0 MB, slow for the grader to parse
    gap = sandbox.Limits().result_bytes - 15 - _part_two_offset(tmp, m)
    r = gap // ELEMENT
    folder = tmp / "class"
    folder.mkdir()
    with_honest(folder, "honest1.ipynb", "honest2.ipynb")
    notebook(folder / "leak_odd.ipynb", _source(m, r, "k % 2 == 1", "leak_odd.ipynb"))
    notebook(folder / "leak_even.ipynb", _source(m, r, "k % 2 == 0", "leak_even.ipynb"))
    # the premise: the hidden input reached, exactly one of the two writes its byte (each meets its own
    # draw, but this check's first case is a fixed one, the same for every learner)
    assert _first_hidden_k("leak_odd.ipynb") % 2 == _first_hidden_k("leak_even.ipynb") % 2
    shutil.rmtree(tmp / "probe_out", ignore_errors=True)
    return _grade(sorted(folder.iterdir()), tmp / "out")


def test_the_honest_classmates_keep_full_marks(graded):
    assert graded["honest1.ipynb"]["score"] == 14.0
    assert graded["honest2.ipynb"]["score"] == 14.0
    assert graded["leak_odd.ipynb"]["score"] == graded["leak_even.ipynb"]["score"] == 0.0


def test_what_the_learner_reads_does_not_depend_on_a_hidden_input(graded):
    # the two notebooks differ only in what they do with a hidden input: the learner's notes must be equal
    assert graded["leak_odd.ipynb"]["warnings"] == graded["leak_even.ipynb"]["warnings"]


def test_a_run_whose_hidden_case_reached_the_notebook_is_tainted(graded):
    reasons = [q.get("reason", "") for q in graded["leak_odd.ipynb"]["questions"]]
    assert not any("sent more than the result channel accepts" in r for r in reasons), reasons
