"""The grader against a hostile class: the whole corpus in one CLI run, output shapes, the sandbox itself.

The corpus run happens once per module, in a copy of ``grading_corpus/`` to which the test adds
the entries git cannot hold (a FIFO, a symlink to the solution notebook, a folder, a non-UTF-8
name, two names that collide once made safe). It runs the CLI under a child-subreaper wrapper, so
any process a submission left behind is found, with a secret in the grader's environment and UDP,
TCP and abstract-socket listeners on this machine that must receive nothing.
"""

from __future__ import annotations

import csv
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.grade import grader as grade
from helpers.grade import isolation
from helpers.grade.assignments import ASSIGNMENTS
from helpers.grade.files import display_name, report_names
from helpers.grade.sandbox import Limits, run_submission, validate_event
from helpers.grade.scoring import decode

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).resolve().parent / "grading_corpus"
MANIFEST = json.loads((CORPUS / "manifest.json").read_text())
ESCAPES = [
    Path("/tmp/helpers_grade_corpus_escape.txt"),
    Path("/tmp/helpers_grade_corpus_escape2.txt"),
    Path("/tmp/helpers_grade_corpus_escape3.txt"),
    Path("/tmp/helpers_grade_corpus_dir"),
]
SECRET = "helpers-grade-secret-" + secrets.token_hex(8)
# network.ipynb names these placeholders; the test binds free ports and a fresh abstract name, and writes
# them into its copy, so two test runs on one machine never collide.
PLACEHOLDERS = {"udp": "48611", "tcp": "48612", "unix": "\\\\0helpers-grade-corpus'"}

# The corpus is graded with --jobs 2 under 4-second wall-clock limits: make test runs this module alone, after
# its two-worker run (pyproject's `serial` marker), so those seconds are the machine's, as on a grader's.
pytestmark = pytest.mark.serial

# Runs the grader as its only child, as a child subreaper: whatever a submission leaves running is
# re-parented here and listed (then killed) after the grader exits.
REAPER = r"""
import ctypes, json, os, signal, subprocess, sys, time
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
proc = subprocess.run(sys.argv[1:], capture_output=True, text=True, errors="backslashreplace")
time.sleep(1.5)
def reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
reap()
left = []
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        stat = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        cmd = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        continue
    if int(stat[1]) == os.getpid() and stat[0] != "Z":
        left.append(cmd)
        os.kill(int(pid), signal.SIGKILL)
reap()
print(json.dumps({"returncode": proc.returncode, "stderr": proc.stderr, "leftovers": left}))
"""


def _generated(folder: Path) -> None:
    """The entries of ``MANIFEST["generated"]``, which git cannot store."""
    for entry in MANIFEST["generated"]:
        path = (
            folder / os.fsdecode(entry["name"].encode("latin-1"))
            if entry.get("bytes")
            else folder / entry["name"]
        )
        kind = entry["kind"]
        if kind == "fifo":
            os.mkfifo(path)
        elif kind == "symlink":
            path.symlink_to(ROOT / entry["target"])
        elif kind == "folder":
            path.mkdir()
            (path / "inner.ipynb").write_text((CORPUS / "perfect.ipynb").read_text())
        else:
            shutil.copyfile(CORPUS / entry["copy_of"], path)


def _aim_at(notebook: Path, udp: socket.socket, tcp: socket.socket, unix: socket.socket) -> None:
    """Point the copied network.ipynb at this run's listeners (their ports and abstract name)."""
    text = notebook.read_text()
    name = unix.getsockname()[1:].decode()  # abstract: a leading NUL, then the name
    wanted = {
        "udp": str(udp.getsockname()[1]),
        "tcp": str(tcp.getsockname()[1]),
        "unix": "\\\\0" + name + "'",
    }
    for key, placeholder in PLACEHOLDERS.items():
        assert placeholder in text, f"network.ipynb no longer names {placeholder}"
        text = text.replace(placeholder, wanted[key])
    notebook.write_text(text)


