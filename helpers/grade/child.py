"""The program that runs ONE learner submission inside the grading sandbox.

It is never imported by the grader: :mod:`helpers.grade.sandbox` reads this
file's text and hands it, with the job, to ``python -I -S -B -c BOOTSTRAP``
on standard input (see :data:`helpers.grade.sandbox.BOOTSTRAP`), which
compiles it and calls :func:`main` with the job bytes. Inside the sandbox
there is no ``helpers`` package at all (except for the assignment that lets
learners use it), so this module imports the standard library only. It

1. reads the job (JSON), then points standard input at ``/dev/null``;
2. applies the resource limits (CPU, address space, processes, file size,
   open files, no core dumps) and marks itself first in line for the kernel's
   out-of-memory killer before any learner code runs;
3. forks the *runner*, the only process that runs learner code, and stays its
   *supervisor*: the supervisor alone holds the grader's channel, is not
   dumpable (so ``/proc/<pid>/fd`` and ``mem`` are closed to the runner) and
   cannot be traced (the seccomp filter denies ``ptrace``). It sends the runner
   one command at a time over a pipe (run cell *i*, answer question *q*) and
   announces each phase to the grader before it starts, so the grader's
   deadlines, restarts and blame follow messages learner code cannot write;
4. the runner runs each cell one top-level statement at a time (an error is
   recorded and the next statement still runs, so one bad cell does not hide
   the functions defined in the others), calls the learner's functions on each
   case and replies with *tagged plain values*; learner output goes to a pipe
   the grader reads with a cap.

The cases never enter the runner before they run. The job on standard input
names the questions but holds no case; the cases come on their own descriptor
(``cases_fd``), which the runner closes as soon as it is forked and the
supervisor reads only after the fork, once it is not dumpable. The supervisor
then sends each case's arguments to the runner in the command that runs that
case, after every cell has finished and after the case before it returned.
So no frame, global, object, module, file, descriptor, environment variable
or byte of memory the learner's code can reach holds a hidden input before
that case runs (bubblewrap's init keeps only the standard descriptors; the
supervisor's ``/proc`` entries are closed to the runner). Every question's
public cases (and every answer variable) run before any hidden case of any
question: what the learner's code returned or raised on a public case cannot
depend on a hidden input, so the grader may show it.

Tagging never calls a learner-defined method: values are recognised by their
exact type (``type(x) is float``), read through the built-in types' own
slots (``float.hex``), and anything else is described by its type's name only.
The grader trusts none of it: it parses, caps and validates every message, and
computes and compares the expected values itself.
"""

from __future__ import annotations

# Only the standard library, and only modules imported before learner code.
import builtins
import collections
import json
import json.scanner
import os
import signal
import sys

_MAX_STR = 2000
_MAX_ITEMS = 10000
_MAX_DEPTH = 4
_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: set for classes written in Python, unset for C types
_NUMPY_FLOATS = frozenset({"float16", "float32", "float64", "longdouble"})
_NUMPY_INTS = frozenset(
    {
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "intc",
        "uintc",
        "int_",
        "uint",
        "longlong",
        "ulonglong",
        "intp",
        "uintp",
    }
)

# Learner code may reassign builtins (``builtins.type = ...``). Copying every
# builtin into this module's globals now means the runner's own name lookups
# keep finding the originals (globals are searched before builtins).
globals().update({k: v for k, v in vars(builtins).items() if not k.startswith("__")})
_escape = json.encoder.encode_basestring_ascii  # C function: unaffected by later patches
_loads = json.loads
# The C scanner of a decoder made now: the runner parses each case's arguments with it after learner code
# ran, which may have replaced ``json.loads``, ``isinstance`` or ``type`` (none of which it calls).
_scan = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]  # typeshed types it as a class
_write = os.write
_exit = os._exit
_type_module = type.__dict__["__module__"].__get__
_type_qualname = type.__dict__["__qualname__"].__get__
_type_flags = type.__dict__["__flags__"].__get__
_float_hex = float.hex
_int_repr = int.__repr__
_dict_items = dict.items
#: read by value through ``dict.items`` (C storage, no method of the value runs): the built-in dict and
#: the standard library's subclasses, as :data:`helpers.checking.values.DICT_TYPES` (red team 28: an
#: honest ``OrderedDict`` or ``defaultdict`` passed the notebook's check and scored 0 in the grader)
_DICTS = (dict, collections.OrderedDict, collections.defaultdict, collections.Counter)
_str_str = str.__str__


