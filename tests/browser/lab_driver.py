"""Drive a real JupyterLab in headless Chromium, the way a learner uses the course.

The browser test (``tests/browser/test_jupyterlab.py``) uses this module through the fixtures
in ``tests/browser/conftest.py``. It can also be run by hand on any folder of notebooks::

    .venv/bin/python tests/browser/lab_driver.py notebooks 00-start-here.ipynb 02-cutoffs.ipynb

What one run does:

1. copy the notebooks (and tests/experiments/data, which notebooks may read) to a temporary folder: JupyterLab
   autosaves, and the test saves the executed notebook, so the server must never see the
   repository's files;
2. start ``jupyter lab`` there with private ``JUPYTER_*``/``JUPYTERLAB_*``/``IPYTHONDIR``
   folders, a random token, a free port and the settings overrides that Binder installs
   (``binder/overrides.json``: no "get Jupyter news?" toast);
3. per notebook, in a fresh browser context: open ``lab/tree/notebooks/<name>``, wait until the
   kernel really exists, clear all outputs, click *Run > Run All Cells*, wait until no cell is
   queued and the kernel is idle, take screenshots (top and end of the notebook), save the
   notebook through the UI and read the saved file back.

Only the standard library is imported at module level: Playwright is imported when a browser is
launched, so this module can be collected (doctests) on machines without it.
"""

from __future__ import annotations

import contextlib
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
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
#: The settings overrides shared with Binder (``binder/postBuild`` installs the same file).
OVERRIDES = REPO / "binder" / "overrides.json"
#: Debian's ``chromium`` package; ``COURSE_CHROMIUM`` may point somewhere else.
DEFAULT_CHROMIUM = "/usr/bin/chromium"

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
VIEWPORT = {"width": 1400, "height": 1000}
STDERR_MIME = "application/vnd.jupyter.stderr"

# The visible notebook panel (other panels may be hidden behind it).
PANEL = ".jp-NotebookPanel:not(.lm-mod-hidden)"

# A kernel that "is idle" before it exists is the probe's pitfall: the execution indicator says
# idle while the status bar still says "No Kernel | Initializing". Wait for all three signals, and
# report a dialog (e.g. "Select Kernel" for an unknown kernelspec) instead of timing out.
KERNEL_STATE_JS = """() => {
  const dialog = document.querySelector('.jp-Dialog');
  if (dialog) return 'dialog: ' + dialog.innerText.replace(/\\s+/g, ' ').slice(0, 300);
  const name = document.querySelector('%(p)s .jp-Toolbar-kernelName');
  const bar = document.querySelector('#jp-main-statusbar');
  const ind = document.querySelector('%(p)s .jp-Notebook-ExecutionIndicator');
  if (name && !/No Kernel/.test(name.textContent) && bar && /\\| Idle/.test(bar.textContent)
      && ind && ind.dataset.status === 'idle') return 'ready';
  return false;
}""".replace("%(p)s", PANEL)

PROMPTS_JS = """() => [...document.querySelectorAll('%s .jp-CodeCell .jp-InputPrompt')]
  .map(e => e.textContent.trim())""".replace("%s", PANEL)

# Finished = something ran, nothing is queued or running ("[*]:"), and the kernel is idle.
RUN_FINISHED_JS = """() => {
  const dialog = document.querySelector('.jp-Dialog');
  if (dialog) return 'dialog: ' + dialog.innerText.replace(/\\s+/g, ' ').slice(0, 300);
  const p = [...document.querySelectorAll('%(p)s .jp-CodeCell .jp-InputPrompt')].map(e => e.textContent);
  const bar = document.querySelector('#jp-main-statusbar');
  const ind = document.querySelector('%(p)s .jp-Notebook-ExecutionIndicator');
  if (p.some(t => /\\[\\d+\\]/.test(t)) && !p.some(t => t.includes('*'))
      && ind && ind.dataset.status === 'idle' && bar && /\\| Idle/.test(bar.textContent)) return 'done';
  return false;
}""".replace("%(p)s", PANEL)

