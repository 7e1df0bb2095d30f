"""Run the peer libraries themselves on one shared dataset, and keep what they printed.

The convention table and :func:`helpers.evaluate_as` (what each library
computes, as options of ours) live in :mod:`topkeval.conventions`; this module
runs the libraries (the ``compare`` extra installs the light ones) so tests and
notebook 07 can put their own numbers next to ours. The heavy libraries'
numbers (torchmetrics, Microsoft Recommenders, Spark) are recorded by
``make test-conformance`` (``tools/record_peer_results.py``) into
``helpers/experiments/results/conformance.json``, which ships with the package.
"""

from __future__ import annotations

import json
import sys
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from topkeval.checks import check_library as _library_key
from topkeval.conventions import LIBRARIES, evaluate_as

__all__ = ["make_dataset", "run_native", "installed", "record", "load_results", "LIGHT"]

#: The stored results, read as package data (works from a wheel, never from the repository tree).
RESULTS = resources.files("helpers.experiments") / "results" / "conformance.json"


# ------------------------------------------------------------------ shared dataset
def make_dataset(n_users: int = 1000, n_candidates: int = 50, seed: int = 20210927):
    """The shared synthetic dataset: every user scores the same number of candidates.

    Each user has 0, 1, 2, 3, 4, 5, 8, 12 or 15 relevant candidates (so some
    have none and some more than 10). Scores are uniform on (0, 1) plus 0.35
    for a relevant candidate: positive, and without ties, so every library ranks the
    candidates the same way and any difference in their numbers is a difference of convention.

    Parameters
    ----------
    n_users : int
        Users in the dataset.
    n_candidates : int
        Candidates scored per user (a user's relevant count is capped at it).
    seed : int
        Seed of the random generator (the stored results use the default).

    Returns
    -------
    recommendations : pandas.DataFrame
        Columns user, item, score.
    truth : pandas.DataFrame
        Columns user, item (the relevant candidates only).

    Examples
    --------
    >>> recs, truth = make_dataset(n_users=3, n_candidates=4, seed=1)
    >>> recs.shape, sorted(recs.columns)
    ((12, 3), ['item', 'score', 'user'])
    """
    rng = np.random.default_rng(seed)
    sizes = rng.choice(
        [0, 1, 2, 3, 4, 5, 8, 12, 15], size=n_users, p=[0.09, 0.2, 0.17, 0.14, 0.1, 0.08, 0.08, 0.07, 0.07]
    )
    sizes = np.minimum(sizes, n_candidates)
    users = np.repeat(np.arange(n_users), n_candidates)
    items = np.concatenate([rng.permutation(n_candidates) for _ in range(n_users)])
    relevant = np.zeros(users.size, dtype=bool)
    for u in range(n_users):
        relevant[u * n_candidates + rng.choice(n_candidates, sizes[u], replace=False)] = True
    score = rng.uniform(0.001, 1.0, users.size) + 0.35 * relevant
    recs = pd.DataFrame({"user": users, "item": items, "score": np.round(score, 12)})
    truth = pd.DataFrame({"user": users[relevant], "item": items[relevant]})
    return recs, truth.reset_index(drop=True)


# ------------------------------------------------------------------ native runs
def _native_trec_eval(recs, truth, k, cut_run_for_rr=True):
    import pytrec_eval

    qrels = {str(u): {} for u in truth["user"].unique()}
    for user, item, grade in _truth_rows(truth):
        qrels[str(user)][str(item)] = int(grade)
    run = {}
    for user, item, score in recs[["user", "item", "score"]].itertuples(index=False):
        run.setdefault(str(user), {})[str(item)] = float(score)
    names = {
        "precision": f"P_{k}",
        "recall": f"recall_{k}",
        "hit": f"success_{k}",
        "ap": f"map_cut_{k}",
        "ndcg": f"ndcg_cut_{k}",
    }
    out = pytrec_eval.RelevanceEvaluator(qrels, set(names.values())).evaluate(run)
    cut = {u: dict(sorted(d.items(), key=lambda x: (-x[1], _neg(x[0])))[:k]) for u, d in run.items()}
    rr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(cut)
    result = {f"{m}@{k}": float(np.mean([v[name] for v in out.values()])) for m, name in names.items()}
    result[f"rr@{k}"] = float(np.mean([v["recip_rank"] for v in rr.values()]))
    return result


