"""Run a command with floating-point sums taken in another order than this machine's default.

A notebook's committed output must be true on every machine, not only on the one that executed it. The
digits that depend on the order of a floating-point sum (rounding noise such as ``5.6e-17``, or ``-0.0000``
instead of ``+0.0000``) change with the CPU's vector width, NumPy's dispatch and the BLAS kernel. ``make
test`` runs nbval a second time under this tool, which forces a different order on this very machine:

- ``NPY_DISABLE_CPU_FEATURES``: NumPy's dispatched vector extensions this CPU offers are switched off, so
  NumPy runs its baseline loops;
- ``OPENBLAS_CORETYPE``: OpenBLAS (NumPy's and SciPy's) uses the kernels of another CPU generation than the
  one it detects here, with other blocking and accumulation orders;
- ``OPENBLAS_NUM_THREADS=2``: the first run uses one thread.

Usage: ``python tools/summation_order.py [--show] -- <command> [args...]``. It prints the CPU, the NumPy
version and the settings, then replaces itself with the command under them.
"""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path

# OpenBLAS kernels to force, first choice first: the oldest x86-64 kernel, or another one when the
# detected kernel is already that one. On other architectures OpenBLAS ignores an unknown core type.
_OTHER_KERNELS = ("Prescott", "Haswell")


def _numpy_dispatched_features() -> list[str]:
    """NumPy's dispatched CPU feature groups that this CPU offers (the ones that can be switched off)."""
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


def settings() -> dict[str, str]:
    """The environment variables that force another summation order here."""
    detected = _openblas_kernel()
    kernel = next(k for k in _OTHER_KERNELS if k.lower() != (detected or "").lower())
    return {
        "NPY_DISABLE_CPU_FEATURES": " ".join(_numpy_dispatched_features()),
        "OPENBLAS_CORETYPE": kernel,
        "OPENBLAS_NUM_THREADS": "2",
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
    return (f"summation order forced on {_cpu_name()} ({platform.machine()}; OpenBLAS detected "
            f"{_openblas_kernel() or 'unknown'}), {', '.join(versions)}: {shown}")


def main(argv: list[str]) -> int:
    """Print the settings, then run the command after ``--`` under them."""
    forced = settings()
    print(describe(forced), flush=True)
    if "--" not in argv:
        return 0 if "--show" in argv else _usage()
    command = argv[argv.index("--") + 1:]
    if not command:
        return _usage()
    os.execvpe(command[0], command, {**os.environ, **forced})
    return 0  # not reached


def _usage() -> int:
    print("usage: python tools/summation_order.py [--show] -- <command> [args...]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