# What a person sees, cell by cell: prompt, tags are not in the DOM, so keep the order and
# match it with the saved notebook's code cells.
DOM_CELLS_JS = """() => [...document.querySelectorAll('{PANEL} .jp-Notebook .jp-CodeCell')].map(c => ({
  prompt: (c.querySelector('.jp-InputPrompt') || {textContent: ''}).textContent.trim(),
  outputs: c.querySelectorAll('.jp-OutputArea-output').length,
  stderr: [...c.querySelectorAll('.jp-OutputArea-output[data-mime-type="{STDERR}"]')]
            .map(e => e.textContent.slice(0, 500)),
  images: c.querySelectorAll('.jp-OutputArea-output img').length,
  tables: c.querySelectorAll('.jp-OutputArea-output table').length,
}))""".replace("{PANEL}", PANEL).replace("{STDERR}", STDERR_MIME)


def chromium_path() -> str:
    """Return the Chromium executable the test drives (``$COURSE_CHROMIUM`` or Debian's).

    >>> chromium_path().endswith("chromium") or "COURSE_CHROMIUM" in os.environ
    True
    """
    return os.environ.get("COURSE_CHROMIUM", DEFAULT_CHROMIUM)


def missing_requirements() -> list[str]:
    """Return what is missing to run the browser test (an empty list: nothing).

    Examples
    --------
    >>> isinstance(missing_requirements(), list)
    True
    """
    missing = []
    path = chromium_path()
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        missing.append(f"Chromium at {path} (Debian: sudo apt-get install chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("the Python package playwright (pip install playwright; never `playwright install`)")
    return missing


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that was free a moment ago.

    >>> 1024 <= free_port() <= 65535
    True
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def is_numbered(prompt: str) -> bool:
    """Whether an input prompt shows an execution count, e.g. ``[3]:``.

    >>> [is_numbered(p) for p in ["[3]:", "[ ]:", "[*]:", ""]]
    [True, False, False, False]
    """
    inside = prompt.strip().removesuffix(":").strip("[]").strip()
    return inside.isdigit()


#: Folders beside notebooks/ that notebooks read by relative path (``../tests/experiments/data/u.data``,
#: ``../benchmarks/last_run_spark.txt``).
DATA_FOLDERS = ("data", "tests/experiments/data", "benchmarks")


def copy_course(notebooks_dir: Path, dest: Path) -> Path:
    """Copy ``notebooks_dir`` to ``dest/notebooks`` and return the copy.

    The data folders of :data:`DATA_FOLDERS` that exist beside ``notebooks_dir`` are copied too,
    at the same relative place, so ``../tests/experiments/data/...`` resolves as in the repository. The
    ``helpers`` package is not copied: the kernel imports the installed one.
    """
    ignore = shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__")
    target = dest / "notebooks"
    shutil.copytree(notebooks_dir, target, ignore=ignore)
    for folder in DATA_FOLDERS:
        source = notebooks_dir.parent / folder
        if source.is_dir():
            shutil.copytree(source, dest / folder, ignore=ignore)
    return target


def server_environment(home: Path) -> dict[str, str]:
    """Environment for the server: private Jupyter folders under ``home``.

    ``MPLBACKEND`` is removed: ``make test`` sets it to Agg for pytest, and the kernel would
    inherit it, so plots would not show inline (a learner never has it set).

    >>> env = server_environment(Path("/tmp/x"))
    >>> env["JUPYTER_DATA_DIR"], "MPLBACKEND" in env
    ('/tmp/x/data', False)
    """
    env = dict(os.environ)
    for name in (
        "MPLBACKEND",
        "PYTEST_ADDOPTS",
        "PYTEST_CURRENT_TEST",
        "JUPYTER_PATH",
        "JUPYTER_CONFIG_PATH",
        "JUPYTER_TOKEN",
    ):
        env.pop(name, None)
    env.update(
        JUPYTER_CONFIG_DIR=str(home / "config"),
        JUPYTER_DATA_DIR=str(home / "data"),
        JUPYTER_RUNTIME_DIR=str(home / "runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(home / "user-settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"),
        IPYTHONDIR=str(home / "ipython"),
        JUPYTER_PLATFORM_DIRS="1",
        # helpers.course records exercise outcomes; keep the learner's real record out of it.
        TOPK_COURSE_PROGRESS=str(home / "progress.json"),
        PYTHONUNBUFFERED="1",
    )
    return env


def warm_matplotlib(env: dict[str, str]) -> None:
    """Build matplotlib's font cache before the kernel needs it.

    On a cold machine the first ``import matplotlib.pyplot`` may log "Matplotlib is building the
    font cache" to stderr, which the test would (rightly) count as an error output; Binder's image
    and a learner's second session never show it.
    """
    subprocess.run(
        [sys.executable, "-c", "import matplotlib.pyplot"],
        env=env,
        check=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        timeout=300,
    )


@dataclass
class LabServer:
    """A running ``jupyter lab`` on a throw-away copy of the course."""

    root: Path
    port: int
    token: str
    process: subprocess.Popen
    log_path: Path

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, notebook: str) -> str:
        # ?reset: start from an empty workspace, so tabs of earlier notebooks are not restored.
        return f"{self.base_url}/lab/tree/notebooks/{notebook}?reset&token={self.token}"

    def log_tail(self, n_chars: int = 3000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-n_chars:]
        except OSError:
            return "(no server log)"

    def _api(self, method: str, path: str):
        req = urllib.request.Request(
            f"{self.base_url}{path}", method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def shutdown_sessions(self) -> None:
        """Shut down every kernel session (the server keeps them after the browser leaves)."""
        for session in self._api("GET", "/api/sessions"):
            self._api("DELETE", f"/api/sessions/{session['id']}")

    def stop(self) -> None:
        """Stop the server (it shuts its kernels down), then its process group if still alive."""
        proc = self.process
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)  # jupyter_server: SIGINT twice = stop without asking
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=1)
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.terminate()
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=5)
        # Kernels live in the server's own session (start_new_session); end any that survived.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)


