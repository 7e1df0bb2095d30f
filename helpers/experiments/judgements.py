"""Incomplete judgements: inferred AP (infAP, Yilmaz and Aslam, CIKM 2006) for notebook 15.

When only a random sample of the candidate items is judged, treating every unjudged item as
non-relevant biases average precision downwards. infAP replaces each judged relevant item's precision
by its expected value given the judged items ranked above it, and so estimates AP from the sample.

Imports: NumPy-free and library-free (standard library only).
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Sequence

__all__ = ["EPSILON", "inferred_ap"]

#: The small constant of Yilmaz and Aslam's estimator, keeping the ratio defined with no judged item above.
EPSILON = 1e-5


def _check(ranking, judged_relevant, judged_nonrelevant, k) -> None:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive int (the cutoff), got {k!r}.")
    both = set(judged_relevant) & set(judged_nonrelevant)
    if both:
        raise ValueError(f"items judged both relevant and non-relevant: {sorted(map(str, both))[:5]}.")
    if len(set(ranking)) != len(ranking):
        raise ValueError("ranking lists an item twice; a ranked list holds each item once.")


def inferred_ap(
    ranking: Sequence[Hashable],
    judged_relevant: Collection[Hashable],
    judged_nonrelevant: Collection[Hashable],
    k: int,
) -> float:
    """Inferred average precision of one ranking from a uniformly sampled set of judgements.

    Every candidate item is in the pool (the whole catalogue is judgeable), and a uniform random sample of it
    is judged. For a judged relevant item at rank ``r <= k``, the expected precision at ``r`` is

    ``1/r + (r - 1)/r * (rel + eps) / (rel + nonrel + 2 eps)``,

    with ``rel`` and ``nonrel`` the judged relevant and judged non-relevant items among the ``r - 1`` above it
    (unjudged items above it are assumed relevant in the same proportion as the judged ones). infAP is the sum
    of these over the judged relevant items in the top ``k``, divided by the number of judged relevant items
    (all of them, ranked or not): sum and count are both sampled at the same rate.

    Parameters
    ----------
    ranking : sequence
        The items, best first.
    judged_relevant, judged_nonrelevant : collection
        The judged sample, split by judgement (disjoint).
    k : int
        Cutoff.

    Returns
    -------
    float
        infAP@k in [0, 1]; 0.0 when nothing judged relevant exists (a decision, as for AP with no relevant
        item: such a user is usually left out before averaging).

    Examples
    --------
    >>> from helpers.experiments.judgements import inferred_ap
    >>> round(inferred_ap(["a", "b", "c"], {"a", "c"}, {"b"}, 3), 4)   # complete judgements: AP itself
    0.8333
    >>> round(inferred_ap(["a", "x", "c"], {"a", "c"}, set(), 3), 4)   # x unjudged: relevant like a
    1.0
    """
    _check(ranking, judged_relevant, judged_nonrelevant, k)
    relevant, nonrelevant = set(judged_relevant), set(judged_nonrelevant)
    if not relevant:
        return 0.0
    total, rel_above, nonrel_above = 0.0, 0, 0
    for rank, item in enumerate(list(ranking)[:k], start=1):
        if item in relevant:
            share = (rel_above + EPSILON) / (rel_above + nonrel_above + 2 * EPSILON)
            total += 1.0 / rank + (rank - 1) / rank * share
            rel_above += 1
        elif item in nonrelevant:
            nonrel_above += 1
    return total / len(relevant)