def _to_json(obj) -> str:
    """Minimal JSON writer for the runner's own messages (independent of a patched json module)."""
    t = type(obj)
    if obj is None:
        return "null"
    if t is bool:
        return "true" if obj else "false"
    if t is int:
        return _int_repr(obj)
    if t is str:
        return _escape(obj)
    if t in (list, tuple):
        return "[" + ",".join([_to_json(x) for x in obj]) + "]"
    if t is dict:
        return "{" + ",".join([_escape(k) + ":" + _to_json(v) for k, v in _dict_items(obj)]) + "}"
    raise TypeError("the runner only sends plain JSON values")


def _type_label(t) -> str:
    """``module.qualname`` of a type, read through ``type``'s own descriptors (no metaclass hooks)."""
    module, name = _type_module(t), _type_qualname(t)
    module = module if type(module) is str else "?"
    name = name if type(name) is str else "?"
    return f"{module}.{name}"[:200]


def _numpy_tag(value, t):
    """A genuine NumPy scalar (a C type of module ``numpy``) as ``{"t": "np", ...}`` (a NumPy string as a
    ``str``); ``None`` otherwise."""
    if _type_flags(t) & _HEAPTYPE or _type_module(t) != "numpy":
        return None
    name = _type_qualname(t)
    if name in _NUMPY_FLOATS:
        return {"t": "np", "type": name, "v": _float_hex(float(value))}
    if name in _NUMPY_INTS:
        text = _int_repr(int(value))
        return {"t": "np", "type": name, "v": text} if len(text) <= 60 else None
    if name == "bool":
        return {"t": "np", "type": "bool", "v": "1" if value else "0"}
    if name == "str_":  # a NumPy string is a str, as in the learner's check() (red team 30)
        return {"t": "str", "v": _str_str(value)[:_MAX_STR]}
    return None


def _plain_tag(value, t):
    """Exact built-in scalars as tags; ``None`` for anything else."""
    if t is float:
        return {"t": "float", "v": _float_hex(value)}
    if t is bool:
        return {"t": "bool", "v": value is True}
    if t is int:
        text = _int_repr(value)
        return {"t": "int", "v": text} if len(text) <= 60 else {"t": "other", "type": "int (too large)"}
    if t is str:
        return {"t": "str", "v": _str_str(value)[:_MAX_STR]}
    if value is None:
        return {"t": "none"}
    return None


_SEQUENCES = (list, tuple)


def _one_of(t, kinds) -> bool:
    """``t`` is one of ``kinds`` by identity (``in`` would ask a metaclass's ``__eq__``)."""
    return any(t is kind for kind in kinds)


def tag(value, depth=0):
    """Describe a learner's value as JSON with exact types, never calling its methods.

    Only built-in and NumPy scalars, strings, lists, tuples and dicts (the built-in one and the
    standard library's ``OrderedDict``, ``defaultdict``, ``Counter``) are described by value (cut
    to a fixed number of items and depth); anything else is just its type's name, so a learner's
    class with a hostile ``__eq__`` or ``__repr__`` runs nothing here.

    Parameters
    ----------
    value : Any
        What the learner's function returned.
    depth : int
        The nesting level reached (internal).

    Returns
    -------
    dict
        ``t`` (the kind) and ``v`` (the value; floats as exact hex) or ``type``.

    Examples
    --------
    >>> tag(0.5)
    {'t': 'float', 'v': '0x1.0000000000000p-1'}
    >>> tag(object())
    {'t': 'other', 'type': 'builtins.object'}
    """
    t = type(value)
    found = _plain_tag(value, t)
    if found is not None:
        return found
    if _one_of(t, _SEQUENCES) and depth < _MAX_DEPTH:
        items = [value[i] for i in range(min(len(value), _MAX_ITEMS))]
        return {"t": "list", "v": [tag(x, depth + 1) for x in items]}
    if _one_of(t, _DICTS) and depth < _MAX_DEPTH:
        pairs = list(_dict_items(value))[:_MAX_ITEMS]
        return {"t": "dict", "v": [[tag(a, depth + 1), tag(b, depth + 1)] for a, b in pairs]}
    try:
        found = _numpy_tag(value, t)
    except BaseException:
        found = None
    return found if found is not None else {"t": "other", "type": _type_label(t)}


