"""Decode what a sandbox sent back: schema-checked events, printable text, one validated result.

The stage after :mod:`helpers.grade.sandbox` (read -> prepare -> run -> **decode** -> score).
Nothing that comes out of a sandbox is trusted: every line of the result channel is parsed
as plain JSON (no ``NaN`` or ``Infinity`` literals), checked against the message schema
(:func:`validate_event`), and every string is cut and made printable (:func:`clean_text`)
before it reaches a report. :func:`take_events` turns the events of one sandbox run into
the submission's :class:`SandboxResult`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "SandboxResult",
    "clean_text",
    "validate_event",
    "take_events",
    "with_public",
    "hung_cell_error",
    "DRAWN_END",
    "HIDDEN_END",
]

_MAX_TEXT = 500
#: What a learner reads when the notebook's process ended (exited, was killed, hung, ran out of
#: time or memory) once a hidden input had reached it: how it ended could be chosen from that
#: input, so it is one fixed phrase; the instructor's report keeps the detail.
HIDDEN_END = "the notebook's process ended during a hidden check"
#: The same for an assignment whose data are drawn at grading (answer variables): they reach the
#: notebook with its first cell, so how any run ended could carry them (red team 9).
DRAWN_END = "the notebook's process ended while it held the data drawn at grading"


@dataclass
class SandboxResult:
    """What came back from the sandbox for one submission, validated.

    ``questions`` maps a question name to a ``result`` event (``status``
    ``ok``/``missing``/``not_callable`` and ``cases``: one ``{"value": tagged}``
    or ``{"error": text}`` per case) or to ``{"failure": reason}`` when the
    question did not report (``detail``: how it ended, for the instructor only, when the
    learner reads :data:`HIDDEN_END`).

    Parameters
    ----------
    questions : dict
        Question name -> its ``result`` event or ``{"failure": reason}``.
    public : dict
        Question name -> its ``public`` event (status and public cases) from a run that no
        hidden input had reached: what a learner may be shown of it.
    withheld : list
        What the instructor reads and the learner does not: it happened once a hidden input
        had reached the notebook (a warning, a cut output, a cell of a later run that hung).
    cell_errors : list
        The notebook's cell errors (cell, line, cleaned text), from the first run that loaded it.
    warnings : list
        Cleaned warning texts (at most 50).
    output : str
        The notebook's standard output, cut and cleaned.
    runs : int
        Sandbox runs the submission took (one per part of the hidden cases).
    runs_loaded : bool
        Whether any run loaded the notebook.
    hung_cells : list
        Cells a run stopped in, as cell errors.

    Examples
    --------
    >>> SandboxResult().questions
    {}
    """

    questions: dict = field(default_factory=dict)
    public: dict = field(default_factory=dict)
    withheld: list = field(default_factory=list)
    cell_errors: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    output: str = ""
    runs: int = 0
    runs_loaded: bool = False
    hung_cells: list = field(default_factory=list)


def clean_text(value: Any, limit: int = _MAX_TEXT) -> str:
    """Any string from the sandbox as printable text: cut, lone surrogates and control characters escaped.

    Parameters
    ----------
    value : Any
        A text from the sandbox (anything else is shown through ``str``).
    limit : int
        Characters kept.

    Returns
    -------
    str
        Printable text, safe to store and to pass on to the writers of :mod:`helpers.grade.inert`.

    Examples
    --------
    >>> clean_text("ok\\ud800\\x00" + "x" * 600)[:16]
    'ok\\\\ud800\\\\x00xxxx'
    """
    text = value if isinstance(value, str) else repr(value)
    text = text[:limit].encode("utf-8", "backslashreplace").decode("utf-8")
    return "".join(c if c.isprintable() or c in "\n\t" else repr(c)[1:-1] for c in text)


#: The runner's own cap on a container (``child._MAX_ITEMS``): a reply that
#: breaks it was not written by the runner's tagger but forged by learner code (red team 9).
_MAX_ITEMS = 10_000


def _valid_items(tag: dict, depth: int) -> bool:
    items = tag.get("v")
    if not isinstance(items, list) or len(items) > _MAX_ITEMS:
        return False
    if tag["t"] == "list":
        return all(_valid_tag(x, depth + 1) for x in items)
    return all(
        isinstance(p, list) and len(p) == 2 and all(_valid_tag(x, depth + 1) for x in p) for p in items
    )


def _valid_tag(tag: Any, depth: int = 0) -> bool:
    if not isinstance(tag, dict) or depth > 6 or not isinstance(tag.get("t"), str):
        return False
    kind = tag["t"]
    if kind in ("list", "dict"):
        return _valid_items(tag, depth)
    if kind == "none":
        return True
    if kind == "bool":
        return isinstance(tag.get("v"), bool)
    if kind == "other":
        return isinstance(tag.get("type"), str)
    return kind in ("float", "int", "str", "np") and isinstance(tag.get("v"), str)


def _valid_case(case: Any) -> bool:
    if not isinstance(case, dict) or len(case) != 1:
        return False
    if "error" in case:
        return isinstance(case["error"], str)
    return _valid_tag(case.get("value"))


def _valid_result(event: dict) -> bool:
    return (
        event.get("status") in ("ok", "missing", "not_callable")
        and isinstance(event.get("cases"), list)
        and all(_valid_case(c) for c in event["cases"])
    )


def _valid_public(event: dict) -> bool:
    """A question's part 1: like a result, with ``None`` for each hidden case (not run yet)."""
    cases = event.get("cases")
    return (
        isinstance(event.get("q"), str)
        and event.get("status") in ("ok", "missing", "not_callable")
        and isinstance(cases, list)
        and all(c is None or _valid_case(c) for c in cases)
    )


