"""topkeval.spark on a real local Spark: the numbers of topkeval.evaluate, and Spark's own
where they coincide."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import topkeval
import topkeval.spark as hs

K = [1, 3, 10]
ALL_OPTIONS = {**topkeval.OPTIONS, **topkeval.BATCH_OPTIONS}
# every (option, value) pair of the registry: one Spark run each
CASES = [(name, value) for name, option in ALL_OPTIONS.items() for value in option.values]


def make_data(n_users: int = 240, n_items: int = 30, seed: int = 16, ids: str = "int"):
    """Recommendations with tied scores and short lists, graded truth, and every kind of user.

    Kinds of user: relevant items and a list; relevant items but no list (scores 0); a list but no
    truth row; a list and only grade-0 truth rows; only grade-0 truth rows and no list. The last
    three have no relevant item.
    """
    rng = np.random.default_rng(seed)
    recs, truth = [], []
    for u in range(n_users):
        kind = u % 8
        listed = _user_list(rng, u, kind, n_items) if kind != 1 else []  # kind 1: relevant items, no list
        if kind in (2, 7):  # no truth row at all
            recs += listed
            continue
        truth += _user_truth(rng, u, kind, n_items)
        recs += listed if kind != 4 else []  # kind 4: grade-0 rows only, and no list
    recs = pd.DataFrame(recs, columns=["user", "item", "score"])
    truth = pd.DataFrame(truth, columns=["user", "item", "relevance"])
    if ids == "str":
        for frame in (recs, truth):
            frame["user"] = "u" + frame["user"].astype(str)
            frame["item"] = "i" + frame["item"].astype(str).str.zfill(2)
    return recs, truth


def _user_list(rng, u: int, kind: int, n_items: int) -> list[tuple]:
    """One user's recommendations: a short list (up to 12; kind 7's may be empty) with few distinct scores."""
    n = int(rng.integers(0 if kind == 7 else 1, 13))
    items = rng.choice(n_items, size=n, replace=False)
    scores = rng.integers(0, 5, size=n) / 4  # few distinct scores: ties
    return [(u, int(i), float(s)) for i, s in zip(items, scores, strict=True)]


def _user_truth(rng, u: int, kind: int, n_items: int) -> list[tuple]:
    """One user's truth rows: graded, or grade 0 only for kinds 3 and 4."""
    n = int(rng.integers(1, 8))
    items = rng.choice(n_items, size=n, replace=False)
    grades = rng.integers(0, 4, size=n) if kind not in (3, 4) else np.zeros(n, dtype=int)
    return [(u, int(i), int(g)) for i, g in zip(items, grades, strict=True)]


def with_ranks(recs: pd.DataFrame) -> pd.DataFrame:
    """The same lists as ranks (ties broken by item, as ties='item_ascending')."""
    ordered = recs.sort_values(["user", "score", "item"], ascending=[True, False, True], kind="stable")
    return ordered.assign(rank=ordered.groupby("user").cumcount() + 1).drop(columns="score")


def to_pandas(frame) -> pd.DataFrame:
    rows = frame.collect()
    result = pd.DataFrame([r.asDict() for r in rows], columns=frame.columns)
    return result.set_index(frame.columns[0]).sort_index()


def assert_same(spark_result, expected: pd.DataFrame) -> None:
    got = to_pandas(spark_result)
    assert list(got.columns) == list(expected.columns)
    assert got.index.tolist() == expected.index.tolist()
    difference = np.abs(got.to_numpy() - expected.to_numpy()).max(initial=0.0)
    assert difference <= 1e-12, f"largest difference {difference}"


@pytest.fixture(scope="module")
def data(spark):
    recs, truth = make_data()
    return recs, truth, spark.createDataFrame(recs), spark.createDataFrame(truth)


# ------------------------------------------------------------------ same numbers as topkeval.evaluate
@pytest.mark.parametrize(("option", "value"), CASES, ids=[f"{n}={v}" for n, v in CASES])
def test_every_option_value_gives_the_numbers_of_evaluate(data, option, value):
    recs, truth, recs_df, truth_df = data
    kwargs = {"empty": "zero", option: value}
    if value == "raise":  # the data has users with no relevant item and tied scores: both must refuse
        with pytest.raises(ValueError, match="no relevant item" if option == "empty" else "tied scores"):
            topkeval.evaluate(recs, truth, K, **kwargs)
        with pytest.raises(Exception, match="no relevant item" if option == "empty" else "tied scores"):
            hs.evaluate(recs_df, truth_df, K, **kwargs).collect()
        clean = truth["relevance"] > 0  # now data where it does not raise
        recs = with_ranks(recs)[lambda f: f["user"].isin(truth.loc[clean, "user"])]
        truth = truth[truth["user"].isin(recs["user"])]
        recs_df, truth_df = (
            recs_df.sparkSession.createDataFrame(recs),
            truth_df.sparkSession.createDataFrame(truth),
        )
    expected = topkeval.evaluate(recs, truth, K, **kwargs)
    assert len(expected) > 50
    assert_same(hs.evaluate(recs_df, truth_df, K, **kwargs), expected)


