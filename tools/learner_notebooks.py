"""Generate the learner notebooks ``exercises/<name>.ipynb`` from ``exercises/source/<name>.ipynb``.

Every ``### BEGIN SOLUTION`` ... ``### END SOLUTION`` region (nbgrader's convention)
becomes a stub, and a grading declaration cell is dropped: the same rules as
``python -m helpers.grade author`` (:mod:`helpers.grade.authoring`)::

    python tools/learner_notebooks.py           # rewrite exercises/*.ipynb
    python tools/learner_notebooks.py --check   # exit 1 if any is stale
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from helpers.grade.assignments import ASSIGNMENTS
from helpers.grade.authoring import dump_notebook, learner_version, strip_solutions

__all__ = ["generate", "learner_version", "strip_solutions", "main"]

EXERCISES = Path(__file__).resolve().parent.parent / "exercises"


def generate(check_only: bool = False, root: Path = EXERCISES) -> list[str]:
    """Write (or, with ``check_only``, compare) every learner notebook. Returns the stale names."""
    stale = []
    for name in sorted(ASSIGNMENTS):
        source = root / "source" / f"{name}.ipynb"
        target = root / f"{name}.ipynb"
        text = dump_notebook(learner_version(json.loads(source.read_text(encoding="utf-8"))))
        current = target.read_text(encoding="utf-8") if target.exists() else None
        if current != text:
            stale.append(name)
            if not check_only:
                target.write_text(text, encoding="utf-8")
    return stale


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if any(a != "--check" for a in argv):
        print("usage: python tools/learner_notebooks.py [--check]", file=sys.stderr)
        return 2
    check_only = "--check" in argv
    stale = generate(check_only=check_only)
    if check_only:
        if stale:
            print(
                "out of date: "
                + ", ".join(f"exercises/{n}.ipynb" for n in stale)
                + "; run: python tools/learner_notebooks.py",
                file=sys.stderr,
            )
            return 1
        print("learner notebooks are up to date")
        return 0
    print(
        "wrote " + (", ".join(f"exercises/{n}.ipynb" for n in stale) if stale else "nothing (all up to date)")
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
