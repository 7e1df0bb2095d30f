"""``python tools/learner_release.py DEST [--scan]`` (``make learner-release DEST=folder``): the course as an
instructor publishes it to learners, with no answer key.

It copies, from the files git tracks (never a venv, a cache or an untracked file):

- the course: ``notebooks/*.ipynb``, ``README.md``, ``LICENSE``, ``Makefile``, ``pyproject.toml``,
  ``environment.yml``, ``binder/`` and what ``make lab`` runs (``tools/lab.py``,
  ``tools/jupyter_server_config.py``);
- the library ``topkeval/`` and the course package ``helpers/`` (its grader included: the learners'
  ``check()`` lives there, and hidden cases are drawn from a seed only the grader holds, per learner,
  so the case makers of function questions reveal nothing that scores), except the answer key of the
  value questions,
  ``helpers/grade/answer_key.py``: for ``choosing-metrics`` the code computing the expected values is
  the metric choice graded, so a copy of it would score anywhere;
- the learner versions of the assignments, ``exercises/*.ipynb``.

Never: ``exercises/source/`` (solutions), ``*.grader.py`` and ``*.grading.py`` (authored specs and
declarations), ``tests/`` (the grading corpus holds full-marks notebooks, the tests correct functions),
``benchmarks/``, ``.ci/``, the other ``tools/``. ``DEST`` must not exist yet (nothing is overwritten).

``--scan`` then grades every notebook of the release, and every ``.py`` file as a one-cell notebook,
against every built-in assignment whose function or variable names its code spells (:func:`candidates`),
and fails (exit 1) if any scores above the unmodified learner
version of that assignment (:func:`scan`; ``--unsafe-no-sandbox`` runs it without bubblewrap:
the files are the course's own). ``tests/grade/test_learner_release.py`` builds a release and scans it.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

REPO = Path(__file__).resolve().parent.parent

#: Published, as git-tracked path patterns (fnmatch, "/" included).
INCLUDE = (
    "README.md",
    "LICENSE",
    "Makefile",
    "pyproject.toml",
    "environment.yml",
    "binder/*",
    "notebooks/*.ipynb",
    "exercises/*.ipynb",
    "helpers/*",
    "topkeval/*",
    "tools/lab.py",
    "tools/jupyter_server_config.py",
)
#: Never published, even when an INCLUDE pattern matches (the answer keys and what holds answers).
EXCLUDE = (
    "exercises/source/*",
    "*.grader.py",
    "*.grading.py",
    "helpers/grade/answer_key.py",
    "tests/*",
    "*/tests/*",
    "*/conftest.py",
    "*__pycache__*",
    "*.ipynb_checkpoints*",
)


def published(path: str) -> bool:
    """Whether a repository path (POSIX, relative) goes into the learner release.

    Examples
    --------
    >>> [published(p) for p in ("notebooks/01-x.ipynb", "exercises/from-scratch.ipynb",
    ...                         "exercises/source/from-scratch.ipynb", "tests/grade/test_lms.py",
    ...                         "exercises/source/leave-one-out.grading.py", "helpers/grade/grader.py")]
    [True, True, False, False, False, True]
    """
    if any(fnmatch.fnmatchcase(path, p) for p in EXCLUDE):
        return False
    return any(fnmatch.fnmatchcase(path, p) for p in INCLUDE)


def tracked(repo: Path = REPO) -> list[str]:
    """The files git tracks in ``repo`` (POSIX paths, sorted)."""
    out = subprocess.run(
        ["git", "-C", str(repo), "ls-files", "-z"], check=True, capture_output=True
    ).stdout.decode("utf-8", "surrogateescape")
    return sorted(p for p in out.split("\0") if p)


def build(dest: Path, repo: Path = REPO) -> list[str]:
    """Write the release into the new folder ``dest``; returns the paths written.

    Raises
    ------
    FileExistsError
        When ``dest`` exists (a release is written afresh, never over another folder).
    """
    dest = Path(dest)
    if dest.exists():
        raise FileExistsError(f"{dest} exists: give a new folder (a release never overwrites one)")
    files = [p for p in tracked(repo) if published(p) and (repo / p).is_file()]
    dest.mkdir(parents=True)
    for path in files:
        target = dest / PurePosixPath(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(repo / path, target, follow_symlinks=False)
    return files


# ------------------------------------------------------------------ the scan
#: Course modules whose worked solutions (``solution_code``, shown to learners on request) are, by the
#: course's design, the very functions an assignment grades: notebooks 02-04's exercises ask for P@k,
#: R@k, hit, RR and AP, which assignment 1 (``from-scratch``) grades again. The scan reports them as a
#: known overlap instead of failing; an instructor who wants assignment 1 to test more than reuse should
#: grade it before learners reach notebooks 02-04, or assign ``leave-one-out`` / ``choosing-metrics``.
#: Any other release file that scores above the blank assignment fails the scan.
COURSE_SOLUTIONS = {
    ("helpers/course/nb02.py", "from-scratch"),
    ("helpers/course/nb03.py", "from-scratch"),
    ("helpers/course/nb04.py", "from-scratch"),
}


@dataclass(frozen=True)
class Finding:
    """One release file that scores above the blank assignment."""

    file: str
    assignment: str
    score: float
    blank: float


def as_notebook(source: str) -> dict:
    """A ``.py`` file's text as a one-cell notebook (what a learner could paste and hand in)."""
    cell: dict[str, object] = {
        "cell_type": "code",
        "metadata": {},
        "source": source,
        "outputs": [],
        "execution_count": None,
    }
    return {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def _code(path: Path) -> str:
    """The code a grader would run from a release file: a ``.py`` file's text, a notebook's code cells."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".py":
        return text
    cells = json.loads(text).get("cells", [])
    return "\n".join(
        "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
        for c in cells
        if c.get("cell_type") == "code"
    )


def candidates(release: Path, work: Path, targets: list[str]) -> dict[str, Path]:
    """The release's notebooks and ``.py`` files (each as a one-cell notebook in ``work``) whose code
    spells at least one of ``targets``: the grader looks each target up by name, so a file that never
    writes the name cannot be given any points (our files build no names at run time)."""
    spelled = re.compile(r"\b(" + "|".join(map(re.escape, targets)) + r")\b")
    out = {}
    for path in sorted(release.rglob("*")):
        if path.suffix not in (".ipynb", ".py") or not path.is_file():
            continue
        code = _code(path)
        if not spelled.search(code):
            continue
        rel = path.relative_to(release).as_posix()
        if path.suffix == ".py":
            path = work / (rel.replace("/", "__") + ".ipynb")
            path.write_text(json.dumps(as_notebook(code)), encoding="utf-8")
        out[rel] = path
    return out


def scan(
    release: Path, mode: str, jobs: int = 2, seed: int = 1, only: tuple[str, ...] = ()
) -> tuple[list[Finding], dict[str, int]]:
    """Grade the candidates of ``release`` (:func:`candidates`) against every built-in assignment
    (or those named in ``only``).

    Returns the findings (files scoring above the unmodified learner version of the assignment)
    and, per assignment, the number of files graded.
    """
    from helpers.grade.assignments import ASSIGNMENTS
    from helpers.grade.grader import grade_many
    from helpers.grade.sandbox import Limits

    findings, done = [], {}
    with tempfile.TemporaryDirectory(prefix="learner-release-scan-") as tmp:
        for name, assignment in sorted(ASSIGNMENTS.items()):
            if only and name not in only:
                continue
            work = Path(tmp) / name
            work.mkdir()
            found = candidates(release, work, [q.target for q in assignment.questions])
            blank = release / "exercises" / f"{name}.ipynb"
            files = [n for n in found if found[n] != blank]
            reports = grade_many(
                [blank, *(found[n] for n in files)],
                assignment,
                work / "out",
                jobs=jobs,
                seed=seed,
                limits=Limits(timeout=5.0),
                mode=mode,
                progress=None,
            )
            done[name] = len(reports)
            floor = reports[0]["score"]
            findings += [
                Finding(n, name, r["score"], floor)
                for n, r in zip(files, reports[1:], strict=True)
                if r["score"] > floor
            ]
    return findings, done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tools/learner_release.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("dest", help="a new folder for the release")
    parser.add_argument("--scan", action="store_true", help="grade every file of the release (see above)")
    parser.add_argument("--unsafe-no-sandbox", action="store_true", help="scan without bubblewrap")
    args = parser.parse_args(argv)
    try:
        files = build(Path(args.dest))
    except (FileExistsError, subprocess.CalledProcessError) as exc:
        print(f"learner-release: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {len(files)} files to {args.dest} (no exercises/source, no tests, no specs)")
    if not args.scan:
        return 0
    from helpers.grade import isolation

    mode = isolation.UNSAFE if args.unsafe_no_sandbox else isolation.BUBBLEWRAP
    findings, done = scan(Path(args.dest), mode)
    print("graded per assignment: " + ", ".join(f"{n} {k} files" for n, k in done.items()))
    keys = [f for f in findings if (f.file, f.assignment) not in COURSE_SOLUTIONS]
    for f in findings:
        label = "ANSWER KEY" if f in keys else "known overlap (the course's worked solution)"
        print(f"{label}: {f.file} scores {f.score:g} on {f.assignment} (blank: {f.blank:g})", file=sys.stderr)
    print(f"{len(keys)} file(s) score above the blank assignment ({len(findings) - len(keys)} known overlap)")
    return 1 if keys else 0


if __name__ == "__main__":
    raise SystemExit(main())
