"""Metrics built on a model of how a user reads a list: ERR (cascade) and RBP (patience).

NDCG discounts rank i by 1/log2(i + 1) because that curve works, not because
it describes a person. The two metrics here start from a story instead:

* **ERR** (expected reciprocal rank, Chapelle, Metzler, Zhang and Grinspan,
  CIKM 2009) is a *cascade*: the user reads from the top and stops at the
  first item that satisfies them. An item of grade g satisfies with
  probability R(g) = (2^g - 1) / 2^g_max, so a great item early on leaves
  little credit for what follows. ERR@k is the expected value of 1/(rank at
  which the user stops), counting 0 if they never stop within k.
* **RBP** (rank-biased precision, Moffat and Zobel, TOIS 2008) is a
  *patience* model: after each item the user goes on to the next with
  probability p (0.5 impatient, 0.8 typical, 0.95 very patient). RBP@k is
  (1 - p) times the sum of p^(i - 1) over the relevant ranks i <= k: the
  expected rate at which the user meets relevant items.

Each has a per-user function, written for reading, and a batch version over
the inputs of :func:`helpers.evaluate_arrays`, tested against it to 1e-12
(``tests/library/test_user_models.py``).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ._arrays import csr_relevance, grade_matrix, top_matrix
from ._registry import Metric
from ._validation import check_k, check_ks, check_ranking, check_relevance, check_relevant_set

__all__ = ["err_at_k", "rbp_at_k", "err_batch", "rbp_batch", "evaluate_user_models", "USER_MODEL_METRICS"]

#: Registry entries for the two metrics, in the form of ``helpers.METRICS``.
USER_MODEL_METRICS: dict[str, Metric] = {
    "err": Metric(
        key="err",
        function="err_at_k",
        notation="ERR@k",
        mean_name="ERR@k",
        formula="sum over i <= k of (1/i) R_i prod_{j<i} (1 - R_j), R = (2^g - 1) / 2^g_max",
        no_relevant="0.0",
        options=("max_grade",),
    ),
    "rbp": Metric(
        key="rbp",
        function="rbp_at_k",
        notation="RBP@k",
        mean_name="RBP@k",
        formula="(1 - p) sum over relevant i <= k of p^(i - 1)",
        no_relevant="0.0",
        options=("p",),
    ),
}


# ----------------------------------------------------------------- checks
def _check_p(p: Any) -> float:
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0 < float(p) < 1:
        raise ValueError(
            f"p must be a number strictly between 0 and 1 (the chance the user reads on to the next item); "
            f"got {p!r}."
        )
    return float(p)


def _check_max_grade(max_grade: Any, largest: float) -> float | None:
    """The scale's top grade, or None to use each user's highest grade."""
    if max_grade is None:
        return None
    if isinstance(max_grade, bool) or not isinstance(max_grade, numbers.Real) or not math.isfinite(max_grade):
        raise TypeError(f"max_grade must be a finite number > 0 or None; got {max_grade!r}.")
    if max_grade <= 0:
        raise ValueError(f"max_grade must be > 0 (the top of the grade scale); got {max_grade}.")
    if largest > max_grade:
        raise ValueError(
            f"a relevance grade ({largest}) is above max_grade ({max_grade}); max_grade is the top of the "
            "grade scale, so no grade can exceed it."
        )
    return float(max_grade)


# ----------------------------------------------------------------- per user
def err_at_k(ranking: Sequence[Hashable], relevance: Any, k: int, *, max_grade: float | None = None) -> float:
    """Expected reciprocal rank: 1/(rank where the user stops), averaged over the cascade.

    ERR@k = sum over i = 1..k of (1/i) * R_i * prod over j < i of (1 - R_j),
    with R = (2^g - 1) / 2^g_max the chance that an item of grade g satisfies
    the user (Chapelle et al., 2009).

    Parameters
    ----------
    ranking : sequence of hashable
        Recommended item ids, best first. No duplicates.
    relevance : mapping item -> grade, or set of item ids
        Grades >= 0 (a set means grade 1 for each item). Unlisted items have
        grade 0.
    k : int
        Cutoff, at least 1.
    max_grade : float, optional
        The top of the grade scale, g_max (e.g. 5 for 1-5 stars). Default:
        the user's highest grade, so binary relevance gives R = 1/2. Pass the
        scale's top to compare users on one scale.

    Returns
    -------
    float
        A value in [0, 1). It is 0.0 when the user has no relevant item.

    Notes
    -----
    R can never be 1 (a grade-g_max item satisfies with probability
    1 - 2^-g_max), so even a perfect list scores below 1: ERR is not
    normalised by an ideal list, unlike NDCG. Later relevant items count less
    the more the earlier ones satisfied: two great items at ranks 1 and 2
    earn less than twice one.

    Examples
    --------
    >>> from helpers.user_models import err_at_k
    >>> err_at_k(["a", "b", "c"], {"a": 1}, k=3)  # R = 1/2 at rank 1
    0.5
    >>> err_at_k(["a", "b", "c"], {"b": 1}, k=3)  # R = 1/2 at rank 2: (1/2) * (1/2)
    0.25
    >>> round(err_at_k(["a", "b"], {"a": 2, "b": 1}, k=2, max_grade=2), 4)  # 3/4 + (1/2)(1/4)(1/4)
    0.7812
    """
    items = check_ranking(ranking)
    grades = check_relevance(relevance, "relevance")
    k = check_k(k)
    largest = max(grades.values(), default=0.0)
    top = _check_max_grade(max_grade, largest)
    top = largest if top is None else top
    if largest == 0:
        return 0.0
    scale = 2.0**top
    not_stopped, total = 1.0, 0.0
    for rank, item in enumerate(items[:k], start=1):
        satisfied = (2.0 ** grades.get(item, 0.0) - 1.0) / scale
        total += not_stopped * satisfied / rank
        not_stopped *= 1.0 - satisfied
    return float(total)


def rbp_at_k(ranking: Sequence[Hashable], relevant: Any, k: int, *, p: float = 0.8) -> float:
    """Rank-biased precision: the patience model's expected rate of relevant items.

    RBP@k = (1 - p) * sum over the relevant ranks i <= k of p^(i - 1)

    Parameters
    ----------
    ranking : sequence of hashable
        Recommended item ids, best first. No duplicates.
    relevant : set of hashable, or mapping item -> grade
        The user's relevant items (grade > 0 in a mapping; RBP is binary).
    k : int
        Cutoff, at least 1.
    p : float
        Persistence: the chance of reading on after each item, 0 < p < 1.
        The expected number of items read is 1 / (1 - p): 5 for p = 0.8.

    Returns
    -------
    float
        A value in [0, 1 - p^k]; 0.0 when nothing relevant is in the top k.

    Notes
    -----
    RBP is not normalised by the user's number of relevant items: a user with
    one relevant item cannot score above 1 - p. The ranks beyond k could add
    at most p^k (the *residual*); report it when k is small next to 1/(1 - p).

    Examples
    --------
    >>> from helpers.user_models import rbp_at_k
    >>> rbp_at_k(["a", "b", "c"], {"a"}, k=3, p=0.5)
    0.5
    >>> rbp_at_k(["a", "b", "c"], {"a", "c"}, k=3, p=0.5)  # 0.5 * (1 + 0.25)
    0.625
    """
    items = check_ranking(ranking)
    rel = check_relevant_set(relevant)
    k = check_k(k)
    p = _check_p(p)
    total = sum(p ** (rank - 1) for rank, item in enumerate(items[:k], start=1) if item in rel)
    return float((1.0 - p) * total)


# ----------------------------------------------------------------- batch
def _inputs(top_items, relevant_indptr, relevant_items, relevant_grades):
    top = top_matrix(top_items)
    indptr, items, grades = csr_relevance(relevant_indptr, relevant_items, relevant_grades, top.shape[0])
    return top, indptr, items, grades, grade_matrix(top, indptr, items, grades)


def _err_columns(matrix: np.ndarray, user_max: np.ndarray, ks: tuple[int, ...]) -> dict[str, np.ndarray]:
    width = min(max(ks), matrix.shape[1])
    g = matrix[:, :width]
    scale = np.power(2.0, user_max)[:, None]
    satisfied = np.where(user_max[:, None] > 0, (np.power(2.0, g) - 1.0) / scale, 0.0)
    before = np.ones_like(satisfied)
    if width > 1:
        before[:, 1:] = np.cumprod(1.0 - satisfied[:, :-1], axis=1)
    terms = before * satisfied / np.arange(1, width + 1)
    running = np.cumsum(terms, axis=1)
    empty = np.zeros(matrix.shape[0])
    return {f"err@{k}": (running[:, min(k, width) - 1] if width else empty) for k in ks}


def err_batch(
    top_items: Any,
    relevant_indptr: Any,
    relevant_items: Any,
    *,
    k: int | None = None,
    relevant_grades: Any = None,
    max_grade: float | None = None,
) -> np.ndarray:
    """ERR@k for every row of an integer (users x K) matrix, as :func:`err_at_k`.

    Parameters
    ----------
    top_items, relevant_indptr, relevant_items, relevant_grades
        As in :func:`helpers.evaluate_arrays` (negative ids are empty slots;
        grades default to 1).
    k : int, optional
        Cutoff; default the width of ``top_items``.
    max_grade : float, optional
        As in :func:`err_at_k`; None uses each user's highest grade.

    Returns
    -------
    numpy.ndarray
        One float per user.

    Examples
    --------
    >>> import numpy as np
    >>> from helpers.user_models import err_batch
    >>> err_batch(np.array([[0, 1], [1, 0]]), [0, 1, 2], [0, 0])
    array([0.5 , 0.25])
    """
    top = top_matrix(top_items)
    k = check_k(top.shape[1] if k is None else k)
    return evaluate_user_models(top, relevant_indptr, relevant_items, k=k, relevant_grades=relevant_grades,
                                max_grade=max_grade, metrics=("err",))[f"err@{k}"].to_numpy()


def rbp_batch(
    top_items: Any,
    relevant_indptr: Any,
    relevant_items: Any,
    *,
    k: int | None = None,
    relevant_grades: Any = None,
    p: float = 0.8,
) -> np.ndarray:
    """RBP@k for every row of an integer (users x K) matrix, as :func:`rbp_at_k`.

    Examples
    --------
    >>> import numpy as np
    >>> from helpers.user_models import rbp_batch
    >>> rbp_batch(np.array([[0, 1], [1, 0]]), [0, 1, 2], [0, 0], p=0.5)
    array([0.5 , 0.25])
    """
    top = top_matrix(top_items)
    k = check_k(top.shape[1] if k is None else k)
    return evaluate_user_models(top, relevant_indptr, relevant_items, k=k, relevant_grades=relevant_grades,
                                p=p, metrics=("rbp",))[f"rbp@{k}"].to_numpy()


def evaluate_user_models(
    top_items: Any,
    relevant_indptr: Any,
    relevant_items: Any,
    *,
    k: int | Sequence[int] | None = None,
    relevant_grades: Any = None,
    max_grade: float | None = None,
    p: float = 0.8,
    metrics: Sequence[str] = ("err", "rbp"),
) -> pd.DataFrame:
    """ERR and RBP at one or several cutoffs for every user: columns ``err@k``, ``rbp@k``.

    The inputs are those of :func:`helpers.evaluate_arrays`; the result has one
    row per row of ``top_items``. Users with no relevant item score 0.

    Examples
    --------
    >>> import numpy as np
    >>> from helpers.user_models import evaluate_user_models
    >>> top = np.array([[0, 1, 2], [2, 1, 0]])
    >>> evaluate_user_models(top, [0, 2, 3], [0, 2, 1], k=[1, 3], p=0.5)
       err@1  rbp@1     err@3  rbp@3
    0    0.5    0.5  0.583333  0.625
    1    0.0    0.0  0.250000  0.250
    """
    top, indptr, items, grades, matrix = _inputs(top_items, relevant_indptr, relevant_items, relevant_grades)
    if k is None:
        k = top.shape[1]
    ks = check_ks(k)
    chosen = [m for m in ("err", "rbp") if m in set(metrics)]
    unknown = set(metrics) - {"err", "rbp"}
    if unknown or not chosen:
        raise ValueError(f"metrics must be a non-empty list of 'err' and 'rbp'; got {list(metrics)!r}.")
    columns: dict[str, np.ndarray] = {}
    if "err" in chosen:
        owner = np.repeat(np.arange(top.shape[0]), np.diff(indptr))
        user_max = np.zeros(top.shape[0])
        np.maximum.at(user_max, owner, grades)
        fixed = _check_max_grade(max_grade, float(grades.max(initial=0.0)))
        if fixed is not None:
            user_max = np.where(user_max > 0, fixed, 0.0)
        columns.update(_err_columns(matrix, user_max, ks))
    if "rbp" in chosen:
        p = _check_p(p)
        width = min(max(ks), matrix.shape[1])
        weights = (matrix[:, :width] > 0) * np.power(p, np.arange(width))
        running = np.cumsum(weights, axis=1) * (1.0 - p)
        for one in ks:
            columns[f"rbp@{one}"] = running[:, min(one, width) - 1] if width else np.zeros(top.shape[0])
    order = [f"{m}@{one}" for one in ks for m in chosen]
    return pd.DataFrame({name: columns[name] for name in order})
