"""Question objects: ``check``, ``hint`` and ``solution`` for one exercise.

A question compares the learner's answer with a reference computed by
:mod:`helpers` (never with a typed number) and answers with a
:class:`CheckResult` whose text starts with a plain word: ``Correct``,
``Incorrect`` or ``Not attempted``. An incorrect answer shows what the learner
returned and for which input, never the expected value; when the learner's
outputs match a known mistake (a wrong implementation attached to the
question) the message names it.
"""

from __future__ import annotations

import dis
import inspect
import numbers
import re
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .values import ABS_TOL, REL_TOL, as_number, format_value, judge_number, type_name

__all__ = [
    "CORRECT",
    "INCORRECT",
    "NOT_ATTEMPTED",
    "CheckResult",
    "Text",
    "Mistake",
    "Property",
    "FunctionQuestion",
    "ValueQuestion",
    "PropertyQuestion",
    "format_value",
    "is_stub",
    "QUESTIONS",
]

CORRECT = "correct"
INCORRECT = "incorrect"
NOT_ATTEMPTED = "not attempted"

#: Every question ever built, by id ("02.q1"): what progress() counts.
QUESTIONS: dict[str, _Question] = {}

#: Called with (question id, outcome) after every check; the course registers its progress store here.
OUTCOME_HOOKS: list[Callable[[str, str], None]] = []


def _no_reference(*args: Any) -> Any:
    """The default of a question's ``reference``: a question without one is refused when it is made."""
    raise ValueError("this question has no reference")


# ----------------------------------------------------------------- display
class Text:
    """A message shown as plain text in Jupyter (its repr is the text itself).

    What ``q.hint()`` and ``q.solution()`` return: the last expression of a cell shows it
    without quotes or escaped newlines, and ``print`` shows the same text.

    Parameters
    ----------
    text : str
        The message.

    Examples
    --------
    >>> Text("Hint 1 of 2: count the hits.\\nMore: q1.hint(2).")
    Hint 1 of 2: count the hits.
    More: q1.hint(2).
    """

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class CheckResult:
    """The outcome of ``q.check(answer)``.

    It shows as its message in a notebook and is true only when the answer is correct, so
    ``assert q1.check(f)`` works in a learner's own tests.

    Parameters
    ----------
    question : str
        The question id, e.g. ``"02.q1"``.
    outcome : str
        ``"correct"``, ``"incorrect"`` or ``"not attempted"``.
    message : str
        What the notebook shows; it starts with the outcome in words.
    mistake : str or None
        The label of the recognised known mistake, if any.

    Examples
    --------
    >>> result = CheckResult("02.q1", INCORRECT, "Incorrect: your answer 0.5 is not the value.")
    >>> result
    Incorrect: your answer 0.5 is not the value.
    >>> bool(result)
    False
    """

    question: str
    outcome: str
    message: str
    mistake: str | None = None

    def __repr__(self) -> str:
        return self.message

    def __bool__(self) -> bool:
        return self.outcome == CORRECT


def _same(answer: Any, expected: Any) -> bool:
    """True if ``answer`` equals ``expected`` (numbers with math.isclose, never ==)."""
    if isinstance(expected, numbers.Real) and not isinstance(expected, bool):
        return judge_number(answer, float(expected), rel_tol=REL_TOL, abs_tol=ABS_TOL).ok
    if isinstance(expected, (list, tuple)):
        if hasattr(answer, "tolist"):
            answer = answer.tolist()
        if not isinstance(answer, (list, tuple)) or len(answer) != len(expected):
            return False
        return all(_same(a, e) for a, e in zip(answer, expected, strict=True))
    return answer == expected


def _kind(expected: Any) -> str:
    if isinstance(expected, numbers.Real) and not isinstance(expected, bool):
        return "a number"
    if isinstance(expected, tuple):
        return f"a tuple of {len(expected)} values"
    if isinstance(expected, list):
        return "a list"
    return type(expected).__name__


