"""The Gradescope package (issue 31 item 5): one command writes autograder.zip; unpacked in a fresh root laid
out as Gradescope's /autograder (source/, submission/, results/; ``AUTOGRADER_ROOT`` points run_autograder
at it), it grades a solution and a blank notebook in the real sandbox; when the sandbox cannot start,
results.json still exists with 0 and the reason for the instructor.

setup.sh needs root, apt and the network (Gradescope runs it once): here it is checked for syntax and
content, and what it leaves behind (``source/.venv/bin/python``, a Python >= 3.11 that imports the
package's OWN ``helpers`` and ``topkeval``) is made by the test with this interpreter.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from helpers.grade import authoring
from helpers.grade import grader as grade
from helpers.grade import gradescope_package as GP

ROOT = Path(__file__).resolve().parents[2]


def _unpack(package: Path, root: Path) -> Path:
    """Gradescope's layout: the zip in source/, run_autograder copied to the root, a venv made by setup."""
    source = root / "source"
    with zipfile.ZipFile(package) as zf:
        zf.extractall(source)
        for info in zf.infolist():
            os.chmod(source / info.filename, (info.external_attr >> 16) & 0o777)
    shutil.copy2(source / "run_autograder", root / "run_autograder")
    (root / "submission").mkdir()
    (root / "results").mkdir()
    python = source / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    path = f"{source}:{source / 'topkeval' / 'src'}"
    python.write_text(f'#!/bin/sh\nPYTHONPATH="{path}" exec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    return root


def _run(root: Path, notebook: Path | None, path_env: str | None = None) -> dict:
    for old in (root / "submission").iterdir():
        old.unlink()
    if notebook is not None:
        shutil.copyfile(notebook, root / "submission" / notebook.name)
    env = {"AUTOGRADER_ROOT": str(root), "PATH": path_env or os.environ["PATH"], "HOME": str(root)}
    done = subprocess.run(
        [str(root / "run_autograder")], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads((root / "results" / "results.json").read_text())


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    out = tmp_path_factory.mktemp("pkg") / "autograder.zip"
    assert grade.main(["gradescope-package", "--assignment", "from-scratch", "--out", str(out)]) == 0
    return out


def _assert_a_portable_script(script: str) -> None:
    """Valid bash that names no path of this machine."""
    assert subprocess.run(["bash", "-n"], input=script, text=True).returncode == 0
    assert str(ROOT) not in script and "/work" not in script and sys.executable not in script


def test_the_package_holds_setup_run_autograder_and_the_course_only(package):
    with zipfile.ZipFile(package) as zf:
        names = set(zf.namelist())
        setup, run = zf.read("setup.sh").decode(), zf.read("run_autograder").decode()
        modes = {i.filename: i.external_attr >> 16 for i in zf.infolist()}
    assert {"setup.sh", "run_autograder", "pyproject.toml", "helpers/grade/grader.py"} <= names
    assert "topkeval/src/topkeval/__init__.py" in names and "topkeval/pyproject.toml" in names
    assert not any(n.startswith(("tests/", "exercises/", "notebooks/")) or "__pycache__" in n for n in names)
    assert modes["setup.sh"] & stat.S_IXUSR and modes["run_autograder"] & stat.S_IXUSR
    for script in (setup, run):
        _assert_a_portable_script(script)
    assert "apt-get install -y -q bubblewrap" in setup and "sys.version_info < (3, 11)" in setup
    assert "pip install --quiet ./topkeval ." in setup  # the zip's own copies
    assert "${AUTOGRADER_ROOT:-/autograder}" in run and '"$SRC/.venv/bin/python"' in run.replace("PY=", "")
    assert "python3 " not in run and "exec python" not in run


def test_unknown_assignment_is_a_usage_error(tmp_path):
    with pytest.raises(SystemExit):
        grade.main(["gradescope-package", "--assignment", "nope", "--out", str(tmp_path / "a.zip")])
    assert not (tmp_path / "a.zip").exists()


def test_a_solution_and_a_blank_graded_in_a_simulated_autograder(package, tmp_path, bwrap):
    root = _unpack(package, tmp_path / "autograder")
    probe = subprocess.run(
        [
            str(root / "source/.venv/bin/python"),
            "-c",
            "import helpers, topkeval; print(helpers.__file__, topkeval.__file__)",
        ],
        capture_output=True,
        text=True,
        cwd=root,
    )
    assert probe.stdout.count(str(root / "source")) == 2, probe  # the package's own copies
    solution = _run(root, ROOT / "exercises" / "source" / "from-scratch.ipynb")
    assert solution["score"] == 14.0 and len(solution["tests"]) == 7
    assert all(t["status"] == "passed" for t in solution["tests"])
    blank = _run(root, ROOT / "exercises" / "from-scratch.ipynb")
    assert blank["score"] == 0.0 and blank["extra_data"]["status"] == "graded"
    nothing = _run(root, None)
    assert nothing["score"] == 0.0 and "no .ipynb" in nothing["output"]


def test_an_authored_spec_travels_in_the_package(tmp_path, bwrap):
    from tests.grade.test_authoring import source_notebook

    source = tmp_path / "src.ipynb"
    source.write_text(json.dumps(source_notebook()))
    _, spec, _ = authoring.author(source, tmp_path / "build")
    package = GP.build(str(spec), tmp_path / "autograder.zip")
    with zipfile.ZipFile(package) as zf:
        assert "spec/rank-basics.grader.py" in zf.namelist()
        assert str(tmp_path) not in zf.read("run_autograder").decode()
    root = _unpack(package, tmp_path / "autograder")
    spec.unlink()  # the package must not need the instructor's copy
    assert _run(root, source)["score"] == 4.0
    assert _run(root, tmp_path / "build" / "rank-basics.ipynb")["score"] == 0.0


def test_without_a_sandbox_results_json_says_why_with_zero(package, tmp_path):
    root = _unpack(package, tmp_path / "autograder")
    bin_dir = tmp_path / "bin"  # a PATH with the shell's tools and no bwrap
    bin_dir.mkdir()
    for tool in ("bash", "sh", "cat", "mkdir", "rm", "env"):
        (bin_dir / tool).symlink_to(shutil.which(tool))
    result = _run(root, ROOT / "exercises" / "source" / "from-scratch.ipynb", path_env=str(bin_dir))
    assert result["score"] == 0.0 and "not a grade" in result["output"]
    hidden = [t for t in result["tests"] if t["visibility"] == "hidden"]
    assert hidden and "bwrap" in hidden[0]["output"].lower() + result["extra_data"]["reason"].lower()
    (root / "source" / ".venv" / "bin" / "python").unlink()  # setup.sh never finished
    broken = _run(root, ROOT / "exercises" / "source" / "from-scratch.ipynb")
    assert broken["score"] == 0.0 and "setup.sh" in broken["extra_data"]["reason"]