class _neg(str):  # descending string order inside an ascending sort key
    def __lt__(self, other):
        return str.__gt__(self, other)


def _truth_rows(truth):
    grades = truth["relevance"] if "relevance" in truth.columns else pd.Series(1, index=truth.index)
    return zip(truth["user"], truth["item"], grades, strict=True)


def _relevant_rows(truth):
    return truth.loc[truth["relevance"] > 0] if "relevance" in truth.columns else truth


def _native_ir_measures(recs, truth, k):
    import ir_measures
    from ir_measures import AP, RR, P, R, Success, nDCG

    qrels = [ir_measures.Qrel(str(u), str(i), int(g)) for u, i, g in _truth_rows(truth)]
    run = [
        ir_measures.ScoredDoc(str(u), str(i), float(s))
        for u, i, s in recs[["user", "item", "score"]].itertuples(index=False)
    ]
    measures = {
        "precision": P @ k,
        "recall": R @ k,
        "hit": Success @ k,
        "rr": RR @ k,
        "ap": AP @ k,
        "ndcg": nDCG @ k,
    }
    agg = ir_measures.calc_aggregate(list(measures.values()), qrels, run)
    return {f"{m}@{k}": float(agg[measure]) for m, measure in measures.items()}


def _native_ranx(recs, truth, k):
    import ranx

    qrels = {}
    for u, i, g in _truth_rows(truth):
        qrels.setdefault(str(u), {})[str(i)] = int(g)
    run = {}
    for u, i, s in recs[["user", "item", "score"]].itertuples(index=False):
        run.setdefault(str(u), {})[str(i)] = float(s)
    names = {
        "precision": "precision",
        "recall": "recall",
        "hit": "hit_rate",
        "rr": "mrr",
        "ap": "map",
        "ndcg": "ndcg",
    }
    out = ranx.evaluate(
        ranx.Qrels(qrels), ranx.Run(run), [f"{n}@{k}" for n in names.values()], make_comparable=True
    )
    return {f"{m}@{k}": float(out[f"{n}@{k}"]) for m, n in names.items()}


def _matrix(recs, truth):
    """Score and relevance matrices (users x candidates) for score-matrix APIs."""
    users = np.sort(recs["user"].unique())
    width = int(recs.groupby("user").size().max())
    frame = recs.sort_values(["user"], kind="stable").copy()
    frame["col"] = frame.groupby("user").cumcount()
    row = np.searchsorted(users, frame["user"].to_numpy())
    score = np.full((users.size, width), -np.inf)
    score[row, frame["col"].to_numpy()] = frame["score"].to_numpy()
    rel = pd.Series(1.0, index=pd.MultiIndex.from_frame(truth[["user", "item"]]))
    if "relevance" in truth.columns:
        rel = pd.Series(truth["relevance"].to_numpy(dtype=float), index=rel.index)
    grades = rel.reindex(pd.MultiIndex.from_frame(frame[["user", "item"]])).fillna(0.0).to_numpy()
    target = np.zeros((users.size, width))
    target[row, frame["col"].to_numpy()] = grades
    return score, target


def _native_sklearn(recs, truth, k):
    from sklearn.metrics import ndcg_score

    score, target = _matrix(recs, truth)
    return {f"ndcg@{k}": float(ndcg_score(target, score, k=k))}