def _shape_problem(answer: Any, expected: Any) -> str | None:
    """What is wrong with the *form* of ``answer`` (type, length), or None if only its value can be wrong.

    Uses the wording of :mod:`helpers.checking.values` for numbers, so a bool
    or a str is named the same way in the notebooks, the assignments and the grader.
    """
    if isinstance(expected, numbers.Real) and not isinstance(expected, bool):
        _, problem = as_number(answer)
        return problem
    if isinstance(expected, (list, tuple)):
        values = (
            answer.tolist() if hasattr(answer, "tolist") and not isinstance(answer, (list, tuple)) else answer
        )
        if not isinstance(values, (list, tuple)):
            return f"returned a {type_name(answer)}, not {_kind(expected)}"
        if len(values) != len(expected):
            return f"has {len(values)} values, not {len(expected)}"
        for position, (a, e) in enumerate(zip(values, expected, strict=True), start=1):
            problem = _shape_problem(a, e)
            if problem:
                problem = "is " + problem[len("returned ") :] if problem.startswith("returned ") else problem
                return f"has a value of the wrong kind: value {position} of {len(expected)} {problem}"
    return None


def _rounding_verdict(answer: Any, expected: float, decimals: int) -> tuple[bool, str | None]:
    """Is ``answer`` ``expected`` given to ``decimals`` (or more) decimals? ``(ok, named rounding slip)``.

    A correctly rounded value at ``decimals`` or more decimals is right; a value
    cut off instead of rounded, or rounded to fewer decimals than asked, is
    named as such (never showing the expected value).
    """
    for places in range(decimals, 13):
        if judge_number(answer, expected, decimals=places).ok:
            return True, None
    number, _ = as_number(answer)
    if number is None:
        return False, None
    for places in range(decimals, 7):
        verdict = judge_number(answer, expected, decimals=places)
        if verdict.problem and verdict.problem != "wrong value":
            return False, verdict.problem
    for places in range(0, decimals):
        if judge_number(answer, expected, decimals=places).ok:
            return False, (
                f"{format_value(number)} is rounded to {places} decimal{'s' if places != 1 else ''}; "
                f"the question asks for {decimals}"
            )
    return False, None


_STUB_OPS = {"RESUME", "NOP", "LOAD_CONST", "RETURN_VALUE", "RETURN_CONST", "POP_TOP", "CACHE"}


def is_stub(function: Callable) -> bool:
    """True if ``function``'s body does nothing: only ``...``, ``pass`` or a docstring.

    A check answers "Not attempted" for such a function instead of "Incorrect": the learner
    has not written anything yet. Returning a constant (even ``0``) is an attempt.

    Parameters
    ----------
    function : callable
        The learner's function; an object without Python bytecode (a built-in, a class) is not
        a stub.

    Returns
    -------
    bool
        True for a body of ``...``, ``pass``, ``return None`` or only a docstring.

    Examples
    --------
    >>> def todo(ranking, relevant, k):
    ...     ...  # your code here
    >>> is_stub(todo)
    True
    >>> is_stub(lambda ranking, relevant, k: len(ranking))
    False
    >>> is_stub(lambda ranking, relevant, k: 1.0)  # a constant is an answer, if a wrong one
    False
    """
    code = getattr(function, "__code__", None)
    if code is None or code.co_names:
        return False
    for ins in dis.get_instructions(code):
        if ins.opname not in _STUB_OPS:
            return False
        if (
            ins.opname in ("LOAD_CONST", "RETURN_CONST")
            and ins.argval is not None
            and ins.argval is not Ellipsis
        ):
            return False
    return True


@dataclass(frozen=True)
class Mistake:
    """A known wrong answer: a label, an explanation and a function that makes it.

    When a learner's outputs equal the mistake's on every case, the feedback names the
    mistake and explains it (the expected value is still never shown).

    Parameters
    ----------
    label : str
        A short name shown after "Recognised mistake:" (``"divides by len(ranking)"``).
    explanation : str
        One or two sentences on why it is wrong and what to change.
    function : callable
        Makes the mistake: it takes the same arguments as the learner's function (for a
        :class:`FunctionQuestion` or :class:`PropertyQuestion`) or none (for a
        :class:`ValueQuestion`, where it returns the mistaken value).

    Examples
    --------
    >>> cut = Mistake("divides by k", "Recall divides by the relevant items.", lambda r, rel, k: 0.4)
    >>> cut.label
    'divides by k'
    """

    label: str
    explanation: str
    function: Callable


