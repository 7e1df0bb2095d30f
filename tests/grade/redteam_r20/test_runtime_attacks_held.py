"""The twentieth red team: runtime attacks inside the sandbox that no round had run (all held).

Each attacker hands in the corpus's correct solution plus one hostile cell, graded in the real
bubblewrap sandbox beside an honest classmate (``perfect.ipynb``):

1. ``late``: a non-daemon thread and a forked ``setsid`` child that keep writing forged result lines
   (``{"ev": "done"}``, a forged case reply) to every descriptor 0..63 after the last cell; an
   ``atexit`` handler; SIGTERM/SIGINT ignored. Held: only the supervisor holds the grader's channel
   (``child.main`` closes it in the runner), the supervisor takes only replies that carry the
   command's nonce (``child._Supervisor.step``), the runner ends with ``os._exit`` (no atexit), and
   the grader kills bwrap's group with SIGKILL (``sandbox._kill``, ``--die-with-parent``,
   ``--unshare-pid``).
2. ``spy``: ``os.read`` replaced (the runner's ``_Lines`` reads its commands through it),
   ``sys.addaudithook``, ``sys.setprofile``, and the runner's own ``call_case`` replaced through
   ``gc.get_objects`` to print every hidden case's arguments. Held: the arguments reach only the
   printed output, which is the instructor's (``sandbox._keep_output``), never the feedback or
   ``results.json``.
3. ``stuck``: ``sys.stdout`` replaced by an object whose ``flush`` sleeps for ever, so the runner
   never answers the final ``e`` command (``_Runner.do`` flushes). Held: every result was sent
   before; the run ends at the phase deadline with full marks for its own work only.
4. ``alarm``: an interval timer (SIGALRM every millisecond) writing to stdout while every case runs.
   Held: the runner's own replies survive it; the result is the learner's own.
5. ``trace``: ``sys.settrace`` rewriting what the runner's ``tag`` returns (every float becomes 0.5).
   Held: it can only change its own answers (the grader computes every expected value itself); it
   scores 0.
"""

from __future__ import annotations

import json

from ..redteam_r5.common import CORPUS, grade_class, notebook, with_honest

PERFECT = [
    "".join(c["source"])
    for c in json.loads((CORPUS / "perfect.ipynb").read_text(encoding="utf-8"))["cells"]
    if c["cell_type"] == "code"
]

LATE = r"""
import os, threading, time, atexit, signal
def spam():
    line = b'{"ev": "done"}\n{"n": "x", "case": {"value": {"t": "float", "v": "0x1p-1"}}}\n'
    for _ in range(200):
        for fd in range(64):
            try:
                os.write(fd, line)
            except OSError:
                pass
        time.sleep(0.01)
threading.Thread(target=spam).start()
if os.fork() == 0:
    os.setsid()
    spam()
    os._exit(0)
atexit.register(lambda: os.write(1, b"ATEXIT-RAN\n"))
signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGINT, signal.SIG_IGN)
"""

SPY = r"""
import gc, os, sys, threading
_real_read = os.read
def spy(fd, n):
    return _real_read(fd, n)
os.read = spy
sys.addaudithook(lambda event, args: None)
sys.setprofile(lambda frame, event, arg: None)
found = [o for o in gc.get_objects() if isinstance(o, dict) and "call_case" in o and "tag" in o]
if found:
    real_call = found[0]["call_case"]
    def call_case(obj, args):
        print("HIDDEN-ARGS", args, flush=True)
        return real_call(obj, args)
    found[0]["call_case"] = call_case
"""

STUCK = r"""
import sys, time
class Stuck:
    def write(self, s):
        return len(s)
    def flush(self):
        time.sleep(1000)
sys.stdout = Stuck()
"""

ALARM = r"""
import os, signal
signal.signal(signal.SIGALRM, lambda *a: os.write(1, b"ALARM\n"))
signal.setitimer(signal.ITIMER_REAL, 0.001, 0.001)
"""

TRACE = r"""
import sys, threading
def tr(frame, event, arg):
    tagging = event == "return" and frame.f_code.co_name == "tag"
    if tagging and isinstance(arg, dict) and arg.get("t") == "float":
        arg["v"] = "0x1.0000000000000p-1"
    return tr
sys.settrace(tr)
threading.settrace(tr)
"""


def test_runtime_attacks_touch_only_their_own_result(bwrap, tmp_path):
    folder, out = tmp_path / "subs", tmp_path / "out"
    folder.mkdir()
    notebook(folder / "late.ipynb", *PERFECT, LATE)
    notebook(folder / "spy.ipynb", SPY, *PERFECT)
    notebook(folder / "stuck.ipynb", *PERFECT, STUCK)
    notebook(folder / "alarm.ipynb", *PERFECT, ALARM)
    notebook(folder / "trace.ipynb", *PERFECT, TRACE)
    with_honest(folder, "honest.ipynb")
    graded = grade_class(folder, out, seed=7)
    scores = {name: g["report"]["score"] for name, g in graded.items()}
    assert scores == {
        "honest.ipynb": 14.0,
        "late.ipynb": 14.0,
        "spy.ipynb": 14.0,
        "stuck.ipynb": 14.0,
        "alarm.ipynb": 14.0,
        "trace.ipynb": 0.0,
    }
    assert graded["honest.ipynb"]["report"]["status"] == "graded"
    assert not graded["honest.ipynb"]["report"].get("warnings")
    assert "HIDDEN-ARGS" in graded["spy.ipynb"]["report"]["output"]  # the instructor's, only
    for g in graded.values():
        for shown in (g["feedback"], g["results"]):
            assert "HIDDEN-ARGS" not in shown and "ATEXIT-RAN" not in shown
    assert "ATEXIT-RAN" not in graded["late.ipynb"]["report"]["output"]
