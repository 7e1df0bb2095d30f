"""Run one learner submission in its sandbox and bring back validated plain values.

The *run* stage of grading (read -> prepare -> **run** -> decode -> score). The
grader never imports or executes learner code in its own process. It hands the
prepared cells and questions to :func:`run_submission`, which starts the child
program (:mod:`helpers.grade.child`, passed in on standard input together with
the job) inside the sandbox described in :mod:`helpers.grade.isolation`, and
reads back one JSON line per event on a dedicated pipe, validated by
:mod:`helpers.grade.decode`. Comparing values with the reference is the
grader's job.

The job on standard input holds no case: the cases travel in a sealed memfd of
their own that only the supervisor reads, and each case reaches the learner's
process only when it runs (see :mod:`helpers.grade.child`).

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
  printable (:mod:`helpers.grade.decode`).
- The learner's printed output (standard output and error) is a pipe read here
  as it arrives, never a file on the grader's disk: the first bytes are kept
  for the report, and past ``Limits.output_bytes`` the pipe is closed, so
  further writes fail (``EPIPE``) the way a write past a file-size limit does.
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
from .decode import (
    DRAWN_END,
    HIDDEN_END,
    SandboxResult,
    clean_text,
    hung_cell_error,
    take_events,
    validate_event,
    with_public,
)
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
_MAX_EVENTS = 10_000
#: helpers.experiments.exercise_data.SEED_VARIABLE (this module imports nothing of the course)
_SEED_VARIABLE = "HELPERS_GRADING_SEED"
#: the printed output kept for a report (all runs of one submission together)
_OUTPUT_SHOWN = 4096
#: tasks of a sandbox that are not the submission's: bubblewrap's init and the supervisor (child.py)
_RUNNER_TASKS = 2


def _limit(default: Any, flag: str | None, text: str) -> Any:
    return field(default=default, metadata={"flag": flag, "help": text})


@dataclass(frozen=True)
class Limits:
    """Every limit of one submission's sandbox, written once.

    The command line's options, defaults and help are made from these fields
    (``metadata["flag"]``); fields without a flag are fixed.

    Parameters
    ----------
    timeout, memory_mb, output_bytes, nproc, tmp_mb, notebook_mb : float or int
        Set from the command line (``--timeout``, ``--memory-mb``, ``--output-bytes``,
        ``--max-processes``, ``--tmp-mb``, ``--max-notebook-mb``); each field's help, below, is
        what ``--help`` prints, and its unit.
    result_bytes, code_bytes : int
        Fixed bounds (no flag), described by their fields' help too.

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
        256 * 1024,
        "--output-bytes",
        "largest file, and most printed output, a submission may write, in bytes",
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


# ------------------------------------------------------------------ one sandbox run
def _sealed(name: str, data: bytes) -> int:
    """A sealed, read-only memfd holding ``data``, at offset 0 (nothing on any disk)."""
    fd = os.memfd_create(name, os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    seals = fcntl.F_SEAL_WRITE | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_SEAL
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, seals)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


class _Pipes:
    """The descriptors of one run: the result channel, the learner's output, the cases and the job.

    The job (standard input: the child's source, a NUL byte, the job as JSON) names the
    questions but holds no case; the cases (``{question: [JSON text of one case's
    arguments, ...]}``) are a memfd of their own, which only the supervisor reads.
    """

    def __init__(self, job: dict, cases: dict[str, list[str]]):
        self.channel_r, self.channel_w = os.pipe()
        self.output_r, self.output_w = os.pipe()
        self.cases = _sealed("grade-cases", json.dumps(cases).encode())
        self.job = {**job, "channel_fd": self.channel_w, "cases_fd": self.cases}
        self.stdin = _sealed("grade-job", _CHILD_SOURCE.read_bytes() + b"\0" + json.dumps(self.job).encode())

    def passed(self) -> tuple[int, ...]:
        """The descriptors the child inherits besides its standard ones."""
        return (self.channel_w, self.cases)

    def close_child_ends(self) -> None:
        """Once the sandbox started: only the child holds its ends (end of file reaches the reader)."""
        for name in ("channel_w", "output_w", "cases", "stdin"):
            self._close(name)

    def close(self) -> None:
        for name in ("channel_r", "channel_w", "output_r", "output_w", "cases", "stdin"):
            self._close(name)

    def _close(self, name: str) -> None:
        fd = getattr(self, name)
        if fd >= 0:
            os.close(fd)
            setattr(self, name, -1)


