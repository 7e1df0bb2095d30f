"""Instructors write their own assignments: a source notebook becomes a learner notebook and a graded spec.

``python -m helpers.grade author SOURCE.ipynb --out DIR`` reads a *source notebook*:

- solutions sit between ``### BEGIN SOLUTION`` and ``### END SOLUTION`` (nbgrader's markers; see
  :func:`strip_solutions`): the learner version gets a stub there; nbgrader's other regions
  (``### BEGIN HIDDEN TESTS``, ``=== BEGIN MARK SCHEME ===``) are refused, since hidden checks are
  declared in the grading cell;
- one code cell is the *grading declaration*: tagged ``grading`` (cell metadata) or starting with
  the line ``# grading`` (or it comes from ``--grading FILE.py``). It is Python and defines::

      ASSIGNMENT = {"name": "my-hw", "title": "My homework", "packages": ["numpy"]}
      QUESTIONS = [
          {"target": "mean_rank", "points": 2, "result": "number", "abs_tol": 1e-9,
           "checks": [
               {"name": "worked example", "cases": [([3, 1, 2],)]},              # public, fixed
               {"name": "random lists", "hidden": True, "general": True,         # hidden, drawn
                "generate": random_list_case, "n": 20},                          # generate(rng) -> args
           ]},
          {"target": "answer_q2", "points": 1, "result": "number"},              # an answer variable
          {"target": "why_ndcg", "kind": "text", "points": 3,                    # hand-graded
           "rubric": "3: graded relevance and position; 1: one of them; 0: neither"},
      ]

  ``result`` is how values are judged (:class:`helpers.grade.spec.Question`): ``unit`` (a float in
  [0, 1]), ``nonneg``, ``number``, ``exact`` (a dict of ids) or ``float_dict``. A check has fixed
  ``cases`` (argument tuples), ``generate(rng)`` (one argument tuple, ``n`` times, default 10) or
  ``make(rng)`` (a list of argument tuples). Only hidden checks score, as for the built-in
  assignments; ``general`` marks the check of random inputs of every kind (the constant-answer rule).

  A *hand-graded* question (``"kind": "text"``, with ``points`` and a ``rubric``) is answered in a
  markdown cell holding the line ``<!-- answer: why_ndcg -->``; a ``### BEGIN SOLUTION`` region in
  that cell is the model answer (the learner version shows :data:`helpers.grade.spec.ANSWER_PLACEHOLDER`
  instead). The grader marks such an answer ``needs grading`` and the instructor scores it in
  ``python -m helpers.grade review OUT`` (:mod:`helpers.grade.review`). Solution regions in any
  other markdown cell are refused.

It writes ``DIR/<name>.ipynb`` (the learner notebook: stubs, no outputs, no declaration),
``DIR/<name>.checks.json`` (for learners too: the public cases and their values, read by
``check("f", f, assignment="<name>.checks.json")``, :func:`helpers.grade.assignments.check`) and
``DIR/<name>.grader.py`` (the spec: every code cell of the source, solutions included, then the
declaration). ``--assignment DIR/<name>.grader.py`` grades with it, with the same sandbox, limits
and reports; the reference values come from the solutions, computed in the grader (the instructor's
code), never inside a sandbox. Keep the ``.grader.py`` with the source: it holds the answers.

Nothing is written when the learner notebook would hand out an answer: a line that reads like a
marker but is not one is refused (:func:`strip_solutions`), and the learner notebook is then run as
released, so that a graded target already right on every case, or an answer cell without a
model-answer region, is refused whatever its markers looked like (:func:`_refuse_given_answers`).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import html
import inspect
import io
import itertools
import json
import re
import sys
import types
import unicodedata
from pathlib import Path
from typing import Any

from .assignments import public_checks_file
from .prepare import encode_argument as _encode
from .prepare import prepare_notebook
from .spec import (
    ANSWER_PLACEHOLDER,
    Assignment,
    Check,
    Question,
    answer_marker,
    build_cases,
    compare,
    text_answers,
)

__all__ = [
    "AuthoringError",
    "strip_solutions",
    "learner_version",
    "grading_cell",
    "spec_source",
    "load_spec",
    "author",
    "main",
]

_BEGIN = re.compile(r"^(\s*)### BEGIN SOLUTION\s*$")
_END = re.compile(r"^\s*### END SOLUTION\s*$")
_ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*=")
_GRADING_LINE = re.compile(r"^\s*#\s*grading\s*$")
_MAGIC = re.compile(r"^(\s*)([%!].*)$")
_ANSWER_CELL = re.compile(r"^\s*<!--\s*answer:\s*([A-Za-z_][A-Za-z0-9_]*)\s*-->\s*$", re.MULTILINE)
RESULTS = ("unit", "nonneg", "number", "exact", "float_dict")
SPEC_SUFFIX = ".grader.py"
CHECKS_SUFFIX = ".checks.json"


class AuthoringError(ValueError):
    """The source notebook or its declaration cannot make an assignment (the message says what to fix).

    Examples
    --------
    >>> cells = [{"cell_type": "code", "source": "# grading\\nQUESTIONS = []"}] * 2
    >>> grading_cell({"cells": cells})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    helpers.grade.authoring.AuthoringError: ...
    """


# ------------------------------------------------------------------ learner version
def _close_region(region: list[str], indent: str, line: str, out: list[str]) -> None:
    names = [m.group(1) for m in map(_ASSIGN.match, region) if m and m.group(1).startswith("answer_")]
    newline = "\n" if line.endswith("\n") else ""
    if indent == "" and names:
        out.extend(f"{name} = ...  # YOUR ANSWER HERE\n" for name in dict.fromkeys(names))
        if not newline:
            out[-1] = out[-1].rstrip("\n")
    else:
        out.append(f"{indent}# YOUR CODE HERE\n{indent}raise NotImplementedError(){newline or chr(10)}")


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

    Parameters
    ----------
    source : str
        One code cell's source.

    Returns
    -------
    str
        The cell as the learner gets it.

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
        elif _END.match(line):
            if region is None:
                raise ValueError("### END SOLUTION without a matching ### BEGIN SOLUTION")
            _close_region(region, indent, line, out)
            region = None
        elif region is not None:
            region.append(line)
        else:
            out.append(line)
    if region is not None:
        raise ValueError("### BEGIN SOLUTION without ### END SOLUTION")
    _refuse_loose_markers(out)
    return "".join(out)


_IGNORABLE = frozenset("\u115f\u1160\u3164\uffa0")  # fillers: letters that show nothing
_TAG = re.compile(r"<[^>]*>")  # an HTML tag in markdown (``<b>BEGIN SOLUTION</b>`` renders as one)


def _marker_like(line: str) -> bool:
    """Whether ``line``, or a ``#`` comment in it, reads as a solution marker: once folded (HTML
    entities and tags out, invisible characters out: format characters, combining marks, fillers;
    NFKC) and reduced to its letters, it begins with BEGIN or END and a word within two edits of
    SOLUTION. Red teams 23 to 26 found a marker spelled another way at each round (a label, a case,
    spaces, ``_``, zero-width characters, full-width letters, ``&nbsp;``, banners, brackets, a typo
    copied to the END line); only the letters decide. Prose that mentions the words mid-sentence
    ("an end-to-end solution") does not read as one.

    Examples
    --------
    >>> lines = ("### begin\u200bsolution", "x = 1  # END_SOLUTION", "# === BEGIN SOLUTON ===")
    >>> [_marker_like(x) for x in (*lines, "an end-to-end solution", "The begin/end solution markers")]
    [True, True, True, False, False]
    """
    return any(_begins_a_marker(part) for part in _folded(line))


def _folded(line: str) -> list[str]:
    """A line's text as it reads (HTML entities and tags out, invisible characters out, NFKC), cut
    at each ``#`` (a comment starts where a marker may stand)."""
    text = unicodedata.normalize("NFKC", _TAG.sub(" ", html.unescape(line)))
    text = "".join(
        c for c in text if c not in _IGNORABLE and unicodedata.category(c) not in ("Cf", "Mn", "Me")
    )
    return text.split("#")