@dataclass(frozen=True)
class Property:
    """A rule that an open-ended answer must satisfy (see :class:`PropertyQuestion`).

    Parameters
    ----------
    description : str
        The rule in words, shown with its number when it fails (``"never above 1"``).
    test : callable
        ``test(function)`` calls the learner's function and returns None when the rule holds,
        or a string showing the failing call and what it returned. An exception it raises is
        reported as the rule failing, with the exception's type and message.

    Examples
    --------
    >>> def at_most_one(f):
    ...     value = f([1, 2], {1, 2}, 2)
    ...     return None if value <= 1 else f"f([1, 2], {{1, 2}}, 2) returned {value}"
    >>> rule = Property("never above 1", at_most_one)
    >>> rule.test(lambda ranking, relevant, k: 2.0)
    'f([1, 2], {1, 2}, 2) returned 2.0'
    """

    description: str
    test: Callable[[Callable], str | None]


# ----------------------------------------------------------------- questions
def _origin(function: Callable) -> str:
    return f"{function.__module__}.{function.__qualname__}"


def _question_id(given: str, solution: Callable) -> str:
    """``"q1"`` -> ``"02.q1"`` from the module that defines the question (``helpers.course.nb02``).

    A full id (``"02.q1"``) must agree with that module; ids of questions defined
    outside an ``nbNN`` module are taken as given.
    """
    module = getattr(solution, "__module__", "") or ""
    number = module.rsplit(".", 1)[-1][2:] if module.rsplit(".", 1)[-1][:2] == "nb" else ""
    if "." not in given:
        if not number:
            raise ValueError(
                f"question {given!r}: a short id needs a defining nbNN module; write 'NN.{given}'"
            )
        return f"{number}.{given}"
    if number and given.split(".", 1)[0] != number:
        raise ValueError(f"question id {given!r} is defined in {module}: its id must start with {number}.")
    return given


@dataclass(eq=False, repr=False)
class _Question:
    id: str  # "02.q1": notebook number and the name the notebook binds
    title: str
    hints: Sequence[str]
    solution_code: Callable
    mistakes: Sequence[Mistake] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        self.id = _question_id(self.id, self.solution_code)
        if not self.hints:
            raise ValueError(f"question {self.id} needs at least one hint")
        before = QUESTIONS.get(self.id)
        if before is not None and _origin(before.solution_code) != _origin(self.solution_code):
            raise ValueError(
                f"question id {self.id} is used twice ({_origin(before.solution_code)} and "
                f"{_origin(self.solution_code)}); give each question of a notebook its own qN"
            )
        QUESTIONS[self.id] = self

    @property
    def name(self) -> str:
        """The variable the notebook binds the question to, e.g. ``q1``."""
        return self.id.split(".", 1)[1]

    def __repr__(self) -> str:
        return (
            f"Question {self.id}: {self.title}\n"
            f"Call {self.name}.check(your_answer); {self.name}.hint() for a hint; "
            f"{self.name}.solution() for the solution."
        )

    # -- learner API
    def hint(self, n: int = 1) -> Text:
        """Show hint number ``n`` (1-based); later hints say more."""
        total = len(self.hints)
        if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= total:
            return Text(
                f"{self.name} has hints 1 to {total}: call {self.name}.hint(1) ... {self.name}.hint({total})."
            )
        text = f"Hint {n} of {total}: {self.hints[n - 1]}"
        if n < total:
            text += f"\n(For more help: {self.name}.hint({n + 1}).)"
        else:
            text += f"\n(That was the last hint; {self.name}.solution() shows a solution.)"
        return Text(text)

    def solution(self) -> Text:
        """Show the reference solution: real code, importable from this module."""
        source = textwrap.dedent(inspect.getsource(self.solution_code)).rstrip()
        return Text(
            f"Solution to {self.id} ({self.solution_code.__module__}.{self.solution_code.__name__}):"
            f"\n\n{source}"
        )

    def check(self, answer: Any, *, record: bool = True) -> CheckResult:
        """Check ``answer`` and record the outcome in the progress file.

        ``record=False`` checks without recording (for demonstrations).
        """
        result = self._check(answer)
        if record:
            for hook in OUTCOME_HOOKS:
                hook(self.id, result.outcome)
        return result

    def stub(self) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def answer_from(self, function: Callable) -> Any:
        """What a learner would pass to ``check`` if they wrote ``function``.

        A function for function questions; its value for value questions.
        Used by the tests to feed the solution and each known mistake.
        """
        return function

    def _check(self, answer: Any) -> CheckResult:  # pragma: no cover - overridden
        raise NotImplementedError

    # -- message helpers
    def _result(self, outcome: str, message: str, mistake: str | None = None) -> CheckResult:
        return CheckResult(self.id, outcome, message, mistake)

    def _incorrect(self, what: str, mistake: Mistake | None, note: str | None = None) -> CheckResult:
        lines = [f"Incorrect: {what}"]
        if note is not None:
            lines.append(note)
        if mistake is not None:
            lines.append(f"Recognised mistake: {mistake.label}. {mistake.explanation}")
        lines.append(f"Fix it and run the cell again; {self.name}.hint() gives a hint.")
        return self._result(INCORRECT, "\n".join(lines), mistake.label if mistake else None)


