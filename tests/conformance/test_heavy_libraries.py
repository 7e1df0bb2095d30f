"""Opt-in live checks against the heavy libraries: ``make test-conformance``.

Marked ``conformance`` (deselected by ``make test``). Each test runs the
library itself on random data with every awkward kind of user (unjudged,
judged with grade 0 only, relevant items but no list) and compares with
:func:`topkeval.conventions.evaluate_as`.
"""

from __future__ import annotations

import pytest

from helpers import conventions as L
from helpers.experiments import peers
from tests.library.test_libraries import _check, random_case

pytestmark = pytest.mark.conformance


@pytest.mark.parametrize("seed", [51, 52])
def test_torchmetrics(seed):
    pytest.importorskip("torchmetrics")
    recs, truth = random_case(seed, ties=False, graded=bool(seed % 2), ragged=False)
    for k in (1, 5, 20):
        _check("torchmetrics", recs, truth, k, tol=1e-6)  # torchmetrics computes in float32


def test_torchmetrics_non_positive_scores_and_tied_ndcg():
    pytest.importorskip("torchmetrics")
    recs, truth = random_case(53, ties=False, graded=True, ragged=False)
    _check("torchmetrics", recs.assign(score=recs["score"] - 0.5), truth, 5, tol=1e-6)
    recs, truth = random_case(54, ties=True, graded=True, ragged=False)
    native = peers.run_native("torchmetrics", recs, truth, 5)
    ours = L.evaluate_as("torchmetrics", recs, truth, 5, metrics=["ndcg"])
    assert abs(native["ndcg@5"] - ours["ndcg@5"]) < 1e-6  # tie-averaged; the others' tie order is unspecified


@pytest.mark.parametrize("seed", [61, 62])
def test_recommenders(seed):
    pytest.importorskip("recommenders")
    recs, truth = random_case(seed, ties=True, graded=bool(seed % 2), ragged=True)
    for k in (1, 5, 20):
        _check("recommenders", recs, truth, k)


def test_spark():
    pytest.importorskip("pyspark")
    recs, truth = random_case(71, ties=True, graded=True, ragged=True)
    for k in (1, 5, 20):
        _check("spark", recs, truth, k)