def _valid_loaded(event: dict) -> bool:
    errors = event.get("errors")
    return isinstance(errors, list) and all(
        isinstance(e, dict)
        and isinstance(e.get("error"), str)
        and isinstance(e.get("cell"), int)
        and isinstance(e.get("line"), int)
        for e in errors
    )


_SCHEMA = {
    "loaded": _valid_loaded,
    "cell": lambda e: type(e.get("i")) is int,
    "start": lambda e: isinstance(e.get("q"), str) and e.get("part") in (1, 2) and type(e["part"]) is int,
    "public": _valid_public,
    "result": lambda e: isinstance(e.get("q"), str) and _valid_result(e),
    "warning": lambda e: isinstance(e.get("text"), str),
    "done": lambda e: True,
}


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not plain JSON")


def validate_event(line: bytes) -> dict | None:
    """One line from the result channel as a schema-checked event, or ``None`` if it is not one.

    Parameters
    ----------
    line : bytes
        One line of the result channel, written by the learner's process.

    Returns
    -------
    dict or None
        The event, when it is JSON of one of the known shapes with values in range; None for
        anything else (which the caller counts, never trusts).

    Examples
    --------
    >>> validate_event(b'{"ev": "start", "q": "q1", "part": 1}')
    {'ev': 'start', 'q': 'q1', 'part': 1}
    >>> validate_event(b'{"ev": "result", "q": "q1", "status": "ok", "cases": [{"value": NaN}]}') is None
    True
    """
    try:
        event = json.loads(line.decode("utf-8", "strict"), parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return None
    if not isinstance(event, dict) or event.get("ev") not in _SCHEMA:
        return None
    return event if _SCHEMA[event["ev"]](event) else None


def take_events(
    events: list[dict],
    remaining: list[dict],
    result: SandboxResult,
    first: bool,
    clean: bool = True,
    drawn: bool = False,
) -> None:
    """The validated events of one run into ``result`` (cell errors only from the first run that loaded).

    Parameters
    ----------
    events : list of dict
        The run's events, each already checked by :func:`validate_event`.
    remaining : list of dict
        The questions this run was asked to answer; a result for any other is ignored, so a
        notebook cannot report a question it was not asked.
    result : SandboxResult
        Filled in place; a question keeps its first result.
    first : bool
        Whether this is the first run that loaded the notebook.
    clean : bool
        No hidden input had reached the notebook before this run started (no earlier run got to
        the hidden cases): its ``public`` events are kept. A warning sent once a hidden input had
        reached the notebook (``after_hidden``, set by the reader) goes to ``withheld``.
    drawn : bool
        The run held exercise data drawn at grading from its first cell: its cell errors and
        warnings go to ``withheld`` (which cell raised, and what, could carry those data).

    Examples
    --------
    >>> result = SandboxResult()
    >>> events = [{"ev": "loaded", "errors": [{"cell": 1, "line": 2, "error": "E\\x00"}]},
    ...           {"ev": "result", "q": "q1", "status": "missing", "cases": []}]
    >>> take_events(events, [{"name": "q1"}], result, first=True)
    >>> result.cell_errors, list(result.questions)
    ([{'cell': 1, 'line': 2, 'error': 'E\\\\x00'}], ['q1'])
    """
    names = {q["name"] for q in remaining}
    for event in events:
        ev = event["ev"]
        if ev == "loaded" and first:
            errors = [
                {"cell": e["cell"], "line": e["line"], "error": _ran_error(clean_text(e["error"]))}
                for e in event["errors"][:50]
            ]
            if drawn:
                result.withheld += [f"cell {e['cell']}, line {e['line']}: {e['error']}" for e in errors]
            else:
                result.cell_errors = errors
        elif ev == "warning":
            _take_warning(event, result, clean and not drawn)
        elif ev in ("public", "result") and event["q"] in names:
            _take_question(event, result, clean)


#: the errors whose message the feedback shows, as the grader's own parse of a cell found them
_PARSE_ERRORS = ("SyntaxError:", "IndentationError:", "TabError:")


def _ran_error(text: str) -> str:
    """A cell error the sandbox reported: the grader's parse found none in that cell, so a syntax
    error here was raised by the cell's code, and its message is any text the code chose (red team 8:
    the run's data seed); like every run-time error's, it is dropped, the type kept."""
    return text.split(":", 1)[0] if text.startswith(_PARSE_ERRORS) else text


def _take_warning(event: dict, result: SandboxResult, clean: bool) -> None:
    shown = result.warnings if clean and not event.get("after_hidden") else result.withheld
    if len(shown) < 50:
        shown.append(clean_text(event["text"], 300))


def _take_question(event: dict, result: SandboxResult, clean: bool) -> None:
    if event["ev"] == "public" and clean:
        result.public[event["q"]] = event
    elif event["ev"] == "result" and event["q"] not in result.questions:
        result.questions[event["q"]] = event


#: A hidden case of a question whose function was gone in the run that reached it.
_GONE = {"error": "RuntimeError: the function was not there in the run that reached this case"}
#: A public case the clean run did not report (red team 9: a later run's value never fills it in).
_UNREPORTED = {"error": "RuntimeError: no result was reported for this worked example"}


def with_public(question: dict, event: dict, public: dict | None) -> dict:
    """A question's result whose status and public cases come from ``public`` (a run no hidden input had
    reached) and its hidden cases from ``event`` (whichever run reached them).

    Every run after one that got to the hidden cases runs the notebook again once a hidden input
    reached it (its timing can carry one), so what it shows of a public case, or whether the
    function is there, is not shown: the first run's is. A public case that run did not report
    fails: it is never filled in from a later run (red team 9). A hidden case of a function missing
    in that later run fails.

    Parameters
    ----------
    question : dict
        The question as the job names it (its ``kind``).
    event : dict
        Its ``result`` event, or ``{"failure": reason}``.
    public : dict or None
        Its ``public`` event from a run no hidden input had reached (``None``: there was none).

    Returns
    -------
    dict
        The ``result`` event to score, or ``{"failure": reason}``.

    Examples
    --------
    >>> public = {"ev": "public", "q": "q1", "status": "ok", "cases": [{"value": 1}, None]}
    >>> later = {"ev": "result", "q": "q1", "status": "ok", "cases": [{"value": 9}, {"value": 2}]}
    >>> with_public({"kind": "function", "public": [0]}, later, public)["cases"]
    [{'value': 1}, {'value': 2}]
    """
    if "failure" in event:
        return event
    if public is None:
        return {"failure": "no report of its worked examples from before the hidden cases"}
    if public["status"] != "ok" or question.get("kind") != "function":
        return {**public, "ev": "result"}
    got = event["cases"] if event.get("status") == "ok" else [_GONE] * len(public["cases"])
    if len(got) != len(public["cases"]):
        return {"failure": "did not report a result for every case"}
    shown = set(question.get("public", []))
    cases = [
        (mine or _UNREPORTED) if i in shown else theirs
        for i, (mine, theirs) in enumerate(zip(public["cases"], got, strict=True))
    ]
    return {**public, "ev": "result", "cases": cases}


def hung_cell_error(hung: dict, cells: list[dict], timeout: float) -> dict:
    """A cell the notebook's run stopped in, as a cell error (which cell, why, and what happened next).

    Parameters
    ----------
    hung : dict
        The sandbox's report: the cell's index and the reason it stopped.
    cells : list of dict
        The prepared notebook's cells, to find the cell's first line.
    timeout : float
        The run's wall clock in seconds, quoted in the message.

    Returns
    -------
    dict
        ``cell``, ``line`` and ``error``, like the cell errors of a loaded notebook.

    Examples
    --------
    >>> hung_cell_error({"cell": 2, "reason": "timed out"}, [], 10.0)["error"][:35]
    'this cell did not finish: timed out'
    """
    cell = next((c for c in cells if c["index"] == hung["cell"]), {"statements": [{"line": 1}]})
    return {
        "by": "grader",
        "cell": hung["cell"],
        "line": cell["statements"][0]["line"] if cell["statements"] else 1,
        "error": f"this cell did not finish: {clean_text(hung['reason'], 200)}; it was skipped and the "
        f"rest of the notebook was run without it (each cell shares the {timeout:g} s wall clock)",
    }
