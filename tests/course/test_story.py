"""helpers.course.story: the core's running example is a real top-10 list, built the same way every time."""

from __future__ import annotations

import pandas as pd

from helpers.course import story as story_module
from helpers.experiments.data import synthetic_interactions
from helpers.splits import temporal_split


def test_the_story_list_is_what_the_notebooks_say():
    s = story_module.story()
    assert len(s.ranking) == s.k == 10 and len(set(s.ranking)) == 10
    assert 2 <= len(s.hit_ranks) <= 4 and s.hit_ranks[0] > 1  # a list with hits, misses and a miss on top
    assert len(s.relevant) > len(s.hit_ranks)  # some relevant items were never shown: recall < 1
    assert s.labels == [int(item in s.relevant) for item in s.ranking]
    assert s.first_later in s.relevant
    log = synthetic_interactions(**story_module.LOG_SETTINGS)
    train, test = temporal_split(log, test_fraction=story_module.TEST_FRACTION)
    past = set(train.loc[train["user"] == s.user, "item"])
    assert not past & set(s.ranking)  # the list never repeats what the user already had
    assert s.relevant == set(test.loc[test["user"] == s.user, "item"])
    assert len(past) == s.history
    assert s.table().splitlines()[0] == f"Top-10 recommendations for user {s.user} ({s.history} past items):"


def test_the_recommender_ranks_by_co_occurrence_then_popularity_then_id():
    # user 0 took item 0; users 1 and 2 took item 0 with item 2, user 3 took item 0 with item 1;
    # item 3 is popular (three users) but never co-occurs with item 0; item 4 only user 7 took
    train = pd.DataFrame(
        {
            "user": [0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 7],
            "item": [0, 0, 2, 0, 2, 0, 1, 3, 3, 3, 4],
            "timestamp": range(11),
        }
    )
    ranking = story_module._recommend(train, 0, 4)
    assert ranking == [
        2,
        1,
        3,
        4,
    ]  # co-occurrences 2, 1, 0 (popularity 3), 0 (popularity 1); item 0 is the user's
