"""Run a learner's code in a separate, limited process and collect plain values.

The grader (:mod:`helpers.grade`) never imports or executes learner code in its
own process. It hands the cells and the inputs of every case to
:func:`run_submission`, which starts ``python -I -S helpers/grade/child.py``
and reads back, for each question, the learner's results as *tagged plain
values* (see :func:`decode`). Comparing them with the reference is the
grader's job.

What is enforced, and how
-------------------------
- A fresh temporary working directory per process (also ``HOME`` and
  ``TMPDIR``), removed afterwards; a scrubbed environment.
- Wall-clock time: ``timeout`` seconds for running the cells, then again for
  each question; on expiry the whole process group is killed (SIGKILL), the
  question scores zero and a new process carries on with the questions after
  it. A crash (``os._exit``, a signal) is handled the same way.
- CPU time (RLIMIT_CPU), address space (RLIMIT_AS), file size and hence
  learner output (RLIMIT_FSIZE; stdout/stderr go to a capped file),
  open files, processes (RLIMIT_NPROC) and core dumps (RLIMIT_CORE = 0), set
  by the child before any learner code runs.
- An audit hook (which Python code cannot remove) refuses starting processes,
  forking, sockets, writes/deletes outside the temporary folder and, unless
  the assignment allows it, importing or reading the ``helpers`` package.

What is NOT prevented: there is no kernel-level sandbox (seccomp, namespaces,
containers). Code using ``ctypes`` can make raw system calls, reading files
anywhere is allowed, and RLIMIT_NPROC does not bind the root user. Run the
grader as an unprivileged user (or in a container) for untrusted classes.
"""

from __future__ import annotations

import json
import math
import os
import select
import shutil
import signal
import site
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Limits", "SandboxResult", "run_submission", "decode"]

