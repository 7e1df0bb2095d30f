"""Top-K recommendation metrics, for learning and for real evaluations.

Per-user functions (one ranked list, one set of relevant items, a cutoff k):

    hit_ranks_at_k, precision_at_k, recall_at_k, hit_at_k, reciprocal_rank_at_k,
    average_precision_at_k, gains_at_k, cg_at_k, dcg_at_k, idcg_at_k,
    ndcg_at_k, dcg_table

Many users at once: ``evaluate`` (pandas DataFrames, any ids),
``evaluate_arrays`` (the integer fast path) and ``evaluate_as`` (the numbers
a given library would report). Splits: ``leave_one_out_split`` and
``temporal_split``. Exercises: ``helpers.checks`` (``progress()`` summarises
what you solved). Data, baselines and statistics for real evaluations:
``helpers.data``, ``helpers.models``, ``helpers.stats``, ``helpers.sampled``.
Grading: ``python -m helpers.grade``.

Every metric and option is listed in ``helpers.METRICS`` and
``helpers.OPTIONS``; ``helpers.metric_table()`` returns them as a table.
"""

from ._registry import BATCH_OPTIONS, METRICS, OPTIONS
from ._registry import markdown_table as metric_table
from .batch import evaluate, evaluate_arrays
from .checks import progress, reset_progress
from .libraries import evaluate_as
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
    "evaluate",
    "evaluate_arrays",
    "evaluate_as",
    "leave_one_out_split",
    "temporal_split",
    "METRICS",
    "OPTIONS",
    "BATCH_OPTIONS",
    "metric_table",
    "progress",
    "reset_progress",
]

__version__ = "0.1.0"
