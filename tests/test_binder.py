"""Binder's configuration, checked statically (conda and repo2docker cannot run here).

repo2docker reads ``binder/`` instead of the repository root when that folder exists, so
``binder/environment.yml`` is what mybinder.org installs and ``binder/postBuild`` installs the
course package. The checks:

- both environment files (``binder/`` and the root one for local conda users) are valid YAML,
  use conda-forge only, pin Python to a minor version, and list exactly the packages and
  specifiers of ``pyproject.toml``'s ``[project.dependencies]`` (conda ``x=1.2`` means ``==1.2.*``;
  entries under ``- pip:`` count; names are normalised);
- neither installs the local package (that would turn off repo2docker's environment cache);
- ``postBuild`` is an executable bash script that stops at the first error (this is *run* with a
  stand-in ``python``, not just grepped) and installs the package;
- the README's Binder instructions open JupyterLab on notebooks/00-start-here.ipynb (no placeholder).
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
BINDER = ROOT / "binder"
ENVIRONMENT_FILES = [BINDER / "environment.yml", ROOT / "environment.yml"]
# conda-forge package name -> PyPI name, where they differ (none of ours do today).
CONDA_TO_PYPI = {"matplotlib-base": "matplotlib", "pytorch": "torch", "py-xgboost": "xgboost"}
NOT_PYTHON_PACKAGES = {"python", "pip"}


def conda_spec(entry: str) -> tuple[str, SpecifierSet]:
    """Translate one conda MatchSpec (``name``, ``name=1.2``, ``name>=1,<2``, ``name 1.2.*``).

    >>> conda_spec("python=3.11")
    ('python', <SpecifierSet('==3.11.*')>)
    >>> conda_spec("pandas >=3,<4")
    ('pandas', <SpecifierSet('<4,>=3')>)
    >>> conda_spec("matplotlib-base>=3.8")
    ('matplotlib', <SpecifierSet('>=3.8')>)
    >>> conda_spec("numpy=2.1=py311h")
    Traceback (most recent call last):
    ...
    ValueError: 'numpy=2.1=py311h' pins a build string; pin versions only, builds differ between platforms
    """
    text = str(entry).strip()
    if "::" in text:
        raise ValueError(f"{text!r} names a channel; list conda-forge under `channels:` instead")
    match = re.fullmatch(r"([A-Za-z0-9_.\-]+)\s*(.*)", text)
    if not match:
        raise ValueError(f"cannot read the conda dependency {text!r}")
    name, rest = match.group(1), match.group(2).replace(" ", "")
    if re.fullmatch(r"=[^=<>!~]+=.+", rest) or re.fullmatch(r"==?[^=<>!~]+=.+", rest):
        raise ValueError(f"{text!r} pins a build string; pin versions only, builds differ between platforms")
    if re.fullmatch(r"=[^=<>!~].*", rest):  # conda's fuzzy "=1.2" is "1.2.*"
        version = rest[1:]
        rest = f"=={version}" if version.endswith(".*") else f"=={version}.*"
    elif rest and rest[0] not in "=<>!~":  # "name 1.2.*" (space form)
        rest = f"=={rest}"
    canonical = canonicalize_name(name)
    return CONDA_TO_PYPI.get(canonical, canonical), SpecifierSet(rest)


def pyproject_dependencies() -> dict[str, SpecifierSet]:
    """The library's dependencies plus the ``course`` extra, as tools/sync_environment.py expands them."""
    from tools.sync_environment import requirements

    found: dict[str, SpecifierSet] = {}
    for line in requirements("course"):
        req = Requirement(line)
        found[canonicalize_name(req.name)] = req.specifier
    return found


