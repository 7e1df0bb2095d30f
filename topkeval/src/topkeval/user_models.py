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

Each has a per-user function here, written for reading; for many users at once
ask :func:`topkeval.evaluate` or :func:`topkeval.evaluate_arrays` for the columns
``err@k`` and ``rbp@k`` (``metrics=[..., "err", "rbp"]``): their batch kernels
live in ``topkeval._kernels`` with the other metrics' and are tested against
these functions to 1e-12.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from . import _registry
from ._cutoff import satisfaction
from ._validation import (
    Relevant,
    check_k,
    check_max_grade,
    check_number,
    check_ranking,
    check_relevance,
    check_relevant_set,
)

__all__ = ["err_at_k", "rbp_at_k"]


# ----------------------------------------------------------------- per user
def err_at_k(
    ranking: Sequence[Hashable],
    relevant: Relevant,
    k: int,
    *,
    max_grade: float | None = _registry.Settings.max_grade,
) -> float:
    """Expected reciprocal rank: 1/(rank where the user stops), averaged over the cascade.

    ERR@k = sum over i = 1..k of (1/i) * R_i * prod over j < i of (1 - R_j),
    with R = (2^g - 1) / 2^g_max the chance that an item of grade g satisfies
    the user (Chapelle et al., 2009).

    Parameters
    ----------
    ranking : sequence of hashable
        Recommended item ids, best first. No duplicates.
    relevant : mapping item -> grade, or set of item ids
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
    >>> from topkeval.user_models import err_at_k
    >>> err_at_k(["a", "b", "c"], {"a": 1}, k=3)  # R = 1/2 at rank 1
    0.5
    >>> err_at_k(["a", "b", "c"], {"b": 1}, k=3)  # R = 1/2 at rank 2: (1/2) * (1/2)
    0.25
    >>> round(err_at_k(["a", "b"], {"a": 2, "b": 1}, k=2, max_grade=2), 4)  # 3/4 + (1/2)(1/4)(1/4)
    0.7812
    """
    items = check_ranking(ranking)
    grades = check_relevance(relevant)
    k = check_k(k)
    largest = max(grades.values(), default=0.0)
    top = check_max_grade(max_grade, largest)
    top = largest if top is None else top
    if largest == 0:
        return 0.0
    not_stopped, total = 1.0, 0.0
    for rank, item in enumerate(items[:k], start=1):
        satisfied = float(satisfaction(grades.get(item, 0.0), top))
        total += not_stopped * satisfied / rank
        not_stopped *= 1.0 - satisfied
    return float(total)


def rbp_at_k(
    ranking: Sequence[Hashable], relevant: Relevant, k: int, *, p: float = _registry.Settings.p
) -> float:
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
    >>> from topkeval.user_models import rbp_at_k
    >>> rbp_at_k(["a", "b", "c"], {"a"}, k=3, p=0.5)
    0.5
    >>> rbp_at_k(["a", "b", "c"], {"a", "c"}, k=3, p=0.5)  # 0.5 * (1 + 0.25)
    0.625
    """
    items = check_ranking(ranking)
    rel = check_relevant_set(relevant)
    k = check_k(k)
    spec = _registry.PARAMETERS["p"]
    p = check_number(p, "p", spec.low, spec.high, low_open=spec.low_open, high_open=spec.high_open)
    total = sum(p ** (rank - 1) for rank, item in enumerate(items[:k], start=1) if item in rel)
    return float((1.0 - p) * total)
