"""The command line (python -m topkeval, the `topkeval` console script): trec_eval's format and numbers."""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from topkeval import trec
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
    return {(measure, query): float(value) for measure, query, value in rows}


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
    assert err.startswith("topkeval: error: ") and f"{run}: data line " in err and err.count("\n") == 1
    assert main(["-m", "MAPP", str(qrels), str(qrels)]) == 2
    assert "unknown measure 'MAPP'" in capsys.readouterr().err
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
