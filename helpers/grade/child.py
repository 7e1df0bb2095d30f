"""The program that runs ONE learner submission inside the grading sandbox.

It is started by :mod:`helpers.grade.sandbox` as ``python -I -S _sandbox_child.py``
in a fresh temporary directory and never imported by the grader itself
(importing it is harmless: everything happens in :func:`main`). It is
trusted code that runs before the learner's code, so it

1. reads the job (JSON) from stdin, then closes stdin;
2. applies the resource limits (CPU, address space, processes, file size,
   open files, no core dumps);
3. installs an audit hook that cannot be removed: it refuses imports of
   ``helpers`` (when the assignment forbids it), writes/deletes outside the
   temporary directory, starting processes, forking and network sockets;
4. runs the learner's cells one top-level statement at a time (an error is
   recorded and the next statement still runs, so one bad cell does not hide
   the functions defined in the others);
5. calls the learner's functions on each case and sends back *tagged plain
   values* (a float travels as its ``float.hex``), one JSON line per event, on
   a dedicated pipe. Learner output goes to a size-capped file instead.

The grader process compares the values itself; nothing computed here is
trusted to say whether an answer is right.
"""

from __future__ import annotations

# Only the standard library, and only modules imported before learner code.
import builtins
import json
import os
import signal
import sys

_MAX_STR = 2000
_MAX_ITEMS = 10000

# Learner code may reassign builtins (``builtins.type = ...``). Copying every
# builtin into this module's globals now means the runner's own name lookups
# keep finding the originals (globals are searched before builtins).
globals().update({k: v for k, v in vars(builtins).items() if not k.startswith("__")})
_escape = json.encoder.encode_basestring_ascii  # C function: unaffected by later patches
_write = os.write
_exit = os._exit


def _to_json(obj) -> str:
    """Minimal JSON writer for the runner's own messages (independent of a patched json module)."""
    t = type(obj)
    if obj is None:
        return "null"
    if t is bool:
        return "true" if obj else "false"
    if t is int:
        return int.__repr__(obj)
    if t is str:
        return _escape(obj)
    if t in (list, tuple):
        return "[" + ",".join([_to_json(x) for x in obj]) + "]"
    if t is dict:
        return "{" + ",".join([_escape(str(k)) + ":" + _to_json(v) for k, v in dict.items(obj)]) + "}"
    return _escape(repr(obj)[:200])


def _tag(value, _type=type, _float_hex=float.hex, _isinstance=isinstance, _len=len, _depth=0):
    """Turn a learner's value into a JSON-safe description with exact types.

    Only exact built-in types are described as values; anything else (numpy
    scalars, subclasses, objects with a custom ``__eq__``) is described by its
    type name only, so the grader can never be fooled by an object.
    """
    t = _type(value)
    if t is float:
        return {"t": "float", "v": _float_hex(value)}
    if t is bool:
        return {"t": "bool", "v": bool.__bool__(value)}
    if t is int:
        s = int.__repr__(value)
        return {"t": "int", "v": s} if _len(s) <= 60 else {"t": "other", "type": "int (too large)"}
    if t is str:
        return {"t": "str", "v": str.__str__(value)[:_MAX_STR]}
    if value is None:
        return {"t": "none"}
    if t in (list, tuple) and _depth < 4:
        items = list(value)[:_MAX_ITEMS]
        return {"t": "list", "v": [_tag(x, _depth=_depth + 1) for x in items]}
    if t is dict and _depth < 4:
        pairs = list(dict.items(value))[:_MAX_ITEMS]
        return {"t": "dict", "v": [[_tag(a, _depth=_depth + 1), _tag(b, _depth=_depth + 1)] for a, b in pairs]}
    mod = getattr(t, "__module__", "?")
    name = getattr(t, "__qualname__", "?")
    return {"t": "other", "type": f"{mod}.{name}"[:200]}


def _untag(arg):
    """Inputs arrive as {"set": [...]} / {"tuple": [...]} or plain JSON."""
    if isinstance(arg, dict) and len(arg) == 1:
        (key, val), = arg.items()
        if key == "set":
            return set(_untag(v) for v in val)
        if key == "tuple":
            return tuple(_untag(v) for v in val)
        if key == "dict":
            return {_untag(a): _untag(b) for a, b in val}
    if isinstance(arg, list):
        return [_untag(v) for v in arg]
    return arg


def _describe(exc):
    text = f"{type(exc).__name__}: {exc}"
    return text[:500]