def start_lab(root: Path, home: Path, timeout: float = 90.0) -> LabServer:
    """Start JupyterLab on ``root`` and wait until ``/api/status`` answers."""
    env = server_environment(home)
    for name in (
        "JUPYTER_CONFIG_DIR",
        "JUPYTER_DATA_DIR",
        "JUPYTER_RUNTIME_DIR",
        "JUPYTERLAB_SETTINGS_DIR",
        "JUPYTERLAB_WORKSPACES_DIR",
        "IPYTHONDIR",
    ):
        Path(env[name]).mkdir(parents=True, exist_ok=True)
    app_settings = home / "app-settings"
    app_settings.mkdir(parents=True, exist_ok=True)
    shutil.copy(OVERRIDES, app_settings / "overrides.json")
    warm_matplotlib(env)
    token = secrets.token_hex(16)
    log_path = home / "jupyterlab.log"
    last_error = ""
    for _attempt in range(3):  # a port picked by free_port() can be taken before the server binds it
        port = free_port()
        cmd = [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            "--allow-root",
            f"--ServerApp.token={token}",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0",
            f"--ServerApp.root_dir={root}",
            f"--LabApp.app_settings_dir={app_settings}",
        ]
        log = open(log_path, "ab")
        try:
            proc = subprocess.Popen(
                cmd,
                env=env,
                cwd=root,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        finally:
            log.close()
        server = LabServer(root=root, port=port, token=token, process=proc, log_path=log_path)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                last_error = f"jupyter lab exited with code {proc.returncode}:\n{server.log_tail()}"
                break
            try:
                req = urllib.request.Request(
                    f"{server.base_url}/api/status", headers={"Authorization": f"token {token}"}
                )
                with urllib.request.urlopen(req, timeout=2) as resp:
                    if resp.status == 200:
                        json.load(resp)
                        return server
            except (urllib.error.URLError, ConnectionError, TimeoutError, json.JSONDecodeError):
                pass
            time.sleep(0.2)
        else:
            server.stop()
            raise RuntimeError(f"jupyter lab did not answer within {timeout:.0f} s:\n{server.log_tail()}")
        server.stop()
    raise RuntimeError(last_error)


@dataclass(frozen=True)
class Answer:
    """A learner's answer typed into an exercise cell, and what its check must print.

    ``marker`` is a piece of the exercise cell's source that no other code cell holds;
    ``code`` replaces the whole cell; ``expect`` must appear in the cell's output.
    """

    marker: str
    code: str
    expect: str


# The index of the code cell whose editor text contains a marker (-1 if none).
FIND_CELL_JS = """(marker) => [...document.querySelectorAll('{PANEL} .jp-Notebook .jp-CodeCell')]
  .findIndex(c => (c.querySelector('.jp-InputArea-editor') || {textContent: ''}).textContent.includes(marker))
""".replace("{PANEL}", PANEL)


@dataclass
class NotebookRun:
    """What one notebook looked like after *Run All Cells* in the browser."""

    name: str
    seconds: float = 0.0
    prompts: list[str] = field(default_factory=list)
    dom_cells: list[dict] = field(default_factory=list)
    saved: dict | None = None
    dialogs: list[str] = field(default_factory=list)
    toasts: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    screenshots: list[Path] = field(default_factory=list)
    status_bar: str = ""
    kernel_name: str = ""
    phases: dict[str, float] = field(default_factory=dict)
    #: For each typed answer: (the answer, what the exercise cell printed after it ran).
    answers: list[tuple[Answer, str]] = field(default_factory=list)


def launch_browser(playwright):
    """Launch the system Chromium (never a Playwright-downloaded one)."""
    return playwright.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)


