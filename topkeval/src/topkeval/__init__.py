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

# re-exported as they are ("X as X"): importing them needs nothing heavy
from ._errors import DuplicateRecommendationError as DuplicateRecommendationError
from ._errors import DuplicateRelevantError as DuplicateRelevantError
from ._errors import InputTypeError as InputTypeError
from ._errors import InvalidInputError as InvalidInputError
from ._errors import NoRelevantItemError as NoRelevantItemError
from ._registry import BEYOND_METRICS as BEYOND_METRICS
from ._registry import BEYOND_OPTIONS as BEYOND_OPTIONS
from ._registry import DEFAULT_METRIC_KEYS as DEFAULT_METRICS  # noqa: F401 (in __all__, set on first use)
from ._registry import METRICS as METRICS

# The rest of the public API is imported on first use (pandas comes with it), so that
# ``python -m topkeval`` (the trec_eval drop-in) starts without it. The per-user functions are each
# module's ``__all__``: a metric's function is exported where it is written (a test checks every
# registry entry's function is here).
_PER_USER_MODULES = (".metrics", ".dcg", ".user_models")
#: name -> (module, attribute) of the other public functions
_NAMED = {
    "evaluate": (".batch", "evaluate"),
    "evaluate_arrays": (".batch", "evaluate_arrays"),
    "evaluate_as": (".conventions", "evaluate_as"),
    "leave_one_out_split": (".splits", "leave_one_out_split"),
    "temporal_split": (".splits", "temporal_split"),
    "metric_table": ("._docs", "markdown_table"),
}
_EAGER = [
    "METRICS",
    "DEFAULT_METRICS",
    "BEYOND_METRICS",
    "BEYOND_OPTIONS",
    "InvalidInputError",
    "InputTypeError",
    "NoRelevantItemError",
    "DuplicateRecommendationError",
    "DuplicateRelevantError",
]
_loaded = False


def _load_all() -> None:
    """Import the public functions, the options with who uses each value, and render the docstrings."""
    global _loaded
    from importlib import import_module

    from ._docs import fill_docstrings, with_used_by
    from ._registry import BATCH_OPTIONS, OPTIONS

    public: list[str] = []
    for module_name in _PER_USER_MODULES:
        module = import_module(module_name, __name__)
        globals().update({name: getattr(module, name) for name in module.__all__})
        public += module.__all__
    for name, (module_name, attribute) in _NAMED.items():
        globals()[name] = getattr(import_module(module_name, __name__), attribute)
    #: the registry's options, each value with who uses it (from the convention table)
    globals()["OPTIONS"], globals()["BATCH_OPTIONS"] = with_used_by(OPTIONS), with_used_by(BATCH_OPTIONS)
    globals()["__all__"] = [*public, *_NAMED, "OPTIONS", "BATCH_OPTIONS", *_EAGER]
    _loaded = True
    # the option tables of the docstrings name who uses each value (from the convention table): rendered
    # here, explicitly, for every public function marked with topkeval._registry.document
    fill_docstrings(globals()[name] for name in globals()["__all__"])


def __getattr__(name: str):
    if not _loaded and (name == "__all__" or not name.startswith("_")):
        _load_all()
        if name in globals():
            return globals()[name]
    raise AttributeError(f"module 'topkeval' has no attribute {name!r}")


def __dir__() -> list[str]:
    if not _loaded:
        _load_all()
    return sorted(globals())


__version__ = "0.3.0"