@dataclass(eq=False, repr=False)
class FunctionQuestion(_Question):
    """An exercise whose answer is a function, checked on a list of inputs.

    Making one registers it in :data:`QUESTIONS` under its id (what ``progress()`` counts); the
    same id made again from the same solution replaces it, from another solution is refused.

    Parameters
    ----------
    id, title : str
        ``"qM"`` (the notebook number is taken from the defining ``nbNN`` module) or ``"NN.qM"``,
        and a one-line description.
    hints : sequence of str
        At least one; later hints say more.
    solution_code : callable
        The worked solution ``solution()`` shows (real code, importable from the module).
    mistakes : sequence of Mistake
        Known wrong functions, recognised by giving the same outputs on every case.
    function_name : str
        The name the learner's function has in the notebook (used in messages).
    reference : callable
        Computes the expected output from :mod:`helpers` for each case.
    cases : sequence of tuple
        Positional arguments for each call; one case per edge worth checking.
    uses : sequence of FunctionQuestion
        Earlier questions whose function this one builds on (05.q2's ``ndcg``
        uses 05.q1's ``dcg``). The learner passes those functions explicitly,
        ``q2.check(ndcg, dcg)``, and the answer is called with them as extra
        arguments, so it never picks up a stale global. Each is checked first.
    value_range : (low, high, what) or None
        Where every correct output lies; an output outside it is pointed out
        (e.g. an NDCG above 1), whatever the mistake.

    Raises
    ------
    ValueError
        Without hints, ``function_name``, ``reference`` or cases, or when the id is already
        used by another solution.

    Examples
    --------
    >>> def hits(ranking, relevant, k):
    ...     return sum(item in relevant for item in ranking[:k])
    >>> q = FunctionQuestion(
    ...     id="99.q1", title="Hits in the top k", hints=["Count the relevant items of ranking[:k]."],
    ...     solution_code=hits, function_name="hits", reference=hits,
    ...     cases=[([1, 2, 3], {1, 3}, 2), ([], {1}, 3)])
    >>> q.check(lambda ranking, relevant, k: 1, record=False).outcome
    'incorrect'
    >>> q.check(hits, record=False)
    Correct: hits agrees with helpers on all 2 test inputs.
    >>> del QUESTIONS["99.q1"]  # the example leaves no question behind
    """

    function_name: str = ""
    reference: Callable = _no_reference
    cases: Sequence[tuple] = field(default_factory=tuple)
    uses: Sequence[FunctionQuestion] = field(default_factory=tuple)
    value_range: tuple[float, float, str] | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.reference is _no_reference or not self.cases or not self.function_name:
            raise ValueError(f"question {self.id} needs function_name, reference and cases")

    def check(self, answer: Any, *uses: Callable, record: bool = True) -> CheckResult:
        """Check ``answer`` (called with ``uses`` appended to each input) and record the outcome.

        ``uses`` are the learner's own functions from earlier questions that
        this one builds on, in the order of :attr:`uses`.
        """
        waiting = self._uses_problem(answer, uses)
        if waiting is not None:
            return waiting
        if uses:
            result = self._check(_Bound(answer, uses))
        else:
            result = self._check(answer)
        if record:
            for hook in OUTCOME_HOOKS:
                hook(self.id, result.outcome)
        return result

    def answer_from(self, function: Callable) -> Callable:
        """``function`` as a learner passes it: taking the functions in :attr:`uses` too.

        A function with no parameter for them gets them and ignores them (the tests' known mistakes).
        """
        if not self.uses or _accepts(function, len(self.cases[0]) + len(self.uses)):
            return function
        return lambda *args: function(*args[: len(args) - len(self.uses)])

    def _uses_problem(self, answer: Any, given: tuple) -> CheckResult | None:
        """Why ``answer`` cannot be checked yet: a function it builds on is missing or not right yet."""
        early = _function_answer_problem(self, answer, show_value=True)
        if early is not None:
            return early
        if not self.uses:
            if given:
                return self._result(
                    INCORRECT,
                    f"Incorrect: {self.name}.check takes only your {self.function_name}: "
                    f"{self.name}.check({self.function_name}).",
                )
            return None
        names = [q.function_name for q in self.uses]
        call = f"{self.name}.check({', '.join([self.function_name, *names])})"
        if len(given) != len(self.uses):
            return self._result(
                NOT_ATTEMPTED,
                f"Not checked yet: {self.function_name} builds on your {' and '.join(names)}; pass "
                f"{'them' if len(names) > 1 else 'it'} too: {call}.",
            )
        if not _accepts(answer, len(self.cases[0]) + len(given)):
            parameters = [*inspect.signature(self.solution_code).parameters]
            return self._result(
                INCORRECT,
                f"Incorrect: {self.function_name} must take the function{'s' if len(names) > 1 else ''} "
                f"it builds on as parameters, def {self.function_name}({', '.join(parameters)}):, and use "
                f"{'those' if len(names) > 1 else 'that'}, not a global of the same name.",
            )
        for question, function in zip(self.uses, given, strict=True):
            earlier = question.check(function, record=False)
            if earlier.outcome != CORRECT:
                return self._result(
                    NOT_ATTEMPTED,
                    f"Not checked yet: {self.function_name} builds on your {question.function_name}, and "
                    f"{question.name}.check({question.function_name}) does not say Correct yet. Fix "
                    f"{question.function_name} first (question {question.id}), then run {call} again.",
                )
        return None

    def stub(self) -> Callable:
        """A do-nothing function with the exercise's signature (what the notebook starts with)."""
        parameters = list(inspect.signature(self.solution_code).parameters)
        namespace: dict[str, Any] = {}
        exec(f"def {self.function_name}({', '.join(parameters)}):\n    ...\n", namespace)
        return namespace[self.function_name]

    def _call_text(self, args: tuple) -> str:
        shown = [format_value(a) for a in args] + [q.function_name for q in self.uses]
        return f"{self.function_name}({', '.join(shown)})"

    def _range_note(self, value: Any) -> str | None:
        """A sentence when ``value`` lies outside :attr:`value_range`, else None."""
        if self.value_range is None:
            return None
        number, _ = as_number(value)
        low, high, what = self.value_range
        if number is None or low <= number <= high:
            return None
        return f"Out of range: {what} always lies between {low:g} and {high:g}."

    def _outputs(self, function: Callable) -> list[tuple[bool, Any]]:
        results = []
        for args in self.cases:
            try:
                results.append((True, function(*_copy(args))))
            except Exception as error:
                results.append((False, error))
        return results

    def _matching_mistake(self, learner: list[tuple[bool, Any]]) -> Mistake | None:
        for mistake in self.mistakes:
            theirs = self._outputs(mistake.function)
            compared = 0
            for (ok_l, value_l), (ok_m, value_m) in zip(learner, theirs, strict=True):
                if not ok_m:
                    continue
                if not ok_l or not _same(value_l, value_m):
                    break
                compared += 1
            else:
                if compared:
                    return mistake
        return None

    def _matching_error(self, learner: list[tuple[bool, Any]], error: Exception) -> Mistake | None:
        """The known mistake that raises the same kind of error on the same first case, if any."""
        failing = next(i for i, (ok, _) in enumerate(learner) if not ok)
        for mistake in self.mistakes:
            theirs = self._outputs(mistake.function)[: failing + 1]
            ok_m, value_m = theirs[-1]
            earlier_agree = all(
                ok_l and ok_t and _same(value_l, value_t)
                for (ok_l, value_l), (ok_t, value_t) in zip(learner[:failing], theirs[:-1], strict=True)
            )
            if not ok_m and type(value_m) is type(error) and earlier_agree:
                return mistake
        return None

    def _check(self, answer: Any) -> CheckResult:
        early = _function_answer_problem(self, answer, show_value=True)
        if early is not None:
            return early
        learner = self._outputs(answer)
        for ok, value in learner:
            if not ok and isinstance(value, NotImplementedError):
                return self._result(
                    NOT_ATTEMPTED,
                    f"Not attempted yet: {self.function_name} raises NotImplementedError; "
                    f"replace it with your code, then run the cell again.",
                )
        for args, (ok, value) in zip(self.cases, learner, strict=True):
            expected = self.reference(*_copy(args))
            call = self._call_text(args)
            if not ok:
                return self._incorrect(
                    f"{call} raised {_error_text(value)}", self._matching_error(learner, value)
                )
            if value is None:
                return self._incorrect(f"{call} returned None. Did you forget a return statement?", None)
            if not _same(value, expected):
                shape = _shape_problem(value, expected)
                if shape:
                    if not shape.startswith("returned"):
                        shape = f"returned {format_value(value)}, which {shape}"
                    return self._incorrect(f"{call} {shape}: it should return {_kind(expected)}.", None)
                return self._incorrect(
                    f"{call} returned {format_value(value)}.",
                    self._matching_mistake(learner),
                    self._range_note(value),
                )
        return self._result(
            CORRECT,
            f"Correct: {self.function_name} agrees with helpers on all {len(self.cases)} test inputs.",
        )


