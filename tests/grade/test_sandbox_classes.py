"""One test per class the second red team found: kernel surfaces, resources per submission, the wall
clock, the result channel, refusals that name their cause, and the packages a sandbox sees."""

from __future__ import annotations

import os
import time
from importlib import metadata

import pytest

from helpers.grade import isolation, sandbox, seccomp
from helpers.grade.grader import data_seed
from helpers.grade.sandbox import Limits, run_submission


def _cells(*sources: str) -> list[dict]:
    return [{"index": i, "statements": [{"line": 1, "source": s}]} for i, s in enumerate(sources, start=1)]


def _value(result, name="q") -> str:
    return result.questions[name]["cases"][0]["value"]["v"]


VALUE = [{"name": "q", "kind": "value", "target": "x", "cases": []}]


# ------------------------------------------------------------------ seccomp
def test_seccomp_filters_differ_per_architecture_and_deny_each_call_once():
    for column in (0, 1):
        numbers = [nrs[column] for nrs in seccomp.DENIED.values()]
        assert len(numbers) == len(set(numbers))
    assert seccomp.program("x86_64") != seccomp.program("aarch64")
    assert seccomp.DENIED["ptrace"] == (101, 117) and seccomp.DENIED["keyctl"] == (250, 219)
    with pytest.raises(ValueError, match="x86_64 and aarch64"):
        seccomp.program("riscv64")


def test_inside_the_sandbox_ptrace_keyring_namespaces_and_io_uring_are_denied(bwrap):
    code = (
        "import ctypes, errno, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "nrs = {'x86_64': (101, 250, 272, 425), 'aarch64': (117, 219, 97, 425)}[os.uname().machine]\n"
        "x = []\nfor nr in nrs:\n    ctypes.set_errno(0)\n"
        "    x.append((libc.syscall(nr, ctypes.c_long(0), ctypes.c_long(-3), 0), ctypes.get_errno()))\n"
        "x = str(x)\n"
    )
    with isolation.prepare(isolation.BUBBLEWRAP, ("numpy",)) as runtime:
        result = run_submission(_cells(code), VALUE, runtime, Limits(timeout=10))
    assert _value(result) == str([(-1, 1)] * 4)


# ------------------------------------------------------------------ resources per submission
def _needs_cgroup(runtime, require):
    require(
        "a control group for each sandbox",
        runtime.cgroups is not None,
        "run the grader as root on a machine with cgroup v1 or a delegated cgroup v2",
        runtime.resources,
    )


def test_memory_is_bounded_for_the_submission_as_a_whole(bwrap, require):
    code = (
        "import os, time\nkids = []\nfor _ in range(6):\n    pid = os.fork()\n    if pid == 0:\n"
        "        try:\n            b = bytearray(80 << 20)\n            b[::4096] = b'x' * len(b[::4096])\n"
        "            time.sleep(1.5)\n            os._exit(0)\n        except BaseException:\n            "
        "os._exit(1)\n"
        "    kids.append(pid)\nok = 0\nfor pid in kids:\n    _, status = os.waitpid(pid, 0)\n"
        "    ok += os.waitstatus_to_exitcode(status) == 0\nx = str(ok)\n"
    )
    with isolation.prepare(isolation.BUBBLEWRAP, ("numpy",)) as runtime:
        _needs_cgroup(runtime, require)
        result = run_submission(_cells(code), VALUE, runtime, Limits(timeout=15, memory_mb=200))
    held = result.questions["q"]
    assert "failure" in held or int(_value(result)) * 80 < 200, held


def test_processes_are_counted_per_sandbox(bwrap, require):
    code = (
        "import os, time\nx = 0\ntry:\n    for _ in range(100):\n        if os.fork() == 0:\n"
        "            time.sleep(5)\n            os._exit(0)\n        x += 1\nexcept OSError:\n    pass\nx = "
        "str(x)\n"
    )
    with isolation.prepare(isolation.BUBBLEWRAP, ("numpy",)) as runtime:
        _needs_cgroup(runtime, require)
        result = run_submission(_cells(code), VALUE, runtime, Limits(timeout=10, nproc=16))
    assert 0 < int(_value(result)) < 16


# ------------------------------------------------------------------ the wall clock, hangs
def test_a_hung_cell_costs_only_itself_and_is_named(bwrap):
    cells = _cells("x = 'kept'", "while True:\n    pass", "y = 1")
    with isolation.prepare(isolation.BUBBLEWRAP, ("numpy",)) as runtime:
        result = run_submission(cells, VALUE, runtime, Limits(timeout=2))
    assert _value(result) == "kept"
    assert [e["cell"] for e in result.cell_errors] == [2]
    assert "did not finish" in result.cell_errors[0]["error"]