def _native_torchmetrics(recs, truth, k):
    import torch
    from torchmetrics import retrieval as tr

    score, target = _matrix(recs, truth)
    n, width = score.shape
    preds = torch.tensor(score.ravel(), dtype=torch.float64)
    tgt = torch.tensor(target.ravel() > 0)
    idx = torch.arange(n).repeat_interleave(width)
    metrics = {
        "precision": tr.RetrievalPrecision(top_k=k),
        "recall": tr.RetrievalRecall(top_k=k),
        "hit": tr.RetrievalHitRate(top_k=k),
        "rr": tr.RetrievalMRR(top_k=k),
        "ap": tr.RetrievalMAP(top_k=k),
        "ndcg": tr.RetrievalNormalizedDCG(top_k=k),
    }
    out = {}
    for name, metric in metrics.items():
        target_ = torch.tensor(target.ravel()) if name == "ndcg" else tgt
        out[f"{name}@{k}"] = float(metric(preds, target_, indexes=idx))
    return out


def _native_recommenders(recs, truth, k):
    from recommenders.evaluation import python_evaluation as pe

    truth = _relevant_rows(truth)  # rating_true rows all count as relevant
    true = truth.assign(rating=truth["relevance"] if "relevance" in truth.columns else 1.0)[
        ["user", "item", "rating"]
    ]
    pred = recs.rename(columns={"score": "prediction"})[["user", "item", "prediction"]]
    kw = dict(
        col_user="user",
        col_item="item",
        col_rating="rating",
        col_prediction="prediction",
        relevancy_method="top_k",
        k=k,
    )
    return {
        f"precision@{k}": float(pe.precision_at_k(true, pred, **kw)),
        f"recall@{k}": float(pe.recall_at_k(true, pred, **kw)),
        f"ap@{k}": float(pe.map_at_k(true, pred, **kw)),
        f"ndcg@{k}": float(pe.ndcg_at_k(true, pred, **kw)),
    }


def _native_spark(recs, truth, k):
    from pyspark.mllib.evaluation import RankingMetrics
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.master("local[1]").appName("helpers-conformance").getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    truth = _relevant_rows(truth)  # every label counts as relevant
    ordered = recs.sort_values(["user", "score"], ascending=[True, False], kind="stable")
    lists = ordered.groupby("user")["item"].apply(lambda s: [int(x) for x in s])
    labels = truth.groupby("user")["item"].apply(lambda s: [int(x) for x in s])
    users = sorted(set(lists.index) | set(labels.index))
    pairs = [(lists.get(u, []), labels.get(u, [])) for u in users]
    metrics = RankingMetrics(spark.sparkContext.parallelize(pairs, 2))
    return {
        f"precision@{k}": float(metrics.precisionAt(k)),
        f"recall@{k}": float(metrics.recallAt(k)),
        f"ap@{k}": float(metrics.meanAveragePrecisionAt(k)),
        f"ndcg@{k}": float(metrics.ndcgAt(k)),
    }


_RUNNERS = {
    "trec_eval": ("pytrec_eval", _native_trec_eval),
    "ir_measures": ("ir_measures", _native_ir_measures),
    "ranx": ("ranx", _native_ranx),
    "sklearn": ("sklearn", _native_sklearn),
    "torchmetrics": ("torchmetrics", _native_torchmetrics),
    "recommenders": ("recommenders", _native_recommenders),
    "spark": ("pyspark", _native_spark),
}

#: Libraries run live by ``make test``; the others only by the opt-in ``make test-conformance``.
LIGHT = ("trec_eval", "ir_measures", "ranx", "sklearn")


