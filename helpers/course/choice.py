"""Multiple-choice questions with feedback for every option.

Used for three kinds of exercise: *predict, then run* (answer before the cell
that shows the result), *explain the difference* (which explanation is
right), and *choose and justify* (which metric answers a product question).
A :class:`ChoiceQuestion` is a :class:`~helpers.checking.questions.ValueQuestion`
whose value is an option letter, so progress, hints and the course tests
treat it like any other question; each wrong option is a known mistake that
carries its own feedback.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from helpers.checking.questions import (
    CORRECT,
    INCORRECT,
    NOT_ATTEMPTED,
    CheckResult,
    Mistake,
    Text,
    ValueQuestion,
)

__all__ = ["ChoiceQuestion", "Option", "choice"]


@dataclass(frozen=True)
class Option:
    """One answer option: its text and the feedback a learner who picks it sees.

    Parameters
    ----------
    text : str
        The option as listed, after its letter.
    feedback : str
        Why the option is right or wrong; shown to whoever picks it, so a wrong option teaches
        something instead of just "incorrect".
    correct : bool, default False
        True for the one right option.

    Examples
    --------
    >>> Option("NDCG@10", "It rewards a hit at rank 1 most.", correct=True).correct
    True
    """

    text: str
    feedback: str
    correct: bool = False


@dataclass(eq=False, repr=False)
class ChoiceQuestion(ValueQuestion):
    """A question answered with an option letter, e.g. ``q3.check("b")``.

    Build it with :func:`choice`. The letter is case-insensitive and surrounding spaces are
    ignored; anything else than a listed letter is answered with the letters allowed.

    Parameters
    ----------
    id, title, hints, solution_code, mistakes, prompt, reference, decimals
        As for :class:`~helpers.checking.questions.ValueQuestion` (:func:`choice` fills them:
        the reference returns the right letter, each wrong option is a mistake).
    options : dict
        Letter -> :class:`Option`; at least three, exactly one correct.

    Raises
    ------
    ValueError
        With fewer than three options or not exactly one correct one.

    Examples
    --------
    >>> q = choice("99.q4", "demo", "the larger number", {
    ...     "a": ("1", "1 < 2."), "b": ("2", "Yes.", True), "c": ("0", "0 < 2.")}, ["Compare."])
    >>> q.listing()
    (a) 1
    (b) 2
    (c) 0
    >>> from helpers.checking.questions import QUESTIONS
    >>> _ = QUESTIONS.pop("99.q4")
    """

    options: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        right = [letter for letter, option in self.options.items() if option.correct]
        if len(right) != 1 or len(self.options) < 3:
            raise ValueError(f"question {self.id} needs at least three options, exactly one of them correct")
        super().__post_init__()

    @property
    def correct_letter(self) -> str:
        return next(letter for letter, option in self.options.items() if option.correct)

    def listing(self) -> Text:
        """The options as the notebook shows them."""
        return Text("\n".join(f"({letter}) {option.text}" for letter, option in self.options.items()))

    def __repr__(self) -> str:
        return (
            f"Question {self.id}: {self.title}\n{self.listing()}\n"
            f'Answer with {self.name}.check("a") (your letter); {self.name}.hint() for a hint.'
        )

    def solution(self) -> Text:
        letter = self.correct_letter
        return Text(
            f"Solution to {self.id}:\n\ndef answer():\n    return {letter!r}\n\n"
            f"({letter}) {self.options[letter].text}\n{self.options[letter].feedback}"
        )

    def _check(self, answer) -> CheckResult:
        if answer is Ellipsis or answer is None:
            return self._result(
                NOT_ATTEMPTED,
                "Not attempted yet: replace the ... with the letter of your answer, "
                f'e.g. "{next(iter(self.options))}", '
                "then run the cell again.",
            )
        letters = ", ".join(f'"{letter}"' for letter in self.options)
        if not isinstance(answer, str) or answer.strip().lower() not in self.options:
            return self._result(
                INCORRECT,
                f"Incorrect: answer with one letter, one of {letters}; got {answer!r}.",
            )
        letter = answer.strip().lower()
        option = self.options[letter]
        if option.correct:
            return self._result(CORRECT, f"Correct: ({letter}) {option.text}\n{option.feedback}")
        mistake = next(m for m in self.mistakes if m.label == f"option ({letter})")
        return self._incorrect(f"you chose ({letter}) {option.text}, which is not {self.prompt}.", mistake)


def choice(id: str, title: str, prompt: str, options: dict[str, tuple], hints: list[str]) -> ChoiceQuestion:
    """Build a :class:`ChoiceQuestion`.

    Parameters
    ----------
    id : str
        ``"NN.qM"``; as for every question, it must be unique.
    title : str
        A one-line description.
    prompt : str
        What the right option is (``"the metric that answers the product question"``); used in
        the feedback of a wrong choice.
    options : dict
        Maps a letter to ``(text, feedback)``, or ``(text, feedback, True)`` for the one correct
        option.
    hints : list of str
        At least one.

    Returns
    -------
    ChoiceQuestion
        Registered under ``id``; its solution shows the right letter with its feedback.

    Raises
    ------
    ValueError
        With fewer than three options, not exactly one correct one, or no hint.

    Examples
    --------
    >>> q = choice("99.q1", "demo", "the larger number", {
    ...     "a": ("1", "1 < 2."), "b": ("2", "Yes: 2 > 1.", True),
    ...     "c": ("0", "0 is the smallest.")}, ["Compare."])
    >>> q.check("B", record=False).outcome
    'correct'
    >>> print(q.check("a", record=False).message.splitlines()[1])
    Recognised mistake: option (a). 1 < 2.
    >>> from helpers.checking.questions import QUESTIONS
    >>> _ = QUESTIONS.pop("99.q1")
    """
    built = {
        letter: Option(text, feedback, bool(rest and rest[0]))
        for letter, (text, feedback, *rest) in options.items()
    }
    right = [letter for letter, option in built.items() if option.correct]
    correct = right[0] if len(right) == 1 else None

    def answer():
        return correct

    mistakes = [
        Mistake(f"option ({letter})", option.feedback, (lambda chosen=letter: chosen))
        for letter, option in built.items()
        if not option.correct
    ]
    return ChoiceQuestion(
        id=id,
        title=title,
        hints=hints,
        solution_code=answer,
        mistakes=mistakes,
        prompt=prompt,
        reference=answer,
        options=built,
    )
