"""pyproject.toml and environment.yml declare the same dependencies with the same specifiers."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent


def pyproject_dependencies() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    found = {}
    for line in project["dependencies"]:
        req = Requirement(line)
        found[canonicalize_name(req.name)] = str(req.specifier)
    return found


def conda_to_pip(spec: str) -> tuple[str, str]:
    """'pandas>=3,<4' -> ('pandas', '<4,>=3'); conda's 'x=1.2' means '==1.2.*'."""
    match = re.fullmatch(r"([A-Za-z0-9_.\-]+)\s*(.*)", spec.strip())
    name, rest = match.group(1), match.group(2).replace(" ", "")
    if re.fullmatch(r"=[^=<>!].*", rest):
        rest = f"=={rest[1:]}.*"
    return canonicalize_name(name), str(Requirement(f"x{rest}").specifier) if rest else ""


def environment_dependencies(path: Path) -> tuple[dict[str, str], dict]:
    env = yaml.safe_load(path.read_text())
    found = {}
    for entry in env["dependencies"]:
        specs = entry["pip"] if isinstance(entry, dict) else [entry]
        for spec in specs:
            name, specifier = conda_to_pip(spec) if not isinstance(entry, dict) else (
                canonicalize_name(Requirement(spec).name), str(Requirement(spec).specifier))
            found[name] = specifier
    return found, env


def test_environment_yml_matches_pyproject():
    env_deps, env = environment_dependencies(ROOT / "environment.yml")
    assert env["channels"] == ["conda-forge"]
    python = env_deps.pop("python")
    assert re.fullmatch(r"==3\.1[1-9]\.\*", python), "pin the Python minor version, e.g. python=3.11"
    env_deps.pop("pip", None)
    assert env_deps == pyproject_dependencies()


def test_conda_spec_translation():
    assert conda_to_pip("python=3.11") == ("python", "==3.11.*")
    assert conda_to_pip("pandas>=3,<4") == ("pandas", "<4,>=3")
    assert conda_to_pip("pip") == ("pip", "")
