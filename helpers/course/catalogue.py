"""The course's notebooks with exercises, and loading every question module (which registers its questions).

Below both :mod:`helpers.course` (which re-exports these names) and
:mod:`helpers.course.progress_file` (which sums the outcomes up per notebook), so neither
imports the other.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

__all__ = ["NOTEBOOKS", "load_all"]

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

    Returns
    -------
    list of str
        The module names (``"nb00"``, ``"nb01"``, ...), sorted; importing again is harmless.

    Examples
    --------
    >>> load_all()[:3]
    ['nb00', 'nb01', 'nb02']
    """
    names = sorted(
        info.name
        for info in pkgutil.iter_modules([str(Path(__file__).parent)])
        if info.name.startswith("nb") and info.name[2:].isdigit()
    )
    for name in names:
        importlib.import_module(f"{__package__}.{name}")
    return names
