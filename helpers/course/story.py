"""The core's running story: one user's top-10 list from a recommender, and what the user did next.

The log is the course's own seeded synthetic shop log
(:func:`helpers.experiments.data.synthetic_interactions`, generated on the spot: nothing to
download). It is split at one point in time: the past trains a small item-to-item recommender,
the future says which items the user really took (the relevant set). Notebook 00 shows the list;
every core notebook scores it with the metric it teaches.

The recommender counts co-occurrences (how many past users took both an item of this user and the
candidate), whole numbers computed exactly, with ties broken by popularity and then by item id, so
the list is the same on every machine.

Examples
--------
>>> s = story()
>>> len(s.ranking), s.k
(10, 10)
>>> s.hit_ranks == [r for r, item in enumerate(s.ranking, 1) if item in s.relevant]
True
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from helpers.experiments.data import synthetic_interactions
from topkeval.splits import temporal_split

__all__ = ["Story", "story", "LOG_SETTINGS"]

#: The log the story is drawn from (a small shop: fast to build in every notebook).
LOG_SETTINGS: dict[str, Any] = {"n_users": 400, "n_items": 150, "mean_interactions": 20.0, "seed": 11}
TEST_FRACTION = 0.2


@dataclass(frozen=True)
class Story:
    """One user's recommendations and what the user did after them.

    Parameters
    ----------
    user : int
        The user's id in the log.
    ranking : list of int
        The recommender's top-k item ids, best first (items the user already had are left out).
    relevant : set of int
        The items the user took after the split: the relevant set R.
    history : int
        How many items the user took before the split (what the recommender saw).
    first_later : int
        The first item the user took after the split (notebook 06 holds out only this one).
    k : int, default 10
        The length of the list.

    Examples
    --------
    >>> example = Story(user=7, ranking=[3, 1, 4], relevant={1, 9}, history=12, first_later=9, k=3)
    >>> example.hit_ranks, example.labels
    ([2], [0, 1, 0])
    """

    user: int
    ranking: list[int]
    relevant: set[int]
    history: int
    first_later: int
    k: int = 10

    @property
    def hit_ranks(self) -> list[int]:
        """1-based ranks of the relevant items in the list."""
        return [rank for rank, item in enumerate(self.ranking, start=1) if item in self.relevant]

    @property
    def labels(self) -> list[int]:
        """1 for a hit, 0 for a miss, in rank order."""
        return [int(item in self.relevant) for item in self.ranking]

    def table(self) -> str:
        """The list as a learner reads it: rank, item, and whether the user took it later."""
        rows = [f"Top-{self.k} recommendations for user {self.user} ({self.history} past items):"]
        for rank, item in enumerate(self.ranking, start=1):
            mark = "taken later (relevant)" if item in self.relevant else "-"
            rows.append(f"{rank:>3}  item {item:<4} {mark}")
        missed = len(self.relevant) - len(self.hit_ranks)
        rows.append(f"The user took {len(self.relevant)} items later; {missed} of them are not in the list.")
        return "\n".join(rows)


def _recommend(train, user: int, k: int) -> list[int]:
    """Top-k by co-occurrence with the user's past items (exact integers), then popularity, then id."""
    n_items = int(max(train["item"].max(), 0)) + 1
    n_users = int(train["user"].max()) + 1
    taken = np.zeros((n_users, n_items), dtype=np.int64)
    taken[train["user"].to_numpy(), train["item"].to_numpy()] = 1
    mine = taken[user]
    others = np.delete(taken, user, axis=0)
    co_counts = (others.T @ others) @ mine  # for each candidate: co-occurrences with my items
    popularity = others.sum(axis=0)
    candidates = [i for i in range(n_items) if not mine[i]]
    candidates.sort(key=lambda i: (-int(co_counts[i]), -int(popularity[i]), i))
    return candidates[:k]


@lru_cache(maxsize=1)
def story(k: int = 10) -> Story:
    """The story's user, who runs through the core notebooks.

    The first user (by id) whose top-k list has two to four hits, not at rank 1, and who took
    more items later than the list holds, so every core metric has something to say. Built from
    a small synthetic log (:data:`LOG_SETTINGS`), the same on every machine; computed once per
    session.

    Parameters
    ----------
    k : int, default 10
        The length of the list.

    Returns
    -------
    Story
        The user, their list and what they took later.

    Examples
    --------
    >>> s = story()
    >>> 2 <= len(s.hit_ranks) <= 4 and s.hit_ranks[0] > 1
    True
    """
    log = synthetic_interactions(**LOG_SETTINGS)
    train, test = temporal_split(log, test_fraction=TEST_FRACTION)
    later = test.groupby("user")["item"].apply(set)
    past = train.groupby("user").size()
    for user in sorted(later.index):
        if user not in past.index:
            continue
        ranking = _recommend(train, int(user), k)
        relevant = {int(i) for i in later[user]}
        hits = [r for r, item in enumerate(ranking, 1) if item in relevant]
        if 2 <= len(hits) <= 4 and hits[0] > 1 and len(relevant) > len(hits):
            first = int(test[test["user"] == user].sort_values(["timestamp", "item"])["item"].iloc[0])
            return Story(int(user), ranking, relevant, int(past[user]), first, k)
    raise LookupError("no user of the story log fits; change LOG_SETTINGS")  # pragma: no cover