def environment_dependencies(path: Path) -> tuple[dict, dict[str, SpecifierSet], list[str]]:
    """(parsed YAML, name -> specifier of every entry, raw pip entries)."""
    env = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(env, dict) and isinstance(env.get("dependencies"), list), (
        f"{path.name}: expected a mapping with a `dependencies:` list"
    )
    found: dict[str, SpecifierSet] = {}
    pip_entries: list[str] = []
    for entry in env["dependencies"]:
        if isinstance(entry, dict):
            assert set(entry) == {"pip"}, f"{path.name}: unexpected nested entry {entry}"
            for spec in entry["pip"]:
                pip_entries.append(spec)
                if spec.strip().startswith(("-", ".", "/", "git+")) or "://" in spec:
                    found[spec.strip()] = SpecifierSet()  # a local or URL install; reported below
                    continue
                req = Requirement(spec)
                name = canonicalize_name(req.name)
                assert name not in found, f"{path.name}: {name} is listed twice"
                found[name] = req.specifier
        else:
            name, specifier = conda_spec(entry)
            assert name not in found, f"{path.name}: {name} is listed twice"
            found[name] = specifier
    return env, found, pip_entries


@pytest.mark.parametrize("path", ENVIRONMENT_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_environment_file_matches_pyproject(path):
    assert path.is_file(), f"{path.relative_to(ROOT)} is missing"
    env, found, _ = environment_dependencies(path)
    channels = env.get("channels") or []
    assert "conda-forge" in channels, f"{path.name}: channels must include conda-forge, got {channels}"
    assert not {"defaults", "anaconda", "main"} & set(channels), (
        f"{path.name}: use conda-forge only (no defaults channel), got {channels}"
    )
    python = found.pop("python", None)
    assert python is not None, f"{path.name}: pin Python, e.g. `- python=3.11` (repo2docker reads it)"
    assert re.fullmatch(r"==3\.\d+\.\*", str(python)), (
        f"{path.name}: pin Python to one minor version (python=3.11), got {python}"
    )
    found.pop("pip", None)
    expected = pyproject_dependencies()
    missing = sorted(set(expected) - set(found))
    extra = sorted(set(found) - set(expected))
    assert not missing and not extra, (
        f"{path.relative_to(ROOT)} and pyproject.toml list different packages: "
        f"missing here {missing}, not in pyproject {extra}"
    )
    differ = {n: (str(found[n]), str(expected[n])) for n in expected if found[n] != expected[n]}
    assert not differ, (
        f"{path.relative_to(ROOT)}: specifiers differ from pyproject.toml (here, pyproject): {differ}"
    )


def test_binder_python_is_one_of_the_supported_versions():
    _, found, _ = environment_dependencies(BINDER / "environment.yml")
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "requires-python"
    ]
    minor = str(found["python"]).removeprefix("==").removesuffix(".*")
    assert SpecifierSet(requires).contains(f"{minor}.0"), f"python={minor} does not satisfy {requires}"


