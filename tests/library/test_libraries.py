"""topkeval.conventions: the library table, evaluate_as, and live checks against the light libraries."""

from __future__ import annotations

import importlib.util

import numpy as np
import pandas as pd
import pytest

from helpers.experiments import peers
from topkeval import _registry, _validation
from topkeval import conventions as L


# ----------------------------------------------------------------- random data
def random_case(seed: int, *, ties: bool, graded: bool, ragged: bool, n_users: int = 30, n_items: int = 14):
    """Recommendations with scores, truth with grades, and every awkward kind of user.

    Users 0..n-1 have lists; some of them are not in the truth (unjudged), some
    are judged with grade 0 only; users n and n+1 have relevant items but no list.
    """
    rng = np.random.default_rng(seed)
    rows, truth = [], []
    for u in range(n_users):
        length = int(rng.integers(3, n_items + 1)) if ragged else n_items
        items = rng.permutation(n_items)[:length]
        scores = np.round(rng.uniform(0.01, 1, length), 1 if ties else 9)
        rows += [(u, int(i), float(s)) for i, s in zip(items, scores, strict=True)]
        kind = u % 6
        if kind == 0:
            continue  # unjudged
        n_rel = 0 if kind == 1 else int(rng.integers(1, 12))
        judged = rng.choice(n_items, size=max(n_rel, 2), replace=False)
        for j, item in enumerate(judged):
            grade = (int(rng.integers(1, 4)) if graded else 1) if j < n_rel else 0
            truth.append((u, int(item), grade))
    for u in (n_users, n_users + 1):  # relevant items, no recommendations
        truth += [(u, 1, 1), (u, 2, 2 if graded else 1)]
    recs = pd.DataFrame(rows, columns=["user", "item", "score"])
    truth = pd.DataFrame(truth, columns=["user", "item", "relevance"])
    return recs, truth


def _check(library, recs, truth, k, tol=1e-9):
    native = peers.run_native(library, recs, truth, k)
    ours = L.evaluate_as(library, recs, truth, k, metrics=[m.split("@")[0] for m in native])
    for name, value in native.items():
        assert abs(value - ours[name]) <= tol, (library, name, value, ours[name])
    return native


# ----------------------------------------------------------------- the table
def _assert_a_valid_row(c, valid):
    assert c.library in L.LIBRARIES and c.metric in _registry.METRIC_KEYS
    assert set(c.steps) <= set(L.STEPS), c
    assert set(c.users) == {"judged_empty", "unjudged", "no_recommendations"}
    assert set(c.users.values()) <= {"zero", "skip", "raise"}
    for option, value in c.options.items():
        if option in _registry.PARAMETERS:  # a number (RBP's p, ERR's max_grade): within its range
            assert _validation.check_parameters(**{option: value}) == {option: value}, c
        else:
            assert value in valid[option], c
    assert c.evidence


def test_every_library_has_rows_and_valid_options():
    assert len(L.LIBRARIES) == 13
    valid = {name: set(opt.values) for name, opt in _registry.OPTIONS.items()}
    for c in L.CONVENTIONS:
        _assert_a_valid_row(c, valid)
    for lib in L.LIBRARIES:
        assert L.supported_metrics(lib), lib
        for metric in L.supported_metrics(lib):
            assert sum(c.default for c in L.CONVENTIONS if c.library == lib and c.metric == metric) == 1
    for n in L.NOT_REPRODUCED:
        assert n.library in L.LIBRARIES and n.why and n.evidence


def test_whole_list_metrics_are_registry_metrics_the_table_lacks():
    """WHOLE_LIST names libraries and registry metrics; a metric with a row in the table is not there."""
    for lib, metrics in L.WHOLE_LIST.items():
        assert lib in L.LIBRARIES and metrics
        assert set(metrics) <= set(_registry.METRIC_KEYS), lib
        assert not set(metrics) & set(L.supported_metrics(lib)), lib


def test_table_frame_marks_not_reproduced():
    full = L.library_table(defaults_only=False)
    assert (~full["reproduced"]).sum() == len(L.NOT_REPRODUCED)
    assert full.loc[[("elliot", "ap")], "steps"].tolist() == ["mean_p1_to_pk"]


