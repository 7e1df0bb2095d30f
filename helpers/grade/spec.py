"""What an assignment is and how its answers are judged: the spec the three assignments are written in.

- :class:`Check`, :class:`Question`, :class:`Assignment`: an assignment lists questions;
  a question names the learner's function or answer variable, its points, the reference,
  and its checks (named properties, each with public or hidden cases).
- :func:`build_cases`: the cases of one question for one seed.
- :func:`compare`, :func:`type_problem`: whether a returned value is right, with the
  rules of :mod:`helpers.checking.values` (the notebooks' checks use the same ones).
- :func:`text_answers`: the answers of hand-graded questions (``kind="text"``): a markdown cell
  holding the line ``<!-- answer: TARGET -->``; an instructor scores them in the review page.

The assignments themselves are in :mod:`helpers.grade.assignments`.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from helpers.checking.values import as_number, is_dict, judge_item, judge_number

__all__ = [
    "Check",
    "Question",
    "Assignment",
    "build_cases",
    "public_indices",
    "compare",
    "type_problem",
    "text_answers",
    "answer_marker",
    "ANSWER_PLACEHOLDER",
    "MAX_ANSWER_CHARS",
]

#: The learner's stand-in text of a hand-graded answer cell: left as it is, nothing was answered.
ANSWER_PLACEHOLDER = "_Write your answer here._"
#: Longer answers are cut here (with a note): a reader's page, not a file store.
MAX_ANSWER_CHARS = 20_000
_MARKER = re.compile(r"^\s*<!--\s*answer:\s*([A-Za-z_][A-Za-z0-9_]*)\s*-->\s*$", re.MULTILINE)


# --------------------------------------------------------------------------- spec
@dataclass(frozen=True)
class Check:
    """A named property of a question and how to make its cases.

    ``make(rng)`` returns a list of argument tuples. Public checks ignore
    ``rng`` (hand cases); hidden ones draw from it. A *general* check draws
    random inputs of every kind: a function that returns one value on all of
    them does not compute anything (see :mod:`helpers.grade.scoring`).

    Parameters
    ----------
    name : str
        What the check verifies, as the feedback names it (``"k larger than the list"``).
    make : callable
        ``make(rng)`` -> list of argument tuples.
    hidden : bool
        Whether its cases are hidden from the learner (then they are drawn anew for each run's
        seed, and only the check's name and verdict are shown).
    general : bool
        Whether it draws random inputs of every kind.

    Examples
    --------
    >>> shorter = Check("a list shorter than k", lambda rng: [(["a"], {"a"}, 4)])
    >>> shorter.make(None), shorter.hidden
    ([(['a'], {'a'}, 4)], False)
    """

    name: str
    make: Callable[[random.Random], list[tuple]]
    hidden: bool = False
    general: bool = False


@dataclass(frozen=True)
class Question:
    """One graded question: a function to write or an answer variable to set.

    ``reference`` computes the expected value: called with a case's arguments for a function,
    and with the grading run's seed for an answer variable (whose data change with each run).
    A hand-graded question (``kind="text"``) has no checks: its ``reference`` returns the model
    answer, and its ``rubric`` is what the instructor scores against in the review page.

    Parameters
    ----------
    name : str
        The question's name in the reports (``"q1"``).
    title : str
        A one-line description.
    target : str
        The function or variable the learner defines.
    points : float
        Its points, shared by its scored checks.
    reference : callable
        Computes the expected value.
    checks : tuple of Check
        Its checks (none for a hand-graded question).
    kind : str
        ``"function"``, ``"value"`` or ``"text"`` (hand-graded).
    result : str
        What a returned value must be: ``"unit"`` (a float in [0, 1]), ``"nonneg"``, ``"number"``,
        ``"exact"`` (an id, compared exactly) or ``"float_dict"``.
    abs_tol, rel_tol : float
        The tolerances of :func:`math.isclose` for a number.
    rubric : str
        For a hand-graded question, what the instructor scores against.

    Examples
    --------
    >>> from helpers.grade.assignments import ASSIGNMENTS
    >>> q = ASSIGNMENTS["from-scratch"].question("precision_at_k")
    >>> q.kind, q.type_check
    ('function', 'returns a float in [0, 1]')
    """

    name: str
    title: str
    target: str
    points: float
    reference: Callable[..., Any]
    checks: tuple[Check, ...] = ()
    kind: str = "function"  # "function", "value" or "text" (hand-graded)
    result: str = "unit"  # unit | nonneg | number | exact | float_dict
    abs_tol: float = 1e-9
    rel_tol: float = 1e-9
    rubric: str = ""

    @property
    def type_check(self) -> str | None:
        """Name of the extra type/range check run over every returned value."""
        return (
            {
                "unit": "returns a float in [0, 1]",
                "nonneg": "returns a non-negative float",
            }.get(self.result)
            if self.kind == "function"
            else None
        )


@dataclass(frozen=True)
class Assignment:
    """One graded notebook: its questions and what its learners may import while graded.

    ``sandbox_packages`` are the top-level import names learners may use while graded;
    the sandbox holds them and the packages they require, read from the installed
    packages' metadata (never a hand list), and never the grader (``helpers.grade``).

    Parameters
    ----------
    name : str
        The name ``--assignment`` takes (``"from-scratch"``).
    title : str
        A one-line description for the reports.
    questions : tuple of Question
        The graded questions, in the notebook's order.
    notes : str
        A sentence on what the assignment allows (``"helpers may be used; the answers are numbers."``).
    sandbox_packages : tuple of str
        The packages a learner may import.

    Examples
    --------
    >>> from helpers.grade.assignments import ASSIGNMENTS
    >>> a = ASSIGNMENTS["from-scratch"]
    >>> a.question("precision_at_k").target
    'precision_at_k'
    """

    name: str
    title: str
    questions: tuple[Question, ...]
    notes: str = ""
    sandbox_packages: tuple[str, ...] = field(default=("numpy",))

    @property
    def allow_helpers(self) -> bool:
        """Whether ``helpers`` is importable while grading (only where its use is the point)."""
        return "helpers" in self.sandbox_packages

    @property
    def max_score(self) -> float:
        return float(sum(q.points for q in self.questions))

    def question(self, name_or_target: str) -> Question:
        for q in self.questions:
            if name_or_target in (q.name, q.target):
                return q
        raise KeyError(
            f"{self.name} has no question {name_or_target!r}; "
            f"choose from {[q.target for q in self.questions]}"
        )


# ---------------------------------------------------------------- cases & compare
def build_cases(assignment: Assignment, question: Question, seed: int) -> list[tuple[str, tuple]]:
    """All cases of a question as ``(check name, arguments)``, deterministic in ``seed``.

    Each check gets its own random stream, seeded from ``seed`` and the
    assignment, question and check names, so adding a check does not change
    the cases of the others.

    Parameters
    ----------
    assignment : Assignment
        The assignment (its name seeds the streams).
    question : Question
        The question.
    seed : int
        The grading run's seed (drawn once per assignment and kept in the gradebook).

    Returns
    -------
    list of (str, tuple)
        The cases, check by check.

    Examples
    --------
    >>> from helpers.grade.assignments import ASSIGNMENTS
    >>> a = ASSIGNMENTS["from-scratch"]
    >>> q = a.question("precision_at_k")
    >>> build_cases(a, q, seed=1) == build_cases(a, q, seed=1)
    True
    >>> build_cases(a, q, seed=1) == build_cases(a, q, seed=2)
    False
    """
    out = []
    for chk in question.checks:
        rng = random.Random(f"{seed}|{assignment.name}|{question.name}|{chk.name}")
        for args in chk.make(rng):
            out.append((chk.name, tuple(args)))
    return out


def public_indices(question: Question, cases: list[tuple[str, tuple]]) -> list[int]:
    """Positions of the public cases (those of checks that are not hidden) among ``cases``.

    The sandbox runs them before any hidden case, so what the learner's code did on them may be shown.

    Parameters
    ----------
    question : Question
        The question whose checks say which are hidden.
    cases : list of (str, tuple)
        As :func:`build_cases` returns them.

    Returns
    -------
    list of int
        The indices, in order.

    Examples
    --------
    >>> from helpers.grade.assignments import ASSIGNMENTS
    >>> q = ASSIGNMENTS["from-scratch"].question("precision_at_k")
    >>> public_indices(q, [("worked examples", ()), ("randomized cases", ()), ("worked examples", ())])
    [0, 2]
    """
    hidden = {c.name for c in question.checks if c.hidden}
    return [i for i, (check, _) in enumerate(cases) if check not in hidden]


def _is_number(value: Any) -> bool:
    return as_number(value)[1] is None


def _compare_items(value: Any, expected: dict) -> str | None:
    if not is_dict(value):
        return f"returned a {type(value).__name__}, not a dict"
    if set(value) != set(expected):
        return "the keys (users) are not the expected ones"
    bad = [u for u in expected if not judge_item(value[u], expected[u]).ok]
    return f"wrong held-out item for {len(bad)} user(s)" if bad else None


def _compare_numbers(question: Question, value: Any, expected: dict) -> str | None:
    if not is_dict(value):
        return f"returned a {type(value).__name__}, not a dict"
    if set(value) != set(expected):
        return f"the keys must be exactly {sorted(expected)}"
    for key in sorted(expected):
        problem = judge_number(
            value[key], float(expected[key]), rel_tol=question.rel_tol, abs_tol=question.abs_tol
        ).problem
        if problem:
            return f"{key}: {problem}"
    return None


def compare(question: Question, value: Any, expected: Any) -> str | None:
    """``None`` if ``value`` matches ``expected``; otherwise what is wrong.

    Every comparison goes through :mod:`helpers.checking.values`: a number is
    a built-in or NumPy int/float (never a bool), NaN and infinities never
    match, and numbers are compared with :func:`math.isclose` at the
    question's tolerances; item ids must match exactly.

    Parameters
    ----------
    question : Question
        Gives the kind of result and the tolerances.
    value : Any
        The learner's value, decoded.
    expected : Any
        The reference's value.

    Returns
    -------
    str or None
        None when right; otherwise a description of the learner's value (never the expected
        one).

    Examples
    --------
    >>> from helpers.grade.assignments import ASSIGNMENTS
    >>> q = ASSIGNMENTS["from-scratch"].question("precision_at_k")
    >>> compare(q, 0.4, 2 / 5) is None
    True
    >>> compare(q, True, 1.0)
    'returned a bool, not a number'
    >>> compare(q, float("nan"), 0.5)
    'returned nan, not a finite number'
    """
    if question.result == "exact":
        return _compare_items(value, expected)
    if question.result == "float_dict":
        return _compare_numbers(question, value, expected)
    return judge_number(value, float(expected), rel_tol=question.rel_tol, abs_tol=question.abs_tol).problem


def type_problem(question: Question, value: Any) -> str | None:
    """Problem for the question's type/range check (``None`` if fine).

    The check every returned value must pass whatever the case: a float in [0, 1] for a
    ``"unit"`` result, a non-negative one for ``"nonneg"``.

    Parameters
    ----------
    question : Question
        The question whose ``result`` names the rule.
    value : Any
        The learner's value, decoded.

    Returns
    -------
    str or None
        What is wrong, or None.

    Examples
    --------
    >>> from helpers.grade.assignments import ASSIGNMENTS
    >>> q = ASSIGNMENTS["from-scratch"].question("precision_at_k")
    >>> type_problem(q, 1.5), type_problem(q, 0.5)
    ('returned a value outside [0, 1]', None)
    """
    value, problem = as_number(value)
    if problem:
        return problem
    if question.result == "unit" and not 0.0 <= value <= 1.0:
        return "returned a value outside [0, 1]"
    if question.result == "nonneg" and value < 0.0:
        return "returned a negative value"
    return None


# ---------------------------------------------------------------- hand-graded answers
def answer_marker(target: str) -> str:
    """The line that makes a markdown cell the answer cell of ``target``.

    Parameters
    ----------
    target : str
        The hand-graded question's target.

    Returns
    -------
    str
        An HTML comment, invisible in the rendered notebook.

    Examples
    --------
    >>> answer_marker("why_ndcg")
    '<!-- answer: why_ndcg -->'
    """
    return f"<!-- answer: {target} -->"


def _cell_text(cell: dict) -> str:
    src = cell.get("source", "")
    if isinstance(src, list):
        return "".join(x for x in src if isinstance(x, str))
    return src if isinstance(src, str) else ""


def _answer(text: str) -> str:
    # JSON may hold lone surrogates ("\\ud800"): kept as that escape text, so the answer is valid UTF-8
    answer = _MARKER.sub("", text).strip().encode("utf-8", "backslashreplace").decode("utf-8")
    if answer == ANSWER_PLACEHOLDER:
        return ""
    if len(answer) > MAX_ANSWER_CHARS:
        answer = answer[:MAX_ANSWER_CHARS] + f"\n[answer cut at {MAX_ANSWER_CHARS} characters]"
    return answer


def text_answers(notebook: dict, targets: list[str]) -> dict[str, str]:
    """Each target's answer: the text of the first markdown cell marked for it, marker removed.

    An answer left as :data:`ANSWER_PLACEHOLDER` (or empty) is ``""``; a target with no marked
    cell is absent. The text is the learner's, kept verbatim: data, never markup.

    Parameters
    ----------
    notebook : dict
        The parsed notebook.
    targets : list of str
        The hand-graded questions' targets.

    Returns
    -------
    dict
        Target -> answer text.

    Examples
    --------
    >>> nb = {"cells": [{"cell_type": "markdown", "source": "<!-- answer: why -->\\nNDCG, because..."},
    ...                 {"cell_type": "markdown", "source": ["<!-- answer: how -->\\n", ANSWER_PLACEHOLDER]}]}
    >>> text_answers(nb, ["why", "how", "gone"])
    {'why': 'NDCG, because...', 'how': ''}
    """
    wanted, found = set(targets), {}
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    for cell in cells if isinstance(cells, list) else []:
        if not isinstance(cell, dict) or cell.get("cell_type") != "markdown":
            continue
        text = _cell_text(cell)
        for target in _MARKER.findall(text):
            if target in wanted and target not in found:
                found[target] = _answer(text)
    return found
