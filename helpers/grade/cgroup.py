"""Memory, CPU and process limits for one sandbox as a whole: a control group where one can be made.

Resource limits (``setrlimit``) count per process (memory) or per user (processes), so
thirty children of one submission could hold thirty times its memory, and sandboxes
that share a uid share one process budget. A control group bounds the submission as a
whole. :func:`detect` finds, once per grading run, where the grader may create one:

- **cgroup v2**: a child of the grader's own group in the unified hierarchy, when the
  ``memory``, ``pids`` and ``cpu`` controllers are enabled for its children;
- **cgroup v1**: a child of the grader's own group in each of the ``memory``, ``pids``
  and ``cpu`` hierarchies, when they are mounted and writable (usually as root).

Each sandbox run then gets its own group (:class:`Group`): ``memory`` capped at the
submission's memory limit (no swap), at most ``nproc`` processes and threads, one CPU
(``cpu.max`` / ``cfs_quota_us``), so one submission cannot starve a classmate graded at the
same time. The sandbox's first process joins before any learner code runs (bubblewrap waits
on ``--block-fd`` until the grader has moved it), and at the end every process still in the
group is killed. Where no group can be made, :func:`detect` says why and the per-process
limits apply alone (:data:`FALLBACK`).
"""

from __future__ import annotations

import itertools
import os
import signal
import time
from dataclasses import dataclass

__all__ = ["Hierarchy", "Group", "detect", "FALLBACK"]

_CONTROLLERS = ("memory", "pids", "cpu")
_COUNTER = itertools.count()
FALLBACK = (
    "per-process limits only (address space, CPU time, file size, processes per user); "
    "memory and CPU are not bounded for a submission as a whole"
)


@dataclass(frozen=True)
class Hierarchy:
    """Where sandbox groups are created: ``version`` 1 or 2 and the parent folder of each controller.

    Parameters
    ----------
    version : int
        The cgroup version, 1 or 2.
    parents : dict
        Controller (``memory``, ``pids``, ``cpu``) -> the folder groups are made in (the same
        folder for every controller in version 2).

    Examples
    --------
    >>> Hierarchy(2, {c: "/sys/fs/cgroup/grader" for c in ("memory", "pids", "cpu")}).describe()
    'cgroup v2 under /sys/fs/cgroup/grader (memory, pids, cpu per sandbox)'
    """

    version: int
    parents: dict[str, str]

    def describe(self) -> str:
        where = sorted(set(self.parents.values()))
        return f"cgroup v{self.version} under {', '.join(where)} (memory, pids, cpu per sandbox)"


def _own_paths() -> dict[str, str]:
    """The grader's group in each hierarchy: ``{"": path}`` for v2, ``{controller: path}`` for v1."""
    out = {}
    with open("/proc/self/cgroup", encoding="utf-8") as fh:
        for line in fh:
            parts = line.rstrip("\n").split(":", 2)
            if len(parts) == 3:
                for name in parts[1].split(",") if parts[1] else [""]:
                    out[name] = parts[2]
    return out


def _mounts() -> list[tuple[str, str, set[str]]]:
    """``(mount point, fs type, options)`` of every cgroup file system."""
    out = []
    with open("/proc/self/mounts", encoding="utf-8") as fh:
        for line in fh:
            fields = line.split()
            if len(fields) >= 4 and fields[2] in ("cgroup", "cgroup2"):
                out.append((fields[1], fields[2], set(fields[3].split(","))))
    return out


def _try_dir(parent: str) -> bool:
    """Whether a child group can be created (and removed) under ``parent``."""
    probe = os.path.join(parent, f"helpers-grade-probe-{os.getpid()}-{next(_COUNTER)}")
    try:
        os.mkdir(probe)
        os.rmdir(probe)
        return True
    except OSError:
        return False


def _detect_v2(mounts: list, own: dict[str, str]) -> tuple[Hierarchy | None, str]:
    points = [m for m, kind, _ in mounts if kind == "cgroup2"]
    if not points or "" not in own:
        return None, "no cgroup v2 hierarchy"
    parent = os.path.join(points[0], own[""].lstrip("/"))
    try:
        with open(os.path.join(parent, "cgroup.subtree_control"), encoding="utf-8") as fh:
            enabled = set(fh.read().split())
    except OSError as exc:
        return None, f"cgroup v2: cannot read {parent}: {exc.strerror}"
    missing = [c for c in _CONTROLLERS if c not in enabled]
    if missing:
        return None, f"cgroup v2: the controllers {missing} are not enabled for the children of {parent}"
    if not _try_dir(parent):
        return None, f"cgroup v2: cannot create a group under {parent} (not delegated to this user)"
    return Hierarchy(2, {c: parent for c in _CONTROLLERS}), ""