def test_unknown_library_lists_supported():
    with pytest.raises(ValueError, match="unknown library 'surprise'; supported libraries are 'trec_eval'"):
        L.convention("surprise", "ap")
    with pytest.raises(TypeError):
        L.evaluate_as(3, pd.DataFrame(), pd.DataFrame(), 1)


def test_aliases():
    assert L.convention("pytrec-eval", "ap").library == "trec_eval"
    assert L.convention("Scikit-Learn", "ndcg").library == "sklearn"


def test_unsupported_metric_and_variant_list_what_is_supported():
    with pytest.raises(ValueError, match="Spark MLlib .* no 'rr'.*'precision', 'recall', 'ap', 'ndcg'"):
        L.convention("spark", "rr")
    with pytest.raises(ValueError, match="no 'ap' we can reproduce \\(average_precision_score"):
        L.convention("sklearn", "ap")
    with pytest.raises(ValueError, match="choose one of 'map_at_k', 'map'"):
        L.convention("recommenders", "ap", "mapk")
    assert L.convention("ranx", "MAP") == L.convention("ranx", "ap")  # common names map to the key
    with pytest.raises(ValueError, match="metrics must be among .* got 'mapk'. Did you mean 'ap'"):
        L.convention("ranx", "mapk")


def test_ties_only_for_libraries_taking_a_ranked_list():
    recs, truth = random_case(0, ties=True, graded=False, ragged=False)
    with pytest.raises(ValueError, match="orders tied scores itself"):
        L.evaluate_as("trec_eval", recs, truth, 5, ties="item_ascending")
    a = L.evaluate_as("spark", recs, truth, 5, ties="item_ascending")
    b = L.evaluate_as("spark", recs, truth, 5, ties="item_descending")
    assert (a != b).any()  # ties matter on this data


# ------------------------------------------- hand-checked values (metric-definitions.md cases)
def _single(ranking, relevant, grades=None):
    recs = pd.DataFrame({"user": 1, "item": ranking, "rank": range(1, len(ranking) + 1)})
    truth = pd.DataFrame({"user": 1, "item": list(relevant)})
    if grades is not None:
        truth["relevance"] = grades
    return recs, truth


CASE_A = _single([4, 6, 2, 3, 1, 8, 10, 9, 5, 7], [1, 6, 9])
CASE_E = _single(list("abcdefg"), ["c"])
CASE_G = _single(list("ABC"), ["A", "X"])
CASE_C5 = _single(list(range(10)), [0, 1, 2, 4, 6, 9])
CASE_D5 = _single(list("abcde"), list("abcde"), [2, 3, 3, 1, 2])


@pytest.mark.parametrize(
    "library, metric, case, k, expected",
    [
        ("implicit", "precision", CASE_A, 5, 0.6667),
        ("implicit", "precision", CASE_E, 5, 1.0),
        ("implicit", "precision", CASE_G, 5, 0.5),
        ("lenskit", "precision", CASE_G, 5, 0.3333),
        ("lenskit", "recall", CASE_C5, 5, 0.8),
        ("lenskit", "ndcg", CASE_A, 5, 0.5438),
        ("lenskit", "ndcg", CASE_E, 5, 0.6309),
        ("lenskit", "ndcg", CASE_G, 5, 0.5),
        ("lenskit", "ap", CASE_C5, 5, 0.7600),
        ("elliot", "ap", CASE_A, 5, 0.2967),
        ("elliot", "ap", CASE_C5, 5, 0.9100),
        ("elliot", "ap", CASE_E, 5, 0.1567),
        ("elliot", "ndcg", CASE_D5, 5, 0.8701),
        ("elliot", "ndcg", CASE_D5, 3, 0.8570),
        ("spark", "ndcg", CASE_D5, 5, 1.0),
        ("recbole", "ndcg", CASE_D5, 5, 1.0),
        ("torchmetrics", "ap", CASE_C5, 5, 0.9500),
        ("trec_eval", "ap", CASE_C5, 5, 0.6333),
        ("ml_metrics", "ap", CASE_C5, 5, 0.7600),
        ("recommenders", "ap", CASE_C5, 5, 0.7600),
    ],
)
def test_reference_cases(library, metric, case, k, expected):
    recs, truth = case
    assert L.evaluate_as(library, recs, truth, k, metrics=[metric])[f"{metric}@{k}"] == pytest.approx(
        expected, abs=5e-5
    )


