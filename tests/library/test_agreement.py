"""Agreement with real libraries on random data, where their definitions coincide with ours.

pytrec_eval (trec_eval): P.k, recall.k, map_cut.k (AP with denominator="n_relevant")
and ndcg_cut.k (linear gain, IDCG from all judged relevant items).
scikit-learn: ndcg_score sees only the columns it is given, i.e. ideal="listed".
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import topkeval as h

pytestmark = pytest.mark.compare  # needs the `compare` extra (make test installs it)

pytrec_eval = pytest.importorskip("pytrec_eval")
sklearn_metrics = pytest.importorskip("sklearn.metrics")


def random_run(seed, n_users=300, n_items=60, max_len=25, graded=False):
    rng = np.random.default_rng(seed)
    recs, truth = [], []
    for u in range(n_users):
        ranking = rng.choice(n_items, size=rng.integers(1, max_len), replace=False)
        recs += [(f"u{u}", f"d{item}", rank) for rank, item in enumerate(ranking, start=1)]
        relevant = rng.choice(n_items, size=rng.integers(1, 15), replace=False)
        grades = rng.integers(1, 4, size=relevant.size) if graded else np.ones(relevant.size, dtype=int)
        truth += [(f"u{u}", f"d{item}", int(g)) for item, g in zip(relevant, grades, strict=True)]
    return (
        pd.DataFrame(recs, columns=["user", "item", "rank"]),
        pd.DataFrame(truth, columns=["user", "item", "relevance"]),
    )


def trec_eval(recs, truth, measures):
    qrels = {}
    for user, item, grade in truth.itertuples(index=False):
        qrels.setdefault(user, {})[item] = int(grade)
    run = {}
    for user, item, rank in recs.itertuples(index=False):
        run.setdefault(user, {})[item] = float(1000 - rank)  # distinct scores: no trec_eval tie-breaking
    return pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)


@pytest.mark.parametrize("k", [1, 5, 10, 30])
@pytest.mark.parametrize("graded", [False, True])
def test_pytrec_eval_p_recall_map_cut_ndcg_cut(k, graded):
    recs, truth = random_run(seed=k + 100 * graded, graded=graded)
    ours = h.evaluate(recs, truth, k=k, denominator="n_relevant", gain="linear", ideal="all")
    theirs = trec_eval(recs, truth, {f"P.{k}", f"recall.{k}", f"map_cut.{k}", f"ndcg_cut.{k}"})
    for user, row in ours.iterrows():
        t = theirs[user]
        assert row[f"precision@{k}"] == pytest.approx(t[f"P_{k}"], abs=1e-9)
        assert row[f"recall@{k}"] == pytest.approx(t[f"recall_{k}"], abs=1e-9)
        assert row[f"ap@{k}"] == pytest.approx(t[f"map_cut_{k}"], abs=1e-9)
        assert row[f"ndcg@{k}"] == pytest.approx(t[f"ndcg_cut_{k}"], abs=1e-9)


def test_pytrec_eval_recip_rank_equals_rr_at_the_full_list_length():
    recs, truth = random_run(seed=7)
    longest = int(recs.groupby("user").size().max())
    ours = h.evaluate(recs, truth, k=longest, metrics=["rr"])
    theirs = trec_eval(recs, truth, {"recip_rank"})
    for user, value in ours[f"rr@{longest}"].items():
        assert value == pytest.approx(theirs[user]["recip_rank"], abs=1e-9)


@pytest.mark.parametrize("k", [1, 3, 10])
@pytest.mark.parametrize("gain", ["linear", "exponential"])
def test_sklearn_ndcg_score_is_the_listed_ideal(k, gain):
    rng = np.random.default_rng(k)
    for _ in range(200):
        n = int(rng.integers(2, 20))
        grades = rng.integers(0, 4, size=n).astype(float)
        scores = rng.permutation(n).astype(float)  # distinct: no tie averaging
        if not grades.any():
            continue
        ranking = list(np.argsort(-scores))
        mapping = {i: g for i, g in enumerate(grades)}
        target = grades if gain == "linear" else 2.0**grades - 1.0
        theirs = sklearn_metrics.ndcg_score(target[None, :], scores[None, :], k=k)
        ours = h.ndcg_at_k(ranking, mapping, k, gain=gain, ideal="listed")
        assert ours == pytest.approx(theirs, abs=1e-9)
        theirs_dcg = sklearn_metrics.dcg_score(target[None, :], scores[None, :], k=k)
        assert h.dcg_at_k(ranking, mapping, k, gain=gain) == pytest.approx(theirs_dcg, abs=1e-9)
