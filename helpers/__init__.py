"""Top-K recommendation metrics, for learning and for real evaluations.

Per-user functions (one ranked list, one set of relevant items, a cutoff k):

    hit_ranks_at_k, precision_at_k, recall_at_k, hit_at_k, reciprocal_rank_at_k,
    average_precision_at_k, gains_at_k, cg_at_k, dcg_at_k, idcg_at_k,
    ndcg_at_k, dcg_table, err_at_k (cascade), rbp_at_k (patience)

Many users at once: ``evaluate`` (pandas DataFrames, any ids),
``evaluate_arrays`` (the integer fast path) and ``evaluate_as`` (the numbers
a given library would report). Splits: ``leave_one_out_split`` and
``temporal_split``. Every metric and option is listed in ``helpers.METRICS``
and ``helpers.OPTIONS``; ``helpers.metric_table()`` returns them as a table.

The package has rooms, one purpose each; the arrows are the only imports allowed
(``tests/library/test_layers.py`` parses every module and enforces them):

==========================  =============================================  ==========================
room                        purpose                                        may import (within helpers)
==========================  =============================================  ==========================
``helpers`` (root modules)  the metrics library: per-user metrics, batch   root modules only
                            evaluation, splits, library conventions,
                            the registry
``helpers.experiments``     data, baselines, statistics, sampled metrics,  root, experiments
                            peer libraries' runs
``helpers.checking``        how an answer is judged (one rule set for      nothing (stdlib, NumPy)
                            notebooks, self-checks and the grader)
``helpers.course``          the notebooks' exercises, seed examples,       root, experiments,
                            progress                                       checking
``helpers.grade``           the autograder (``python -m helpers.grade``)   root, experiments,
                                                                           checking
``helpers.grade.child``     runs inside the sandbox                        standard library only
==========================  =============================================  ==========================

``import helpers`` loads the library only; ``helpers.progress()`` and
``helpers.reset_progress()`` load the course on first use.
"""

from ._registry import BATCH_OPTIONS, METRICS, OPTIONS
from ._registry import DEFAULT_METRIC_KEYS as DEFAULT_METRICS
from ._registry import markdown_table as metric_table
from .batch import evaluate, evaluate_arrays
from .conventions import evaluate_as
from .dcg import cg_at_k, dcg_at_k, dcg_table, gains_at_k, idcg_at_k, ndcg_at_k
from .metrics import (
    average_precision_at_k,
    hit_at_k,
    hit_ranks_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank_at_k,
)
from .splits import leave_one_out_split, temporal_split
from .user_models import err_at_k, rbp_at_k

__all__ = [
    "hit_ranks_at_k",
    "precision_at_k",
    "recall_at_k",
    "hit_at_k",
    "reciprocal_rank_at_k",
    "average_precision_at_k",
    "gains_at_k",
    "cg_at_k",
    "dcg_at_k",
    "idcg_at_k",
    "ndcg_at_k",
    "dcg_table",
    "err_at_k",
    "rbp_at_k",
    "evaluate",
    "evaluate_arrays",
    "evaluate_as",
    "leave_one_out_split",
    "temporal_split",
    "METRICS",
    "DEFAULT_METRICS",
    "OPTIONS",
    "BATCH_OPTIONS",
    "metric_table",
    "progress",
    "reset_progress",
]

__version__ = "0.2.0"

_COURSE = {"progress", "reset_progress"}


def __getattr__(name: str):
    """Load the course's progress helpers on first use (``import helpers`` stays the library only)."""
    if name in _COURSE:
        from helpers import course

        return getattr(course, name)
    raise AttributeError(f"module 'helpers' has no attribute {name!r}")
