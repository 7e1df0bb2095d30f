"""topkeval.spark against Spark's own ranking metrics, end to end from Spark DataFrames.

``make bench-spark`` (``python -m benchmarks.spark``): one local[2] session, synthetic
recommendations (U users x K ranked items, int ids, 100,003 items) and truth (1 to 10
relevant items per user, 5 % of users with none) written once to Parquet under
``$TMPDIR/helpers-bench-spark``, with the same data as one row of arrays per user (what ALS
``recommendForAllUsers`` joined to the labels gives). Every route starts from Parquet-backed
DataFrames and ends with the mean metrics on the driver.

The comparison is meant to be fair: a route pays for everything its user must do to get from
the data to the means. From ``(user, item, rank)`` rows, Spark's evaluators need one row per
user with arrays, so their routes include building them (a group-by with ``collect_list``,
ordered by rank, fully joined with the labels, as :func:`lists` does); ours include the
``count()`` that picks the number of buckets and the one shuffle. The ``*_given`` routes start
from the per-user arrays already in Parquet, for users who hold that shape.

* ``ours``: ``topkeval.spark.evaluate`` + ``summary`` (rows, cogroup + applyInArrow; the
  tasks add up their users, one row of sums per bucket), with ``empty="zero"``, Spark's own
  convention;
* ``arrays``: the lists built by a group-by (as for Spark's evaluator), then
  ``topkeval.spark.evaluate_arrays`` + ``summary`` (mapInArrow, no shuffle of its own);
* ``evaluator``: ``pyspark.ml.evaluation.RankingEvaluator`` on the same lists (uncached:
  each of its five metrics, precisionAtK, recallAtK, meanAveragePrecisionAtK, ndcgAtK and
  meanAveragePrecision, is one pass over the data, as a user calling ``evaluate`` gets);
* ``arrays_given`` / ``evaluator_given``: the same two on the lists read from Parquet;
* ``mllib``: ``pyspark.mllib.evaluation.RankingMetrics`` on the lists as an RDD
  (precisionAt, meanAveragePrecisionAt, ndcgAt; cancelled after ``--mllib-timeout`` s);
* ``collect``: ``toPandas()`` of both frames and ``helpers.evaluate`` on one core.

Printed per route: seconds, users/s, the ratio to ``ours`` measured in the same run,
the CPU seconds of the JVM, its Python workers and this process, the largest difference of
its means from ``collect``'s (``helpers.evaluate``), the JVM's peak used heap and the
Python workers' peak RSS (sampled every 0.2 s), and the shuffle bytes written (from
Spark's status store); then the load average. ``ours`` is also checked user by user against
``helpers.evaluate`` on the first 20,000 users. On a shared machine the ratios measured in
one run are what to read; the seconds move with the load.

On paper, for clusters (from the measured bytes per row; see ``sizing``): the shuffle
carries every recommendation row once; a bucket holds about two million rows (0.3 GB of
Python memory while it is scored), so executors need spark.executor.memory of 4 GB per
4 cores plus ``spark.executor.pyspark.memory`` of about 0.5 GB per core.
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd

import helpers
import topkeval.spark as hs

N_ITEMS = 100_003  # a prime: item = a + step * position (mod N_ITEMS) never repeats within a list
EVALUATOR_METRICS = (
    "precisionAtK",
    "recallAtK",
    "meanAveragePrecisionAtK",
    "ndcgAtK",
    "meanAveragePrecision",
)
OURS = {
    "precisionAtK": "precision",
    "recallAtK": "recall",
    "meanAveragePrecisionAtK": "ap",
    "ndcgAtK": "ndcg",
}
ROUTES = ("ours", "arrays", "evaluator", "arrays_given", "evaluator_given", "mllib", "collect")
SLOW = ("evaluator", "evaluator_given", "mllib")  # the routes --evaluator-timeout / --mllib-timeout cancel
N_CHECK = 20_000
# Every route first runs, untimed, on users 0 .. U / WARM_UP: on a tenth of the data the JVM compiles
# the code paths every route shares (Parquet scan, shuffle, Arrow), so the route timed first is not
# the one that pays for it (on 2,000 users, the first route timed ran 25-40 % slower than a second run).
WARM_UP = 10


def session(memory: str = "8g"):
    """A local[2] session on the loopback interface, UI off, this interpreter for the workers."""
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .appName("helpers-bench-spark")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.memory", memory)
        .config("spark.driver.maxResultSize", "0")
        .config("spark.sql.shuffle.partitions", "8")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _prime_above(n: int) -> int:
    p = n + 1
    while any(p % d == 0 for d in range(2, int(math.isqrt(p)) + 1)):
        p += 1
    return p


def make_frames(spark, n_users: int, k: int, seed: int = 16):
    """Recommendations (user, item, rank 1..k) and truth (user, item), generated inside Spark.

    User u's list is a_u + step_u * r (mod N_ITEMS) for r = 1..k; its relevant items are the
    same progression at 1 to 10 distinct positions t in 1..M (M the first prime above 5k), so
    an item is a hit at rank t when t <= k. Users with u % 20 == 7 have no truth row.
    """
    from pyspark.sql import functions as F

    m = _prime_above(5 * k)
    users = spark.range(n_users).withColumnRenamed("id", "user")
    base = users.select(
        "user",
        F.pmod(F.xxhash64("user", F.lit(seed)), F.lit(N_ITEMS)).alias("a"),
        (1 + F.pmod(F.xxhash64("user", F.lit(seed + 1)), F.lit(N_ITEMS - 1))).alias("step"),
    )
    recs = base.select("user", "a", "step", F.explode(F.sequence(F.lit(1), F.lit(k))).alias("rank")).select(
        "user",
        F.pmod(F.col("a") + F.col("step") * F.col("rank"), F.lit(N_ITEMS)).cast("int").alias("item"),
        F.col("rank").cast("int"),
    )
    truth = (
        base.filter(F.col("user") % 20 != 7)
        .select(
            "user",
            "a",
            "step",
            F.pmod(F.xxhash64("user", F.lit(seed + 2)), F.lit(m)).alias("offset"),
            (1 + F.pmod(F.xxhash64("user", F.lit(seed + 3)), F.lit(m - 1))).alias("stride"),
            F.explode(F.sequence(F.lit(0), F.pmod(F.xxhash64("user", F.lit(seed + 4)), F.lit(10)))).alias(
                "j"
            ),
        )
        .select(
            "user",
            F.pmod(
                F.col("a")
                + F.col("step") * (1 + F.pmod(F.col("offset") + F.col("j") * F.col("stride"), F.lit(m))),
                F.lit(N_ITEMS),
            )
            .cast("int")
            .alias("item"),
        )
    )
    return recs, truth


def write_inputs(spark, n_users: int, k: int, folder: Path):
    """Write the synthetic frames (rows, and one row of arrays per user) to Parquet once.

    Returns frames that read the recommendations and the truth; :func:`given_lists` reads
    the arrays.
    """
    target = folder / f"u{n_users}_k{k}_with_lists"
    if not (target / "_done").exists():
        shutil.rmtree(target, ignore_errors=True)
        recs, truth = make_frames(spark, n_users, k)
        recs.write.parquet(str(target / "recs"))
        truth.write.parquet(str(target / "truth"))
        recs, truth = spark.read.parquet(str(target / "recs")), spark.read.parquet(str(target / "truth"))
        lists(recs, truth).write.parquet(str(target / "lists"))
        (target / "_done").write_text("ok")
    recs, truth = (spark.read.parquet(str(target / name)) for name in ("recs", "truth"))
    recs.given_lists = spark.read.parquet(str(target / "lists"))  # for the *_given routes
    return recs, truth


def given_lists(recs):
    """The per-user arrays :func:`write_inputs` wrote with ``recs`` (filtered as ``recs`` is)."""
    return recs.given_lists


def lists(recs, truth):
    """One row per user: predictions (best first) and labels as double arrays, Spark's evaluator input."""
    from pyspark.sql import functions as F

    pred = (
        recs.groupBy("user")
        .agg(F.sort_array(F.collect_list(F.struct("rank", "item"))).alias("p"))
        .select("user", F.transform("p", lambda s: s["item"].cast("double")).alias("prediction"))
    )
    label = truth.groupBy("user").agg(F.collect_list(F.col("item").cast("double")).alias("label"))
    empty = F.array().cast("array<double>")
    return pred.join(label, "user", "full").select(
        "user", F.coalesce("prediction", empty).alias("prediction"), F.coalesce("label", empty).alias("label")
    )