def _click_menu(page, menu: str, item: str) -> None:
    page.click(f".lm-MenuBar-itemLabel:text-is('{menu}')")
    page.click(f".lm-Menu-itemLabel:text-is('{item}')")


def _wait_for(page, script: str, what: str, timeout_s: float) -> str:
    handle = page.wait_for_function(script, timeout=timeout_s * 1000, polling=200)
    state = handle.json_value()
    if isinstance(state, str) and state.startswith("dialog:"):
        raise AssertionError(f"a dialog appeared while waiting for {what}: {state[8:]}")
    return state


def _scroll_notebook(page, where: str) -> bool:
    """Scroll to the notebook's top, its end, or its first rendered figure; False if there is none."""
    found = page.evaluate(
        """(where) => {
             const cells = [...document.querySelectorAll('%s .jp-Notebook .jp-Cell')];
             const target = where === 'figure'
               ? cells.find(c => c.querySelector('.jp-OutputArea-output img'))
               : cells[where === 'end' ? cells.length - 1 : 0];
             if (!target) return false;
             target.scrollIntoView({block: where === 'end' ? 'end' : 'start'});
             return true; }""".replace("%s", PANEL),
        where,
    )
    page.wait_for_timeout(300)
    return found


def run_notebook(
    browser,
    server: LabServer,
    name: str,
    screenshot_dir: Path,
    timeout_s: float = 600.0,
    answers: tuple[Answer, ...] = (),
) -> NotebookRun:
    """Open ``notebooks/<name>`` in a fresh context, run every cell through the UI, and report.

    After the run is saved, each of ``answers`` is typed into its exercise cell and run
    (Shift+Enter), and the cell's output is kept in ``run.answers``. ``timeout_s`` bounds *Run All
    Cells*: the test checks that a notebook runs, not how fast (nbval's per-cell limit does that), and
    notebooks 10 and 12 needed over 120 s under load 10 on 2 cores.
    """
    run = NotebookRun(name=name)
    start = time.monotonic()
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        page.on("pageerror", lambda exc: run.page_errors.append(str(exc)))
        page.on("console", lambda msg: run.console_errors.append(msg.text) if msg.type == "error" else None)

        def on_dialog(dialog):
            run.dialogs.append(f"{dialog.type}: {dialog.message}")
            dialog.dismiss()

        page.on("dialog", on_dialog)
        _drive(page, server, name, screenshot_dir, timeout_s, run, answers)
    except Exception as exc:
        # Keep what the learner would have seen, and say where the run got stuck.
        with contextlib.suppress(Exception):
            path = screenshot_dir / f"{Path(name).stem}-failure.png"
            screenshot_dir.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(path))
            run.screenshots.append(path)
        with contextlib.suppress(Exception):
            run.prompts = page.evaluate(PROMPTS_JS)
            run.status_bar = page.inner_text("#jp-main-statusbar").replace("\n", " ")
        raise AssertionError(
            f"{name}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}\n"
            f"  prompts: {run.prompts}\n  status bar: {run.status_bar!r}\n"
            f"  dialogs: {run.dialogs}\n  page errors: {run.page_errors}\n"
            f"  screenshots: {[str(p) for p in run.screenshots]}\n"
            f"  server log (tail):\n{server.log_tail(1500)}"
        ) from exc
    finally:
        context.close()
        run.seconds = time.monotonic() - start
    return run