def _detect_v1(mounts: list, own: dict[str, str]) -> tuple[Hierarchy | None, str]:
    parents = {}
    for controller in _CONTROLLERS:
        point = next((m for m, kind, opts in mounts if kind == "cgroup" and controller in opts), None)
        if point is None or controller not in own:
            return None, f"cgroup v1: no {controller} hierarchy"
        parent = os.path.join(point, own[controller].lstrip("/"))
        if not _try_dir(parent):
            return None, f"cgroup v1: cannot create a group under {parent} (needs root)"
        parents[controller] = parent
    return Hierarchy(1, parents), ""


def detect() -> tuple[Hierarchy | None, str]:
    """Where sandbox groups can be made here, or ``(None, why not)``.

    Returns
    -------
    tuple of (Hierarchy or None, str)
        The hierarchy and ``""``, or None and why not (the grader then keeps per-process limits
        and says so in every report).

    Examples
    --------
    >>> found, why = detect()
    >>> (found is None) == bool(why)
    True
    """
    try:
        mounts, own = _mounts(), _own_paths()
    except OSError as exc:
        return None, f"cannot read /proc: {exc}"
    found, why2 = _detect_v2(mounts, own)
    if found:
        return found, ""
    found, why1 = _detect_v1(mounts, own)
    return (found, "") if found else (None, f"{why2}; {why1}")


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="ascii") as fh:
        fh.write(text)


class Group:
    """One sandbox run's control group: created with its limits, joined by a pid, emptied and removed.

    Parameters
    ----------
    hierarchy : Hierarchy
        Where the group is made (from :func:`detect`).
    memory_bytes : int
        The memory limit of the whole sandbox (every process together, page cache included).
    nproc : int
        The most processes and threads in the group.

    Raises
    ------
    OSError
        When the group cannot be created or limited (nothing is left behind).
    """

    def __init__(self, hierarchy: Hierarchy, memory_bytes: int, nproc: int):
        self.hierarchy = hierarchy
        name = f"helpers-grade-{os.getpid()}-{next(_COUNTER)}"
        self.paths = {c: os.path.join(p, name) for c, p in hierarchy.parents.items()}
        for path in sorted(set(self.paths.values())):
            os.mkdir(path)
        try:
            self._limit(memory_bytes, nproc)
        except OSError:
            self.remove()
            raise

    def _limit(self, memory_bytes: int, nproc: int) -> None:
        mem, pids, cpu = self.paths["memory"], self.paths["pids"], self.paths["cpu"]
        _write(os.path.join(pids, "pids.max"), str(nproc))
        if self.hierarchy.version == 2:
            _write(os.path.join(mem, "memory.max"), str(memory_bytes))
            if os.path.exists(os.path.join(mem, "memory.swap.max")):
                _write(os.path.join(mem, "memory.swap.max"), "0")
            _write(os.path.join(cpu, "cpu.max"), "100000 100000")
            return
        _write(os.path.join(mem, "memory.limit_in_bytes"), str(memory_bytes))
        swap = os.path.join(mem, "memory.memsw.limit_in_bytes")
        if os.path.exists(swap):
            _write(swap, str(memory_bytes))
        _write(os.path.join(cpu, "cpu.cfs_period_us"), "100000")
        _write(os.path.join(cpu, "cpu.cfs_quota_us"), "100000")

    def add(self, pid: int) -> None:
        """Move process ``pid`` into the group (in every hierarchy)."""
        for path in sorted(set(self.paths.values())):
            _write(os.path.join(path, "cgroup.procs"), str(pid))

    def pids(self) -> list[int]:
        out = set()
        for path in set(self.paths.values()):
            try:
                with open(os.path.join(path, "cgroup.procs"), encoding="ascii") as fh:
                    out |= {int(x) for x in fh.read().split()}
            except OSError:
                pass
        return sorted(out)

    def memory_exceeded(self) -> bool:
        """Whether the kernel had to enforce the memory limit (an OOM kill or a failed charge)."""
        path = self.paths["memory"]
        try:
            if self.hierarchy.version == 2:
                with open(os.path.join(path, "memory.events"), encoding="ascii") as fh:
                    events = dict(line.split() for line in fh if line.strip())
                return int(events.get("oom_kill", 0)) > 0 or int(events.get("max", 0)) > 0
            with open(os.path.join(path, "memory.failcnt"), encoding="ascii") as fh:
                return int(fh.read().strip() or 0) > 0
        except (OSError, ValueError):
            return False

    def kill_all(self) -> None:
        """SIGKILL every process left in the group, until none is."""
        kill_file = os.path.join(self.paths["pids"], "cgroup.kill")
        if self.hierarchy.version == 2 and os.path.exists(kill_file):
            try:
                _write(kill_file, "1")
            except OSError:
                pass
        for _ in range(200):
            left = self.pids()
            if not left:
                return
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            time.sleep(0.005)

    def remove(self) -> None:
        """Kill what is left and remove the group's folders."""
        self.kill_all()
        for path in sorted(set(self.paths.values())):
            for _ in range(100):
                try:
                    os.rmdir(path)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)