def test_lenskit_ap_crash_policy():
    recs, truth = random_case(1, ties=False, graded=False, ragged=True)
    with pytest.raises(ValueError, match="LensKit AveragePrecision.*crash='skip'"):
        L.evaluate_as("lenskit", recs, truth, 5, metrics=["ap"])
    per_user = L.evaluate_as(
        "lenskit", recs, truth, 5, metrics=["precision", "recall", "ap"], crash="skip", per_user=True
    )
    assert per_user.loc[0, "precision@5"] == 0.0 and np.isnan(per_user.loc[0, "recall@5"])  # unjudged user
    assert np.isnan(per_user.loc[30, "precision@5"]) and per_user.loc[30, "recall@5"] == 0.0  # no list


def test_recommenders_user_sets_differ_between_metrics():
    # probe l: user 1 ranks [10, 12, 11] with T = {10, 11}; user 2 has T = {20} and no list
    recs = pd.DataFrame({"user": 1, "item": [10, 12, 11], "score": [3.0, 2.0, 1.0]})
    truth = pd.DataFrame({"user": [1, 1, 2], "item": [10, 11, 20]})
    out = L.evaluate_as("recommenders", recs, truth, 3).round(4)
    assert out.to_dict() == {"precision@3": 0.6667, "recall@3": 1.0, "ap@3": 0.8333, "ndcg@3": 0.4599}


def test_implicit_precision_is_pooled_not_averaged():
    recs = pd.DataFrame({"user": [1, 1, 2, 2], "item": [1, 2, 1, 2], "rank": [1, 2, 1, 2]})
    truth = pd.DataFrame({"user": [1, 2, 2, 2], "item": [1, 1, 5, 6]})  # 1/1 and 1/2 -> pooled 2/3
    assert L.evaluate_as("implicit", recs, truth, 2, metrics=["precision"])["precision@2"] == pytest.approx(
        2 / 3
    )


def test_torchmetrics_ignores_non_positive_scores_except_ndcg_and_hit():
    recs = pd.DataFrame({"user": 1, "item": list("abcde"), "score": [-1.0, -2, -3, -4, -5]})
    truth = pd.DataFrame({"user": 1, "item": ["a", "b"]})
    out = L.evaluate_as("torchmetrics", recs, truth, 5)
    assert out[["precision@5", "recall@5", "rr@5", "ap@5"]].tolist() == [0.0] * 4
    assert out["hit@5"] == 1.0 and out["ndcg@5"] == 1.0


def test_sklearn_tie_average():
    # scores d1 .9, d2 .5, d3 .5, d4 .1; T = {d2}: tie-averaged NDCG@4 = 0.5655
    recs = pd.DataFrame({"user": 1, "item": ["d1", "d2", "d3", "d4"], "score": [0.9, 0.5, 0.5, 0.1]})
    truth = pd.DataFrame({"user": [1], "item": ["d2"]})
    assert L.evaluate_as("sklearn", recs, truth, 4)["ndcg@4"] == pytest.approx(0.5655, abs=5e-5)
    assert L.evaluate_as("trec_eval", recs, truth, 4, metrics=["ndcg"])["ndcg@4"] == pytest.approx(0.5)
    assert L.evaluate_as("ir_measures", recs, truth, 4, metrics=["rr"])["rr@4"] == pytest.approx(0.5)
    assert L.evaluate_as("trec_eval", recs, truth, 4, metrics=["rr"])["rr@4"] == pytest.approx(1 / 3)


def test_per_user_mean_equals_aggregate():
    recs, truth = random_case(3, ties=False, graded=True, ragged=True)
    for lib in ("trec_eval", "recommenders", "lenskit", "elliot"):
        agg = L.evaluate_as(lib, recs, truth, 5, crash="skip")
        per_user = L.evaluate_as(lib, recs, truth, 5, crash="skip", per_user=True)
        assert np.allclose(per_user.mean(), agg, atol=1e-12)


