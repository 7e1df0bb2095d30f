"""Turning a question's validated results into points, checks and feedback.

The rules, in the order they apply:

1. Values come back as tagged JSON (:func:`decode`); anything that is not a
   plain value (a learner's class, a set, a value inside a container that is
   not plain) stays an :class:`Opaque` type name and fails with that name.
   NumPy scalars are rebuilt here as NumPy scalars, so the shared rule of
   :mod:`helpers.checking.values` judges them (right value: accepted, with a
   note).
2. Only cases a learner cannot compute in advance carry points: when a
   question has hidden checks, its points are shared equally by them; the
   public checks (the notebook's worked examples) and the type check are
   reported but score nothing. An answer variable's single check carries
   its points.
3. A check passes when every one of its cases is right.
4. A check whose right answers are all one value (no relevant item gives 0.0,
   ...) is passed as well by a function that returns that value whatever it is
   given: it scores only when the question's randomised (*general*) check passes
   too (a check of a single case is not gated: one case shows no pattern). A
   function that returns 0.0 except on a few inputs it recognises therefore
   collects nothing from those checks.
5. A function that returns one and the same value (judged by value: ``0``,
   ``0.0`` and ``-0.0`` are one value) on every case of the general check,
   while the right answers there differ, scores zero ("same answer for every
   input").
6. What a learner may read: a failed *public* check (a worked example of the
   notebook) carries up to three examples with input, expected and got; a
   hidden check carries only its name and a problem; an answer variable's check
   is treated as hidden (its right value is drawn at grading time). Type names
   a learner's code chose are never shown (:func:`helpers.grade.inert.type_name`).
   Public cases run before any hidden one (:mod:`helpers.grade.child`): the type
   check, the notes, ``public_errors`` and the "not attempted" verdict come from
   them only; of a hidden check the learner reads only passed or failed
   (:func:`helpers.grade.reports.safe_check_feedback`), how its cases failed
   stays in this report for the instructor.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Any

from helpers.checking.values import as_number

from . import inert
from .decode import clean_text
from .spec import Question, compare, type_problem

__all__ = ["Opaque", "decode", "score_question", "fail_question", "NOT_SCORED"]

_NUMPY_TYPES = {
    "float16",
    "float32",
    "float64",
    "longdouble",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "intc",
    "uintc",
    "int_",
    "uint",
    "longlong",
    "ulonglong",
    "intp",
    "uintp",
    "bool",
}
NOT_SCORED = "not scored: "
GATED_REASON = (
    "the checks it passed have one right answer for every case (a function that does not compute "
    "passes them too), so they score only when the randomised check passes as well"
)


@dataclass(frozen=True)
class Opaque:
    """A value that did not come back as a plain value: only its type's name is known.

    Parameters
    ----------
    type_name : str
        The type as :func:`helpers.grade.inert.type_name` shows it (never a name the learner's code
        chose).

    Examples
    --------
    >>> Opaque("a class from the notebook or a package")
    Opaque(type_name='a class from the notebook or a package')
    """

    type_name: str


def _numpy_scalar(name: str, text: str) -> Any:
    import numpy as np

    if name not in _NUMPY_TYPES:
        return Opaque(inert.type_name(f"numpy.{name}"))
    kind = np.dtype(name).type
    if np.issubdtype(kind, np.floating):
        return kind(float.fromhex(text))
    return kind(int(text))


def _decode_container(kind: str, items: list) -> Any:
    if kind == "list":
        values = [decode(x) for x in items]
        inner = next((v for v in values if isinstance(v, Opaque)), None)
        return Opaque(f"list containing {inner.type_name}") if inner else values
    return _decode_dict([(decode(k), decode(v)) for k, v in items])


#: At most this many keys of one dict may share a hash: the keys come from learner code, and
#: a dict of keys with one hash (ints that are multiples of 2**61 - 1) takes quadratic time to
#: build, holding the GIL (red team 9: 24,000 such keys held every grading thread for 30 s).
_SAME_HASH = 8


def _decode_dict(pairs: list[tuple[Any, Any]]) -> Any:
    inner = next((x for pair in pairs for x in pair if isinstance(x, Opaque)), None)
    if inner:
        return Opaque(f"dict containing {inner.type_name}")
    if any(isinstance(k, (list, dict)) for k, _ in pairs):
        return Opaque("dict with list keys")
    # distinct hash values are ints that hash to themselves, so counting them takes linear time
    if pairs and max(Counter(hash(k) for k, _ in pairs).values()) > _SAME_HASH:
        return Opaque("dict whose keys were chosen to collide")
    return dict(pairs)


def decode(tag: dict) -> Any:
    """A validated tag (see :func:`helpers.grade.sandbox.validate_event`) as a Python value.

    Parameters
    ----------
    tag : dict
        A tagged value: ``t`` names the kind, ``v`` holds it (floats as hex, exact).

    Returns
    -------
    Any
        The value; anything that is not a plain value becomes an :class:`Opaque`.

    Examples
    --------
    >>> decode({"t": "float", "v": (0.5).hex()})
    0.5
    >>> decode({"t": "np", "type": "float64", "v": (0.25).hex()})
    np.float64(0.25)
    >>> decode({"t": "list", "v": [{"t": "other", "type": "__main__.F"}]})
    Opaque(type_name='list containing a class from the notebook or a package')
    """
    kind = tag["t"]
    value: Any = tag.get("v")
    try:
        if kind == "float":
            return float.fromhex(value)
        if kind == "int":
            return int(value)
        if kind == "np":
            return _numpy_scalar(tag["type"], value)
        if kind in ("list", "dict"):
            return _decode_container(kind, value)
    except (ValueError, OverflowError, TypeError):
        return Opaque("unreadable value")
    simple = {"bool": value, "str": clean_text(value, 2000) if kind == "str" else None, "none": None}
    if kind in simple:
        return simple[kind]
    return Opaque(_shown_type(tag.get("type")))


#: Labels the runner itself gives (not names a learner's code chose).
_RUNNER_LABELS = frozenset({"builtins.ellipsis", "int (too large)"})


def _shown_type(name: Any) -> str:
    """A value's type name as shown: see :func:`helpers.grade.inert.type_name`."""
    return name if isinstance(name, str) and name in _RUNNER_LABELS else inert.type_name(name)