def type_answer(page, answer: Answer, timeout_s: float = 60.0) -> str:
    """Replace an exercise cell's code with ``answer.code`` as a learner would, run it,
    return its output text."""
    index = page.evaluate(FIND_CELL_JS, answer.marker)
    if index < 0:
        raise AssertionError(f"no code cell contains {answer.marker!r}")
    cell = page.locator(f"{PANEL} .jp-Notebook .jp-CodeCell").nth(index)
    cell.scroll_into_view_if_needed()
    before = cell.locator(".jp-InputPrompt").inner_text().strip()
    cell.locator(".cm-content").click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(answer.code)  # as pasted: no auto-indent, no closing brackets added
    page.keyboard.press("Shift+Enter")
    page.wait_for_function(
        (
            """([i, before]) => {
             const c = document.querySelectorAll('{PANEL} .jp-Notebook .jp-CodeCell')[i];
             const p = c.querySelector('.jp-InputPrompt').textContent.trim();
             return /\\[\\d+\\]/.test(p) && p !== before && c.querySelector('.jp-OutputArea-output'); }"""
        ).replace("{PANEL}", PANEL),
        arg=[index, before],
        timeout=timeout_s * 1000,
        polling=100,
    )
    return cell.locator(".jp-OutputArea").inner_text()


def _drive(
    page,
    server: LabServer,
    name: str,
    screenshot_dir: Path,
    timeout_s: float,
    run: NotebookRun,
    answers: tuple[Answer, ...] = (),
) -> None:
    """The learner's steps: open, wait for the kernel, clear, Run All, look, save, then try the exercises."""
    t0 = time.monotonic()
    page.goto(server.url(name), wait_until="domcontentloaded")
    page.wait_for_selector(f"{PANEL} .jp-Notebook .jp-Cell", timeout=60_000)
    run.phases["open"] = time.monotonic() - t0
    _wait_for(page, KERNEL_STATE_JS, "the kernel to start", 60)
    run.phases["kernel"] = time.monotonic() - t0 - run.phases["open"]
    run.kernel_name = page.inner_text(f"{PANEL} .jp-Toolbar-kernelName").strip()

    # Start from a clean slate, so the stored execution counts of the committed (executed)
    # notebook cannot be mistaken for this run's.
    _click_menu(page, "Edit", "Clear Outputs of All Cells")
    page.wait_for_function(
        (
            """() => { const p = (PROMPTS)(); return p.length > 0 && p.every(t => !/\\d|\\*/.test(t)); }"""
        ).replace("PROMPTS", PROMPTS_JS),
        timeout=10_000,
        polling=100,
    )

    t1 = time.monotonic()
    _click_menu(page, "Run", "Run All Cells")
    _wait_for(page, RUN_FINISHED_JS, "Run All Cells to finish", timeout_s)
    # Idle can flicker between two queued cells; confirm once more after a short pause.
    page.wait_for_timeout(500)
    _wait_for(page, RUN_FINISHED_JS, "Run All Cells to finish", timeout_s)

    run.phases["run_all"] = time.monotonic() - t1
    run.prompts = page.evaluate(PROMPTS_JS)
    run.dom_cells = page.evaluate(DOM_CELLS_JS)
    run.status_bar = page.inner_text("#jp-main-statusbar").replace("\n", " ")
    if page.locator(".jp-Dialog").count():
        run.dialogs.append("JupyterLab dialog: " + page.inner_text(".jp-Dialog")[:300])
    # Toast notifications (kernel died, news prompt, ...). binder/overrides.json turns the
    # news prompt off; anything else showing up here is a problem a learner would see.
    run.toasts = [t.replace("\n", " ") for t in page.locator(".Toastify__toast").all_inner_texts()]

    t2 = time.monotonic()
    stem = Path(name).stem
    screenshot_dir.mkdir(parents=True, exist_ok=True)
    for where in ("top", "figure", "end"):
        if _scroll_notebook(page, where):
            path = screenshot_dir / f"{stem}-{where}.png"
            page.screenshot(path=str(path))
            run.screenshots.append(path)

    # Save through the UI, as a person would, and read what JupyterLab wrote (in the copy).
    _click_menu(page, "File", "Save Notebook")
    page.wait_for_function(
        "() => { const t = document.querySelector('#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current');"
        " return t && !t.classList.contains('jp-mod-dirty'); }",
        timeout=15_000,
        polling=100,
    )
    run.saved = json.loads((server.root / "notebooks" / name).read_text(encoding="utf-8"))
    run.phases["screenshots_and_save"] = time.monotonic() - t2
    if answers:
        t3 = time.monotonic()
        run.answers = [(answer, type_answer(page, answer)) for answer in answers]
        run.phases["answers"] = time.monotonic() - t3
    server.shutdown_sessions()


