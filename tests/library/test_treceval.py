"""The trec_eval drop-in (topkeval.treceval, the CLI) against trec_eval's own test suite and pytrec_eval.

trec_eval's test suite: the ``quicktest`` commands of trec_eval's Makefile and the expected outputs in its
``test/`` folder. No package registry ships them (pytrec_eval's sdists download trec_eval while they build),
so ``make test`` downloads trec_eval 10.0's Makefile and ``test/`` from GitHub into ``.cache/trec_eval``,
checked file by file (``tools/trec_eval_suite.py``); ``$TOPKEVAL_TREC_EVAL_DIR`` points elsewhere. Where it
is missing (offline, or GitHub unreachable, as on a CI that reaches only package registries) the test is
SKIPPED loudly, on CI too: nothing of trec_eval is committed here. The comparison with pytrec_eval below
(trec_eval's own C code) runs everywhere.

pytrec_eval is trec_eval's C code (9.0.8): every measure both compute is compared query by query on
generated runs with ties, grades -2..3, unjudged documents, ``-l 2`` and ``-J``.
"""

from __future__ import annotations

import importlib.util
import math
import os
import shlex
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from topkeval import InvalidInputError, _trec_files, treceval
from topkeval.__main__ import main

ROOT = Path(__file__).resolve().parents[2]
SUITE = Path(os.environ.get("TOPKEVAL_TREC_EVAL_DIR", ROOT / ".cache" / "trec_eval"))
#: quicktest options that need input formats topkeval does not read (preferences, judgment groups, z-scores)
UNSUPPORTED = ("-R", "-Z")


def quicktest_lines() -> list[tuple[list[str], str]]:
    """(arguments, expected-output file) of each quicktest line of trec_eval's Makefile."""
    makefile = SUITE / "Makefile"
    if not makefile.is_file():
        return []
    body = makefile.read_text().split("quicktest:", 1)[1].split("\n\n", 1)[0]
    lines = []
    for line in body.splitlines():
        if "./trec_eval" in line and "| diff - " in line:
            command, expected = line.split("| diff - ")
            lines.append((shlex.split(command.split("./trec_eval", 1)[1]), expected.strip()))
    return lines


ALL_LINES = quicktest_lines()
SUPPORTED = [(args, out) for args, out in ALL_LINES if not any(a.startswith(UNSUPPORTED) for a in args)]


#: every test below runs once through each file reader (the readers each test names, in order)
READERS = {"numpy": ("numpy",), "pyarrow": ("pyarrow",), "pandas": ()}


@pytest.fixture(autouse=True, params=list(READERS))
def reader(request, monkeypatch, require):
    """numpy's reader, pyarrow's and pandas' (the fallback) must give one result: each test runs with each."""
    if request.param == "pyarrow":
        available = importlib.util.find_spec("pyarrow")
        require("pyarrow", available, 'pip install "./topkeval[arrow]" (make test installs it)')
    monkeypatch.setattr(_trec_files, "reader_order", lambda size: READERS[request.param])
    return request.param


def need_suite(require):
    """Skip loudly without trec_eval's checkout, on CI too (no registry CI can reach ships it)."""
    if not SUPPORTED:
        pytest.skip(
            "TREC_EVAL'S TEST SUITE MISSING: TEST SKIPPED. No package registry ships trec_eval's test/ "
            "folder and GitHub was unreachable; `make trec-eval-suite` downloads it into .cache/trec_eval "
            "(or set TOPKEVAL_TREC_EVAL_DIR to a checkout of trec_eval 10.0)."
        )


@pytest.mark.parametrize("index", range(9))
def test_quicktest_line_reproduced_line_for_line(index, require, monkeypatch, capsys):
    need_suite(require)
    assert len(SUPPORTED) == 9, f"trec_eval's Makefile changed: {len(SUPPORTED)} supported quicktest lines"
    args, expected = SUPPORTED[index]
    monkeypatch.chdir(SUITE)
    assert main(args) == 0, capsys.readouterr().err
    got = capsys.readouterr().out.splitlines()
    want = (SUITE / expected).read_text().splitlines()
    assert len(want) >= 30
    assert got == want, f"trec_eval {' '.join(args)}"


def test_unsupported_quicktest_lines_are_refused_by_name(require, monkeypatch, capsys):
    need_suite(require)
    refused = [args for args, _ in ALL_LINES if (args, _) not in SUPPORTED]
    assert len(refused) == 6  # -R prefs (2), -R qrels_prefs, -R qrels_jg (2), -Z
    monkeypatch.chdir(SUITE)
    for args in refused:
        assert main(args) == 2
        assert "topkeval: error:" in capsys.readouterr().err