@pytest.mark.parametrize("path", ENVIRONMENT_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_environment_file_does_not_install_the_local_package(path):
    """A local `-e .` in environment.yml disables repo2docker's cached environment layer."""
    _, _, pip_entries = environment_dependencies(path)
    local = [s for s in pip_entries if s.strip().startswith(("-e", ".", "/", "file:"))]
    assert not local, f"{path.name}: install the course package in binder/postBuild, not here: {local}"


def test_binder_folder_has_only_files_repo2docker_understands():
    # With binder/ present, repo2docker ignores root config files; .binder/ as well is an error.
    assert not (ROOT / ".binder").exists(), "use either binder/ or .binder/, not both"
    known = {"environment.yml", "postBuild", "overrides.json", "start", "apt.txt", "runtime.txt"}
    assert {p.name for p in BINDER.iterdir()} <= known, sorted(p.name for p in BINDER.iterdir())
    assert not (BINDER / "start").exists() or 'exec "$@"' in (BINDER / "start").read_text()


def test_overrides_silence_only_the_news_prompt():
    overrides = json.loads((BINDER / "overrides.json").read_text(encoding="utf-8"))
    from jupyterlab.commands import get_app_dir

    schema_path = Path(get_app_dir()) / "schemas" / "@jupyterlab" / "apputils-extension" / "notification.json"
    settings = overrides["@jupyterlab/apputils-extension:notification"]
    assert settings == {"fetchNews": "false", "checkForUpdates": False}
    if schema_path.is_file():  # the keys and values must be ones JupyterLab accepts
        schema = json.loads(schema_path.read_text(encoding="utf-8"))["properties"]
        assert set(settings) <= set(schema)
        assert settings["fetchNews"] in {c["const"] for c in schema["fetchNews"]["oneOf"]}


def test_postbuild_is_an_executable_bash_script_that_stops_on_errors():
    script = BINDER / "postBuild"
    text = script.read_text(encoding="utf-8")
    assert os.stat(script).st_mode & stat.S_IXUSR, "binder/postBuild must be executable (chmod +x)"
    first, *rest = text.splitlines()
    assert first in {"#!/bin/bash", "#!/usr/bin/env bash"}, f"bash shebang expected, got {first!r}"
    commands = [line.strip() for line in rest if line.strip() and not line.strip().startswith("#")]
    assert re.fullmatch(r"set -[a-z]*e[a-z]*( pipefail)?( -o pipefail)?", commands[0].split(" #")[0]), (
        "the first command must be `set -euo pipefail` (postBuild ignores errors otherwise), "
        f"got {commands[0]!r}"
    )
    assert re.search(r"pip install .*(-e \.|\s\.)(\s|$)", text, re.M), (
        "postBuild must pip install the course package"
    )
    subprocess.run(["bash", "-n", str(script)], check=True)


def _fake_python(tmp_path: Path, fail: bool) -> tuple[dict, Path]:
    """A stand-in `python` on PATH that logs its arguments (and fails when asked)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.log"
    settings = tmp_path / "app" / "settings"
    fake = bin_dir / "python"
    fake.write_text(
        "#!/bin/sh\n"
        f'echo "$*" >> "{log}"\n'
        + ("exit 3\n" if fail else "")
        + 'case "$*" in *get_app_dir*) echo "'
        + str(settings)
        + '";; esac\n'
    )
    fake.chmod(0o755)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path)}
    return env, log


def test_postbuild_installs_the_package_and_the_overrides(tmp_path):
    env, log = _fake_python(tmp_path, fail=False)
    result = subprocess.run(
        ["bash", str(BINDER / "postBuild")], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    calls = log.read_text().splitlines()
    assert calls[0].split() == [
        "-m",
        "pip",
        "install",
        "--no-deps",
        "--no-cache-dir",
        "-e",
        "./topkeval",
        "-e",
        ".",
    ]
    installed = tmp_path / "app" / "settings" / "overrides.json"
    assert json.loads(installed.read_text()) == json.loads((BINDER / "overrides.json").read_text())
    server = tmp_path / ".jupyter" / "jupyter_server_config.py"  # the answer key is not served on Binder
    assert server.read_text() == (ROOT / "tools" / "jupyter_server_config.py").read_text()


def test_postbuild_fails_when_a_step_fails(tmp_path):
    env, log = _fake_python(tmp_path, fail=True)
    result = subprocess.run(
        ["bash", str(BINDER / "postBuild")], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode != 0
    assert len(log.read_text().splitlines()) == 1, "postBuild went on after the failing pip install"
    assert not (tmp_path / "app").exists()


def test_readme_binder_instructions_open_notebook_zero_and_name_no_placeholder():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "OWNER/REPO" not in readme and "OWNER" not in readme
    for link in re.findall(r"\((https://mybinder\.org/v2/[^)\s]+)\)", readme):  # a launch link, if any
        assert re.fullmatch(
            r"https://mybinder\.org/v2/gh/[^/]+/[^/]+/[^?]+\?urlpath=lab/tree/"
            r"notebooks/00-start-here\.ipynb",
            link,
        ), link
    assert "lab/tree/notebooks/00-start-here.ipynb" in readme
    assert (ROOT / "notebooks" / "00-start-here.ipynb").is_file()


def test_environment_files_are_generated_from_pyproject():
    from tools.sync_environment import main

    assert main(["--check"]) == 0, "run: python tools/sync_environment.py"