@dataclass
class _Case:
    """What one case says about the learner's function."""

    check: str
    problem: str | None = None
    note: str | None = None
    type_issue: str | None = None
    error: str | None = None
    not_attempted: bool = False
    returned: Any = None  # the returned value (decoded), for the constant-answer rule
    answered: bool = False
    args: tuple = ()
    expected: Any = None


def _judge_value(q: Question, tag: dict, expected: Any, case: _Case) -> None:
    value = decode(tag)
    if isinstance(value, Opaque):
        case.not_attempted = value.type_name == "builtins.ellipsis"
        what = "a dict" if q.result in ("exact", "float_dict") else "a number"
        shown = f"returned {_article(value.type_name)}, not {what}"
        case.problem = "not answered (still ...)" if case.not_attempted else shown
        case.type_issue = case.problem
        return
    case.returned, case.answered = value, True
    case.problem = compare(q, value, expected)
    case.type_issue = type_problem(q, value) if q.type_check else None
    if case.problem is None and type(value).__module__ == "numpy":
        case.note = f"returned a numpy {type(value).__name__} (accepted)"


def _article(name: str) -> str:
    """``a``/``an`` before a type name, unless the name already starts with one."""
    if name.startswith(("a ", "an ")):
        return name
    return f"an {name}" if name[:1].lower() in "aeiou" else f"a {name}"


def _judge(q: Question, check: str, res: dict, expected: Any) -> _Case:
    case = _Case(check)
    if "error" in res:
        case.error = clean_text(res["error"], 300)
        case.not_attempted = case.error.startswith("NotImplementedError")
        case.problem = f"raised {inert.exception_label(case.error)}"
        case.type_issue = f"{case.problem} instead of returning a value"
    else:
        _judge_value(q, res["value"], expected, case)
    return case


def _scored_checks(q: Question) -> list[str]:
    hidden = [c.name for c in q.checks if c.hidden]
    return hidden or [c.name for c in q.checks]


_MAX_EXAMPLES = 3


def _shown_value(case: _Case) -> str:
    """What a public case got, as text: the value's repr, or the exception's (shown) type."""
    if case.error:
        return f"raised {inert.exception_label(case.error)}"
    if not case.answered:
        return case.problem or "no value"
    return clean_text(repr(case.returned), 300)


def _examples(q: Question, cases: list[_Case]) -> list[dict]:
    """Failed worked examples of a function as ``{"input", "expected", "got"}`` (public cases only)."""
    args = ", ".join
    return [
        {
            "input": clean_text(f"{q.target}({args(repr(a) for a in c.args)})", 300),
            "expected": clean_text(repr(c.expected), 300),
            "got": _shown_value(c),
        }
        for c in cases
        if c.problem
    ][:_MAX_EXAMPLES]


