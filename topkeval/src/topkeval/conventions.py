"""Same name, different numbers: what each library computes, as options of ours.

:data:`CONVENTIONS` is the one table that maps a library and one of our
metrics to the options of :func:`topkeval.evaluate` (and the few pre- and
post-processing steps of :data:`STEPS`) that reproduce the library's number,
with the source file the claim comes from. :data:`NOT_REPRODUCED` lists the
library functions our options cannot express, and why.
:func:`evaluate_as` computes "as library X computes it" for every row.

``python -m topkeval.conventions record`` runs every installed library on the
shared synthetic dataset (:func:`make_dataset`) and stores what each one
printed, next to our numbers, as JSON (a record of what each library computed, for
readers without those libraries installed).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from . import _registry
from ._cutoff import dcg_of, discounts, normalised
from ._validation import (
    CUTOFF,
    Flag,
    InputTypeError,
    Integer,
    InvalidInputError,
    Maybe,
    Metrics,
    OneOf,
    Text,
    column_constraints,
    validate_params,
)

#: A library's name: a key or an alias of :data:`LIBRARIES` (which one is looked up by hand: the aliases).
_LIBRARY = Text(" naming a library of topkeval.conventions.LIBRARIES")

__all__ = [
    "LIBRARIES",
    "CONVENTIONS",
    "NOT_REPRODUCED",
    "WHOLE_LIST",
    "STEPS",
    "Library",
    "Convention",
    "NotReproduced",
    "convention",
    "library_table",
    "evaluate_as",
    "used_by",
    "libraries_using",
]


# ------------------------------------------------------------------ the table
@dataclass(frozen=True)
class Library:
    """A library, the version its row was checked against, and how it orders ties."""

    key: str
    name: str
    checked: str  # version the conventions were read from and run against
    ties: str  # "item_descending", "item_ascending", "input_order" or "given" (takes a ranked list)
    # A library that orders tied scores itself ranks by score: it never reads a rank column (trec_eval and
    # ir_measures skip column 4 of a TREC run; ranx, scikit-learn, torchmetrics, Microsoft Recommenders take
    # scores only). evaluate_as drops a rank column for them whenever a score column is there (see reads()).
    aliases: tuple[str, ...] = ()
    string_ids: bool = False  # ids are compared as strings when ordering ties (trec_eval docnos)
    ties_differ: str = ""  # known difference: when the library's tie order is not ``ties`` (we keep ``ties``)

    @property
    def by_score(self) -> bool:
        """True when the library orders each list by score and ignores any rank column."""
        return self.ties != "given"

    def reads(self) -> str:
        """Which column orders a list for this library, in words (the table's ``order`` column)."""
        if self.by_score:
            known = f"; known difference: {self.ties_differ}" if self.ties_differ else ""
            ties = self.ties.replace("_", " ")
            return f"score, descending, ties {ties}; a rank column is ignored{known}"
        return "the list as given: rank, or score with the ties= you used"


@dataclass(frozen=True)
class Convention:
    """How one library computes one of our metrics, as our options.

    ``users`` says what happens to three kinds of user: ``judged_empty``
    (listed in the truth, but no item has grade > 0), ``unjudged`` (not in
    the truth at all) and ``no_recommendations`` (relevant items but no
    recommended item). Each is ``"zero"`` (counted, scoring 0), ``"skip"``
    (left out of the mean) or ``"raise"`` (the library crashes).
    """

    library: str
    metric: str
    name: str
    options: dict = field(default_factory=dict)
    users: dict = field(default_factory=dict)
    steps: tuple[str, ...] = ()
    evidence: str = ""
    note: str = ""
    default: bool = True  # the library's usual function for this metric; False = a variant


@dataclass(frozen=True)
class NotReproduced:
    """A library function that none of our option sets reproduces, and why."""

    library: str
    metric: str
    name: str
    why: str
    evidence: str


LIBRARIES: dict[str, Library] = {
    lib.key: lib
    for lib in (
        Library(
            "trec_eval",
            "trec_eval / pytrec_eval",
            "pytrec-eval-terrier 0.5.11",
            "item_descending",
            ("pytrec_eval", "pytrec-eval", "pytrec-eval-terrier", "trec-eval"),
            string_ids=True,
        ),
        Library("ir_measures", "ir_measures", "0.4.3", "item_descending", ("ir-measures",), string_ids=True),
        Library(
            "ranx",
            "ranx",
            "0.3.21",
            "input_order",
            # ranx/data_structures/common.py sort_dict_by_value: numba's np.argsort (an unstable quicksort
            # that only insertion-sorts, stably, the partitions under 16 elements)
            ties_differ="ranx keeps input order only in a list of at most 15 documents; in a longer list "
            "numba's unstable quicksort reorders tied scores (40 documents all scored 1.0: the 6th in the "
            "file comes 26th), so its values differ from ours on such runs",
        ),
        Library("sklearn", "scikit-learn", "1.9.1", "average", ("scikit-learn", "scikit_learn")),
        Library("torchmetrics", "torchmetrics", "1.9.0", "average"),
        Library(
            "recommenders",
            "Microsoft Recommenders",
            "1.2.1",
            "input_order",
            ("microsoft_recommenders", "ms_recommenders", "microsoft-recommenders"),
        ),
        Library(
            "spark", "Spark MLlib (PySpark)", "pyspark 4.3.0", "given", ("pyspark", "spark_mllib", "mllib")
        ),
        Library("recbole", "RecBole", "1.2.1", "given"),
        Library("implicit", "implicit", "0.7.3", "given"),
        Library("lenskit", "LensKit", "2025.8.1", "given"),
        Library("cornac", "Cornac", "2.6.0", "given"),
        Library(
            "ml_metrics",
            "ml_metrics (Kaggle)",
            "benhamner/Metrics 9a637aea",
            "given",
            ("ml-metrics", "kaggle"),
        ),
        Library("elliot", "Elliot", "sisinflab/elliot fc27efed", "given"),
    )
}

#: Pre- and post-processing steps a convention may need, with what each does.
STEPS: dict[str, str] = {
    "binary": "grades are ignored: every truth row with grade > 0 counts as grade 1",
    "listed_truth": "a score-matrix API only sees the items you pass, so the truth is cut to each user's "
    "listed items (|R| and the ideal DCG count only those)",
    "positive_scores": "items with score <= 0 count as not retrieved (dropped before ranking)",
    "tie_average": "tied scores share the mean gain of their group (scikit-learn _tie_averaged_dcg)",
    "pooled_capped": "sum of hits over users / sum of min(k, |R|) over users: one pooled ratio, not a mean",
    "mean_p1_to_pk": "the mean of P@1, P@2, ..., P@k (not average precision)",
    "list_length_precision": "hits / min(k, length of the list); an empty list gives NaN (left out)",
    "capped_recall": "hits / min(k, |R|)",
    "lenskit_ap": "sum of P@i at the hit ranks / min(|R|, length of the list cut at k); "
    "an empty list gives NaN",
    "elliot_gain": "gain 2**(grade - t + 1) - 1 with relevance_threshold t = 0: "
    "our exponential gain of grade + 1",
}
"""What each step does, in words; the code of each is a pair of functions in :data:`_STEP_CODE`."""

#: Steps that replace what an option computes, so a row with the step does not use that option's value as is:
#: option -> {step: None (the row uses no value of the option) or how the row differs from the value}.
_STEP_OVERRIDES: dict[str, dict[str, str | None]] = {
    "denominator": {"mean_p1_to_pk": None},
    "gain": {"elliot_gain": "only with relevance_threshold=1; its default 0 gives 2**(grade + 1) - 1"},
}

_ZERO = {"judged_empty": "zero", "unjudged": "zero", "no_recommendations": "zero"}
_TREC = {"judged_empty": "zero", "unjudged": "skip", "no_recommendations": "skip"}
_QRELS = {"judged_empty": "zero", "unjudged": "skip", "no_recommendations": "zero"}
_SKIP = {"judged_empty": "skip", "unjudged": "skip", "no_recommendations": "zero"}
_MATRIX = {"judged_empty": "zero", "unjudged": "zero", "no_recommendations": "skip"}

_N_REL, _MIN, _HITS = (
    {"denominator": "n_relevant"},
    {"denominator": "min_k_n_relevant"},
    {"denominator": "n_hits"},
)
_LIN, _EXP = {"gain": "linear"}, {"gain": "exponential"}


def _c(library, metric, name, options=None, users=_ZERO, steps=(), evidence="", note="", default=True):
    return Convention(
        library, metric, name, dict(options or {}), dict(users), tuple(steps), evidence, note, default
    )


_TE = "usnistgov/trec_eval "
_IRM = "terrierteam/ir_measures "
_RX = "AmenRa/ranx ranx/metrics/"
_TM = "Lightning-AI/torchmetrics src/torchmetrics/functional/retrieval/"
_MSR = "recommenders-team/recommenders recommenders/evaluation/python_evaluation.py"
_SP = "apache/spark mllib/src/main/scala/org/apache/spark/mllib/evaluation/RankingMetrics.scala"
#: Spark's graded NDCG: when it came, and why PySpark does not reach it.
_SP_GRADED = (
    "; graded relevance (ndcgAt only, gain 2**rel - 1) since Spark 3.4.0: SPARK-39446, apache/spark PR "
    "#36843, "
    "and pyspark/mllib/evaluation.py's RankingMetrics docstring ('Since 3.4.0, it supports ndcg evaluation "
    "with "
    "relevance value'); PythonMLLibAPI.scala newRankingMetrics builds Tuple2(row.getSeq(0), row.getSeq(1)), "
    "so from PySpark (checked in the 4.3.0 jar) the relevance column is dropped. "
    "ml.evaluation.RankingEvaluator "
    "takes no relevance at all"
)
_RB = "RUCAIBox/RecBole recbole/evaluator/metrics.py"
_IM = "benfred/implicit implicit/evaluation.pyx (ranking_metrics_at_k)"
_LK = "lenskit/lkpy src/lenskit/metrics/ranking/"
_CN = "PreferredAI/cornac cornac/metrics/ranking.py"
_EL = "sisinflab/elliot elliot/evaluation/metrics/accuracy/"

CONVENTIONS: tuple[Convention, ...] = (
    # trec_eval / pytrec_eval: a query is scored only if it is in both the qrels and the run
    _c("trec_eval", "precision", "P.k", {}, _TREC, (), _TE + "m_P.c"),
    _c("trec_eval", "recall", "recall.k", {}, _TREC, (), _TE + "m_recall.c"),
    _c("trec_eval", "hit", "success.k", {}, _TREC, (), _TE + "m_success.c"),
    _c(
        "trec_eval",
        "rr",
        "recip_rank on the run cut at k",
        {},
        _TREC,
        (),
        _TE + "m_recip_rank.c",
        "recip_rank has no cutoff: it equals RR@k only on a run truncated to the top k",
    ),
    _c("trec_eval", "ap", "map_cut.k", _N_REL, _TREC, (), _TE + "m_map_cut.c"),
    _c("trec_eval", "ndcg", "ndcg_cut.k", {**_LIN, "ideal": "all"}, _TREC, (), _TE + "m_ndcg_cut.c"),
    # ir_measures: pytrec_eval underneath, but a qrels query missing from the run scores 0
    _c("ir_measures", "precision", "P@k", {}, _QRELS, (), _IRM + "providers/pytrec_eval_provider.py"),
    _c("ir_measures", "recall", "R@k", {}, _QRELS, (), _IRM + "providers/pytrec_eval_provider.py"),
    _c("ir_measures", "hit", "Success@k", {}, _QRELS, (), _IRM + "providers/pytrec_eval_provider.py"),
    _c(
        "ir_measures",
        "rr",
        "RR@k",
        {},
        _QRELS,
        (),
        _IRM + "providers/msmarco_provider.py",
        "RR@k goes to the msmarco provider, which orders ties by ascending docid (RR without k: trec_eval)",
    ),
    _c("ir_measures", "ap", "AP@k", _N_REL, _QRELS, (), _IRM + "providers/pytrec_eval_provider.py"),
    _c("ir_measures", "ndcg", "nDCG@k", _LIN, _QRELS, (), _IRM + "providers/pytrec_eval_provider.py"),
    _c(
        "ir_measures",
        "ndcg",
        "nDCG(dcg='exp-log2')@k",
        _EXP,
        _QRELS,
        (),
        _IRM + "providers/ranx_provider.py",
        "served by the ranx provider (gdeval failed to run)",
        default=False,
    ),
    # ranx with make_comparable=True
    _c("ranx", "precision", "precision@k", {}, _QRELS, (), _RX + "precision.py"),
    _c("ranx", "recall", "recall@k", {}, _QRELS, (), _RX + "recall.py"),
    _c("ranx", "hit", "hit_rate@k", {}, _QRELS, (), _RX + "hit_rate.py"),
    _c(
        "ir_measures",
        "err",
        "ERR@k",
        {"max_grade": 4},
        _QRELS,
        (),
        _IRM + "providers/gdeval_provider.py; ir_measures/bin/gdeval.pl (TREC 2010 Web track script: "
        "$MAX_JUDGMENT = 4, R = (2**g - 1) / 2**4 for g_max = 4 whatever the grades, ERR over the first k "
        "documents; runOrder sorts by score, ties by docno descending)",
        "gdeval: g_max fixed at 4 (a qrels grade above 4 is a format error), gain 2**g - 1, cutoff k; it "
        "prints "
        "5 decimals and needs numeric query ids",
    ),
    _c(
        "ranx",
        "rr",
        "mrr@k",
        {},
        _QRELS,
        (),
        _RX + "reciprocal_rank.py",
        "the docstring says k is ignored; the code cuts at k",
    ),
    _c("ranx", "ap", "map@k", _N_REL, _QRELS, (), _RX + "average_precision.py"),
    _c("ranx", "ndcg", "ndcg@k", _LIN, _QRELS, (), _RX + "ndcg.py"),
    _c("ranx", "ndcg", "ndcg_burges@k", _EXP, _QRELS, (), _RX + "ndcg.py", default=False),
    # scikit-learn: one row per user of the score matrix
    _c(
        "sklearn",
        "ndcg",
        "ndcg_score(k=k)",
        {**_LIN, "ideal": "listed"},
        _MATRIX,
        ("listed_truth", "tie_average"),
        "scikit-learn sklearn/metrics/_ranking.py (_ndcg_sample_scores, _tie_averaged_dcg)",
        "ignore_ties=True turns the tie averaging off",
    ),
    # torchmetrics: retrieval_* per query, mean over queries, empty_target_action='neg'
    _c(
        "torchmetrics",
        "precision",
        "RetrievalPrecision(top_k=k)",
        {},
        _MATRIX,
        ("listed_truth", "positive_scores"),
        _TM + "precision.py",
    ),
    _c(
        "torchmetrics",
        "recall",
        "RetrievalRecall(top_k=k)",
        {},
        _MATRIX,
        ("listed_truth", "positive_scores"),
        _TM + "recall.py",
    ),
    _c(
        "torchmetrics",
        "hit",
        "RetrievalHitRate(top_k=k)",
        {},
        _MATRIX,
        ("listed_truth",),
        _TM + "hit_rate.py",
    ),
    _c(
        "torchmetrics",
        "rr",
        "RetrievalMRR(top_k=k)",
        {},
        _MATRIX,
        ("listed_truth", "positive_scores"),
        _TM + "reciprocal_rank.py",
    ),
    _c(
        "torchmetrics",
        "ap",
        "RetrievalMAP(top_k=k)",
        _HITS,
        _MATRIX,
        ("listed_truth", "positive_scores"),
        _TM + "average_precision.py",
    ),
    _c(
        "torchmetrics",
        "ndcg",
        "RetrievalNormalizedDCG(top_k=k)",
        {**_LIN, "ideal": "listed"},
        _MATRIX,
        ("listed_truth", "tie_average"),
        _TM + "ndcg.py",
    ),
    # Microsoft Recommenders: P, R, MAP over users in both frames; NDCG over every user of rating_true
    _c("recommenders", "precision", "precision_at_k", {}, _SKIP | {"no_recommendations": "skip"}, (), _MSR),
    _c("recommenders", "recall", "recall_at_k", {}, _SKIP | {"no_recommendations": "skip"}, (), _MSR),
    _c(
        "recommenders",
        "ap",
        "map_at_k",
        _MIN,
        _SKIP | {"no_recommendations": "skip"},
        (),
        _MSR,
        "divided by |R| before 1.2.0 (PR #2004)",
    ),
    _c("recommenders", "ap", "map", _N_REL, _SKIP | {"no_recommendations": "skip"}, (), _MSR, default=False),
    _c(
        "recommenders",
        "ndcg",
        "ndcg_at_k (score_type='binary')",
        {},
        _SKIP,
        ("binary",),
        _MSR,
        "score_type='raw' is linear gain, 'exp' exponential",
    ),
    _c("recommenders", "ndcg", "ndcg_at_k (score_type='exp')", _EXP, _SKIP, (), _MSR, default=False),
    # Spark MLlib RankingMetrics (PySpark drops the relevance column)
    _c("spark", "precision", "precisionAt(k)", {}, _ZERO, (), _SP),
    _c("spark", "recall", "recallAt(k)", {}, _ZERO, (), _SP),
    _c("spark", "ap", "meanAveragePrecisionAt(k)", _MIN, _ZERO, (), _SP),
    _c("spark", "ndcg", "ndcgAt(k)", {}, _ZERO, ("binary",), _SP + _SP_GRADED),
    # RecBole
    _c("recbole", "precision", "Precision", {}, _SKIP, (), _RB),
    _c("recbole", "recall", "Recall", {}, _SKIP, (), _RB),
    _c("recbole", "hit", "Hit", {}, _SKIP, (), _RB),
    _c("recbole", "rr", "MRR", {}, _SKIP, (), _RB),
    _c("recbole", "ap", "MAP", _MIN, _SKIP, (), _RB),
    _c("recbole", "ndcg", "NDCG", {}, _SKIP, ("binary",), _RB),
    # implicit
    _c(
        "implicit",
        "precision",
        "ranking_metrics_at_k()['precision']",
        {},
        _SKIP,
        ("pooled_capped",),
        _IM,
        "not P@k: a recall capped at k and pooled over users (issues #158, #412, #713)",
    ),
    _c("implicit", "ap", "ranking_metrics_at_k()['map']", _MIN, _SKIP, (), _IM),
    _c("implicit", "ndcg", "ranking_metrics_at_k()['ndcg']", {}, _SKIP, ("binary",), _IM),
    # LensKit 2025: NaN (left out by the mean) for users without test items, except Precision
    _c(
        "lenskit",
        "precision",
        "Precision(n=k)",
        {},
        _ZERO | {"no_recommendations": "skip"},
        ("list_length_precision",),
        _LK + "_pr.py",
    ),
    _c(
        "lenskit",
        "recall",
        "Recall(n=k)",
        {},
        {**_SKIP, "unjudged": "skip"},
        ("capped_recall",),
        _LK + "_pr.py",
    ),
    _c("lenskit", "hit", "Hit(n=k)", {}, _SKIP, (), _LK + "_hit.py"),
    _c("lenskit", "rr", "RecipRank(n=k)", {}, _SKIP, (), _LK + "_recip.py"),
    _c(
        "lenskit",
        "ap",
        "AveragePrecision(k=k)",
        {},
        {"judged_empty": "raise", "unjudged": "raise", "no_recommendations": "skip"},
        ("lenskit_ap",),
        _LK + "_map.py",
        "raises ZeroDivisionError for a user with no test item",
    ),
    _c(
        "lenskit",
        "ndcg",
        "NDCG(n=k)",
        {"discount": "clipped_log2"},
        _SKIP,
        ("binary",),
        _LK + "_dcg.py, _weighting.py (LogRankWeight clips by default)",
    ),
    _c(
        "lenskit",
        "ndcg",
        "NDCG(n=k, weight=LogRankWeight(offset=1))",
        {},
        _SKIP,
        ("binary",),
        _LK + "_weighting.py",
        default=False,
    ),
    _c(
        "lenskit",
        "rbp",
        "RBP(n=k)",
        {"p": 0.85},
        _SKIP,
        (),
        _LK + "_rbp.py (patience=0.85, normalize=False: the sum of the hits' weights over "
        "GeometricRankWeight.series_sum() = 1/(1 - p)), _weighting.py (GeometricRankWeight: p**(rank - 1)), "
        "tag v2025.8.1",
        "Moffat and Zobel's RBP with LensKit's default patience 0.85 (ours: 0.8); NaN for a user with no "
        "test "
        "item",
    ),
    # Cornac (its evaluator skips users without test positives)
    _c("cornac", "precision", "Precision(k)", {}, _SKIP, (), _CN),
    _c("cornac", "recall", "Recall(k)", {}, _SKIP, (), _CN),
    _c("cornac", "hit", "HitRatio(k)", {}, _SKIP, (), _CN),
    _c("cornac", "ndcg", "NDCG(k)", {}, _SKIP, ("binary",), _CN),
    # ml_metrics (Kaggle)
    _c(
        "ml_metrics",
        "ap",
        "mapk(actual, predicted, k)",
        _MIN,
        _ZERO,
        (),
        "benhamner/Metrics Python/ml_metrics/average_precision.py",
        "apk returns 0 for an empty actual list",
    ),
    # Elliot (skips users with no relevant item)
    _c("elliot", "precision", "Precision", {}, _SKIP, (), _EL + "precision/precision.py"),
    _c("elliot", "recall", "Recall", {}, _SKIP, (), _EL + "recall/recall.py"),
    _c("elliot", "hit", "HR", {}, _SKIP, (), _EL + "hit_rate/hit_rate.py"),
    _c("elliot", "rr", "MRR", {}, _SKIP, (), _EL + "mrr/mrr.py"),
    _c(
        "elliot",
        "ap",
        "MAP",
        {},
        _SKIP,
        ("mean_p1_to_pk",),
        _EL + "map/map.py",
        "its docstring gives the min(m, N)-normalised AP; the code averages P@1..P@k",
    ),
    _c(
        "elliot",
        "ndcg",
        "nDCG",
        _EXP,
        _SKIP,
        ("elliot_gain",),
        _EL + "ndcg/ndcg.py; elliot/evaluation/relevance/relevance.py; elliot/run.py (relevance_threshold 0)",
    ),
    _c(
        "elliot",
        "ndcg",
        "nDCGRendle2020",
        {},
        _SKIP,
        ("binary",),
        _EL + "ndcg/ndcg_rendle2020.py",
        default=False,
    ),
)

#: Metrics a library computes as topkeval defines them over a whole list, which :data:`CONVENTIONS` has no
#: row for (its rows are compared at a cutoff k): the command line and :func:`topkeval.trec.evaluate_run`
#: score them with topkeval's definition under the library's order of ties and its rules for which
#: queries count (trec_eval's ``rbp``, ``Rprec`` and ``bpref``; ir_measures' ``Rprec`` and ``Bpref``).
WHOLE_LIST: dict[str, tuple[str, ...]] = {
    "trec_eval": ("rbp", "rprec", "bpref"),
    "ir_measures": ("rprec", "bpref"),
}

NOT_REPRODUCED: tuple[NotReproduced, ...] = (
    NotReproduced(
        "trec_eval",
        "ndcg",
        "ndcg (no cutoff) with rel=gain mappings",
        "no cutoff and a user-chosen gain table per grade; use k = the list length and map your grades "
        "to gains first",
        _TE + "m_ndcg.c",
    ),
    NotReproduced(
        "sklearn",
        "ap",
        "average_precision_score / label_ranking_average_precision_score",
        "no cutoff: the whole score row is ranked; LRAP also scores 1.0 for a row with no positive",
        "scikit-learn sklearn/metrics/_ranking.py",
    ),
    NotReproduced(
        "sklearn",
        "hit",
        "top_k_accuracy_score",
        "a classification score: one true label per row, so it is HR@k only in leave-one-out",
        "scikit-learn sklearn/metrics/_ranking.py",
    ),
    NotReproduced(
        "spark",
        "ndcg",
        "ndcgAt(k) with graded labels (Scala only)",
        "the ideal DCG takes the labels in the order you give them, not sorted, so it is not a "
        "normaliser of any ordering; PySpark drops the grades anyway",
        _SP + _SP_GRADED,
    ),
    NotReproduced(
        "spark",
        "precision",
        "precisionAt / recallAt / meanAveragePrecisionAt on lists with repeats",
        "Spark counts a repeated item again (P, R and AP can exceed 1); our functions reject a ranking "
        "with duplicates by design",
        _SP,
    ),
    NotReproduced(
        "spark",
        "ap",
        "meanAveragePrecision (no k)",
        "no cutoff; equal to ours with denominator='n_relevant' and k = the longest list",
        _SP,
    ),
    NotReproduced(
        "lenskit",
        "precision",
        "any metric on lists with repeats",
        "LensKit counts a repeated item again; our functions reject duplicates",
        _LK + "_pr.py",
    ),
    NotReproduced(
        "lenskit",
        "rbp",
        "RBP(n=k, normalize=True)",
        "divides by the RBP of min(|R|, list length) hits at the top, which LensKit marks experimental; "
        "ours is "
        "Moffat and Zobel's unnormalised RBP",
        _LK + "_rbp.py",
    ),
    NotReproduced("cornac", "rr", "MRR()", "no cutoff, and it raises ValueError when no item is hit", _CN),
    NotReproduced("cornac", "ap", "MAP()", "no cutoff: LRAP-style over every scored item", _CN),
    NotReproduced(
        "ml_metrics",
        "ap",
        "apk with repeated predictions",
        "apk skips a repeated prediction; our functions reject duplicates instead",
        "benhamner/Metrics Python/ml_metrics/average_precision.py",
    ),
    NotReproduced(
        "recbole",
        "ndcg",
        "NDCG with graded relevance",
        "RecBole's NDCG is binary only; grades are ignored (reproduced as such with step 'binary')",
        _RB,
    ),
    NotReproduced(
        "torchmetrics",
        "precision",
        "RetrievalPrecision(adaptive_k=True)",
        "divides by min(k, number of candidates passed); only differs when fewer than k are passed",
        _TM + "precision.py",
    ),
)


# ------------------------------------------------------------------ lookups
def _library_key(library: Any) -> str:
    if not isinstance(library, str):
        raise InputTypeError(f"library must be a str naming a library; got {type(library).__name__}.")
    wanted = library.strip().lower().replace("-", "_")
    for lib in LIBRARIES.values():
        if wanted == lib.key or wanted in {a.lower().replace("-", "_") for a in lib.aliases}:
            return lib.key
    names = ", ".join(repr(k) for k in LIBRARIES)
    raise InvalidInputError(f"unknown library {library!r}; supported libraries are {names}.")


def supported_metrics(library: str) -> tuple[str, ...]:
    """Our metric keys that ``library`` computes and :func:`evaluate_as` reproduces.

    >>> supported_metrics("spark")
    ('precision', 'recall', 'ap', 'ndcg')
    """
    key = _library_key(library)
    have = {c.metric for c in CONVENTIONS if c.library == key}
    return tuple(m for m in _registry.metric_keys() if m in have)


@validate_params({"library": _LIBRARY, "variant": Maybe(Text())})
def convention(library: str, metric: str, variant: str | None = None) -> Convention:
    """The table row for ``library`` and ``metric`` (its usual function, or ``variant``).

    Raises ValueError, listing what is supported, for an unknown library, a
    metric the library does not compute, or a function we do not reproduce.

    Parameters
    ----------
    library : str
        A key of :data:`LIBRARIES` or an alias (``"pytrec_eval"``).
    metric : str
        A metric name, as in :func:`topkeval.evaluate`'s ``metrics``.
    variant : str, optional
        The library function's name, for a row that is not its usual one.

    Returns
    -------
    Convention
        The row: the library's function name, our options, its steps and evidence.

    Examples
    --------
    >>> convention("ranx", "ap").options
    {'denominator': 'n_relevant'}
    >>> convention("ranx", "ndcg", "ndcg_burges@k").options
    {'gain': 'exponential'}
    """
    key = _library_key(library)
    metric = _check_metric(metric)
    rows = [c for c in CONVENTIONS if c.library == key and c.metric == metric]
    if not rows:
        raise _not_reproduced(key, metric)
    if variant is None:
        return next(c for c in rows if c.default)
    return _variant(rows, key, metric, variant)


def _not_reproduced(key: str, metric: str) -> InvalidInputError:
    gaps = [n for n in NOT_REPRODUCED if n.library == key and n.metric == metric]
    why = f" ({gaps[0].name}: {gaps[0].why})" if gaps else ""
    return InvalidInputError(
        f"{LIBRARIES[key].name} has no {metric!r} we can reproduce{why}; for {key!r} the supported metrics "
        f"are {', '.join(repr(m) for m in supported_metrics(key))}."
    )


def _variant(rows: list[Convention], key: str, metric: str, variant: str) -> Convention:
    for c in rows:
        if c.name == variant:
            return c
    raise InvalidInputError(
        f"unknown variant {variant!r} of {key!r} {metric!r}; "
        f"choose one of {', '.join(repr(c.name) for c in rows)}."
    )


def _check_metric(metric: Any) -> str:
    from ._validation import check_metric

    return check_metric(metric)


@validate_params({"defaults_only": Flag()})
def library_table(defaults_only: bool = True) -> pd.DataFrame:
    """The table as a DataFrame: one row per library and metric, with our options.

    Rows that we do not reproduce say so in ``reproduced`` and ``why``.

    Parameters
    ----------
    defaults_only : bool
        True (default): each library's usual function only. False: its variants
        too, and the functions we do not reproduce.

    Returns
    -------
    pandas.DataFrame
        Indexed by (library, metric).

    Examples
    --------
    >>> t = library_table()
    >>> t.loc[("lenskit", "ndcg"), "options"]
    "discount='clipped_log2'"
    >>> sorted(set(t.index.get_level_values("library"))) == sorted(LIBRARIES)
    True
    """
    rows = [_table_row(c) for c in CONVENTIONS if c.default or not defaults_only]
    if not defaults_only:
        rows += [_gap_row(n) for n in NOT_REPRODUCED]
    frame = pd.DataFrame(rows)
    order = {m: i for i, m in enumerate(_registry.metric_keys())}
    libs = {k: i for i, k in enumerate(LIBRARIES)}
    frame = frame.sort_values(
        ["library", "metric", "reproduced"],
        key=lambda s: s.map(libs if s.name == "library" else order if s.name == "metric" else lambda v: v),
        kind="stable",
    )
    return frame.set_index(["library", "metric"])


def _table_row(c: Convention) -> dict[str, Any]:
    """One reproduced row of :func:`library_table`."""
    return {
        "library": c.library,
        "metric": c.metric,
        "function": c.name,
        "reproduced": True,
        "options": ", ".join(f"{k}={v!r}" for k, v in c.options.items()) or "defaults",
        "steps": ", ".join(c.steps),
        "no relevant item": c.users["judged_empty"],
        "not in truth": c.users["unjudged"],
        "no recommendations": c.users["no_recommendations"],
        "ties": LIBRARIES[c.library].ties,
        "order": LIBRARIES[c.library].reads(),
        "evidence": c.evidence,
        "why": c.note,
    }


def _gap_row(n: NotReproduced) -> dict[str, Any]:
    """One not-reproduced row of :func:`library_table`."""
    blank = dict.fromkeys(
        ("options", "steps", "no relevant item", "not in truth", "no recommendations", "ties", "order"), ""
    )
    return {
        "library": n.library,
        "metric": n.metric,
        "function": n.name,
        "reproduced": False,
        **blank,
        "evidence": n.evidence,
        "why": n.why,
    }


# ------------------------------------------------------------------ evaluate_as
@validate_params(
    {
        "library": _LIBRARY,
        "k": Integer(1, CUTOFF),
        "metrics": Metrics(),
        "per_user": Flag(),
        "crash": OneOf("crash", ("raise", "skip")),
        "ties": Maybe(OneOf("ties")),
        **column_constraints("user_col", "item_col", "rank_col", "score_col", "relevance_col"),
    }
)
def evaluate_as(
    library: str,
    recommendations: pd.DataFrame,
    truth: pd.DataFrame,
    k: int,
    *,
    metrics: Any = None,
    variants: dict | None = None,
    per_user: bool = False,
    crash: str = "raise",
    ties: str | None = None,
    user_col: str = "user",
    item_col: str = "item",
    rank_col: str = "rank",
    score_col: str = "score",
    relevance_col: str = "relevance",
):
    """The numbers ``library`` reports for these recommendations, via our options.

    Parameters
    ----------
    library : str
        A key of :data:`LIBRARIES` (or an alias such as ``"pytrec_eval"``).
    recommendations, truth : pandas.DataFrame
        As in :func:`topkeval.evaluate`. Give every candidate the library
        would see: for score-matrix APIs (scikit-learn, torchmetrics) that is
        every scored column, including score-0 ones.
    k : int
        The cutoff.
    metrics : list of str, optional
        Our metric keys; default every metric the library has among those
        :func:`topkeval.evaluate` computes by default (ERR and RBP only on
        request, as there).
    variants : dict, optional
        ``{metric: function name}`` to use a non-default row of the table,
        e.g. ``{"ap": "map"}`` for Microsoft Recommenders' ``map``.
    per_user : bool
        False (default): a Series of the library's aggregate numbers. True: a
        DataFrame, one row per user, NaN where the library leaves a user out.
    crash : {"raise", "skip"}
        Where the library itself crashes (LensKit's AveragePrecision on a
        user with no test item), raise a ValueError (default) or leave the
        user out, which is what catching the crash per user gives.
    ties : str, optional
        Only for libraries that take an already ranked list ("given" in
        :data:`LIBRARIES`): how you ordered tied scores. Default
        ``"input_order"``. Other libraries use their own rule.
    user_col, item_col, rank_col, score_col, relevance_col : str
        Column names, as in :func:`topkeval.evaluate`.

    Returns
    -------
    pandas.Series or pandas.DataFrame
        Index (or columns) ``<metric>@<k>``.

    Notes
    -----
    A library that orders lists by score itself (every library whose
    ``ties`` in :data:`LIBRARIES` is not ``"given"``: trec_eval and
    ir_measures ignore the rank column of a TREC run) is given the scores
    only: with both a rank and a score column, the rank column is dropped.
    Each metric is computed by :func:`topkeval.evaluate` with the options of
    its :data:`CONVENTIONS` row and ``empty="zero"``; then the users the
    library leaves out are set to NaN, and the :data:`STEPS` are applied.
    The mean skips NaN, except for implicit's pooled "precision".

    Examples
    --------
    >>> import pandas as pd
    >>> recs = pd.DataFrame({"user": [1] * 5, "item": list("abcde"), "rank": range(1, 6)})
    >>> truth = pd.DataFrame({"user": [1] * 3, "item": ["b", "d", "z"]})
    >>> float(evaluate_as("trec_eval", recs, truth, k=5, metrics=["ap"])["ap@5"])
    0.3333
    >>> float(evaluate_as("torchmetrics", recs.assign(score=[5, 4, 3, 2, 1]).drop(columns="rank"),
    ...                   truth, k=5, metrics=["ap"])["ap@5"])  # z is not a column: |R| = 2
    0.5
    >>> evaluate_as("cornac", recs, truth, k=5, metrics=["rr"])
    Traceback (most recent call last):
    ...
    topkeval.InvalidInputError: Cornac has no 'rr' we can reproduce (MRR(): no cutoff, and it raises \
ValueError when no item is hit); for 'cornac' the supported metrics are 'precision', 'recall', 'hit', 'ndcg'.
    """
    key = _library_key(library)
    lib = LIBRARIES[key]
    rows = _rows_asked(key, metrics, variants)
    ties = _ties_given(lib, ties)
    cols = dict(
        user_col=user_col,
        item_col=item_col,
        rank_col=rank_col,
        score_col=score_col,
        relevance_col=relevance_col,
    )
    base = _Inputs(recommendations, truth, cols, string_ids=lib.string_ids, by_score=lib.by_score)
    columns = {}
    for row in rows:
        columns[f"{row.metric}@{k}"] = _one_metric(row, base, k, lib, ties, crash, per_user)
    if per_user:
        frame = pd.DataFrame({name: col[0] for name, col in columns.items()})
        frame.index.name = user_col
        frame.attrs["library"] = key
        return frame
    out = pd.Series({name: col[1] for name, col in columns.items()}, name=key, dtype=float)
    return out


def _rows_asked(key: str, metrics: Any, variants: dict | None) -> list[Convention]:
    """The table rows of ``metrics`` (default: the library's metrics that :func:`topkeval.evaluate` computes
    by default), with the variants asked for."""
    if metrics is None:
        metrics = [m for m in supported_metrics(key) if _registry.METRICS[m].by_default]
    elif isinstance(metrics, str):
        metrics = [metrics]
    variants = dict(variants or {})
    rows = [convention(key, m, variants.pop(m, None)) for m in dict.fromkeys(metrics)]
    if variants:
        raise InvalidInputError(f"variants names metric(s) not asked for: {', '.join(map(repr, variants))}.")
    return rows


def _ties_given(lib: Library, ties: str | None) -> str | None:
    """How the caller ordered tied scores (libraries that take a ranked list),
    or None (the library's own rule)."""
    from ._validation import check_options

    if lib.ties == "given":
        return check_options(ties=ties or "input_order")["ties"]
    if ties is not None:
        raise InvalidInputError(f"{lib.name} orders tied scores itself ({lib.ties}); leave ties=None.")
    return None


class _Inputs:
    """The two frames, plus who is judged, who has relevant items, who has a list."""

    def __init__(self, recs, truth, cols, string_ids, by_score=False):
        from ._validation import check_columns

        u, i = cols["user_col"], cols["item_col"]
        check_columns(recs, "recommendations", [u, i])
        check_columns(truth, "truth", [u, i])
        self.cols, self.u, self.i = cols, u, i
        recs, truth = recs.copy(), truth.copy()
        if by_score and cols["score_col"] in recs.columns and cols["rank_col"] in recs.columns:
            recs = recs.drop(columns=cols["rank_col"])  # the library orders by score: its rank is unread
        if string_ids:  # trec_eval compares docnos as strings when it orders ties
            recs[i], truth[i] = recs[i].astype(str), truth[i].astype(str)
        self.recs, self.truth = recs, truth
        rel = (
            truth[cols["relevance_col"]] > 0
            if cols["relevance_col"] in truth.columns
            else pd.Series(True, index=truth.index)
        )
        self.judged = set(truth[u])
        self.relevant_users = set(truth.loc[rel, u])
        self.listed = set(recs[u])
        self.users = pd.Index(sorted(self.judged | self.listed, key=_sort_key), name=u)

    def truth_binary(self):
        t = self.truth
        r = self.cols["relevance_col"]
        if r in t.columns:
            t = t.loc[t[r] > 0].drop(columns=r)
        return t

    def truth_listed(self, truth):
        pairs = self.recs[[self.u, self.i]].drop_duplicates()
        return truth.merge(pairs, on=[self.u, self.i], how="inner")


def _sort_key(value):
    return (type(value).__name__, value)


class _Run:
    """One metric of one library being reproduced: its inputs, then its per-user values."""

    def __init__(self, row: Convention, base: _Inputs, k: int, rule: str):
        self.row, self.base, self.k, self.rule = row, base, k, rule
        self.cols = base.cols
        self.recs, self.truth = base.recs, base.truth
        self.options = dict(row.options)
        self.metric, self.ks = row.metric, [k]
        self.need_hits = False
        self.scores: pd.DataFrame = pd.DataFrame()
        self.value: pd.Series = pd.Series(dtype=float)
        self.hits: pd.Series = pd.Series(dtype=float)
        self.weight: pd.Series | None = None  # set by the pooled and capped steps

    @property
    def by_score(self) -> bool:
        return self.cols["score_col"] in self.recs.columns and self.cols["rank_col"] not in self.recs.columns

    def n_relevant(self) -> pd.Series:
        truth, r = self.truth, self.cols["relevance_col"]
        if r in truth.columns:
            truth = truth.loc[truth[r] > 0]
        return truth.groupby(self.base.u).size().reindex(self.base.users, fill_value=0).astype(float)

    def list_length(self) -> pd.Series:
        sizes = self.recs.groupby(self.base.u).size().reindex(self.base.users, fill_value=0)
        return sizes.clip(upper=self.k).astype(float)


# ---- each step: a change to the inputs (before) or to the per-user values (after)
def _binary(run: _Run) -> None:
    run.truth = run.base.truth_binary()


def _listed_truth(run: _Run) -> None:
    run.truth = run.base.truth_listed(run.truth)


def _elliot_gain(run: _Run) -> None:
    r = run.cols["relevance_col"]
    if r in run.truth.columns:
        judged = run.truth.loc[run.truth[r] > 0]
        run.truth = judged.assign(**{r: judged[r] + 1.0})


def _positive_scores(run: _Run) -> None:
    if run.by_score:
        run.recs = run.recs.loc[run.recs[run.cols["score_col"]] > 0]


def _needs_hits(run: _Run) -> None:
    run.need_hits = True


def _mean_p1_to_pk_before(run: _Run) -> None:
    """Ask for P@1..P@L only, L the longest list (beyond it P@j = hits / j), and P@k."""
    longest = int(run.recs.groupby(run.base.u).size().max()) if len(run.recs) else 0
    run.metric, run.ks = "precision", sorted({*range(1, min(run.k, longest) + 1), run.k})


def _lenskit_ap_before(run: _Run) -> None:
    run.options["denominator"] = "n_relevant"


def _mean_p1_to_pk(run: _Run) -> None:
    """The mean of P@1..P@k: the listed cutoffs from the columns, the rest as hits * (1/(L+1) + ... + 1/k)."""
    listed = [j for j in run.ks if j < run.k or len(run.ks) == run.k]
    total = run.scores[[f"precision@{j}" for j in listed]].sum(axis=1)
    if len(listed) < run.k:  # cutoffs L+1..k: no list reaches them, so P@j = hits / j
        hits = run.scores[f"precision@{run.k}"] * run.k
        total = total + hits * _harmonic_span(max(listed, default=0), run.k)
    run.value = total / run.k


def _harmonic_span(low: int, high: int) -> float:
    """1/(low + 1) + ... + 1/high, summed directly up to a million terms, else by the asymptotic series.

    >>> round(_harmonic_span(0, 4), 6), round(_harmonic_span(10, 10**9) - _harmonic_span(10, 10**8), 9)
    (2.083333, 2.302585088)
    """
    if high - low <= 1_000_000:
        return float(np.sum(1.0 / np.arange(low + 1, high + 1, dtype=np.float64)))

    def harmonic(n: int) -> float:  # H_n = ln n + gamma + 1/(2n) - 1/(12n^2) + 1/(120n^4), n > 10^6 here
        return math.log(n) + 0.5772156649015329 + 1 / (2 * n) - 1 / (12 * n**2) + 1 / (120 * n**4)

    head = _harmonic_span(low, 1_000_000) if low < 1_000_000 else 0.0
    return head + harmonic(high) - harmonic(max(low, 1_000_000))


def _capped(run: _Run) -> None:
    run.weight = np.minimum(run.n_relevant(), run.k)
    run.value = run.hits / run.weight  # users with no relevant item stay inf/NaN until the user rules apply


def _list_length_precision(run: _Run) -> None:
    run.value = _finite(run.hits / run.list_length())


def _lenskit_ap(run: _Run) -> None:
    n_rel = run.n_relevant()
    run.value = _finite(run.value * n_rel / np.minimum(n_rel, run.list_length()))


def _tie_average(run: _Run) -> None:
    if run.by_score:
        run.value = _tie_averaged_ndcg(run.value, run.recs, run.truth, run.k, run.cols)


def _finite(values: pd.Series) -> pd.Series:
    """0/0 and x/0 (an empty list, or no relevant item) become NaN: left out of the mean."""
    return values.where(np.isfinite(values), np.nan)


#: step name -> (before evaluate, after evaluate); the words for each are in STEPS.
_STEP_CODE: dict[str, tuple] = {
    "binary": (_binary, None),
    "listed_truth": (_listed_truth, None),
    "elliot_gain": (_elliot_gain, None),
    "positive_scores": (_positive_scores, None),
    "mean_p1_to_pk": (_mean_p1_to_pk_before, _mean_p1_to_pk),
    "pooled_capped": (_needs_hits, _capped),
    "capped_recall": (_needs_hits, _capped),
    "list_length_precision": (_needs_hits, _list_length_precision),
    "lenskit_ap": (_lenskit_ap_before, _lenskit_ap),
    "tie_average": (None, _tie_average),
}
#: The order the steps run in, whatever order a table row lists them in.
_STEP_ORDER = tuple(_STEP_CODE)


def _tie_rule(row: Convention, lib: Library, ties: str | None) -> str:
    """How ``evaluate`` orders tied scores to mimic the library."""
    if row.library == "ir_measures" and row.metric == "rr":
        return "item_ascending"  # msmarco provider: (-score, docid)
    return {
        "item_descending": "item_descending",
        "item_ascending": "item_ascending",
        "input_order": "input_order",
        "average": "input_order",
        "given": ties or "input_order",
    }[lib.ties]


def _one_metric(row: Convention, base: _Inputs, k: int, lib: Library, ties, crash, per_user):
    from .batch import evaluate  # lazily: the registry's docstrings read this module while batch loads

    run = _Run(row, base, k, _tie_rule(row, lib, ties))
    steps = [name for name in _STEP_ORDER if name in row.steps]
    _run_steps(run, steps, 0)
    need = [run.metric] + (["precision"] if run.need_hits else [])
    run.scores = evaluate(
        run.recs,
        run.truth,
        run.ks,
        metrics=list(dict.fromkeys(need)),
        empty="zero",
        ties=run.rule,
        **run.options,
        **run.cols,
    ).reindex(base.users, fill_value=0.0)
    run.value = run.scores[f"{run.metric}@{k}"].astype(float)
    if run.need_hits:
        run.hits = (run.scores[f"precision@{k}"] * k).round()
    _run_steps(run, steps, 1)
    keep = _apply_user_rules(run, crash)
    if run.weight is not None and "pooled_capped" in steps:
        return run.value, _pooled(run, run.weight, keep)
    return run.value, float(run.value.mean()) if run.value.notna().any() else float("nan")


def _run_steps(run: _Run, steps: list[str], phase: int) -> None:
    """Run each step's code before (phase 0) or after (phase 1) evaluate."""
    for name in steps:
        code = _STEP_CODE[name][phase]
        if code:
            code(run)


def _pooled(run: _Run, weight: pd.Series, keep: np.ndarray) -> float:
    """implicit's pooled ratio: the sum of hits over the kept users / the sum of their weights."""
    w = weight.where(keep & (weight > 0), np.nan)
    if not np.nansum(w) > 0:
        return float("nan")
    return float(np.nansum(run.hits.where(w.notna()))) / float(np.nansum(w))


def _apply_user_rules(run: _Run, crash: str) -> np.ndarray:
    """Zero, skip (NaN) or refuse the kinds of users the library treats specially; return who is kept."""
    base, row = run.base, run.row
    has_rel = base.users.isin(list(base.relevant_users))
    judged = base.users.isin(list(base.judged))
    listed = base.users.isin(list(base.listed))
    kinds = {"judged_empty": ~has_rel & judged, "unjudged": ~judged, "no_recommendations": ~listed}
    keep = np.ones(len(base.users), dtype=bool)
    for kind, mask in kinds.items():
        rule = row.users[kind]
        if rule == "raise" and mask.any():
            if crash == "raise":
                names = ", ".join(repr(x) for x in base.users[mask][:3])
                raise InvalidInputError(
                    f"{LIBRARIES[row.library].name} {row.name} crashes on users like {names} "
                    f"({kind.replace('_', ' ')}"
                    f": {row.note or 'the library raises'}); pass crash='skip' to leave them out instead."
                )
            rule = "skip"
        if rule == "skip":
            keep &= ~mask
        elif rule == "zero":
            run.value = run.value.where(~mask | run.value.isna(), 0.0)
    run.value = run.value.where(keep, np.nan)
    return keep


def _tie_averaged_ndcg(value: pd.Series, recs, truth, k, cols) -> pd.Series:
    """Replace NDCG for users whose scores tie: each tied group gets its mean gain."""
    u, i, s, r = cols["user_col"], cols["item_col"], cols["score_col"], cols["relevance_col"]
    tied = recs.loc[recs.duplicated([u, s], keep=False), u].unique()
    if len(tied) == 0:
        return value
    value = value.copy()
    grades = (
        truth.set_index([u, i])[r]
        if r in truth.columns
        else pd.Series(1.0, index=pd.MultiIndex.from_frame(truth[[u, i]]))
    )
    disc = discounts(len(recs))
    for user in tied:
        rows = recs.loc[recs[u] == user]
        score = rows[s].to_numpy(dtype=float)
        gain = grades.reindex(pd.MultiIndex.from_arrays([[user] * len(rows), rows[i].to_numpy()])).fillna(0.0)
        gain = gain.to_numpy(dtype=float)
        d = disc[: len(score)].copy()
        d[k:] = 0.0
        cum = np.cumsum(d)
        levels, inverse, counts = np.unique(-score, return_inverse=True, return_counts=True)
        mean_gain = np.bincount(inverse, weights=gain) / counts
        ends = np.cumsum(counts) - 1
        group_disc = np.diff(np.concatenate([[0.0], cum[ends]]))
        dcg = float((mean_gain * group_disc).sum())
        idcg = dcg_of(np.sort(gain)[::-1][:k].tolist())
        value.loc[user] = float(normalised(dcg, idcg))
    return value


# ------------------------------------------------------------------ who uses what
def used_by(choice: _registry.Choice) -> str:
    """Who uses one value of an option: the library functions of :data:`CONVENTIONS`, then the registry's
    ``also``.

    The registry's option tables (docstrings, :func:`topkeval.metric_table`)
    read this, so they cannot disagree with the convention table.

    Parameters
    ----------
    choice : topkeval._registry.Choice
        One value of an option in :data:`topkeval.OPTIONS` or :data:`topkeval.BATCH_OPTIONS`.

    Returns
    -------
    str
        The users, separated by ``"; "``, or a sentence saying there are none.

    Examples
    --------
    >>> from topkeval import OPTIONS
    >>> used_by(OPTIONS["denominator"].choices[2])
    'torchmetrics RetrievalMAP(top_k=k)'
    """
    parts = [libraries_using(choice.option, choice.value), choice.also]
    return "; ".join(p for p in parts if p) or "none of the libraries in topkeval.conventions"


@validate_params({"option": Text(" (an option of the registry)"), "value": Text()})
def libraries_using(option: str, value: str) -> str:
    """The library functions in :data:`CONVENTIONS` that use ``option=value``, grouped by library.

    This is where the registry's "used by" text comes from (:func:`used_by`),
    so the README's option table and this convention table cannot disagree.

    Parameters
    ----------
    option : str
        An option name of the registry (``"denominator"``, ``"ties"``, ``"empty"``, ...).
    value : str
        One of its values.

    Returns
    -------
    str
        ``"<library> <function> / <function>, ..."``, or ``""`` when none uses it.

    Examples
    --------
    >>> libraries_using("denominator", "n_hits")
    'torchmetrics RetrievalMAP(top_k=k)'
    """
    if option == "ties":
        return ", ".join(lib.name for lib in LIBRARIES.values() if lib.ties == value)
    if option == "empty":
        return _empty_users(value)
    if (
        option == "unjudged"
    ):  # the table's libraries score the list as given; the registry's ``also`` says more
        return ""
    default = _registry.OPTIONS[option].default
    takes = {m.key for m in _registry.METRICS.values() if option in m.options}
    rows = [c for c in CONVENTIONS if c.metric in takes and c.options.get(option, default) == value]
    return _by_library(rows, _STEP_OVERRIDES.get(option, {}))


def _by_library(rows: list[Convention], overrides: dict[str, str | None] | None = None) -> str:
    """``"<library> <function> / <function>, ..."`` for table rows, grouped by library in table order.

    A row whose extra step replaces the option (``overrides[step] is None``) is left out; one whose step
    qualifies it is listed with that note.
    """
    overrides = overrides or {}
    by_library: dict[str, list[str]] = {}
    for row in rows:
        notes = [overrides[step] for step in row.steps if step in overrides]
        if None in notes:  # a step replaces the option (Elliot's MAP is no AP at all)
            continue
        differs = [note for note in notes if note is not None]
        name = f"{row.name} ({'; '.join(differs)})" if differs else row.name
        by_library.setdefault(row.library, [])
        if name not in by_library[row.library]:
            by_library[row.library].append(name)
    return ", ".join(f"{LIBRARIES[key].name} {' / '.join(names)}" for key, names in by_library.items())


_KIND_WORDS = {
    "judged_empty": "for users in the truth with no relevant item",
    "unjudged": "for users absent from the truth",
}


def _empty_users(value: str) -> str:
    """Libraries whose users with no relevant item get ``value`` (zero, skip, raise),
    and which kind of user."""
    parts = [_empty_users_of(key, value) for key in LIBRARIES]
    return ", ".join(part for part in parts if part)


def _any_user_rule(rows: list[Convention], kinds: list[str], value: str) -> bool:
    """Whether any of ``rows`` treats any of ``kinds`` of user as ``value``."""
    return any(c.users.get(kind) == value for c in rows for kind in kinds)


def _empty_users_of(key: str, value: str) -> str:
    """One library's part of :func:`_empty_users`: its name, which functions, which kind of user (or "")."""
    rows = [c for c in CONVENTIONS if c.library == key]
    kinds = [kind for kind in _KIND_WORDS if _any_user_rule(rows, [kind], value)]
    if not kinds:
        return ""
    some = [c.name for c in rows if _any_user_rule([c], kinds, value)]
    which = f" {' / '.join(dict.fromkeys(some))}" if len(some) < len(rows) else ""
    only = f" ({_KIND_WORDS[kinds[0]]})" if len(kinds) == 1 else ""
    return f"{LIBRARIES[key].name}{which}{only}"