def _page_problems(run: NotebookRun) -> list[str]:
    """The dialogs, notifications and page errors the run met."""
    found = [f"dialog: {d}" for d in run.dialogs]
    found += [f"notification: {t}" for t in run.toasts]
    return found + [f"page error: {e}" for e in run.page_errors]


def _code_cells(notebook: dict) -> list[dict]:
    """The notebook's code cells, in order."""
    return [c for c in notebook.get("cells", []) if c["cell_type"] == "code"]


def problems(run: NotebookRun, committed: dict) -> list[str]:
    """Everything a learner would see as broken, compared with the committed notebook.

    Rules: every code cell ran (numbered prompt), no error or stderr output unless the cell is
    tagged ``raises-exception`` *and* the committed notebook shows the same exception there, no
    dialog, no page error, and every cell that shows an image or a table in the committed notebook
    shows one in the browser too.

    >>> run = NotebookRun("x", prompts=["[1]:"], dom_cells=[dict(prompt="[1]:", outputs=1,
    ...     stderr=[], images=0, tables=0)], saved={"cells": [{"cell_type": "code",
    ...     "metadata": {}, "outputs": [{"output_type": "stream", "name": "stdout", "text": "1"}]}]})
    >>> problems(run, run.saved)
    []
    >>> run.dom_cells[0]["stderr"] = ["Traceback ... ZeroDivisionError"]
    >>> problems(run, run.saved)
    ['code cell 1: error/stderr output in the browser: Traceback ... ZeroDivisionError']
    """
    found = _page_problems(run)
    saved_code = _code_cells(run.saved or {})
    committed_code = _code_cells(committed)
    if len(run.dom_cells) != len(committed_code):
        found.append(
            f"the browser shows {len(run.dom_cells)} code cells, the notebook has {len(committed_code)}"
        )
    for i, (dom, ref) in enumerate(zip(run.dom_cells, committed_code, strict=False), start=1):
        found += _cell_problems(i, dom, ref)
    for i, cell in enumerate(saved_code, start=1):
        found += _saved_problems(i, cell)
    if not any(dom["outputs"] for dom in run.dom_cells):
        found.append("no output at all was rendered")
    return found


def _cell_problems(i: int, dom: dict, ref: dict) -> list[str]:
    """What is wrong with code cell ``i`` as the browser shows it, against the committed cell ``ref``."""
    found = []
    tags = ref.get("metadata", {}).get("tags", [])
    expected_errors = [o.get("ename") for o in ref.get("outputs", []) if o["output_type"] == "error"]
    if not is_numbered(dom["prompt"]):
        found.append(f"code cell {i} did not run (prompt {dom['prompt']!r}); an earlier error stops Run All")
    found += _error_problems(i, dom, tags, expected_errors)
    return found + _rendered_problems(i, dom, ref)