def _check_entry(q: Question, check: Any, share: float, cases: list[_Case]) -> dict:
    bad = [c.problem for c in cases if c.problem]
    if not bad:
        feedback = f"passed ({len(cases)} case{'s' if len(cases) != 1 else ''})"
    else:
        common = Counter(bad).most_common(1)[0][0]
        feedback = f"failed on {len(bad)} of {len(cases)} cases ({check.name}); e.g. {common}"
    if share == 0:
        feedback = NOT_SCORED + feedback
    entry = {
        "name": check.name,
        # an answer variable's right value is drawn at grading time: never shown, like a hidden case
        "hidden": check.hidden or q.kind == "value",
        "passed": not bad,
        "points": share if not bad else 0.0,
        "max_points": share,
        "feedback": feedback,
    }
    if bad and not entry["hidden"]:
        entry["examples"] = _examples(q, cases)
    return entry


def _public(q: Question, cases: list[_Case]) -> list[_Case]:
    """The cases of public checks: they ran before any hidden input reached the notebook's code
    (:mod:`helpers.grade.child`), so what they returned or raised may be shown."""
    hidden = {c.name for c in q.checks if c.hidden}
    return [c for c in cases if c.check not in hidden]


def _type_entry(q: Question, cases: list[_Case]) -> dict:
    """The type check, judged on the public cases only (what a hidden case returned could be chosen
    from its input; the hidden checks' own entries say what went wrong there)."""
    issues = [c.type_issue for c in _public(q, cases) if c.type_issue]
    feedback = "passed" if not issues else f"failed: {issues[0]}"
    return {
        "name": q.type_check,
        "hidden": False,
        "passed": not issues,
        "points": 0.0,
        "max_points": 0.0,
        "feedback": NOT_SCORED + feedback,
    }


def _same(a: Any, b: Any, q: Question) -> bool:
    """Whether two values are one answer: numbers by value within the question's tolerance (whatever
    their type or the sign of a zero), dicts key by key, anything else by equality."""
    x, y = as_number(a)[0], as_number(b)[0]  # a float for a number, None for anything else
    if x is not None and y is not None:
        return math.isclose(x, y, rel_tol=q.rel_tol, abs_tol=q.abs_tol)
    if isinstance(a, dict) and isinstance(b, dict):
        return set(a) == set(b) and all(_same(a[k], b[k], q) for k in a)
    if x is not None or y is not None:
        return False
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


def _all_same(values: list[Any], q: Question) -> bool:
    return all(_same(values[0], v, q) for v in values[1:])


def _constant_answer(q: Question, cases: list[_Case]) -> bool:
    """True when the general check's cases all got one value back while their right answers differ.

    The general (randomised) check draws inputs of every kind, so one value on all of them is a
    constant, or a table of known answers with a constant for the rest; without a general check
    every scored case counts. A function that returns a constant except on a few inputs is
    caught by :func:`_gated_checks` instead. "One value" is judged over values, not their form:
    ``0``, ``0.0``, ``-0.0`` and ``numpy.float64(0.0)`` are the same answer, and so are numbers
    within the question's tolerance of each other.

    Examples
    --------
    >>> from helpers.grade.assignments import ASSIGNMENTS
    >>> q = ASSIGNMENTS["from-scratch"].question("precision_at_k")
    >>> general = next(c.name for c in q.checks if c.general)
    >>> cases = [_Case(general, returned=v, answered=True, expected=e)
    ...          for v, e in zip((0.0, -0.0, 0, -0.0), (0.0, 0.5, 0.25, 1.0))]
    >>> _constant_answer(q, cases)
    True
    """
    judged = _general_checks(q, _scored_checks(q)) or set(_scored_checks(q))
    returned = [c.returned for c in cases if c.check in judged and c.answered]
    right = [c.expected for c in cases if c.check in judged]
    return bool(returned) and len(right) > 1 and _all_same(returned, q) and not _all_same(right, q)