_CHILD = Path(__file__).with_name("child.py")
_HELPERS_DIR = Path(__file__).resolve().parents[1]  # the installed helpers package
_PROJECT_ROOT = _HELPERS_DIR.parent  # the folder that holds it (site-packages, or a checkout)
_MAX_CHANNEL_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Resource limits for one sandboxed process.

    Examples
    --------
    >>> Limits().timeout
    10.0
    """

    timeout: float = 10.0
    memory_mb: int = 1024
    output_bytes: int = 256 * 1024
    nproc: int = 256

    def for_child(self, n_phases: int) -> dict:
        return {
            "cpu_seconds": int(math.ceil(self.timeout * (n_phases + 1))) + 1,
            "memory_bytes": int(self.memory_mb) * 1024 * 1024,
            "output_bytes": int(self.output_bytes),
            "nproc": int(self.nproc),
        }


@dataclass
class SandboxResult:
    """What came back from the sandbox for one submission.

    ``questions`` maps a question name to either ``{"cases": [...]}`` (one
    ``{"value": tagged}`` or ``{"error": text}`` per case) or
    ``{"failure": reason}`` when the question did not report.
    """

    questions: dict = field(default_factory=dict)
    cell_errors: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    output: str = ""
    runs: int = 0


def _env(tmp: str) -> dict:
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": tmp,
        "TMPDIR": tmp,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "MPLBACKEND": "Agg",
    }


def _child_sys_path(allow_helpers: bool) -> list[str]:
    paths = [p for p in site.getsitepackages() if os.path.isdir(p)]
    if allow_helpers:
        paths.append(str(_PROJECT_ROOT))
    return paths


def _describe_exit(returncode: int | None) -> str:
    if returncode is None:
        return "the process stopped reporting"
    if returncode < 0:
        sig = -returncode
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else f"signal {sig}"
        if sig == signal.SIGXCPU:
            return f"the CPU time limit was exceeded ({name})"
        if sig == signal.SIGKILL:
            return f"the process was killed ({name}; memory or CPU limit)"
        return f"the process was killed by {name}"
    return f"the process exited with code {returncode} (sys.exit/os._exit or a crash) before reporting"


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.kill()
    except ProcessLookupError:
        pass
    proc.wait()


def _run_once(job: dict, limits: Limits, result: SandboxResult) -> tuple[list[dict], str | None, bool, str]:
    """One child process. Returns (events, failing question or None, loaded, reason)."""
    tmp = tempfile.mkdtemp(prefix="helpers-grade-")
    out_file = tempfile.TemporaryFile()
    read_fd, write_fd = os.pipe()
    events: list[dict] = []
    current: str | None = None
    loaded = False
    reason = ""
    try:
        proc = subprocess.Popen(
            [sys.executable, "-I", "-S", "-B", str(_CHILD), str(write_fd)],
            stdin=subprocess.PIPE,
            stdout=out_file,
            stderr=subprocess.STDOUT,
            cwd=tmp,
            env=_env(tmp),
            pass_fds=(write_fd,),
            start_new_session=True,
            close_fds=True,
        )
        os.close(write_fd)
        write_fd = -1
        try:
            proc.stdin.write(json.dumps(job).encode())
            proc.stdin.close()
        except BrokenPipeError:
            pass
        buf = b""
        total = 0
        deadline = time.monotonic() + limits.timeout
        finished = False
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                reason = f"timed out after {limits.timeout:g} s (wall clock)"
                break
            ready, _, _ = select.select([read_fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(read_fd, 65536)
            if not chunk:
                break
            total += len(chunk)
            if total > _MAX_CHANNEL_BYTES:
                reason = "the result channel received too much data"
                break
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                try:
                    event = json.loads(line)
                except ValueError:
                    result.warnings.append("ignored a corrupted message on the result channel")
                    continue
                if not isinstance(event, dict):
                    continue
                ev = event.get("ev")
                if ev == "loaded":
                    loaded = True
                    deadline = time.monotonic() + limits.timeout
                elif ev == "start":
                    current = event.get("q")
                    deadline = time.monotonic() + limits.timeout
                elif ev == "result":
                    current = None
                elif ev == "done":
                    finished = True
                events.append(event)
            if finished:
                break
        if finished:
            try:
                proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
            _kill(proc)
            return events, None, loaded, ""
        if not reason:
            try:
                proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
            _kill(proc)
            reason = _describe_exit(proc.returncode)
        else:
            _kill(proc)
        return events, current, loaded, reason
    finally:
        if write_fd >= 0:
            os.close(write_fd)
        os.close(read_fd)
        out_file.seek(0)
        text = out_file.read(4096).decode("utf-8", "replace")
        out_file.close()
        if text and len(result.output) < 4096:
            result.output += text[: 4096 - len(result.output)]
        shutil.rmtree(tmp, ignore_errors=True)


def run_submission(
    cells: list[dict], questions: list[dict], *, allow_helpers: bool, limits: Limits = Limits()
) -> SandboxResult:
    """Run ``cells`` in the sandbox and call every question on its cases.

    Parameters
    ----------
    cells : list of dict
        ``{"index": i, "statements": [{"line": n, "source": text}, ...]}``,
        already free of IPython magics and syntax errors.
    questions : list of dict
        ``{"name", "kind": "function"|"value", "target", "cases": [[arg, ...], ...]}``.
        Arguments are JSON values; ``{"set": [...]}`` becomes a set.
    allow_helpers : bool
        Whether the learner may import ``helpers``.
    limits : Limits
        Time, memory, output and process limits.

    Returns
    -------
    SandboxResult
        Every question is present: either with its cases or with a failure.
    """
    result = SandboxResult()
    remaining = list(questions)
    first = True
    while remaining:
        job = {
            "cells": cells,
            "questions": remaining,
            "allow_helpers": allow_helpers,
            "limits": limits.for_child(len(remaining)),
            "sys_path": _child_sys_path(allow_helpers),
            "helpers_dirs": [str(_HELPERS_DIR)],
        }
        events, failed_q, loaded, reason = _run_once(job, limits, result)
        result.runs += 1
        for event in events:
            ev = event.get("ev")
            if ev == "loaded" and first:
                result.cell_errors = [e for e in event.get("errors", []) if isinstance(e, dict)]
                if event.get("helpers"):
                    result.warnings.append("the notebook imports helpers: blocked while grading (a question scores zero only if its function uses it)")
            elif ev == "warning":
                result.warnings.append(str(event.get("text", ""))[:300])
            elif ev == "error":
                result.warnings.append(f"the sandbox could not report a result: {str(event.get('error'))[:200]}")
            elif ev == "result" and event.get("q") in {q["name"] for q in remaining}:
                result.questions[event["q"]] = event
        first = False
        names = [q["name"] for q in remaining]
        done = [n for n in names if n in result.questions]
        if len(done) == len(names):
            break
        if not loaded:
            for name in names:
                result.questions.setdefault(name, {"failure": f"running the notebook failed: {reason}"})
            break
        # The process died or hung inside one question (or between two).
        todo = [q for q in remaining if q["name"] not in result.questions]
        stuck = failed_q if failed_q in {q["name"] for q in todo} else todo[0]["name"]
        result.questions[stuck] = {"failure": reason}
        remaining = [q for q in todo if q["name"] != stuck]
    return result


def decode(tagged: object) -> tuple[bool, object, str]:
    """Turn a tagged value from the sandbox back into a Python value.

    Returns ``(ok, value, type_name)``; ``ok`` is False for anything that is
    not one of the plain JSON-like types.

    Examples
    --------
    >>> decode({"t": "float", "v": (0.5).hex()})
    (True, 0.5, 'float')
    >>> decode({"t": "other", "type": "numpy.float64"})
    (False, None, 'numpy.float64')
    >>> decode({"t": "list", "v": [{"t": "int", "v": "3"}]})
    (True, [3], 'list')
    """
    if not isinstance(tagged, dict):
        return False, None, "unreadable value"
    t = tagged.get("t")
    v = tagged.get("v")
    try:
        if t == "float" and isinstance(v, str):
            return True, float.fromhex(v), "float"
        if t == "int" and isinstance(v, str):
            return True, int(v), "int"
        if t == "bool" and isinstance(v, bool):
            return True, v, "bool"
        if t == "str" and isinstance(v, str):
            return True, v, "str"
        if t == "none":
            return True, None, "NoneType"
        if t == "list" and isinstance(v, list):
            out = []
            for item in v:
                ok, val, name = decode(item)
                if not ok:
                    return False, None, f"list containing {name}"
                out.append(val)
            return True, out, "list"
        if t == "dict" and isinstance(v, list):
            out = {}
            for pair in v:
                if not (isinstance(pair, list) and len(pair) == 2):
                    return False, None, "unreadable dict"
                ok_k, key, name_k = decode(pair[0])
                ok_v, val, name_v = decode(pair[1])
                if not (ok_k and ok_v) or isinstance(key, (list, dict)):
                    return False, None, f"dict containing {name_k if not ok_k else name_v}"
                out[key] = val
            return True, out, "dict"
    except (ValueError, OverflowError, TypeError):
        return False, None, "unreadable value"
    return False, None, str(tagged.get("type", "unknown type"))
