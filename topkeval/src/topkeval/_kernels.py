"""Batch kernels: each metric for a block of users at one cutoff, from where the hits are.

:func:`topkeval.evaluate_arrays` finds the hits of a block of users once and
describes them at each cutoff ``k`` in a :class:`Cut`; the registry
(``topkeval._registry.METRICS[key].kernel``) names the kernel of each metric, so
adding a metric means adding its kernel here and its registry entry. Every
kernel returns one float per user of the block and is tested against the
metric's per-user function.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._cutoff import normalised, satisfaction
from ._registry import Settings

__all__ = [
    "Cut",
    "INPUTS",
    "precision",
    "recall",
    "hit",
    "reciprocal_rank",
    "average_precision",
    "r_precision",
    "ndcg",
    "expected_reciprocal_rank",
    "rank_biased_precision",
    "rbp_residual",
    "bpref",
]


@dataclass
class Cut:
    """The hits of a block of ``n`` users within the top ``k``.

    Attributes
    ----------
    k : int
        The cutoff.
    hits : array of int, shape (n,)
        Hits in the top k, per user.
    n_relevant : array of int, shape (n,)
        |R| per user.
    first : array of int, shape (n,)
        0-based position of the user's first hit anywhere in the list (a huge
        number when there is none).
    row, position, ordinal : arrays of int, one entry per hit in the top k
        The hit's user (0..n-1), its 0-based position, and how many hits its
        user has up to and including it.
    listed_hits : array of int, shape (n,)
        Hits anywhere in the list (for an ideal built from the listed items).
    gains : array of float or None
        Gain of each hit in the top k; None for binary relevance (gain 1).
    ideal : array of float, shape (n,) or None
        IDCG@k per user for graded relevance; None for binary relevance.
    discounts : array of float
        ``discounts[i]`` is the discount of 0-based position i.
    binary_idcg : array of float
        ``binary_idcg[m]`` is the IDCG of m relevant items (binary relevance).
    options : topkeval._registry.Settings
        Every option of the evaluation (AP's denominator, NDCG's ideal, RBP's p, ...).
    grades : array of float or None
        Grade of each hit in the top k (ERR); None for binary relevance (grade 1).
    top_grade : array of float or None
        The top of each user's grade scale (ERR's g_max); None means 1.
    unjudged : array of float, shape (n,) or None
        (1 - p) times the sum of p**(i - 1) over the ranks i <= k that hold
        an item the truth does not judge (RBP's residual); None when every
        item is judged (a truth of relevant items only).
    judged_above : array of int or None, one entry per hit in the top k
        How many judged items (grade 0 too) are above the hit (bpref); None
        when every item is judged.
    nonrelevant : array of int, shape (n,) or None
        How many judged non-relevant items each user has (bpref's N); None
        when every item not relevant is judged.

    Which of the optional fields a batch fills is decided by the metrics
    asked for: each declares what its kernel reads
    (:attr:`topkeval._registry.Metric.needs`, fields in :data:`INPUTS`).
    """

    k: int
    hits: np.ndarray
    n_relevant: np.ndarray
    first: np.ndarray
    row: np.ndarray
    position: np.ndarray
    ordinal: np.ndarray
    listed_hits: np.ndarray
    gains: np.ndarray | None
    ideal: np.ndarray | None
    discounts: np.ndarray
    binary_idcg: np.ndarray
    options: Settings
    grades: np.ndarray | None = None
    top_grade: np.ndarray | None = None
    unjudged: np.ndarray | None = None
    judged_above: np.ndarray | None = None
    nonrelevant: np.ndarray | None = None

    @property
    def n(self) -> int:
        return self.hits.size

    def per_user(self, weights: np.ndarray) -> np.ndarray:
        """Sum ``weights`` (one per hit in the top k) per user."""
        return np.bincount(self.row, weights=weights, minlength=self.n)


#: The fields of :class:`Cut` that each kernel input of the registry fills
#: (:data:`topkeval._registry.KERNEL_INPUTS`); a batch leaves them None unless a metric asked for needs them.
INPUTS: dict[str, tuple[str, ...]] = {
    "gains": ("gains", "ideal"),
    "grades": ("grades", "top_grade"),
    "unjudged": ("unjudged",),
    "judged": ("judged_above", "nonrelevant"),
}


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, and 0 where the denominator is 0."""
    return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1), 0.0)


