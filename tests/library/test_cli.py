"""The command line (python -m topkeval, the `topkeval` console script): trec_eval's format and numbers."""

from __future__ import annotations

import dataclasses
import io
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import topkeval
from topkeval import _registry, conventions, trec
from topkeval.__main__ import main

from .test_trec import PYTREC, pytrec_values, random_files


def files(tmp_path: Path, seed: int = 3) -> tuple[Path, Path]:
    qrels_text, run_text = random_files(seed)
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(qrels_text)
    run.write_text(run_text)
    return qrels, run


def parse(output: str) -> dict[tuple[str, str], float]:
    rows = [line.split("\t") for line in output.strip().splitlines()]
    assert all(len(row) == 3 for row in rows), output
    return {(measure.strip(), query): float(value) for measure, query, value in rows}  # trec_eval pads names


@pytest.mark.compare
def test_output_equals_pytrec_eval_per_query(tmp_path, capsys):
    qrels, run = files(tmp_path)
    assert main(["-q", "-m", " ".join(PYTREC), str(qrels), str(run)]) == 0
    got = parse(capsys.readouterr().out)
    want = pytrec_values(trec.read_qrels(qrels), trec.read_run(run))
    for measure in PYTREC:
        for query, value in want[measure].items():
            assert got[(measure, query)] == pytest.approx(value, abs=5e-5)  # printed with 4 decimals
        assert got[(measure, "all")] == pytest.approx(want[measure].mean(), abs=5e-5)
    assert {q for _, q in got} == set(want.index) | {"all"}


@pytest.mark.compare
def test_judged_only_flag_equals_pytrec_eval_judged_docs_only(tmp_path, capsys):
    qrels, run = files(tmp_path, seed=4)
    assert main(["-q", "-J", "-m", " ".join(PYTREC), str(qrels), str(run)]) == 0
    got = parse(capsys.readouterr().out)
    want = pytrec_values(trec.read_qrels(qrels), trec.read_run(run), judged_only=True)
    for measure in PYTREC:
        for query, value in want[measure].items():
            assert got[(measure, query)] == pytest.approx(value, abs=5e-5)