@pytest.mark.parametrize("params", [dict(p=0.5, max_grade=4.0), dict()])
def test_metrics_on_request_and_their_parameters_give_the_numbers_of_evaluate(data, params):
    recs, truth, recs_df, truth_df = data
    every = list(topkeval.METRICS)  # ERR and RBP too, with RBP's p and ERR's top grade
    expected = topkeval.evaluate(recs, truth, K, metrics=every, empty="zero", **params)
    assert {"err@10", "rbp@10"} <= set(expected.columns)
    assert_same(hs.evaluate(recs_df, truth_df, K, metrics=every, empty="zero", **params), expected)
    lists = truth_df.sparkSession.createDataFrame(
        _lists(recs, truth), "user long, items array<long>, relevant array<long>, grades array<double>"
    )
    arrays = hs.evaluate_arrays(lists, K, grades_col="grades", metrics=every, empty="zero", **params)
    assert_same(arrays, topkeval.evaluate(with_ranks(recs), truth, K, metrics=every, empty="zero", **params))


def test_string_ids_ranks_binary_truth_and_one_bucket(spark):
    recs, truth = make_data(160, ids="str", seed=3)
    recs, truth = with_ranks(recs), truth.drop(columns="relevance")
    expected = topkeval.evaluate(recs, truth, [2, 5], empty="skip", metrics=["ap", "ndcg", "recall"])
    for buckets in (1, 7):
        result = hs.evaluate(
            spark.createDataFrame(recs),
            spark.createDataFrame(truth),
            [2, 5],
            empty="skip",
            metrics=["ap", "ndcg", "recall"],
            buckets=buckets,
        )
        assert_same(result, expected)


def test_the_pandas_fallback_gives_the_same_numbers(data, monkeypatch):
    recs, truth, recs_df, truth_df = data
    monkeypatch.setattr(hs, "_ARROW", False)  # cogroup().applyInPandas, the Spark 3.5 route
    expected = topkeval.evaluate(recs, truth, K, empty="skip", gain="exponential")
    assert_same(hs.evaluate(recs_df, truth_df, K, empty="skip", gain="exponential"), expected)


def test_other_column_names_and_mixed_integer_types(spark):
    recs, truth = make_data(80, seed=5)
    recs = recs.rename(columns={"user": "visitor", "item": "sku", "score": "s"})
    truth = truth.rename(columns={"user": "visitor", "item": "sku", "relevance": "grade"})
    recs["note"], truth["when"] = "ignored", pd.Timestamp("2026-01-01")  # other columns are left behind
    names = dict(user_col="visitor", item_col="sku", score_col="s", relevance_col="grade")
    expected = topkeval.evaluate(recs, truth, 4, empty="zero", **names)
    truth_df = spark.createDataFrame(truth, "visitor int, sku int, grade double, when timestamp")
    result = hs.evaluate(spark.createDataFrame(recs), truth_df, 4, empty="zero", **names)
    assert result.columns == ["visitor", *expected.columns]
    assert_same(result, expected)


# ------------------------------------------------------------------ empty users, summary
def test_raise_counts_and_names_users_on_the_driver(data):
    recs, truth, recs_df, truth_df = data
    with pytest.raises(ValueError) as pandas_error:
        topkeval.evaluate(recs, truth, K)
    with pytest.raises(ValueError) as spark_error:
        hs.evaluate(recs_df, truth_df, K)  # raised here, before any result is asked for
    assert str(spark_error.value) == str(pandas_error.value)
    assert "users have no relevant item (e.g. 0, 2, 3, ...)" in str(spark_error.value)