def _nbgrader_region(line: str) -> bool:
    """Whether ``line`` opens or closes one of nbgrader's other regions, which this tool does not
    implement: ``### BEGIN HIDDEN TESTS`` (autograder tests) or ``=== BEGIN MARK SCHEME ===`` (red team
    29: ported from nbgrader, both went to learners with the answers they test or mark).

    Examples
    --------
    >>> lines = ("### END HIDDEN TESTS", "=== BEGIN MARKING SCHEME ===", "# start the test")
    >>> [_nbgrader_region(x) for x in lines]
    [True, True, False]
    """
    for part in _folded(line):
        words = re.findall(r"[^\W\d_]+", part.upper())
        if words and _verb(words[0]) and _region_words(words[1:5]):
            return True
    return False


def _region_words(words: list[str]) -> bool:
    """A word within one edit of HIDDEN, or ending in SCHEME (red team 31: ``MARKING SCHEME``,
    ``MARKSCHEME``; red team 33: not SCHEMA), or HIDDEN and TEST run together."""
    near = any(_edits(w, "HIDDEN") <= 1 or w.endswith("SCHEME") for w in words)
    return near or "HIDDENTEST" in "".join(words)


_MARKER_VERBS = ("BEGIN", "END", "START", "STOP")


def _verb(word: str) -> bool:
    """A marker's verb: END or STOP as written, BEGIN or START within one edit (a typo of a long word;
    red team 33: within one edit, AND, SEND, STEP and TOP opened honest prose as markers)."""
    return word in ("END", "STOP") or any(_edits(word, v) <= 1 for v in ("BEGIN", "START"))


def _begins_a_marker(text: str) -> bool:
    """Whether ``text``'s first words read as a marker: a word like SOLUTION first (red team 27:
    ``### SOLUTION BEGIN``), or BEGIN/END/START/STOP (:func:`_verb`) with a word like
    SOLUTION among the next three (``### BEGIN MODEL SOLUTION``, ``### BEGIN SOLN``), or the two run
    together (``BEGINSOLUTION``)."""
    words = re.findall(r"[^\W\d_]+", text.upper())
    if not words:
        return False
    if _solution_word(words[0]) or _run_together(words[0]):
        return True
    return _verb(words[0]) and any(_solution_word(w) or _run_together(w) for w in words[1:4])


def _solution_word(word: str) -> bool:
    return word in ("SOL", "SOLN", "SOLNS") or _edits(word[:10], "SOLUTION") <= 2


def _run_together(word: str) -> bool:
    verb = next((v for v in _MARKER_VERBS if word.startswith(v)), "")
    return bool(verb) and len(word) > len(verb) and _solution_word(word[len(verb) :])


