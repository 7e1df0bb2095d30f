"""How a submission's process is isolated: a bubblewrap sandbox, or an explicit unsafe mode.

Every submission runs in its own `bubblewrap <https://github.com/containers/bubblewrap>`_
sandbox (``bwrap``, the sandbox under Flatpak). :func:`bwrap_argv` writes the
whole command; in short the sandbox has

- its own user, PID, network, IPC, UTS (and, where possible, cgroup)
  namespaces; inside it runs as uid/gid 65534 with no capabilities, no new
  privileges, no way to create further user namespaces, a new session and no
  environment but a few fixed variables; it dies with the grader;
- a seccomp filter (``--seccomp FD``, :mod:`helpers.grade.seccomp`): no
  ``ptrace``, no keyring calls, no ``io_uring``, ``perf_event_open``, ``bpf``,
  namespace or mount calls;
- where one can be made, its own control group (:mod:`helpers.grade.cgroup`):
  memory, processes and one CPU for the submission as a whole; bwrap waits
  on ``--block-fd`` until the grader has moved its first process (reported on
  ``--info-fd``) into it. :attr:`Runtime.resources` says which limits apply;
- read-only: the system's shared libraries (``/usr/lib``, ``/usr/lib64`` and
  the ``/lib`` links), the interpreter, its ``libpython`` and its standard
  library (every ``site-packages``/``dist-packages`` folder inside them
  covered by an empty read-only tmpfs), and ``/sandbox/site`` holding only
  the packages the assignment allows and what they require, read from the
  installed packages' metadata (:func:`package_paths`), never the grader
  (:data:`WITHHELD`);
- a fresh, size-limited, empty ``/tmp`` (its working directory), a new
  ``/proc`` (its own processes only) and a minimal read-only ``/dev``;
- nothing else: not the repository, not the submissions, not the output
  folder, not the grader's environment or files.

When the grader runs as root, bwrap itself is started as uid/gid 65534, so the
learner's processes are not root on the host either. Files the sandbox needs
that uid 65534 could not reach (e.g. a Python under ``/root``) are first
hard-linked (or copied) into a read-only staging folder, made where every user
can search whatever ``TMPDIR`` is (:func:`_staging_parent`).

Without a working sandbox the grader refuses to run (:class:`SandboxUnavailable`,
whose ``fix`` names the real cause: bubblewrap missing, a package missing, no
reachable staging folder, user namespaces disabled, ...) unless the instructor
passes ``--unsafe-no-sandbox`` for a trusted class: then the same child runs as
a plain process with the same per-process limits, and nothing more.
"""

from __future__ import annotations

import glob
import importlib.util
import os
import platform
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import metadata

from . import cgroup, seccomp

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
    """No sandbox can be started here: the message says why, ``fix`` what to do about it.

    Parameters
    ----------
    message : str
        Why no sandbox can start.
    fix : str
        What the instructor can do about it (install bubblewrap, allow user namespaces...).

    Examples
    --------
    >>> str(SandboxUnavailable("bwrap is missing", fix=INSTALL_HELP)) == "bwrap is missing"
    True
    """

    def __init__(self, message: str, fix: str = ""):
        super().__init__(message)
        self.fix = fix


