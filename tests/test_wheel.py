"""The wheel is a product too: built from the repository, installed into a fresh venv, used from elsewhere.

The wheel is built without build isolation (the test venv has setuptools), installed with its
declared dependencies (numpy and pandas only, from the local pip cache when present) into a new
venv that does not see this repository, and used from a temporary folder. A subpackage or data
file left out of the wheel fails it, and so does a dependency the core forgets to declare.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

USE = r"""
import importlib, json, pkgutil, sys
import pandas as pd
import helpers
assert "site-packages" in helpers.__file__, helpers.__file__
recs = pd.DataFrame({"user": ["u1", "u1", "u2"], "item": ["a", "b", "a"], "rank": [1, 2, 1]})
truth = pd.DataFrame({"user": ["u1", "u2"], "item": ["b", "c"]})
table = helpers.evaluate(recs, truth, k=2, metrics=["precision", "ndcg"])
modules = [m.name for m in pkgutil.walk_packages(helpers.__path__, "helpers.")]
for name in modules:
    if name not in ("helpers.spark", "helpers.dask"):  # these need their extra
        importlib.import_module(name)
from helpers.experiments import peers
stored = peers.load_results()
from helpers.course import examples, progress
print(json.dumps({"precision": table["precision@2"].tolist(), "modules": modules,
                  "stored": sorted(stored["libraries"]), "version": helpers.__version__,
                  "heavy": sorted(m for m in sys.modules if m.split(".")[0] in
                                  ("matplotlib", "sklearn", "jupyterlab", "pytest", "pyspark"))}))
"""


def _source_files() -> set[str]:
    return {str(p.relative_to(ROOT)) for p in (ROOT / "helpers").rglob("*")
            if p.is_file() and p.suffix in (".py", ".json") and "__pycache__" not in p.parts}


@pytest.fixture(scope="module")
def wheel_env(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wheel")
    dist = tmp / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "--disable-pip-version-check", "-q", "-w", str(dist), str(ROOT)],
                   check=True, cwd=tmp, capture_output=True, text=True)
    (wheel,) = dist.glob("*.whl")
    env_dir = tmp / "venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
    python = env_dir / "bin" / "python"
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run([str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q", str(wheel)],
                          cwd=tmp, env=clean, capture_output=True, text=True)
    assert done.returncode == 0, f"pip install of the wheel failed:\n{done.stderr[-3000:]}"
    return python, wheel, tmp, clean


def test_wheel_holds_every_module_and_data_file(wheel_env):
    import zipfile

    _, wheel, _, _ = wheel_env
    names = {n for n in zipfile.ZipFile(wheel).namelist() if n.startswith("helpers/")}
    missing = sorted(_source_files() - names)
    assert not missing, f"the wheel lacks {missing}: check [tool.setuptools] in pyproject.toml"


def test_installed_wheel_works_outside_the_clone(wheel_env):
    python, _, tmp, env = wheel_env
    out = subprocess.run([str(python), "-c", USE], cwd=tmp, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout)
    assert got["precision"] == [0.5, 0.0]
    assert "trec_eval" in got["stored"]
    assert got["heavy"] == [], f"the core pulled in {got['heavy']}"
    packages = {m for m in got["modules"] if m.count(".") == 1}
    assert {"helpers.course", "helpers.grade", "helpers.experiments", "helpers.checking"} <= packages


def test_installed_grader_cli_answers_help(wheel_env):
    python, _, tmp, env = wheel_env
    out = subprocess.run([str(python), "-m", "helpers.grade", "--help"], cwd=tmp, env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "--assignment" in out.stdout


def test_core_dependencies_are_only_numpy_and_pandas(wheel_env):
    python, _, tmp, env = wheel_env
    out = subprocess.run([str(python), "-m", "pip", "list", "--format=json", "--disable-pip-version-check"],
                         cwd=tmp, env=env, capture_output=True, text=True, check=True)
    names = {p["name"].lower() for p in json.loads(out.stdout)}
    expected = {"topk-course-helpers", "numpy", "pandas", "python-dateutil", "six", "tzdata", "pip", "setuptools"}
    assert names <= expected, f"unexpected packages in a core install: {sorted(names - expected)}"