def untag(arg):
    """Inputs arrive as ``{"set": [...]}`` / ``{"tuple": [...]}`` / ``{"dict": [[k, v], ...]}``
    or plain JSON.

    Parameters
    ----------
    arg : Any
        One decoded JSON argument.

    Returns
    -------
    Any
        The argument with its sets, tuples and dicts rebuilt (nested at will).

    Examples
    --------
    >>> untag({"set": [1, 2]}), untag({"tuple": [1, "a"]}), untag([1, {"dict": [["k", 2]]}])
    ({1, 2}, (1, 'a'), [1, {'k': 2}])
    """
    if type(arg) is dict and len(arg) == 1:
        ((key, val),) = arg.items()
        if key == "set":
            return {untag(v) for v in val}
        if key == "tuple":
            return tuple(untag(v) for v in val)
        if key == "dict":
            return {untag(a): untag(b) for a, b in val}
    if type(arg) is list:
        return [untag(v) for v in arg]
    return arg


def describe(exc) -> str:
    """``Type: message`` of an exception, cut to 500 characters.

    Parameters
    ----------
    exc : BaseException
        The exception.

    Returns
    -------
    str
        Its type's name (bare for a built-in type, ``module.qualname`` for any other, so a class the
        notebook names ``ValueError`` is not one) and message; the grader decides what of it a
        learner may see.

    Examples
    --------
    >>> describe(KeyError("u1"))
    "KeyError: 'u1'"
    """
    t = type(exc)
    builtin = not _type_flags(t) & _HEAPTYPE and _type_module(t) == "builtins"
    name = _type_qualname(t) if builtin else _type_label(t)  # a class named ValueError is __main__.ValueError
    try:
        text = f"{name}: {exc}"
    except BaseException:
        text = name
    return text[:500]


class Channel:
    """The result pipe: one JSON line per event.

    Parameters
    ----------
    fd : int
        The pipe's write end; only the supervising process holds it.
    """

    def __init__(self, fd: int):
        self.fd = fd

    def send(self, obj) -> None:
        try:
            data = str.encode(_to_json(obj) + "\n")
        except BaseException as exc:
            data = str.encode('{"ev": "warning", "text": ' + _escape(object.__repr__(exc)[:200]) + "}\n")
        view = memoryview(data)
        while view:
            view = view[_write(self.fd, view) :]


def apply_limits(limits: dict, channel: Channel) -> None:
    """Resource limits for this process and everything it starts (soft = hard: learners cannot raise them).

    Parameters
    ----------
    limits : dict
        CPU seconds, address space, processes, file size and open files.
    channel : Channel
        Where a limit that cannot be set is reported as a warning.
    """
    try:
        import resource

        def cap(which, value):
            soft, hard = resource.getrlimit(which)
            value = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(which, (value, value))

        cap(resource.RLIMIT_CPU, int(limits["cpu_seconds"]))
        cap(resource.RLIMIT_AS, int(limits["memory_bytes"]))
        cap(resource.RLIMIT_FSIZE, int(limits["output_bytes"]))
        cap(resource.RLIMIT_CORE, 0)
        cap(resource.RLIMIT_NOFILE, 64)
        if int(limits["nproc"]) > 0:
            cap(resource.RLIMIT_NPROC, int(limits["nproc"]))
    except (ImportError, ValueError, OSError) as exc:  # pragma: no cover - platform specific
        channel.send({"ev": "warning", "text": f"could not set a resource limit: {exc}"})
    try:  # the kernel's out-of-memory killer takes a sandbox before the grader or anything else
        fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
        os.write(fd, b"1000")
        os.close(fd)
    except OSError:
        pass
    # Writing past the file-size limit raises OSError(EFBIG) instead of killing the process.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def run_cell(cell: dict, namespace: dict) -> list:
    """Run one cell's top-level statements; return the errors (an error never stops the next statement).

    Parameters
    ----------
    cell : dict
        ``index`` and ``statements`` (``line``, ``source``), as
        :func:`helpers.grade.prepare.prepare_notebook` splits them.
    namespace : dict
        The notebook's globals, shared by all cells.

    Returns
    -------
    list of dict
        One ``{"cell", "line", "error"}`` per statement that raised.

    Examples
    --------
    >>> namespace = {}
    >>> run_cell({"index": 1, "statements": [{"line": 1, "source": "x = 1"}, {"line": 2, "source": "1 / 0"},
    ...                                       {"line": 3, "source": "y = x + 1"}]}, namespace)
    [{'cell': 1, 'line': 2, 'error': 'ZeroDivisionError: division by zero'}]
    >>> namespace["y"]
    2
    """
    errors = []
    for stmt in cell["statements"]:
        try:
            padded = "\n" * (int(stmt["line"]) - 1) + stmt["source"]
            exec(compile(padded, f"<cell {cell['index']}>", "exec"), namespace)
        except BaseException as exc:
            errors.append({"cell": cell["index"], "line": stmt["line"], "error": describe(exc)})
    return errors