@dataclass
class Runtime:
    """What a submission's process runs with, prepared once per grading run.

    ``binds`` are ``(host path, sandbox path)`` pairs mounted read-only;
    ``links`` are ``(target, sandbox path)`` symlinks; ``hidden`` are sandbox
    paths covered by an empty read-only tmpfs; ``site`` maps each allowed
    package to its host path (bound under ``/sandbox/site``).

    Parameters
    ----------
    mode : str
        :data:`BUBBLEWRAP` or :data:`UNSAFE`.
    python : str
        The interpreter the sandbox runs.
    site : dict
        Allowed package -> its host path.
    binds, links, hidden : list
        As above.
    bwrap : str, optional
        The ``bwrap`` executable (bubblewrap mode).
    run_as : int, optional
        The uid the sandbox's processes run as.
    site_dir : str
        Where the packages appear in the sandbox.
    cgroups : Hierarchy, optional
        Where each run gets its control group, when the machine allows it.
    resources : str
        What bounds a submission's memory and CPU, in words, for the reports.
    seccomp : bool
        Whether the system-call filter is applied.

    Examples
    --------
    >>> r = Runtime(BUBBLEWRAP, "/usr/bin/python3", {"numpy": "/usr/lib/python3/dist-packages/numpy"})
    >>> r.sys_path
    ['/sandbox/site']
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
    cgroups: cgroup.Hierarchy | None = None
    resources: str = cgroup.FALLBACK
    seccomp: bool = False

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


#: Modules of an allowed package that no sandbox sees (covered by an empty read-only tmpfs): the grader,
#: its references and its cases. Notebooks take their exercise data from ``helpers.experiments``.
WITHHELD: tuple[str, ...] = ("helpers.grade",)
_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirements(dist: metadata.Distribution) -> list[str]:
    """The distributions ``dist`` always needs (requirements of its extras are left out)."""
    out = []
    for req in dist.requires or []:
        marker = req.split(";", 1)[1] if ";" in req else ""
        found = _NAME.match(req)
        if found and "extra" not in marker:
            out.append(found.group(1))
    return out


def _top_names(dist: metadata.Distribution) -> list[str]:
    """Top-level modules and folders a distribution installed (``top_level.txt``, else its RECORD)."""
    listed = (dist.read_text("top_level.txt") or "").split()
    if listed:
        return sorted(set(listed))
    names = {_top_of(path.parts) for path in dist.files or []}
    return sorted(n for n in names if n and not n.startswith("__"))


def _top_of(parts: tuple[str, ...]) -> str:
    """The top-level module or folder an installed file belongs to (``""`` for metadata and scripts)."""
    top = parts[0] if parts else ""
    if len(parts) == 1:
        top = top[:-3] if top.endswith(".py") else ""
    if top.endswith((".dist-info", ".data", ".egg-info", ".pth")) or top in ("..", "bin"):
        return ""
    return top


def _locate(name: str, dist: metadata.Distribution | None) -> str | None:
    """Host path of a top-level module or folder (an editable install's too), or ``None``.

    With ``dist``, the distribution's own files come first; the import system (an editable
    install's finder) only for a name the distribution declares as its own.
    """
    if dist is not None:
        path = str(dist.locate_file(name))
        for candidate in (path, path + ".py"):
            if os.path.exists(candidate):
                return os.path.realpath(candidate)
        if dist.metadata["Name"] not in metadata.packages_distributions().get(name, []):
            return None
    return _found_by_import_system(name)


def _found_by_import_system(name: str) -> str | None:
    """Host path of a top-level module as the import system finds it (an editable install's too)."""
    try:
        spec = importlib.util.find_spec(name) if name.isidentifier() else None
    except (ImportError, ValueError):
        spec = None
    if spec is None or not (spec.submodule_search_locations or spec.origin not in (None, "built-in")):
        return None
    locations = list(spec.submodule_search_locations or [])
    path = locations[0] if locations else spec.origin
    return os.path.realpath(path) if path else None


def _distribution_of(name: str) -> metadata.Distribution | None:
    for dist_name in metadata.packages_distributions().get(name, []):
        try:
            return metadata.distribution(dist_name)
        except metadata.PackageNotFoundError:
            continue
    return None


def package_paths(names: tuple[str, ...]) -> dict[str, str]:
    """Host path of every top-level module a sandbox needs: ``names`` and their import closure.

    The closure is read from the installed packages' metadata (``importlib.metadata``):
    each allowed package's distribution, the distributions it requires (not those of its
    extras; a requirement that is not installed here is left out), recursively, and every
    top-level module or folder each of them installed (``numpy.libs`` included).

    Raises
    ------
    SandboxUnavailable
        When an allowed package is not installed for this interpreter.
    """
    out: dict[str, str] = {}
    queue: list[metadata.Distribution] = []
    for name in names:
        path = _locate(name, None)
        if path is None:
            raise SandboxUnavailable(
                f"the package {name!r}, which learners may use, is not installed for {sys.executable}",
                fix=f"install it into the grader's environment: `{sys.executable} -m pip install {name}`",
            )
        out[os.path.basename(path)] = path
        dist = _distribution_of(name)
        if dist is not None:
            queue.append(dist)
    seen = {_canonical(d.metadata["Name"] or "") for d in queue}
    while queue:
        dist = queue.pop()
        for top in _top_names(dist):
            path = _locate(top, dist)
            if path is not None and os.path.basename(path) not in out:
                out[os.path.basename(path)] = path
        queue += _new_requirements(dist, seen)
    return out


def _new_requirements(dist: metadata.Distribution, seen: set[str]) -> list[metadata.Distribution]:
    """The installed distributions ``dist`` requires that ``seen`` does not hold yet (added to it)."""
    found = []
    for req in _requirements(dist):
        if _canonical(req) in seen:
            continue
        seen.add(_canonical(req))
        try:
            found.append(metadata.distribution(req))
        except metadata.PackageNotFoundError:
            continue
    return found


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
def _bwrap() -> str:
    """The bubblewrap program, on a machine the seccomp filter supports."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxUnavailable("bubblewrap (`bwrap`) is not installed", fix=INSTALL_HELP)
    if not seccomp.supported():
        raise SandboxUnavailable(
            f"the grader has no seccomp filter for this machine's architecture ({platform.machine()})",
            fix=f"grade on {' or '.join(seccomp.ARCHES)} Linux, or pass --unsafe-no-sandbox for a trusted "
            "class",
        )
    return bwrap


def _bubblewrap_runtime(packages: tuple[str, ...], staging: str | None) -> Runtime:
    bwrap = _bwrap()
    python = _interpreter()
    site = package_paths(packages)
    system, links = _system_links()
    own = [(python, python), *[(p, p) for p in _libpython()], (_stdlib(), _stdlib())]
    own += [(path, f"{SITE}/{name}") for name, path in sorted(site.items())]
    hidden = _hidden_dirs([s for s, _ in system + own], list(site.values()))
    binds = system + (_stage(own, staging) if staging is not None else own)
    hidden = [p for p in hidden if _source_of(p, binds) is not None]
    hidden += [p for p in _withheld(site) if _source_of(p, binds) is not None]
    groups, why = cgroup.detect()
    return Runtime(
        BUBBLEWRAP,
        python,
        site,
        binds,
        links,
        hidden,
        bwrap=bwrap,
        run_as=SANDBOX_ID if staging is not None else None,
        cgroups=groups,
        resources=groups.describe() if groups else f"{cgroup.FALLBACK} ({why})",
        seccomp=True,
    )


def _withheld(site: dict[str, str]) -> list[str]:
    """Sandbox folders of :data:`WITHHELD` modules inside an allowed package (covered by an empty tmpfs)."""
    out = []
    for module in WITHHELD:
        top, _, rest = module.partition(".")
        if top in site and rest:
            out.append(f"{SITE}/{top}/{rest.replace('.', '/')}")
    return out


def _unsafe_runtime(packages: tuple[str, ...], folder: str) -> Runtime:
    site = package_paths(packages)
    site_dir = os.path.join(folder, "site")
    os.mkdir(site_dir)
    for name, path in site.items():
        os.symlink(path, os.path.join(site_dir, name))
    return Runtime(UNSAFE, _interpreter(), site, site_dir=site_dir)


def _staging_parent() -> str:
    """A folder for the staged runtime that the sandbox user can reach, whatever ``TMPDIR`` is.

    ``TMPDIR`` first; when it sits inside a private folder (mode 0700, as ``mktemp -d``, pytest's
    ``tmp_path`` and many job schedulers give), the system's ``/tmp``, ``/var/tmp`` or ``/dev/shm``.

    Raises
    ------
    SandboxUnavailable
        When none of them can be reached by another user (the message names them and the fix).
    """
    tried = []
    for folder in (tempfile.gettempdir(), "/tmp", "/var/tmp", "/dev/shm"):
        real = os.path.realpath(folder)
        if real in tried:
            continue
        tried.append(real)
        if os.path.isdir(real) and _reachable_by_others(os.path.join(real, "x")) and os.access(real, os.W_OK):
            return real
    raise SandboxUnavailable(
        f"no folder to stage the sandbox's runtime in that its user (uid {SANDBOX_ID}) can reach: "
        f"{', '.join(tried)} each sit inside a folder other users cannot search",
        fix="point TMPDIR at a folder every user can search (e.g. `TMPDIR=/tmp python -m helpers.grade ...`)",
    )


@contextmanager
def prepare(mode: str, packages: tuple[str, ...], probe_timeout: float = 60.0) -> Iterator[Runtime]:
    """The runtime of one grading run; checked by actually starting one sandbox.

    Parameters
    ----------
    mode : {"bubblewrap", "unsafe-no-sandbox"}
    packages : tuple of str
        Top-level packages learners may import (``numpy``, ...); what they import comes along.
    probe_timeout : float
        Seconds the probe sandbox may take to start.

    Yields
    ------
    Runtime
        The runtime, valid until the ``with`` block ends (its temporary files are then removed).

    Raises
    ------
    SandboxUnavailable
        In bubblewrap mode, when a sandbox cannot be started here (``fix`` says what to do).
    """
    if mode not in (BUBBLEWRAP, UNSAFE):
        raise ValueError(f"unknown isolation mode {mode!r}; choose {BUBBLEWRAP!r} or {UNSAFE!r}")
    root = os.geteuid() == 0 and mode == BUBBLEWRAP
    folder = tempfile.mkdtemp(prefix="helpers-grade-runtime-", dir=_staging_parent() if root else None)
    try:
        if mode == UNSAFE:
            yield _unsafe_runtime(packages, folder)
            return
        os.chmod(folder, 0o755)
        runtime = _bubblewrap_runtime(packages, folder if root else None)
        _probe(runtime, packages, probe_timeout)
        yield runtime
    finally:
        shutil.rmtree(folder, ignore_errors=True)


_PROBE_FIXES = (
    (
        "Permission denied",
        "a folder the sandbox needs is not readable by uid {uid}: {path}; "
        "make it readable, or point TMPDIR at a folder every user can search",
    ),
    (
        "Unknown option",
        "this bubblewrap is too old for the grader's options: install bubblewrap 0.8 or newer",
    ),
    (
        "No permissions to create new namespace",
        "user namespaces are disabled here: enable them "
        "(`sysctl kernel.unprivileged_userns_clone=1`, `user.max_user_namespaces`) or run on the host",
    ),
    (
        "setting up uid map",
        "user namespaces are restricted here (e.g. AppArmor's "
        "`kernel.apparmor_restrict_unprivileged_userns`): allow bwrap to use them or run the grader as root",
    ),
)


def _probe_fix(said: str) -> str:
    path = said.split("path ", 1)[1].split(":", 1)[0] if "path " in said else "(see above)"
    for needle, fix in _PROBE_FIXES:
        if needle in said:
            return fix.format(uid=SANDBOX_ID, path=path)
    return "run the bwrap command above by hand to see why it fails (`bwrap --version` works?)"


def _probe(runtime: Runtime, packages: tuple[str, ...], timeout: float) -> None:
    """Start one sandbox that imports every allowed package; raise with bwrap's own words if it fails."""
    code = _PROBE.format(site=SITE, modules=", ".join(p for p in packages))
    fd = seccomp.filter_fd()
    argv = bwrap_argv(runtime, tmp_bytes=16 << 20, seccomp_fd=fd) + ["-c", code]
    try:
        proc = subprocess.run(
            argv,
            capture_output=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            pass_fds=(fd,),
            **popen_user(runtime),
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SandboxUnavailable(
            f"bubblewrap could not start a test sandbox: {exc}", fix=_probe_fix(str(exc))
        ) from None
    finally:
        os.close(fd)
    if proc.returncode != 0 or proc.stdout.strip() != b"ok":
        said = " / ".join(proc.stderr.decode("utf-8", "backslashreplace").strip().splitlines()[-3:])
        raise SandboxUnavailable(
            "bubblewrap is installed but could not start a test sandbox here: "
            + (said or f"exit status {proc.returncode}"),
            fix=_probe_fix(said),
        )


def popen_user(runtime: Runtime) -> dict:
    """``subprocess.Popen`` keywords that start bwrap as uid/gid 65534 when the grader is root."""
    if runtime.run_as is None:
        return {}
    return {"user": runtime.run_as, "group": runtime.run_as, "extra_groups": []}


def bwrap_argv(
    runtime: Runtime,
    *,
    tmp_bytes: int,
    seccomp_fd: int | None = None,
    block_fd: int | None = None,
    info_fd: int | None = None,
) -> list[str]:
    """The bwrap command up to the interpreter's options (the caller appends ``-c CODE``).

    ``seccomp_fd`` holds the filter (:func:`helpers.grade.seccomp.filter_fd`); with
    ``info_fd`` bwrap reports the sandbox's first process, which waits on ``block_fd``
    until the grader has put it into its control group.

    Parameters
    ----------
    runtime : Runtime
        What the sandbox holds.
    tmp_bytes : int
        The size of the sandbox's ``/tmp``.
    seccomp_fd, block_fd, info_fd : int, optional
        Descriptors passed to bwrap, as described above.

    Returns
    -------
    list of str
        The argument vector.

    Examples
    --------
    >>> r = Runtime(BUBBLEWRAP, "/py/bin/python3", {}, binds=[("/usr/lib", "/usr/lib")], bwrap="bwrap")
    >>> argv = bwrap_argv(r, tmp_bytes=1024, seccomp_fd=5)
    >>> argv[:4], "--clearenv" in argv, argv[-4:]
    (['bwrap', '--unshare-user', '--uid', '65534'], True, ['/py/bin/python3', '-I', '-S', '-B'])
    >>> argv[argv.index("--seccomp") + 1]
    '5'
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
    for option, fd in (("--seccomp", seccomp_fd), ("--info-fd", info_fd), ("--block-fd", block_fd)):
        if fd is not None:
            argv += [option, str(fd)]
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