def main() -> None:
    write = _write
    out_fd = int(sys.argv[1])
    job = json.loads(sys.stdin.read())
    sys.stdin.close()
    os.set_inheritable(out_fd, False)

    def send(obj):
        try:
            data = str.encode(_to_json(obj) + "\n")
        except BaseException as exc:  # noqa: BLE001 - report instead of dying
            data = str.encode('{"ev": "error", "error": %s}\n' % _escape(object.__repr__(exc)[:200]))
        view = memoryview(data)
        while view:
            view = view[write(out_fd, view):]

    tmp = os.path.realpath(os.getcwd())
    os.environ["HOME"] = tmp
    os.environ["TMPDIR"] = tmp

    limits = job["limits"]
    try:
        import resource

        def cap(which, value):
            soft, hard = resource.getrlimit(which)
            value = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(which, (value, value))

        cpu = int(limits["cpu_seconds"])
        soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        cap(resource.RLIMIT_AS, int(limits["memory_bytes"]))
        cap(resource.RLIMIT_FSIZE, int(limits["output_bytes"]))
        cap(resource.RLIMIT_CORE, 0)
        cap(resource.RLIMIT_NOFILE, 64)
        cap(resource.RLIMIT_NPROC, int(limits["nproc"]))
    except (ImportError, ValueError, OSError) as exc:  # pragma: no cover - platform specific
        send({"ev": "warning", "text": f"could not set a resource limit: {exc}"})
    # Writing past the file-size limit raises OSError(EFBIG) instead of killing us.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    # Make the site-packages of the grader's interpreter importable (numpy,
    # pandas...) WITHOUT processing .pth files: the editable install of
    # ``helpers`` lives in a .pth file, so it stays unreachable.
    for path in job["sys_path"]:
        if path not in sys.path:
            sys.path.append(path)

    allow_helpers = bool(job["allow_helpers"])
    state = {"helpers": []}
    blocked_roots = [os.path.realpath(p) for p in job["helpers_dirs"]]
    write_flags = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
    _str, _isinstance, _startswith = str, isinstance, str.startswith
    _realpath, _fspath = os.path.realpath, os.fspath
    forbidden = {
        "os.system": "running shell commands",
        "subprocess.Popen": "starting processes",
        "os.posix_spawn": "starting processes",
        "os.spawn": "starting processes",
        "os.exec": "starting processes",
        "os.fork": "forking",
        "os.forkpty": "forking",
        "pty.spawn": "starting processes",
        "socket.connect": "network access",
        "socket.bind": "network access",
        "socket.sendto": "network access",
        "os.kill": "signalling processes",
        "os.killpg": "signalling processes",
    }
    path_events = {
        "os.remove", "os.rename", "os.rmdir", "os.mkdir", "shutil.rmtree", "os.chmod", "os.chown",
        "os.symlink", "os.link", "os.truncate", "os.utime", "shutil.copyfile", "shutil.move",
    }

    def inside_tmp(path):
        try:
            if _isinstance(path, int):
                return True
            real = _realpath(_fspath(path))
        except Exception:
            return False
        return real == tmp or _startswith(real, tmp + os.sep)

    def hook(event, args):
        if event == "import" and not allow_helpers:
            name = args[0] if args else ""
            if _isinstance(name, _str) and (name == "helpers" or _startswith(name, "helpers.")):
                state["helpers"].append(name)
                raise ImportError(
                    "the grader does not allow importing helpers in this assignment: "
                    "write the function yourself"
                )
        elif event == "open":
            path, mode, flags = (tuple(args) + (None, None, None))[:3]
            if not allow_helpers and not _isinstance(path, int):
                try:
                    real = _realpath(_fspath(path))
                except Exception:
                    real = ""
                for root in blocked_roots:
                    if real == root or _startswith(real, root + os.sep):
                        state["helpers"].append(real)
                        raise PermissionError("reading the helpers package is not allowed while grading")
            writing = (mode is not None and any(c in _str(mode) for c in "wax+")) or (
                _isinstance(flags, int) and flags & write_flags
            )
            if writing and not inside_tmp(path):
                raise PermissionError(f"writing outside the grading folder is not allowed: {path!r}")
        elif event in path_events:
            for arg in args[:2]:
                if _isinstance(arg, (str, bytes)) or hasattr(arg, "__fspath__"):
                    if not inside_tmp(arg):
                        raise PermissionError(f"{event} outside the grading folder is not allowed: {arg!r}")
        elif event in forbidden or (event.startswith("os.exec") or event.startswith("os.spawn")):
            raise PermissionError(f"{forbidden.get(event, 'starting processes')} is not allowed while grading")

    sys.addaudithook(hook)

    # ---- run the learner's cells, statement by statement ----------------
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    cell_errors = []
    for cell in job["cells"]:
        for stmt in cell["statements"]:
            try:
                padded = "\n" * (int(stmt["line"]) - 1) + stmt["source"]
                code = compile(padded, f"<cell {cell['index']}>", "exec")
                exec(code, namespace)
            except BaseException as exc:  # noqa: BLE001 - learner code may raise anything, even SystemExit
                cell_errors.append(
                    {"cell": cell["index"], "line": stmt["line"], "error": _describe(exc)}
                )
    send({"ev": "loaded", "errors": cell_errors[:50], "helpers": list(state["helpers"])[:10]})

    # ---- call each question ---------------------------------------------
    for q in job["questions"]:
        state["helpers"] = []
        send({"ev": "start", "q": q["name"]})
        target = q["target"]
        if target not in namespace:
            send({"ev": "result", "q": q["name"], "missing": True, "cases": []})
            continue
        obj = namespace[target]
        results = []
        if q["kind"] == "value":
            results.append({"value": _tag(obj)})
        else:
            if not callable(obj):
                send({"ev": "result", "q": q["name"], "not_callable": _tag(obj)["t"], "cases": []})
                continue
            for case in q["cases"]:
                args = [_untag(a) for a in case]
                try:
                    value = obj(*args)
                    results.append({"value": _tag(value)})
                except BaseException as exc:  # noqa: BLE001
                    results.append({"error": _describe(exc)})
        send({"ev": "result", "q": q["name"], "cases": results, "helpers": list(state["helpers"])[:10]})
    send({"ev": "done"})
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001
        pass
    _exit(0)


if __name__ == "__main__":
    main()
