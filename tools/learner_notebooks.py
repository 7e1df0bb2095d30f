"""Generate the learner notebooks ``exercises/<name>.ipynb`` from ``exercises/source/<name>.ipynb``.

Every ``### BEGIN SOLUTION`` ... ``### END SOLUTION`` region (nbgrader's convention)
becomes a stub::

    python tools/learner_notebooks.py           # rewrite exercises/*.ipynb
    python tools/learner_notebooks.py --check   # exit 1 if any is stale
"""

from __future__ import annotations

import copy
import json
import re
import sys
from pathlib import Path

from helpers.grade.assignments import ASSIGNMENTS

EXERCISES = Path(__file__).resolve().parent.parent / "exercises"

_BEGIN = re.compile(r"^(\s*)### BEGIN SOLUTION\s*$")
_END = re.compile(r"^\s*### END SOLUTION\s*$")
_ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*=")


def strip_solutions(source: str) -> str:
    """Replace each ``### BEGIN SOLUTION`` ... ``### END SOLUTION`` region with a stub.

    A top-level region that assigns answer variables (``answer_q1 = ...``,
    a numeric answer) becomes ``answer_q1 = ...`` for each of them (helper
    variables in the region are dropped); any other region becomes
    ``# YOUR CODE HERE`` and ``raise NotImplementedError()`` at the region's
    indentation (nbgrader's stub).

    Raises
    ------
    ValueError
        For a nested, unclosed or unopened region.

    Examples
    --------
    >>> src = "def f(x):\\n    ### BEGIN SOLUTION\\n    return x\\n    ### END SOLUTION\\n"
    >>> print(strip_solutions(src))
    def f(x):
        # YOUR CODE HERE
        raise NotImplementedError()
    <BLANKLINE>
    >>> print(strip_solutions("### BEGIN SOLUTION\\nanswer_q1 = 0.25\\n### END SOLUTION"))
    answer_q1 = ...  # YOUR ANSWER HERE
    """
    out: list[str] = []
    region: list[str] | None = None
    indent = ""
    for line in source.splitlines(keepends=True):
        begin = _BEGIN.match(line)
        if begin:
            if region is not None:
                raise ValueError("nested ### BEGIN SOLUTION: close the first region with ### END SOLUTION")
            region, indent = [], begin.group(1)
            continue
        if _END.match(line):
            if region is None:
                raise ValueError("### END SOLUTION without a matching ### BEGIN SOLUTION")
            names = [m.group(1) for m in map(_ASSIGN.match, region) if m and m.group(1).startswith("answer_")]
            newline = "\n" if line.endswith("\n") else ""
            if indent == "" and names:
                out.extend(f"{name} = ...  # YOUR ANSWER HERE\n" for name in dict.fromkeys(names))
                if not newline:
                    out[-1] = out[-1].rstrip("\n")
            else:
                out.append(
                    f"{indent}# YOUR CODE HERE\n{indent}raise NotImplementedError(){newline or chr(10)}"
                )
            region = None
            continue
        if region is not None:
            region.append(line)
        else:
            out.append(line)
    if region is not None:
        raise ValueError("### BEGIN SOLUTION without ### END SOLUTION")
    return "".join(out)


def learner_version(notebook: dict) -> dict:
    """The learner notebook for a source notebook: stubs instead of solutions, no outputs."""
    nb = copy.deepcopy(notebook)
    for cell in nb["cells"]:
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "code":
            src = strip_solutions(src)
            cell["outputs"] = []
            cell["execution_count"] = None
        elif "### BEGIN SOLUTION" in src:
            raise ValueError("solution regions are only allowed in code cells")
        cell["source"] = src
    return nb


def _dump(nb: dict) -> str:
    return json.dumps(nb, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def generate(check_only: bool = False, root: Path = EXERCISES) -> list[str]:
    """Write (or, with ``check_only``, compare) every learner notebook. Returns the stale names."""
    stale = []
    for name in sorted(ASSIGNMENTS):
        source = root / "source" / f"{name}.ipynb"
        target = root / f"{name}.ipynb"
        text = _dump(learner_version(json.loads(source.read_text(encoding="utf-8"))))
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
