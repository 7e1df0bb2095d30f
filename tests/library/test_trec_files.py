"""topkeval._trec_files: its three readers give one result, and the drop-in stays below pytrec_eval's memory.

numpy's reader (``loadtxt``, ids as fixed-width bytes) takes small files, pyarrow's large ones, pandas'
what both refuse; ``tests/library/test_treceval.py`` runs every drop-in test through each. Here: the
readers' tables compared directly (long, prefix and UTF-8 ids, ties, messy layouts), the bytes codes
against Python's own byte order, what numpy's reader must leave to pandas (which names the line), and
the whole command's peak resident memory against pytrec_eval's on the same 200-query files.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from topkeval import _trec_files

HAS_PYARROW = importlib.util.find_spec("pyarrow") is not None
DOCNOS = ["d1", "d10", "d1a", "clueweb09-en0000-00-00001", "clueweb09-en0000-00-00010", "é-doc", "ü", "D"]


def routes(require) -> dict[str, tuple[str, ...]]:
    if not HAS_PYARROW:
        require("pyarrow", False, 'pip install "./topkeval[arrow]" (make test installs it)')
    return {"numpy": ("numpy",), "pyarrow": ("pyarrow",), "pandas": ()}


def as_text(column) -> list[str]:
    return _trec_files.texts(column, np.arange(len(column)))


def read_all(path, reader, readers):
    table = reader(path, readers)
    return as_text(table.qid), as_text(table.docno), table.value.tolist(), table.runid


@pytest.mark.parametrize(
    "layout",
    [
        lambda fields: " ".join(fields),  # pyarrow's single spaces
        lambda fields: "\t".join(fields[:3]) + "   " + " ".join(fields[3:]) + " extra",  # tabs, runs, a 7th
    ],
)
def test_the_three_readers_read_one_table(tmp_path, require, layout):
    rng = np.random.default_rng(7)
    run_lines = [
        layout([f"q{q}", "Q0", doc, str(rank), str(rng.integers(0, 3) / 2), "myrun"])
        for q in (1, 2, 10)
        for rank, doc in enumerate(DOCNOS, 1)
    ]
    run = tmp_path / "run"
    run.write_text("# a comment\n" + "\n".join(run_lines) + "\n\n", encoding="utf-8")
    qrels = tmp_path / "qrels"
    grades = list(zip(DOCNOS, range(-2, 6), strict=True))
    qrels.write_text("".join(f"q{q} 0 {d} {g}\n" for q in (1, 2) for d, g in grades))
    tables = {
        name: (read_all(run, _trec_files.read_run, order), read_all(qrels, _trec_files.read_qrels, order))
        for name, order in routes(require).items()
    }
    assert tables["numpy"] == tables["pyarrow"] == tables["pandas"]
    (qid, docno, score, runid), (_, _, grade, _) = tables["numpy"]
    assert docno[:8] == DOCNOS and runid == "myrun" and grade[:8] == list(range(-2, 6))
    assert _trec_files._with_numpy(run.read_bytes().split(b"\n", 1)[1], 6, 4, False) is not None


def test_numpy_reads_the_small_files_and_pyarrow_the_large(tmp_path):
    small = _trec_files.reader_order(_trec_files.NUMPY_UP_TO)
    large = _trec_files.reader_order(_trec_files.NUMPY_UP_TO + 1)
    assert small == ("numpy", "pyarrow") and large == ("pyarrow", "numpy")
    (tmp_path / "a").write_bytes(b"x" * 10)
    assert _trec_files.file_size(tmp_path / "a", tmp_path / "a", tmp_path / "absent") == 20


@given(
    st.lists(st.binary(min_size=1, max_size=20), max_size=30), st.lists(st.binary(min_size=1, max_size=12))
)
def test_bytes_codes_follow_strcmp(first, second):
    first = [b.replace(b"\0", b"a") for b in first]  # numpy's reader leaves files with NUL bytes to pandas
    second = [b.replace(b"\0", b"a") for b in second]
    a, b, n = _trec_files.dense_codes(np.array(first, dtype="S20"), np.array(second, dtype="S12"))
    distinct = sorted(set(first + second))  # Python compares bytes as C's strcmp does
    assert n == len(distinct)
    assert [distinct[c] for c in a] == first and [distinct[c] for c in b] == second


def test_bytes_codes_join_the_other_readers_columns(require):
    """A file numpy reads (bytes) with one pandas or pyarrow reads (the other file refused by numpy)."""
    first, second = [b"q10", b"q2", "é".encode()], ["q2", "q1", "é"]
    want = _trec_files.dense_codes(np.array(first), np.array([s.encode() for s in second]))
    routes(require)  # without pyarrow: skipped loudly (fails on CI)
    other = {"pandas": np.array(second, dtype=object), "pyarrow": __import__("pyarrow").array(second)}
    for column in other.values():
        got = _trec_files.dense_codes(np.array(first), column)
        assert [g.tolist() for g in got[:2]] + [got[2]] == [w.tolist() for w in want[:2]] + [want[2]]
        got = _trec_files.dense_codes(column, np.array(first))
        assert [g.tolist() for g in got[:2]] == [w.tolist() for w in want[1::-1]]


@pytest.mark.parametrize(
    "data",
    [
        b"q Q0 d 1 nan r\n",  # a NaN score: pandas' route names the line
        b"q Q0 d 1 1_000 r\n",  # numpy would read 1000; pandas refuses it
        b"q Q0 d 1 1 r\nq Q0 e 2\n",  # a short line
        b"q Q0 d 1 1\n",  # five fields: the run id is missing
        b"q Q0 d\x0b1 1 1 r\n",  # a vertical tab: numpy splits at it, pandas does not
        b"q Q0 d\xff 1 1 r\n",  # not UTF-8
    ],
)
def test_numpy_leaves_what_it_would_read_otherwise_to_pandas(data):
    assert _trec_files._with_numpy(data, 6, 4, False) is None


def test_a_grade_that_is_not_whole_is_left_to_pandas():
    assert _trec_files._with_numpy(b"q 0 d 1.5\n", 4, 3, True) is None
    assert _trec_files._with_numpy(b"q 0 d 1.0\n", 4, 3, True)[3].tolist() == [1.0]


def test_the_run_id_is_the_last_lines():
    assert _trec_files._last_field(b"q Q0 d 1 1 a\nq Q0 e 2 0 b\n \n\n", 5) == "b"


# ------------------------------------------------------------------ whole commands, as a user runs them
def test_small_files_need_neither_pandas_nor_pyarrow(tmp_path):
    (tmp_path / "qrels").write_text("q1 0 d1 1\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 2.5 r\n")
    code = (
        "import sys, runpy; sys.argv = ['topkeval', '-m', 'map', sys.argv[1], sys.argv[2]]\n"
        "try:\n    runpy.run_module('topkeval', run_name='__main__')\nexcept SystemExit:\n    pass\n"
        "print(sorted({'pandas', 'pyarrow'} & set(sys.modules)), file=sys.stderr)"
    )
    args = [sys.executable, "-c", code, str(tmp_path / "qrels"), str(tmp_path / "run")]
    done = subprocess.run(args, capture_output=True, text=True)
    assert done.stdout.startswith("map ") and done.stderr.strip() == "[]", done.stderr


@pytest.mark.compare  # needs pytrec_eval (the compare extra; not in make test-pandas2's venv)
def test_the_drop_in_peaks_below_pytrec_eval_on_200_queries(tmp_path, require):
    """Whole processes on the same files (benchmarks/trec.py's 200 x 1000 shape), peak resident memory."""
    require("pytrec_eval", importlib.util.find_spec("pytrec_eval"), 'pip install "./topkeval[compare]"')
    from benchmarks import trec as bench

    qrels, run = bench.write_files(tmp_path, 200)
    script = tmp_path / "pytrec.py"
    script.write_text(bench.PYTREC_SCRIPT)
    measures = [a for m in bench.MEASURES for a in ("-m", m)]
    ours = [sys.executable, "-m", "topkeval", *measures, str(qrels), str(run)]
    _, our_peak, _, our_text = bench.timed(ours)
    _, their_peak, _, their_text = bench.timed([sys.executable, str(script), str(qrels), str(run)])
    got, want = bench.means(our_text), bench.means(their_text)
    assert all(abs(got[name] - want[name]) <= 5e-5 + 1e-12 for name in bench.PYTREC_NAMES)
    assert our_peak < their_peak, f"peak resident MiB: topkeval {our_peak:.0f}, pytrec_eval {their_peak:.0f}"


def test_the_readme_quotes_the_committed_benchmark():
    """The README's speed and memory sentence for the drop-in is the committed `make bench` output's."""
    root = Path(__file__).resolve().parents[2]
    output = (root / "benchmarks" / "last_run_trec.txt").read_text()
    readme = " ".join((root / "README.md").read_text().split())
    rows = re.findall(r"^(\d+) x 1000 \| .*? \| ([\d.]+x) \| .* \| (\d+) / (\d+)$", output, re.M)
    assert [row[0] for row in rows] == ["200", "2000"]
    for queries, speed_up, ours, theirs in rows:
        shape = f"{int(queries):,} (queries )?× 1000( documents)?"
        assert re.search(f"{shape} {re.escape(speed_up)} faster, (peak resident memory )?{ours} MiB", readme)
        assert f"{ours} MiB against {theirs}" in readme, shape
    load = re.search(r"load average before: ([\d.]+)", output).group(1)
    date = re.search(r"(\d{4}-\d\d-\d\d) \d\d:\d\d UTC", output).group(1)
    assert f"{date}, 2 cores shared with other jobs, load average {load} at the start" in readme


@pytest.mark.parametrize("score", ["nan", "+nan", "NaN"])
def test_a_nan_score_is_an_error_naming_the_line_whichever_reader(tmp_path, require, score):
    run = tmp_path / "run"
    run.write_text(f"q Q0 d 1 1 r\nq Q0 e 2 {score} r\n")
    for order in routes(require).values():
        with pytest.raises(_trec_files.InvalidInputError, match="run: line 2: the score .* is not a number"):
            _trec_files.read_run(run, order)
