"""Every metric on Apache Spark: the numbers of :func:`topkeval.evaluate`, for data that outgrows one machine.

Install with ``pip install "topkeval[spark]"`` (PySpark >= 3.5 and
Java 17). Importing :mod:`topkeval` never imports PySpark; this module does.

* :func:`evaluate` takes Spark DataFrames of recommendations (``user``,
  ``item``, ``rank`` or ``score``) and truth (``user``, ``item``, optional
  ``relevance``) and returns a Spark DataFrame: one row per user, one column
  per metric, the column names of :func:`topkeval.evaluate`.
* :func:`evaluate_arrays` takes one row per user with an array of
  recommended items (what ALS ``recommendForAllUsers`` gives) and an array of
  relevant items, and runs :func:`topkeval.evaluate_arrays` on each Arrow batch.
* :func:`summary` gives the means (P@k, MAP@k, NDCG@k, ...) plus the
  number of users with no relevant item; on the frame :func:`evaluate`
  returned, each task adds up its own users and only one row of sums per
  task reaches Spark;
  :func:`skipped_users` lists the users ``empty="skip"`` left out.

How it works: users are put in ``B`` buckets by ``pmod(xxhash64(user), B)``;
Spark shuffles both DataFrames once by bucket, and every bucket's rows reach
one Python worker as Arrow tables (``groupBy(bucket).cogroup(...)
.applyInArrow`` on Spark 4, ``applyInPandas`` on Spark 3.5), where
:func:`topkeval.evaluate` itself scores them. A user's rows all land in one
bucket, and a user's metrics depend only on that user's rows, so the values
are the ones :func:`topkeval.evaluate` gives on the whole data, bit for bit
(the test suite checks it). Only DataFrame operations are used (no RDD, no
SparkContext), so the module also runs under Spark Connect.

The workers import topkeval by name, so their Python must have it (and
numpy, pandas, pyarrow). Before its first job in a session, :func:`evaluate`
and :func:`evaluate_arrays` run one tiny job that imports topkeval on a
worker; if that fails they raise one ImportError saying how to fix it:
locally, start Spark with this Python (``export
PYSPARK_PYTHON=/path/to/venv/bin/python``, or
``SparkSession.builder.config("spark.pyspark.python", ...)``; running a
venv's python without activating the venv leaves the workers on the
system Python); on a cluster, install topkeval on the nodes or ship it
(``--py-files topkeval.zip``, or an environment archive made with
venv-pack or conda-pack, ``--archives env.tar.gz#env`` with
``spark.pyspark.python=./env/bin/python``).

Before any of that, :func:`preflight` checks without starting Java what a session needs (PySpark,
Java and its version, the workers' Python and its version) and raises one :class:`SparkSetupError`
naming every problem and its fix; :func:`session` runs it before it starts a local session.

Speed (``benchmarks/spark.py``, ``local[2]``, 10^6 users, from ``(user, item, rank)`` rows in
Parquet to the means, 2026-11-25, load average 1.4 at the start): at K = 10, 5.3 s against 31.5 s
for Spark's RankingEvaluator with its per-user arrays built from the same rows (5.9x); at K = 100,
23-24 s at load under 2 (47.5 s once other jobs came back) against 162 s. The route keeps both
cores busy (0.4-0.65 microseconds of CPU per row); the evaluator runs on about one. Collecting both
frames to the driver (``toPandas()``) and :func:`topkeval.evaluate` took 0.2 to 0.5 times the
route's time at every size measured (10^6 to 10^8 rows) on those two cores: the route pays a
shuffle per row, which pays back only once more cores share it (about three or four), or when
the rows do not fit in the driver (about 100 bytes per row there).

Sizing: a bucket holds about ``_ROWS_PER_BUCKET`` (2 million) recommendation rows, well under
0.5 GB of Python memory while it is scored, so executors need ``spark.executor.pyspark.memory`` of
about 0.5 GB per core beyond Spark's own. The shuffle carries each recommendation row once: 13-18
bytes per row measured with integer ids. 10^8 users x K = 100 is 10^10 rows: about 5,000 buckets, a
few thousand shuffle partitions, about 125 GiB of shuffle; 10^9 users x K = 10 the same order;
10^9 x 100 ten times that (50,000 buckets).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

import topkeval
from topkeval import _docs
from topkeval._registry import Settings
from topkeval._validation import (
    Cutoffs,
    FilePath,
    InputTypeError,
    Integer,
    InvalidInputError,
    Maybe,
    Metrics,
    Text,
    column_constraints,
    settings_constraints,
    validate_params,
)

__all__ = [
    "evaluate",
    "evaluate_arrays",
    "summary",
    "skipped_users",
    "preflight",
    "session",
    "SparkSetupError",
]

_FLAG = "__topkeval_no_relevant__"  # internal column: 1 for a user with no relevant item
_ORDER = "__topkeval_row__"  # internal column: the input row order, for ties="input_order"
_ROWS_PER_BUCKET = 2_000_000  # recommendation rows per bucket when B is chosen from the data
_ARROW = True  # cogroup().applyInArrow where Spark has it (4.0+); False forces applyInPandas (tests)
_LINK = "_topkeval_evaluation"  # attribute linking a result to its unfiltered frame and empty option


def _pyspark():
    """PySpark's ``DataFrame``, ``functions`` and ``types``, with an install hint when missing."""
    try:
        from pyspark.sql import DataFrame
        from pyspark.sql import functions as F
        from pyspark.sql import types as T
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(
            'topkeval.spark needs PySpark: pip install "topkeval[spark]" (and Java 17).'
        ) from err
    return DataFrame, F, T


# ----------------------------------------------------------------- preflight: before Java starts
#: The oldest PySpark this module runs on, and the Java each PySpark major version needs (Spark 3.5 runs on
#: Java 8, 11 and 17; Spark 4 on 17 and 21).
_MIN_PYSPARK = (3, 5)
_JAVA_FOR_PYSPARK = {3: 8, 4: 17}
_WORKER_SCRIPT = (
    "import sys; print('.'.join(map(str, sys.version_info[:3]))); "
    "import topkeval; print('topkeval', topkeval.__version__)"
)