def test_skip_summary_and_skipped_users_match_attrs_and_mean(data):
    recs, truth, recs_df, truth_df = data
    expected = topkeval.evaluate(recs, truth, K, empty="skip")
    per_user = hs.evaluate(recs_df, truth_df, K, empty="skip")
    means = hs.summary(per_user)
    assert np.abs(means - expected.mean()).max() <= 1e-12
    assert means.attrs == {
        "n_users": len(expected),
        "n_empty_users": expected.attrs["n_empty_users"],
        "n_skipped_users": len(expected.attrs["skipped_users"]),
    }
    skipped = sorted(r[0] for r in hs.skipped_users(per_user).collect())
    assert skipped == sorted(expected.attrs["skipped_users"])


def test_zero_summary_counts_empty_users_and_a_plain_frame_works(data):
    recs, truth, recs_df, truth_df = data
    expected = topkeval.evaluate(recs, truth, 3, empty="zero")
    per_user = hs.evaluate(recs_df, truth_df, 3, empty="zero")
    means = hs.summary(per_user)
    assert np.abs(means - expected.mean()).max() <= 1e-12
    assert means.attrs["n_empty_users"] == expected.attrs["n_empty_users"] > 0
    assert means.attrs["n_skipped_users"] == 0 and hs.skipped_users(per_user).count() == 0
    derived = per_user.select("user", "ap@3")  # no longer linked: means only
    plain = hs.summary(derived)
    assert plain.attrs["n_empty_users"] is None and abs(plain["ap@3"] - expected["ap@3"].mean()) <= 1e-12
    with pytest.raises(ValueError, match="the frame topkeval.spark.evaluate returned"):
        hs.skipped_users(derived)


@pytest.mark.parametrize("arrow", [True, False], ids=["applyInArrow", "applyInPandas"])
def test_summary_of_the_returned_frame_adds_up_inside_the_tasks(data, monkeypatch, arrow):
    recs, truth, recs_df, truth_df = data
    monkeypatch.setattr(hs, "_ARROW", arrow)
    expected = topkeval.evaluate(recs, truth, K, empty="skip", gain="exponential")
    per_user = hs.evaluate(recs_df, truth_df, K, empty="skip", gain="exponential", buckets=3)
    sums = getattr(per_user, hs._LINK)[3]()  # what summary runs: one row per bucket, not one per user
    assert 1 <= sums.count() <= 3
    fast, slow = hs.summary(per_user), hs.summary(per_user.select("*"))  # a derived frame: Spark adds up
    assert np.abs(fast - expected.mean()).max() <= 1e-12 and np.abs(slow - fast).max() <= 1e-12
    assert list(fast.index) == list(expected.columns)
    assert fast.attrs["n_users"] == slow.attrs["n_users"] == len(expected)
    assert fast.attrs["n_skipped_users"] == len(expected.attrs["skipped_users"]) > 0


# ------------------------------------------------------------------ array input
def _lists(recs: pd.DataFrame, truth: pd.DataFrame) -> pd.DataFrame:
    ranked = with_ranks(recs).sort_values(["user", "rank"])
    items = ranked.groupby("user")["item"].agg(list)
    graded = truth.groupby("user").agg(relevant=("item", list), grades=("relevance", list))
    users = sorted(set(items.index) | set(graded.index))
    frame = pd.DataFrame({"user": users})
    frame["items"] = [items.get(u, []) for u in users]
    frame["relevant"] = [graded["relevant"].get(u, []) for u in users]
    frame["grades"] = [[float(g) for g in graded["grades"].get(u, [])] for u in users]
    return frame


@pytest.mark.parametrize(
    "options",
    [
        dict(empty="skip"),
        dict(empty="zero", gain="exponential", ideal="listed"),
        dict(empty="zero", denominator="n_hits", discount="clipped_log2"),
        dict(empty="zero", unjudged="condense", metrics=["precision", "ndcg", "bpref"]),
    ],
)
def test_arrays_entry_point_gives_the_numbers_of_evaluate(data, options):
    recs, truth, _, truth_df = data
    lists = truth_df.sparkSession.createDataFrame(
        _lists(recs, truth), "user long, items array<long>, relevant array<long>, grades array<double>"
    )
    expected = topkeval.evaluate(with_ranks(recs), truth, K, **options)
    result = hs.evaluate_arrays(lists, K, grades_col="grades", **options)
    assert_same(result, expected)
    assert np.abs(hs.summary(result) - expected.mean()).max() <= 1e-12  # summed inside the tasks
    assert np.abs(hs.summary(result.select("*")) - expected.mean()).max() <= 1e-12  # summed by Spark
    assert hs.summary(result).attrs["n_users"] == len(expected)
    assert getattr(result, hs._LINK)[3]().count() <= lists.rdd.getNumPartitions()  # one row per task


