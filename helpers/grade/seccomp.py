"""The seccomp filter of every grading sandbox: a classic BPF program written here, handed to bubblewrap.

bubblewrap applies a filter it reads from a file descriptor (``bwrap --seccomp FD``) to
the sandbox just before it starts the interpreter; every process and thread of the
submission inherits it and cannot remove it. The program is assembled here in plain
Python (no libseccomp, no new dependency) for the two architectures the course supports,
x86_64 and aarch64, from one table of system calls (:data:`DENIED`). A denied call
fails with ``EPERM`` (``clone3`` with ``ENOSYS``, so the C library falls back to
``clone``, whose flags the filter can read), the way Flatpak's filter does. Denied:

- ``ptrace`` and the cross-process memory calls: no tracing of the sandbox's own init
  (which would let it outlive the grader's kill), no reading of another process;
- the keyring calls (``keyctl``, ``add_key``, ``request_key``): the session keyring
  where Kerberos and login tokens live is out of reach (bubblewrap's ``--new-session``
  also starts a new session);
- ``io_uring_*`` (system calls this filter could not see), ``perf_event_open``, ``bpf``,
  ``userfaultfd``, ``kexec_*``, kernel modules, ``syslog``, ``acct``, ``swapon``,
  ``quotactl``, file handles (``open_by_handle_at``), ``fanotify_init``;
- namespaces and mounts: ``unshare``, ``setns``, ``clone`` with any namespace flag,
  ``mount``, ``umount2``, ``pivot_root``, ``chroot`` and the new mount API;
- ``ioctl(TIOCSTI)`` / ``ioctl(TIOCLINUX)`` (typing into a terminal);
- ``fallocate``: it reserves disk or memory blocks without growing a file, so the
  file-size limit never sees them (``FALLOC_FL_KEEP_SIZE``); ``posix_fallocate`` then
  fails with ``EPERM`` too, and writing (which the limit bounds) is the only way to
  fill a file;
- file locks, leases and watches: ``flock``, ``fcntl`` with a record-lock command
  (``F_GETLK``, ``F_SETLK``, ``F_SETLKW`` and the ``F_OFD_`` ones), ``F_SETLEASE`` or
  ``F_NOTIFY``, and ``inotify_add_watch``. Every sandbox sees the same runtime files
  (read-only bind mounts), and a lock needs only a read-only descriptor: two sandboxes
  graded at the same time could talk through locks on them (red team 11: a classmate's
  answers, 352 bytes in 4 s, scored 10/10 for a notebook with no code);
- the page cache of those shared files, which outlives a sandbox: evicting pages
  (``fadvise64``, ``madvise`` with ``MADV_COLD`` or ``MADV_PAGEOUT``), reading ahead
  (``readahead``) and asking which pages are cached (``mincore``, ``cachestat``,
  ``preadv2``/``pwritev2`` with ``RWF_NOWAIT``) are refused (red team 12: a classmate graded
  earlier left her answers in which pages were cached). A sandbox can still load a page by
  reading it and time a read; that one-way, timing-only residue is written down in the README.

A process of another architecture (the x32 ABI on x86_64, 32-bit calls) is killed:
the filter only knows the numbers of the native one.
"""

from __future__ import annotations

import errno
import os
import platform
import struct

__all__ = ["DENIED", "ARCHES", "program", "filter_fd", "supported"]

# Numbers of each denied call: (x86_64, aarch64). aarch64 uses the generic table (asm-generic/unistd.h).
DENIED: dict[str, tuple[int, int]] = {
    "ptrace": (101, 117),
    "process_vm_readv": (310, 270),
    "process_vm_writev": (311, 271),
    "keyctl": (250, 219),
    "add_key": (248, 217),
    "request_key": (249, 218),
    "io_uring_setup": (425, 425),
    "io_uring_enter": (426, 426),
    "io_uring_register": (427, 427),
    "perf_event_open": (298, 241),
    "bpf": (321, 280),
    "userfaultfd": (323, 282),
    "kexec_load": (246, 104),
    "kexec_file_load": (320, 294),
    "init_module": (175, 105),
    "finit_module": (313, 273),
    "delete_module": (176, 106),
    "syslog": (103, 116),
    "acct": (163, 89),
    "swapon": (167, 224),
    "swapoff": (168, 225),
    "quotactl": (179, 60),
    "name_to_handle_at": (303, 264),
    "open_by_handle_at": (304, 265),
    "fanotify_init": (300, 262),
    "unshare": (272, 97),
    "setns": (308, 268),
    "mount": (165, 40),
    "umount2": (166, 39),
    "pivot_root": (155, 41),
    "chroot": (161, 51),
    "open_tree": (428, 428),
    "move_mount": (429, 429),
    "fsopen": (430, 430),
    "fsconfig": (431, 431),
    "fsmount": (432, 432),
    "fspick": (433, 433),
    "mount_setattr": (442, 442),
    "fallocate": (285, 47),
    "flock": (73, 32),
    "inotify_add_watch": (254, 27),
    "fadvise64": (221, 223),
    "readahead": (187, 213),
    "mincore": (27, 232),
    "cachestat": (451, 451),
}
#: audit architecture, clone, clone3, ioctl numbers and the lowest number of the x32 ABI (0 = none).
ARCHES: dict[str, dict[str, int]] = {
    "x86_64": {
        "audit": 0xC000003E,
        "clone": 56,
        "clone3": 435,
        "ioctl": 16,
        "fcntl": 72,
        "preadv2": 327,
        "pwritev2": 328,
        "madvise": 28,
        "x32": 0x40000000,
        "col": 0,
    },
    "aarch64": {
        "audit": 0xC00000B7,
        "clone": 220,
        "clone3": 435,
        "ioctl": 29,
        "fcntl": 25,
        "preadv2": 286,
        "pwritev2": 287,
        "madvise": 233,
        "x32": 0,
        "col": 1,
    },
}
_ALIASES = {"amd64": "x86_64", "arm64": "aarch64"}
# CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET | NEWTIME
NAMESPACE_FLAGS = (
    0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x80
)
_TIOCSTI, _TIOCLINUX = 0x5412, 0x541C
#: fcntl's record locks (F_GETLK, F_SETLK, F_SETLKW and their OFD forms), leases and directory notices
_FCNTL_SHARED = (5, 6, 7, 36, 37, 38, 1024, 1026)
#: preadv2/pwritev2's RWF_NOWAIT (fails unless the page is cached) and madvise's MADV_COLD/MADV_PAGEOUT
_RWF_NOWAIT, _MADV_EVICT = 0x8, (20, 21)

