"""How a submission's process is isolated: a bubblewrap sandbox, or an explicit unsafe mode.

Every submission runs in its own `bubblewrap <https://github.com/containers/bubblewrap>`_
sandbox (``bwrap``, the sandbox under Flatpak). :func:`bwrap_argv` writes the
whole command; in short the sandbox has

- its own user, PID, network, IPC, UTS (and, where possible, cgroup)
  namespaces; inside it runs as uid/gid 65534 with no capabilities, no new
  privileges, no way to create further user namespaces, a new session and no
  environment but a few fixed variables; it dies with the grader;
- read-only: the system's shared libraries (``/usr/lib``, ``/usr/lib64`` and
  the ``/lib`` links), the interpreter, its ``libpython`` and its standard
  library (every ``site-packages``/``dist-packages`` folder inside them
  covered by an empty read-only tmpfs), and ``/sandbox/site`` holding only
  the packages the assignment allows (NumPy; for ``choosing-metrics`` also
  ``helpers`` and pandas);
- a fresh, size-limited, empty ``/tmp`` (its working directory), a new
  ``/proc`` (its own processes only) and a minimal read-only ``/dev``;
- nothing else: not the repository, not the submissions, not the output
  folder, not the grader's environment or files.

When the grader runs as root, bwrap itself is started as uid/gid 65534, so the
learner's processes are not root on the host either (the kernel then enforces
the process limit, which it never does for root). Files the sandbox needs
that uid 65534 could not reach (e.g. a Python under ``/root``) are first
hard-linked (or copied) into a private read-only staging folder.

Without a working ``bwrap`` the grader refuses to run (:class:`SandboxUnavailable`)
unless the instructor passes ``--unsafe-no-sandbox`` for a trusted class: then
the same child runs as a plain process with the same limits, and nothing
more.
"""

from __future__ import annotations

import glob
import importlib.util
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

__all__ = ["BUBBLEWRAP", "UNSAFE", "SandboxUnavailable", "Runtime", "prepare", "bwrap_argv", "INSTALL_HELP"]

BUBBLEWRAP = "bubblewrap"
UNSAFE = "unsafe-no-sandbox"
SANDBOX_ID = 65534  # uid and gid inside the sandbox (and of bwrap itself when the grader is root)
SITE = "/sandbox/site"
TMP = "/tmp"
INSTALL_HELP = (
    "Install bubblewrap: `sudo apt-get install bubblewrap` (Debian, Ubuntu), `sudo dnf install bubblewrap` "
    "(Fedora, RHEL), `sudo pacman -S bubblewrap` (Arch), `sudo zypper install bubblewrap` (openSUSE), "
    "`apk add bubblewrap` (Alpine). It needs Linux with user namespaces (in Docker, run the grader on the "
    "host or allow them). On macOS or Windows, grade inside a Linux VM. Only for a class you trust, "
    "`--unsafe-no-sandbox` grades without isolation."
)
_STAGE_SKIP = {
    "site-packages",
    "dist-packages",
    "test",
    "idlelib",
    "tkinter",
    "turtledemo",
    "ensurepip",
    "lib2to3",
}
_PROBE = "import sys; sys.path.append({site!r}); import {modules}; print('ok')"


class SandboxUnavailable(RuntimeError):
    """bubblewrap is missing or cannot start a sandbox here (the message says why and how to install it)."""


@dataclass
class Runtime:
    """What a submission's process runs with, prepared once per grading run.

    ``binds`` are ``(host path, sandbox path)`` pairs mounted read-only;
    ``links`` are ``(target, sandbox path)`` symlinks; ``hidden`` are sandbox
    paths covered by an empty read-only tmpfs; ``site`` maps each allowed
    package to its host path (bound under ``/sandbox/site``).
    """

    mode: str
    python: str
    site: dict[str, str]
    binds: list[tuple[str, str]] = field(default_factory=list)
    links: list[tuple[str, str]] = field(default_factory=list)
    hidden: list[str] = field(default_factory=list)
    bwrap: str | None = None
    run_as: int | None = None
    site_dir: str = SITE

    @property
    def sys_path(self) -> list[str]:
        """The one folder the child adds to ``sys.path``."""
        return [self.site_dir]


# ------------------------------------------------------------------ what the sandbox sees
def _interpreter() -> str:
    return os.path.realpath(sys.executable)


def _libpython() -> list[str]:
    """The shared ``libpython`` this interpreter loaded (none when it is linked statically)."""
    found = set()
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                path = line.split(maxsplit=5)[-1].strip() if line.count(" ") >= 5 else ""
                if os.path.basename(path).startswith("libpython") and os.path.isfile(path):
                    found.add(os.path.realpath(path))
    except OSError:
        pass
    return sorted(found)