def _error_text(error: Exception) -> str:
    """``TypeError: message``, or the bare name when the error has no message (``next()``'s StopIteration)."""
    message = str(error)
    return f"{type(error).__name__}: {message}" if message else f"{type(error).__name__} (with no message)"


def _accepts(function: Callable, count: int) -> bool:
    """True if ``function`` takes ``count`` positional arguments (or its signature is unknown)."""
    try:
        inspect.signature(function).bind(*range(count))
    except TypeError:
        return False
    except ValueError:  # no signature (a builtin): let the call decide
        return True
    return True


class _Bound:
    """The learner's function with the functions it builds on appended to every call."""

    def __init__(self, function: Callable, uses: tuple):
        self.function = function
        self.uses = uses
        self.__name__ = getattr(function, "__name__", "answer")
        self.__code__ = getattr(function, "__code__", None)  # so an untouched stub is still a stub

    def __call__(self, *args: Any) -> Any:
        return self.function(*args, *self.uses)


def _copy(args: tuple) -> tuple:
    """Fresh copies of mutable arguments, so a learner's function cannot alter the cases."""
    out: list[Any] = []
    for a in args:
        if isinstance(a, list):
            out.append(list(a))
        elif isinstance(a, set):
            out.append(set(a))
        elif isinstance(a, dict):
            out.append(dict(a))
        elif hasattr(a, "copy") and hasattr(a, "tolist"):  # NumPy arrays
            out.append(a.copy())
        else:
            out.append(a)
    return tuple(out)