class SparkSetupError(RuntimeError):
    """What keeps Spark from running here, found before Java starts, each problem with its fix."""


def _pyspark_problem() -> tuple[str, str | None]:
    """(PySpark's version or "missing", what is wrong with it or None)."""
    import importlib.metadata
    import importlib.util

    if importlib.util.find_spec("pyspark") is None:
        return "missing", 'PySpark is not installed: pip install "topkeval[spark]"'
    version = importlib.metadata.version("pyspark")
    found = tuple(int(part) for part in re.findall(r"\d+", version)[:2])
    if found < _MIN_PYSPARK:
        return version, f'PySpark {version} is older than 3.5: pip install --upgrade "topkeval[spark]"'
    return version, None


def _java_binary() -> str | None:
    """The java Spark's launcher runs: $JAVA_HOME/bin/java when JAVA_HOME is set, else java on PATH."""
    import os
    import shutil

    home = os.environ.get("JAVA_HOME")
    if home:
        path = os.path.join(home, "bin", "java")
        return path if os.access(path, os.X_OK) else None
    return shutil.which("java")


def _java_major(java: str) -> int | None:
    """The major version of ``java``, from its installation's ``release`` file or else ``java -version``."""
    import os
    import subprocess

    release = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(java))), "release")
    text = ""
    if os.path.exists(release):
        with open(release, encoding="utf-8", errors="replace") as file:
            text = file.read()
    if "JAVA_VERSION" not in text:
        try:
            done = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            return None
        text = done.stderr + done.stdout
    match = re.search(r'version\s*=?\s*"(\d+)(?:\.(\d+))?', text, flags=re.IGNORECASE)
    if match is None:
        return None
    major = int(match.group(1))
    return int(match.group(2) or 0) if major == 1 else major  # "1.8.0_381" is Java 8


def _java_problem(pyspark_version: str) -> tuple[str, str | None]:
    """(the java found and its version, what is wrong with it or None)."""
    import os

    java = _java_binary()
    if java is None:
        where = (
            f"JAVA_HOME={os.environ['JAVA_HOME']} has no bin/java"
            if os.environ.get("JAVA_HOME")
            else "java is not on PATH and JAVA_HOME is unset"
        )
        return "missing", (
            f"no Java runtime ({where}): install Java 17 (Debian/Ubuntu: sudo apt-get install "
            "openjdk-17-jre-headless; macOS: brew install openjdk@17) and put its java on PATH or set "
            "JAVA_HOME to its folder"
        )
    major = _java_major(java)
    spark_major = int(pyspark_version.split(".")[0]) if pyspark_version[:1].isdigit() else 4
    needed = _JAVA_FOR_PYSPARK.get(spark_major, 17)
    if major is None:
        return java, f"cannot tell the version of {java} (java -version failed): Spark needs Java {needed}+"
    if major < needed:
        return f"{java} (Java {major})", (
            f"{java} is Java {major}; PySpark {pyspark_version} needs Java {needed} or newer: install "
            "Java 17 and set JAVA_HOME to it (JAVA_HOME wins over PATH)"
        )
    return f"{java} (Java {major})", None


def _workers_python(python: str | None = None) -> tuple[str, str]:
    """The Python the workers will run, and where that choice comes from, as PySpark picks it."""
    import os

    if python:
        return python, "the python argument"
    if os.environ.get("PYSPARK_PYTHON"):
        return os.environ["PYSPARK_PYTHON"], "PYSPARK_PYTHON"
    return "python3", "PySpark's default, as PYSPARK_PYTHON is unset"