def test_forged_messages_cannot_extend_the_submissions_wall_clock(bwrap):
    forge = (
        "import os, threading, time\n"
        'line = b\'{"ev": "start", "q": "q"}\\n{"ev": "loaded", "errors": []}\\n{"ev": "cell", "i": 1}\\n\'\n'
        "def go():\n    while True:\n        for fd in range(3, 40):\n            try:\n"
        "                os.write(fd, line)\n            except OSError:\n                pass\n"
        "        time.sleep(0.01)\nthreading.Thread(target=go, daemon=True).start()\n"
        "while True:\n    time.sleep(1)\n"
    )
    questions = [{"name": f"q{i}", "kind": "value", "target": "x", "cases": []} for i in range(3)]
    with isolation.prepare(isolation.BUBBLEWRAP, ("numpy",)) as runtime:
        started = time.monotonic()
        result = run_submission(_cells("x = 'kept'", forge), questions, runtime, Limits(timeout=1.5))
        took = time.monotonic() - started
    assert took < 1.5 * (len(questions) + 1) + 5, took
    assert [_value(result, q["name"]) for q in questions] == ["kept"] * 3
    assert [e["cell"] for e in result.cell_errors] == [2]
    assert any("forged or garbled" in w for w in result.warnings) or result.runs == 2


# ------------------------------------------------------------------ the result channel
def _reader() -> sandbox._Reader:
    job = {"cells": [], "skip": [], "questions": []}
    return sandbox._Reader(-1, Limits(), sandbox.SandboxResult(), job, time.monotonic() + 60)


def _feed_seconds(data: bytes) -> float:
    reader = _reader()
    started = time.monotonic()
    for i in range(0, len(data), 65536):
        reader._feed(data[i : i + 65536])
    assert not reader.reason
    return time.monotonic() - started