def precision(cut: Cut) -> np.ndarray:
    """Hits in the top k / k."""
    return cut.hits / cut.k


def recall(cut: Cut) -> np.ndarray:
    """Hits in the top k / |R| (0 for a user with no relevant item)."""
    return _ratio(cut.hits, cut.n_relevant)


def hit(cut: Cut) -> np.ndarray:
    """1 if the top k holds a relevant item."""
    return (cut.hits > 0).astype(np.float64)


def reciprocal_rank(cut: Cut) -> np.ndarray:
    """1 / rank of the first hit, if it is within the top k."""
    return np.where(cut.first < cut.k, 1.0 / (cut.first + 1.0), 0.0)


def average_precision(cut: Cut) -> np.ndarray:
    """Sum of P@i at the hits' ranks i <= k, over the chosen denominator."""
    total = cut.per_user(cut.ordinal / (cut.position + 1.0))
    denominator = {
        "n_relevant": cut.n_relevant,
        "min_k_n_relevant": np.minimum(cut.n_relevant, cut.k),
        "n_hits": cut.hits,
    }[cut.options.denominator]
    return _ratio(total, denominator)


def r_precision(cut: Cut) -> np.ndarray:
    """Hits at the ranks i <= min(k, |R|) / |R| (0 for a user with no relevant item)."""
    within = cut.position < cut.n_relevant[cut.row]
    return _ratio(cut.per_user(within.astype(np.float64)), cut.n_relevant)


def ndcg(cut: Cut) -> np.ndarray:
    """DCG@k / IDCG@k, with the gains and discounts of :mod:`topkeval._cutoff`."""
    weights = cut.discounts[cut.position]
    if cut.gains is not None:
        weights = weights * cut.gains
    dcg = cut.per_user(weights)
    if cut.ideal is None:
        listed = cut.listed_hits if cut.options.ideal == "listed" else cut.n_relevant
        idcg = cut.binary_idcg[np.minimum(listed, cut.k)]
    else:
        idcg = cut.ideal
    return normalised(dcg, idcg)


def expected_reciprocal_rank(cut: Cut) -> np.ndarray:
    """Sum over the hits of R_i / i times the chance the user has not stopped before i (a cascade).

    R = (2**grade - 1) / 2**top_grade. The chance of reaching a hit is the product of (1 - R) over the
    user's earlier hits, taken as an exclusive cumulative sum of log(1 - R) within each user (the hits
    come sorted by user, then by position).
    """
    grades = 1.0 if cut.grades is None else cut.grades
    top = np.ones(cut.n) if cut.top_grade is None else cut.top_grade
    stop = satisfaction(grades, top[cut.row])
    log_go_on = np.log1p(-stop)
    through = np.cumsum(log_go_on)
    starts = np.cumsum(cut.hits) - cut.hits
    before_user = np.concatenate([[0.0], through])[starts]
    reach = np.exp(through - log_go_on - before_user[cut.row])
    return cut.per_user(stop * reach / (cut.position + 1.0))


def rank_biased_precision(cut: Cut) -> np.ndarray:
    """(1 - p) times the sum of p**(i - 1) over the relevant ranks i <= k."""
    p = cut.options.p
    return (1.0 - p) * cut.per_user(p ** cut.position.astype(np.float64))


def rbp_residual(cut: Cut) -> np.ndarray:
    """RBP's residual: p**k (the ranks beyond k) plus the weight of the unjudged items in the top k."""
    tail = np.full(cut.n, cut.options.p**cut.k)
    return tail if cut.unjudged is None else tail + cut.unjudged


def bpref(cut: Cut) -> np.ndarray:
    """(1/|R|) * sum over the hits of 1 - min(n, |R|) / min(|R|, N), n = judged non-relevant items above.

    A hit with no judged non-relevant item above it adds 1 (trec_eval's rule, which also avoids 0/0 when
    N = 0).
    """
    above = cut.position if cut.judged_above is None else cut.judged_above
    nonrelevant_above = above - (cut.ordinal - 1)  # the judged items above a hit, less the hits above it
    relevant = cut.n_relevant[cut.row]
    pool = relevant if cut.nonrelevant is None else np.minimum(relevant, cut.nonrelevant[cut.row])
    share = np.minimum(nonrelevant_above, relevant) / np.maximum(pool, 1)
    return _ratio(cut.per_user(np.where(nonrelevant_above > 0, 1.0 - share, 1.0)), cut.n_relevant)