# Classic BPF opcodes and seccomp return values (linux/filter.h, linux/seccomp.h).
_LD_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_JSET = 0x45  # BPF_JMP | BPF_JSET | BPF_K
_RET = 0x06  # BPF_RET | BPF_K
_ALLOW = 0x7FFF0000
_KILL_PROCESS = 0x80000000
_ERRNO = 0x00050000
# offsets in struct seccomp_data: nr, arch, then args[i] (64-bit, little-endian: low half first)
_NR, _ARCH = 0, 4


def _arg_low(i: int) -> int:
    return 16 + 8 * i


def _ins(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k & 0xFFFFFFFF)


def _deny(nr: int, err: int = errno.EPERM) -> bytes:
    """``if nr == NR: return ERRNO(err)`` (expects the syscall number in the accumulator)."""
    return _ins(_JEQ, nr, 0, 1) + _ins(_RET, _ERRNO | err)


def _deny_arg(nr: int, arg: int, test: int, values: tuple[int, ...], mask: bool) -> bytes:
    """``if nr == NR and (arg & values[0] if mask else arg in values): EPERM``; reloads nr after."""
    body = _ins(_LD_ABS, _arg_low(arg))
    if mask:
        body += _ins(_JSET, values[0], 0, 1) + _ins(_RET, _ERRNO | errno.EPERM)
    else:
        for v in values:
            body += _ins(_JEQ, v, 0, 1) + _ins(_RET, _ERRNO | errno.EPERM)
    body += _ins(_LD_ABS, _NR)
    n = len(body) // 8
    return _ins(_JEQ, test, 0, n) + body


def program(arch: str) -> bytes:
    """The filter for ``arch`` (``x86_64`` or ``aarch64``) as the bytes of a ``struct sock_filter`` array.

    Parameters
    ----------
    arch : str
        The machine's architecture, as ``platform.machine()`` names it.

    Returns
    -------
    bytes
        The BPF program, 8 bytes per instruction.

    Examples
    --------
    >>> prog = program("x86_64")
    >>> len(prog) % 8, len(prog) // 8 < 4096
    (0, True)
    >>> program("sparc")
    Traceback (most recent call last):
    ...
    ValueError: no seccomp filter for the architecture 'sparc'; the grader supports x86_64 and aarch64
    """
    info = ARCHES.get(_ALIASES.get(arch, arch))
    if info is None:
        raise ValueError(
            f"no seccomp filter for the architecture {arch!r}; the grader supports {' and '.join(ARCHES)}"
        )
    col = info["col"]
    out = _ins(_LD_ABS, _ARCH) + _ins(_JEQ, info["audit"], 1, 0) + _ins(_RET, _KILL_PROCESS)
    out += _ins(_LD_ABS, _NR)
    if info["x32"]:
        out += _ins(_JGE, info["x32"], 0, 1) + _ins(_RET, _KILL_PROCESS)
    for numbers in DENIED.values():
        out += _deny(numbers[col])
    out += _deny(info["clone3"], errno.ENOSYS)
    out += _deny_arg(info["clone"], 0, info["clone"], (NAMESPACE_FLAGS,), mask=True)
    out += _deny_arg(info["ioctl"], 1, info["ioctl"], (_TIOCSTI, _TIOCLINUX), mask=False)
    out += _deny_arg(info["fcntl"], 1, info["fcntl"], _FCNTL_SHARED, mask=False)
    for call in ("preadv2", "pwritev2"):
        out += _deny_arg(info[call], 5, info[call], (_RWF_NOWAIT,), mask=True)
    out += _deny_arg(info["madvise"], 2, info["madvise"], _MADV_EVICT, mask=False)
    return out + _ins(_RET, _ALLOW)


def supported(machine: str | None = None) -> bool:
    """Whether this machine's architecture has a filter.

    Parameters
    ----------
    machine : str, optional
        An architecture name; this machine's when None.

    Returns
    -------
    bool
        True for x86_64 and aarch64.

    Examples
    --------
    >>> supported("x86_64"), supported("riscv64")
    (True, False)
    """
    machine = machine or platform.machine()
    return _ALIASES.get(machine, machine) in ARCHES


def filter_fd() -> int:
    """A read-only file descriptor holding this machine's filter, at offset 0 (for ``bwrap --seccomp``).

    The caller passes it to bwrap (``pass_fds``) and closes it; a memfd, so no file is left behind.

    Returns
    -------
    int
        The descriptor.

    Raises
    ------
    ValueError
        On an architecture without a filter (see :func:`supported`).
    """
    data = program(platform.machine())
    fd = os.memfd_create("grade-seccomp", os.MFD_CLOEXEC)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
