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

import importlib
import pkgutil

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

#: Notebook number -> notebook name, for the progress summary.
NOTEBOOKS: dict[str, str] = {
    "00": "00-start-here",
    "01": "01-from-classification-to-ranking",
    "02": "02-cutoffs",
    "03": "03-average-precision",
    "04": "04-reciprocal-rank-and-hit-ratio",
    "05": "05-dcg-ndcg",
    "06": "06-leave-one-out",
    "07": "07-same-name-different-numbers",
    "08": "08-evaluating-a-recommender",
    "09": "09-sampled-metrics",
    "11": "11-beyond-accuracy",
    "12": "12-user-models-and-online-evaluation",
    "13": "13-capstone-movielens",
    "14": "14-recap",
    "15": "15-unobserved-is-not-irrelevant",
}


def load_all() -> list[str]:
    """Import every ``helpers.course.nbNN`` module, so all questions are known.

    Returns the module names, sorted.
    """
    names = sorted(
        info.name
        for info in pkgutil.iter_modules(__path__)
        if info.name.startswith("nb") and info.name[2:].isdigit()
    )
    for name in names:
        importlib.import_module(f"{__name__}.{name}")
    return names


def all_questions() -> dict:
    """Every question of every notebook, by id (``"02.q1"``), sorted by id."""
    load_all()
    return dict(sorted(QUESTIONS.items()))
