"""``python tools/lab.py [jupyter lab options]``: open the course in JupyterLab, as Binder does.

``make lab`` runs this with the project's ``.venv`` Python; with conda, run it inside the
activated environment. It starts ``jupyter lab`` with:

* the repository root as the served folder, so ``notebooks/`` and ``exercises/`` are both in
  the file browser, and ``notebooks/00-start-here.ipynb`` opened first (Binder's ``urlpath``);
* the course's server settings (``tools/jupyter_server_config.py``, loaded with ``--config``; Binder's
  postBuild installs the same file): the
  answer key ``exercises/source/`` and ``tests/`` (full-marks notebooks of the grading corpus) are
  neither listed in the file browser nor served by ``/api/contents``;
* Binder's JupyterLab settings (``binder/overrides.json``, e.g. no "get Jupyter news?"
  prompt), read in place through ``--LabApp.app_settings_dir``: nothing is written into
  ``.venv`` or your home directory;
* ``--allow-root`` only when it runs as root (Docker containers, devcontainers, cloud VMs),
  where JupyterLab otherwise refuses to start.

Every other argument goes to ``jupyter lab`` unchanged, e.g. ``--no-browser --port=8890``
(``make lab LAB_ARGS="--no-browser --port=8890"``), or ``--ip=0.0.0.0`` inside a container.
The process becomes ``jupyter lab`` itself (``os.execv``): Ctrl-C stops it as usual.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIRST_NOTEBOOK = Path("notebooks") / "00-start-here.ipynb"
SETTINGS = REPO / "binder"  # overrides.json: the same file binder/postBuild installs on Binder
SERVER_CONFIG = REPO / "tools" / "jupyter_server_config.py"  # exercises/source/ and tests/ are not served


def command(extra: list[str], python: str = sys.executable, is_root: bool | None = None) -> list[str]:
    """Return the ``jupyter lab`` command line that opens the course.

    Parameters
    ----------
    extra : list of str
        Further ``jupyter lab`` options, placed last so that they win.
    python : str
        The interpreter whose JupyterLab runs (default: this one).
    is_root : bool, optional
        Whether to add ``--allow-root``; default: whether the effective user id is 0.

    Returns
    -------
    list of str
        The argv for :func:`os.execv`.
    """
    if is_root is None:
        is_root = hasattr(os, "geteuid") and os.geteuid() == 0
    argv = [
        python,
        "-m",
        "jupyterlab",
        f"--ServerApp.root_dir={REPO}",
        f"--LabApp.app_settings_dir={SETTINGS}",
        f"--config={SERVER_CONFIG}",
    ]
    if is_root:
        argv.append("--allow-root")
    return [*argv, *extra, str(REPO / FIRST_NOTEBOOK)]


def main(argv: list[str]) -> int:
    if any(arg in ("-h", "--help") for arg in argv[1:]):
        print(__doc__.strip())
        return 0
    for needed in (REPO / FIRST_NOTEBOOK, SETTINGS / "overrides.json", SERVER_CONFIG):
        if not needed.is_file():
            print(
                f"error: {needed} is missing; run this from a complete clone of the course.", file=sys.stderr
            )
            return 2
    if importlib.util.find_spec("jupyterlab") is None:
        print(
            f"error: JupyterLab is not installed for {sys.executable}. Run `make lab` (it installs the "
            '`course` extra into .venv), or `pip install -e ".[course]"` in your environment.',
            file=sys.stderr,
        )
        return 2
    cmd = command(argv[1:])
    sys.stdout.flush()
    os.execv(cmd[0], cmd)
    return 0  # not reached


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