class _Output:
    """The learner's printed output, read from its pipe as it arrives (never stored on a disk).

    The first ``keep`` bytes are kept for the report. Past ``cap`` bytes the pipe is closed:
    further writes fail with ``EPIPE``, as a write past a file-size limit fails with ``EFBIG``.
    """

    def __init__(self, fd: int, cap: int, keep: int):
        self.fd, self.cap, self.keep = fd, cap, max(0, keep)
        self.data = bytearray()
        self.total = 0
        os.set_blocking(fd, False)

    def read(self) -> None:
        """Take what the pipe holds now (closing it at end of file or past the cap)."""
        try:
            chunk = os.read(self.fd, 65536)
        except BlockingIOError:
            return
        if not chunk:
            self.close()
            return
        self.total += len(chunk)
        if len(self.data) < self.keep:
            self.data += chunk[: self.keep - len(self.data)]
        if self.total >= self.cap:
            self.close()

    def drain(self) -> None:
        """Everything already written (the runner flushes before it ends)."""
        while self.fd >= 0 and select.select([self.fd], [], [], 0)[0]:
            before = self.total
            self.read()
            if self.total == before:
                break

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


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
        order: list[tuple] = [("cell", c["index"]) for c in job["cells"] if c["index"] not in job["skip"]]
        order += [("loaded", None)]
        # every question's public cases (part 1), then every question's hidden cases (part 2)
        order += [("start", q["name"], part) for part in (1, 2) for q in job["questions"]]
        self.order = {key: i for i, key in enumerate(order)}
        self.position = -1
        self.cell: int | None = None
        self.current: str | None = None
        self.loaded = self.finished = False
        #: the supervisor announced a function's hidden cases (part 2): a hidden input may reach the notebook
        self.hidden = False
        self.functions = {q["name"] for q in job["questions"] if q["kind"] == "function"}
        self.deadline = min(time.monotonic() + limits.timeout, end)
        self.end = end
        self.reason = ""
        self.timed_out = False

    def _phase(self, event: dict) -> bool:
        """Whether a phase event comes in order (then it is taken); later phases may skip earlier ones."""
        ev = event["ev"]
        key: tuple = (ev, event.get("i")) if ev == "cell" else (ev, event.get("q"))
        key = (*key, event["part"]) if ev == "start" else key
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
        self.hidden = self.hidden or (ev == "start" and key[2] == 2 and key[1] in self.functions)
        self.deadline = min(time.monotonic() + self.limits.timeout, self.end)
        return True

    def _take(self, event: dict) -> None:
        ev = event["ev"]
        if ev in ("cell", "loaded", "start"):
            if not self._phase(event):
                self.invalid += 1
                return
        elif ev in ("result", "public"):
            if event["q"] != self.current or (ev == "public" and self.hidden):
                self.invalid += 1
                return
            self.current = None if ev == "result" else self.current
        elif ev == "warning" and self.hidden:
            event = {**event, "after_hidden": True}
        elif ev == "done":
            self.finished = self.loaded
        if len(self.events) < _MAX_EVENTS:
            self.events.append(event)

    def _feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        if self.total > self.limits.result_bytes:
            self.reason = "sent more than the result channel accepts"
            # what is dropped unread may announce a function's hidden cases (red team 6): the run
            # counts as one a hidden input may have reached
            self.hidden = True
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

    def after_end(self) -> None:
        """Once the run is killed at its deadline: whether the channel still holds part 2's announcement.

        The supervisor writes a function's announcement before it sends that function's first hidden
        case, so a hidden case the notebook got before the kill left its announcement in the channel,
        even when the deadline came before the grader read it (red team 6). What is left is read to
        the end of the file, within the size cap, for at most a second; a channel that cannot be read
        to its end counts as holding one.
        """
        left = bytes(self.buffer)
        stop = time.monotonic() + 1.0
        while self.total + len(left) <= self.limits.result_bytes:
            ready, _, _ = select.select([self.fd], [], [], max(0.0, stop - time.monotonic()))
            chunk = os.read(self.fd, 65536) if ready else None
            if not chunk:
                self.hidden = self.hidden or chunk is None  # None: neither data nor end of file in time
                break
            left += chunk
        else:
            self.hidden = True
        self.hidden = self.hidden or any(self._announces_hidden(line) for line in left.split(b"\n"))

    def _announces_hidden(self, line: bytes) -> bool:
        event = validate_event(line) if line[:1] == b"{" else None
        if event is None or event["ev"] != "start":
            return False
        return event.get("part") == 2 and event.get("q") in self.functions

    def _expired(self) -> str:
        if self.end <= self.deadline:
            return "the submission's total time limit was used up"
        return f"timed out after {self.limits.timeout:g} s (wall clock)"

    def run(self, output: _Output) -> None:
        """Read until ``done``, end of file, the deadline or the size cap; drain ``output`` meanwhile."""
        while not (self.finished or self.reason):
            left = min(self.deadline, self.end) - time.monotonic()
            if left <= 0:
                self.reason = self._expired()
                self.timed_out = True
                return
            watched = [self.fd] + ([output.fd] if output.fd >= 0 else [])
            ready, _, _ = select.select(watched, [], [], left)
            if output.fd in ready:
                output.read()
            if self.fd in ready:
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

    def __init__(self, runtime: Runtime, limits: Limits, result: SandboxResult):
        self.runtime, self.limits, self.result = runtime, limits, result
        self.group: cgroup.Group | None = None
        if runtime.mode == isolation.BUBBLEWRAP and runtime.cgroups is not None:
            try:
                self.group = cgroup.Group(
                    runtime.cgroups, int(limits.memory_mb) << 20, int(limits.nproc) + _RUNNER_TASKS
                )
            except OSError as exc:
                result.warnings.append(f"no control group for this run ({exc}); per-process limits only")

    def start(self, pipes: _Pipes, workdir: str | None) -> subprocess.Popen:
        """Popen bwrap (or the unsafe child) on the run's descriptors; returns the process."""
        tail = ["-c", BOOTSTRAP]
        if self.runtime.mode != isolation.BUBBLEWRAP:
            argv = [self.runtime.python, "-I", "-S", "-B"] + tail
            extra = {"env": isolation.sandbox_env(workdir or "/tmp"), "cwd": workdir}
            return self._popen(argv, pipes.passed(), pipes, extra)
        filter_fd = seccomp.filter_fd()
        fds = [filter_fd]
        if self.group is not None:  # bwrap reports its child on info, which waits on block until it joined
            block_r, block_w = os.pipe()
            info_r, info_w = os.pipe()
            fds += [block_r, info_w]
        try:
            argv = isolation.bwrap_argv(
                self.runtime,
                tmp_bytes=self.limits.tmp_mb * 1024 * 1024,
                seccomp_fd=filter_fd,
                block_fd=fds[1] if self.group is not None else None,
                info_fd=fds[2] if self.group is not None else None,
            )
            extra = {"env": {}, **isolation.popen_user(self.runtime)}
            proc = self._popen(argv + tail, (*pipes.passed(), *fds), pipes, extra)
        finally:
            for fd in fds:
                os.close(fd)
        if self.group is not None:
            self._join(self.group, info_r, block_w)
        return proc

    def _join(self, group: cgroup.Group, info_r: int, block_w: int) -> None:
        try:
            pid = _read_child_pid(info_r, 10.0)
            if pid is not None:
                group.add(pid)
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
    def _popen(argv: list[str], fds: tuple[int, ...], pipes: _Pipes, extra: dict) -> subprocess.Popen:
        return subprocess.Popen(
            argv,
            stdin=pipes.stdin,
            stdout=pipes.output_w,
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


def _watch(reader: _Reader, output: _Output, proc: subprocess.Popen, launch: _Launch) -> None:
    """Follow the run to its end (or its deadline), then kill what is left of it."""
    exceeded = False
    try:
        reader.run(output)
        output.drain()
        if not reader.finished and not reader.reason:
            try:
                proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
            reader.reason = _describe_exit(proc.returncode)
    finally:
        exceeded = launch.finish(proc)
    if reader.timed_out:
        reader.after_end()
    if exceeded and not reader.finished:
        reader.reason = f"the submission's memory limit ({launch.limits.memory_mb} MiB in all) was exceeded"


def _keep_output(output: _Output, result: SandboxResult, limits: Limits, hidden: bool) -> None:
    """The run's printed output into the report (the instructor's); the cut is said to the learner only
    when no hidden input had reached the notebook (``hidden``): how much it printed could carry one."""
    text = output.data.decode("utf-8", "backslashreplace")
    if text:
        result.output += clean_text(text, max(0, _OUTPUT_SHOWN - len(result.output)))
    if output.total >= limits.output_bytes:
        (result.withheld if hidden else result.warnings).append(
            f"the printed output was cut after {limits.output_bytes} bytes (--output-bytes): "
            "printing more failed inside the notebook"
        )


def _run_once(
    job: dict,
    cases: dict[str, list[str]],
    runtime: Runtime,
    limits: Limits,
    result: SandboxResult,
    end: float,
    tainted: bool = False,
) -> _Reader:
    """One sandbox run; the reader holds the events, the phase it stopped in and the reason.

    ``tainted``: an earlier run of the submission got to the hidden cases, or the data are drawn at
    grading; then what the run's end says that the notebook could choose is the instructor's only."""
    workdir = tempfile.mkdtemp(prefix="helpers-grade-") if runtime.mode == isolation.UNSAFE else None
    pipes = _Pipes(job, cases)
    reader = _Reader(pipes.channel_r, limits, result, pipes.job, end)
    output = _Output(pipes.output_r, limits.output_bytes, _OUTPUT_SHOWN - len(result.output))
    pipes.output_r = -1  # the output reader owns it now
    launch = _Launch(runtime, limits, result)
    try:
        proc = launch.start(pipes, workdir)
        pipes.close_child_ends()
        _watch(reader, output, proc, launch)
    finally:
        output.close()
        pipes.close()
        if workdir:
            shutil.rmtree(workdir, ignore_errors=True)
    _keep_output(output, result, limits, tainted or reader.hidden)
    if reader.invalid:  # how many is the notebook's to choose, once a hidden input or drawn data reached it
        (result.withheld if tainted or reader.hidden else result.warnings).append(
            f"ignored {reader.invalid} invalid or out-of-order message(s) on the result channel"
        )
    return reader


# ------------------------------------------------------------------ every run of one submission
#: the longest command line the runner reads (a case's JSON arguments and 256 bytes): a fixed bound,
#: so nothing the notebook can read before a case runs is computed from the cases (red team 9)
COMMAND_BYTES = 64 << 20


class _Runs:
    """The runs of one submission: the questions still to answer, the cells to skip, the hard cap."""

    def __init__(self, cells: list[dict], questions: list[dict], runtime: Runtime, limits: Limits, seed):
        self.cells, self.runtime, self.limits = cells, runtime, limits
        self.env = {} if seed is None else {_SEED_VARIABLE: str(seed)}
        self.remaining = list(questions)
        self.skip: list[int] = []
        self.result = SandboxResult()
        self.end = time.monotonic() + limits.timeout * (len(questions) + 1)
        #: a run got to the hidden cases: from then on a hidden input may have reached the notebook
        #: (a run after it starts when it ended, and its code can read the clock)
        self.tainted = False
        #: the exercise data are drawn at grading (a data seed): they reach the notebook with its first
        #: cell, so how any run ended, its cell errors and its warnings could carry them (red team 9)
        self.drawn = seed is not None

    def job(self) -> tuple[dict, dict[str, list[str]]]:
        """The public job of the next run (no case in it) and, apart, the cases of its questions."""
        cases = {
            q["name"]: [json.dumps(args) for args in q.get("cases", [])]
            for q in self.remaining
            if q["kind"] == "function"
        }
        longest = max((len(c) for each in cases.values() for c in each), default=0)
        if longest + 256 > COMMAND_BYTES:
            raise ValueError(
                f"a case of this assignment is {longest} bytes as JSON; the sandbox takes at most "
                f"{COMMAND_BYTES - 256}: make the case generator's arguments smaller"
            )
        job = {
            "cells": self.cells,
            "skip": list(self.skip),
            "questions": [
                {**{k: q[k] for k in ("name", "kind", "target")}, "public": q.get("public", [])}
                for q in self.remaining
            ],
            "limits": self.limits.for_child(len(self.remaining), per_user_nproc=self.runtime.cgroups is None),
            "sys_path": self.runtime.sys_path,
            "env": self.env,
            "command_bytes": COMMAND_BYTES,
        }
        return job, cases

    def step(self) -> bool:
        """One run; whether another is needed."""
        tainted = self.tainted
        quiet = tainted or self.drawn
        reader = _run_once(*self.job(), self.runtime, self.limits, self.result, self.end, quiet)
        first = not self.result.runs_loaded
        take_events(reader.events, self.remaining, self.result, first, not tainted, self.drawn)
        self.result.runs += 1
        self.result.runs_loaded = self.result.runs_loaded or reader.loaded
        self.tainted = tainted or reader.hidden
        todo = [q for q in self.remaining if q["name"] not in self.result.questions]
        return bool(todo) and self._next(reader, todo)

    def _next(self, reader: _Reader, todo: list[dict]) -> bool:
        """After a run that stopped early: what failed, and whether a new run goes on.

        Once a hidden input may have reached the notebook (:attr:`tainted`), how the run ended is
        the learner's only as :data:`~helpers.grade.decode.HIDDEN_END` (the exit status, the
        signal, a time or memory limit, a hung cell: the instructor's ``detail`` keeps it)."""
        reason = reader.reason or "the process stopped reporting"
        if not reader.loaded and reader.cell is not None and time.monotonic() < self.end:
            self._hung(reader.cell, reason)
            return True
        if not reader.loaded:
            return self._fail(todo, f"running the notebook failed: {reason}")
        if time.monotonic() >= self.end:
            return self._fail(todo, "the submission's total time limit was used up")
        # The sandbox died or hung inside one question (or between two): that one fails, the rest go on.
        stuck = reader.current if reader.current in {q["name"] for q in todo} else todo[0]["name"]
        self.result.questions[stuck] = self._failure(reason)
        self.remaining = [q for q in todo if q["name"] != stuck]
        return bool(self.remaining)

    def _hung(self, cell: int, reason: str) -> None:
        """The run stopped inside a cell: report it (the instructor's only, once anything drawn at
        grading may have reached the notebook), and run the notebook again without it."""
        if self.tainted or self.drawn:
            self.result.withheld.append(f"cell {cell} did not finish: {reason}")
        else:
            self.result.hung_cells.append({"cell": cell, "reason": reason})
        self.skip.append(cell)

    def _failure(self, reason: str) -> dict:
        """A question's failure as reported: the learner reads :data:`HIDDEN_END` once tainted
        (:data:`DRAWN_END` when the data are drawn at grading)."""
        if self.tainted or self.drawn:
            return {"failure": HIDDEN_END if self.tainted else DRAWN_END, "detail": reason}
        return {"failure": reason}

    def _fail(self, todo: list[dict], reason: str) -> bool:
        for q in todo:
            self.result.questions[q["name"]] = self._failure(reason)
        return False

    def merge_public(self, questions: list[dict]) -> None:
        """Every question's status and public cases from a run no hidden input had reached."""
        found = self.result.questions
        for q in questions:
            if q["name"] in found:
                found[q["name"]] = with_public(q, found[q["name"]], self.result.public.get(q["name"]))


def run_submission(
    cells: list[dict],
    questions: list[dict],
    runtime: Runtime,
    limits: Limits | None = None,
    seed: int | str | None = None,
) -> SandboxResult:
    """Run ``cells`` in a fresh sandbox and call every question on its cases.

    The cells run one by one: when the run hangs or dies inside a cell, that cell is
    reported (:attr:`SandboxResult.hung_cells`) and a new sandbox runs the notebook
    without it, so the functions defined before it are still graded. A question that
    hangs or crashes scores zero and a new sandbox carries on with the questions after
    it. All runs of one submission share one hard wall-clock cap,
    ``timeout * (questions + 1)`` seconds, that nothing the submission sends can move.
    The cases reach the learner's process one at a time, each when it runs.

    Parameters
    ----------
    cells : list of dict
        ``{"index": i, "statements": [{"line": n, "source": text}, ...]}``,
        already free of IPython magics and syntax errors (:func:`helpers.grade.prepare.prepare_notebook`).
    questions : list of dict
        ``{"name", "kind": "function"|"value", "target", "cases": [[arg, ...], ...], "public": [i, ...]}``.
        Arguments are JSON values; ``{"set": [...]}`` becomes a set. ``public`` (optional, default
        none) lists the indices of the public cases: every question's public cases run before any
        hidden case of any question, so what they return or raise may be shown to the learner; a
        question's status and public cases are those of a run no hidden input had reached
        (:func:`helpers.grade.decode.with_public`).
    runtime : Runtime
        From :func:`helpers.grade.isolation.prepare`.
    limits : Limits
        Time, memory, output and process limits.
    seed : int or str, optional
        The seed of the exercise data that change with each run, put into the sandbox's
        environment (:data:`helpers.experiments.exercise_data.SEED_VARIABLE`). The grader passes
        a one-way hash of the run's seed (``grader.data_seed``), never the seed of the hidden cases.

    Returns
    -------
    SandboxResult
        Every question is present: either with its validated result or with a failure.
    """
    limits = limits or Limits()
    runs = _Runs(cells, questions, runtime, limits, seed)
    while runs.remaining and runs.step():
        pass
    runs.merge_public(questions)
    result = runs.result
    result.cell_errors += [hung_cell_error(h, cells, limits.timeout) for h in result.hung_cells]
    return result
