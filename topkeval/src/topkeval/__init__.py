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

from ._registry import BATCH_OPTIONS, METRICS, OPTIONS
from ._registry import DEFAULT_METRIC_KEYS as DEFAULT_METRICS
from ._validation import (
    DuplicateRecommendationError,
    DuplicateRelevantError,
    InputTypeError,
    InvalidInputError,
    NoRelevantItemError,
)

#: the public functions, imported on first use (pandas comes with them), so that ``python -m topkeval``
#: (the trec_eval drop-in) starts without them: name -> (module, attribute)
_LAZY = {
    "metric_table": ("._docs", "markdown_table"),
    **{name: (".batch", name) for name in ("evaluate", "evaluate_arrays")},
    "evaluate_as": (".conventions", "evaluate_as"),
    **{
        name: (".dcg", name)
        for name in ("cg_at_k", "dcg_at_k", "dcg_table", "gains_at_k", "idcg_at_k", "ndcg_at_k")
    },
    **{
        name: (".metrics", name)
        for name in (
            "average_precision_at_k",
            "bpref_at_k",
            "condensed",
            "hit_at_k",
            "hit_ranks_at_k",
            "ips_precision_at_k",
            "ips_recall_at_k",
            "precision_at_k",
            "recall_at_k",
            "reciprocal_rank_at_k",
        )
    },
    **{name: (".splits", name) for name in ("leave_one_out_split", "temporal_split")},
    **{name: (".user_models", name) for name in ("err_at_k", "rbp_at_k", "rbp_residual_at_k")},
}


def _load_all() -> None:
    from importlib import import_module

    for name, (module, attribute) in _LAZY.items():
        globals()[name] = getattr(import_module(module, __name__), attribute)
    from ._docs import fill_pending

    fill_pending()  # the option tables of the docstrings name who uses each value (from the convention table)


def __getattr__(name: str):
    if name in _LAZY:
        _load_all()
        return globals()[name]
    raise AttributeError(f"module 'topkeval' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "hit_ranks_at_k",
    "precision_at_k",
    "recall_at_k",
    "hit_at_k",
    "reciprocal_rank_at_k",
    "average_precision_at_k",
    "bpref_at_k",
    "condensed",
    "ips_precision_at_k",
    "ips_recall_at_k",
    "gains_at_k",
    "cg_at_k",
    "dcg_at_k",
    "idcg_at_k",
    "ndcg_at_k",
    "dcg_table",
    "err_at_k",
    "rbp_at_k",
    "rbp_residual_at_k",
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
    "InvalidInputError",
    "InputTypeError",
    "NoRelevantItemError",
    "DuplicateRecommendationError",
    "DuplicateRelevantError",
]

__version__ = "0.3.0"