def test_reading_the_result_channel_is_linear_in_what_arrives():
    for unit in (b"\n", b"{}\n", b"x"):
        small = _feed_seconds(unit * ((1 << 19) // len(unit)))
        large = _feed_seconds(unit * ((1 << 21) // len(unit)))
        assert large < 4 * small * 2 + 0.5, (unit, small, large)  # four times the bytes: ~four times the work


def test_too_much_code_is_refused_before_it_is_parsed():
    problem = Limits().code_problem(["a;" * 100_000])
    assert problem and "KiB of code" in problem
    assert Limits(notebook_mb=50).notebook_bytes == 50 << 20


# ------------------------------------------------------------------ refusals name their cause
def test_missing_bubblewrap_is_the_only_refusal_that_says_install_it(monkeypatch):
    monkeypatch.setattr(isolation.shutil, "which", lambda name: None)
    with pytest.raises(isolation.SandboxUnavailable) as info:
        with isolation.prepare(isolation.BUBBLEWRAP, ("numpy",)):
            pass
    assert info.value.fix == isolation.INSTALL_HELP


def test_a_missing_package_names_the_package_not_bubblewrap():
    with pytest.raises(isolation.SandboxUnavailable) as info:
        isolation.package_paths(("no_such_package_for_the_grader",))
    assert "pip install no_such_package_for_the_grader" in info.value.fix
    assert "bubblewrap" not in info.value.fix.lower()


def test_an_unreachable_staging_folder_names_the_folder_and_the_fix(monkeypatch):
    monkeypatch.setattr(isolation, "_reachable_by_others", lambda path: False)
    with pytest.raises(isolation.SandboxUnavailable) as info:
        isolation._staging_parent()
    assert "/tmp" in str(info.value) and "TMPDIR" in info.value.fix
    assert "Install bubblewrap" not in info.value.fix


# ------------------------------------------------------------------ the packages a sandbox sees
def _required(dist_name: str) -> set[str]:
    """Naive oracle: the names of the distributions ``dist_name`` needs, recursively, that are installed."""
    seen, todo = set(), [dist_name]
    while todo:
        name = todo.pop().lower().replace("_", "-")
        if name in seen:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        seen.add(name)
        for req in dist.requires or []:
            if "extra ==" not in req:
                todo.append(req.split(";")[0].split("[")[0].split("<")[0].split(">")[0].split("=")[0].strip())
    return seen


def test_sandbox_packages_are_the_import_closure_read_from_metadata():
    site = isolation.package_paths(("helpers",))
    assert {"helpers", "topkeval", "numpy", "pandas", "dateutil"} <= set(site)
    assert ("six" in site) == ("six" in _required("topk-course-helpers"))
    assert not {"pytest", "jupyterlab", "matplotlib", "sklearn"} & set(site)
    assert all(os.path.exists(p) for p in site.values())
    assert set(isolation.package_paths(("numpy",))) <= {"numpy", "numpy.libs"}


def test_learner_code_cannot_reach_the_channel_and_is_killed_first_when_memory_runs_out(bwrap):
    code = (
        "import os\nx = open('/proc/self/oom_score_adj').read().strip()\n"
        "for path in (f'/proc/{os.getppid()}/fd', f'/proc/{os.getppid()}/mem'):\n"
        "    try:\n        open(path, 'rb') if path.endswith('mem') else os.listdir(path)\n"
        "        x += ' open'\n    except OSError as exc:\n        x += ' ' + type(exc).__name__\n"
    )
    with isolation.prepare(isolation.BUBBLEWRAP, ("numpy",)) as runtime:
        result = run_submission(_cells(code), VALUE, runtime, Limits(timeout=10))
    assert _value(result) == "1000 PermissionError PermissionError"


# ------------------------------------------------------------------ answers obtainable without computing them
def test_choosing_metrics_answers_change_with_the_run_so_public_numbers_do_not_carry_over(tmp_path):
    import json
    import math

    from helpers.grade.assignments import ASSIGNMENTS
    from helpers.grade.grader import grade_many, make_plan

    assignment = ASSIGNMENTS["choosing-metrics"]
    public = {q.target: q.reference(None) for q in assignment.questions}
    cells = [
        {
            "cell_type": "code",
            "metadata": {},
            "outputs": [],
            "execution_count": None,
            "source": f"{name} = {value!r}",
        }
        for name, value in public.items()
    ]
    nb = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "copied.ipynb").write_text(json.dumps(nb))
    seed = 12345
    mode = isolation.BUBBLEWRAP if os.geteuid() == 0 or os.environ.get("CI") else isolation.UNSAFE
    grade_many([tmp_path / "copied.ipynb"], assignment, tmp_path / "out", jobs=1, seed=seed, mode=mode)
    report = json.loads((tmp_path / "out" / "copied.json").read_text())
    # naive oracle: a copied number only scores where the learner's answer happens to be the same, on
    # each draw of her own data (copied.ipynb's: no roster, so the key is its report name's)
    drawn = make_plan(assignment, seed, "file:copied").data_seeds
    assert data_seed(seed) not in drawn and len(drawn) == 2
    same = [
        q
        for q in assignment.questions
        if all(
            math.isclose(public[q.target], q.reference(d), rel_tol=q.rel_tol, abs_tol=q.abs_tol)
            for d in drawn
        )
    ]
    assert report["score"] == sum(q.points for q in same) < assignment.max_score


def test_no_grader_code_is_inside_the_choosing_metrics_sandbox(bwrap):
    code = (
        "import os\nx = str(sorted(os.listdir('/sandbox/site/helpers/grade')))\n"
        "try:\n    from helpers.grade.assignments import ASSIGNMENTS\n    x += ' importable'\n"
        "except ImportError:\n    x += ' withheld'\n"
        "from helpers.experiments.exercise_data import choosing_metrics_data\n"
        "x += ' ' + str(choosing_metrics_data() != choosing_metrics_data(seed=None) or 'same')\n"
    )
    with isolation.prepare(isolation.BUBBLEWRAP, ("helpers",)) as runtime:
        result = run_submission(_cells(code), VALUE, runtime, Limits(timeout=20))
    assert _value(result) == "[] withheld same"


def test_a_cgroup_v2_group_gets_memory_processes_and_one_cpu(tmp_path):
    from helpers.grade import cgroup

    (tmp_path / "cgroup.subtree_control").write_text("cpu memory pids\n")
    found, why = cgroup._detect_v2([(str(tmp_path), "cgroup2", set())], {"": "/"})
    assert found is not None and found.version == 2, why
    group = cgroup.Group(found, 200 << 20, 20)
    folder = next(p for p in tmp_path.iterdir() if p.is_dir())
    assert (folder / "memory.max").read_text() == str(200 << 20)
    assert (folder / "pids.max").read_text() == "20"
    assert (folder / "cpu.max").read_text() == "100000 100000"
    (folder / "cgroup.procs").write_text("")
    assert group.pids() == [] and not group.memory_exceeded()
    (tmp_path / "cgroup.subtree_control").write_text("cpu\n")
    assert cgroup._detect_v2([(str(tmp_path), "cgroup2", set())], {"": "/"})[0] is None