def call_case(obj, args: list) -> dict:
    """The learner's function on one case: ``{"value": tagged}`` or ``{"error": text}``.

    Any exception, ``SystemExit`` and ``KeyboardInterrupt`` included, becomes the case's error:
    the learner's code cannot end the run from inside a case.

    Parameters
    ----------
    obj : callable
        The learner's function.
    args : list
        The case's arguments, tagged as :func:`untag` reads them.

    Returns
    -------
    dict
        ``{"value": tagged}`` or ``{"error": "Type: message"}``.

    Examples
    --------
    >>> call_case(lambda ranking, k: len(ranking) / k, [[1, 2], 4])
    {'value': {'t': 'float', 'v': '0x1.0000000000000p-1'}}
    >>> call_case(lambda: 1 / 0, [])
    {'error': 'ZeroDivisionError: division by zero'}
    """
    try:
        return {"value": tag(obj(*[untag(a) for a in args]))}
    except BaseException as exc:
        return {"error": describe(exc)}


def answer(question: dict, namespace: dict) -> dict:
    """A question's opening reply: whether its target is there, and a value question's value.

    Parameters
    ----------
    question : dict
        ``name``, ``target`` and ``kind`` (``"function"`` or ``"value"``).
    namespace : dict
        The notebook's globals after its cells ran.

    Returns
    -------
    dict
        ``status`` (``ok``, ``missing`` or ``not_callable``) and, for a value question, its
        tagged value as the one case.

    Examples
    --------
    >>> answer({"name": "q2", "target": "n_users", "kind": "value"}, {"n_users": 3})
    {'status': 'ok', 'cases': [{'value': {'t': 'int', 'v': '3'}}]}
    >>> answer({"name": "q1", "target": "f", "kind": "function"}, {})["status"]
    'missing'
    """
    target = question["target"]
    if target not in namespace:
        return {"status": "missing", "cases": []}
    obj = namespace[target]
    if question["kind"] == "value":
        return {"status": "ok", "cases": [{"value": tag(obj)}]}
    if not callable(obj):
        return {"status": "not_callable", "what": _type_label(type(obj)), "cases": []}
    return {"status": "ok", "cases": []}


def _quiet_stdin() -> None:
    devnull = os.open("/dev/null", os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)


class _Lines:
    """Reads one line at a time from a pipe (``None`` at end of file or past ``cap`` bytes without a newline).

    Bytes only: the runner reads its commands after learner code ran, which may have patched ``json``
    or ``builtins``; a command is ``<kind> <number> <nonce>`` and needs no parser.
    """

    def __init__(self, fd: int, cap: int):
        self.fd, self.cap = fd, cap
        self.buffer = bytearray()

    def read(self):
        while True:
            newline = self.buffer.find(b"\n")
            if newline >= 0:
                line = bytes(self.buffer[:newline])
                del self.buffer[: newline + 1]
                return line
            if len(self.buffer) > self.cap:
                return None
            chunk = os.read(self.fd, 65536)
            if not chunk:
                return None
            self.buffer += chunk


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass


