"""`make lab` opens the course, as root and as a normal user, the way the README says.

Each test starts JupyterLab in the background on a free port with a fake browser (a recorder
that writes down the URL JupyterLab asks it to open), waits until the server answers on
127.0.0.1, then checks what a newcomer needs: the repository root is served, so
``notebooks/`` and the assignments in ``exercises/`` are both in reach; notebook 00 is the page
opened; Binder's settings apply (the news prompt is off); the answer key ``exercises/source/`` is
neither listed nor served (``/api/contents``, ``/files``). Then it stops the server.

The command is ``make lab LAB_ARGS="..."`` when ``.venv`` is installed and up to date (after
``make test`` or ``make lab``), so the Makefile target itself runs; otherwise it is the launcher
the target runs, ``tools/lab.py``, with this interpreter (nothing gets installed by a test).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("jupyterlab", reason="JupyterLab is in the `course` extra (make lab installs it)")

REPO = Path(__file__).resolve().parents[1]
NOTEBOOK = "notebooks/00-start-here.ipynb"
ANSWER_TIMEOUT = 120.0
pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _make_is_ready() -> bool:
    """Whether `make lab` would start JupyterLab at once (no venv to create, nothing to install)."""
    stamp = REPO / ".venv" / ".course-stamp"
    return (
        shutil.which("make") is not None
        and stamp.is_file()
        and stamp.stat().st_mtime >= (REPO / "pyproject.toml").stat().st_mtime
    )


def _lab_command(home: Path, port: int, token: str) -> list[str]:
    """`make lab` with LAB_ARGS, or the launcher it runs; the browser is a URL recorder."""
    recorder = home / "browser.py"
    recorder.write_text(
        "import pathlib, sys\npathlib.Path(__file__).with_name('opened.txt').write_text(sys.argv[1])\n",
        encoding="utf-8",
    )
    args = [
        f"--port={port}",
        "--ServerApp.port_retries=0",
        "--ServerApp.ip=127.0.0.1",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.browser={sys.executable} {recorder} %s",
    ]
    if _make_is_ready():
        quoted = " ".join(f"'{a}'" for a in args)
        return ["make", "--no-print-directory", "-C", str(REPO), "lab", f"LAB_ARGS={quoted}"]
    return [sys.executable, str(REPO / "tools" / "lab.py"), *args]


class _Lab:
    """One JupyterLab started like `make lab`, in its own process group."""

    def __init__(self, home: Path, prefix: list[str] | None = None):
        self.home, self.port, self.token = home, _free_port(), secrets.token_hex(16)
        self.command = [*(prefix or []), *_lab_command(home, self.port, self.token)]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "IPYTHON"))}
        env.update(HOME=str(home), PYTHONPATH=str(REPO), MPLCONFIGDIR=str(home / "mpl"))
        self.log_path = home / "lab.log"
        self.started = time.monotonic()
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                self.command,
                cwd=REPO,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")[-3000:]

    def get(self, path: str) -> dict:
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}", headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)

    def wait_for_answer(self) -> float:
        """Seconds from start until /api/status answers; fail with the log if it never does."""
        deadline = self.started + ANSWER_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(
                    f"{' '.join(self.command)} exited with code {self.process.returncode}:\n{self.log()}"
                )
            try:
                self.get("/api/status")
                return time.monotonic() - self.started
            except (urllib.error.URLError, ConnectionError, TimeoutError, json.JSONDecodeError):
                time.sleep(0.25)
        pytest.fail(f"JupyterLab did not answer within {ANSWER_TIMEOUT:.0f} s:\n{self.log()}")

    def opened_url(self, timeout: float = 20.0) -> str:
        """What JupyterLab asked the (fake) browser to open, following its redirect file."""
        record = self.home / "opened.txt"
        deadline = time.monotonic() + timeout
        while not record.is_file() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert record.is_file(), f"JupyterLab never asked a browser to open anything:\n{self.log()}"
        url = record.read_text(encoding="utf-8")
        if url.startswith("file://"):  # jupyter_server opens a small redirect page
            url = Path(urllib.request.url2pathname(url.removeprefix("file://"))).read_text(encoding="utf-8")
        return url

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=5)


def _check_course(lab: _Lab) -> float:
    seconds = lab.wait_for_answer()
    root = {entry["name"] for entry in lab.get("/api/contents")["content"]}
    assert {"notebooks", "exercises"} <= root, f"the served folder is not the repository root: {sorted(root)}"
    exercises = {entry["name"] for entry in lab.get("/api/contents/exercises")["content"]}
    assert any(name.endswith(".ipynb") for name in exercises), (
        f"no assignment in exercises/: {sorted(exercises)}"
    )
    assert lab.get(f"/api/contents/{NOTEBOOK}?content=0")["type"] == "notebook"
    notification = lab.get("/lab/api/settings/@jupyterlab/apputils-extension:notification")
    assert notification["schema"]["properties"]["fetchNews"]["default"] == "false", (
        "binder/overrides.json (no 'get Jupyter news?' prompt) is not applied"
    )
    assert f"lab/tree/{NOTEBOOK}" in lab.opened_url(), "make lab must open notebook 00 first"
    _check_answer_key_is_not_served(lab, exercises)
    return seconds


def _status(lab: _Lab, path: str) -> int:
    try:
        lab.get(path)
    except urllib.error.HTTPError as exc:
        return exc.code
    return 200


def _check_answer_key_is_not_served(lab: _Lab, exercises: set[str]) -> None:
    """exercises/source/ (solutions): not in the file browser's listing, 404 however it is asked for."""
    assert "source" not in exercises, f"the answer key is listed in exercises/: {sorted(exercises)}"
    assert (REPO / "exercises" / "source" / "from-scratch.ipynb").is_file()  # it exists: hidden, not absent
    for path in (
        "/api/contents/exercises/source",
        "/api/contents/exercises/source/from-scratch.ipynb",
        "/api/contents/exercises/source/from-scratch.ipynb?content=1&type=notebook",
        "/api/contents/exercises/./source/from-scratch.ipynb",
        "/api/contents/exercises//source/leave-one-out.ipynb",
        "/api/contents/notebooks/../exercises/source/from-scratch.ipynb",
        "/files/exercises/source/from-scratch.ipynb",
        "/api/contents/tests/grade/grading_corpus/perfect.ipynb",  # a full-marks notebook
        "/api/contents/tests/grade/test_similarity.py",  # correct leave-one-out functions
        "/files/tests/grade/grading_corpus/perfect.ipynb",
    ):
        assert _status(lab, path) in (400, 403, 404), f"{path} is served to learners"
    assert _status(lab, "/api/contents/exercises/from-scratch.ipynb?content=0") == 200  # learners' copy is