# ------------------------------------------------------------------ routes: each returns {metric@k: mean}
def route_ours(spark, recs, truth, k):
    return dict(hs.summary(hs.evaluate(recs, truth, k, empty="zero")))


def _arrays(frame, k):
    return dict(
        hs.summary(hs.evaluate_arrays(frame, k, items_col="prediction", relevant_col="label", empty="zero"))
    )


def route_arrays(spark, recs, truth, k):
    return _arrays(lists(recs, truth), k)


def route_arrays_given(spark, recs, truth, k):
    return _arrays(given_lists(recs), k)


def route_evaluator(spark, recs, truth, k):
    return _evaluator(lists(recs, truth), k)


def route_evaluator_given(spark, recs, truth, k):
    return _evaluator(given_lists(recs), k)


def _evaluator(frame, k):
    from pyspark.ml.evaluation import RankingEvaluator

    out = {}
    for name in EVALUATOR_METRICS:
        value = RankingEvaluator(metricName=name, k=k).evaluate(frame)
        if name in OURS:
            out[f"{OURS[name]}@{k}"] = value
    return out


def route_mllib(spark, recs, truth, k):
    from pyspark.mllib.evaluation import RankingMetrics

    metrics = RankingMetrics(lists(recs, truth).rdd.map(lambda row: (row.prediction, row.label)))
    return {
        f"precision@{k}": metrics.precisionAt(k),
        f"ap@{k}": metrics.meanAveragePrecisionAt(k),
        f"ndcg@{k}": metrics.ndcgAt(k),
    }