@dataclass(eq=False, repr=False)
class ValueQuestion(_Question):
    """An exercise whose answer is a value (a number, or a tuple of numbers).

    Parameters
    ----------
    id, title : str
        As for :class:`FunctionQuestion`.
    hints : sequence of str
        At least one; later hints say more.
    solution_code : callable
        Computes the value by hand, without arguments; it is what ``solution()`` shows.
    mistakes : sequence of Mistake
        Each mistake's function takes no argument and returns the mistaken value.
    prompt : str
        Names the input ("precision@3 of list A"); shown when the answer is wrong.
    reference : callable
        Computes the expected value with :mod:`helpers`, without arguments.
    decimals : int, optional
        For a number, the precision the question asks for. It must be stated in the prompt
        ("to 4 decimals"); the value correctly rounded to that many decimals, or more, is
        right, and a value cut off instead of rounded, or rounded to fewer decimals, is named
        as such. Without ``decimals`` the answer must be the value itself (to about 1e-9).

    Raises
    ------
    ValueError
        Without a prompt or a reference, or when ``decimals`` is not stated in the prompt.

    Examples
    --------
    >>> def two_of_three():
    ...     return 2 / 3
    >>> q = ValueQuestion(
    ...     id="99.q2", title="Precision@3", hints=["Hits divided by k."], solution_code=two_of_three,
    ...     prompt="precision@3 of [1, 2, 3] with relevant {1, 3}, to 2 decimals",
    ...     reference=two_of_three, decimals=2)
    >>> q.check(0.67, record=False).outcome
    'correct'
    >>> print(q.check(0.66, record=False).message.splitlines()[0])
    Incorrect: your answer 0.66 is the value cut to 2 decimals instead of rounded
    (rounding gives the last digit one more) (precision@3 of [1, 2, 3] with relevant {1, 3}, to 2 decimals).
    >>> del QUESTIONS["99.q2"]
    """

    prompt: str = ""
    reference: Callable = _no_reference
    decimals: int | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.reference is _no_reference or not self.prompt:
            raise ValueError(f"question {self.id} needs a prompt and a reference")
        if self.decimals is not None and f"{self.decimals} decimal" not in self.prompt:
            raise ValueError(f"question {self.id} asks for {self.decimals} decimals: say so in its prompt")

    def stub(self) -> Any:
        """The placeholder the notebook starts with: ``...``."""
        return ...

    def answer_from(self, function: Callable) -> Any:
        return function()

    def _matches(self, answer: Any, value: Any) -> tuple[bool, str | None]:
        """``(right, named rounding slip)`` for ``answer`` against ``value``."""
        if _same(answer, value):
            return True, None
        if self.decimals is not None and isinstance(value, numbers.Real) and not isinstance(value, bool):
            return _rounding_verdict(answer, float(value), self.decimals)
        return False, None

    def _is_mistake(self, answer: Any, value: Any) -> bool:
        """Whether ``answer`` is a mistake's ``value``, also when rounded at a step before the last.

        With ``decimals``, a number within one unit of the last asked decimal of the mistake's value
        counts (``(0.4307 + 1) / 2`` rounds to 0.7154, the exact mistake to 0.7153).
        """
        if self._matches(answer, value)[0]:
            return True
        number, _ = as_number(answer)
        wrong, _ = as_number(value)
        if self.decimals is None or number is None or wrong is None:
            return False
        return abs(number - wrong) <= 10**-self.decimals * (1 + 1e-9)

    def _check(self, answer: Any) -> CheckResult:
        if answer is Ellipsis or answer is None:
            return self._result(
                NOT_ATTEMPTED,
                "Not attempted yet: replace the ... with your answer (a Python expression is fine), "
                "then run the cell again.",
            )
        expected = self.reference()
        if callable(answer):
            return self._incorrect(
                f"{self.name}.check expects a value, not a function (for {self.prompt}).", None
            )
        right, slip = self._matches(answer, expected)
        if right:
            return self._result(CORRECT, f"Correct: that is the value for {self.prompt}.")
        shape = _shape_problem(answer, expected)
        if shape:
            phrase = "is " + shape[len("returned ") :] if shape.startswith("returned ") else shape
            return self._incorrect(
                f"your answer {format_value(answer)} {phrase}; the question asks for "
                f"{_kind(expected)} ({self.prompt}).",
                None,
            )
        match = next((m for m in self.mistakes if self._is_mistake(answer, m.function())), None)
        if slip and match is None:
            return self._incorrect(f"your answer {_hide_fraction(slip)} ({self.prompt}).", None)
        return self._incorrect(
            f"your answer {format_value(answer)} is not the value for {self.prompt}.", match
        )