def test_format_is_trec_eval_s(tmp_path, capsys):
    qrels, run = files(tmp_path)
    assert main(["-m", "AP", "-m", "ndcg@10", str(qrels), str(run)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[:2] for line in lines] == [["AP", "all"], ["nDCG@10", "all"]]
    assert all(len(line.split("\t")[2]) == 6 for line in lines)  # 0.1234


def test_convention_changes_the_numbers(tmp_path, capsys):
    qrels, run = files(tmp_path, seed=5)
    main(["-m", "RR@10", str(qrels), str(run)])
    trec_eval = parse(capsys.readouterr().out)
    main(["-m", "RR@10", "--convention", "ir_measures", str(qrels), str(run)])
    ir_measures = parse(capsys.readouterr().out)  # msmarco's RR@k: ties by docno ascending
    assert trec_eval[("RR@10", "all")] != ir_measures[("RR@10", "all")]


def test_bad_input_is_one_line_on_stderr(tmp_path, capsys):
    qrels, run = files(tmp_path)
    run.write_text(run.read_text() + "q9 Q0 d1 1 oops tag\n")
    assert main([str(qrels), str(run)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("topkeval: error: ") and f"{run}: line " in err and err.count("\n") == 1
    assert main(["-m", "MAPP", str(qrels), str(qrels)]) == 2
    assert "illegal measure 'MAPP'" in capsys.readouterr().err
    assert main(["--convention", "nope", str(qrels), str(run)]) == 2
    assert "unknown library 'nope'" in capsys.readouterr().err
    assert main([str(tmp_path / "missing"), str(run)]) == 2
    assert "missing" in capsys.readouterr().err


def test_python_dash_m_and_the_console_script(tmp_path):
    qrels, run = files(tmp_path)
    args = ["-m", "P@5", str(qrels), str(run)]
    by_module = subprocess.run([sys.executable, "-m", "topkeval", *args], capture_output=True, text=True)
    assert by_module.returncode == 0, by_module.stderr
    assert by_module.stdout.startswith("P@5\tall\t")
    script = shutil.which("topkeval", path=str(Path(sys.executable).parent))
    if script is None:
        pytest.skip("the console script is not installed in this environment (pip install ./topkeval)")
    by_script = subprocess.run([script, *args], capture_output=True, text=True)
    assert by_script.stdout == by_module.stdout


def test_format_trec_skips_left_out_queries():
    import pandas as pd

    values = pd.DataFrame({"AP": [0.5, np.nan]}, index=["q1", "q2"])
    out = io.StringIO(trec.format_trec(values, per_query=True))
    assert out.getvalue().splitlines() == ["AP\tq1\t0.5000", "AP\tall\t0.5000"]


# ------------------------------------------------------------------ one source of conventions (issue 34)
def test_a_measure_the_library_lacks_is_refused_with_evaluate_as_message(tmp_path, capsys):
    qrels, run = files(tmp_path)
    assert main(["--convention", "sklearn", "-m", "P@5", "-m", "AP", str(qrels), str(run)]) == 2
    err = capsys.readouterr().err
    with pytest.raises(ValueError) as refused:
        topkeval.evaluate_as("sklearn", trec.read_run(run), trec.read_qrels(qrels), 5, metrics=["precision"])
    assert err == f"topkeval: error: {refused.value}\n"


def test_lenskit_crash_names_the_command_line_option(tmp_path, capsys):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 d1 1\nq2 0 d3 0\n")
    run.write_text("q1 Q0 d1 1 2 r\nq2 Q0 d3 1 2 r\n")
    assert main(["--convention", "lenskit", "-m", "AP@5", str(qrels), str(run)]) == 2
    err = capsys.readouterr().err
    assert "--crash skip" in err and "crash='skip'" not in err
    assert main(["--convention", "lenskit", "--crash", "skip", "-m", "AP@5", str(qrels), str(run)]) == 0
    assert capsys.readouterr().out == "AP@5\tall\t1.0000\n"  # q2 left out, as LensKit's callers do


def test_err_under_trec_eval_is_gdevals_and_says_so(tmp_path, capsys):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 3\n1 0 b 1\n1 0 c -2\n2 0 x 0\n")
    run.write_text("1 Q0 b 1 1.0 r\n1 Q0 c 2 1.0 r\n1 Q0 a 3 0.5 r\n2 Q0 x 1 1.0 r\n")
    assert main(["-q", "-m", "ERR@3", str(qrels), str(run)]) == 0
    out, err = capsys.readouterr()
    assert "gdeval" in err and "trec_eval has no ERR" in err
    # gdeval: ties by docno descending (c, b), gain (2^g - 1) / 2^4, query 2 (no grade > 0) left out
    r_b, r_a = (2**1 - 1) / 16, (2**3 - 1) / 16
    want = 0 + (1 - 0) * r_b / 2 + (1 - r_b) * r_a / 3
    assert out.splitlines() == [f"ERR@3\t1\t{want:.4f}", f"ERR@3\tall\t{want:.4f}"]
    qrels.write_text("1 0 a 5\n")
    assert main(["-m", "ERR@3", str(qrels), str(run)]) == 2
    assert "grades up to 4" in capsys.readouterr().err


@pytest.mark.compare
def test_ir_measures_rr_without_cutoff_is_ir_measures(tmp_path, capsys):
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = files(tmp_path, seed=6)
    assert main(["-q", "--convention", "ir_measures", "-m", "RR", "-m", "RR@10", str(qrels), str(run)]) == 0
    got = parse(capsys.readouterr().out)
    qrels_frame = trec.read_qrels(qrels).rename(columns={"user": "query_id", "item": "doc_id"})
    run_frame = trec.read_run(run).rename(columns={"user": "query_id", "item": "doc_id"})
    for measure in (ir_measures.RR, ir_measures.RR @ 10):
        want = {
            m.query_id: m.value
            for m in ir_measures.iter_calc([measure], qrels_frame.astype({"relevance": int}), run_frame)
        }
        name = "RR" if measure is ir_measures.RR else "RR@10"
        for query, value in want.items():
            assert got[(name, query)] == pytest.approx(value, abs=5e-5), (name, query)


@pytest.mark.compare
def test_ranx_ties_keep_the_input_order_as_the_convention_table_says():
    ranx = pytest.importorskip("ranx")
    import pandas as pd

    assert topkeval.conventions.LIBRARIES["ranx"].ties == "input_order"
    order = {"q1": ["a", "c", "b"], "q2": ["b", "a", "c"]}  # all tied; the relevant one 3rd and 2nd
    run = ranx.Run({q: {d: 1.0 for d in docs} for q, docs in order.items()})
    want = ranx.evaluate(ranx.Qrels({"q1": {"b": 1}, "q2": {"a": 1}}), run, ["mrr@3"], return_mean=False)
    recs = pd.DataFrame(
        [(q, d, 1.0) for q, docs in order.items() for d in docs], columns=["user", "item", "score"]
    )
    truth = pd.DataFrame({"user": ["q1", "q2"], "item": ["b", "a"], "relevance": [1, 1]})
    got = topkeval.evaluate_as("ranx", recs, truth, 3, metrics=["rr"], per_user=True)
    assert got["rr@3"].tolist() == pytest.approx(list(want)) == [1 / 3, 1 / 2]


def test_empty_or_unreadable_files_are_errors_for_ir_measures_names_too(tmp_path, capsys):
    qrels, run = files(tmp_path)
    empty = tmp_path / "empty"
    empty.write_text("\n")
    assert main(["-m", "P@5", str(empty), str(run)]) == 2
    assert f"the qrels file '{empty}' is empty" in capsys.readouterr().err
    assert main(["-m", "P@5", str(qrels), str(tmp_path / "absent")]) == 2
    assert "cannot read the run file" in capsys.readouterr().err


def test_the_drop_in_imports_no_pandas(tmp_path):
    """Only what a command needs is imported: trec_eval's path reads with pyarrow (or pandas when pyarrow is
    missing) and computes with numpy."""
    qrels, run = files(tmp_path)
    code = (
        "import sys, runpy; sys.argv = ['topkeval', '-m', 'map', sys.argv[1], sys.argv[2]]\n"
        "try:\n    runpy.run_module('topkeval', run_name='__main__')\nexcept SystemExit:\n    pass\n"
        "print('pandas' in sys.modules, file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", code, str(qrels), str(run)], capture_output=True, text=True)
    assert done.stdout.startswith("map ")
    pyarrow = __import__("importlib").util.find_spec("pyarrow") is not None
    assert done.stderr.strip() == ("False" if pyarrow else "True")


# ------------------------------------------------------------ measure names from the registry (issue 36)
def _names_of(key: str) -> list[str]:
    """Every way a measure may name the metric: its ir_measures spelling, its key and its aliases."""
    metric = _registry.METRICS[key]
    cutoff = "@5" if metric.needs_cutoff else ""
    return [name + cutoff for name in (metric.measure_name, key, *metric.aliases)]


@pytest.mark.parametrize("key", list(_registry.METRICS))
def test_every_registry_metric_reaches_the_command_line(key, tmp_path, capsys):
    """Each name reaches the metric: trec_eval's own measure of that name (``Rprec``, ``map``, ``bpref``)
    or the ir_measures parser; the measure's spelling runs end to end (a convention that lacks the metric
    refuses it with evaluate_as's message, never as an unknown measure)."""
    from topkeval import treceval
    from topkeval.__main__ import _ir_measure, _is_trec_eval_name

    for name in _names_of(key):
        assert _ir_measure(trec, name).metric == key, name
        if _is_trec_eval_name(name):
            assert treceval.parse_measures([name]), name
    qrels, run = files(tmp_path)
    spelled = _names_of(key)[0]
    status = main(["-m", spelled, str(qrels), str(run)])
    out, err = capsys.readouterr()
    if status == 0:
        assert out.split("\t")[0].strip() == spelled.split("@")[0] + ("@5" if "@" in spelled else "")
    else:
        assert "unknown measure" not in err and "illegal measure" not in err, err
        assert "trec_eval" in err and repr(key) in err, err  # the library's refusal, naming the metric


def test_the_parser_has_no_list_of_its_own_a_new_entry_is_parsed(monkeypatch, tmp_path, capsys):
    """A metric added to the registry (here a copy of precision) is parsed, printed and, once a library
    computes it, scored from the command line, with no edit to topkeval.trec or topkeval.__main__."""
    fake = dataclasses.replace(
        _registry.METRICS["precision"], key="fake", measure="Fake", aliases=("phony",), needs_cutoff=True
    )
    monkeypatch.setitem(_registry.METRICS, "fake", fake)
    assert trec.parse_measure("fake@3") == trec.parse_measure("PHONY@3") == trec.Measure("fake", 3)
    assert str(trec.parse_measure("fake@3")) == "Fake@3"
    with pytest.raises(topkeval.InvalidInputError, match="needs a cutoff, e.g. Fake@10"):
        trec.parse_measure("Fake")
    with pytest.raises(topkeval.InvalidInputError, match=r"ir_measures: .*, Fake@k\."):
        trec.parse_measure("Nonesuch")
    monkeypatch.setitem(conventions.WHOLE_LIST, "trec_eval", (*conventions.WHOLE_LIST["trec_eval"], "fake"))
    qrels, run = files(tmp_path)
    assert main(["-q", "-m", "Fake@5", "-m", "P@5", str(qrels), str(run)]) == 0
    got = parse(capsys.readouterr().out)
    assert {q for m, q in got if m == "Fake@5"} == {q for m, q in got if m == "P@5"}
    assert all(got[("Fake@5", q)] == got[("P@5", q)] for m, q in got if m == "P@5")


@pytest.mark.compare
def test_r_precision_is_trec_evals_rprec_by_every_name(tmp_path, capsys):
    """R-precision, added by the registry alone, by trec_eval's drop-in name (Rprec), by its aliases
    (R-prec, r_precision: the ir_measures parser) and by ir_measures' Rprec under ir_measures' conventions,
    against trec_eval's own Rprec (pytrec_eval)."""
    qrels, run = files(tmp_path, seed=7)
    want = pytrec_values(trec.read_qrels(qrels), trec.read_run(run))["Rprec"]
    for args in (["-m", "Rprec"], ["-m", "R-prec"], ["-m", "r_precision"]):
        assert main(["-q", *args, str(qrels), str(run)]) == 0
        got = parse(capsys.readouterr().out)
        assert {q for _, q in got} == set(want.index) | {"all"}, args
        for query, value in want.items():
            assert got[("Rprec", query)] == pytest.approx(value, abs=5e-5), (args, query)
        assert got[("Rprec", "all")] == pytest.approx(want.mean(), abs=5e-5)
    ir_measures = pytest.importorskip("ir_measures")
    assert main(["-q", "--convention", "ir_measures", "-m", "Rprec", str(qrels), str(run)]) == 0
    got = parse(capsys.readouterr().out)
    qrels_frame = trec.read_qrels(qrels).rename(columns={"user": "query_id", "item": "doc_id"})
    run_frame = trec.read_run(run).rename(columns={"user": "query_id", "item": "doc_id"})
    theirs = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.Rprec], qrels_frame, run_frame)}
    assert {q for _, q in got} - {"all"} == set(theirs)
    for query, value in theirs.items():
        assert got[("Rprec", query)] == pytest.approx(value, abs=5e-5), query