def route_collect(spark, recs, truth, k):
    return dict(helpers.evaluate(recs.toPandas(), truth.toPandas(), k, empty="zero").mean())


ROUTE_FUNCTIONS = {
    "ours": route_ours,
    "arrays": route_arrays,
    "evaluator": route_evaluator,
    "arrays_given": route_arrays_given,
    "evaluator_given": route_evaluator_given,
    "mllib": route_mllib,
    "collect": route_collect,
}


# ------------------------------------------------------------------ measuring
class Sampler:
    """Peak JVM used heap and peak RSS of the Python workers (sampled every 0.2 s), and CPU seconds.

    CPU seconds (the JVM, its Python workers and this driver process) are less sensitive than
    wall time to other programs sharing the machine.
    """

    def __init__(self, spark):
        import psutil

        self.runtime = spark.sparkContext._jvm.java.lang.Runtime.getRuntime()
        self.jvm = psutil.Process(spark.sparkContext._gateway.proc.pid)
        self.me = psutil.Process()
        self.heap = self.workers = 0
        self.cpu = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self):
        while not self._stop.wait(0.2):
            try:
                self.heap = max(self.heap, self.runtime.totalMemory() - self.runtime.freeMemory())
                rss = sum(p.memory_info().rss for p in self.jvm.children(recursive=True))
                self.workers = max(self.workers, rss)
            except Exception:  # a worker exited between listing and reading: next sample
                pass

    def _cpu(self) -> float:
        total = sum(self.jvm.cpu_times()) + sum(self.me.cpu_times()[:2])
        for child in self.jvm.children(recursive=True):
            try:
                total += sum(child.cpu_times())
            except Exception:  # exited meanwhile
                pass
        return total

    def __enter__(self):
        self.cpu = -self._cpu()
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.cpu += self._cpu()


def shuffle_bytes(spark) -> dict[int, int]:
    """Shuffle bytes written per stage id so far, from Spark's status store (benchmark only)."""
    try:
        store = spark.sparkContext._jsc.sc().statusStore()
        stages = store.stageList(
            None, False, False, spark.sparkContext._gateway.new_array(spark.sparkContext._jvm.double, 0), None
        )
        return {
            int(stages.apply(i).stageId()): int(stages.apply(i).shuffleWriteBytes())
            for i in range(stages.size())
        }
    except Exception:  # not available (Spark Connect, another version): report nothing
        return {}


