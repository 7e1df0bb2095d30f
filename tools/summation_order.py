"""Run a command with floating-point sums taken in another order than this machine's default.

A notebook's committed output must be true on every machine, not only on the one that executed it. The
digits that depend on the order of a floating-point sum (rounding noise such as ``5.6e-17``, or ``-0.0000``
instead of ``+0.0000``) change with the CPU's vector width, NumPy's dispatch and the BLAS kernel. ``make
test`` runs nbval a second time under this tool, which forces a different order on this very machine:

- ``NPY_DISABLE_CPU_FEATURES``: the widest of NumPy's dispatched vector extensions this CPU offers is
  switched off (X86_V4, AVX-512, on this kind of machine), so NumPy's loops run at another vector width;
  switching off every extension made NumPy's sorts five times slower, too slow for notebook 13;
- ``OPENBLAS_CORETYPE``: OpenBLAS (NumPy's and SciPy's) uses the kernels of another CPU generation than the
  one it detects here (one this CPU can run), with other blocking and accumulation orders;

Both runs use one BLAS thread: on a busy 2-core machine two threads made a 1,682-item EASE inverse 1.5 times
slower (3.7 s against 2.5 s), and the kernel already changes the order of BLAS's sums.

Usage: ``python tools/summation_order.py [--show] -- <command> [args...]``. It prints the CPU, the NumPy
version and the settings, then replaces itself with the command under them.
"""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path

# OpenBLAS kernels to force: one this CPU can run (a kernel the CPU lacks dies with SIGILL) whose sums
# differ from the detected one's, and fast enough for the notebooks' cells (Prescott's generic kernel made
# notebook 13's EASE fits five times slower). Zen runs Haswell's kernels, so it is given SandyBridge's.
_KERNEL_FOR = {"haswell": "SandyBridge", "zen": "SandyBridge", "sandybridge": "Haswell"}


def _numpy_dispatched_features() -> list[str]:
    """NumPy's dispatched CPU feature groups that this CPU offers (the ones that can be switched off).

    NumPy lists them narrowest first (``X86_V3`` before ``X86_V4``).
    """
    from numpy._core import _multiarray_umath as umath  # NumPy >= 2

    offered = umath.__cpu_features__
    return [name for name in umath.__cpu_dispatch__ if offered.get(name)]


def _openblas_kernel() -> str | None:
    """The kernel OpenBLAS picked on this machine, when threadpoolctl can tell."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return None
    for pool in threadpool_info():
        if pool.get("internal_api") == "openblas":
            return pool.get("architecture")
    return None


def _cpu_name() -> str:
    """The CPU's model name from /proc/cpuinfo (Linux), else what the platform module says."""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.lower().startswith(("model name", "cpu model", "hardware")):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def _cpu_flags() -> set[str]:
    """The CPU's feature flags from /proc/cpuinfo (empty elsewhere)."""
    cpuinfo = Path("/proc/cpuinfo")
    for line in cpuinfo.read_text(encoding="utf-8").splitlines() if cpuinfo.exists() else []:
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def other_kernel(detected: str | None, flags: set[str]) -> str:
    """An OpenBLAS kernel other than ``detected`` that a CPU with these flags can run.

    >>> other_kernel("SkylakeX", {"avx", "avx2", "fma", "avx512f"})
    'Haswell'
    >>> other_kernel("Zen", {"avx", "avx2", "fma"})
    'SandyBridge'
    >>> other_kernel("Nehalem", {"sse4_2"})
    'Prescott'
    """
    chosen = _KERNEL_FOR.get((detected or "").lower())
    if chosen is None:
        chosen = "Haswell" if {"avx2", "fma"} <= flags else "SandyBridge" if "avx" in flags else "Prescott"
    return chosen


def settings() -> dict[str, str]:
    """The environment variables that force another summation order here."""
    kernel = other_kernel(_openblas_kernel(), _cpu_flags())
    return {
        "NPY_DISABLE_CPU_FEATURES": " ".join(_numpy_dispatched_features()[-1:]),
        "OPENBLAS_CORETYPE": kernel,
        "OPENBLAS_NUM_THREADS": "1",
    }


def describe(forced: dict[str, str]) -> str:
    """One paragraph naming the machine, the libraries and the forced settings."""
    import numpy

    versions = [f"numpy {numpy.__version__}"]
    for name in ("pandas", "scipy"):
        try:
            versions.append(f"{name} {__import__(name).__version__}")
        except ImportError:
            pass
    shown = ", ".join(f"{key}={value!r}" for key, value in forced.items())
    return (
        f"summation order forced on {_cpu_name()} ({platform.machine()}; OpenBLAS detected "
        f"{_openblas_kernel() or 'unknown'}), {', '.join(versions)}: {shown}"
    )


def main(argv: list[str]) -> int:
    """Print the settings, then run the command after ``--`` under them."""
    forced = settings()
    print(describe(forced), flush=True)
    if "--" not in argv:
        return 0 if "--show" in argv else _usage()
    command = argv[argv.index("--") + 1 :]
    if not command:
        return _usage()
    os.execvpe(command[0], command, {**os.environ, **forced})
    return 0  # not reached


def _usage() -> int:
    print("usage: python tools/summation_order.py [--show] -- <command> [args...]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