def _stdlib() -> str:
    return os.path.realpath(os.path.dirname(os.__file__))


def package_paths(names: tuple[str, ...]) -> dict[str, str]:
    """Host folder (or file) of each top-level package, plus NumPy-style ``<name>.libs`` siblings.

    Raises
    ------
    SandboxUnavailable
        When an allowed package is not installed for this interpreter.
    """
    out = {}
    for name in names:
        spec = importlib.util.find_spec(name)
        if spec is None or not (spec.submodule_search_locations or spec.origin):
            raise SandboxUnavailable(f"the package {name!r}, which learners may use, is not installed here")
        locations = list(spec.submodule_search_locations or [])
        path = os.path.realpath(locations[0] if locations else spec.origin)
        out[os.path.basename(path)] = path
        libs = path + ".libs"
        if os.path.isdir(libs):
            out[os.path.basename(libs)] = libs
    return out


def _system_links() -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Shared-library folders: ``/usr/lib`` (+ lib64) bound, ``/lib`` and ``/lib64`` linked or bound."""
    binds = [(p, p) for p in ("/usr/lib", "/usr/lib64", "/usr/lib32") if os.path.isdir(p)]
    links = []
    for top in ("/lib", "/lib64", "/lib32"):
        if os.path.islink(top):
            links.append((os.readlink(top), top))
        elif os.path.isdir(top):
            binds.append((top, top))
    return binds, links


def _within(path: str, roots: list[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def _hidden_dirs(bound: list[str], allowed: list[str]) -> list[str]:
    """Package folders inside the bound trees (site-packages, dist-packages, the grader's sys.path)."""
    stdlib = _stdlib()
    candidates = set(glob.glob("/usr/lib/python3*/*-packages")) | set(glob.glob(stdlib + "/*-packages"))
    candidates |= {os.path.realpath(p) for p in sys.path if p and os.path.isdir(p)}
    keep = {stdlib, os.path.join(stdlib, "lib-dynload"), *allowed}
    return sorted(p for p in candidates if p not in keep and os.path.isdir(p) and _within(p, bound))


def _source_of(path: str, binds: list[tuple[str, str]]) -> str | None:
    """The existing host folder behind sandbox path ``path`` (the innermost bind wins), or ``None``."""
    for src, dest in sorted(binds, key=lambda b: -len(b[1])):
        if _within(path, [dest]):
            host = src + path[len(dest) :]
            return host if os.path.isdir(host) else None
    return None


# ------------------------------------------------------------------ staging (grader running as root)
def _reachable_by_others(path: str) -> bool:
    """Whether a process of another, unprivileged user can reach ``path`` (search on every parent folder)."""
    parent = os.path.dirname(path)
    while parent and parent != "/":
        if not os.stat(parent).st_mode & stat.S_IXOTH:
            return False
        parent = os.path.dirname(parent)
    return True


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def _stage_tree(src: str, dst: str) -> None:
    if os.path.isfile(src):
        _link_or_copy(src, dst)
        return
    os.mkdir(dst, 0o755)
    for entry in os.scandir(src):
        if entry.name in _STAGE_SKIP or entry.name.startswith("config-"):
            continue
        target = os.path.join(dst, entry.name)
        if entry.is_dir(follow_symlinks=False):
            _stage_tree(entry.path, target)
        elif entry.is_file(follow_symlinks=False):
            _link_or_copy(entry.path, target)


def _stage(binds: list[tuple[str, str]], staging: str) -> list[tuple[str, str]]:
    """Replace each bind source uid 65534 cannot reach by a staged copy (hard links where possible)."""
    out = []
    for i, (src, dest) in enumerate(binds):
        if _reachable_by_others(src):
            out.append((src, dest))
            continue
        copy = os.path.join(staging, f"{i}-{os.path.basename(src)}")
        _stage_tree(src, copy)
        out.append((copy, dest))
    return out


# ------------------------------------------------------------------ the two modes
def _bubblewrap_runtime(packages: tuple[str, ...], staging: str | None) -> Runtime:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxUnavailable("bubblewrap (`bwrap`) is not installed")
    python = _interpreter()
    site = package_paths(packages)
    system, links = _system_links()
    own = [(python, python), *[(p, p) for p in _libpython()], (_stdlib(), _stdlib())]
    own += [(path, f"{SITE}/{name}") for name, path in sorted(site.items())]
    hidden = _hidden_dirs([s for s, _ in system + own], list(site.values()))
    binds = system + (_stage(own, staging) if staging is not None else own)
    hidden = [p for p in hidden if _source_of(p, binds) is not None]
    return Runtime(
        BUBBLEWRAP,
        python,
        site,
        binds,
        links,
        hidden,
        bwrap=bwrap,
        run_as=SANDBOX_ID if staging is not None else None,
    )


def _unsafe_runtime(packages: tuple[str, ...], folder: str) -> Runtime:
    site = package_paths(packages)
    site_dir = os.path.join(folder, "site")
    os.mkdir(site_dir)
    for name, path in site.items():
        os.symlink(path, os.path.join(site_dir, name))
    return Runtime(UNSAFE, _interpreter(), site, site_dir=site_dir)


@contextmanager
def prepare(mode: str, packages: tuple[str, ...], probe_timeout: float = 60.0) -> Iterator[Runtime]:
    """The runtime of one grading run; checked by actually starting one sandbox.

    Parameters
    ----------
    mode : {"bubblewrap", "unsafe-no-sandbox"}
    packages : tuple of str
        Top-level packages learners may import (``numpy``, ...).

    Raises
    ------
    SandboxUnavailable
        In bubblewrap mode, when ``bwrap`` is missing or cannot start the sandbox.
    """
    if mode not in (BUBBLEWRAP, UNSAFE):
        raise ValueError(f"unknown isolation mode {mode!r}; choose {BUBBLEWRAP!r} or {UNSAFE!r}")
    folder = tempfile.mkdtemp(prefix="helpers-grade-runtime-")
    try:
        if mode == UNSAFE:
            yield _unsafe_runtime(packages, folder)
            return
        os.chmod(folder, 0o755)
        staging = folder if os.geteuid() == 0 else None
        runtime = _bubblewrap_runtime(packages, staging)
        _probe(runtime, packages, probe_timeout)
        yield runtime
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _probe(runtime: Runtime, packages: tuple[str, ...], timeout: float) -> None:
    """Start one sandbox that imports every allowed package; raise with bwrap's own words if it fails."""
    code = _PROBE.format(site=SITE, modules=", ".join(p for p in packages))
    argv = bwrap_argv(runtime, tmp_bytes=16 << 20) + ["-c", code]
    try:
        proc = subprocess.run(
            argv, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL, **popen_user(runtime)
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SandboxUnavailable(f"bubblewrap could not start a test sandbox: {exc}") from None
    if proc.returncode != 0 or proc.stdout.strip() != b"ok":
        said = proc.stderr.decode("utf-8", "backslashreplace").strip().splitlines()[-3:]
        raise SandboxUnavailable(
            "bubblewrap is installed but could not start a test sandbox here: "
            + (" / ".join(said) or f"exit status {proc.returncode}")
        )


def popen_user(runtime: Runtime) -> dict:
    """``subprocess.Popen`` keywords that start bwrap as uid/gid 65534 when the grader is root."""
    if runtime.run_as is None:
        return {}
    return {"user": runtime.run_as, "group": runtime.run_as, "extra_groups": []}


def bwrap_argv(runtime: Runtime, *, tmp_bytes: int) -> list[str]:
    """The bwrap command up to the interpreter's options (the caller appends ``-c CODE``).

    Examples
    --------
    >>> r = Runtime(BUBBLEWRAP, "/py/bin/python3", {}, binds=[("/usr/lib", "/usr/lib")], bwrap="bwrap")
    >>> argv = bwrap_argv(r, tmp_bytes=1024)
    >>> argv[:4], "--clearenv" in argv, argv[-4:]
    (['bwrap', '--unshare-user', '--uid', '65534'], True, ['/py/bin/python3', '-I', '-S', '-B'])
    """
    ident = str(SANDBOX_ID)
    argv = [
        runtime.bwrap or "bwrap",
        "--unshare-user",
        "--uid",
        ident,
        "--gid",
        ident,
        "--disable-userns",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--hostname",
        "sandbox",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
        "--cap-drop",
        "ALL",
    ]
    for src, dest in runtime.binds:
        argv += ["--ro-bind", src, dest]
    for target, path in runtime.links:
        argv += ["--symlink", target, path]
    for path in runtime.hidden:
        argv += ["--tmpfs", path, "--remount-ro", path]
    argv += [
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--remount-ro",
        "/dev",
        "--size",
        str(int(tmp_bytes)),
        "--tmpfs",
        TMP,
        "--remount-ro",
        "/",
        "--chdir",
        TMP,
    ]
    for name, value in sandbox_env(TMP).items():
        argv += ["--setenv", name, value]
    return argv + ["--", runtime.python, "-I", "-S", "-B"]


def sandbox_env(home: str) -> dict[str, str]:
    """The whole environment of a submission's process."""
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": home,
        "TMPDIR": home,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "MPLBACKEND": "Agg",
    }