def test_arrays_accept_als_structs_and_raise_on_empty_users(data):
    recs, truth, _, truth_df = data
    frame = _lists(recs, truth)
    frame["recommendations"] = [[(i, 1.0 - n / 20) for n, i in enumerate(row)] for row in frame["items"]]
    schema = (
        "user long, items array<long>, relevant array<long>, grades array<double>, "
        "recommendations array<struct<item: int, rating: float>>"
    )
    lists = truth_df.sparkSession.createDataFrame(frame, schema)
    expected = topkeval.evaluate(with_ranks(recs), truth.drop(columns="relevance"), 5, empty="zero")
    assert_same(hs.evaluate_arrays(lists, 5, items_col="recommendations", empty="zero"), expected)
    with pytest.raises(ValueError, match=r"^\d+ of \d+ users have no relevant item"):
        hs.evaluate_arrays(lists, 5, grades_col="grades")


# ------------------------------------------------------------------ bad input
def test_bad_input_gets_the_librarys_messages(data):
    recs, truth, recs_df, truth_df = data
    with pytest.raises(TypeError, match="must be a Spark DataFrame"):
        hs.evaluate(recs, truth_df, 3)
    for kwargs in (dict(empty="skp"), dict(denominator="n"), dict(metrics=["mapp"]), dict(k=0)):
        args = {"k": 3, "empty": "zero", **kwargs}
        with pytest.raises(ValueError) as pandas_error:
            topkeval.evaluate(recs, truth, **args)
        with pytest.raises(ValueError) as spark_error:
            hs.evaluate(recs_df, truth_df, **args)
        assert str(spark_error.value) == str(pandas_error.value)
    with pytest.raises(ValueError, match="truth is missing column"):
        hs.evaluate(recs_df, truth_df.withColumnRenamed("item", "it"), 3)
    with pytest.raises(TypeError, match="ids in recommendations are numbers"):
        hs.evaluate(recs_df, truth_df.withColumn("item", truth_df["item"].cast("string")), 3)
    with pytest.raises(TypeError, match="'score' column must be numeric"):
        hs.evaluate(recs_df.withColumn("score", recs_df["score"].cast("string")), truth_df, 3)
    with pytest.raises(ValueError, match="buckets must be"):
        hs.evaluate(recs_df, truth_df, 3, empty="zero", buckets=0)
    with pytest.raises(TypeError, match="must be an array"):
        hs.evaluate_arrays(
            recs_df.select("user", recs_df["item"].alias("items"), recs_df["item"].alias("relevant")), 3
        )


def test_a_repeated_item_is_raised_with_the_librarys_message(spark):
    recs = pd.DataFrame({"user": [1, 1], "item": [5, 5], "rank": [1, 2]})
    truth = pd.DataFrame({"user": [1], "item": [5]})
    with pytest.raises(Exception, match="recommendations list item 5 more than once for user"):
        hs.evaluate(spark.createDataFrame(recs), spark.createDataFrame(truth), 2).collect()


# ------------------------------------------------------------------ Spark's own numbers
def _spark_inputs(recs: pd.DataFrame, truth: pd.DataFrame):
    """(predictions, labels) per user, best first and binary, as Spark's own evaluators take them."""
    ranked = with_ranks(recs).sort_values(["user", "rank"])
    lists = ranked.groupby("user")["item"].agg(list)
    labels = truth[truth["relevance"] > 0].groupby("user")["item"].agg(list)
    users = sorted(set(recs["user"]) | set(truth["user"]))
    return [([float(i) for i in lists.get(u, [])], [float(i) for i in labels.get(u, [])]) for u in users]


