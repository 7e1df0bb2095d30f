"""The third red team's sandbox classes, each graded beside an honest classmate.

- a hidden input leaked: learner code walked the runner's frames to the job and raised a hidden
  case's input as an exception type name; now nothing the learner's code can reach (frames, objects,
  modules, memory, descriptors, files, environment, other processes) holds a case before it runs;
- the host's disk: the learner's output was a file on the grader's disk and ``fallocate`` reserved
  2 GiB past the output limit; now output is a capped pipe and ``fallocate`` is refused;
- the grader's memory: saved outputs of ``{}`` lists held 1.3 GiB; now a notebook is parsed for what
  grading reads, with bounds on JSON values and depth.
"""

from __future__ import annotations

import errno
import json
import secrets
import shutil
from pathlib import Path

from helpers.grade import grader, isolation
from helpers.grade.assignments import ASSIGNMENTS
from helpers.grade.sandbox import Limits, run_submission

CORPUS = Path(__file__).resolve().parent / "grading_corpus"
HONEST = CORPUS / "perfect.ipynb"
SEED = 4242


def _cells(*sources: str) -> list[dict]:
    return [{"index": i, "statements": [{"line": 1, "source": s}]} for i, s in enumerate(sources, start=1)]


def _notebook(*extra_cells: str, base: Path = HONEST) -> dict:
    nb = json.loads(base.read_text())
    for source in extra_cells:
        nb["cells"].append({"cell_type": "code", "metadata": {}, "outputs": [], "source": source})
    return nb


def _grade_pair(tmp_path: Path, hostile: dict, limits: Limits | None = None) -> tuple[dict, dict, Path]:
    """Grade ``hostile`` beside the honest classmate; their reports and the output folder."""
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copyfile(HONEST, folder / "honest.ipynb")
    (folder / "hostile.ipynb").write_text(json.dumps(hostile))
    out = tmp_path / "out"
    reports = grader.grade_many(
        sorted(folder.iterdir()),
        ASSIGNMENTS["from-scratch"],
        out,
        seed=SEED,
        limits=limits or Limits(timeout=6),
        progress=None,
    )
    by_name = {r["submission"]: r for r in reports}
    return by_name["honest"], by_name["hostile"], out


def _texts(out: Path, name: str) -> str:
    """Everything written about one submission: its report and its feedback file."""
    return (out / f"{name}.json").read_text() + (out / "feedback" / f"{name}.md").read_text()


# ------------------------------------------------------------------ a hidden input leaked
#: Learner code searching everything it can reach for a needle given as a regular expression (so the
#: needle itself is never in memory as the bytes it looks for): its own memory, every process's memory,
#: descriptors, environment and command line, the files it can see, and every object of the interpreter.
SPY = r"""
import gc, os, re, sys

def _regions(pid):
    try:
        with open(f"/proc/{pid}/maps") as maps:
            lines = [line.split() for line in maps]
    except OSError:
        return
    for fields in lines:
        if fields[1][0] == "r":
            a, b = (int(x, 16) for x in fields[0].split("-"))
            if b - a < (256 << 20):
                yield a, b

def _memory(pid, needle, where):
    try:
        mem = os.open(f"/proc/{pid}/mem", os.O_RDONLY)
    except OSError:
        return
    try:
        for a, b in _regions(pid):
            for start in range(a, b, 1 << 22):
                try:
                    if needle.search(os.pread(mem, min(b - start, (1 << 22) + 64), start)):
                        where.append(f"memory of {pid}")
                        return
                except (OSError, OverflowError, ValueError):
                    break
    finally:
        os.close(mem)

def _read(path, where, needle, label):
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return
    try:
        if needle.search(os.pread(fd, 1 << 24, 0)):
            where.append(label)
    except OSError:
        pass
    finally:
        os.close(fd)

def _objects(needle, where):
    text = needle.pattern.decode()
    pattern = re.compile(text)
    for o in gc.get_objects():
        items = o.values() if type(o) is dict else o if type(o) in (list, tuple) else ()
        for v in list(items):
            if type(v) is str and pattern.search(v) or type(v) is bytes and needle.search(v):
                where.append("an object")
                return

def hunt(needle):
    where = []
    pids = [p for p in os.listdir("/proc") if p.isdigit()]
    for pid in pids:
        _memory(pid, needle, where)
        for name in ("environ", "cmdline"):
            _read(f"/proc/{pid}/{name}", where, needle, f"{name} of {pid}")
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            fds = []
        for fd in fds:
            _read(f"/proc/{pid}/fd/{fd}", where, needle, f"fd {fd} of {pid}")
    for root in ("/tmp", os.getcwd(), "/dev/shm"):
        for base, _, files in os.walk(root):
            for f in files:
                _read(os.path.join(base, f), where, needle, f"file {f}")
    if needle.search(repr(sorted(os.environ.items())).encode()):
        where.append("environment")
    _objects(needle, where)
    return sorted(set(where))
"""