def _edits(a: str, b: str) -> int:
    """Levenshtein distance (two short words)."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
    return row[-1]


def _refuse_loose_markers(lines: list[str]) -> None:
    """Fail closed on a marker written another way, in a cell of any kind, once its regions are
    out: red team 23's ``### BEGIN SOLUTION (q1)``; red team 24's ``### begin solution``, two
    spaces, a tab, a no-break space, ``## BEGIN SOLUTION`` in markdown, a second labelled region in
    an answer cell; red team 25's zero-width characters, full-width letters, ``BEGIN_SOLUTION``,
    ``BEGIN&nbsp;SOLUTION``; red team 26's banners, brackets, tags and typos; red team 27's
    ``BEGIN MODEL SOLUTION``, ``SOLUTION BEGIN``, ``BEGIN SOLN``: each went to learners as written
    (:func:`_marker_like`)."""
    for line in lines:
        if _nbgrader_region(line):
            raise ValueError(
                f"{line.strip()[:60]!r} opens or closes one of nbgrader's hidden-test or mark-scheme "
                "regions, which this tool does not take: declare hidden checks in the grading cell and "
                "write a hand-graded question's marking in its 'rubric'"
            )
        if _marker_like(line):
            raise ValueError(
                f"{line.strip()[:60]!r} reads like a solution marker but is not one: a marker is "
                "'### BEGIN SOLUTION' or '### END SOLUTION' alone on its line; prose that starts with "
                "these words is refused too (reword its start)"
            )


def _text(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else str(src)


def _is_grading(cell: dict) -> bool:
    if cell.get("cell_type") != "code":
        return False
    tags = (cell.get("metadata") or {}).get("tags") or []
    first = _text(cell).lstrip("\n").split("\n", 1)[0]
    return "grading" in tags or bool(_GRADING_LINE.match(first))


def _answer_region(src: str) -> tuple[str, str]:
    """A hand-graded answer cell's learner text (region -> placeholder) and its model answer."""
    lines = src.splitlines(keepends=True)
    begins = [i for i, x in enumerate(lines) if _BEGIN.match(x)]
    ends = [i for i, x in enumerate(lines) if _END.match(x)]
    if len(begins) != 1 or len(ends) != 1 or ends[0] < begins[0]:
        raise ValueError("an answer cell holds at most one ### BEGIN SOLUTION ... ### END SOLUTION region")
    model = "".join(lines[begins[0] + 1 : ends[0]]).strip()
    learner = [*lines[: begins[0]], ANSWER_PLACEHOLDER + "\n", *lines[ends[0] + 1 :]]
    return "".join(learner).rstrip("\n"), model


def _learner_markdown(src: str) -> str:
    if "### BEGIN SOLUTION" not in src:
        return src
    if not _ANSWER_CELL.search(src):
        raise ValueError(
            "solution regions are only allowed in code cells and in answer cells "
            "(a markdown cell with the line <!-- answer: TARGET --> for a hand-graded question)"
        )
    return _answer_region(src)[0]


def model_answers(notebook: dict) -> dict[str, str]:
    """The model answer of every hand-graded answer cell of a source notebook (``""`` without a region).

    Examples
    --------
    >>> cell = {"cell_type": "markdown",
    ...         "source": "<!-- answer: why -->\\n### BEGIN SOLUTION\\nGraded relevance.\\n### END SOLUTION"}
    >>> model_answers({"cells": [cell]})
    {'why': 'Graded relevance.'}
    """
    out: dict[str, str] = {}
    for cell in notebook.get("cells", []):
        src = _text(cell)
        if cell.get("cell_type") != "markdown" or not _ANSWER_CELL.search(src):
            continue
        model = _answer_region(src)[1] if "### BEGIN SOLUTION" in src else ""
        for target in _ANSWER_CELL.findall(src):
            out.setdefault(target, model)
    return out


def learner_version(notebook: dict) -> dict:
    """The learner notebook for a source notebook: stubs instead of solutions, no outputs, no declaration.

    Parameters
    ----------
    notebook : dict
        The parsed source notebook (not changed).

    Returns
    -------
    dict
        A new notebook.

    Examples
    --------
    >>> solution = "x = 1\\n### BEGIN SOLUTION\\nanswer_q1 = x\\n### END SOLUTION"
    >>> nb = {"cells": [{"cell_type": "code", "source": solution},
    ...                 {"cell_type": "code", "source": "# grading\\nQUESTIONS = []"}]}
    >>> [c["source"] for c in learner_version(nb)["cells"]]
    ['x = 1\\nanswer_q1 = ...  # YOUR ANSWER HERE']
    """
    nb = {k: copy.deepcopy(v) for k, v in notebook.items() if k in _NOTEBOOK_KEYS}
    nb["metadata"] = _kept(notebook.get("metadata"), _NOTEBOOK_METADATA)
    nb["cells"] = [_learner_cell(c) for c in notebook["cells"] if not _is_grading(c)]
    return nb


#: what a learner notebook keeps of its source: an allow-list, never a copy pruned afterwards (red team
#: 22: a solution run's saved widget state, ``metadata.widgets``, showed an answer to every learner)
_NOTEBOOK_KEYS = frozenset({"nbformat", "nbformat_minor"})
_NOTEBOOK_METADATA = frozenset({"kernelspec", "language_info"})
_CELL_KEYS = frozenset({"cell_type", "id"})
#: the authoring keys of nbformat and JupyterLab, none of which holds a run's state (red team 23: the
#: locks ``editable``/``deletable`` an instructor sets on given cells were lost)
_CELL_METADATA = frozenset({"tags", "editable", "deletable", "jupyter", "format", "slideshow", "name"})
_ATTACHMENT = re.compile(r"attachment:([^\s)\"'>]+)")


def _kept(mapping: object, keys: frozenset[str]) -> dict:
    return {k: copy.deepcopy(v) for k, v in mapping.items() if k in keys} if isinstance(mapping, dict) else {}


def _learner_cell(source: dict) -> dict:
    """One cell of the learner notebook: its kind, source (solutions stubbed) and kept keys."""
    cell = _kept(source, _CELL_KEYS)
    cell["metadata"] = _kept(source.get("metadata"), _CELL_METADATA)
    src = _text(source)
    if cell["cell_type"] == "code":
        src = strip_solutions(src)
        cell["outputs"] = []
        cell["execution_count"] = None
    elif cell["cell_type"] == "markdown":
        src = _learner_markdown(src)
    elif "### BEGIN SOLUTION" in src:
        raise ValueError("solution regions are only allowed in code cells and answer cells")
    _refuse_loose_markers(src.splitlines())  # whatever is left, in every kind of cell
    cell["source"] = src
    if cell["cell_type"] != "code" and isinstance(source.get("attachments"), dict):
        shown = set(_ATTACHMENT.findall(src))  # only the pictures the learner's text still shows
        cell["attachments"] = {k: copy.deepcopy(v) for k, v in source["attachments"].items() if k in shown}
    return cell