def _error_problems(i: int, dom: dict, tags: list, expected_errors: list) -> list[str]:
    """Error or stderr output the browser shows in code cell ``i``, or an expected error it does not."""
    if dom["stderr"]:
        shown_on_purpose = (
            "raises-exception" in tags
            and expected_errors
            and len(dom["stderr"]) == 1
            and expected_errors[0]
            and expected_errors[0] in dom["stderr"][0]
        )
        if not shown_on_purpose:  # the lesson may show one exception on purpose, if it is the same one
            return [f"code cell {i}: error/stderr output in the browser: {' | '.join(dom['stderr'])}"]
    elif expected_errors:
        return [f"code cell {i}: the committed notebook shows {expected_errors[0]}, the browser run did not"]
    return []


def _rendered_problems(i: int, dom: dict, ref: dict) -> list[str]:
    """Images and tables the committed cell ``ref`` shows that the browser did not render."""
    found = []
    ref_images = sum(1 for o in ref.get("outputs", []) if "image/png" in o.get("data", {}))
    if dom["images"] < ref_images:
        found.append(f"code cell {i}: {ref_images} image(s) expected, {dom['images']} rendered")
    ref_tables = sum(
        1 for o in ref.get("outputs", []) if "<table" in "".join(o.get("data", {}).get("text/html", ""))
    )
    if dom["tables"] < ref_tables:
        found.append(f"code cell {i}: {ref_tables} table(s) expected, {dom['tables']} rendered")
    return found


def _saved_problems(i: int, cell: dict) -> list[str]:
    """Errors and stderr that the saved notebook's code cell ``i`` holds."""
    found = []
    tags = cell.get("metadata", {}).get("tags", [])
    for out in cell.get("outputs", []):
        if out["output_type"] == "stream" and out.get("name") == "stderr":
            found.append(f"code cell {i}: saved notebook has stderr: {''.join(out['text'])[:300]!r}")
        if out["output_type"] == "error" and "raises-exception" not in tags:
            found.append(f"code cell {i}: saved notebook has {out.get('ename')}: {out.get('evalue')}")
    return found


@contextlib.contextmanager
def lab_session(notebooks_dir: Path):
    """Yield a running :class:`LabServer` on a temporary copy of ``notebooks_dir``."""
    with tempfile.TemporaryDirectory(prefix="course-lab-") as tmp:
        tmp_path = Path(tmp)
        root = tmp_path / "course"
        root.mkdir()
        copy_course(notebooks_dir, root)
        server = start_lab(root, tmp_path / "jupyter-home")
        try:
            yield server
        finally:
            server.stop()


def main(argv: list[str]) -> int:
    """``python tests/browser/lab_driver.py NOTEBOOK_DIR NAME.ipynb ...``: run and report."""
    if len(argv) < 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    missing = missing_requirements()
    if missing:
        print("cannot run: missing " + "; ".join(missing), file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    notebooks_dir = Path(argv[1]).resolve()
    shots = REPO / "screenshots" / "browser"
    status = 0
    t0 = time.monotonic()
    with lab_session(notebooks_dir) as server, sync_playwright() as p:
        browser = launch_browser(p)
        try:
            for name in argv[2:]:
                committed = json.loads((notebooks_dir / name).read_text(encoding="utf-8"))
                try:
                    run = run_notebook(browser, server, name, shots)
                    found = problems(run, committed)
                except Exception as exc:  # report and continue with the next notebook
                    found, run = [f"{type(exc).__name__}: {exc}"], NotebookRun(name)
                status |= bool(found)
                print(f"{'FAIL' if found else 'ok  '} {name} ({run.seconds:.1f} s) {run.status_bar!r}")
                for item in found:
                    print(f"     - {item}")
                for err in run.console_errors:
                    print(f"     (console error: {err[:200]})")
        finally:
            browser.close()
    print(f"total {time.monotonic() - t0:.1f} s; screenshots in {shots}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