def test_make_lab_opens_the_course_as_the_current_user(tmp_path):
    """As root (containers, VMs: needs --allow-root) or as a normal user, whoever runs the tests."""
    lab = _Lab(tmp_path)
    try:
        seconds = _check_course(lab)
    finally:
        lab.stop()
    who = "root" if os.geteuid() == 0 else "a normal user"
    print(f"make lab answered as {who} in {seconds:.1f} s ({' '.join(lab.command[:3])} ...)")


def test_make_lab_opens_the_course_as_a_normal_user():
    """Run as root, the same start as the unprivileged user `nobody` (no --allow-root then)."""
    if os.geteuid() != 0:
        pytest.skip(
            "NORMAL-USER LAB TEST SKIPPED: the tests already run as a normal user (the test above covers it)"
        )
    runuser = shutil.which("runuser")
    if runuser is None:
        pytest.skip("NORMAL-USER LAB TEST SKIPPED: runuser (util-linux) is not installed")
    try:
        import pwd

        nobody = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("NORMAL-USER LAB TEST SKIPPED: there is no user `nobody`, and tests create no users")
    probe = subprocess.run(
        [runuser, "-u", "nobody", "--", sys.executable, "-c", "import jupyterlab, helpers"],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        pytest.skip(
            "NORMAL-USER LAB TEST SKIPPED: user `nobody` cannot read this checkout or its Python "
            f"({probe.stderr.strip().splitlines()[-1:]}); make them world-readable to run it"
        )
    home = Path(tempfile.mkdtemp(prefix="lab-nobody-"))
    try:
        os.chown(home, nobody.pw_uid, nobody.pw_gid)
        lab = _Lab(home, prefix=[runuser, "-u", "nobody", "--", "env", f"HOME={home}"])
        try:
            seconds = _check_course(lab)
        finally:
            lab.stop()
    finally:
        shutil.rmtree(home, ignore_errors=True)
    print(f"make lab answered as user nobody in {seconds:.1f} s")
