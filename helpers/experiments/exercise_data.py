"""The data of the graded exercise on choosing metrics: the same at home, each learner's own when graded.

At home :func:`choosing_metrics_data` always returns the same public data (its worked
numbers are the ones in the notebook). While a notebook is graded, the grader puts a
one-way hash of that learner's seed (drawn from the gradebook's seed and the learner's key)
into the sandbox's environment (:data:`SEED_VARIABLE`), so the data, and with them every
answer, differ between learners and from the data at home: answers computed at home, or
handed from one learner to another, do not carry over; only the computation does. The
grader computes its expected values from the same seed, outside the sandbox.
"""

from __future__ import annotations

import os
import random

__all__ = ["choosing_metrics_data", "SEED_VARIABLE"]

#: Environment variable holding the grading run's seed inside the sandbox (absent at home).
SEED_VARIABLE = "HELPERS_GRADING_SEED"
_PUBLIC_SEED = 7


def _rng(seed: int | str | None) -> random.Random:
    if seed is None:
        seed = os.environ.get(SEED_VARIABLE)
    return random.Random(_PUBLIC_SEED if seed is None else f"choosing-metrics|{seed}")


def choosing_metrics_data(seed: int | str | None = None) -> tuple[dict, dict]:
    """Recommendations of two models and the users' relevant items (exercise 3).

    Parameters
    ----------
    seed : int or str, optional
        A grading run's seed. Without it: the run's seed while graded, else the public data.

    Returns
    -------
    recommendations : dict
        ``{"A": {user: ranked items}, "B": {user: ranked items}}``, ten items each.
    relevant : dict
        ``{user: sorted list of relevant items}``; one user (``user8``) has none. In a grading
        run ``user1`` has six, one of them in model A's top two, so that no answer is zero by
        chance (the two MAP denominators of question 4 always differ).

    Examples
    --------
    >>> recs, relevant = choosing_metrics_data()
    >>> sorted(recs), len(relevant), sum(1 for items in relevant.values() if not items)
    (['A', 'B'], 8, 1)
    >>> choosing_metrics_data(seed=1) == choosing_metrics_data(seed=1) != choosing_metrics_data()
    True
    """
    rng = _rng(seed)
    graded = seed is not None or SEED_VARIABLE in os.environ
    relevant: dict[str, list[int]] = {}
    recs: dict[str, dict[str, list[int]]] = {"A": {}, "B": {}}
    for i in range(8):
        user = f"user{i + 1}"
        n_rel = 0 if i == 7 else 6 if graded and i == 0 else rng.randint(1, 6)
        relevant[user] = sorted(rng.sample(range(100), n_rel))
        for model, boost, first_slot in (("A", 0.35, 0), ("B", 0.5, 2)):
            ranking = _ranking(rng, relevant[user], boost, first_slot)
            if graded and i == 0 and model == "A":
                ranking = _with_an_early_hit(rng, ranking, relevant[user])
            recs[model][user] = ranking[:10]
    return recs, relevant


def _ranking(rng: random.Random, rel: list[int], boost: float, first_slot: int) -> list[int]:
    """Ten items that are not relevant, each relevant item slotted in with probability ``boost``."""
    ranking = rng.sample([x for x in range(100) if x not in rel], 10)
    for item in rel:
        if rng.random() < boost:
            ranking.insert(rng.randint(first_slot, 8), item)
    return ranking


def _with_an_early_hit(rng: random.Random, ranking: list[int], rel: list[int]) -> list[int]:
    """The ranking with ``rel[0]`` moved into the top two, when it has no hit there.

    Question 4's answer, the difference of two MAP@5 denominators, comes from this user alone
    (the only one with more than five relevant items): with a hit in the top two it is at least
    (1/2) * (1/5 - 1/6) / 7 = 0.0024, more than twice the grader's tolerance of 0.001, so that
    answering 0 never scores by chance (a single hit at rank 5 gave 0.00095, within it).
    """
    if set(ranking[:2]) & set(rel):
        return ranking
    ranking = [x for x in ranking if x != rel[0]]
    ranking.insert(rng.randint(0, 1), rel[0])
    return ranking