# ------------------------------------------------------------------ against pytrec_eval
def write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines))
    return path


@st.composite
def judged_runs(draw):
    """Queries with tied scores, grades -2..3, documents the qrels do not list, others only the qrels list."""
    n_queries = draw(st.integers(1, 6))
    qrels, run = [], []
    for q in range(n_queries):
        docs = draw(
            st.lists(st.sampled_from([f"d{i}" for i in range(25)]), min_size=1, max_size=20, unique=True)
        )
        extra = draw(st.lists(st.sampled_from([f"x{i}" for i in range(5)]), max_size=5, unique=True))
        judged = draw(st.lists(st.sampled_from(docs + extra), min_size=1, max_size=15, unique=True))
        grades = [draw(st.integers(-2, 3)) for _ in judged]
        grades[0] = max(grades[0], 0)  # a query judged only negatively crashes trec_eval (and pytrec_eval)
        qrels += [f"q{q} 0 {d} {g}" for d, g in zip(judged, grades, strict=True)]
        run += [f"q{q} Q0 {d} 1 {draw(st.integers(0, 4)) / 2} r" for d in docs]
    return qrels, run


def pytrec(qrels_lines, run_lines, names, level=1, judged_only=False) -> dict:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels: dict = {}
    for line in qrels_lines:
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
    run: dict = {}
    for line in run_lines:
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
    wanted = set(names) & pytrec_eval.supported_measures
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, wanted, relevance_level=level, judged_docs_only_flag=judged_only
    )
    return evaluator.evaluate(run)


def assert_equal_per_query(result: treceval.Result, want: dict) -> int:
    compared = 0
    assert sorted(result.queries) == sorted(want)
    for i, query in enumerate(result.queries):
        for label, values in result.values.items():
            if label in want[query] and not label.startswith("relstring"):  # pytrec_eval prints no strings
                got, expected = values[i], want[query][label]
                assert got == pytest.approx(expected, abs=1e-12, nan_ok=True), (query, label)
                compared += 1
    return compared


@pytest.mark.compare
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=judged_runs(), level=st.sampled_from([1, 2]), judged_only=st.booleans())
def test_every_measure_equals_pytrec_eval_per_query(tmp_path, data, level, judged_only):
    qrels_lines, run_lines = data
    qrels, run = write(tmp_path / "qrels", qrels_lines), write(tmp_path / "run", run_lines)
    options = treceval.Options(level=level, judged_only=judged_only, recall_rounding="trec_eval9")
    measures = treceval.parse_measures(["all_trec"])
    result = treceval.evaluate(qrels, run, measures, options)
    names = {m.spec.name for m in measures}
    assert assert_equal_per_query(result, pytrec(qrels_lines, run_lines, names, level, judged_only)) > 0


@pytest.mark.compare
def test_late_queries_are_exact_to_the_last_bit(tmp_path):
    """Review finding: run-wide running maxima and sums lost ~1e-14 in late queries, flipping a printed half.

    300 queries, each with 30 relevant documents of which 3 are retrieved at ranks 51..100, 150 and 160: the
    interpolated precision at recall 0.1 is 3/160 = 0.01875 exactly; the sums behind map_cut and ndcg_cut
    are added in rank order as trec_eval adds them. Compared bit for bit with pytrec_eval (trec_eval's C).
    """
    qrels_lines, run_lines = [], []
    for q in range(300):
        qrels_lines += [f"{q} 0 r{q}_{i} 1" for i in range(30)]
        hits = {99 - q % 50: 0, 149: 1, 159: 2}
        run_lines += [
            f"{q} Q0 {f'r{q}_{hits[i]}' if i in hits else f'n{i}'} {i + 1} {1000 - i} r" for i in range(200)
        ]
    qrels, run = write(tmp_path / "qrels", qrels_lines), write(tmp_path / "run", run_lines)
    names = ["iprec_at_recall", "map_cut", "ndcg_cut", "map", "11pt_avg"]
    result = treceval.evaluate(qrels, run, treceval.parse_measures(names), treceval.Options())
    want = pytrec(qrels_lines, run_lines, set(names))
    for i, query in enumerate(result.queries):
        for label, values in result.values.items():
            if label in want[query] and label != "iprec_at_recall_0.10":  # pytrec_eval: trec_eval 9 points
                assert values[i] == want[query][label], (query, label)
    assert set(result.values["iprec_at_recall_0.10"]) == {3 / 160}