def _gated_checks(q: Question, cases: list[_Case], checks: list[dict]) -> set[str]:
    """Scored checks that earn nothing because they cannot tell computing from guessing.

    A check whose right answers are all one value (no relevant item gives 0.0, ...) is
    collected as well by a function that returns that value whatever it is given; it scores
    only when the question's randomised (*general*) checks pass too. Without a general check,
    the scored checks whose answers vary play its part; when every scored check has one answer,
    nothing is gated (there is nothing to tell them apart by).

    Examples
    --------
    >>> from helpers.grade.assignments import ASSIGNMENTS
    >>> q = ASSIGNMENTS["from-scratch"].question("precision_at_k")
    >>> cases = [_Case("no relevant item gives 0.0", expected=0.0)] * 2
    >>> checks = [{"name": c.name, "passed": not c.general} for c in q.checks]
    >>> sorted(_gated_checks(q, cases, checks))
    ['no relevant item gives 0.0']
    """
    scored = _scored_checks(q)
    constant = {name for name in scored if _one_answer(q, [c.expected for c in cases if c.check == name])}
    judges = _general_checks(q, scored) or set(scored) - constant
    passed = {c["name"] for c in checks if c["passed"]}
    return constant - judges if judges and not judges <= passed else set()


def _general_checks(q: Question, scored: list[str]) -> set[str]:
    return {c.name for c in q.checks if c.general and c.name in scored}


def _one_answer(q: Question, right: list[Any]) -> bool:
    """Several cases, one right answer (a single case is a fixed point, not a pattern: not gated)."""
    return len(right) > 1 and _all_same(right, q)


def _errors(q: Question, cases: list[_Case]) -> list[str]:
    counts = Counter(c.error for c in cases if c.error)
    errors = [f"{text} ({n} case{'s' if n != 1 else ''})" for text, n in counts.most_common(5)]
    if len(counts) == 1 and sum(counts.values()) == len(cases):
        text = next(iter(counts))
        if text.startswith("TypeError") and ("argument" in text or "positional" in text):
            errors.insert(0, f"wrong signature: {q.target} must accept the arguments shown in the notebook")
    return errors


def _head(q: Question) -> dict:
    return {"question": q.name, "target": q.target, "title": q.title, "kind": q.kind, "max_points": q.points}


def fail_question(q: Question, reason: str, status: str) -> dict:
    """Zero points: every check failed with ``reason``.

    Parameters
    ----------
    q : Question
        The question.
    reason : str
        Why it failed, shown as every check's feedback.
    status : str
        The question's status (``"missing"``, ``"not_callable"``, ...).

    Returns
    -------
    dict
        The question's report, in the shape of :func:`score_question`'s, with 0 points.

    Examples
    --------
    >>> from helpers.grade.assignments import ASSIGNMENTS
    >>> q = ASSIGNMENTS["from-scratch"].question("precision_at_k")
    >>> report = fail_question(q, "precision_at_k is not defined", "missing")
    >>> report["points"], report["status"]
    (0.0, 'missing')
    """
    scored = set(_scored_checks(q))
    share = q.points / len(scored)
    checks = [
        {
            "name": c.name,
            "hidden": c.hidden,
            "passed": False,
            "points": 0.0,
            "max_points": share if c.name in scored else 0.0,
            "feedback": reason,
        }
        for c in q.checks
    ]
    if q.type_check:
        checks.append(
            {
                "name": q.type_check,
                "hidden": False,
                "passed": False,
                "points": 0.0,
                "max_points": 0.0,
                "feedback": reason,
            }
        )
    return {**_head(q), "points": 0.0, "status": status, "reason": reason, "checks": checks, "errors": []}


def _early_failure(q: Question, raw: dict, n_cases: int) -> dict | None:
    if "failure" in raw:
        failed = fail_question(q, f"did not report: {raw['failure']}", "no report")
        if "detail" in raw:  # how a process ended once a hidden input reached it: the instructor's only
            failed["detail"] = clean_text(raw["detail"], 300)
        return failed
    if raw["status"] == "missing":
        kind = "function" if q.kind == "function" else "answer variable"
        return fail_question(q, f"{kind} {q.target} is not defined in the notebook", "missing")
    if raw["status"] == "not_callable":
        what = _article(_shown_type(raw.get("what")))
        return fail_question(q, f"{q.target} is {what}, not a function", "not a function")
    if len(raw["cases"]) != n_cases:
        return fail_question(q, "did not report a result for every case", "no report")
    return None


def _judge_all(q: Question, cases: list[tuple[str, tuple]], expected: list[Any], raw: dict) -> list[_Case]:
    judged = []
    for (check, args), res, exp in zip(cases, raw["cases"], expected, strict=True):
        case = _judge(q, check, res, exp)
        case.args, case.expected = args, exp
        judged.append(case)
    return judged


