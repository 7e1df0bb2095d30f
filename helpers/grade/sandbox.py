"""Run one learner submission in its sandbox and bring back validated plain values.

The grader never imports or executes learner code in its own process. It
hands the cells and the inputs of every case to :func:`run_submission`, which
starts the child program (:mod:`helpers.grade.child`, passed in on standard
input together with the job) inside the sandbox described in
:mod:`helpers.grade.isolation`, and reads back one JSON line per event on a
dedicated pipe. Comparing values with the reference is the grader's job.

What is enforced here, on the grader's side
-------------------------------------------
- Wall-clock time: ``timeout`` seconds for running the cells, then again for
  each question, and a hard cap of ``timeout * (questions + 1)`` for all runs of
  one submission together, which nothing it sends can move. Phases are taken
  only in the job's order, from the supervisor's messages (learner code runs in
  another process that holds no descriptor of the channel: see
  :mod:`helpers.grade.child`). On expiry the whole sandbox (bwrap's process
  group, its PID namespace and its control group) is killed with SIGKILL; a
  hung or crashed cell is reported and the notebook runs again without it; a
  hung or crashed question scores zero and a new sandbox carries on with the
  questions after it.
- Every sandbox gets the seccomp filter of :mod:`helpers.grade.seccomp` and,
  where one can be made, its own control group (:mod:`helpers.grade.cgroup`:
  memory, processes and one CPU for the submission as a whole).
- Nothing that comes back is trusted: the result channel is capped
  (``Limits.result_bytes``) and read in time linear in what arrives, each line
  is parsed as plain JSON (no NaN or Infinity literals), checked against the
  message schema (:func:`validate_event`) and every string is cut and made
  printable; the learner's printed output is capped and decoded with escapes.
- Inside, before any learner code runs, the child sets CPU time, address
  space, file size (hence output size), open files, process count (where no
  control group counts them) and core dump limits (soft = hard).
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from . import cgroup, isolation, seccomp
from .isolation import Runtime

__all__ = ["Limits", "SandboxResult", "run_submission", "validate_event", "clean_text", "BOOTSTRAP"]

_CHILD_SOURCE = Path(__file__).with_name("child.py")
#: The whole ``-c`` program: read the child's source and the job from stdin, run ``main(job)``.
BOOTSTRAP = (
    "import sys\n"
    "data = sys.stdin.buffer.read()\n"
    "cut = data.index(bytes(1))\n"
    "scope = {'__name__': 'grade_child'}\n"
    "exec(compile(data[:cut], 'child.py', 'exec'), scope)\n"
    "scope['main'](data[cut + 1:])\n"
)
_MAX_TEXT = 500
_MAX_EVENTS = 10_000
#: helpers.experiments.exercise_data.SEED_VARIABLE (this module imports nothing of the course)
_SEED_VARIABLE = "HELPERS_GRADING_SEED"
#: tasks of a sandbox that are not the submission's: bubblewrap's init and the supervisor (child.py)
_RUNNER_TASKS = 2


def _limit(default: Any, flag: str | None, text: str) -> Any:
    return field(default=default, metadata={"flag": flag, "help": text})


@dataclass(frozen=True)
class Limits:
    """Every limit of one submission's sandbox, written once.

    The command line's options, defaults and help are made from these fields
    (``metadata["flag"]``); fields without a flag are fixed.

    Examples
    --------
    >>> Limits().timeout
    10.0
    >>> Limits(timeout=0)
    Traceback (most recent call last):
    ...
    ValueError: --timeout must be > 0 (got 0)
    """

    timeout: float = _limit(
        10.0, "--timeout", "wall-clock seconds for running the notebook, and again for each question"
    )
    memory_mb: int = _limit(
        1024, "--memory-mb", "address-space limit of each process of a submission, in MiB"
    )
    output_bytes: int = _limit(
        256 * 1024, "--output-bytes", "largest file (and printed output) a submission may write, in bytes"
    )
    nproc: int = _limit(32, "--max-processes", "processes and threads a submission may run at once")
    tmp_mb: int = _limit(64, "--tmp-mb", "size of the submission's empty writable /tmp, in MiB")
    result_bytes: int = _limit(4 * 1024 * 1024, None, "most bytes read back from one sandbox run")
    code_bytes: int = _limit(
        128 * 1024, None, "most code (all code cells together) parsed outside the sandbox"
    )
    notebook_mb: float = _limit(
        25.0, "--max-notebook-mb", "largest notebook file that is graded, in MiB (saved plots count)"
    )

    def __post_init__(self) -> None:
        minimum = {
            "timeout": 0,
            "memory_mb": 63,
            "output_bytes": 1023,
            "nproc": 0,
            "tmp_mb": 0,
            "result_bytes": 1023,
            "notebook_mb": 0,
            "code_bytes": 1023,
        }
        for f in fields(self):
            value = getattr(self, f.name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > minimum[f.name]):
                name = f.metadata["flag"] or f.name
                raise ValueError(f"{name} must be > {minimum[f.name]} (got {value})")

    def code_problem(self, sources: list[str]) -> str | None:
        """Why the code cells are too large to be parsed (parsing costs ~2 KiB per statement), or ``None``.

        Examples
        --------
        >>> Limits().code_problem(["x = 1"]) is None
        True
        >>> Limits().code_problem(["a;" * 200_000])[:40]
        'the code cells hold 390 KiB of code (mor'
        """
        size = sum(len(src.encode("utf-8", "surrogatepass")) for src in sources)
        if size <= self.code_bytes:
            return None
        return (
            f"the code cells hold {size >> 10} KiB of code (more than the {self.code_bytes >> 10} KiB "
            "that are graded); outputs and images do not count, only code"
        )

    @property
    def notebook_bytes(self) -> int:
        """:attr:`notebook_mb` in bytes."""
        return int(self.notebook_mb * 1024 * 1024)

    def for_child(self, n_phases: int, per_user_nproc: bool = True) -> dict:
        """The limits the child sets on itself (CPU time covers every phase of one run).

        The process limit counts per user: it is set only where no control group bounds
        the sandbox's processes (``per_user_nproc``); ``nproc`` 0 leaves it unset.
        """
        return {
            "cpu_seconds": int(math.ceil(self.timeout * (n_phases + 1))) + 1,
            "memory_bytes": int(self.memory_mb) * 1024 * 1024,
            "output_bytes": int(self.output_bytes),
            "nproc": int(self.nproc) if per_user_nproc else 0,
        }


@dataclass
class SandboxResult:
    """What came back from the sandbox for one submission, validated.

    ``questions`` maps a question name to a ``result`` event (``status``
    ``ok``/``missing``/``not_callable`` and ``cases``: one ``{"value": tagged}``
    or ``{"error": text}`` per case) or to ``{"failure": reason}`` when the
    question did not report.
    """

    questions: dict = field(default_factory=dict)
    cell_errors: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    output: str = ""
    runs: int = 0
    runs_loaded: bool = False
    hung_cells: list = field(default_factory=list)


# ------------------------------------------------------------------ validation of what comes back
def clean_text(value: Any, limit: int = _MAX_TEXT) -> str:
    """Any string from the sandbox as printable text: cut, lone surrogates and control characters escaped.

    Examples
    --------
    >>> clean_text("ok\\ud800\\x00" + "x" * 600)[:16]
    'ok\\\\ud800\\\\x00xxxx'
    """
    text = value if isinstance(value, str) else repr(value)
    text = text[:limit].encode("utf-8", "backslashreplace").decode("utf-8")
    return "".join(c if c.isprintable() or c in "\n\t" else repr(c)[1:-1] for c in text)


def _valid_tag(tag: Any, depth: int = 0) -> bool:
    if not isinstance(tag, dict) or depth > 6 or not isinstance(tag.get("t"), str):
        return False
    kind = tag["t"]
    if kind in ("list", "dict"):
        items = tag.get("v")
        if not isinstance(items, list):
            return False
        if kind == "list":
            return all(_valid_tag(x, depth + 1) for x in items)
        return all(
            isinstance(p, list) and len(p) == 2 and all(_valid_tag(x, depth + 1) for x in p) for p in items
        )
    if kind == "none":
        return True
    if kind == "bool":
        return isinstance(tag.get("v"), bool)
    if kind == "other":
        return isinstance(tag.get("type"), str)
    return kind in ("float", "int", "str", "np") and isinstance(tag.get("v"), str)


def _valid_case(case: Any) -> bool:
    if not isinstance(case, dict) or len(case) != 1:
        return False
    if "error" in case:
        return isinstance(case["error"], str)
    return _valid_tag(case.get("value"))


def _valid_result(event: dict) -> bool:
    return (
        event.get("status") in ("ok", "missing", "not_callable")
        and isinstance(event.get("cases"), list)
        and all(_valid_case(c) for c in event["cases"])
    )


def _valid_loaded(event: dict) -> bool:
    errors = event.get("errors")
    return isinstance(errors, list) and all(
        isinstance(e, dict)
        and isinstance(e.get("error"), str)
        and isinstance(e.get("cell"), int)
        and isinstance(e.get("line"), int)
        for e in errors
    )


_SCHEMA = {
    "loaded": _valid_loaded,
    "cell": lambda e: type(e.get("i")) is int,
    "start": lambda e: isinstance(e.get("q"), str),
    "result": lambda e: isinstance(e.get("q"), str) and _valid_result(e),
    "warning": lambda e: isinstance(e.get("text"), str),
    "done": lambda e: True,
}


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not plain JSON")


def validate_event(line: bytes) -> dict | None:
    """One line from the result channel as a schema-checked event, or ``None`` if it is not one.

    Examples
    --------
    >>> validate_event(b'{"ev": "start", "q": "q1"}')
    {'ev': 'start', 'q': 'q1'}
    >>> validate_event(b'{"ev": "result", "q": "q1", "status": "ok", "cases": [{"value": NaN}]}') is None
    True
    """
    try:
        event = json.loads(line.decode("utf-8", "strict"), parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return None
    if not isinstance(event, dict) or event.get("ev") not in _SCHEMA:
        return None
    return event if _SCHEMA[event["ev"]](event) else None


# ------------------------------------------------------------------ one sandbox run
def _job_stdin(job: dict) -> int:
    """A sealed, read-only memfd holding the child's source, a NUL byte and the job (JSON)."""
    data = _CHILD_SOURCE.read_bytes() + b"\0" + json.dumps(job).encode()
    fd = os.memfd_create("grade-job", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    seals = fcntl.F_SEAL_WRITE | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_SEAL
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, seals)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