# ------------------------------------------------------------- live checks (make test)
def _have(module):
    return importlib.util.find_spec(module) is not None


@pytest.mark.compare
@pytest.mark.parametrize("seed", [11, 12, 13])
def test_trec_eval_live(seed):
    recs, truth = random_case(seed, ties=True, graded=bool(seed % 2), ragged=True)
    for k in (1, 5, 20):
        _check("trec_eval", recs, truth, k)


@pytest.mark.compare
@pytest.mark.parametrize("seed", [21, 22])
def test_ir_measures_live(seed):
    recs, truth = random_case(seed, ties=True, graded=bool(seed % 2), ragged=True)
    for k in (3, 10):
        _check("ir_measures", recs, truth, k)


@pytest.mark.compare
def test_ranx_live():
    # ranx's tie order is unspecified (numba argsort), so the scores have no ties here
    recs, truth = random_case(31, ties=False, graded=True, ragged=True)
    for k in (3, 10):
        _check("ranx", recs, truth, k)


@pytest.mark.compare
def test_ranx_ties_known_difference():
    # ranx sorts with numba's unstable quicksort: input order holds for at most 15 documents, not for 40
    import ranx

    for n, ranx_rank in ((15, 6), (40, 26)):
        docs = [f"d{i:02d}" for i in range(n)]
        recs = pd.DataFrame({"user": "q1", "item": docs, "score": 1.0})
        truth = pd.DataFrame({"user": ["q1"], "item": ["d05"], "grade": [1]})  # the 6th in the file
        run = ranx.Run({"q1": dict.fromkeys(docs, 1.0)})
        theirs = ranx.evaluate(ranx.Qrels({"q1": {"d05": 1}}), run, "mrr")
        assert theirs == pytest.approx(1 / ranx_rank)
        assert L.evaluate_as("ranx", recs, truth, n, metrics=["rr"])[f"rr@{n}"] == pytest.approx(1 / 6)
    order = L.library_table().loc[("ranx", "rr"), "order"]
    assert "known difference" in order and "at most 15 documents" in order
    assert "known difference" not in L.library_table().loc[("trec_eval", "rr"), "order"]


@pytest.mark.compare
@pytest.mark.parametrize("seed", [41, 42])
def test_sklearn_live(seed):
    recs, truth = random_case(seed, ties=True, graded=bool(seed % 2), ragged=False)
    for k in (1, 4, 10):
        _check("sklearn", recs, truth, k)


# --------------------------------------------------------------- stored results
def test_stored_results_match_a_fresh_run_of_ours():
    stored = peers.load_results()
    data = stored["dataset"]
    recs, truth = peers.make_dataset(data["n_users"], data["n_candidates"], data["seed"])
    for lib, entry in stored["libraries"].items():
        ours = L.evaluate_as(lib, recs, truth, data["k"], metrics=[m.split("@")[0] for m in entry["native"]])
        for name, value in entry["ours"].items():
            assert abs(ours[name] - value) < 1e-12, (lib, name)
        tol = 1e-6 if lib == "torchmetrics" else 1e-9  # torchmetrics works in float32
        assert entry["max_abs_difference"] <= tol, lib
        assert max(abs(entry["native"][m] - value) for m, value in entry["ours"].items()) <= tol


# --------------------------------------------------------------- ERR (gdeval) and RBP (LensKit)
def gdeval_err(grades_in_run_order, k):
    """gdeval.pl's sub err, re-read from ir_measures/bin/gdeval.pl.

    R = (2**g - 1) / 2**4, at most k documents.
    """
    score, decay = 0.0, 1.0
    for i, g in enumerate(grades_in_run_order[:k]):
        r = (2**g - 1) / 2**4
        score += r * decay / (i + 1)
        decay *= 1 - r
    return score