def _needle(marker: str) -> str:
    """A regular expression matching ``marker`` whose own text does not contain it."""
    return marker[0] + "[" + marker[1] + "]" + marker[2:]


def test_no_case_is_reachable_before_it_runs(bwrap):
    token = secrets.token_hex(6)
    first, second = f"HIDDEN-A-{token}", f"HIDDEN-B-{token}"
    spy_cells = SPY + (
        f"before = [hunt(re.compile({_needle(first).encode()!r}))]\n"
        f"before += [hunt(re.compile({_needle(second).encode()!r}))]\n"
        "def f(arg):\n"
        f"    own = hunt(re.compile({_needle(first).encode()!r}))\n"
        f"    other = hunt(re.compile({_needle(second).encode()!r}))\n"
        "    return [own != [], other]\n"
    )
    questions = [
        {"name": "spy", "kind": "value", "target": "before", "cases": []},
        {"name": "f", "kind": "function", "target": "f", "cases": [[first], [second]]},
    ]
    with isolation.prepare(isolation.BUBBLEWRAP, ("numpy",)) as runtime:
        result = run_submission(_cells(spy_cells), questions, runtime, Limits(timeout=30))
    assert not result.cell_errors, result.cell_errors
    before = result.questions["spy"]["cases"][0]["value"]
    assert before == {"t": "list", "v": [{"t": "list", "v": []}] * 2}, before  # no marker before any case
    case_a = result.questions["f"]["cases"][0]["value"]["v"]
    assert case_a[0] == {"t": "bool", "v": True}, "the spy does not find a case it holds: it proves nothing"
    assert case_a[1] == {"t": "list", "v": []}, case_a  # while case A runs, case B is nowhere


#: The original attack: walk the frames (and the garbage collector's objects) to the job and raise
#: a hidden case's input as the name of an exception class.
FRAME_WALK = r"""
import gc, sys
def _cases_in(v):
    if type(v) is not dict:
        return []
    found = [v["cases"]] if type(v.get("cases")) is list and v["cases"] else []
    questions = v.get("questions") if type(v.get("questions")) is list else []
    return found + [q["cases"] for q in questions if type(q) is dict and q.get("cases")]
def _hunt():
    found = []
    frame = sys._getframe()
    while frame is not None:
        for scope in (frame.f_locals, frame.f_globals):
            for v in list(scope.values()):
                found += _cases_in(v)
        frame = frame.f_back
    for o in gc.get_objects():
        found += _cases_in(o)
    return found
_found = _hunt()
if _found:
    raise type("LEAK_" + "".join(c if c.isalnum() else "_" for c in repr(_found)[:300]), (Exception,), {})()
raise RuntimeError("SPY_RAN_FOUND_NOTHING")
"""


def test_frame_walking_finds_no_hidden_input_and_the_classmate_is_unharmed(bwrap, tmp_path):
    honest, hostile, out = _grade_pair(tmp_path, _notebook(FRAME_WALK))
    assert honest["score"] == honest["max_score"] == hostile["max_score"]
    assert hostile["score"] == hostile["max_score"]  # its functions are right; the spying cell earns nothing
    texts = _texts(out, "hostile")
    assert "LEAK_" not in texts
    assert "SPY_RAN_FOUND_NOTHING" in json.dumps(hostile["cell_errors"])  # the spy ran, and found nothing


# ------------------------------------------------------------------ the host's disk
DISK_HOG = r"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long]
refused = {}
for fd in (1, 2):
    ctypes.set_errno(0)
    refused[fd] = (libc.fallocate(fd, 1, 0, 2 << 30), ctypes.get_errno())  # FALLOC_FL_KEEP_SIZE, 2 GiB
tmp = os.open("/tmp/hog", os.O_WRONLY | os.O_CREAT)
ctypes.set_errno(0)
refused["tmp"] = (libc.fallocate(tmp, 1, 0, 2 << 30), ctypes.get_errno())
ctypes.set_errno(0)
refused["posix"] = libc.posix_fallocate(tmp, 0, 1 << 30)
try:
    while True:
        print("x" * 65536)
except OSError as exc:
    refused["print"] = type(exc).__name__
try:
    os.write(2, b"y" * (64 << 20))
except OSError as exc:
    refused["stderr"] = type(exc).__name__