class _Runner:
    """The learner's namespace and the one command it is running."""

    def __init__(self, job: dict):
        self.namespace = {"__name__": "__main__", "__builtins__": builtins}
        self.cells = {c["index"]: c for c in job["cells"]}
        self.questions = job["questions"]
        self.functions: dict = {}

    def do(self, kind: bytes, number: int, rest: bytes) -> dict:
        """The reply to one command: run a cell, open a question, run one case of it, or end."""
        if kind == b"c":
            return {"errors": run_cell(self.cells[number], self.namespace)[:50]}
        if kind == b"q":
            question = self.questions[number]
            self.functions[number] = self.namespace.get(question["target"])
            return answer(question, self.namespace)
        if kind == b"a":
            return {"case": call_case(self.functions.get(number), _scan(bytes.decode(rest), 0)[0])}
        _flush()
        return {}


def runner(job: dict, commands: _Lines, replies: Channel) -> None:
    """The learner's process: runs one command at a time (a cell, a question, a case) and replies.

    It never holds the grader's channel: what it writes can only be a reply to the supervisor,
    which takes a reply only when it carries the nonce of the command it answers. A case's
    arguments arrive in the command that runs it (``a <question> <nonce> <JSON arguments>``).

    Parameters
    ----------
    job : dict
        The job: cells, questions and limits.
    commands : _Lines
        The supervisor's commands, one line each.
    replies : Channel
        The pipe back to the supervisor.
    """
    for path in job["sys_path"]:
        if path not in sys.path:
            sys.path.append(path)
    os.environ.update(job.get("env", {}))  # the grading run's seed, for exercise data that change per run
    state = _Runner(job)
    me = os.getpid()
    while True:
        line = commands.read()
        if line is None:
            _exit(0)
        kind, number, nonce, rest = (line.split(b" ", 3) + [b""])[:4]
        reply = state.do(kind, int(number), rest)
        if os.getpid() != me:  # a process the learner forked came back here: it is not the runner
            _exit(0)
        reply["n"] = bytes.decode(nonce)
        replies.send(reply)
        if kind == b"e":
            _exit(0)


def _undumpable(channel: Channel) -> None:
    """PR_SET_DUMPABLE 0: another process of the same user cannot open this one's fds or memory in /proc."""
    try:
        import ctypes

        if ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE) failed")
    except (ImportError, OSError, AttributeError) as exc:
        channel.send({"ev": "warning", "text": f"the runner's channel is not protected: {exc}"})


def _runner_status(pid: int) -> int:
    """The exit status the runner ended with (128 + signal when a signal ended it), as the sandbox's own."""
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        return 1
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


class _Supervisor:
    """Sends the runner one command at a time and takes the one reply that carries its nonce."""

    def __init__(self, pid: int, commands: int, replies: _Lines):
        self.pid, self.commands, self.replies = pid, commands, replies
        self.ignored = 0

    def step(self, kind: str, number: int = 0, payload: str = "") -> dict:
        """The runner's reply to one command; when the runner is gone, end the way it ended."""
        nonce = bytes.hex(os.urandom(16))
        data = str.encode(f"{kind} {number} {nonce} {payload}\n")
        try:
            view = memoryview(data)
            while view:
                view = view[_write(self.commands, view) :]
        except OSError:
            _exit(_runner_status(self.pid))
        while True:
            line = self.replies.read()
            if line is None:
                _exit(_runner_status(self.pid))
            try:
                reply = _loads(line)
            except BaseException:
                reply = None
            if type(reply) is dict and reply.get("n") == nonce:
                return reply
            self.ignored += 1


def _open(question: dict, index: int, cases: list[str], supervisor: _Supervisor) -> dict:
    """Part 1 of a question: open it in the runner (a value question's value is read now), then run
    its public cases; the hidden ones stay ``None`` until part 2 (:func:`_finish`)."""
    reply = supervisor.step("q", index)
    event = {"ev": "result", "q": question["name"]}
    for key in ("status", "cases", "what"):
        if key in reply:
            event[key] = reply[key]
    if question["kind"] == "function" and reply.get("status") == "ok":
        public = set(question.get("public", []))
        event["cases"] = [
            supervisor.step("a", index, args).get("case") if i in public else None
            for i, args in enumerate(cases)
        ]
    return event


