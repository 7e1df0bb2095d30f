"""Metrics built on a model of how a user reads a list: ERR (cascade) and RBP (patience).

NDCG discounts rank i by 1/log2(i + 1) because that curve works, not because
it describes a person. The two metrics here start from a story instead:

* **ERR** (expected reciprocal rank, Chapelle, Metzler, Zhang and Grinspan,
  CIKM 2009) is a *cascade*: the user reads from the top and stops at the
  first item that satisfies them. An item of grade g satisfies with
  probability R(g) = (2^g - 1) / 2^g_max, so a great item early on leaves
  little credit for what follows. ERR@k is the expected value of 1/(rank at
  which the user stops), counting 0 if they never stop within k. g_max is
  the top of the grading scale (gdeval, behind ir_measures' ``ERR@k``, fixes
  it at 4), never one user's best grade: :func:`err_at_k` asks for it once a
  grade exceeds 1, and batch evaluation takes the truth's largest grade.
* **RBP** (rank-biased precision, Moffat and Zobel, TOIS 2008) is a
  *patience* model: after each item the user goes on to the next with
  probability p (0.5 impatient, 0.8 typical, 0.95 very patient). RBP@k is
  (1 - p) times the sum of p^(i - 1) over the relevant ranks i <= k: the
  expected rate at which the user meets relevant items. It is a lower
  bound; :func:`rbp_residual_at_k` gives the residual, the most that the
  ranks beyond k and unjudged items could add.

Each has a per-user function here, written for reading; for many users at once
ask :func:`topkeval.evaluate` or :func:`topkeval.evaluate_arrays` for the columns
``err@k``, ``rbp@k`` and ``rbp_residual@k`` (``metrics=[..., "err", "rbp", "rbp_residual"]``): their
batch kernels live in ``topkeval._kernels`` with the other metrics' and are tested against
these functions to 1e-12.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

from . import _registry
from ._cutoff import satisfaction
from ._validation import (
    PER_USER,
    Number,
    Relevant,
    check_k,
    check_number,
    check_ranking,
    check_relevance,
    check_relevant_set,
    err_scale,
    validate_params,
)

__all__ = ["err_at_k", "rbp_at_k", "rbp_residual_at_k"]


# ----------------------------------------------------------------- per user
@validate_params({**PER_USER, "max_grade": Number("max_grade")})
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
        The top of the grade scale, g_max (e.g. 4 for TREC's 0-4 grades, 5
        for 1-5 stars). Required once a grade exceeds 1; without it binary
        relevance (grades <= 1) uses g_max = 1, so a relevant item gives
        R = 1/2.

    Returns
    -------
    float
        A value in [0, 1). It is 0.0 when the user has no relevant item.

    Notes
    -----
    g_max belongs to the grading scale, not to the user: Chapelle et al.
    define R(g) = (2^g - 1) / 2^g_max with g_max the top grade of the
    judging scale, and gdeval (the TREC Web track script behind
    ir_measures' ``ERR@k``) fixes it at 4. Taking each user's own highest
    grade instead would make one grade-1 item worth R = 1/2 to a user whose
    best grade is 1 and 1/8 to a user whose best is 3, so this function asks
    for ``max_grade`` as soon as a grade exceeds 1 (batch evaluation
    defaults to the largest grade of the whole truth instead, see
    :func:`topkeval.evaluate`).

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
    >>> err_at_k(["a"], {"a": 1}, k=1, max_grade=4)  # gdeval's scale: R = 1/16
    0.0625
    """
    items = check_ranking(ranking)
    grades = check_relevance(relevant)
    k = check_k(k)
    largest = max(grades.values(), default=0.0)
    top = err_scale(max_grade, largest)
    if largest == 0:
        return 0.0
    not_stopped, total = 1.0, 0.0
    for rank, item in enumerate(items[:k], start=1):
        satisfied = float(satisfaction(grades.get(item, 0.0), top))
        total += not_stopped * satisfied / rank
        not_stopped *= 1.0 - satisfied
    return float(total)


@validate_params({**PER_USER, "p": Number("p")})
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
    one relevant item cannot score above 1 - p. RBP@k is a lower bound: the
    ranks beyond k, and unjudged items within them, could add at most the
    *residual* (:func:`rbp_residual_at_k`; p^k when every listed item is
    judged). Moffat and Zobel report RBP as "base + residual".

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
    p = _check_p(p)
    total = sum(p ** (rank - 1) for rank, item in enumerate(items[:k], start=1) if item in rel)
    return float((1.0 - p) * total)


def _check_p(p: float) -> float:
    """RBP's persistence, checked against the registry's range."""
    spec = _registry.PARAMETERS["p"]
    return check_number(p, "p", spec.low, spec.high, low_open=spec.low_open, high_open=spec.high_open)


@validate_params({**PER_USER, "p": Number("p")})
def rbp_residual_at_k(
    ranking: Sequence[Hashable], relevant: Relevant, k: int, *, p: float = _registry.Settings.p
) -> float:
    """RBP's residual: how much RBP@k could still grow, from unjudged items and the ranks beyond k.

    residual@k = p^k + (1 - p) * sum over the ranks i <= k holding an unjudged item of p^(i - 1)

    Moffat and Zobel (TOIS 2008) report RBP as a base and a
    residual: the base, :func:`rbp_at_k`, counts only items judged relevant;
    the residual is the weight of everything whose relevance is unknown, the
    ranks beyond the evaluation depth k (all of it, p^k, whatever the
    list holds there) and the unjudged items within it. The true RBP of
    the full ranking lies in [base, base + residual].

    Parameters
    ----------
    ranking : sequence of hashable
        Recommended item ids, best first. No duplicates.
    relevant : set of hashable, or mapping item -> grade
        A set (or list, tuple, array) lists the relevant items and every
        other item counts as judged not relevant (the usual recommender
        truth), so the residual is p^k.
        A mapping is a set of judgments (qrels): grade > 0 relevant, grade 0
        judged not relevant, and an item absent from it is unjudged.
    k : int
        Evaluation depth, at least 1.
    p : float
        Persistence, 0 < p < 1, as in :func:`rbp_at_k`.

    Returns
    -------
    float
        A value in [p^k, 1]. Positions past the end of a list shorter than k
        hold no item, so they add nothing (they are neither relevant nor
        unjudged); the ranks beyond k always add p^k.

    Examples
    --------
    >>> from topkeval.user_models import rbp_residual_at_k
    >>> rbp_residual_at_k(["a", "b", "c"], {"a"}, k=3, p=0.5)  # everything judged: p^k
    0.125
    >>> rbp_residual_at_k(["a", "b", "c"], {"a": 1, "c": 0}, k=3, p=0.5)  # b unjudged: + 0.5 * 0.5
    0.375
    """
    items = check_ranking(ranking)
    grades = check_relevance(relevant)  # checked either way; a mapping is a set of judgments
    k = check_k(k)
    p = _check_p(p)
    unjudged = 0.0
    if isinstance(relevant, Mapping):
        unjudged = sum(p ** (rank - 1) for rank, item in enumerate(items[:k], start=1) if item not in grades)
    return float(p**k + (1.0 - p) * unjudged)
