"""Exercises of ``notebooks/00-start-here.ipynb``: a warm-up that shows how checking works."""

from __future__ import annotations

from helpers import metric_table as _metric_table
from helpers import precision_at_k as _precision_at_k
from helpers.checking.questions import FunctionQuestion, Mistake
from helpers.course.examples import CAR_ITEMS, CAR_RELEVANT, EDGE_CASES

__all__ = ["q1", "hits_at_k", "core_metric_table", "CORE_METRICS"]

#: The six metrics of the core notebooks 01-06, as the registry names their ``evaluate`` columns.
CORE_METRICS = ("precision", "recall", "hit", "rr", "ap", "ndcg")


def core_metric_table() -> str:
    """The rows of :func:`helpers.metric_table` for the core metrics only, as Markdown.

    Generated from the registry (like the full table in notebook 14), so it lists exactly what
    ``helpers`` computes; the metrics computed only on request (ERR, RBP, bpref, ...) belong to the
    optional notebooks.

    Returns
    -------
    str
        A Markdown table: the header, its rule and one row per core metric, in the order of
        :data:`CORE_METRICS`.

    Raises
    ------
    LookupError
        If the registry lost a core metric (the notebook would otherwise show a shorter table).

    Examples
    --------
    >>> rows = core_metric_table().splitlines()[2:]
    >>> [row.split("`")[1] for row in rows]
    ['precision@k', 'recall@k', 'hit@k', 'rr@k', 'ap@k', 'ndcg@k']
    """
    lines = _metric_table().split("\n\n", 1)[0].splitlines()
    header, rows = lines[:2], lines[2:]
    core = [row for row in rows if row.split("`")[1].split("@")[0] in CORE_METRICS]
    missing = set(CORE_METRICS) - {row.split("`")[1].split("@")[0] for row in core}
    if missing:
        raise LookupError(f"helpers.metric_table() has no row for {sorted(missing)}")
    return "\n".join(header + core)


def hits_at_k(ranking, relevant, k):
    """How many of the first k recommended items are relevant (the warm-up of notebook 00).

    Parameters
    ----------
    ranking : sequence
        The recommended items, best first; it may be shorter than ``k``.
    relevant : set
        The items the user found relevant (any hashable ids).
    k : int
        The cutoff: only ``ranking[:k]`` counts.

    Returns
    -------
    int
        The number of hits among the top ``k`` positions; a list shorter than ``k`` just has
        fewer positions to hit.

    Examples
    --------
    >>> hits_at_k(["a", "b", "c", "d"], {"b", "d", "z"}, 3)
    1
    """
    return sum(1 for item in ranking[:k] if item in relevant)


def _reference(ranking, relevant, k):
    return round(_precision_at_k(ranking, relevant, k) * k)


def _whole_list(ranking, relevant, k):
    return sum(1 for item in ranking if item in relevant)


def _one_too_many(ranking, relevant, k):
    return sum(1 for item in ranking[: k + 1] if item in relevant)


def _one_too_few(ranking, relevant, k):
    return sum(1 for item in ranking[: k - 1] if item in relevant)


q1 = FunctionQuestion(
    id="00.q1",
    title="count the relevant items among the top k (the 'hits')",
    function_name="hits_at_k",
    reference=_reference,
    cases=[
        (CAR_ITEMS, CAR_RELEVANT, 3),
        (CAR_ITEMS, CAR_RELEVANT, 5),
        (CAR_ITEMS, CAR_RELEVANT, 10),
        *EDGE_CASES,
    ],
    hints=[
        "Only the first k items count: ranking[:k] (Python slices are 0-based, ranks are 1-based, "
        "and ranking[:k] holds ranks 1 to k).",
        "Count the items of ranking[:k] that are in relevant: "
        "sum(1 for item in ranking[:k] if item in relevant).",
    ],
    solution_code=hits_at_k,
    mistakes=[
        Mistake(
            "ignores the cutoff k",
            "It counts hits in the whole list; only the first k items are shown to the user.",
            _whole_list,
        ),
        Mistake(
            "0- vs 1-based rank (one item too many)",
            "ranking[:k + 1] holds k + 1 items; ranking[:k] already holds ranks 1 to k.",
            _one_too_many,
        ),
        Mistake(
            "one item too few (ranking[:k - 1])",
            "ranking[:k - 1] stops at rank k - 1, so a hit exactly at rank k is lost; "
            "ranking[:k] holds ranks 1 to k.",
            _one_too_few,
        ),
    ],
)