@pytest.mark.compare
def test_recall_rounding_switch_gives_pytrec_evals_numbers(tmp_path, capsys):
    """--recall-rounding trec_eval9 prints pytrec_eval's iprec_at_recall and 11pt_avg."""
    qrels_lines = [f"q{q} 0 r{i} 1" for q in range(2) for i in range(3 + q)]  # R = 3 and 4
    run_lines = [f"q{q} Q0 {d} {i + 1} {9 - i} r" for q in range(2) for i, d in enumerate(["r0", "n0", "r1"])]
    qrels, run = write(tmp_path / "qrels", qrels_lines), write(tmp_path / "run", run_lines)
    want = pytrec(qrels_lines, run_lines, {"iprec_at_recall", "11pt_avg"})

    def printed(*flags):
        assert main(["-q", "-m", "iprec_at_recall", "-m", "11pt_avg", *flags, str(qrels), str(run)]) == 0
        rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
        return {(name.strip(), q): value for name, q, value in rows if q != "all"}

    nine, ten = printed("--recall-rounding", "trec_eval9"), printed()
    assert nine == {key: f"{want[key[1]][key[0]]:.4f}" for key in nine} and len(nine) == 2 * 12
    # 0.4 x 3 = 1.2: the 1st relevant document (precision 1) for trec_eval 10, the 2nd (2/3) for trec_eval 9
    assert ten[("iprec_at_recall_0.40", "q0")] == "1.0000" != nine[("iprec_at_recall_0.40", "q0")] == "0.6667"


WEB_TRACK_QRELS = """\
# a Web-track-style qrels file: -2 spam, -1 junk, 0 not relevant, 1 relevant, 2 highly relevant, 3 key
201 0 clueweb-a -2
201 0 clueweb-b 3
201 0 clueweb-c 0
201 0 clueweb-d -1
201 0 clueweb-e 1
201 0 clueweb-f 2
202 0 clueweb-a 1
202 0 clueweb-g -2
202 0 clueweb-h -2
202 0 clueweb-i 0
203 0 clueweb-j -1
203 0 clueweb-k 0
"""
WEB_TRACK_RUN = """\
201 Q0 clueweb-a 1 9.0 webrun
201 Q0 clueweb-d 2 8.0 webrun
201 Q0 clueweb-c 3 8.0 webrun
201 Q0 clueweb-z 4 7.5 webrun
201 Q0 clueweb-e 5 8.5 webrun
201 Q0 clueweb-b 6 1.0 webrun
202 Q0 clueweb-g 1 3.0 webrun
202 Q0 clueweb-i 2 3.0 webrun
202 Q0 clueweb-a 3 2.0 webrun
203 Q0 clueweb-j 1 5.0 webrun
203 Q0 clueweb-y 2 4.0 webrun
"""