def timed(spark, route: str, recs, truth, k: int, timeout: float | None):
    """Run one route; return (means, seconds, heap, workers, shuffle) or None when cancelled."""
    sc = spark.sparkContext
    sc.setJobGroup(route, route)
    timer = threading.Timer(timeout, sc.cancelJobGroup, args=(route,)) if timeout else None
    before = shuffle_bytes(spark)
    if timer:
        timer.start()
    try:
        with Sampler(spark) as sampler:
            start = time.perf_counter()
            means = ROUTE_FUNCTIONS[route](spark, recs, truth, k)
            seconds = time.perf_counter() - start
    except Exception as err:  # cancelled by the timer, or failed
        if timer is None or timer.is_alive():
            raise
        print(f"  {route}: cancelled after {timeout:.0f} s ({type(err).__name__})", flush=True)
        return None
    finally:
        if timer:
            timer.cancel()
    after = shuffle_bytes(spark)
    shuffled = sum(v for s, v in after.items() if s not in before)
    return means, seconds, sampler.heap, sampler.workers, shuffled, sampler.cpu


def check_users(recs, truth, k: int, n: int = N_CHECK) -> float:
    """Largest per-user difference between ours and helpers.evaluate on users 0..n-1."""
    from pyspark.sql import functions as F

    r, t = recs.filter(F.col("user") < n), truth.filter(F.col("user") < n)
    got = hs.evaluate(r, t, k, empty="zero").toPandas().set_index("user").sort_index()
    expected = helpers.evaluate(r.toPandas(), t.toPandas(), k, empty="zero")
    assert got.index.equals(expected.index) and list(got.columns) == list(expected.columns)
    return float(np.abs(got.to_numpy() - expected.to_numpy()).max())


def run(
    spark,
    sizes,
    ks,
    routes=ROUTES,
    repeats: int = 1,
    folder: Path | None = None,
    mllib_timeout=None,
    evaluator_timeout=None,
    out=sys.stdout,
) -> list[dict]:
    """Time every route at every (users, K); print a table; return one dict per measurement."""
    folder = Path(folder or Path(tempfile.gettempdir()) / "helpers-bench-spark")
    timeouts = {"mllib": mllib_timeout, **{route: evaluator_timeout for route in SLOW if route != "mllib"}}
    rows: list[dict] = []
    for n_users in sizes:
        for k in ks:
            recs, truth = write_inputs(spark, n_users, k, folder)
            print(f"\nU = {n_users:,} users, K = {k}", file=out, flush=True)
            _warm_up(spark, recs, truth, routes, n_users, k)
            rows += _measure_size(spark, recs, truth, routes, repeats, timeouts, n_users, k)
            _print(rows, n_users, k, out)
    return rows