def _checks(q: Question, judged: list[_Case]) -> list[dict]:
    """Every check's entry, the scored ones sharing the question's points, gated ones at zero."""
    scored = set(_scored_checks(q))
    share = q.points / len(scored)
    checks = [
        _check_entry(q, c, share if c.name in scored else 0.0, [j for j in judged if j.check == c.name])
        for c in q.checks
    ]
    gated = _gated_checks(q, judged, checks)
    for entry in checks:
        if entry["name"] in gated and entry["passed"]:
            entry["points"] = 0.0
            entry["feedback"] += "; no points: scores only when the randomised check passes too"
    if q.type_check:
        checks.append(_type_entry(q, judged))
    return checks


def _notes(q: Question, judged: list[_Case]) -> list[str]:
    """The notes a learner reads: those of public cases (a hidden case's could carry its input)."""
    return sorted({j.note for j in _public(q, judged) if j.note})


def _not_attempted(q: Question, judged: list[_Case], points: float) -> bool:
    """Still the stub: every public case not attempted and no points (how the hidden cases failed,
    which the notebook's code could choose from their inputs, does not decide it)."""
    shown = _public(q, judged)
    return bool(shown) and all(j.not_attempted for j in shown) and points == 0


def _totals(q: Question, checks: list[dict]) -> tuple[float, str]:
    """The question's points and status from its check entries."""
    scored = [c for c in checks if c["max_points"] > 0]
    earned = [c for c in scored if c["passed"] and c["points"] > 0]
    points = round(q.points * len(earned) / len(scored), 2)
    return points, "ok" if len(earned) == len(scored) else "partial" if earned else "failed"


def _verdicts(q: Question, report: dict, judged: list[_Case]) -> None:
    """The question-wide verdicts that override the checks: not attempted, one answer for everything."""
    if _not_attempted(q, judged, report["points"]):
        report["status"] = "not attempted"
    elif q.kind == "function" and _constant_answer(q, judged):
        report.update(
            points=0.0,
            status="same answer for every input",
            reason="returns the same value whatever the input, while the right answers differ: "
            "no points (a constant only matches the cases whose answer happens to be it)",
        )
    elif report["points"] == 0 and any(c["passed"] and c["max_points"] > 0 for c in report["checks"]):
        report["reason"] = GATED_REASON
    notes = _notes(q, judged)
    if notes:
        report["notes"] = notes


def score_question(q: Question, cases: list[tuple[str, tuple]], expected: list[Any], raw: dict) -> dict:
    """The report of one question from its sandbox result (``raw``) and the expected values.

    ``cases`` are ``(check name, arguments)`` as built by
    :func:`helpers.grade.spec.build_cases` (one ``("answer", ())`` for
    an answer variable); ``raw`` is a validated ``result`` event or
    ``{"failure": reason}``. The steps: early failures (no report, missing, not a
    function), each case judged, each check's entry (gated checks at zero), the totals,
    then the question-wide verdicts.

    Parameters
    ----------
    q : Question
        The question.
    cases : list of (str, tuple)
        ``(check name, arguments)`` per case.
    expected : list
        The reference's value for each case, in the same order.
    raw : dict
        The question's validated ``result`` event, or ``{"failure": reason}``.

    Returns
    -------
    dict
        The question's report: points, maximum, status, errors, and one entry per check with
        its points and feedback (never a hidden input or an expected value).

    Examples
    --------
    >>> from helpers.grade.assignments import ASSIGNMENTS
    >>> from helpers.grade.child import tag
    >>> from helpers.grade.spec import build_cases
    >>> a = ASSIGNMENTS["from-scratch"]
    >>> q = a.question("precision_at_k")
    >>> cases = build_cases(a, q, seed=1)
    >>> expected = [q.reference(*args) for _, args in cases]
    >>> right = {"ev": "result", "q": q.name, "status": "ok", "cases": [{"value": tag(v)} for v in expected]}
    >>> report = score_question(q, cases, expected, right)
    >>> report["points"] == report["max_points"]
    True
    >>> score_question(q, cases, expected, {"failure": "the notebook did not report"})["points"]
    0.0
    """
    if q.kind == "value":  # one case per data draw (helpers.grade.grader.make_plan)
        cases = [(q.checks[0].name, ())] * len(expected)
    failed = _early_failure(q, raw, len(cases))
    if failed:
        return failed
    judged = _judge_all(q, cases, expected, raw)
    checks = _checks(q, judged)
    points, status = _totals(q, checks)
    report = {**_head(q), "points": points, "status": status, "checks": checks, "errors": _errors(q, judged)}
    # what the learner may read: the errors of public cases only (the instructor's "errors" has all)
    report["public_errors"] = _errors(q, _public(q, judged))
    _verdicts(q, report, judged)
    return report