@pytest.fixture(scope="module")
def listeners():
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    tcp = socket.create_server(("127.0.0.1", 0))
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix.bind(b"\0helpers-grade-corpus-" + secrets.token_hex(6).encode())
    unix.listen()
    for s in (udp, tcp, unix):
        s.setblocking(False)
    yield udp, tcp, unix
    for s in (udp, tcp, unix):
        s.close()


@pytest.fixture(scope="module")
def corpus_run(tmp_path_factory, listeners, request):
    request.getfixturevalue("bwrap")
    folder = tmp_path_factory.mktemp("corpus")
    for path in CORPUS.glob("*.ipynb"):
        shutil.copyfile(path, folder / path.name)
    _aim_at(folder / "network.ipynb", *listeners)
    _generated(folder)
    out = tmp_path_factory.mktemp("corpus-grades")
    for path in ESCAPES:
        assert not path.exists(), f"leftover {path}: remove it before running the tests"
    env = {**os.environ, "HELPERS_GRADE_TEST_SECRET": SECRET}
    command = [
        sys.executable,
        "-m",
        "helpers.grade",
        "--assignment",
        MANIFEST["assignment"],
        "--out",
        str(out),
        *MANIFEST["options"],
        str(folder),
    ]
    proc = subprocess.run(
        [sys.executable, "-c", REAPER, *command],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    run = json.loads(proc.stdout)
    reports = {json.loads(p.read_text())["file"]: json.loads(p.read_text()) for p in out.glob("*.json")}
    return run, out, reports


def test_corpus_is_big_enough():
    committed = sorted(p.name for p in CORPUS.glob("*.ipynb"))
    generated = [
        display_name(os.fsdecode(e["name"].encode("latin-1")) if e.get("bytes") else e["name"])
        for e in MANIFEST["generated"]
    ]
    assert sorted(MANIFEST["cases"]) == sorted(committed + generated)
    assert len(MANIFEST["cases"]) >= 50


def test_cli_exits_zero_and_shows_progress(corpus_run):
    run, _, _ = corpus_run
    assert run["returncode"] == 0, run["stderr"]
    n = len(MANIFEST["cases"])
    assert f"[{n}/{n}]" in run["stderr"]
    assert f"graded {n} submission(s)" in run["stderr"] and "isolation bubblewrap" in run["stderr"]
    assert "limits per submission: " in run["stderr"]  # the control group, or which limits apply instead


def test_no_process_started_by_a_submission_is_alive(corpus_run):
    run, _, _ = corpus_run
    assert run["leftovers"] == []


def test_nothing_reached_the_network_of_this_machine(corpus_run, listeners):
    udp, tcp, unix = listeners
    for receive in (lambda: udp.recv(100), tcp.accept, unix.accept):
        with pytest.raises(BlockingIOError):
            receive()


def test_no_report_holds_the_graders_environment(corpus_run):
    _, out, _ = corpus_run
    for path in out.rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text(errors="replace"), path.name


def test_grades_csv_has_every_row_mode_and_seed(corpus_run):
    _, out, reports = corpus_run
    with open(out / "grades.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    targets = [q.target for q in ASSIGNMENTS["from-scratch"].questions]
    assert list(rows[0]) == [
        *["learner_id", "name", "submission", "file", "status", "reason", "isolation", "seed"],
        *["submitted_at", "days_late", "late_penalty_percent", "score_before_penalty", "score"],
        *["max_score", *targets, *[f"{t} result" for t in targets], "graded_at", "sha256"],
    ]
    assert sorted(r["file"].removeprefix("'") for r in rows) == sorted(MANIFEST["cases"])
    assert len({r["submission"] for r in rows}) == len(rows)
    seed = MANIFEST["options"][MANIFEST["options"].index("--seed") + 1]
    for row in rows:
        assert (row["isolation"], row["seed"], float(row["max_score"])) == ("bubblewrap", seed, 14.0)
        assert float(row["score"]) == pytest.approx(sum(float(row[t]) for t in targets), abs=0.011)
        assert float(row["score"]) == reports[row["file"]]["score"]


@pytest.mark.parametrize("name", sorted(MANIFEST["cases"]))
def test_corpus_case_scores(corpus_run, name):
    _, _, reports = corpus_run
    expected = MANIFEST["cases"][name]
    report = reports[name]
    got = {q["target"]: q["points"] for q in report["questions"]}
    assert got == expected["points"], json.dumps(report, indent=1)[:4000]
    assert report["score"] == expected["score"]
    assert report["isolation"] == "bubblewrap"
    for target, text in expected["feedback_contains"].items():
        scope = report if target == "*" else next(q for q in report["questions"] if q["target"] == target)
        assert text in json.dumps(scope, ensure_ascii=False), (target, text)


def test_degenerate_answers_score_nothing_in_the_corpus(corpus_run):
    _, _, reports = corpus_run
    for name in (
        "constant_zero.ipynb",
        "constant_one.ipynb",
        "first_public_value.ipynb",
        "precomputed_answers.ipynb",
    ):
        assert reports[name]["score"] == 0.0
        assert {q["status"] for q in reports[name]["questions"]} == {"same answer for every input"}


def test_json_report_shape(corpus_run):
    _, _, reports = corpus_run
    report = reports["perfect.ipynb"]
    assert {
        "submission",
        "file",
        "assignment",
        "seed",
        "isolation",
        "score",
        "max_score",
        "questions",
        "warnings",
        "cell_errors",
    } <= set(report)
    for q in report["questions"]:
        assert {"question", "target", "points", "max_points", "status", "checks", "errors"} <= set(q)
        for c in q["checks"]:
            keys = {"name", "hidden", "passed", "points", "max_points", "feedback"}
            assert keys <= set(c) <= keys | {"examples"}  # examples: failed worked examples (public only)
            assert "examples" not in c or not c["hidden"]
        assert sum(c["max_points"] for c in q["checks"]) == pytest.approx(q["max_points"])
        assert all(c["max_points"] == 0 for c in q["checks"] if not c["hidden"])  # public and type checks
    names = {c["name"] for c in report["questions"][0]["checks"]}
    assert {
        "k larger than the list",
        "single relevant item",
        "relevant items never recommended",
        "returns a float in [0, 1]",
    } <= names


def test_failures_are_zero_with_a_reason(corpus_run):
    _, _, reports = corpus_run
    for report in reports.values():
        for q in report["questions"]:
            assert all(c["feedback"] for c in q["checks"])
            if q["points"] == 0:
                assert not any(c["passed"] and c["max_points"] > 0 for c in q["checks"]) or q.get("reason")


def test_hidden_feedback_reveals_no_inputs(corpus_run):
    _, _, reports = corpus_run
    report = reports["precision_divides_by_list_length.ipynb"]
    hidden = [c for q in report["questions"] for c in q["checks"] if c["hidden"] and not c["passed"]]
    assert hidden
    assert all("[" not in c["feedback"] and "expected" not in c["feedback"] for c in hidden)


def test_nothing_was_written_outside_the_sandbox(corpus_run):
    for path in ESCAPES:
        assert not path.exists()
    assert not (ROOT / "grades.csv").exists()


# ------------------------------------------------------------------ the sandbox itself
def _run(bwrap_mode: str, source: str, target: str = "x", limits: Limits | None = None, packages=("numpy",)):
    cells = [{"index": 1, "statements": [{"line": 1, "source": source}]}]
    with isolation.prepare(bwrap_mode, packages) as runtime:
        res = run_submission(
            cells,
            [{"name": "q", "kind": "value", "target": target, "cases": []}],
            runtime,
            limits or Limits(timeout=20),
        )
    return res


def test_inside_the_sandbox_no_root_no_capabilities_own_pid_namespace(bwrap):
    source = (
        "import os\nstatus = dict(l.split(':', 1) for l in open('/proc/self/status').read().splitlines())\n"
        "x = {k: status[k].split()[0] for k in ('Uid', 'Gid', 'CapEff', 'CapPrm', 'CapBnd', 'NoNewPrivs', "
        "'Seccomp')}\n"
        "x['pids'] = str(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))\n"
        "x['root'] = str(sorted(os.listdir('/')))\nx['env'] = str(sorted(os.environ))\n"
    )
    res = _run(isolation.BUBBLEWRAP, source)
    seen = decode(res.questions["q"]["cases"][0]["value"])
    assert seen["Uid"] == "65534" and seen["Gid"] == "65534"
    assert int(seen["CapEff"], 16) == int(seen["CapPrm"], 16) == int(seen["CapBnd"], 16) == 0
    assert seen["NoNewPrivs"] == "1"
    assert seen["pids"] == "[1, 2, 3]"  # bwrap's init, the supervisor, the runner: nothing else is visible
    assert seen["Seccomp"] == "2"  # a seccomp filter is on (helpers.grade.seccomp)
    interpreter_top = os.path.realpath(sys.executable).split("/")[1]  # e.g. usr, or root for a pyenv Python
    allowed = {"dev", "lib", "lib32", "lib64", "proc", "sandbox", "tmp", "usr", interpreter_top}
    assert set(eval(seen["root"])) <= allowed
    assert "HELPERS" not in seen["env"] and "PYTHONPATH" not in seen["env"]


def test_the_sandbox_sees_no_repository_no_helpers_no_site_packages(bwrap):
    source = (
        "import os, sys, importlib.util\n"
        f"paths = [{str(ROOT)!r}, {str(ROOT / 'exercises' / 'source')!r}, {sys.prefix!r}]\n"
        "x = [os.path.exists(p) for p in paths] + [importlib.util.find_spec('helpers') is None]\n"
        "x += [sorted(os.listdir('/sandbox/site'))]\n"
        "x += [[p for p in sys.path if 'site-packages' in p and os.listdir(p)]]\n"
    )
    res = _run(isolation.BUBBLEWRAP, source)
    exists_root, exists_source, exists_venv, no_helpers, site, nonempty = decode(
        res.questions["q"]["cases"][0]["value"]
    )
    assert (exists_root, exists_source, no_helpers) == (False, False, True)
    assert not exists_venv or not str(sys.prefix).startswith(str(ROOT))
    assert site == ["numpy", "numpy.libs"] or site == ["numpy"]
    assert nonempty == []


def test_choosing_metrics_sandbox_has_helpers_but_no_repository(bwrap):
    source = (
        f"import os, helpers\nx = [helpers.precision_at_k([1, 2], {{1}}, 2), os.path.exists({str(ROOT)!r}),"
        f" os.path.exists({str(ROOT / 'exercises')!r})]\n"
    )
    res = _run(isolation.BUBBLEWRAP, source, packages=ASSIGNMENTS["choosing-metrics"].sandbox_packages)
    assert decode(res.questions["q"]["cases"][0]["value"]) == [0.5, False, False]


def test_processes_are_limited_inside(bwrap):
    source = (
        "import os, time\nx = 0\ntry:\n    for _ in range(200):\n        if os.fork() == 0:\n"
        "            time.sleep(30)\n            os._exit(0)\n        x += 1\nexcept OSError:\n    pass\n"
    )
    res = _run(isolation.BUBBLEWRAP, source, limits=Limits(timeout=20, nproc=10))
    assert decode(res.questions["q"]["cases"][0]["value"]) < 10


def test_values_are_tagged_not_trusted(bwrap):
    source = (
        "import numpy as np\nclass F(float):\n    def __eq__(self, other):\n        return True\n"
        "x = [1.5, np.float64(2.0), np.float32(0.5), np.int64(3), np.bool_(True), F(1.0), True, 3, {1}]\n"
    )
    tagged = _run(isolation.BUBBLEWRAP, source).questions["q"]["cases"][0]["value"]["v"]
    values = [decode(t) for t in tagged]
    assert [type(v).__name__ for v in values] == [
        "float",
        "float64",
        "float32",
        "int64",
        "bool",
        "Opaque",
        "bool",
        "int",
        "Opaque",
    ]
    # a class the notebook defined is never named (its name could carry anything): helpers.grade.inert
    assert (
        values[5].type_name == "a class from the notebook or a package"
        and values[8].type_name == "builtins.set"
    )


def test_output_is_capped(bwrap):
    source = "import os\nos.write(1, b'z' * 10_000_000)\nx = 1\n"
    res = _run(isolation.BUBBLEWRAP, source, limits=Limits(timeout=20, output_bytes=4096))
    assert len(res.output) <= 4096
    assert decode(res.questions["q"]["cases"][0]["value"]) == 1


def test_unsafe_mode_is_explicit_and_recorded(tmp_path):
    notebook = tmp_path / "perfect.ipynb"
    shutil.copyfile(CORPUS / "perfect.ipynb", notebook)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "helpers.grade",
            "--assignment",
            "from-scratch",
            "--out",
            str(tmp_path / "o"),
            "--unsafe-no-sandbox",
            str(notebook),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "WARNING: --unsafe-no-sandbox" in proc.stderr
    report = json.loads((tmp_path / "o" / "perfect.json").read_text())
    assert (report["isolation"], report["score"]) == ("unsafe-no-sandbox", 14.0)
    assert "unsafe-no-sandbox" in (tmp_path / "o" / "grades.csv").read_text()


def test_without_bubblewrap_the_grader_refuses_and_says_how_to_install(tmp_path):
    notebook = tmp_path / "perfect.ipynb"
    shutil.copyfile(CORPUS / "perfect.ipynb", notebook)
    env = {**os.environ, "PATH": str(tmp_path)}  # no bwrap on this PATH
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "helpers.grade",
            "--assignment",
            "from-scratch",
            "--out",
            str(tmp_path / "o"),
            str(notebook),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert proc.returncode == 2
    assert "apt-get install bubblewrap" in proc.stderr and "dnf install bubblewrap" in proc.stderr
    assert "--unsafe-no-sandbox" in proc.stderr
    assert not (tmp_path / "o" / "grades.csv").exists()


def test_each_run_draws_a_fresh_seed_and_records_it(tmp_path, trusted_mode):
    notebook = tmp_path / "perfect.ipynb"
    shutil.copyfile(CORPUS / "perfect.ipynb", notebook)
    a = ASSIGNMENTS["from-scratch"]
    seeds = [
        grade.grade_many([notebook], a, tmp_path / f"o{i}", mode=trusted_mode, progress=None)[0]["seed"]
        for i in range(2)
    ]
    assert seeds[0] != seeds[1]
    again = grade.grade_many([notebook], a, tmp_path / "o3", mode=trusted_mode, seed=seeds[0], progress=None)
    assert again[0]["seed"] == seeds[0] and again[0]["score"] == 14.0


# ------------------------------------------------------------------ inputs, names, outputs
def test_no_submissions_is_a_usage_error(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(SystemExit) as exc:
        grade.main(["--assignment", "from-scratch", "--out", str(tmp_path / "o"), str(tmp_path / "empty")])
    assert exc.value.code == 2


def test_limits_feed_the_command_line(capsys):
    with pytest.raises(SystemExit):
        grade.main(["--help"])
    text = capsys.readouterr().out
    for option, default in (("--timeout", "10"), ("--memory-mb", "1024"), ("--max-processes", "32")):
        assert option in text and f"(default {default})" in text.replace("\n", " ").replace("  ", " ")


def test_colliding_and_hostile_names_get_distinct_safe_reports(tmp_path, trusted_mode):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    odd = os.fsdecode(b"caf\xe9 \n=x.ipynb")
    paths = [a / "x.ipynb", b / "x.ipynb", a / "x y.ipynb", a / "x_y.ipynb", a / odd]
    for p in paths:
        shutil.copyfile(CORPUS / "perfect.ipynb", p)
    reports = grade.grade_many(
        paths, ASSIGNMENTS["from-scratch"], tmp_path / "o", mode=trusted_mode, progress=None
    )
    names = [r["submission"] for r in reports]
    assert len(set(names)) == 5 and all(n.isascii() and "/" not in n and not n.startswith(".") for n in names)
    assert names == report_names(paths)  # deterministic
    written = sorted(p.name for p in (tmp_path / "o").iterdir())
    assert written == sorted(
        [f"{n}.json" for n in names] + ["feedback", "grades.csv", "gradebook.lock", "gradebook.sqlite"]
    )
    assert [r["score"] for r in reports] == [14.0] * 5
    assert reports[4]["file"] == "caf\\xe9 \\n=x.ipynb"
    rows = list(csv.DictReader(open(tmp_path / "o" / "grades.csv", newline="", encoding="utf-8")))
    assert "caf\\xe9 \\n=x.ipynb" in [r["file"] for r in rows]


def test_special_files_are_never_opened(tmp_path, trusted_mode):
    os.mkfifo(tmp_path / "pipe.ipynb")
    (tmp_path / "link.ipynb").symlink_to(ROOT / "exercises" / "source" / "from-scratch.ipynb")
    paths = [tmp_path / "pipe.ipynb", tmp_path / "link.ipynb", Path("/dev/zero")]
    reports = grade.grade_many(
        paths, ASSIGNMENTS["from-scratch"], tmp_path / "o", mode=trusted_mode, progress=None
    )
    assert [r["score"] for r in reports] == [0.0, 0.0, 0.0]
    assert "FIFO" in reports[0]["error"] and "symbolic link" in reports[1]["error"]
    assert "character device" in reports[2]["error"]


def test_a_crash_while_grading_one_submission_is_its_zero(tmp_path, trusted_mode, monkeypatch):
    paths = []
    for name in ("a.ipynb", "boom.ipynb", "c.ipynb"):
        shutil.copyfile(CORPUS / "perfect.ipynb", tmp_path / name)
        paths.append(tmp_path / name)
    real = grade.read_notebook

    def crash(raw):
        if b"BOOM" in raw:
            raise RuntimeError("simulated crash")
        return real(raw)

    (tmp_path / "boom.ipynb").write_bytes(
        (tmp_path / "boom.ipynb").read_bytes().replace(b"{", b'{"x": "BOOM",', 1)
    )
    monkeypatch.setattr(grade, "read_notebook", crash)
    reports = grade.grade_many(
        paths, ASSIGNMENTS["from-scratch"], tmp_path / "o", mode=trusted_mode, progress=None
    )
    assert [r["score"] for r in reports] == [14.0, 0.0, 14.0]
    assert "internal grading error: RuntimeError" in reports[1]["error"]
    rows = (tmp_path / "o" / "grades.csv").read_text().splitlines()
    assert len(rows) == 4


def test_invalid_messages_from_the_sandbox_are_rejected():
    bad = [
        b"[[[[" * 100_000,
        b'{"ev": "result", "q": "q1", "status": "ok", "cases": [{"value": {"t": "float"}}]}',
        b'{"ev": "loaded", "errors": "all"}',
        b'{"ev": "done", "x": Infinity}',
        b"\xff\xfe",
        b'"done"',
        b'{"ev": "result", "q": "q1", "status": "great", "cases": []}',
    ]
    assert [validate_event(line) for line in bad] == [None] * len(bad)
    assert validate_event(b'{"ev": "warning", "text": "\\ud800"}') == {"ev": "warning", "text": "\ud800"}


def test_prepare_notebook_keeps_line_numbers_and_strips_magics():
    cells, warnings, errors, _ = grade.prepare_notebook(
        ["!ls\nx = 1\ny = (\n 2)", "%%bash\necho hi", "def f(:"]
    )
    assert [s["line"] for s in cells[0]["statements"]] == [2, 3]
    assert len(warnings) == 2 and errors[0]["cell"] == 3