"""


def test_fallocate_is_refused_and_output_is_a_capped_pipe(bwrap):
    questions = [{"name": "q", "kind": "value", "target": "refused", "cases": []}]
    with isolation.prepare(isolation.BUBBLEWRAP, ("numpy",)) as runtime:
        result = run_submission(_cells(DISK_HOG), questions, runtime, Limits(timeout=20))
    got = {k["v"]: v for k, v in result.questions["q"]["cases"][0]["value"]["v"]}
    eperm = {"t": "list", "v": [{"t": "int", "v": "-1"}, {"t": "int", "v": str(errno.EPERM)}]}
    assert got["1"] == got["2"] == got["tmp"] == eperm, got  # stdout, stderr and the sandbox's /tmp
    assert got["posix"] == {"t": "int", "v": str(errno.EPERM)}
    assert got["print"] == got["stderr"] == {"t": "str", "v": "BrokenPipeError"}  # past --output-bytes
    assert 0 < len(result.output) <= 4096
    assert any("printed output was cut" in w for w in result.warnings), result.warnings


# ------------------------------------------------------------------ the grader's memory
#: Grades the honest classmate beside two notebooks of 24.5 MiB (within the 25 MiB limit) whose saved
#: outputs are long lists of ``{}``, in a fresh interpreter; prints the reports and the peak memory.
MEMORY_RUN = r"""
import json, sys
from pathlib import Path
import psutil
from helpers.grade import grader
from helpers.grade.assignments import ASSIGNMENTS
from helpers.grade.sandbox import Limits
folder, out, mode = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
before = psutil.Process().memory_info().rss
reports = grader.grade_many(sorted(folder.iterdir()), ASSIGNMENTS["from-scratch"], out, jobs=2, seed=4242,
                            limits=Limits(timeout=6), mode=mode, progress=None)
# the high-water mark of this interpreter's memory (VmHWM starts afresh at exec; ru_maxrss would not)
status = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines())
peak = int(status["VmHWM"].split()[0]) * 1024
print(json.dumps({"before": before, "peak": peak, "reports": reports}))
"""


def _empty_objects_notebook(size: int) -> bytes:
    """A notebook of ``size`` bytes: the honest code, then one saved output that is a list of ``{}``."""
    nb = _notebook()
    nb["cells"][-1]["outputs"] = [{"output_type": "execute_result", "data": {}, "metadata": {}, "hole": None}]
    head, tail = json.dumps(nb).encode().split(b'"hole": null')
    filler = size - len(head) - len(tail) - len(b'"hole": []')
    return head + b'"hole": [' + b"{}," * (filler // 3) + b"{}]" + tail


def test_saved_outputs_cost_the_grader_no_memory(tmp_path, trusted_mode):
    import subprocess
    import sys

    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copyfile(HONEST, folder / "honest.ipynb")
    for name in ("hostile-1", "hostile-2"):
        (folder / f"{name}.ipynb").write_bytes(_empty_objects_notebook(int(24.5 * 2**20)))
    assert (folder / "hostile-1.ipynb").stat().st_size <= Limits().notebook_bytes
    proc = subprocess.run(
        [sys.executable, "-c", MEMORY_RUN, str(folder), str(tmp_path / "out"), trusted_mode],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    run = json.loads(proc.stdout)
    reports = {r["submission"]: r for r in run["reports"]}
    assert reports["honest"]["score"] == reports["honest"]["max_score"]
    for name in ("hostile-1", "hostile-2"):
        assert reports[name]["score"] == 0 and reports[name]["status"] == "too large", reports[name]["status"]
        assert "JSON values" in reports[name]["error"] and "Clear Outputs" in reports[name]["error"]
    grew = (run["peak"] - run["before"]) / 2**20
    assert grew < 200, f"grading two 24.5 MiB notebooks held {grew:.0f} MiB more (was 1.3 GiB)"


# ------------------------------------------------------------------ reaching the parent
#: The runner's parent is the supervisor, which alone holds the grader's channel and the cases: read its
#: memory and descriptors (refused: it is not dumpable), flood every descriptor with forged replies, then
#: freeze it (SIGSTOP) so that no deadline message would ever come.
FREEZE_PARENT = r"""
import os, signal
parent = os.getppid()
refused = []
for path in (f"/proc/{parent}/mem", f"/proc/{parent}/environ", f"/proc/{parent}/fd/3"):
    try:
        os.close(os.open(path, os.O_RDONLY))
    except OSError as exc:
        refused.append(exc.errno)
for fd in range(3, 30):
    try:
        os.write(fd, b'{"n": "0", "case": {"value": {"t": "float", "v": "0x1p+0"}}}\n' * 50)
    except OSError:
        pass
if refused != [13, 13, 13]:
    raise RuntimeError(f"PARENT_OPEN_{refused}")
os.kill(parent, signal.SIGSTOP)
"""


def test_a_frozen_or_flooded_supervisor_costs_only_the_cell_that_froze_it(bwrap, tmp_path):
    honest, hostile, out = _grade_pair(tmp_path, _notebook(FREEZE_PARENT), Limits(timeout=4))
    assert honest["score"] == honest["max_score"]
    assert hostile["score"] == hostile["max_score"]  # its functions were graded in a fresh sandbox
    frozen = [e for e in hostile["cell_errors"] if "did not finish" in e["error"]]
    assert [e["cell"] for e in frozen] == [len(_notebook()["cells"]) + 1], hostile["cell_errors"]
    assert "PARENT_OPEN" not in _texts(out, "hostile")