@pytest.mark.compare
def test_web_track_qrels_with_negative_grades_equal_pytrec_eval(tmp_path, capsys):
    """Issue 34: qrels graded -2..3 are read as they are; every measure equals pytrec_eval query by query."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(WEB_TRACK_QRELS)
    run.write_text(WEB_TRACK_RUN)
    qrels_lines = [line for line in WEB_TRACK_QRELS.splitlines() if not line.startswith("#")]
    for level, judged_only in [(1, False), (2, False), (1, True)]:
        options = treceval.Options(level=level, judged_only=judged_only, recall_rounding="trec_eval9")
        measures = treceval.parse_measures(["all_trec"])
        result = treceval.evaluate(qrels, run, measures, options)
        want = pytrec(
            qrels_lines, WEB_TRACK_RUN.splitlines(), {m.spec.name for m in measures}, level, judged_only
        )
        assert assert_equal_per_query(result, want) >= 3 * 80
    # and on the command line: bpref skips the -2 and -1 documents (clipping them to 0 would count them)
    assert main(["-q", "-m", "bpref", "-m", "relstring", str(qrels), str(run)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "relstring             \t201\t'.1.0-3'" in lines
    want = pytrec(qrels_lines, WEB_TRACK_RUN.splitlines(), {"bpref"})
    assert f"bpref                 \t201\t{want['201']['bpref']:6.4f}" in lines
    clipped = tmp_path / "clipped"
    clipped.write_text(WEB_TRACK_QRELS.replace(" -2\n", " 0\n").replace(" -1\n", " 0\n"))
    assert main(["-q", "-m", "bpref", str(clipped), str(run)]) == 0
    assert capsys.readouterr().out.splitlines()[0] != lines[0]


# ------------------------------------------------------------------ conventions, each a decision
def files(tmp_path: Path, qrels: str, run: str) -> tuple[Path, Path]:
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    return tmp_path / "qrels", tmp_path / "run"


def summary(qrels, run, names, **options) -> dict[str, float]:
    result = treceval.evaluate(qrels, run, treceval.parse_measures(names), treceval.Options(**options))
    return {label: float(value) for label, value in result.summary.items()}


def test_ties_go_by_docno_descending_and_the_rank_column_is_not_read(tmp_path):
    qrels, run = files(tmp_path, "q 0 d10 1\n", "q Q0 d10 1 1.0 r\nq Q0 d9 2 1.0 r\nq Q0 d2 3 2.0 r\n")
    # d2 (score 2) first; then the tie d9 > d10 as strings: d10 is third
    assert summary(qrels, run, ["recip_rank"]) == {"recip_rank": pytest.approx(1 / 3)}


def test_complete_flag_averages_over_every_query_of_the_qrels(tmp_path):
    qrels, run = files(
        tmp_path, "a 0 d1 1\nb 0 d1 1\nc 0 d2 1\n", "a Q0 d1 1 1 r\nb Q0 d2 1 1 r\nz Q0 d1 1 1 r\n"
    )
    assert summary(qrels, run, ["num_q", "map", "num_rel"]) == {"num_q": 2, "map": 0.5, "num_rel": 2}
    assert summary(qrels, run, ["num_q", "map", "num_rel"], complete=True) == {
        "num_q": 3,
        "map": pytest.approx(1 / 3),
        "num_rel": 3,
    }


def test_max_docs_level_and_collection_size(tmp_path):
    qrels, run = files(tmp_path, "q 0 d1 1\nq 0 d2 2\n", "q Q0 d3 1 3 r\nq Q0 d2 2 2 r\nq Q0 d1 3 1 r\n")
    assert summary(qrels, run, ["num_rel_ret"], max_docs=2) == {"num_rel_ret": 1}
    assert summary(qrels, run, ["num_rel"], level=2) == {"num_rel": 1}
    utility = summary(qrels, run, ["utility.1,-1,-1,1"], num_docs=10)
    assert utility == {"utility_1,-1,-1,1": 2 - 1 - 0 + (10 + 2 - 3 - 2)}


def test_geometric_means_floor_at_trec_evals_minimum(tmp_path):
    qrels, run = files(tmp_path, "a 0 d1 1\nb 0 d9 1\n", "a Q0 d1 1 1 r\nb Q0 d1 1 1 r\n")
    assert summary(qrels, run, ["gm_map"])["gm_map"] == pytest.approx(math.sqrt(1e-5))


def test_output_layout_is_trec_evals(tmp_path):
    qrels, run = files(tmp_path, "q1 0 d1 1\n", "q1 Q0 d1 1 1 myrun\n")
    result = treceval.evaluate(qrels, run)
    lines = treceval.format_lines(result, treceval.Options(per_query=True))
    assert lines[:2] == ["num_ret               \tq1\t1", "num_rel               \tq1\t1"]
    assert "runid                 \tall\tmyrun" in lines and "map                   \tall\t1.0000" in lines
    assert lines[-1] == "P_1000                \tall\t0.0010"  # official ends with P_1000: 1 hit in 1000
    assert treceval.format_lines(result, treceval.Options(summary=False)) == []


def test_measure_names_and_parameters():
    assert [m.labels for m in treceval.parse_measures(["ndcg_cut.20,10", "ndcg.1=3,2=9"])] == [
        ("ndcg_1=3,2=9",),
        ("ndcg_cut_10", "ndcg_cut_20"),
    ]
    official = [m.spec.name for m in treceval.parse_measures([])]
    assert official == list(treceval.NICKNAMES["official"])
    assert [m.params for m in treceval.parse_measures(["P.5", "P.10"])] == [(5,)]  # the first one counts
    with pytest.raises(InvalidInputError, match="illegal measure 'mapp'.*map"):
        treceval.parse_measures(["mapp"])
    with pytest.raises(
        InvalidInputError, match=r"illegal measure 'ndcg_cut_10' \(did you mean 'ndcg_cut.10'\?"
    ):
        treceval.parse_measures(["ndcg_cut_10"])
    with pytest.raises(InvalidInputError, match="positive"):
        treceval.parse_measures(["P.0"])
    with pytest.raises(InvalidInputError, match="twice"):
        treceval.parse_measures(["P.5,5"])
    with pytest.raises(InvalidInputError, match="name=value"):
        treceval.parse_measures(["ndcg.1"])
    with pytest.raises(InvalidInputError, match="preference judgments"):
        treceval.parse_measures(["all_prefs"])


@pytest.mark.parametrize(
    "qrels_text, run_text, message",
    [
        ("", "q Q0 d 1 1 r\n", "the qrels file '.*qrels' is empty"),
        ("q 0 d 1\n", "# only a comment\n", "the run file '.*run' is empty"),
        ("q 0 d 1\n", "q Q0 d 1 high r\n", "run: line 1: the score 'high' is not a number"),
        ("q 0 d 1\n", "# mine\n\nq Q0 d 1 1 r\nq Q0 e 2 nan r\n", "run: line 4: the score 'nan' is not a"),
        ("q 0 d 1.5\n", "q Q0 d 1 1 r\n", "qrels: line 1: the grade '1.5' is not an integer"),
        ("# judged\nq 0 d 1\n\nq 0 e x\n", "q Q0 d 1 1 r\n", "qrels: line 4: the grade 'x' is not"),
        ("q 0 d 1\n", "q Q0 d 1\n", "run: line 1 has fewer than 6 fields"),
        ("q 0 d 1\n", "#\tcomment\nq Q0 d 1 1 r\nq\tQ0 e 1\n", "run: line 3 has fewer than 6 fields"),
        ("q 0 d 1\nq 0 d 0\n", "q Q0 d 1 1 r\n", "qrels: line 2: query 'q' judges document 'd' twice"),
        (
            "q 0 d 1\n",
            "# r\nq Q0 d 1 1 r\nq Q0 d 2 0 r\n",
            "run: line 3: query 'q' retrieves document 'd'",
        ),
        ("q 0 d 1\n", "p Q0 d 1 1 r\n", "no query of the .*run file has judgments"),
    ],
)
def test_bad_files_are_one_error_line_naming_the_file(tmp_path, capsys, qrels_text, run_text, message):
    qrels, run = files(tmp_path, qrels_text, run_text)
    assert main([str(qrels), str(run)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("topkeval: error: ")
    assert __import__("re").search(message, err), err


def test_a_printed_label_typed_as_a_measure_points_to_its_name(tmp_path, capsys):
    qrels, run = files(tmp_path, "q 0 d1 1\n", "q Q0 d1 1 2 r\n")
    assert main(["-m", "P_5", str(qrels), str(run)]) == 2
    err = capsys.readouterr().err
    assert "illegal measure 'P_5' (did you mean 'P.5'?" in err and err.count("\n") == 1
    assert "trec_eval's measures are: 11pt_avg, all_trec" in err and "ir_measures: P@k" in err
    assert main(["-m", "P.5", str(qrels), str(run)]) == 0 and "P_5 " in capsys.readouterr().out


def test_a_seventh_field_is_ignored_as_trec_eval_does(tmp_path):
    # trec_eval's get_trec_results.c parse_results_line skips the rest of a line after the run id
    qrels, run = files(tmp_path, "q 0 d1 1\n", "q Q0 d2 1 2 r extra\nq Q0 d1 2 1 r more fields\n")
    assert summary(qrels, run, ["map", "runid"]) == {"map": 0.5}


def test_unreadable_file_is_named(tmp_path, capsys):
    assert main([str(tmp_path / "nope"), str(tmp_path / "nope2")]) == 2
    assert "cannot read the qrels file" in capsys.readouterr().err


def test_layouts_read_alike(tmp_path):
    """pyarrow's fast route (single spaces) and pandas' (tabs, runs of spaces, trailing fields) agree."""
    single = "q1 Q0 d1 1 2.5 r\nq1 Q0 d2 2 1.5 r\nq2 Q0 d1 1 0.5 r\n"
    messy = "q1\tQ0\td1 1   2.5 r extra fields\n\n  q1 Q0 d2 2 1.5 r\nq2 Q0 d1 1 0.5 r\n"
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d2 1\nq2 0 d1 1\n")
    (tmp_path / "a").write_text(single)
    (tmp_path / "b").write_text(messy)
    names = ["all_trec"]
    a = treceval.evaluate(qrels, tmp_path / "a", treceval.parse_measures(names))
    b = treceval.evaluate(qrels, tmp_path / "b", treceval.parse_measures(names))
    assert treceval.format_lines(a) == treceval.format_lines(b)
    assert np.array_equal(a.values["map"], [0.5, 1.0])


def test_the_library_has_its_own_compare_extra_and_the_readme_installs_no_course_package():
    import tomllib

    project = tomllib.loads((ROOT / "topkeval" / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    peers = {name.split(">")[0] for name in extras["compare"]}
    assert peers == {"scikit-learn", "pytrec-eval-terrier", "ranx", "ir-measures"}
    readme = (ROOT / "README.md").read_text()
    section = readme.split("### Use it in your own project", 1)[1].split("\n### ", 1)[0]
    installs = [line for line in section.splitlines() if line.startswith("pip install")]
    assert installs and all('".[' not in line and " . " not in line for line in installs), installs
