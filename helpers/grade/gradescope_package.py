"""A Gradescope autograder in one command: ``python -m helpers.grade gradescope-package``.

::

    python -m helpers.grade gradescope-package --assignment from-scratch --out autograder.zip
    python -m helpers.grade gradescope-package --assignment build/my-hw.grader.py --out autograder.zip

writes ``autograder.zip`` for Gradescope's "Zip file upload" autograder. Gradescope unpacks it into
``/autograder/source``, runs ``setup.sh`` there once (as root, with the network), then copies
``run_autograder`` to ``/autograder`` and runs it for each submission. The zip holds:

- ``setup.sh``: installs bubblewrap (the sandbox) and, when the image has none, a Python >= 3.11
  (``apt-get``; deadsnakes' PPA on an Ubuntu whose own packages are older), then makes
  ``/autograder/source/.venv`` with the first Python >= 3.11 it finds and installs the library and
  the course **from the zip's own copies** (``topkeval/``, ``helpers/``, ``pyproject.toml``), never
  from this machine;
- ``run_autograder``: only relative paths, under ``${AUTOGRADER_ROOT:-/autograder}`` (tests set the
  variable to a temporary root laid out the same way); the interpreter is that venv's
  ``python`` (>= 3.11, checked), never a bare ``python3`` nor this machine's paths. It runs
  ``python -m helpers.grade gradescope`` on ``submission/`` and writes ``results/results.json``.
  When grading cannot run (no bubblewrap, a sandbox that does not start, a broken install),
  ``results.json`` is still written: score 0, a line for the learner, and the reason in a test
  only instructors see (``visibility: hidden``) and in ``extra_data``;
- ``grading-seed.json``: the seed of the hidden cases, drawn once when the package is built (or
  ``--seed N``); ``run_autograder`` passes it (``--seed N``) for every submission, with
  Gradescope's ``submission_metadata.json``: each learner's cases and data are drawn from the seed
  and their Gradescope user id (:func:`helpers.grade.grader.learner_seed`), so resubmitting meets
  the same hidden cases and data instead of a new draw each time, and a classmate's are other ones;
- ``spec/<name>.grader.py`` for an authored assignment (it holds the solutions: Gradescope keeps the
  autograder private), or the built-in assignment's name;
- ``helpers/``, ``topkeval/``, ``pyproject.toml``, ``README.md``, ``LICENSE``: what ``pip install``
  needs (no notebooks, exercises or tests).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import zipfile
from pathlib import Path

from .gradebook import draw_seed, short_seed

__all__ = ["build", "run_autograder", "setup_sh", "fallback_results", "main"]

REPO = Path(__file__).resolve().parents[2]
#: What the package copies from the repository (folders walked, __pycache__ and tests left out).
COURSE_FILES = (
    "pyproject.toml",
    "README.md",
    "LICENSE",
    "helpers",
    "topkeval/pyproject.toml",
    "topkeval/README.md",
    "topkeval/LICENSE",
    "topkeval/src",
)
MIN_PYTHON = (3, 11)
#: The package's record of its seed (the one run_autograder passes for every submission).
SEED_FILE = "grading-seed.json"
#: The results.json run_autograder copies when the venv's Python is missing (setup.sh failed).
NO_PYTHON = "no-python-results.json"
NO_PYTHON_REASON = (
    "the autograder has no Python >= 3.11 at source/.venv: setup.sh did not finish (see its log)"
)


def setup_sh() -> str:
    """Gradescope's ``setup.sh``: bubblewrap, a Python >= 3.11, the course from the zip's files.

    Returns
    -------
    str
        The shell script, run once as root when Gradescope builds the autograder's image.

    Examples
    --------
    >>> "apt-get install -y -q bubblewrap" in setup_sh()
    True
    """
    return """#!/usr/bin/env bash
# Gradescope runs this once, as root, in /autograder/source (the unpacked autograder.zip).
set -euo pipefail
cd "$(dirname "$0")"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q bubblewrap ca-certificates
find_python() {
  for p in python3.13 python3.12 python3.11 python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
      command -v "$p"; return 0
    fi
  done
  return 1
}
if ! PY="$(find_python)"; then
  # an image older than Python 3.11: the distribution's package, else deadsnakes' PPA (Ubuntu)
  apt-get install -y -q python3.11 python3.11-venv || {
    apt-get install -y -q software-properties-common
    add-apt-repository -y ppa:deadsnakes/ppa
    apt-get update -q
    apt-get install -y -q python3.11 python3.11-venv
  }
  PY="$(find_python)"
fi
"$PY" -m venv --clear .venv \\
  || { apt-get install -y -q "$(basename "$PY")-venv"; "$PY" -m venv --clear .venv; }
