"""topkeval: top-K recommendation and ranking metrics, per user and in batch.

Per-user functions take one ranked list, the relevant items (or graded
relevance) and a cutoff ``k``, and return a ``float``:

    hit_ranks_at_k, precision_at_k, recall_at_k, hit_at_k, reciprocal_rank_at_k,
    average_precision_at_k, gains_at_k, cg_at_k, dcg_at_k, idcg_at_k,
    ndcg_at_k, dcg_table, err_at_k (cascade), rbp_at_k and rbp_residual_at_k (patience)

Many users at once: :func:`evaluate` (pandas, Arrow or Polars frames, any ids),
:func:`evaluate_arrays` (integer arrays, the fast path) and :func:`evaluate_as`
(the numbers a given library would report for the same input). Every metric and
option is listed once in :data:`METRICS` and :data:`OPTIONS`;
:func:`metric_table` returns them as a table.

Submodules:

- :mod:`topkeval.splits`: leave-one-out and temporal splits.
- :mod:`topkeval.conventions`: how thirteen libraries define each metric.
- :mod:`topkeval.trec`: TREC run and qrels files, and trec_eval's numbers for
  them (also on the command line: ``topkeval QRELS RUN`` or
  ``python -m topkeval QRELS RUN``).
- :mod:`topkeval.beyond`: coverage, novelty, diversity, concentration, exposure and calibration.
- :mod:`topkeval.stats`: bootstrap intervals, paired tests, verdicts and power over per-user scores.
- :mod:`topkeval.offpolicy`: a new policy's or ranking's value estimated from another one's log
  (IPS, self-normalised and clipped IPS, and the position-based model's estimator for rankings).
- :mod:`topkeval.datasets`: MovieLens readers and a verified, cached download.
- :mod:`topkeval.spark`, :mod:`topkeval.dask`: the same metrics on a cluster
  (extras ``spark`` and ``dask``; importing :mod:`topkeval` loads neither).

>>> import topkeval
>>> topkeval.ndcg_at_k(["a", "b", "c"], {"b"}, 3)
0.6309297535714575
"""

from . import dcg, metrics, user_models
from ._docs import fill_docstrings, with_used_by
from ._docs import markdown_table as metric_table
from ._errors import (
    DuplicateRecommendationError,
    DuplicateRelevantError,
    InputTypeError,
    InvalidInputError,
    NoRelevantItemError,
)
from ._registry import BATCH_OPTIONS as _BATCH_OPTIONS
from ._registry import BEYOND_METRICS, BEYOND_OPTIONS, METRICS
from ._registry import DEFAULT_METRIC_KEYS as DEFAULT_METRICS
from ._registry import OPTIONS as _OPTIONS
from .batch import evaluate, evaluate_arrays
from .conventions import evaluate_as

# The per-user functions: each module's ``__all__`` says what it exports, so a metric's function is
# exported where it is written (a test checks every registry entry's function is here).
from .dcg import *  # noqa: F403
from .metrics import *  # noqa: F403
from .splits import leave_one_out_split, temporal_split
from .user_models import *  # noqa: F403

#: The registry's options, each value with who uses it (from the convention table).
OPTIONS, BATCH_OPTIONS = with_used_by(_OPTIONS), with_used_by(_BATCH_OPTIONS)

__all__ = [
    *metrics.__all__,
    *dcg.__all__,
    *user_models.__all__,
    "evaluate",
    "evaluate_arrays",
    "evaluate_as",
    "leave_one_out_split",
    "temporal_split",
    "METRICS",
    "DEFAULT_METRICS",
    "OPTIONS",
    "BATCH_OPTIONS",
    "BEYOND_METRICS",
    "BEYOND_OPTIONS",
    "metric_table",
    "InvalidInputError",
    "InputTypeError",
    "NoRelevantItemError",
    "DuplicateRecommendationError",
    "DuplicateRelevantError",
]

# the option tables of the docstrings name who uses each value (from the convention table): rendered
# here, explicitly, for every public function marked with topkeval._registry.document
fill_docstrings(globals()[name] for name in __all__)

__version__ = "0.3.0"
