"""A second oracle: trec_eval itself (pytrec_eval) for every registry metric it computes on whole lists.

``tests/library/reference.py``'s ``TREC_EVAL`` says which registry key is which trec_eval measure (and
with which of our options); each is compared on random graded qrels with judged non-relevant and unjudged
documents and queries with nothing relevant.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import topkeval

from .reference import TREC_EVAL

pytestmark = pytest.mark.compare  # needs the `compare` extra (make test installs it)


def _pytrec_eval(require):
    try:
        import pytrec_eval
    except ImportError:
        require("pytrec_eval", False, "pip install -e 'topkeval[compare]' (or make test)")
    return pytrec_eval


def _random_qrels_and_run(seed, n_queries=80, n_docs=40):
    rng = np.random.default_rng(seed)
    recs, truth = [], []
    for q in range(n_queries):
        listed = rng.choice(n_docs, size=rng.integers(1, 25), replace=False)
        recs += [(f"q{q}", f"d{doc}", rank) for rank, doc in enumerate(listed, start=1)]
        judged = rng.choice(n_docs, size=rng.integers(1, 20), replace=False)
        grades = rng.integers(0, 4, size=judged.size) if q % 7 else np.zeros(judged.size, dtype=int)
        truth += [(f"q{q}", f"d{doc}", int(g)) for doc, g in zip(judged, grades, strict=True)]
    return (
        pd.DataFrame(recs, columns=["user", "item", "rank"]),
        pd.DataFrame(truth, columns=["user", "item", "relevance"]),
    )


@pytest.mark.parametrize("key", sorted(TREC_EVAL))
def test_the_whole_list_value_is_trec_evals(key, require):
    pytrec_eval = _pytrec_eval(require)
    measure, options = TREC_EVAL[key]
    recs, truth = _random_qrels_and_run(seed=len(key))
    qrels, run = {}, {}
    for user, item, grade in truth.itertuples(index=False):
        qrels.setdefault(user, {})[item] = int(grade)
    for user, item, rank in recs.itertuples(index=False):
        run.setdefault(user, {})[item] = float(1000 - rank)  # distinct scores: no tie-breaking
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run)
    whole = int(max(recs.groupby("user").size().max(), truth.groupby("user").size().max()))
    ours = topkeval.evaluate(recs, truth, k=whole, metrics=[key], empty="zero", **options)
    assert sorted(ours.index) == sorted(theirs)
    assert any(ours[f"{key}@{whole}"] == 0) and any(ours[f"{key}@{whole}"] > 0)
    for user, value in ours[f"{key}@{whole}"].items():
        assert value == pytest.approx(theirs[user][measure], abs=1e-9), (key, user)