def run_native(library: str, recommendations: pd.DataFrame, truth: pd.DataFrame, k: int) -> dict[str, float]:
    """Run the library itself (it must be installed) and return its numbers.

    Only the libraries in ``_RUNNERS`` can be run from here; the others were checked by hand
    against their source (see each row's evidence).

    Parameters
    ----------
    library : str
        A library of :func:`topkeval.library_table` (``"trec_eval"``, ``"ranx"``, ...).
    recommendations : pandas.DataFrame
        Columns user, item, score (integer ids), as :func:`make_dataset` returns them.
    truth : pandas.DataFrame
        Columns user, item and optionally relevance.
    k : int
        The cutoff.

    Returns
    -------
    dict
        Metric name (``"ndcg@10"``, ...) -> the library's mean over users.

    Raises
    ------
    ValueError
        For a library that cannot be run from here (or that is not in the table at all).
    """
    key = _library_key(library)
    if key not in _RUNNERS:
        raise ValueError(
            f"{LIBRARIES[key].name} cannot be run from helpers; runnable: {', '.join(map(repr, _RUNNERS))}."
        )
    return _RUNNERS[key][1](recommendations, truth, k)


def installed(library: str) -> bool:
    """Whether the library's package can be imported here.

    Parameters
    ----------
    library : str
        A library of :func:`topkeval.library_table`.

    Returns
    -------
    bool
        True only for a library :func:`run_native` can run whose package is importable.

    Examples
    --------
    >>> isinstance(installed("sklearn"), bool)
    True
    """
    import importlib.util

    key = _library_key(library)
    return key in _RUNNERS and importlib.util.find_spec(_RUNNERS[key][0]) is not None


def _version(key: str) -> str:
    from importlib.metadata import version

    package = {
        "trec_eval": "pytrec-eval-terrier",
        "ir_measures": "ir-measures",
        "ranx": "ranx",
        "sklearn": "scikit-learn",
        "torchmetrics": "torchmetrics",
        "recommenders": "recommenders",
        "spark": "pyspark",
    }[key]
    return version(package)


def record(path: Path, k: int = 10) -> dict:
    """Run every installed library on :func:`make_dataset` and store its numbers with ours.

    What ``make test-conformance`` runs; a library that is not installed is skipped with a line
    on standard error, so the file holds what could be checked on this machine.

    Parameters
    ----------
    path : pathlib.Path
        The JSON file written (its folder is created).
    k : int
        The cutoff.

    Returns
    -------
    dict
        What was written: the dataset's settings and, per library, its version, its numbers,
        ours and the largest absolute difference.
    """
    recs, truth = make_dataset()
    stored = {
        "dataset": {
            "function": "helpers.experiments.peers.make_dataset",
            "n_users": 1000,
            "n_candidates": 50,
            "seed": 20210927,
            "k": k,
        },
        "libraries": {},
    }
    for key in _RUNNERS:
        if not installed(key):
            print(f"{key}: not installed, skipped", file=sys.stderr)
            continue
        native = run_native(key, recs, truth, k)
        ours = evaluate_as(key, recs, truth, k, metrics=[m.split("@")[0] for m in native])
        diff = max(abs(native[m] - float(ours[m])) for m in native)
        stored["libraries"][key] = {
            "version": _version(key),
            "native": native,
            "ours": {m: float(ours[m]) for m in native},
            "max_abs_difference": diff,
        }
        print(f"{key} {_version(key)}: max |native - ours| = {diff:.2e}", file=sys.stderr)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(stored, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return stored


def load_results(path: Path | None = None) -> dict:
    """The numbers stored by the last ``make test-conformance`` run (package data by default).

    Parameters
    ----------
    path : pathlib.Path, optional
        Another results file, written by :func:`record`.

    Returns
    -------
    dict
        As :func:`record` returned it.

    Raises
    ------
    FileNotFoundError
        When the file does not exist yet.

    Examples
    --------
    >>> results = load_results()
    >>> results["dataset"]["k"], "trec_eval" in results["libraries"]
    (10, True)
    """
    source = RESULTS if path is None else Path(path)
    if not source.is_file():
        raise FileNotFoundError(f"{source} does not exist yet; run `make test-conformance` to record it.")
    return json.loads(source.read_text(encoding="utf-8"))