def lenskit_rbp(ranking, test, k, patience=0.85):
    """LensKit 2025.8.1 RBP(n=k): weights p**(rank - 1) of the test items in the list cut at k,
    over 1/(1 - p);
    NaN without test items (re-implemented from _rbp.py and _weighting.py)."""
    if not test:
        return float("nan")
    good = sum(patience ** (rank - 1) for rank, item in enumerate(ranking[:k], start=1) if item in test)
    return good / (1 / (1 - patience))


def test_ir_measures_err_is_gdeval_with_g_max_4():
    recs, truth = _single(["a", "b", "c"], ["a", "c"])  # the binary list: ours 0.5833, gdeval 0.0820
    assert L.convention("ir_measures", "err").options == {"max_grade": 4}
    got = L.evaluate_as("ir_measures", recs, truth, 3, metrics=["err"])["err@3"]
    assert got == pytest.approx(gdeval_err([1, 0, 1], 3), abs=1e-12) and round(got, 4) == 0.0820
    assert (
        L.evaluate_as("trec_eval", recs, truth, 3, metrics=["ap"]).notna().all()
    )  # trec_eval has no ERR row
    graded = _single(["x", "a", "b", "c"], ["a", "b", "c"], grades=[4, 0, 2])
    assert L.evaluate_as("ir_measures", *graded, 3, metrics=["err"])["err@3"] == pytest.approx(
        gdeval_err([0, 4, 0, 2], 3), abs=1e-12
    )
    with pytest.raises(ValueError, match="above max_grade"):  # gdeval: "format error" for a grade above 4
        L.evaluate_as("ir_measures", *_single(["a"], ["a"], grades=[5]), 1, metrics=["err"])


@pytest.mark.parametrize("seed", [51, 52])
def test_lenskit_rbp_reimplemented(seed):
    recs, truth = random_case(seed, ties=False, graded=True, ragged=True)
    k = 7
    got = L.evaluate_as("lenskit", recs, truth, k, metrics=["rbp"], per_user=True)["rbp@7"]
    relevant = truth.loc[truth["relevance"] > 0]
    for user, value in got.items():
        rows = recs.loc[recs["user"] == user].sort_values("score", ascending=False, kind="stable")
        want = lenskit_rbp(rows["item"].tolist(), set(relevant.loc[relevant["user"] == user, "item"]), k)
        assert (np.isnan(want) and np.isnan(value)) or value == pytest.approx(want, abs=1e-12), user
    assert L.convention("lenskit", "rbp").options == {"p": 0.85}
    # on request, as in evaluate: the default metrics leave ERR and RBP out
    assert "rbp@7" not in L.evaluate_as("lenskit", recs, truth, k, crash="skip").index
    assert "err@7" not in L.evaluate_as("ir_measures", recs, truth, k).index


@pytest.mark.compare
@pytest.mark.parametrize("seed", [61, 62])
def test_ir_measures_err_live(seed):
    """ir_measures' ERR@k (gdeval, run in Perl) against evaluate_as.

    On ties, grades 0-3 and every kind of user.
    """
    ir_measures = pytest.importorskip("ir_measures")
    recs, truth = random_case(seed, ties=True, graded=True, ragged=True)
    qrels = [ir_measures.Qrel(str(u), str(i), int(g)) for u, i, g in truth.itertuples(index=False)]
    run = [ir_measures.ScoredDoc(str(u), str(i), float(s)) for u, i, s in recs.itertuples(index=False)]
    for k in (1, 5, 10):
        native = ir_measures.calc_aggregate([ir_measures.ERR @ k], qrels, run)[ir_measures.ERR @ k]
        ours = L.evaluate_as("ir_measures", recs, truth, k, metrics=["err"])[f"err@{k}"]
        assert abs(native - ours) <= 5e-6, (k, native, ours)  # gdeval prints 5 decimals per query
        per_query = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.ERR @ k], qrels, run)}
        mine = L.evaluate_as("ir_measures", recs, truth, k, metrics=["err"], per_user=True)[f"err@{k}"]
        assert set(per_query) == {str(u) for u in mine.dropna().index}
        for user, value in mine.dropna().items():
            assert abs(per_query[str(user)] - value) <= 5e-6, (k, user)