def test_equal_to_sparks_own_evaluators_where_the_definitions_coincide(data):
    from pyspark.ml.evaluation import RankingEvaluator
    from pyspark.mllib.evaluation import RankingMetrics

    recs, truth, recs_df, truth_df = data
    binary = truth.assign(relevance=(truth["relevance"] > 0).astype(int))
    spark = recs_df.sparkSession
    pairs = _spark_inputs(recs, truth)
    mllib = RankingMetrics(spark.sparkContext.parallelize(pairs, 2))
    frame = spark.createDataFrame(pairs, "prediction array<double>, label array<double>")
    names = {
        "precision": "precisionAtK",
        "recall": "recallAtK",
        "ap": "meanAveragePrecisionAtK",
        "ndcg": "ndcgAtK",
    }
    for k in (3, 10):
        ours = hs.summary(hs.evaluate(recs_df, spark.createDataFrame(binary), k, empty="zero"))
        theirs = {
            "precision": mllib.precisionAt(k),
            "recall": mllib.recallAt(k),
            "ap": mllib.meanAveragePrecisionAt(k),
            "ndcg": mllib.ndcgAt(k),
        }
        for key, name in names.items():
            ml = RankingEvaluator(metricName=name, k=k).evaluate(frame)
            assert abs(ours[f"{key}@{k}"] - theirs[key]) <= 1e-9, (key, k)
            assert abs(ours[f"{key}@{k}"] - ml) <= 1e-9, (key, k)
        # topkeval.evaluate_as's Spark row agrees too, on every user (including one whose truth rows are
        # all grade 0 and who has no list: Spark scores that user 0, and so does evaluate_as)
        as_spark = topkeval.evaluate_as("spark", recs, binary, k, ties="item_ascending")
        placed_theirs = theirs
        assert all(abs(as_spark[f"{key}@{k}"] - placed_theirs[key]) <= 1e-9 for key in names)


def test_where_spark_differs_the_difference_is_the_documented_one(data):
    from pyspark.mllib.evaluation import RankingMetrics

    recs, truth, recs_df, truth_df = data
    spark = recs_df.sparkSession
    pairs = _spark_inputs(recs, truth)
    mllib = RankingMetrics(spark.sparkContext.parallelize(pairs, 2))
    binary_df = spark.createDataFrame(truth.assign(relevance=(truth["relevance"] > 0).astype(int)))
    # 1. Spark scores users with no relevant item 0; empty="skip" leaves them out of the mean
    skip = hs.summary(hs.evaluate(recs_df, binary_df, 5, empty="skip"))
    n_all = skip.attrs["n_users"] + skip.attrs["n_skipped_users"]
    assert abs(skip["ap@5"] * skip.attrs["n_users"] / n_all - mllib.meanAveragePrecisionAt(5)) <= 1e-9
    # 2. meanAveragePrecision has no cutoff: ours with denominator='n_relevant' at k = the longest list
    longest = max(len(p) for p, _ in pairs)
    no_cut = hs.summary(hs.evaluate(recs_df, binary_df, longest, empty="zero", denominator="n_relevant"))
    assert abs(no_cut[f"ap@{longest}"] - mllib.meanAveragePrecision) <= 1e-9
    # 3. meanAveragePrecisionAt(k) divides by min(k, |R|), not |R|: it differs from n_relevant once k < |R|
    at_3 = {
        d: hs.summary(hs.evaluate(recs_df, binary_df, 3, empty="zero", denominator=d))["ap@3"]
        for d in ("min_k_n_relevant", "n_relevant")
    }
    assert abs(at_3["min_k_n_relevant"] - mllib.meanAveragePrecisionAt(3)) <= 1e-9
    assert abs(at_3["n_relevant"] - mllib.meanAveragePrecisionAt(3)) > 1e-3
    # 4. Spark counts a repeated item again (precision 1.0 from one relevant item); ours refuses the list
    repeated = RankingMetrics(spark.sparkContext.parallelize([([7.0, 7.0], [7.0])], 1))
    assert repeated.precisionAt(2) == 1.0
    with pytest.raises(ValueError, match="more than once"):
        topkeval.evaluate(
            pd.DataFrame({"user": [1, 1], "item": [7, 7], "rank": [1, 2]}),
            pd.DataFrame({"user": [1], "item": [7]}),
            2,
        )


# ------------------------------------------------------------------ benchmark smoke run
def test_benchmark_smoke_run(spark, tmp_path):
    from benchmarks import spark as bench

    routes = ("ours", "arrays", "evaluator", "arrays_given", "evaluator_given", "collect")
    rows = bench.run(spark, [3000], [10], routes=routes, folder=tmp_path)
    assert {r["route"] for r in rows} == set(routes)
    assert all(
        r["agreement"] <= 1e-12 for r in rows if r["route"] in ("ours", "arrays", "arrays_given", "collect")
    )
    assert all(r["agreement"] <= 1e-9 for r in rows if r["route"].startswith("evaluator"))


