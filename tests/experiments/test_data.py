"""helpers.experiments.data: the synthetic generator and the MovieLens loaders (on the shipped fixtures)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from helpers.experiments.data import (
    SYNTHETIC_START,
    load_movielens_100k,
    load_movielens_latest,
    synthetic_interactions,
    synthetic_item_factors,
    synthetic_item_genres,
)

FIXTURES = Path(__file__).resolve().parent / "data"


# ------------------------------------------------------------------ synthetic
@pytest.fixture(scope="module")
def log():
    return synthetic_interactions(n_users=300, n_items=200, seed=5)


def test_columns_types_and_determinism(log):
    assert list(log.columns) == ["user", "item", "timestamp"]
    assert all(str(t) == "int64" for t in log.dtypes)
    assert log.equals(synthetic_interactions(n_users=300, n_items=200, seed=5))
    assert not log.equals(synthetic_interactions(n_users=300, n_items=200, seed=6))


def test_ids_counts_and_no_repeated_pairs(log):
    assert set(log["user"]) == set(range(300))
    assert log["item"].between(0, 199).all()
    assert not log.duplicated(["user", "item"]).any()
    sizes = log.groupby("user").size()
    assert sizes.min() >= 5
    assert sizes.max() <= 100  # at most half the catalog
    assert 20 <= sizes.median() <= 45  # mean_interactions=30 is the median of a log-normal


def test_popularity_has_a_long_tail(log):
    counts = log["item"].value_counts().to_numpy()
    top_tenth = counts[: len(counts) // 10].sum() / counts.sum()
    assert top_tenth > 0.25  # uniform popularity would give about 0.10
    assert counts[0] > 4 * np.median(counts)


def test_flat_popularity_without_taste_is_close_to_uniform():
    flat = synthetic_interactions(
        n_users=400, n_items=100, popularity_exponent=0.0, taste_strength=0.0, seed=1
    )
    counts = flat["item"].value_counts().reindex(range(100), fill_value=0).to_numpy()
    assert counts.max() < 2 * counts.mean()


def test_taste_makes_users_differ():
    def overlap(frame):
        sets = frame.groupby("user")["item"].apply(set)
        pairs = [len(sets[i] & sets[i + 1]) / len(sets[i] | sets[i + 1]) for i in range(0, 200, 2)]
        return float(np.mean(pairs))

    without = synthetic_interactions(n_users=200, n_items=300, taste_strength=0.0, seed=3)
    strong = synthetic_interactions(n_users=200, n_items=300, taste_strength=4.0, seed=3)
    # with tastes users concentrate on their own corners, so two random users share less
    assert overlap(strong) < overlap(without)


def test_timestamps_sorted_in_window_and_distinct_per_user(log):
    ts = log["timestamp"]
    assert ts.is_monotonic_increasing
    assert ts.min() >= SYNTHETIC_START
    assert ts.max() <= SYNTHETIC_START + 365 * 86_400 + 200  # + possible one-second nudges
    assert not log.duplicated(["user", "timestamp"]).any()


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"n_users": 0}, ValueError),
        ({"n_items": 3}, ValueError),  # fewer items than min_interactions
        ({"min_interactions": 1}, ValueError),
        ({"n_users": 2.5}, TypeError),
        ({"taste_strength": -1.0}, ValueError),
        ({"mean_interactions": float("nan")}, ValueError),
    ],
)
def test_bad_arguments(kwargs, error):
    with pytest.raises(error):
        synthetic_interactions(**kwargs)


# ------------------------------------------------------------------ loaders
def test_load_100k_fixture():
    ratings = load_movielens_100k(FIXTURES / "u.data")
    assert list(ratings.columns) == ["user", "item", "rating", "timestamp"]
    assert all(str(t) == "int64" for t in ratings.dtypes)
    assert len(ratings) == len((FIXTURES / "u.data").read_text().splitlines()) == 36
    assert ratings.iloc[0].tolist() == [1, 12, 4, 884025600]
    assert ratings["rating"].between(1, 5).all()
    assert ratings["user"].nunique() == 6


def test_load_latest_fixture_and_folder_path():
    ratings = load_movielens_latest(FIXTURES / "ratings.csv")
    assert ratings.dtypes.astype(str).tolist() == ["int64", "int64", "float64", "int64"]
    assert len(ratings) == 31
    assert ratings.iloc[1].tolist() == [1.0, 42.0, 3.0, 1500074105.0]
    assert set(ratings["rating"] * 2) <= set(range(1, 11))  # half stars
    # a folder holding the file works too
    assert load_movielens_latest(FIXTURES).equals(ratings)
    assert load_movielens_100k(str(FIXTURES)).equals(load_movielens_100k(FIXTURES / "u.data"))


def test_missing_file_says_where_to_get_it(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"no file at .*grouplens.org/datasets/movielens/100k.*unzip"):
        load_movielens_100k(tmp_path / "u.data")
    with pytest.raises(FileNotFoundError, match=r"ml-latest-small/ratings.csv"):
        load_movielens_latest(tmp_path / "nothing.csv")
    with pytest.raises(FileNotFoundError, match=r"folder without a 'u.data'"):
        load_movielens_100k(tmp_path)
    with pytest.raises(TypeError, match=r"path must be a path \(a non-empty str or a pathlib.Path\); got 42"):
        load_movielens_100k(42)


def test_swapped_formats_point_to_the_other_loader():
    with pytest.raises(ValueError, match=r"use load_movielens_latest\(path\)"):
        load_movielens_100k(FIXTURES / "ratings.csv")
    with pytest.raises(ValueError, match=r"use load_movielens_100k\(path\)"):
        load_movielens_latest(FIXTURES / "u.data")


def test_wrong_content_errors(tmp_path):
    three = tmp_path / "three.data"
    three.write_text("1\t2\t3\n4\t5\t6\n")
    with pytest.raises(ValueError, match="3 tab-separated fields per line, not 4"):
        load_movielens_100k(three)
    text = tmp_path / "bad.data"
    text.write_text("1\t2\t3\t100\n1\tx\t3\t101\n")
    with pytest.raises(ValueError, match=r"bad.data line 2: item 'x' is not a whole number"):
        load_movielens_100k(text)
    pipe = tmp_path / "u.item"
    pipe.write_text("1|Toy Story (1995)|01-Jan-1995\n")
    with pytest.raises(ValueError, match=r"'\|'-separated"):
        load_movielens_100k(pipe)
    empty = tmp_path / "empty.data"
    empty.write_text("")
    with pytest.raises(ValueError, match="empty"):
        load_movielens_100k(empty)
    movies = tmp_path / "movies.csv"
    movies.write_text("movieId,title,genres\n1,Toy Story (1995),Animation\n")
    with pytest.raises(ValueError, match="not movies.csv"):
        load_movielens_latest(movies)
    badrating = tmp_path / "ratings.csv"
    badrating.write_text("userId,movieId,rating,timestamp\n1,2,3.5,10\n1,3,good,11\n")
    with pytest.raises(ValueError, match=r"line 3: rating 'good' is not a number"):
        load_movielens_latest(badrating)


def test_loaded_data_runs_through_a_split():
    from helpers import leave_one_out_split

    ratings = load_movielens_100k(FIXTURES / "u.data")
    train, test = leave_one_out_split(ratings)
    assert len(test) == ratings["user"].nunique()
    last = ratings.sort_values("timestamp").groupby("user").tail(1).sort_index()
    assert test.equals(last.loc[test.index])
    assert isinstance(train, pd.DataFrame)


# ------------------------------------------------------------------ genres of the synthetic items
def _top_genre_share(log, genres):
    """Mean over users of the share of their items that carry their most frequent genre."""
    shares = []
    for _, items in log.groupby("user")["item"]:
        counts = pd.Series([g for item in items for g in genres[item]]).value_counts()
        shares.append(counts.iloc[0] / len(items))
    return float(np.mean(shares))


def test_item_genres_are_what_the_users_chose_by():
    log = synthetic_interactions(n_users=200, n_items=300, taste_strength=3.0, seed=9)
    genres = synthetic_item_genres(n_items=300, seed=9)
    assert list(genres.index) == list(range(300)) and genres.map(len).min() >= 1
    assert {g for item in genres for g in item} == {f"g{d}" for d in range(8)}
    # histories concentrate on the genres of the log's own seed, not on another seed's or shuffled genres
    own = _top_genre_share(log, genres)
    other = _top_genre_share(log, synthetic_item_genres(n_items=300, seed=10))
    shuffled = pd.Series(genres.sample(frac=1, random_state=0).to_numpy(), index=genres.index)
    assert own > other + 0.05 and own > _top_genre_share(log, shuffled) + 0.05


def test_item_genres_threshold_and_bad_input():
    few = synthetic_item_genres(n_items=100, threshold=10.0, seed=1)
    assert few.map(len).eq(1).all()  # only the largest factor
    many = synthetic_item_genres(n_items=100, threshold=-10.0, n_factors=3, seed=1)
    assert many.map(len).eq(3).all()
    with pytest.raises(ValueError, match="n_items"):
        synthetic_item_genres(n_items=0)


def test_item_factors_are_the_generators_draws_and_the_genres_their_positive_side():
    factors = synthetic_item_factors(n_items=200, seed=4)
    rng = np.random.default_rng(4)  # naive oracle: the generator's first two draws
    rng.permutation(200)
    assert np.array_equal(factors.to_numpy(), rng.normal(size=(200, 8)))
    genres = synthetic_item_genres(n_items=200, seed=4)
    for item, labels in genres.items():
        row = factors.loc[item]
        above = {g for g, v in row.items() if v > 1.0}
        assert set(labels) == (above or {row.idxmax()})
    # the negative side is not represented: many items are strongly negative on a factor
    assert ((factors < -1).any(axis=1)).mean() > 0.5