.venv/bin/python -m pip install --quiet --upgrade pip
# the library and the course from this zip's own copies
.venv/bin/python -m pip install --quiet ./topkeval .
.venv/bin/python -m helpers.grade gradescope --help >/dev/null
echo "autograder ready: $(.venv/bin/python --version)," \\
  "bubblewrap $(bwrap --version 2>/dev/null || echo missing)"
"""


def run_autograder(assignment: str, seed: int) -> str:
    """Gradescope's ``run_autograder`` for ``assignment`` (a built-in name or ``spec/<file>``, relative
    to the package's ``source/``): relative paths under ``${AUTOGRADER_ROOT:-/autograder}``.

    Every submission is graded with the one ``seed`` drawn when the package was built: a learner who
    resubmits meets the same hidden cases and data, so resubmitting a typed guess until it lands
    does not work (a new draw per submission would let it).

    Parameters
    ----------
    assignment : str
        A built-in name or ``spec/<file>``.
    seed : int
        The package's seed.

    Returns
    -------
    str
        The shell script.

    Examples
    --------
    >>> script = run_autograder("from-scratch", 7)
    >>> "/work" in script or "python3 " in script, "--seed 7" in script
    (False, True)
    """
    spec = shlex.quote(assignment)
    if type(seed) is not int or seed < 0:
        raise ValueError(f"the seed must be a non-negative integer, not {seed!r}")
    return f"""#!/usr/bin/env bash
# Gradescope runs this for every submission. Paths are relative to the autograder's root
# (${{AUTOGRADER_ROOT:-/autograder}}): source/ (the unpacked zip), submission/, results/.
set -uo pipefail
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
SRC="$ROOT/source"
PY="$SRC/.venv/bin/python"
RESULTS="$ROOT/results/results.json"
ERR="$ROOT/results/.grader-stderr.txt"
mkdir -p "$ROOT/results"
rm -f "$RESULTS"
SPEC={spec}
if [ -f "$SRC/$SPEC" ]; then SPEC="$SRC/$SPEC"; fi
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < {MIN_PYTHON!r})' 2>"$ERR"; then
  cat "$SRC/{NO_PYTHON}" > "$RESULTS"
  exit 0
fi
cd "$SRC"
"$PY" -m helpers.grade gradescope --assignment "$SPEC" --seed {seed} --submission "$ROOT/submission" \\
  --metadata "$ROOT/submission_metadata.json" --results "$RESULTS" 2>"$ERR"
status=$?
cat "$ERR" >&2
if [ "$status" -ne 0 ] || [ ! -s "$RESULTS" ]; then
  "$PY" -m helpers.grade.gradescope_package fallback --results "$RESULTS" --reason-file "$ERR" \\
    --status "$status"