def _warm_up(spark, recs, truth, routes, n_users: int, k: int) -> None:
    """Run every route once, untimed, on the first users: the JVM's JIT, Python workers, imports."""
    warm = max(2000, n_users // WARM_UP)
    warm_r, warm_t = (frame.filter(frame["user"] < warm) for frame in (recs, truth))
    warm_r.given_lists = recs.given_lists.filter(recs.given_lists["user"] < warm)
    for route in routes:
        ROUTE_FUNCTIONS[route](spark, warm_r, warm_t, k)


def _best_of(spark, route: str, recs, truth, k: int, repeats: int, timeout):
    """The fastest of ``repeats`` timed runs of one route (None if every run was cancelled)."""
    best = None
    for _ in range(repeats):
        got = timed(spark, route, recs, truth, k, timeout)
        if got is not None and (best is None or got[1] < best[1]):
            best = got
    return best


def _measure_size(
    spark, recs, truth, routes, repeats: int, timeouts: dict, n_users: int, k: int
) -> list[dict]:
    """One row per route that finished at this (users, K); ``collect`` runs first and is the reference."""
    rows = []
    reference = None
    for route in sorted(routes, key=lambda r: r != "collect"):  # collect first: the reference
        best = _best_of(spark, route, recs, truth, k, repeats, timeouts.get(route))
        if best is None:
            continue
        means = best[0]
        if route == "collect":
            reference = means
        common = [m for m in means if reference and m in reference]
        rows.append(
            dict(
                route=route,
                users=n_users,
                k=k,
                seconds=best[1],
                heap=best[2],
                workers=best[3],
                shuffle=best[4],
                cpu=best[5],
                agreement=max((abs(means[m] - reference[m]) for m in common), default=float("nan")),
            )
        )
    if "ours" in routes:
        rows_ours = [r for r in rows if r["route"] == "ours"]
        rows_ours[0]["per_user"] = check_users(recs, truth, k, min(n_users, N_CHECK))
    return rows


def _print(rows, n_users, k, out):
    table = [r for r in rows if r["users"] == n_users and r["k"] == k]
    seconds = {r["route"]: r["seconds"] for r in table}
    _print_table(table, seconds.get("ours"), n_users, out)
    pairs = [("evaluator", "ours"), ("evaluator", "arrays"), ("evaluator_given", "arrays_given")]
    ratios = [f"{a} / {b} {seconds[a] / seconds[b]:.1f}x" for a, b in pairs if a in seconds and b in seconds]
    if ratios:
        print("ratios (same run): " + ", ".join(ratios), file=out)
    print(f"load average (1, 5, 15 min) after this size: {_load()}", file=out)
    checked = next((r.get("per_user") for r in table if r["route"] == "ours"), None)
    if checked is not None:
        print(
            f"ours vs helpers.evaluate, user by user on {min(n_users, N_CHECK):,} users: largest difference "
            f"{checked:.1e}",
            file=out,
            flush=True,
        )


def _print_table(table, ours, n_users, out) -> None:
    """One line per route: time, throughput, speed against ours, CPU, agreement and memory."""
    print(
        f"{'route':<16} {'seconds':>8} {'users/s':>11} {'vs ours':>9} {'CPU s':>7} "
        f"{'max |mean - evaluate|':>22} "
        f"{'JVM heap GiB':>12} {'workers GiB':>11} {'shuffle MiB':>11}",
        file=out,
    )
    for r in table:
        ratio = f"{r['seconds'] / ours:.1f}x" if ours else "-"
        print(
            f"{r['route']:<16} {r['seconds']:8.1f} {n_users / r['seconds']:11,.0f} {ratio:>9} "
            f"{r['cpu']:7.1f} "
            f"{r['agreement']:22.1e} {r['heap'] / 2**30:12.2f} {r['workers'] / 2**30:11.2f} "
            f"{r['shuffle'] / 2**20:11.0f}",
            file=out,
        )


def _load() -> str:
    """The load average, as ``uptime`` prints it (other programs sharing the cores slow every route)."""
    try:
        return ", ".join(f"{value:.2f}" for value in os.getloadavg())
    except OSError:  # not available on this platform
        return "unknown"


def sizing(rows, out=sys.stdout) -> None:
    """On paper: what 10^8 and 10^9 users need, scaled from the measured shuffle bytes per row."""
    print("\nOn paper (scaled from this run's shuffle bytes per recommendation row of 'ours'):", file=out)
    for r in rows:
        if r["route"] != "ours" or not r["shuffle"]:
            continue
        per_row = r["shuffle"] / (r["users"] * r["k"])
        for users in (10**8, 10**9):
            n_rows = users * r["k"]
            buckets = math.ceil(n_rows / hs._ROWS_PER_BUCKET)
            print(
                f"  U = {users:.0e}, K = {r['k']}: {n_rows:.0e} rows, {buckets:,} buckets, "
                f"shuffle ~{n_rows * per_row / 2**30:,.0f} GiB ({per_row:.1f} B/row), "
                f"spark.sql.shuffle.partitions ~{max(200, buckets // 2):,}, "
                "~0.5 GB Python memory per core",
                file=out,
            )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, nargs="+", default=[1_000_000])
    parser.add_argument("--k", type=int, nargs="+", default=[10, 100])
    parser.add_argument("--routes", nargs="+", default=list(ROUTES), choices=ROUTES)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--mllib-timeout", type=float, default=600.0)
    parser.add_argument("--evaluator-timeout", type=float, default=900.0)
    parser.add_argument("--memory", default="8g")
    parser.add_argument("--folder", type=Path, default=None, help="where the Parquet inputs are kept")
    args = parser.parse_args(argv)
    import pyspark

    print(
        f"topkeval.spark benchmark: pyspark {pyspark.__version__}, pandas {pd.__version__}, "
        f"local[2], spark.driver.memory {args.memory}, {time.strftime('%Y-%m-%d %H:%M')}, "
        f"load average at start {_load()}",
        flush=True,
    )
    spark = session(args.memory)
    try:
        rows = run(
            spark,
            args.users,
            args.k,
            args.routes,
            args.repeats,
            mllib_timeout=args.mllib_timeout,
            evaluator_timeout=args.evaluator_timeout,
            folder=args.folder,
        )
        sizing(rows)
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