# ------------------------------------------------------------------ Spark Connect
CONNECT_SCRIPT = """
import os, sys
import numpy as np
from pyspark.sql import SparkSession
import topkeval
import topkeval.spark as hs
sys.path.insert(0, os.path.dirname(sys.argv[1]))
from test_spark import make_data
spark = SparkSession.builder.remote("local[2]").config("spark.sql.shuffle.partitions", "4").getOrCreate()
recs, truth = make_data(120)
r, t = spark.createDataFrame(recs), spark.createDataFrame(truth)
assert type(r).__module__ == "pyspark.sql.connect.dataframe", type(r)
per_user = hs.evaluate(r, t, [1, 5], empty="skip")
got = per_user.toPandas().set_index("user").sort_index()
expected = topkeval.evaluate(recs, truth, [1, 5], empty="skip")
assert got.index.equals(expected.index) and np.abs(got.to_numpy() - expected.to_numpy()).max() <= 1e-12
means = hs.summary(per_user)
assert np.abs(means - expected.mean()).max() <= 1e-12
assert means.attrs["n_skipped_users"] == hs.skipped_users(per_user).count() \
== len(expected.attrs["skipped_users"])
spark.stop()
print("CONNECT OK")
"""


def test_runs_under_spark_connect(spark):
    import importlib.util
    import os
    import subprocess
    import sys
    from pathlib import Path

    if importlib.util.find_spec("grpc") is None:
        pytest.skip('SPARK CONNECT TEST SKIPPED: pip install "pyspark[connect]" for the Spark Connect client')
    here = Path(__file__).resolve()
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1"}
    done = subprocess.run(
        [sys.executable, "-c", CONNECT_SCRIPT, str(here)],
        capture_output=True,
        text=True,
        env=env,
        cwd=here.parents[2],
        timeout=240,
    )
    assert "CONNECT OK" in done.stdout, done.stderr[-3000:]


# ------------------------------------------------------------------ no Spark here: skip loudly, or fail on CI
def test_importing_helpers_does_not_import_pyspark():
    import subprocess
    import sys

    code = "import sys, helpers, topkeval.spark; print('pyspark' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize("ci", ["", "true"])
def test_without_java_the_tests_skip_loudly_or_fail_on_ci(ci):
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {k: v for k, v in os.environ.items() if k not in ("JAVA_HOME", "CI")}
    env.update(PATH="/nonexistent", CI=ci)
    here = Path(__file__).resolve()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(here),
            "-k",
            "bad_input",
            "-p",
            "no:cacheprovider",
            "-o",
            "addopts=--import-mode=importlib",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=here.parents[2],
        timeout=120,
    )
    if ci:
        assert (
            done.returncode == 1 and "CI=true but the Spark tests cannot run: no Java runtime" in done.stdout
        )
    else:
        assert done.returncode == 0 and "SPARK TESTS SKIPPED" in done.stdout and "1 skipped" in done.stdout


# ---------------------------------------------------------------- workers without topkeval
def test_workers_that_cannot_import_topkeval_get_one_clear_error(spark, tmp_path, monkeypatch):
    """The issue's case: workers on a Python without topkeval. Simulated with a Python that hides it."""
    import sys

    blocker = tmp_path / "block"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(
        "import sys\n"
        "class _Hide:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'topkeval':\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}')\n"
        "sys.meta_path.insert(0, _Hide())\n"
    )
    python = tmp_path / "python-without-topkeval"
    python.write_text(f'#!/bin/sh\nPYTHONPATH="{blocker}:$PYTHONPATH" exec {sys.executable} "$@"\n')
    python.chmod(0o755)
    recs, truth = make_data(20)
    recs_df, truth_df = spark.createDataFrame(recs), spark.createDataFrame(truth)
    monkeypatch.setattr(hs, "_WORKERS_CHECKED", set())
    monkeypatch.setattr(spark.sparkContext, "pythonExec", str(python))
    with pytest.raises(ImportError) as error:
        hs.evaluate(recs_df, truth_df, k=3, empty="zero")
    message = str(error.value)
    assert "the Spark workers cannot import topkeval" in message
    assert "worker Python /" in message and "No module named 'topkeval'" in message
    for hint in ("PYSPARK_PYTHON=", "spark.pyspark.python", "--py-files", "--archives"):
        assert hint in message
    with pytest.raises(ImportError, match="cannot import topkeval"):
        hs.evaluate_arrays(
            spark.createDataFrame(pd.DataFrame({"user": [1], "items": [[1, 2]], "relevant": [[2]]})),
            k=2,
            items_col="items",
            relevant_col="relevant",
        )
    monkeypatch.undo()  # this Python again: the check passes, once per session
    hs._WORKERS_CHECKED.discard(id(spark))
    hs.evaluate(recs_df, truth_df, k=3, empty="zero").count()
    assert id(spark) in hs._WORKERS_CHECKED