def _hide_fraction(problem: str) -> str:
    """The rounding message of :mod:`helpers.checking.values` without the expected fraction it may name."""
    return re.sub(r" is \S+ cut to ", " is the value cut to ", problem)


@dataclass(eq=False, repr=False)
class PropertyQuestion(_Question):
    """An open-ended exercise: the learner's function must satisfy every property.

    There is no single right answer, so no expected value exists; a known
    mistake is a function that fails some property, recognised when the
    learner's function gives the same outputs on ``probe_cases``.

    Parameters
    ----------
    id, title : str
        As for :class:`FunctionQuestion`.
    hints : sequence of str
        At least one; later hints say more.
    solution_code : callable
        One function that satisfies every property (what ``solution()`` shows).
    mistakes : sequence of Mistake
        Known functions that break a property.
    function_name : str
        The name the learner's function has in the notebook.
    properties : sequence of Property
        The rules, checked in order; the first that fails is reported with its number.
    probe_cases : sequence of tuple
        Arguments on which a learner's function is compared with each mistake.

    Raises
    ------
    ValueError
        Without ``function_name``, properties or probe cases.

    Examples
    --------
    >>> def bounded(f):
    ...     return None if 0 <= f([1], {1}, 1) <= 1 else "f([1], {1}, 1) is outside [0, 1]"
    >>> def score(ranking, relevant, k):
    ...     return sum(i in relevant for i in ranking[:k]) / k
    >>> q = PropertyQuestion(
    ...     id="99.q3", title="A score in [0, 1]", hints=["Divide by k."], solution_code=score,
    ...     function_name="score", properties=[Property("between 0 and 1", bounded)],
    ...     probe_cases=[([1], {1}, 1)])
    >>> q.check(score, record=False)
    Correct: score satisfies all 1 rules.
    >>> del QUESTIONS["99.q3"]
    """

    function_name: str = ""
    properties: Sequence[Property] = field(default_factory=tuple)
    probe_cases: Sequence[tuple] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.properties or not self.function_name or not self.probe_cases:
            raise ValueError(f"question {self.id} needs function_name, properties and probe_cases")

    stub = FunctionQuestion.stub

    def _matching_mistake(self, function: Callable) -> Mistake | None:
        for mistake in self.mistakes:
            try:
                if all(_same(function(*args), mistake.function(*args)) for args in self.probe_cases):
                    return mistake
            except Exception:
                continue
        return None

    def _check(self, answer: Any) -> CheckResult:
        early = _function_answer_problem(self, answer, show_value=False)
        if early is not None:
            return early
        for number, prop in enumerate(self.properties, start=1):
            try:
                failure = prop.test(answer)
            except Exception as error:
                failure = f"calling {self.function_name} raised {type(error).__name__}: {error}"
            if failure is not None:
                return self._incorrect(
                    f"rule {number} of {len(self.properties)} fails ({prop.description}): {failure}",
                    self._matching_mistake(answer),
                )
        return self._result(
            CORRECT,
            f"Correct: {self.function_name} satisfies all {len(self.properties)} rules.",
        )


def _function_answer_problem(question: Any, answer: Any, show_value: bool) -> CheckResult | None:
    """The result for an untouched stub or a non-function answer, else None.

    Shared by the question types whose answer is a function.
    """
    if answer is None or answer is Ellipsis or (callable(answer) and is_stub(answer)):
        return question._result(
            NOT_ATTEMPTED,
            f"Not attempted yet: replace the ... in {question.function_name} with your code, "
            f"then run the cell again.",
        )
    if not callable(answer):
        got = f"; got {type(answer).__name__} {format_value(answer)}" if show_value else ""
        return question._result(
            INCORRECT,
            f"Incorrect: {question.name}.check expects your function itself, e.g. "
            f"{question.name}.check({question.function_name}){got}.",
        )
    return None
