"""The wheels are products too: built from the repository, installed into fresh venvs, used from elsewhere.

Two distributions come out of this repository: the library ``topkeval`` (topkeval/pyproject.toml) and
the course package ``topk-course-helpers`` (``helpers``, pyproject.toml). Each wheel is built without
build isolation (the test venv has setuptools) and installed with its declared dependencies into a new
venv that does not see this repository, then used from a temporary folder:

- the library alone, from a folder that holds a project's own ``helpers.py`` (the most common module
  name in Python projects): it imports, evaluates, and ships no course or grader module;
- the library and the course together: every course module imports and the grader answers.
"""

from __future__ import annotations

import json
import os
import subprocess
import venv
import zipfile
from pathlib import Path

import pytest

from tests.wheels import build_wheel

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = ROOT / "topkeval"

USE_LIBRARY = r"""
import importlib, json, pkgutil, sys
import pandas as pd
import helpers  # the project's own helpers.py, in the working folder
assert helpers.MINE, helpers.__file__
import topkeval
assert "site-packages" in topkeval.__file__, topkeval.__file__
recs = pd.DataFrame({"user": ["u1", "u1", "u2"], "item": ["a", "b", "a"], "score": [0.9, 0.8, 0.5]})
truth = pd.DataFrame({"user": ["u1", "u2"], "item": ["b", "c"]})
table = topkeval.evaluate(recs, truth, k=2, metrics=["precision", "ndcg"])
modules = [m.name for m in pkgutil.walk_packages(topkeval.__path__, "topkeval.")]
for name in modules:
    if name not in ("topkeval.spark", "topkeval.dask"):  # these need their extra
        importlib.import_module(name)
print(json.dumps({"precision": table["precision@2"].tolist(), "modules": modules,
                  "all": sorted(topkeval.__all__),
                  "loaded": sorted(m for m in sys.modules if m.split(".")[0] in
                                   ("matplotlib", "sklearn", "jupyterlab", "pytest", "pyspark", "IPython"))}))
"""

USE_COURSE = r"""
import importlib, json, pkgutil
import helpers
assert "site-packages" in helpers.__file__, helpers.__file__
modules = [m.name for m in pkgutil.walk_packages(helpers.__path__, "helpers.")]
for name in modules:
    if name not in ("helpers.spark", "helpers.dask"):  # these need the library's extra
        importlib.import_module(name)
from helpers.experiments import peers
stored = peers.load_results()
print(json.dumps({"modules": modules, "stored": sorted(stored["libraries"]), "version": helpers.__version__,
                  "same": helpers.evaluate is importlib.import_module("topkeval").evaluate}))
"""


def _build(source: Path, dist: Path) -> Path:
    done = build_wheel(source, dist)
    assert done.returncode == 0, done.stderr[-3000:]
    (wheel,) = [
        w for w in dist.glob("*.whl") if w.name.startswith("topkeval-" if source == LIBRARY else "topk_")
    ]
    return wheel


def _venv(folder: Path, wheels: list[Path], env: dict) -> Path:
    venv.EnvBuilder(with_pip=True, clear=True).create(folder)
    python = folder / "bin" / "python"
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q", *map(str, wheels)],
        cwd=folder.parent,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, f"pip install of {[w.name for w in wheels]} failed:\n{done.stderr[-3000:]}"
    return python


@pytest.fixture(scope="module")
def wheels(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wheel")
    dist = tmp / "dist"
    dist.mkdir()
    library = _build(LIBRARY, dist)
    course = _build(ROOT, dist)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {"library": library, "course": course, "tmp": tmp, "env": env}


@pytest.fixture(scope="module")
def library_env(wheels):
    python = _venv(wheels["tmp"] / "venv-library", [wheels["library"]], wheels["env"])
    project = wheels["tmp"] / "project"
    project.mkdir()
    (project / "helpers.py").write_text("MINE = True\n")
    return python, project, wheels["env"]


@pytest.fixture(scope="module")
def course_env(wheels):
    python = _venv(wheels["tmp"] / "venv-course", [wheels["library"], wheels["course"]], wheels["env"])
    return python, wheels["tmp"], wheels["env"]


def test_library_wheel_holds_the_library_only(wheels):
    names = zipfile.ZipFile(wheels["library"]).namelist()
    sources = {
        str(p.relative_to(LIBRARY / "src"))
        for p in (LIBRARY / "src" / "topkeval").rglob("*")
        if p.is_file() and p.suffix in (".py", ".typed") and "__pycache__" not in p.parts
    }
    missing = sorted(sources - set(names))
    assert not missing, f"the library wheel lacks {missing}: check topkeval/pyproject.toml"
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"topkeval"}, f"the library wheel ships more than topkeval: {sorted(tops)}"
    assert "topkeval/py.typed" in names


def test_course_wheel_holds_every_course_module_and_no_library_module(wheels):
    names = set(zipfile.ZipFile(wheels["course"]).namelist())
    sources = {
        str(p.relative_to(ROOT))
        for p in (ROOT / "helpers").rglob("*")
        if p.is_file() and p.suffix in (".py", ".json") and "__pycache__" not in p.parts
    }
    missing = sorted(sources - names)
    assert not missing, f"the course wheel lacks {missing}: check [tool.setuptools] in pyproject.toml"
    assert not [n for n in names if n.startswith("topkeval/")]


def test_library_works_beside_a_projects_own_helpers_module(library_env):
    python, project, env = library_env
    out = subprocess.run(
        [str(python), "-c", USE_LIBRARY], cwd=project, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout)
    assert got["precision"] == [0.5, 0.0]
    assert got["loaded"] == [], f"the library pulled in {got['loaded']}"
    assert not [m for m in got["modules"] if "course" in m or "grade" in m or "checking" in m]
    assert "progress" not in got["all"]


def test_library_dependencies_are_only_numpy_and_pandas(library_env):
    python, project, env = library_env
    out = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=json", "--disable-pip-version-check"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    names = {p["name"].lower() for p in json.loads(out.stdout)}
    expected = {"topkeval", "numpy", "pandas", "python-dateutil", "six", "tzdata", "pip", "setuptools"}
    assert names <= expected, f"unexpected packages in a library install: {sorted(names - expected)}"


def test_course_wheel_works_outside_the_clone(course_env):
    python, tmp, env = course_env
    out = subprocess.run([str(python), "-c", USE_COURSE], cwd=tmp, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout)
    assert "trec_eval" in got["stored"]
    assert got["same"], "helpers.evaluate must be the library's evaluate"
    packages = {m for m in got["modules"] if m.count(".") == 1}
    assert {"helpers.course", "helpers.grade", "helpers.experiments", "helpers.checking"} <= packages


def test_installed_grader_cli_answers_help(course_env):
    python, tmp, env = course_env
    out = subprocess.run(
        [str(python), "-m", "helpers.grade", "--help"], cwd=tmp, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "--assignment" in out.stdout


def test_installed_command_line_scores_a_trec_run(library_env):
    """The wheel installs the `topkeval` console script; it and `python -m topkeval` need numpy and pandas."""
    python, project, env = library_env
    (project / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\n")
    (project / "run").write_text("q1 Q0 d2 1 2.0 s\nq1 Q0 d1 2 1.0 s\n")
    for command in ([str(python.parent / "topkeval")], [str(python), "-m", "topkeval"]):
        out = subprocess.run(
            [*command, "-m", "RR", "qrels", "run"], cwd=project, env=env, capture_output=True, text=True
        )
        assert out.returncode == 0, out.stderr[-3000:]
        assert out.stdout == "RR\tall\t0.5000\n"