def _finish(question: dict, index: int, cases: list[str], event: dict, supervisor: _Supervisor) -> dict:
    """Part 2 of a question: its hidden cases, each in its place among the public ones."""
    if question["kind"] == "function" and event.get("status") == "ok":
        public = set(question.get("public", []))
        event["cases"] = [
            got if i in public else supervisor.step("a", index, cases[i]).get("case")
            for i, got in enumerate(event["cases"])
        ]
    return event


def supervise(job: dict, cases: dict, channel: Channel, supervisor: _Supervisor) -> None:
    """Drive the runner cell by cell, then every question's public cases, then every question's hidden
    cases; only this process writes to the grader.

    Every public case (and every answer variable) runs before any hidden input reaches the runner,
    so what the learner's code returns or raises on them cannot depend on a hidden input: the
    grader may show it. The grader's deadlines and blame follow these messages (``start`` with its
    ``part``, 1 or 2), which learner code cannot write: it runs in the other process, which holds
    no descriptor of the channel, and this one is not dumpable (no ``/proc/<pid>/fd`` or ``mem``
    for it) and cannot be traced (seccomp). ``cases`` maps a question's name to its cases (each
    the JSON text of its arguments, one line), which the runner gets one at a time; a question's
    ``public`` lists the indices of its public cases.

    Parameters
    ----------
    job : dict
        The job: cells, questions, deadlines.
    cases : dict
        Question name -> its cases, public first.
    channel : Channel
        The pipe to the grader.
    supervisor : _Supervisor
        The runner's command and reply pipes, and its process.
    """
    errors = []
    skip = job.get("skip", [])
    for cell in job["cells"]:
        if cell["index"] in skip:
            continue
        channel.send({"ev": "cell", "i": cell["index"]})
        got = supervisor.step("c", cell["index"]).get("errors")
        errors += got if type(got) is list else []
    channel.send({"ev": "loaded", "errors": errors[:50]})
    opened = []
    for i, question in enumerate(job["questions"]):
        channel.send({"ev": "start", "q": question["name"], "part": 1})
        opened.append(_open(question, i, cases.get(question["name"], []), supervisor))
        channel.send({**opened[-1], "ev": "public"})  # what may be shown, before any hidden case
    for i, question in enumerate(job["questions"]):
        channel.send({"ev": "start", "q": question["name"], "part": 2})
        channel.send(_finish(question, i, cases.get(question["name"], []), opened[i], supervisor))
    supervisor.step("e")  # the runner flushes its output first
    if supervisor.ignored:
        # no count: the runner's code chooses it, after hidden inputs reached it
        channel.send({"ev": "warning", "text": "ignored forged or garbled reply lines"})
    channel.send({"ev": "done"})
    _exit(0)


def _read_all(fd: int) -> bytes:
    """Everything left in a descriptor (the cases' sealed memfd), then close it."""
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks)


def main(job_bytes: bytes) -> None:
    """Run one job: fork the runner (learner code), supervise it from here; always end with ``os._exit``.

    The runner is forked before the cases are read, and closes their descriptor at once: its
    memory never held them. The supervisor reads them once it is not dumpable.

    Parameters
    ----------
    job_bytes : bytes
        The job (cells, questions, limits, descriptors), JSON, read from standard input.
    """
    job = _loads(job_bytes)
    _quiet_stdin()
    channel = Channel(int(job["channel_fd"]))
    cases_fd = int(job["cases_fd"])
    for fd in (channel.fd, cases_fd):
        os.set_inheritable(fd, False)
    apply_limits(job["limits"], channel)
    cmd_r, cmd_w = os.pipe()
    rep_r, rep_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        for fd in (channel.fd, cases_fd, cmd_w, rep_r):
            os.close(fd)
        runner(job, _Lines(cmd_r, int(job.get("command_bytes", 1 << 20))), Channel(rep_w))
        _exit(0)
    os.close(cmd_r)
    os.close(rep_w)
    _undumpable(channel)
    cases = _loads(_read_all(cases_fd))
    replies = _Lines(rep_r, int(job.get("reply_bytes", 8 << 20)))
    supervise(job, cases, channel, _Supervisor(pid, cmd_w, replies))