fi
exit 0
"""


def _fallback(reason: str) -> dict:
    return {
        "score": 0.0,
        "output": "The autograder could not grade this submission; your instructor has been told why. "
        "Your notebook was not judged: this 0 is not a grade.",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "extra_data": {"status": "not graded", "reason": reason},
        "tests": [
            {
                "name": "autograder error (for the instructor)",
                "score": 0.0,
                "max_score": 0.0,
                "status": "failed",
                "output": reason,
                "visibility": "hidden",
            }
        ],
    }


def fallback_results(reason: str) -> str:
    """``results.json`` text for a submission the autograder could not grade: 0 and the reason.

    Parameters
    ----------
    reason : str
        Why the submission could not be graded (shown to the learner).

    Returns
    -------
    str
        The JSON text.

    Examples
    --------
    >>> data = json.loads(fallback_results("bubblewrap is not installed"))
    >>> data["score"], data["tests"][0]["visibility"], data["extra_data"]["reason"]
    (0.0, 'hidden', 'bubblewrap is not installed')
    """
    return json.dumps(_fallback(reason), indent=1, ensure_ascii=True) + "\n"


def _course_files(repo: Path) -> list[Path]:
    out: list[Path] = []
    for name in COURSE_FILES:
        path = repo / name
        if path.is_file():
            out.append(path)
        elif path.is_dir():
            out += sorted(
                p
                for p in path.rglob("*")
                if p.is_file()
                and "__pycache__" not in p.parts
                and "tests" not in p.relative_to(repo).parts[1:]
                and p.suffix not in (".pyc", ".pyo")
            )
    return out


def _write(zf: zipfile.ZipFile, name: str, data: bytes, mode: int = 0o644) -> None:
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
    info.external_attr = (0o100000 | mode) << 16
    info.create_system = 3
    info.compress_type = zipfile.ZIP_DEFLATED
    zf.writestr(info, data)


def build(assignment: str, out: Path, repo: Path = REPO, seed: int | None = None) -> Path:
    """Write ``out`` (``autograder.zip``) for a built-in assignment name or an authored spec's path.

    ``seed`` (default: drawn now, once) is the seed of every submission's hidden cases and data,
    written into ``run_autograder`` and recorded in the package as :data:`SEED_FILE`. Gradescope
    keeps the autograder private and the sandbox sees none of it.

    Raises
    ------
    ValueError
        For an unknown assignment (the message lists the choices).

    Parameters
    ----------
    assignment : str
        A built-in assignment's name or the path of an authored spec.
    out : pathlib.Path
        The zip file written.
    repo : pathlib.Path
        The course's repository, whose ``helpers`` and ``topkeval`` go into the zip.
    seed : int, optional
        The seed of the hidden cases.

    Returns
    -------
    pathlib.Path
        The zip file.
    """
    from .assignments import ASSIGNMENTS
    from .authoring import load_spec

    extra: list[tuple[str, bytes]] = []
    if assignment in ASSIGNMENTS:
        target = assignment
    elif assignment.endswith(".py") and Path(assignment).is_file():
        spec = Path(assignment)
        load_spec(spec)  # refuses a broken spec here, not at the first submission
        target = f"spec/{spec.name}"
        extra.append((target, spec.read_bytes()))
    else:
        raise ValueError(
            f"unknown assignment {assignment!r}: choose from {', '.join(sorted(ASSIGNMENTS))} or give the "
            "path of an authored spec (*.grader.py)"
        )
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w") as zf:
        _write(zf, "setup.sh", setup_sh().encode(), 0o755)
        seed = draw_seed() if seed is None else seed
        _write(zf, "run_autograder", run_autograder(target, seed).encode(), 0o755)
        _write(zf, SEED_FILE, (json.dumps({"assignment": target, "seed": seed}) + "\n").encode())
        _write(zf, NO_PYTHON, fallback_results(NO_PYTHON_REASON).encode())
        for name, data in extra:
            _write(zf, name, data)
        for path in _course_files(repo):
            _write(zf, path.relative_to(repo).as_posix(), path.read_bytes())
    return out


def _fallback_main(args: argparse.Namespace) -> int:
    try:
        text = Path(args.reason_file).read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    lines = [x for x in text.splitlines() if x.strip()]
    reason = " ".join(lines[-6:])[-1500:] or f"the grader exited with status {args.status} and said nothing"
    results = Path(args.results)
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(fallback_results(reason), encoding="utf-8")
    print(f"wrote {results}: 0 (not graded: {reason[:200]})", file=sys.stderr)
    return 0


def main(argv: list[str]) -> int:
    """``python -m helpers.grade gradescope-package --assignment A --out autograder.zip``.

    Parameters
    ----------
    argv : list of str
        The arguments after ``gradescope-package``.

    Returns
    -------
    int
        0 when the zip was written (a usage error exits with status 2, through argparse).
    """
    parser = argparse.ArgumentParser(
        prog="python -m helpers.grade gradescope-package",
        description="Write Gradescope's autograder.zip (setup.sh, run_autograder, the course and the spec).",
    )
    parser.add_argument(
        "--assignment", required=True, help="a built-in assignment or an authored *.grader.py"
    )
    parser.add_argument("--out", default="autograder.zip", help="the zip to write (default autograder.zip)")
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed of the hidden cases of every submission (default: drawn once now; recorded in the zip)",
    )
    args = parser.parse_args(argv)
    if args.seed is not None and args.seed < 0:
        parser.error(f"--seed must be a non-negative integer, not {args.seed}")
    try:
        path = build(args.assignment, Path(args.out), seed=args.seed)
    except ValueError as exc:
        parser.error(str(exc))
    with zipfile.ZipFile(path) as zf:
        seed = json.loads(zf.read(SEED_FILE))["seed"]
    if short_seed(seed):
        print(f"warning: {short_seed(seed)}", file=sys.stderr)
    print(
        f"wrote {path} ({os.path.getsize(path) // 1024} KiB, seed {seed}, also in {SEED_FILE}): "
        "upload it as Gradescope's autograder zip"
    )
    return 0


def _module_main(argv: list[str]) -> int:
    """``python -m helpers.grade.gradescope_package fallback --results R --reason-file F --status N``
    (what ``run_autograder`` calls when grading could not run)."""
    parser = argparse.ArgumentParser(prog="python -m helpers.grade.gradescope_package")
    sub = parser.add_subparsers(dest="command", required=True)
    fb = sub.add_parser("fallback")
    fb.add_argument("--results", required=True)
    fb.add_argument("--reason-file", required=True)
    fb.add_argument("--status", default="?")
    return _fallback_main(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(_module_main(sys.argv[1:]))
