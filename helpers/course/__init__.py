"""Instant-feedback exercises for the course notebooks, in the style of Kaggle Learn.

Each notebook with exercises has a module here (``helpers.course.nb02`` for
``notebooks/02-cutoffs.ipynb``) holding question objects ``q1, q2, ...``::

    from helpers.course.nb02 import q1
    q1.check(precision_at_k)   # your function or value, passed explicitly
    q1.hint()                  # q1.hint(2) for the next hint
    q1.solution()              # a worked solution (real, importable code)

``check`` answers "Correct", "Incorrect" (with your value and the input that
failed, never the expected value, and the name of a recognised mistake) or
"Not attempted". Outcomes are recorded locally; :func:`progress` sums them up.
"""

from __future__ import annotations

from helpers.checking.questions import (
    CORRECT,
    INCORRECT,
    NOT_ATTEMPTED,
    OUTCOME_HOOKS,
    QUESTIONS,
    CheckResult,
    FunctionQuestion,
    Mistake,
    Property,
    PropertyQuestion,
    ValueQuestion,
)

from .catalogue import NOTEBOOKS, load_all
from .progress_file import progress, progress_path, record, reset_progress

if record not in OUTCOME_HOOKS:
    OUTCOME_HOOKS.append(record)

__all__ = [
    "progress",
    "progress_path",
    "reset_progress",
    "load_all",
    "all_questions",
    "NOTEBOOKS",
    "CheckResult",
    "FunctionQuestion",
    "ValueQuestion",
    "PropertyQuestion",
    "Mistake",
    "Property",
    "CORRECT",
    "INCORRECT",
    "NOT_ATTEMPTED",
]


def all_questions() -> dict:
    """Every question of every notebook, by id (``"02.q1"``), sorted by id.

    Imports every ``helpers.course.nbNN`` module first (a question exists once its module is
    imported), so the answer does not depend on which notebooks ran in this session.

    Returns
    -------
    dict
        Question id -> question object (``FunctionQuestion``, ``ValueQuestion``, ...).

    Examples
    --------
    >>> questions = all_questions()
    >>> questions["02.q1"].name, questions["02.q1"].title.split(":")[0]
    ('q1', 'P@K')
    """
    load_all()
    return dict(sorted(QUESTIONS.items()))