def _python_problem(python: str | None = None) -> tuple[str, str | None]:
    """(the workers' Python and its version, what is wrong with it or None): it must exist, have the
    driver's Python version (Spark refuses a different X.Y) and import topkeval."""
    import shutil
    import subprocess
    import sys

    command, source = _workers_python(python)
    driver = ".".join(map(str, sys.version_info[:2]))
    fix = f"export PYSPARK_PYTHON={sys.executable} before the session starts (this Python, {driver})"
    found = shutil.which(command)
    if found is None:
        return command, f"the workers' Python {command!r} ({source}) is not found: {fix}"
    try:
        done = subprocess.run([found, "-c", _WORKER_SCRIPT], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as err:
        return found, f"the workers' Python {found} ({source}) does not run ({err}): {fix}"
    lines = done.stdout.split()
    version = lines[0] if lines else "unknown"
    if not version.startswith(driver + ".") and version != driver:
        return f"{found} ({version})", (
            f"the workers' Python {found} ({source}) is Python {version}, the driver's is "
            f"{'.'.join(map(str, sys.version_info[:3]))}; Spark refuses different versions: {fix}"
        )
    if done.returncode != 0:
        error = (done.stderr.strip().splitlines() or ["it exited with an error"])[-1]
        return f"{found} ({version})", (
            f"the workers' Python {found} ({source}) cannot import topkeval ({error}): {fix}, or install "
            "topkeval into that Python"
        )
    return f"{found} ({version})", None


@validate_params({"python": Maybe(FilePath())})
def preflight(python: str | None = None) -> dict[str, str]:
    """Check what a local Spark session needs before any Java starts; raise one error saying what is wrong.

    Three checks, the ones that otherwise surface as a Java stack trace: PySpark is installed and
    3.5 or newer; a Java runtime is found the way Spark's launcher finds it (``$JAVA_HOME/bin/java``,
    else ``java`` on PATH) and is new enough for that PySpark (17 for PySpark 4); the workers' Python
    (``python``, else ``PYSPARK_PYTHON``, else ``python3`` on PATH, as PySpark picks it) runs, has
    this (the driver's) Python version and imports topkeval. It runs three short processes and no
    JVM. :func:`session` calls it before starting Spark; call it yourself before your own
    ``SparkSession.builder...getOrCreate()``.

    Parameters
    ----------
    python : str, optional
        The workers' Python, when you will pass it as ``spark.pyspark.python``.

    Returns
    -------
    dict of str to str
        What was found: ``pyspark`` (its version), ``java`` and ``python`` (paths and versions).

    Raises
    ------
    SparkSetupError
        One message with a line per problem, each with its fix.

    Examples
    --------
    >>> import sys
    >>> from topkeval.spark import SparkSetupError, preflight
    >>> try:
    ...     found = preflight(python=sys.executable)
    ... except SparkSetupError as err:  # no Java here, for example
    ...     found = {"python": str(err)}
    >>> "python" in found
    True
    """
    pyspark_version, pyspark_problem = _pyspark_problem()
    java, java_problem = _java_problem(pyspark_version)
    worker, python_problem = _python_problem(python)
    problems = [p for p in (pyspark_problem, java_problem, python_problem) if p]
    if problems:
        raise SparkSetupError(
            "topkeval.spark: Spark cannot start here (checked before starting Java):\n"
            + "\n".join(f"- {problem}." for problem in problems)
        )
    return {"pyspark": pyspark_version, "java": java, "python": worker}


@validate_params({"master": Text(" (a Spark master URL)"), "app_name": Text()})
def session(master: str = "local[*]", app_name: str = "topkeval", config: dict | None = None):
    """A SparkSession, started only after :func:`preflight` passes (else its one message, no stack trace).

    The workers run ``PYSPARK_PYTHON`` when it is set, else this Python (set as
    ``spark.pyspark.python``). An existing session is returned as is (``getOrCreate``).

    Parameters
    ----------
    master : str, default "local[*]"
        Spark's master URL.
    app_name : str, default "topkeval"
        The application's name.
    config : dict, optional
        More Spark settings, ``{key: value}``.

    Returns
    -------
    pyspark.sql.SparkSession
        The session.

    Raises
    ------
    SparkSetupError
        From :func:`preflight`, before Java starts.

    Examples
    --------
    >>> from topkeval.spark import session
    >>> spark = session("local[2]", config={"spark.ui.enabled": "false"})  # doctest: +SKIP
    """
    import os
    import sys

    python = os.environ.get("PYSPARK_PYTHON") or sys.executable
    preflight(python)
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master(master).appName(app_name).config("spark.pyspark.python", python)
    for key, value in (config or {}).items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


def _check_frame(frame: Any, name: str) -> None:
    DataFrame, _, _ = _pyspark()
    if not isinstance(frame, DataFrame):
        raise InputTypeError(
            f"{name} must be a Spark DataFrame (pyspark.sql.DataFrame); got {type(frame).__module__}."
            f"{type(frame).__name__}. For pandas DataFrames use topkeval.evaluate."
        )


def _col(name: str):
    _, F, _ = _pyspark()
    return F.col(f"`{name}`")  # metric names hold '@'; backticks keep any name literal


# ----------------------------------------------------------------- the workers
_WORKERS_CHECKED: set[int] = set()  # sessions whose workers imported topkeval (by id)


def _worker_probe():
    """A function for mapInArrow that reports the worker's Python and whether it imports topkeval.

    Made inside a function so that cloudpickle ships it by value: the worker
    needs nothing of topkeval to run it.
    """

    def probe(batches):
        import sys

        import pyarrow

        try:
            import topkeval as found

            result = "ok " + found.__version__
        except Exception as err:  # any failure to import is what we report
            result = f"{type(err).__name__}: {err}"
        for _ in batches:
            pass
        yield pyarrow.RecordBatch.from_pydict({"python": [sys.executable], "result": [result]})

    return probe


def _workers_error(python: str, problem: str) -> ImportError:
    import sys

    return ImportError(
        f"topkeval.spark: the Spark workers cannot import topkeval (worker Python {python}: {problem}). "
        "The workers run their own Python, and it needs topkeval (with numpy, pandas and pyarrow). "
        f"Locally, give Spark this Python before the session starts: export PYSPARK_PYTHON={sys.executable} "
        f'(or SparkSession.builder.config("spark.pyspark.python", "{sys.executable}")), or activate '
        "the virtual environment before starting Python. On a cluster, install topkeval on every node, or "
        "ship it with the job: --py-files topkeval.zip (a zip of the topkeval package folder; numpy, pandas "
        "and pyarrow must be there already), or an environment archive (venv-pack or conda-pack: "
        "--archives env.tar.gz#env with spark.pyspark.python=./env/bin/python)."
    )


def _local_workers_python(session) -> str | None:
    """The workers' Python of a local session (a local file this process can run), else None (a cluster,
    Spark Connect)."""
    try:
        context = session.sparkContext
        return context.pythonExec if str(context.master).startswith("local") else None
    except Exception:  # Spark Connect has no SparkContext
        return None


def _check_workers(session) -> None:
    """Before the first job of a session: one tiny job that imports topkeval on a worker, or a clear error."""
    if id(session) in _WORKERS_CHECKED:
        return
    python = _local_workers_python(session)
    if python is not None:  # local: check the workers' Python in a plain process, before any Spark job
        found, problem = _python_problem(python)
        if problem:
            raise _workers_error(found, problem) from None
    schema = "python string, result string"
    try:
        rows = session.range(1, numPartitions=1).mapInArrow(_worker_probe(), schema).collect()
    except Exception as err:  # the worker could not even run the probe (no pyarrow, no Python, ...)
        lines = [line.strip() for line in str(err).splitlines() if "Error" in line and ":" in line]
        raise _workers_error("unknown", lines[-1] if lines else type(err).__name__) from None
    python, result = rows[0]["python"], rows[0]["result"]
    if not result.startswith("ok "):
        raise _workers_error(python, result)
    _WORKERS_CHECKED.add(id(session))


# ----------------------------------------------------------------- validation
def _probe(recommendations, truth, k, options: dict, empty: str) -> list[str]:
    """Check k, metrics, options and columns with topkeval.evaluate itself; return its metric columns.

    topkeval.evaluate runs on empty pandas frames that have the Spark frames'
    column names, so every message about a bad option or a missing column is
    the library's own.
    """
    recs = pd.DataFrame({c: pd.Series([], dtype="float64") for c in recommendations.columns})
    rows = pd.DataFrame({c: pd.Series([], dtype="float64") for c in truth.columns})
    return list(topkeval.evaluate(recs, rows, k, empty=empty, **options).columns)


def _largest_grade(grades) -> float:
    """ERR's g_max for the whole truth (one aggregate query): its largest grade, at least 1.

    Each task sees only some users, so the scale's top is fixed here, as
    :func:`topkeval.evaluate` fixes it from the whole truth frame.
    """
    _, F, _ = _pyspark()
    largest = grades.agg(F.max(F.col("g").cast("double"))).first()[0]
    return max(1.0, float(largest or 0.0))


def _set_err_scale(options: dict, names: list[str], frame, column: str | None, explode: bool = False) -> None:
    """Fix ERR's g_max in ``options`` from the whole truth's grades (``column`` of ``frame``), when needed.

    Needed when ERR is asked for, ``max_grade`` is not given and there are
    grades; ``explode`` reads a column of grade lists (array input).
    """
    asks_err = any(name.startswith("err@") for name in names)
    if options["max_grade"] is not None or not asks_err or not column or column not in frame.columns:
        return
    _, F, _ = _pyspark()
    grades = F.explode(_col(column)) if explode else _col(column)
    options["max_grade"] = _largest_grade(frame.select(grades.alias("g")))


def _kind(dtype) -> str:
    _, _, T = _pyspark()
    if isinstance(dtype, T.BooleanType):
        return "booleans"
    if isinstance(dtype, T.NumericType):
        return "numbers"
    return "strings" if isinstance(dtype, T.StringType) else dtype.simpleString()


def _common_type(left, right, what: str):
    """The type both sides' ids are cast to, or a TypeError when no id could ever match."""
    _, _, T = _pyspark()
    if left == right:
        return left
    if _kind(left) == _kind(right) == "numbers":
        integral = all(isinstance(t, T.IntegralType) for t in (left, right))
        return T.LongType() if integral else T.DoubleType()
    if _kind(left) == _kind(right) == "strings":
        return T.StringType()
    raise InputTypeError(
        f"{what} ids in recommendations are {_kind(left)} ({left.simpleString()}) but in truth they are "
        f"{_kind(right)} ({right.simpleString()}), so no id could ever match. Cast one side, e.g. "
        f".withColumn({what!r}, F.col({what!r}).cast('string'))."
    )


def _check_numeric(frame, column: str, name: str) -> None:
    dtype = frame.schema[column].dataType
    if _kind(dtype) != "numbers":
        raise InputTypeError(f"{name}'s {column!r} column must be numeric; got {dtype.simpleString()}.")


def _align(recommendations, truth, user_col: str, item_col: str):
    """Both frames with user and item columns of one type each."""
    for column in (user_col, item_col):
        left, right = recommendations.schema[column].dataType, truth.schema[column].dataType
        common = _common_type(left, right, column)
        if left != common:
            recommendations = recommendations.withColumn(column, _col(column).cast(common))
        if right != common:
            truth = truth.withColumn(column, _col(column).cast(common))
    return recommendations, truth


# ----------------------------------------------------- users with no relevant item
def _raise_on_empty(users, user_col: str) -> None:
    """Count and name, on the driver, the users whose ``relevant`` flag is 0 (one small aggregate).

    ``users`` has one or more rows per user with an int column ``relevant``
    (1 if the row is a relevant item); a second query names up to three of
    the offending users only when there are some.
    """
    _, F, _ = _pyspark()
    per_user = users.groupBy(user_col).agg(F.max("relevant").alias("relevant"))
    counts = per_user.agg(F.count(F.lit(1)).alias("n"), F.sum(1 - F.col("relevant")).alias("empty")).first()
    n_empty = int(counts["empty"] or 0)
    if not n_empty:
        return
    examples = [
        row[0]
        for row in per_user.filter(F.col("relevant") == 0)
        .select(user_col)
        .orderBy(user_col)
        .limit(3)
        .collect()
    ]
    more = ", ..." if n_empty > len(examples) else ""
    raise InvalidInputError(
        f"{n_empty} of {counts['n']} users have no relevant item "
        f"(e.g. {', '.join(map(repr, examples))}{more}), "
        "so recall, AP and NDCG are 0/0 for them. Choose what they count as: empty='skip' leaves them out "
        "(trec_eval, ranx, RecBole), empty='zero' scores them 0 (Spark, torchmetrics)."
    )


def _finish(full, empty: str, user_col: str, sums):
    """The result: the unfiltered frame (with the no-relevant flag) and its sums plan attached for summary().

    ``sums`` makes the same computation with one row of sums and counts per
    task instead of one row per user (see :func:`_sum_up`).
    """
    kept = full.filter(_col(_FLAG) == 0) if empty == "skip" else full
    result = kept.drop(_FLAG)
    setattr(result, _LINK, (full, empty, user_col, sums))
    return result


def _sums_schema(names: Sequence[str]):
    """One row per task: users scored, users with no relevant item, and per metric a sum and a count."""
    _, _, T = _pyspark()
    fields = [T.StructField("n_users", T.LongType()), T.StructField("n_empty", T.LongType())]
    for i in range(len(names)):  # positional names: metric names hold '@'
        fields += [T.StructField(f"sum{i}", T.DoubleType()), T.StructField(f"count{i}", T.LongType())]
    return T.StructType(fields)


def _sum_up(columns: dict, flags: np.ndarray, config: dict) -> dict[str, list]:
    """One task's users folded into one row of sums and counts (what summary() adds up).

    The users counted are those the per-user frame keeps: all of them, or
    with ``empty="skip"`` those with a relevant item.
    """
    scored = flags == 0 if config["skip"] else np.ones(flags.size, dtype=bool)
    row: dict[str, list] = {"n_users": [int(scored.sum())], "n_empty": [int(flags.sum())]}
    for i, name in enumerate(config["names"]):
        values = columns[name][scored]
        row[f"sum{i}"], row[f"count{i}"] = [float(values.sum())], [int(values.size)]
    return row


# ------------------------------------------------------------------ per bucket
def _score_frames(
    recs: pd.DataFrame, truth: pd.DataFrame, config: dict
) -> tuple[np.ndarray, dict, np.ndarray]:
    """Run topkeval.evaluate on one bucket; return users, metric columns and the no-relevant flags.

    Users with no relevant item are scored as ``empty="zero"`` scores them
    (every metric 0, RBP's residual kept) and flagged 1; with
    ``empty="skip"`` the caller filters them out.
    """
    if config["order"]:
        recs = recs.sort_values(_ORDER, kind="stable").drop(columns=_ORDER)
    scores = topkeval.evaluate(recs, truth, config["k"], empty=config["bucket_empty"], **config["options"])
    users = scores.index.to_numpy()
    user_col, relevance_col = config["user_col"], config["options"]["relevance_col"]
    relevant = truth[truth[relevance_col] > 0] if relevance_col in truth.columns else truth
    flags = (~scores.index.isin(relevant[user_col].unique())).astype(np.int8)
    columns = {name: scores[name].to_numpy(dtype=np.float64) for name in config["names"]}
    return users, columns, flags


def _bucket_arrow(recs: pa.Table, truth: pa.Table, config: dict) -> pa.Table:
    """One bucket through Arrow (Spark 4's ``cogroup().applyInArrow``)."""
    user_type = recs.schema.field(config["user_col"]).type
    users, columns, flags = _score_frames(recs.to_pandas(), truth.to_pandas(), config)
    if config["sums"]:
        return _sums_table(columns, flags, config)
    arrays = {config["user_col"]: pa.array(users).cast(user_type)}
    arrays.update({name: pa.array(values, pa.float64()) for name, values in columns.items()})
    arrays[_FLAG] = pa.array(flags, pa.int8())
    return pa.table(arrays)


def _sums_table_columns(row: dict[str, list]) -> dict[str, pa.Array]:
    """:func:`_sum_up`'s row as Arrow arrays with the types of :func:`_sums_schema`."""
    return {
        name: pa.array(values, pa.int64() if name.startswith(("n_", "count")) else pa.float64())
        for name, values in row.items()
    }


def _sums_table(columns: dict, flags: np.ndarray, config: dict) -> pa.Table:
    """One bucket's :func:`_sum_up` row as an Arrow table."""
    return pa.table(_sums_table_columns(_sum_up(columns, flags, config)))


def _bucket_pandas(recs: pd.DataFrame, truth: pd.DataFrame, config: dict) -> pd.DataFrame:
    """One bucket through pandas (``cogroup().applyInPandas``, for Spark 3.5)."""
    users, columns, flags = _score_frames(recs, truth, config)
    if config["sums"]:
        return pd.DataFrame(_sum_up(columns, flags, config))
    return pd.DataFrame({config["user_col"]: users, **columns, _FLAG: flags})


def _choose_buckets(recommendations) -> int:
    """B from the data: about _ROWS_PER_BUCKET rows each, and at least four per shuffle partition."""
    partitions = int(recommendations.sparkSession.conf.get("spark.sql.shuffle.partitions"))
    return max(4 * partitions, math.ceil(recommendations.count() / _ROWS_PER_BUCKET))


def _cogroup(recs, truth, buckets: int, config: dict, schema):
    _, F, _ = _pyspark()
    user = config["user_col"]
    key = F.pmod(F.xxhash64(_col(user)), F.lit(buckets)).alias("__topkeval_bucket__")
    cogrouped = recs.groupBy(key).cogroup(truth.groupBy(key))
    if _ARROW and hasattr(cogrouped, "applyInArrow"):
        return cogrouped.applyInArrow(functools.partial(_bucket_arrow, config=config), schema)
    return cogrouped.applyInPandas(functools.partial(_bucket_pandas, config=config), schema)


def _result_schema(user_type, names: Sequence[str], user_col: str):
    _, _, T = _pyspark()
    fields = [T.StructField(user_col, user_type)] + [T.StructField(n, T.DoubleType()) for n in names]
    return T.StructType(fields + [T.StructField(_FLAG, T.ByteType(), False)])


def _check_columns_and_buckets(
    recommendations, truth, order_col: str, relevance_col: str, buckets: Any
) -> None:
    """The rank (or score) and relevance columns are numeric (``buckets`` is declared on evaluate)."""
    _check_numeric(recommendations, order_col, "recommendations")
    if relevance_col in truth.columns:
        _check_numeric(truth, relevance_col, "truth")


def _raise_on_empty_rows(recs, rows, user_col: str, relevance_col: str) -> None:
    """``empty="raise"``: one aggregate query over both frames finds the users with no relevant item."""
    _, F, _ = _pyspark()
    relevant = (_col(relevance_col) > 0).cast("int") if relevance_col in rows.columns else F.lit(1)
    _raise_on_empty(
        recs.select(_col(user_col), F.lit(0).alias("relevant")).unionByName(
            rows.select(_col(user_col), relevant.alias("relevant"))
        ),
        user_col,
    )


@validate_params(
    {
        "k": Cutoffs(),
        "metrics": Metrics(),
        **settings_constraints("frames"),
        **column_constraints("user_col", "item_col", "rank_col", "score_col", "relevance_col"),
        "buckets": Maybe(Integer(1, " (hash buckets of users)")),
    }
)
@_docs.document("empty", "ties")
def evaluate(
    recommendations,
    truth,
    k: int | Sequence[int],
    *,
    metrics: Iterable[str] | None = None,
    denominator: str = Settings.denominator,
    gain: str = Settings.gain,
    ideal: str = Settings.ideal,
    discount: str = Settings.discount,
    empty: str = Settings.empty,
    ties: str = Settings.ties,
    user_col: str = "user",
    item_col: str = "item",
    rank_col: str = "rank",
    score_col: str = "score",
    relevance_col: str = "relevance",
    buckets: int | None = None,
    p: float = Settings.p,
    max_grade: float | None = Settings.max_grade,
    unjudged: str = Settings.unjudged,
):
    """Score every user's recommendations on Spark: one row per user, one column per metric.

    Parameters
    ----------
    recommendations : pyspark.sql.DataFrame
        Columns ``user``, ``item`` and either ``rank`` (1 = best) or
        ``score`` (higher = better), as in :func:`topkeval.evaluate`.
    truth : pyspark.sql.DataFrame
        Columns ``user`` and ``item``, plus an optional ``relevance`` grade
        (>= 0; 0 = judged not relevant).
    k, metrics, denominator, gain, ideal, discount, ties, p, max_grade, unjudged
        As in :func:`topkeval.evaluate`, and checked by it.
    empty : {"raise", "skip", "zero"}
        What users with no relevant item count as. See Notes.
    user_col, item_col, rank_col, score_col, relevance_col : str
        Column names, if yours differ.
    buckets : int, optional
        How many buckets the users are hashed into. Default: one bucket per
        two million recommendation rows and at least four per shuffle
        partition, which costs one ``count()`` of ``recommendations``; pass
        it to skip that pass.

    Returns
    -------
    pyspark.sql.DataFrame
        Column ``user`` (the type of the recommendations' user ids) and one
        double column per metric and cutoff, named and ordered as the columns
        of :func:`topkeval.evaluate` (``precision@10``, ..., ``ndcg@10``).
        Rows come in no particular order. :func:`summary` gives the means.

    Notes
    -----
    The users are those of ``recommendations`` and ``truth`` together; a
    user's values are exactly those :func:`topkeval.evaluate` gives on the
    same rows collected to pandas. ``empty`` differs from pandas in where
    things happen:

    * ``"raise"``: one small aggregate query (a group-by on user) counts the
      users with no relevant item before anything else runs, and a
      ``ValueError`` from the driver names up to three of them.
    * ``"skip"``: those users are not in the result. Spark DataFrames carry
      no ``attrs``, so instead of ``attrs['skipped_users']``,
      :func:`skipped_users` gives them as a DataFrame and :func:`summary`
      counts them, in the same pass as the means. Both need the very frame
      this function returned.
    * ``"zero"``: they are kept with every metric 0.

    %(empty)s

    ``ties="input_order"`` means the order of the rows in ``recommendations``
    as Spark reads them (partition by partition): deterministic for a frame
    made from pandas or a file, not after a shuffle of your own.

    %(ties)s

    Errors in the data that only a user's own rows show (a repeated item,
    two items at one rank, tied scores with ``ties="raise"``) are found by
    :func:`topkeval.evaluate` inside a task: Spark raises them when the result
    is computed, with the library's message in the Python traceback.

    Examples
    --------
    >>> per_user = evaluate(recs_df, truth_df, k=[10, 100], empty="skip")  # doctest: +SKIP
    >>> summary(per_user)  # doctest: +SKIP
    precision@10    0.0731
    ...
    """
    _check_frame(recommendations, "recommendations")
    _check_frame(truth, "truth")
    options = dict(
        metrics=metrics,
        denominator=denominator,
        gain=gain,
        ideal=ideal,
        discount=discount,
        ties=ties,
        user_col=user_col,
        item_col=item_col,
        rank_col=rank_col,
        score_col=score_col,
        relevance_col=relevance_col,
        p=p,
        max_grade=max_grade,
        unjudged=unjudged,
    )
    names = _probe(recommendations, truth, k, options, empty)
    _check_workers(recommendations.sparkSession)
    by_rank = rank_col in recommendations.columns
    _check_columns_and_buckets(
        recommendations, truth, rank_col if by_rank else score_col, relevance_col, buckets
    )
    keep = [user_col, item_col, rank_col if by_rank else score_col]
    recs = recommendations.select(*[_col(c) for c in keep])  # only what is scored crosses the shuffle
    rows = truth.select(*[_col(c) for c in [user_col, item_col, relevance_col] if c in truth.columns])
    recs, rows = _align(recs, rows, user_col, item_col)
    _set_err_scale(options, names, rows, relevance_col)
    if empty == "raise":
        _raise_on_empty_rows(recs, rows, user_col, relevance_col)
    order = not by_rank and ties == "input_order"
    if order:
        _, F, _ = _pyspark()
        recs = recs.withColumn(_ORDER, F.monotonically_increasing_id())
    config: dict[str, Any] = dict(
        k=k,
        options=options,
        names=names,
        user_col=user_col,
        order=order,
        bucket_empty="raise" if empty == "raise" else "zero",
        skip=empty == "skip",
        sums=False,
    )
    schema = _result_schema(recs.schema[user_col].dataType, names, user_col)
    n_buckets = buckets or _choose_buckets(recs)
    full = _cogroup(recs, rows, n_buckets, config, schema)
    sums = functools.partial(_cogroup, recs, rows, n_buckets, {**config, "sums": True}, _sums_schema(names))
    return _finish(full, empty, user_col, sums)


# ------------------------------------------------------------- array input
def _list_parts(column: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """Flat values and per-row lengths of a list column (a null list is empty; structs give field 0)."""
    lengths = pc.fill_null(pc.list_value_length(column), 0).to_numpy(zero_copy_only=False).astype(np.int64)
    values = pc.list_flatten(column)
    if pa.types.is_struct(values.type):  # ALS recommendForAllUsers: array<struct<item, rating>>
        values = pc.struct_field(values, [0])
    return values, lengths


def _csr_rows(lengths: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For flat list values: which row, which position, and whether the position is below width."""
    rows = np.repeat(np.arange(lengths.size), lengths)
    position = np.arange(rows.size) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return rows, position, position < width


def _batch_values(batch: pa.RecordBatch, config: dict) -> tuple[dict, np.ndarray]:
    """topkeval.evaluate_arrays on one Arrow batch of (user, items, relevant[, grades]) rows.

    Returns the metric columns (one value per row of the batch) and the
    no-relevant flags.
    """
    n = batch.num_rows
    listed, list_len = _list_parts(batch.column(config["items_col"]))
    relevant, rel_len = _list_parts(batch.column(config["relevant_col"]))
    codes = pa.concat_arrays([listed, relevant.cast(listed.type)]).dictionary_encode()
    index = codes.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    width = max(
        1,
        int(list_len.max(initial=0))
        if config["full_lists"]
        else min(config["kmax"], int(list_len.max(initial=0))),
    )
    rows, position, keep = _csr_rows(list_len, width)
    top = np.full((n, width), -1, dtype=np.int64)
    top[rows[keep], position[keep]] = index[: len(listed)][keep]
    grades = None
    if config["grades_col"]:
        grades = pc.list_flatten(batch.column(config["grades_col"])).to_numpy(zero_copy_only=False)
        if grades.size != len(relevant):
            raise InvalidInputError(
                f"{config['grades_col']!r} must hold one grade per relevant item, row by row; got "
                f"{grades.size} grades for {len(relevant)} relevant items in a batch."
            )
    scores = topkeval.evaluate_arrays(
        top,
        np.concatenate([[0], np.cumsum(rel_len)]),
        index[len(listed) :],
        k=config["k"],
        relevant_grades=grades,
        n_items=max(1, len(codes.dictionary)),
        empty=config["bucket_empty"],
        duplicates="check_all",
        **config["options"],
    )
    relevant_rows = np.repeat(np.arange(n), rel_len)
    positive = grades > 0 if grades is not None else np.ones(relevant_rows.size, dtype=bool)
    flags = (np.bincount(relevant_rows[positive], minlength=n) == 0).astype(np.int8)  # no relevant item
    columns = {}
    for name in config["names"]:
        columns[name] = np.zeros(n)
        columns[name][scores.index.to_numpy()] = scores[name].to_numpy()
    return columns, flags


def _score_batches(batches: Iterator[pa.RecordBatch], config: dict) -> Iterator[pa.RecordBatch]:
    """One output batch per input batch: the user column, the metric columns and the flags."""
    for batch in batches:
        columns, flags = _batch_values(batch, config)
        arrays = {config["user_col"]: batch.column(config["user_col"])}
        arrays.update({name: pa.array(values, pa.float64()) for name, values in columns.items()})
        arrays[_FLAG] = pa.array(flags, pa.int8())
        yield pa.RecordBatch.from_pydict(arrays)


def _sum_batches(batches: Iterator[pa.RecordBatch], config: dict) -> Iterator[pa.RecordBatch]:
    """One row of sums and counts for all the batches of a task (nothing for a task with no rows)."""
    total: dict[str, list] | None = None
    for batch in batches:
        row = _sum_up(*_batch_values(batch, config), config)
        total = row if total is None else {name: [total[name][0] + row[name][0]] for name in row}
    if total is not None:
        yield pa.RecordBatch.from_pydict(_sums_table_columns(total))


def _check_list_column(frame, column: str, what: str) -> None:
    _, _, T = _pyspark()
    if column not in frame.columns:
        raise InvalidInputError(
            f"lists is missing column {column!r} ({what}); it has "
            f"{', '.join(map(repr, frame.columns))}. Pass {what}=... if yours is named differently."
        )
    if not isinstance(frame.schema[column].dataType, T.ArrayType):
        raise InputTypeError(
            f"lists' {column!r} column must be an array; got {frame.schema[column].dataType.simpleString()}."
        )


@validate_params(
    {
        "k": Cutoffs(),
        "metrics": Metrics(),
        **settings_constraints("arrays"),
        **column_constraints("user_col", "items_col", "relevant_col"),
        "grades_col": Maybe(Text(" (a column name)")),
    }
)
def evaluate_arrays(
    lists,
    k: int | Sequence[int],
    *,
    metrics: Iterable[str] | None = None,
    denominator: str = Settings.denominator,
    gain: str = Settings.gain,
    ideal: str = Settings.ideal,
    discount: str = Settings.discount,
    empty: str = Settings.empty,
    user_col: str = "user",
    items_col: str = "items",
    relevant_col: str = "relevant",
    grades_col: str | None = None,
    p: float = Settings.p,
    max_grade: float | None = Settings.max_grade,
    unjudged: str = Settings.unjudged,
):
    """Score one row per user holding arrays: the shape of ALS ``recommendForAllUsers`` output.

    No shuffle: each Arrow batch of rows (``spark.sql.execution.arrow.
    maxRecordsPerBatch`` users) goes through :func:`topkeval.evaluate_arrays`
    in ``mapInArrow``.

    Parameters
    ----------
    lists : pyspark.sql.DataFrame
        One row per user: ``user``; ``items``, an array of recommended item
        ids, best first (or an array of structs whose first field is the id,
        as ``recommendForAllUsers`` gives); ``relevant``, an array of the
        user's relevant item ids. A null array counts as empty.
    k, metrics, denominator, gain, ideal, discount, empty, p, max_grade, unjudged
        As in :func:`evaluate` (``unjudged="condense"`` needs ``grades_col``).
    user_col, items_col, relevant_col : str
        Column names, if yours differ.
    grades_col : str, optional
        An array of relevance grades, one per entry of ``relevant`` (graded
        NDCG; grade 0 = judged not relevant).

    Returns
    -------
    pyspark.sql.DataFrame
        As :func:`evaluate`: ``user`` and one column per metric; equal to
        :func:`topkeval.evaluate` on the same lists given as rows with ranks
        1, 2, ... A list that repeats an item raises, as there.

    Examples
    --------
    >>> recs = als_model.recommendForAllUsers(100)  # doctest: +SKIP
    >>> lists = recs.join(truth.groupBy("user").agg(F.collect_list("item").alias("relevant")),
    ...                   "user", "full")  # doctest: +SKIP
    >>> summary(evaluate_arrays(lists, k=[10, 100], items_col="recommendations",
    ...                         empty="skip"))  # doctest: +SKIP
    """
    _check_frame(lists, "lists")
    _, F, T = _pyspark()
    for column, what in ((items_col, "items_col"), (relevant_col, "relevant_col")) + (
        ((grades_col, "grades_col"),) if grades_col else ()
    ):
        _check_list_column(lists, column, what)
    if user_col not in lists.columns:
        raise InvalidInputError(
            f"lists is missing column {user_col!r}; it has {', '.join(map(repr, lists.columns))}. "
            "Pass user_col=... if yours is named differently."
        )
    options: dict[str, Any] = dict(
        metrics=metrics,
        denominator=denominator,
        gain=gain,
        ideal=ideal,
        discount=discount,
        p=p,
        max_grade=max_grade,
        unjudged=unjudged,
    )
    probe = topkeval.evaluate_arrays(np.zeros((0, 1), np.int64), [0], [], k=k, empty=empty, **options)
    _check_workers(lists.sparkSession)
    _set_err_scale(options, list(probe.columns), lists, grades_col, explode=True)
    if empty == "raise":
        relevant = F.coalesce(F.size(_col(relevant_col)), F.lit(0)) > 0
        if grades_col:
            relevant = F.coalesce(F.exists(_col(grades_col), lambda g: g > 0), F.lit(False))
        _raise_on_empty(lists.select(_col(user_col), relevant.cast("int").alias("relevant")), user_col)
    columns = [user_col, items_col, relevant_col] + ([grades_col] if grades_col else [])
    config: dict[str, Any] = dict(
        k=k,
        options=options,
        names=list(probe.columns),
        user_col=user_col,
        items_col=items_col,
        relevant_col=relevant_col,
        grades_col=grades_col,
        kmax=int(max(np.atleast_1d(k))),
        full_lists=ideal == "listed" or unjudged == "condense",  # condensing reads every list whole
        bucket_empty="raise" if empty == "raise" else "zero",
        skip=empty == "skip",
    )
    frame = lists.select(*[_col(c) for c in columns])
    if grades_col:
        frame = frame.withColumn(grades_col, _col(grades_col).cast(T.ArrayType(T.DoubleType())))
    schema = _result_schema(lists.schema[user_col].dataType, config["names"], user_col)
    full = frame.mapInArrow(functools.partial(_score_batches, config=config), schema)
    sums = functools.partial(
        frame.mapInArrow, functools.partial(_sum_batches, config=config), _sums_schema(config["names"])
    )
    return _finish(full, empty, user_col, sums)


# ------------------------------------------------------------------ summary
def _metric_columns(frame) -> list[str]:
    return [c for c in frame.columns if c.split("@", 1)[0] in topkeval.METRICS and "@" in c]


def summary(per_user) -> pd.Series:
    """The mean of every metric column, from sums and counts: one pass, one row to the driver.

    On the very frame :func:`evaluate` or :func:`evaluate_arrays` returned,
    the pass is the scoring itself: each task adds up its own users in
    Python and hands Spark one row of sums and counts, so no per-user row
    is ever built (the per-user frame is not computed). On any other frame,
    Spark adds up its rows.

    Parameters
    ----------
    per_user : pyspark.sql.DataFrame
        What :func:`evaluate` or :func:`evaluate_arrays` returned (or any
        frame with columns named like ``ap@10``; nulls are left out).

    Returns
    -------
    pandas.Series
        Index: the metric columns; values: sum / count over users, what
        ``topkeval.evaluate(...).mean()`` gives on the same data. ``.attrs``
        holds ``n_users`` (users in ``per_user``), ``n_empty_users`` (users
        with no relevant item, scored 0 or skipped) and
        ``n_skipped_users``; the last two are None for a frame that did not
        come straight from :func:`evaluate`. Per-user rows never reach the
        driver: only one row of sums and counts does. The sums are added
        in another order than pandas adds them, so a mean can differ from
        ``.mean()`` in its last bits (about 1e-16 relative).

    Examples
    --------
    >>> summary(evaluate(recs_df, truth_df, k=10, empty="skip"))  # doctest: +SKIP
    precision@10    0.0731
    ...
    """
    _check_frame(per_user, "per_user")
    _, F, _ = _pyspark()
    names = _metric_columns(per_user)
    if not names:
        raise InvalidInputError(
            f"per_user has no metric column (like 'ap@10'); it has {', '.join(per_user.columns)}."
        )
    link = getattr(per_user, _LINK, None)
    if link is not None:  # the frame evaluate returned: each task sums its own users in Python
        return _linked_means(per_user, link)
    aggregates = [F.count(F.lit(1)).alias("n_users")]
    aggregates += [F.sum(_col(n)).alias(f"sum {n}") for n in names]
    aggregates += [F.count(_col(n)).alias(f"count {n}") for n in names]
    return _means(per_user.agg(*aggregates).first(), names, linked=False, empty=None)


def _linked_means(per_user, link: tuple) -> pd.Series:
    """summary() of the frame evaluate returned: Spark adds up the rows of sums its tasks made."""
    _, F, _ = _pyspark()
    _, empty, user_col, sums = link
    names = [c for c in per_user.columns if c != user_col]  # the order of the sums' columns
    totals = sums().agg(*[F.sum(c).alias(c) for c in _sums_schema(names).fieldNames()]).first()
    row = {"n_users": totals["n_users"] or 0, "n_empty": totals["n_empty"]}
    for i, n in enumerate(names):
        row[f"sum {n}"], row[f"count {n}"] = totals[f"sum{i}"], totals[f"count{i}"] or 0
    return _means(row, names, linked=True, empty=empty)


def _means(row: Any, names: list[str], *, linked: bool, empty: Any) -> pd.Series:
    """The means from one row of sums and counts, with the user counts in ``attrs``."""
    means = pd.Series(
        {n: (row[f"sum {n}"] / row[f"count {n}"]) if row[f"count {n}"] else float("nan") for n in names},
        name="mean",
        dtype="float64",
    )
    n_empty = int(row["n_empty"] or 0) if linked else None
    means.attrs.update(
        n_users=int(row["n_users"]),
        n_empty_users=n_empty,
        n_skipped_users=(n_empty if empty == "skip" else 0) if linked else None,
    )
    return means


def skipped_users(per_user):
    """The users ``empty="skip"`` left out of ``per_user``, as a one-column Spark DataFrame.

    The Spark counterpart of ``topkeval.evaluate(...).attrs['skipped_users']``:
    computed when you use it, never collected. Empty for ``empty="zero"``
    or ``"raise"``.

    Parameters
    ----------
    per_user : pyspark.sql.DataFrame
        The very frame :func:`evaluate` or :func:`evaluate_arrays` returned.

    Returns
    -------
    pyspark.sql.DataFrame
        One column, the user column, one row per skipped user.

    Examples
    --------
    >>> per_user = evaluate(recs_df, truth_df, k=10, empty="skip")  # doctest: +SKIP
    >>> skipped_users(per_user).count()  # doctest: +SKIP
    3
    """
    _check_frame(per_user, "per_user")
    link = getattr(per_user, _LINK, None)
    if link is None:
        raise InvalidInputError(
            "per_user must be the frame topkeval.spark.evaluate returned (a derived frame no longer "
            "knows which users were skipped); call skipped_users on that frame."
        )
    full, empty, user_col, _ = link
    skipped = (_col(_FLAG) == 1) if empty == "skip" else (_col(_FLAG) == 2)  # nothing is skipped otherwise
    return full.filter(skipped).select(_col(user_col))