def dump_notebook(nb: dict) -> str:
    """A notebook as the course writes it (stable key order, one-space indent)."""
    return json.dumps(nb, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


# ------------------------------------------------------------------ the spec file
def grading_cell(notebook: dict) -> str | None:
    """The source of the notebook's grading declaration cell (``None`` if it has none).

    Raises
    ------
    AuthoringError
        When more than one cell is a declaration.

    Parameters
    ----------
    notebook : dict
        The parsed source notebook.

    Returns
    -------
    str or None
        The declaration's source.

    Examples
    --------
    >>> nb = {"cells": [{"cell_type": "code", "source": "x = 1"},
    ...                 {"cell_type": "code", "source": "# grading\\nQUESTIONS = []"}]}
    >>> grading_cell(nb)
    '# grading\\nQUESTIONS = []'
    """
    cells = [_text(c) for c in notebook.get("cells", []) if _is_grading(c)]
    if len(cells) > 1:
        raise AuthoringError(
            "more than one grading declaration cell: keep one (tag `grading` or `# grading`)"
        )
    return cells[0] if cells else None


def _without_magics(src: str) -> str:
    return "\n".join(_MAGIC.sub(r"\1pass  # \2", line) for line in src.splitlines())


def spec_source(notebook: dict, declaration: str, origin: str) -> str:
    """The text of ``<name>.grader.py``: the source's code cells (solutions kept), then the declaration.

    Parameters
    ----------
    notebook : dict
        The parsed source notebook.
    declaration : str
        The grading declaration's source.
    origin : str
        The source notebook's name, quoted in the header.

    Returns
    -------
    str
        The spec's Python source.

    Examples
    --------
    >>> nb = {"cells": [{"cell_type": "code", "source": "x = 1"}]}
    >>> print(spec_source(nb, "QUESTIONS = []", "hw.ipynb").splitlines()[2])
    It holds the solutions and the hidden cases: keep it away from learners.
    """
    parts = [
        f'"""Graded spec written by `python -m helpers.grade author` from {origin}.\n\n'
        "It holds the solutions and the hidden cases: keep it away from learners.\n"
        '"""\n'
    ]
    for index, cell in enumerate(notebook.get("cells", []), start=1):
        if cell.get("cell_type") == "code" and not _is_grading(cell):
            parts.append(f"# ---- cell {index}\n{_without_magics(_text(cell))}\n")
    answers = model_answers(notebook)
    parts.append(f"# ---- hand-graded answer cells and their model answers\n__answer_cells__ = {answers!r}\n")
    parts.append(f"# ---- grading declaration\n{declaration.rstrip()}\n")
    return "\n".join(parts)


def _run_spec(text: str, origin: str) -> dict:
    module = types.ModuleType("helpers_grade_authored")
    module.__file__ = origin
    try:
        code = compile(text, origin, "exec")
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            exec(code, module.__dict__)
    except Exception as exc:
        raise AuthoringError(f"{origin} failed to run: {type(exc).__name__}: {exc}") from None
    return module.__dict__


# ------------------------------------------------------------------ declaration -> Assignment
def _fixed(cases: Any, where: str):
    if not isinstance(cases, (list, tuple)) or not all(isinstance(c, (list, tuple)) for c in cases):
        raise AuthoringError(f"{where}: 'cases' must be a list of argument tuples, e.g. [(1, 2), (3, 4)]")
    frozen = [tuple(c) for c in cases]
    return lambda rng: [copy.deepcopy(c) for c in frozen]


def _drawn(generate: Any, n: Any, where: str):
    if not callable(generate) or not isinstance(n, int) or n < 1:
        raise AuthoringError(f"{where}: 'generate' must be a function of rng and 'n' a count >= 1")
    return lambda rng: [tuple(generate(rng)) for _ in range(n)]


def _check(entry: Any, where: str) -> Check:
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
        raise AuthoringError(f"{where}: each check is a dict with a 'name'")
    where = f"{where}, check {entry['name']!r}"
    known = {"name", "cases", "generate", "n", "make", "hidden", "general"}
    if set(entry) - known:
        raise AuthoringError(f"{where}: unknown keys {sorted(set(entry) - known)}; use {sorted(known)}")
    sources = [k for k in ("cases", "generate", "make") if k in entry]
    if len(sources) != 1:
        raise AuthoringError(f"{where}: give exactly one of 'cases', 'generate' (with 'n') or 'make'")
    if "cases" in entry:
        make = _fixed(entry["cases"], where)
    elif "generate" in entry:
        make = _drawn(entry["generate"], entry.get("n", 10), where)
    else:
        if not callable(entry["make"]):
            raise AuthoringError(f"{where}: 'make' must be a function of rng returning argument tuples")
        make = entry["make"]
    return Check(entry["name"], make, hidden=bool(entry.get("hidden")), general=bool(entry.get("general")))


def _numbers(entry: dict, where: str) -> tuple[float, float, float]:
    try:
        points = float(entry["points"])
        tols = float(entry.get("abs_tol", 1e-9)), float(entry.get("rel_tol", 1e-9))
    except (KeyError, TypeError, ValueError):
        raise AuthoringError(
            f"{where}: 'points' (a number > 0) is required; tolerances are numbers"
        ) from None
    if not points > 0 or min(tols) < 0:
        raise AuthoringError(f"{where}: points must be > 0 and tolerances >= 0")
    return points, *tols


def _text_question(index: int, entry: dict, namespace: dict, where: str) -> Question:
    """A hand-graded question: an answer cell in the source, points and a rubric."""
    target = entry["target"]
    known = {"target", "kind", "points", "rubric", "title"}
    if set(entry) - known:
        raise AuthoringError(f"{where}: unknown keys {sorted(set(entry) - known)} for a text question")
    cells = namespace.get("__answer_cells__", {})
    if target not in cells:
        raise AuthoringError(
            f"{where}: the source notebook has no answer cell for {target!r}: add a markdown cell with the "
            f"line {answer_marker(target)}"
        )
    rubric = entry.get("rubric")
    if not isinstance(rubric, str) or not rubric.strip():
        raise AuthoringError(f"{where}: a text question needs a 'rubric' (what earns which points)")
    points = _numbers(entry, where)[0]
    model = cells[target]
    title = str(entry.get("title", target))
    return Question(f"q{index}", title, target, points, lambda *a: model, (), "text", "text", rubric=rubric)


def _question(index: int, entry: Any, namespace: dict) -> Question:
    where = f"question {index}"
    if not isinstance(entry, dict) or not isinstance(entry.get("target"), str):
        raise AuthoringError(f"{where}: each question is a dict with a 'target' (the function or variable)")
    target = entry["target"]
    where = f"question {index} ({target})"
    if entry.get("kind", "auto") not in ("auto", "text"):
        raise AuthoringError(f"{where}: 'kind' is 'text' (hand-graded) or left out (graded by checks)")
    if entry.get("kind") == "text":
        return _text_question(index, entry, namespace, where)
    if target not in namespace:
        raise AuthoringError(f"{where}: the source notebook defines no {target!r}")
    result = entry.get("result", "number")
    if result not in RESULTS:
        raise AuthoringError(f"{where}: result {result!r} is not one of {', '.join(RESULTS)}")
    points, abs_tol, rel_tol = _numbers(entry, where)
    answer = namespace[target]
    if not callable(answer):
        # an answer variable's reference is called with the run's seed; an authored answer is fixed
        checks: tuple[Check, ...] = (Check("answer", lambda rng: [()]),)
        kind = "value"
        reference = lambda seed=None: copy.deepcopy(answer)
    else:
        raw = entry.get("checks") or []
        if not raw:
            raise AuthoringError(f"{where}: a function needs 'checks' (at least one hidden check scores)")
        checks, kind, reference = tuple(_check(c, where) for c in raw), "function", answer
    title = str(entry.get("title", target))
    return Question(f"q{index}", title, target, points, reference, checks, kind, result, abs_tol, rel_tol)


def _assignment(namespace: dict, origin: str) -> Assignment:
    head, questions = namespace.get("ASSIGNMENT"), namespace.get("QUESTIONS")
    if not isinstance(head, dict) or not isinstance(questions, (list, tuple)) or not questions:
        raise AuthoringError(
            f"{origin}: the declaration must define ASSIGNMENT (a dict) and QUESTIONS (a list)"
        )
    name = head.get("name")
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", name):
        raise AuthoringError(
            f"{origin}: ASSIGNMENT['name'] must be a short file-safe name, e.g. 'my-homework'"
        )
    built = tuple(_question(i, q, namespace) for i, q in enumerate(questions, start=1))
    targets = [q.target for q in built]
    if len(set(targets)) != len(targets):
        raise AuthoringError(f"{origin}: a target is declared twice: {targets}")
    packages = tuple(head.get("packages", ("numpy",)))
    return Assignment(name, str(head.get("title", name)), built, str(head.get("notes", "")), packages)


def _validate(assignment: Assignment) -> None:
    """Every case builds, is made of plain values and the reference answers it."""
    for q in assignment.questions:
        try:
            cases = build_cases(assignment, q, seed=0)
            for _, args in cases:
                json.dumps([_encode(a) for a in args])
                if q.kind == "function":
                    q.reference(*copy.deepcopy(args))
            if q.kind == "value":
                json.dumps(_encode(q.reference()))
        except Exception as exc:
            raise AuthoringError(
                f"{q.target}: a case cannot be built or answered by the solution "
                f"({type(exc).__name__}: {str(exc)[:200]}); arguments must be plain values "
                "(numbers, strings, lists, tuples, dicts, sets)"
            ) from None


def load_spec(path: Path) -> Assignment:
    """The assignment of an authored spec (``<name>.grader.py``), checked.

    Raises
    ------
    AuthoringError
        When the file cannot be read, fails to run, or declares something unusable.

    Parameters
    ----------
    path : pathlib.Path
        A ``<name>.grader.py`` written by :func:`author` (it runs: load only specs you wrote).

    Returns
    -------
    Assignment
        The declared assignment.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AuthoringError(f"cannot read the spec {path}: {exc}") from None
    assignment = _assignment(_run_spec(text, str(path)), str(path))
    _validate(assignment)
    return assignment


def author(source: Path, out: Path, grading: Path | None = None) -> tuple[Path, Path, Assignment]:
    """Write ``out/<name>.ipynb`` (learner) and ``out/<name>.grader.py`` (spec) from a source notebook.

    Parameters
    ----------
    source : pathlib.Path
        The source notebook: solutions between ``### BEGIN SOLUTION`` and ``### END SOLUTION``, and
        a grading declaration cell (or ``grading``).
    out : pathlib.Path
        The folder written to.
    grading : pathlib.Path, optional
        The declaration as a Python file, instead of a cell of the notebook.

    Returns
    -------
    tuple of (pathlib.Path, pathlib.Path, Assignment)
        The learner notebook, the spec, and the assignment the spec declares (already loaded and
        checked, so a broken declaration fails here, not at grading).
    """
    try:
        notebook = json.loads(Path(source).read_text(encoding="utf-8"))
        learner = learner_version(notebook)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise AuthoringError(f"cannot read the source notebook {source}: {exc}") from None
    declaration = Path(grading).read_text(encoding="utf-8") if grading else grading_cell(notebook)
    if declaration is None:
        raise AuthoringError(
            f"{source} has no grading declaration: add a code cell starting with '# grading' (or tagged "
            "'grading') that defines ASSIGNMENT and QUESTIONS, or pass --grading FILE.py"
        )
    text = spec_source(notebook, declaration, Path(source).name)
    assignment = _assignment(_run_spec(text, str(source)), str(source))
    _validate(assignment)
    _check_stubs(learner, assignment)
    _refuse_given_answers(learner, assignment, Path(source).name)
    out.mkdir(parents=True, exist_ok=True)
    notebook_path = out / f"{assignment.name}.ipynb"
    spec_path = out / f"{assignment.name}{SPEC_SUFFIX}"
    notebook_path.write_text(dump_notebook(learner), encoding="utf-8")
    spec_path.write_text(text, encoding="utf-8")
    # the learner's self-check: public cases and their values only (helpers.grade.assignments.check)
    (out / f"{assignment.name}{CHECKS_SUFFIX}").write_text(public_checks_file(assignment), encoding="utf-8")
    return notebook_path, spec_path, assignment


def _check_stubs(learner: dict, assignment: Assignment) -> None:
    """Every graded target is still in the learner notebook (as a stub): learners know what to write."""
    code = "\n".join(_text(c) for c in learner["cells"] if c.get("cell_type") == "code")
    texts = text_answers(learner, [q.target for q in assignment.questions if q.kind == "text"])
    missing = [
        q.target
        for q in assignment.questions
        if q.target not in texts and not re.search(rf"\b{re.escape(q.target)}\b", code)
    ]
    if missing:
        raise AuthoringError(
            f"the learner notebook would not mention {missing}: keep the `def` line (or the variable) "
            "outside the ### BEGIN SOLUTION region"
        )


def _refuse_given_answers(learner: dict, assignment: Assignment, origin: str) -> None:
    """Fail closed when the learner notebook, as released, already holds an answer.

    The positive side of the marker rules (:func:`_marker_like` reads spellings; this reads what the
    release *does*). The learner notebook is run as the grader runs it (:func:`_run_release`), and
    a graded function is given away when the target under any binding it had, or any function the
    release's own code defines, is right on every case of seed 0; an answer variable, when it held
    the solution's value after any statement or the release holds it under a label (a name, a dict
    key, a table cell) (red teams 29, 33, 35: a draft above the marked version, an answer line above
    its region, the solution as a helper the region calls, a value computed above it). A fixed
    hidden case is given away when it equals a value the release holds or a literal of its code or
    of the code in its text; an answer cell, when a learner would hand it in with the instructor's
    text in it.
    """
    targets = [q.target for q in assignment.questions if q.kind != "text"]
    held, functions, namespace = _run_release(learner, targets, origin)
    values = [*_release_values(namespace), *_literals(learner)]
    given = [
        f"{t} (a hidden case of it is in the notebook's code, text or values)"
        for t in _shown_cases(assignment, values)
    ]
    labelled = _labelled_values(namespace)
    for q in assignment.questions:
        found = _giving(assignment, q, held.get(q.target, []), functions) or _given_value(q, labelled)
        given += [f"{q.target} ({found})"] if found else []
    given += [
        f"{t} (its answer cell has no model-answer region)" for t in _open_answer_cells(learner, assignment)
    ]
    if given:
        raise AuthoringError(
            f"the learner notebook already answers {'; '.join(given)}: put each solution between "
            "'### BEGIN SOLUTION' and '### END SOLUTION' (a draft or helper outside a region is handed "
            "out too), keep only the answer line and the model-answer region in an answer cell (the "
            "question goes in a cell above), keep hidden cases in the grading cell, and make sure the "
            "given code does not compute the answer"
        )


def _open_answer_cells(learner: dict, assignment: Assignment) -> list[str]:
    """Hand-graded targets whose answer cell reaches the learner without the placeholder: the cell
    had no model-answer region, so whatever the instructor wrote there is handed out as written."""
    placeholder: dict[str, bool] = {}
    for cell in learner["cells"]:
        if cell.get("cell_type") == "markdown":
            holds = ANSWER_PLACEHOLDER in _text(cell).splitlines()
            for target in _ANSWER_CELL.findall(_text(cell)):  # every marked cell (red team 33: a second one)
                placeholder[target] = placeholder.get(target, True) and holds
    return [q.target for q in assignment.questions if q.kind == "text" and not placeholder.get(q.target)]


def _run_release(learner: dict, targets: list[str], origin: str) -> tuple[dict[str, list], list, dict]:
    """Run the learner notebook statement by statement, as the grader does (the cells split by
    :func:`helpers.grade.prepare.prepare_notebook`, an error never stopping the next statement; a cell
    magic's body runs too, as in the spec), and collect what each target held after any statement and
    every callable the notebook's own code defines (:func:`_defined`, :func:`_reachable`); and the
    namespace it leaves."""
    sources = [_without_magics(_text(c)) for c in learner["cells"] if c.get("cell_type") == "code"]
    namespace = types.ModuleType("helpers_grade_release").__dict__
    namespace["__file__"] = origin
    held: dict[str, list] = {t: [] for t in targets}
    functions: dict[int, Any] = {}
    codes: list[types.CodeType] = []
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        for cell in prepare_notebook(sources)[0]:
            for statement in cell["statements"]:
                codes += _run_statement(cell["index"], statement, namespace)
                _collect(namespace, held, functions)
    seen = {id(f.__code__) for f in functions.values()}
    defined = [f for f in _defined(codes, namespace) if id(f.__code__) not in seen]
    return held, [*functions.values(), *_reachable(namespace), *defined], namespace


def _release_values(namespace: dict) -> list:
    """Every value the release binds, and the items of its dicts, lists, tuples and sets to depth 4
    (at most 100,000 in all)."""
    return _held(namespace, _items)


def _held(namespace: dict, children: Any) -> list:
    """The release's bindings and, to depth 4, what ``children(value)`` finds in them (at most
    100,000 values, 10,000 from one value)."""
    out: list = []
    stack = [(v, 0) for name, v in list(namespace.items()) if not name.startswith("__")]
    while stack and len(out) < 100_000:
        value, depth = stack.pop()
        out.append(value)
        if depth < 4:
            stack += [(x, depth + 1) for x in itertools.islice(children(value), 10_000)]
    return out


def _items(value: Any) -> Any:
    if isinstance(value, dict):
        return value.values()
    return value if isinstance(value, (list, tuple, set, frozenset)) else ()


def _literals(learner: dict) -> list:
    """The value of every literal in the learner notebook: its code, and the code in its markdown's
    fences and spans (red team 35: a hidden case in a given example call, written with double quotes
    or split by Black, or shown as a worked example in the text)."""
    out = []
    for cell in learner["cells"]:
        text = _text(cell)
        if cell.get("cell_type") == "code":
            sources = [_without_magics(text)]
        else:
            sources = [m.group(1) or m.group(2) for m in _MARKDOWN_CODE.finditer(text)]
        for source in sources:
            out += _source_literals(source)
    return out


_MARKDOWN_CODE = re.compile(r"```[^\n]*\n(.*?)```|`([^`\n]+)`", re.DOTALL)


def _source_literals(source: str) -> list:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Constant)):
            with contextlib.suppress(Exception):
                out.append(ast.literal_eval(node))
    return out


def _labelled_values(namespace: dict) -> list:
    """What the release holds under a label: a name, a dict's key (to depth 4), a pandas cell. An item
    of a list, tuple or array is one number among many (red team 35: a plot's reciprocal ranks held an
    honest answer's 1/3)."""
    return _held(namespace, lambda value: value.values() if isinstance(value, dict) else _table_cells(value))


def _table_cells(value: Any) -> list:
    """The cells of a pandas Series or DataFrame (at most 100,000; labelled by its index)."""
    if not (hasattr(value, "to_numpy") and hasattr(value, "index")):
        return []
    with contextlib.suppress(Exception):
        cells = value.to_numpy()
        return cells.ravel().tolist() if cells.size <= 100_000 else []
    return []


def _shown_cases(assignment: Assignment, values: list) -> list[str]:
    """Targets with a fixed hidden case (the same at seeds 0 and 1) that the release shows: its
    arguments, or one of them written out in ten characters or more, equal a value the release holds
    at any depth or a literal of its code or text (red teams 31, 33 and 35: hidden cases kept in a cell
    above the declaration, nested in a dict, returned by a given function, in an example call)."""
    shown = {_key(v) for v in values} - {""}
    return [
        q.target for q in assignment.questions if any(_shows(a, shown) for a in _fixed_hidden(assignment, q))
    ]


def _shows(args: tuple, shown: set[str]) -> bool:
    """Whether a case's arguments are shown: the whole tuple, or one distinctive argument (ten
    characters or more as JSON: ``[1, 2, 3]`` is a plot's cutoffs by chance). Compared by value, so
    quotes, layout and a set's order do not matter (red team 35)."""
    parts = [a for a in args if len(_key(a)) >= 10]
    return _key(args) in shown or any(_key(a) in shown for a in parts)


def _fixed_hidden(assignment: Assignment, question: Question) -> list[tuple]:
    hidden = {c.name for c in question.checks if c.hidden}
    drawn = zip(build_cases(assignment, question, 0), build_cases(assignment, question, 1), strict=False)
    return [a for (name, a), (other, b) in drawn if name in hidden and name == other and _key(a) == _key(b)]


def _key(value: Any) -> str:
    """A value as comparable text: tuples as lists, sets sorted; ``""`` for what has none."""
    try:
        return json.dumps(_plain(value), sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return ""


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_plain(x) for x in value]
    if isinstance(value, (set, frozenset)):
        return sorted((_plain(x) for x in value), key=repr)
    if isinstance(value, dict):
        return sorted(([_plain(k), _plain(v)] for k, v in value.items()), key=repr)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError("not a plain value")  # an array, a frame, an object: never one of a case's arguments


def _run_statement(index: int, statement: dict, namespace: dict) -> list[types.CodeType]:
    padded = "\n" * (int(statement["line"]) - 1) + statement["source"]
    try:
        code = compile(padded, f"<cell {index}>", "exec")
    except (SyntaxError, ValueError):
        return []
    try:
        exec(code, namespace)
    except (Exception, SystemExit):  # a stub raises, and what uses it fails: the next statement runs
        pass
    return [code]


def _collect(namespace: dict, held: dict[str, list], functions: dict[int, Any]) -> None:
    for target, seen in held.items():
        if target in namespace and not any(namespace[target] is x for x in seen):
            seen.append(namespace[target])
    for value in list(namespace.values()):
        if _from_release(value):
            functions.setdefault(id(value), value)


def _from_release(value: Any) -> bool:
    """Whether ``value`` is a function the release's own code defined (not an import's)."""
    code = value.__code__ if isinstance(value, types.FunctionType) else None
    return code is not None and code.co_filename.startswith("<cell ")


def _defined(codes: list[types.CodeType], namespace: dict) -> list:
    """A function for every code object the release compiled, at any depth, that needs no closure
    (red team 31: a reference nested in a given check, a static method, a lambda in a dict)."""
    out, stack = [], [c for code in codes for c in code.co_consts if isinstance(c, types.CodeType)]
    while stack:
        code = stack.pop()
        stack += [c for c in code.co_consts if isinstance(c, types.CodeType)]
        if not code.co_freevars and code.co_argcount:
            out.append(types.FunctionType(code, namespace))
    return out


def _reachable(namespace: dict) -> list:
    """Callables one step from the release's bindings that run its own functions: a
    ``functools.partial`` of one, a method of a class or an instance it defined, an item of a dict,
    list or tuple (red team 31)."""
    out = []
    for value in list(namespace.values()):
        items = (
            list(value.values())
            if isinstance(value, dict)
            else value
            if isinstance(value, (list, tuple))
            else []
        )
        out += [x for x in items if _from_release(x)]
        out += [value] if _from_release(getattr(value, "func", None)) else []
        out += _methods(value)
    return out


def _methods(value: Any) -> list:
    """The release-defined methods of a class it defined, or of an instance of one, bound as called."""
    kind = value if isinstance(value, type) else type(value)
    if kind.__module__ != "helpers_grade_release" or isinstance(value, types.ModuleType):
        return []
    found = []
    holders = [value]
    if isinstance(value, type):  # a class never instantiated: its methods on a bare instance (red team 35)
        with contextlib.suppress(Exception):
            holders.append(object.__new__(value))
    for holder in holders:
        for name in list(vars(kind)):
            with contextlib.suppress(Exception):
                method = getattr(holder, name)
                found += [method] if _from_release(getattr(method, "__func__", method)) else []
    return found


def _given_value(question: Question, values: list) -> str | None:
    """An answer variable's value held anywhere in the release, other than by the target (red team
    33: ``answer_q2 = ndcg`` with ``ndcg`` computed above the region). *Decision:* integers and
    floats of at most two decimals are set aside: a given ``k = 3`` or ``alpha = 0.5`` equals such an
    answer by chance."""
    if question.kind != "value":
        return None
    distinct = [v for v in values if _distinctive(v)]
    right = any(_right(question, lambda v=v: v, question.reference) for v in distinct)
    return "a value the notebook computes is the answer" if right else None


def _distinctive(value: Any) -> bool:
    if isinstance(value, float):
        return round(value, 2) != value
    return isinstance(value, (str, list, dict)) and len(value) > 0


def _giving(assignment: Assignment, question: Question, held: list, functions: list) -> str | None:
    """How the release gives ``question`` away (None: it does not)."""
    if question.kind == "text":
        return None  # its answer cell is read by _open_answer_cells
    if question.kind == "value":
        right = any(_right(question, lambda v=v: v, question.reference) for v in held)
        return "its answer variable holds the solution's value" if right else None
    cases = [args for _, args in build_cases(assignment, question, seed=0)]
    others = [f for f in functions if not any(f is h for h in held)]
    found = next((c for c in [*held, *others] if _right_on_all(question, c, cases)), None)
    return None if found is None else _how(found, question.target)


def _how(found: Any, target: str) -> str:
    name = getattr(found, "__name__", target)
    if name == target:
        return "its function is right on every case"
    return f"the release's {name!r} is right on every case"


def _right_on_all(question: Question, candidate: Any, cases: list[tuple]) -> bool:
    return callable(candidate) and bool(cases) and all(_right_on(question, candidate, a) for a in cases)


def _right_on(question: Question, candidate: Any, args: tuple) -> bool:
    try:
        inspect.signature(candidate).bind(*args)
    except (TypeError, ValueError):  # takes other arguments: not a candidate
        return False
    return _right(
        question, lambda: candidate(*copy.deepcopy(args)), lambda: question.reference(*copy.deepcopy(args))
    )


def _right(question: Question, value: Any, expected: Any) -> bool:
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            return compare(question, value(), expected()) is None
    except (Exception, SystemExit):
        return False


def hidden_case_count(assignment: Assignment, seed: int = 0) -> dict[str, int]:
    """Number of hidden cases per target at ``seed`` (what an instructor checks before a term)."""
    out = {}
    for q in assignment.questions:
        hidden = {c.name for c in q.checks if c.hidden}
        out[q.target] = sum(1 for name, _ in build_cases(assignment, q, seed) if name in hidden)
    return out


def main(argv: list[str]) -> int:
    """``python -m helpers.grade author SOURCE.ipynb --out DIR [--grading FILE.py]``.

    Parameters
    ----------
    argv : list of str
        The arguments after ``author``.

    Returns
    -------
    int
        0 when both files were written, 2 for a usage or authoring error (the message says what
        to fix).
    """
    parser = argparse.ArgumentParser(
        prog="python -m helpers.grade author",
        description="Write a learner notebook and a graded spec from a source notebook with solution markers "
        "and a grading declaration; grade with --assignment DIR/<name>.grader.py.",
    )
    parser.add_argument("source", help="the source notebook (solutions between ### BEGIN/END SOLUTION)")
    parser.add_argument("--out", required=True, help="folder for <name>.ipynb and <name>.grader.py")
    parser.add_argument("--grading", help="the declaration as a Python file, instead of a notebook cell")
    args = parser.parse_args(argv)
    try:
        notebook, spec, assignment = author(
            Path(args.source), Path(args.out), args.grading and Path(args.grading)
        )
    except AuthoringError as exc:
        print(f"python -m helpers.grade author: {exc}", file=sys.stderr)
        return 2
    counts = hidden_case_count(assignment)
    print(f"wrote {notebook} (for learners) and {spec} (keep private: solutions and hidden cases)")
    print(
        f"and {notebook.with_suffix(CHECKS_SUFFIX)} (for learners, beside the notebook: "
        f'check("<function>", <function>, assignment="{assignment.name}{CHECKS_SUFFIX}") runs the '
        "public checks)"
    )
    for q in assignment.questions:
        how = (
            "hand-graded (review page)" if q.kind == "text" else f"{counts[q.target]} hidden case(s) per run"
        )
        print(f"  {q.target}: {q.points:g} points, {how}, result {q.result}")
    return 0