class _Reader:
    """Reads the result channel: capped, line by line (linear in what arrives), every line validated.

    Deadlines follow the run's phases (the cells, then each question), and a phase is only
    taken in the job's order: a message for a phase already passed or out of order is
    ignored, so no output re-opens a phase or extends one. ``end`` is the submission's hard
    cap, which nothing that comes back can move.
    """

    def __init__(self, fd: int, limits: Limits, result: SandboxResult, job: dict, end: float):
        self.fd, self.limits, self.result = fd, limits, result
        self.buffer = bytearray()
        self.scanned = 0
        self.total = 0
        self.invalid = 0
        self.events: list[dict] = []
        order = [("cell", c["index"]) for c in job["cells"] if c["index"] not in job["skip"]]
        order += [("loaded", None)] + [("start", q["name"]) for q in job["questions"]]
        self.order = {key: i for i, key in enumerate(order)}
        self.position = -1
        self.cell: int | None = None
        self.current: str | None = None
        self.loaded = self.finished = False
        self.deadline = min(time.monotonic() + limits.timeout, end)
        self.end = end
        self.reason = ""

    def _phase(self, event: dict) -> bool:
        """Whether a phase event comes in order (then it is taken); later phases may skip earlier ones."""
        ev = event["ev"]
        key = (ev, event.get("i") if ev == "cell" else event.get("q"))
        position = self.order.get(key, -1) if isinstance(key[1], (int, str, type(None))) else -1
        if position <= self.position:
            return False
        self.position = position
        if ev == "cell":
            self.cell = key[1]
            return True
        self.loaded = True
        self.cell = None
        self.current = key[1] if ev == "start" else None
        self.deadline = min(time.monotonic() + self.limits.timeout, self.end)
        return True

    def _take(self, event: dict) -> None:
        ev = event["ev"]
        if ev in ("cell", "loaded", "start"):
            if not self._phase(event):
                self.invalid += 1
                return
        elif ev == "result":
            if event["q"] != self.current:
                self.invalid += 1
                return
            self.current = None
        elif ev == "done":
            self.finished = self.loaded
        if len(self.events) < _MAX_EVENTS:
            self.events.append(event)

    def _feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        if self.total > self.limits.result_bytes:
            self.reason = "sent more than the result channel accepts"
            return
        self.buffer += chunk
        start = 0
        while not (self.finished or self.reason):
            newline = self.buffer.find(b"\n", max(start, self.scanned))
            if newline < 0:
                break
            # a message is a JSON object: anything else is dropped without parsing it
            event = (
                validate_event(bytes(self.buffer[start:newline]))
                if self.buffer[start : start + 1] == b"{"
                else None
            )
            start = newline + 1
            if event is None:
                self.invalid += 1
            else:
                self._take(event)
        del self.buffer[:start]
        self.scanned = len(self.buffer)

    def run(self) -> None:
        """Read until ``done``, end of file, the deadline or the size cap."""
        while not (self.finished or self.reason):
            left = min(self.deadline, self.end) - time.monotonic()
            if left <= 0:
                capped = self.end <= self.deadline
                self.reason = (
                    "the submission's total time limit was used up"
                    if capped
                    else f"timed out after {self.limits.timeout:g} s (wall clock)"
                )
                return
            ready, _, _ = select.select([self.fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.fd, 65536)
            if not chunk:
                return
            self._feed(chunk)


def _describe_exit(returncode: int | None) -> str:
    if returncode is None:
        return "the process stopped reporting"
    if returncode < 0 or returncode >= 128:
        sig = -returncode if returncode < 0 else returncode - 128
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else f"signal {sig}"
        if sig == signal.SIGXCPU:
            return f"the CPU time limit was exceeded ({name})"
        if sig == signal.SIGKILL:
            return f"the process was killed ({name}; memory or CPU limit)"
        return f"the process was killed by {name}"
    return f"the process exited with code {returncode} (sys.exit/os._exit or a crash) before reporting"


def _kill(proc: subprocess.Popen) -> None:
    """SIGKILL bwrap's whole process group (its PID namespace dies with it) and reap it."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.kill()
    except ProcessLookupError:
        pass
    proc.wait()


def _collect_output(out_file: Any, result: SandboxResult, limit: int) -> None:
    out_file.seek(0)
    text = out_file.read(limit).decode("utf-8", "backslashreplace")
    if text and len(result.output) < limit:
        result.output += clean_text(text, limit - len(result.output))


def _read_child_pid(fd: int, timeout: float) -> int | None:
    """The sandbox's first process as bwrap reports it on ``--info-fd`` (``None`` if bwrap said nothing)."""
    data = b""
    end = time.monotonic() + timeout
    while b"}" not in data and len(data) < 4096:
        left = end - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return None
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        data += chunk
    try:
        pid = json.loads(data[: data.index(b"}") + 1]).get("child-pid")
    except (ValueError, AttributeError):
        return None
    return pid if isinstance(pid, int) and pid > 0 else None


class _Launch:
    """bwrap started for one run: its seccomp filter, and its control group joined before any code runs."""

    def __init__(self, runtime: Runtime, limits: Limits, job: dict, result: SandboxResult):
        self.runtime, self.limits, self.result = runtime, limits, result
        self.group: cgroup.Group | None = None
        if runtime.mode == isolation.BUBBLEWRAP and runtime.cgroups is not None:
            try:
                self.group = cgroup.Group(
                    runtime.cgroups, int(limits.memory_mb) << 20, int(limits.nproc) + _RUNNER_TASKS
                )
            except OSError as exc:
                result.warnings.append(f"no control group for this run ({exc}); per-process limits only")

    def start(self, argv_tail: list[str], write_fd: int, stdin_fd: int, out_file: Any, workdir: str | None):
        """Popen bwrap (or the unsafe child); returns the process."""
        if self.runtime.mode != isolation.BUBBLEWRAP:
            argv = [self.runtime.python, "-I", "-S", "-B"] + argv_tail
            extra = {"env": isolation.sandbox_env(workdir or "/tmp"), "cwd": workdir}
            return self._popen(argv, (write_fd,), stdin_fd, out_file, extra)
        filter_fd = seccomp.filter_fd()
        fds = [filter_fd]
        block_r = block_w = info_r = info_w = None
        if self.group is not None:
            block_r, block_w = os.pipe()
            info_r, info_w = os.pipe()
            fds += [block_r, info_w]
        try:
            argv = isolation.bwrap_argv(
                self.runtime,
                tmp_bytes=self.limits.tmp_mb * 1024 * 1024,
                seccomp_fd=filter_fd,
                block_fd=block_r,
                info_fd=info_w,
            )
            extra = {"env": {}, **isolation.popen_user(self.runtime)}
            proc = self._popen(argv + argv_tail, (write_fd, *fds), stdin_fd, out_file, extra)
        finally:
            for fd in fds:
                os.close(fd)
        if self.group is not None:
            self._join(info_r, block_w)
        return proc

    def _join(self, info_r: int, block_w: int) -> None:
        try:
            pid = _read_child_pid(info_r, 10.0)
            if pid is not None:
                self.group.add(pid)
        except OSError as exc:
            self.result.warnings.append(f"could not move the sandbox into its control group ({exc})")
        finally:
            os.close(info_r)
            try:
                os.write(block_w, b"g")
            except OSError:
                pass
            os.close(block_w)

    @staticmethod
    def _popen(argv, fds, stdin_fd, out_file, extra) -> subprocess.Popen:
        return subprocess.Popen(
            argv,
            stdin=stdin_fd,
            stdout=out_file,
            stderr=subprocess.STDOUT,
            pass_fds=fds,
            start_new_session=True,
            close_fds=True,
            **extra,
        )

    def finish(self, proc: subprocess.Popen) -> bool:
        """Kill everything of the run; whether the control group had to enforce its memory limit."""
        _kill(proc)
        if self.group is None:
            return False
        exceeded = self.group.memory_exceeded()
        self.group.remove()
        return exceeded


def _run_once(job: dict, runtime: Runtime, limits: Limits, result: SandboxResult, end: float) -> _Reader:
    """One sandbox run; the reader holds the events, the phase it stopped in and the reason."""
    workdir = tempfile.mkdtemp(prefix="helpers-grade-") if runtime.mode == isolation.UNSAFE else None
    read_fd, write_fd = os.pipe()
    job = {**job, "channel_fd": write_fd}
    stdin_fd = _job_stdin(job)
    reader = _Reader(read_fd, limits, result, job, end)
    launch = _Launch(runtime, limits, job, result)
    try:
        with tempfile.TemporaryFile() as out_file:
            proc = launch.start(["-c", BOOTSTRAP], write_fd, stdin_fd, out_file, workdir)
            os.close(write_fd)
            write_fd = -1
            exceeded = False
            try:
                reader.run()
                if not reader.finished and not reader.reason:
                    try:
                        proc.wait(timeout=2)
                    except subprocess.TimeoutExpired:
                        pass
                    reader.reason = _describe_exit(proc.returncode)
            finally:
                exceeded = launch.finish(proc)
            if exceeded and not reader.finished:
                reader.reason = f"the submission's memory limit ({limits.memory_mb} MiB in all) was exceeded"
            _collect_output(out_file, result, 4096)
    finally:
        for fd in (write_fd, read_fd, stdin_fd):
            if fd >= 0:
                os.close(fd)
        if workdir:
            shutil.rmtree(workdir, ignore_errors=True)
    if reader.invalid:
        result.warnings.append(
            f"ignored {reader.invalid} invalid or out-of-order message(s) on the result channel"
        )
    return reader


def _take_events(reader: _Reader, remaining: list[dict], result: SandboxResult, first: bool) -> None:
    names = {q["name"] for q in remaining}
    for event in reader.events:
        ev = event["ev"]
        if ev == "loaded" and first:
            result.cell_errors = [
                {"cell": e["cell"], "line": e["line"], "error": clean_text(e["error"])}
                for e in event["errors"][:50]
            ]
        elif ev == "warning" and len(result.warnings) < 50:
            result.warnings.append(clean_text(event["text"], 300))
        elif ev == "result" and event["q"] in names and event["q"] not in result.questions:
            result.questions[event["q"]] = event


def run_submission(
    cells: list[dict],
    questions: list[dict],
    runtime: Runtime,
    limits: Limits | None = None,
    seed: int | None = None,
) -> SandboxResult:
    """Run ``cells`` in a fresh sandbox and call every question on its cases.

    The cells run one by one: when the run hangs or dies inside a cell, that cell is
    reported (:attr:`SandboxResult.hung_cells`) and a new sandbox runs the notebook
    without it, so the functions defined before it are still graded. A question that
    hangs or crashes scores zero and a new sandbox carries on with the questions after
    it. All runs of one submission share one hard wall-clock cap,
    ``timeout * (questions + 1)`` seconds, that nothing the submission sends can move.

    Parameters
    ----------
    cells : list of dict
        ``{"index": i, "statements": [{"line": n, "source": text}, ...]}``,
        already free of IPython magics and syntax errors.
    questions : list of dict
        ``{"name", "kind": "function"|"value", "target", "cases": [[arg, ...], ...]}``.
        Arguments are JSON values; ``{"set": [...]}`` becomes a set.
    runtime : Runtime
        From :func:`helpers.grade.isolation.prepare`.
    limits : Limits
        Time, memory, output and process limits.
    seed : int, optional
        The grading run's seed, put into the sandbox's environment for the exercise data that
        change with each run (:data:`helpers.experiments.exercise_data.SEED_VARIABLE`).

    Returns
    -------
    SandboxResult
        Every question is present: either with its validated result or with a failure.
    """
    limits = limits or Limits()
    result = SandboxResult()
    remaining = list(questions)
    skip: list[int] = []
    end = time.monotonic() + limits.timeout * (len(questions) + 1)
    while remaining:
        job = {
            "cells": cells,
            "skip": skip,
            "questions": remaining,
            "limits": limits.for_child(len(remaining), per_user_nproc=runtime.cgroups is None),
            "sys_path": runtime.sys_path,
            "env": {} if seed is None else {_SEED_VARIABLE: str(seed)},
        }
        reader = _run_once(job, runtime, limits, result, end)
        _take_events(reader, remaining, result, first=not result.runs_loaded)
        result.runs += 1
        result.runs_loaded = result.runs_loaded or reader.loaded
        todo = [q for q in remaining if q["name"] not in result.questions]
        if not todo:
            break
        if not reader.loaded and reader.cell is not None and time.monotonic() < end:
            # The run stopped inside a cell: report it, run the notebook again without it.
            result.hung_cells.append({"cell": reader.cell, "reason": reader.reason or "stopped reporting"})
            skip = skip + [reader.cell]
            continue
        if not reader.loaded:
            for q in todo:
                result.questions[q["name"]] = {"failure": f"running the notebook failed: {reader.reason}"}
            break
        if time.monotonic() >= end:
            for q in todo:
                result.questions[q["name"]] = {"failure": "the submission's total time limit was used up"}
            break
        # The sandbox died or hung inside one question (or between two): that one fails, the rest go on.
        stuck = reader.current if reader.current in {q["name"] for q in todo} else todo[0]["name"]
        result.questions[stuck] = {"failure": reader.reason or "the process stopped reporting"}
        remaining = [q for q in todo if q["name"] != stuck]
    result.cell_errors += [_hung_cell_error(h, cells, limits) for h in result.hung_cells]
    return result


def _hung_cell_error(hung: dict, cells: list[dict], limits: Limits) -> dict:
    """A cell the notebook's run stopped in, as a cell error (which cell, why, and what happened next)."""
    cell = next((c for c in cells if c["index"] == hung["cell"]), {"statements": [{"line": 1}]})
    return {
        "cell": hung["cell"],
        "line": cell["statements"][0]["line"] if cell["statements"] else 1,
        "error": f"this cell did not finish: {clean_text(hung['reason'], 200)}; it was skipped and the "
        f"rest of the notebook was run without it (each cell shares the {limits.timeout:g} s wall clock)",
    }
