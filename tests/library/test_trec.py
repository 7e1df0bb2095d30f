"""TREC readers, measure names and evaluate_run against pytrec_eval (trec_eval's own code), query by query."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import topkeval
from topkeval import InvalidInputError, conventions, evaluate_as, trec

# measure -> pytrec_eval's name for it
PYTREC = {
    "P@5": "P_5",
    "R@10": "recall_10",
    "Success@5": "success_5",
    "AP": "map",
    "AP@10": "map_cut_10",
    "nDCG": "ndcg",
    "nDCG@10": "ndcg_cut_10",
    "RR": "recip_rank",
    "Bpref": "bpref",
    "Rprec": "Rprec",  # R-precision (issue 36): trec_eval's Rprec is its oracle
}


def random_files(seed: int, n_queries: int = 25) -> tuple[str, str]:
    """A qrels and a run text with everything trec_eval is picky about.

    Ties (scores from a few values), a rank column that disagrees with the
    scores, graded qrels (0..3), documents judged 0, queries only in the
    qrels (empty in the run), queries only in the run, queries whose judged
    documents are all grade 0, and docnos whose string order differs from
    their number order (d9 > d10 as strings).
    """
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(n_queries):
        docs = [f"d{i}" for i in rng.choice(60, size=int(rng.integers(1, 30)), replace=False)]
        pool = docs + [f"x{i}" for i in range(5)]
        judged = rng.choice(pool, size=int(rng.integers(0, min(15, len(pool)))), replace=False)
        all_zero = q % 7 == 3
        if q % 5 != 4:  # queries 4, 9, ... are in the run only
            for doc in judged:
                grade = 0 if all_zero else int(rng.choice([0, 0, 1, 1, 2, 3]))
                qrels.append(f"{q} 0 {doc} {grade}")
        if q % 6 == 5:  # queries 5, 11, ... are in the qrels only (empty in the run)
            continue
        scores = rng.integers(0, 4, size=len(docs)).astype(float) / 2
        ranks = rng.permutation(len(docs)) + 1  # unrelated to the scores
        run += [f"{q} Q0 {d} {r} {s} tag" for d, r, s in zip(docs, ranks, scores, strict=True)]
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"


def pytrec_values(qrels: pd.DataFrame, run: pd.DataFrame, judged_only: bool = False) -> pd.DataFrame:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrel_dict: dict = {}
    for q, d, r in qrels[["user", "item", "relevance"]].itertuples(index=False):
        qrel_dict.setdefault(q, {})[d] = int(r)
    run_dict: dict = {}
    for q, d, s in run[["user", "item", "score"]].itertuples(index=False):
        run_dict.setdefault(q, {})[d] = float(s)
    names = {"P", "recall", "success", "map", "map_cut", "ndcg", "ndcg_cut", "recip_rank", "bpref", "Rprec"}
    result = pytrec_eval.RelevanceEvaluator(qrel_dict, names, judged_docs_only_flag=judged_only).evaluate(
        run_dict
    )
    frame = pd.DataFrame.from_dict(result, orient="index")
    return frame[list(PYTREC.values())].set_axis(list(PYTREC), axis=1).sort_index()


@pytest.mark.compare
@pytest.mark.parametrize("seed", range(6))
def test_evaluate_run_equals_pytrec_eval_per_query(seed):
    qrels_text, run_text = random_files(seed)
    qrels, run = trec.read_qrels(io.StringIO(qrels_text)), trec.read_run(io.StringIO(run_text))
    got = trec.evaluate_run(qrels, run, list(PYTREC))
    want = pytrec_values(qrels, run)
    assert list(got.index) == list(want.index)  # the same queries count
    assert np.abs(got.to_numpy() - want.to_numpy()).max() <= 1e-12


@pytest.mark.compare
@pytest.mark.parametrize("seed", range(3))
def test_judged_only_equals_pytrec_eval_judged_docs_only(seed):
    qrels_text, run_text = random_files(seed)
    qrels, run = trec.read_qrels(io.StringIO(qrels_text)), trec.read_run(io.StringIO(run_text))
    got = trec.evaluate_run(qrels, run, list(PYTREC), judged_only=True)
    want = pytrec_values(qrels, run, judged_only=True)
    assert list(got.index) == list(want.index)
    assert np.abs(got.to_numpy() - want.to_numpy()).max() <= 1e-12
    assert (
        np.abs(got.to_numpy() - pytrec_values(qrels, run).loc[got.index].to_numpy()).max() > 0.01
    )  # -J matters


@pytest.mark.compare
def test_the_rank_column_is_not_read_by_trec_eval_conventions():
    """Issue sample: a 6-column run whose ranks disagree with its scores."""
    qrels_text, run_text = random_files(11, n_queries=12)
    qrels = trec.read_qrels(io.StringIO(qrels_text))
    with_rank = trec.read_run(io.StringIO(run_text), keep_rank=True)
    want = pytrec_values(qrels, with_rank)
    got = evaluate_as("trec_eval", with_rank, qrels, 10, metrics=["ap", "ndcg"], per_user=True)
    got = got.dropna(how="all").sort_index()
    assert np.abs(got["ap@10"].to_numpy() - want["AP@10"].to_numpy()).max() <= 1e-12
    assert np.abs(got["ndcg@10"].to_numpy() - want["nDCG@10"].to_numpy()).max() <= 1e-12
    # the same frame ordered by its rank column (what evaluate does) gives other numbers
    from topkeval import evaluate

    by_rank = evaluate(with_rank, qrels, 10, metrics=["ap"], empty="zero", denominator="n_relevant")
    assert not np.allclose(by_rank["ap@10"].reindex(want.index).fillna(0), want["AP@10"])


def test_table_says_which_column_orders_the_list():
    table = conventions.library_table()
    assert "rank column is ignored" in table.loc[("trec_eval", "ap"), "order"]
    assert "rank column is ignored" in table.loc[("ir_measures", "ap"), "order"]
    assert table.loc[("spark", "ap"), "order"].startswith("the list as given")


def test_measure_names_are_ir_measures_and_case_insensitive():
    assert trec.parse_measure("ndcg@10") == trec.Measure("ndcg", 10)
    assert trec.parse_measure("P@5") == trec.parse_measure("p@5")
    assert trec.parse_measure("AP") == trec.Measure("ap", None)
    assert trec.parse_measure("Success@1").metric == "hit"
    assert trec.parse_measure("RBP(p=0.5)@10") == trec.Measure("rbp", 10, {"p": 0.5})
    assert [str(trec.parse_measure(m)) for m in ("rr@10", "ERR@20", "rbp(P=0.8)@5")] == [
        "RR@10",
        "ERR@20",
        "RBP(p=0.8)@5",
    ]
    # the registry's other names of a metric work too (trec_eval's map, recip_rank, ndcg_cut; MRR)
    assert [trec.parse_measure(m) for m in ("MAP", "recip_rank@10", "ndcg_cut@5", "mrr")] == [
        trec.Measure("ap"),
        trec.Measure("rr", 10),
        trec.Measure("ndcg", 5),
        trec.Measure("rr"),
    ]
    with pytest.raises(InvalidInputError, match="unknown measure 'MAPP'.*ir_measures"):
        trec.parse_measure("MAPP")
    # every registry metric has a name (tests/library/test_cli.py walks them): R-precision by trec_eval's
    # and ir_measures' Rprec and its aliases, RBP's residual by its key
    assert [trec.parse_measure(m) for m in ("Rprec", "R-prec", "r_precision@5", "rbp_residual@5")] == [
        trec.Measure("rprec"),
        trec.Measure("rprec"),
        trec.Measure("rprec", 5),
        trec.Measure("rbp_residual", 5),
    ]
    with pytest.raises(topkeval.InputTypeError, match="text must be a non-empty str such as .nDCG@10."):
        trec.parse_measure(10)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="needs a cutoff, e.g. P@10"):
        trec.parse_measure("P")
    with pytest.raises(InvalidInputError, match="unknown parameter 'q'"):
        trec.parse_measure("RBP(q=1)@5")
    with pytest.raises(InvalidInputError, match=">= 1"):
        trec.parse_measure("AP@0")


def test_reader_errors_name_the_file_and_the_line(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 2.0 s\n\nq1 Q0 d2 2 high s\n")
    with pytest.raises(InvalidInputError, match=f"{path}: line 3: the score 'high' is not a finite number"):
        trec.read_run(path)
    path.write_text("q1 Q0 d1 1 2.0\n")
    with pytest.raises(InvalidInputError, match="line 1 has fewer than 6 columns"):
        trec.read_run(path)
    path.write_text("q1 Q0 d1 1 2.0 s\nq1 Q0 d1 1 2.0 s extra\n")
    with pytest.raises(InvalidInputError, match="line 2 has more than 6 columns"):
        trec.read_run(path)
    path.write_text("q1 Q0 d1 1 2.0 s\nq2 Q0 d1 1 2.0 s\nq1 Q0 d1 3 1.0 s\n")
    with pytest.raises(InvalidInputError, match="lines 1 and 3 both list document 'd1' for query 'q1'"):
        trec.read_run(path)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0.5\n")
    with pytest.raises(InvalidInputError, match=f"{qrels}: line 2: the relevance '0.5' is not an integer"):
        trec.read_qrels(qrels)


def test_readers_keep_ids_as_strings_and_skip_blank_lines():
    run = trec.read_run(io.StringIO("007 Q0 0010 1 1e2 t\n\n007 Q0 9 2 -3 t\n"), keep_rank=True)
    assert run["user"].tolist() == ["007", "007"] and run["item"].tolist() == ["0010", "9"]
    assert run["score"].tolist() == [100.0, -3.0] and run["rank"].tolist() == [1, 2]
    assert run.index.tolist() == [1, 3]  # line numbers
    qrels = trec.read_qrels(io.StringIO("007 0 9 3\n"))
    assert qrels.to_dict("list") == {"user": ["007"], "item": ["9"], "relevance": [3]}


def test_err_is_gdevals_and_rbp_uses_trec_evals_order_and_query_rules():
    qrels = trec.read_qrels(io.StringIO("q1 0 d1 1\nq1 0 d2 2\nq2 0 d1 1\n"))
    run = trec.read_run(io.StringIO("q1 Q0 d1 1 1.0 s\nq1 Q0 d2 2 1.0 s\nq3 Q0 d1 1 1.0 s\n"))
    got = trec.evaluate_run(qrels, run, ["ERR@2", "RBP(p=0.5)@2"])
    assert list(got.index) == ["q1"]  # q2: not in the run, q3: not in the qrels
    # d2 (grade 2) before d1 (grade 1): ties by docno, descending; ERR is gdeval's (trec_eval has none):
    # gain (2^g - 1) / 2^4
    assert got.loc["q1", "ERR@2"] == pytest.approx(3 / 16 + (1 - 3 / 16) * (1 / 16) / 2)
    assert got.loc["q1", "RBP(p=0.5)@2"] == pytest.approx(0.5 * (1 + 0.5))


def test_one_measure_may_be_given_alone_and_none_is_refused():
    qrels = trec.read_qrels(io.StringIO("q1 0 d1 1\nq2 0 d3 1\n"))
    run = trec.read_run(io.StringIO("q1 Q0 d1 1 2.0 s\nq1 Q0 d2 2 1.0 s\nq2 Q0 d2 1 1.0 s\n"))
    alone = trec.evaluate_run(qrels, run, "AP")
    pd.testing.assert_frame_equal(alone, trec.evaluate_run(qrels, run, ["AP"]))
    assert alone["AP"].tolist() == [1.0, 0.0]  # not one column per character of "AP"
    with pytest.raises(InvalidInputError, match="name at least one measure"):
        trec.evaluate_run(qrels, run, [])
