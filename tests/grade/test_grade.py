"""The grader: the whole bad-submission corpus in one CLI run, output shapes, the sandbox's limits."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.grade import grader as grade
from helpers.grade.assignments import ASSIGNMENTS
from helpers.grade.sandbox import Limits, decode, run_submission

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).resolve().parent / "grading_corpus"
MANIFEST = json.loads((CORPUS / "manifest.json").read_text())
ESCAPES = [Path("/tmp/helpers_grade_corpus_escape.txt"), Path("/tmp/helpers_grade_corpus_escape2.txt"),
           Path("/tmp/helpers_grade_corpus_escape3.txt"), Path("/tmp/helpers_grade_corpus_dir")]


@pytest.fixture(scope="module")
def corpus_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("corpus-grades")
    for path in ESCAPES:
        assert not path.exists(), f"leftover {path}: remove it before running the tests"
    proc = subprocess.run(
        [sys.executable, "-m", "helpers.grade", "--assignment", MANIFEST["assignment"], "--out", str(out),
         *MANIFEST["options"], str(CORPUS)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    return proc, out


def test_corpus_is_big_enough():
    assert len(MANIFEST["cases"]) >= 20
    assert sorted(MANIFEST["cases"]) == sorted(p.name for p in CORPUS.glob("*.ipynb"))


def test_cli_exits_zero_and_shows_progress(corpus_run):
    proc, _ = corpus_run
    assert proc.returncode == 0, proc.stderr
    assert f"[{len(MANIFEST['cases'])}/{len(MANIFEST['cases'])}]" in proc.stderr
    assert "graded 31 submission(s)" in proc.stderr or "graded" in proc.stderr


def test_grades_csv_shape(corpus_run):
    _, out = corpus_run
    with open(out / "grades.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    targets = [q.target for q in ASSIGNMENTS["from-scratch"].questions]
    assert list(rows[0]) == ["submission", "score", "max_score", *targets]
    assert len(rows) == len(MANIFEST["cases"])
    for row in rows:
        assert float(row["max_score"]) == 14.0
        assert float(row["score"]) == pytest.approx(sum(float(row[t]) for t in targets), abs=0.011)


@pytest.mark.parametrize("name", sorted(MANIFEST["cases"]))
def test_corpus_case_scores(corpus_run, name):
    _, out = corpus_run
    expected = MANIFEST["cases"][name]
    report = json.loads((out / f"{Path(name).stem}.json").read_text())
    got = {q["target"]: q["points"] for q in report["questions"]}
    assert got == expected["points"], report
    assert report["score"] == expected["score"]
    for target, text in expected["feedback_contains"].items():
        scope = report if target == "*" else next(q for q in report["questions"] if q["target"] == target)
        assert text in json.dumps(scope), (target, text)


def test_json_report_shape(corpus_run):
    _, out = corpus_run
    report = json.loads((out / "perfect.json").read_text())
    assert {"submission", "assignment", "seed", "score", "max_score", "questions", "warnings", "cell_errors"} <= set(report)
    for q in report["questions"]:
        assert {"question", "target", "points", "max_points", "status", "checks", "errors"} <= set(q)
        for c in q["checks"]:
            assert set(c) == {"name", "hidden", "passed", "feedback"}
    names = {c["name"] for c in report["questions"][0]["checks"]}
    assert {"k larger than the list", "single relevant item", "relevant items never recommended",
            "returns a float in [0, 1]"} <= names


def test_failures_are_zero_with_a_reason(corpus_run):
    _, out = corpus_run
    for path in out.glob("*.json"):
        for q in json.loads(path.read_text())["questions"]:
            if q["points"] == 0:
                assert all(not c["passed"] for c in q["checks"]) or q["checks"] == []
                assert any(c["feedback"] for c in q["checks"])


def test_hidden_feedback_reveals_no_inputs(corpus_run):
    _, out = corpus_run
    report = json.loads((out / "precision_divides_by_list_length.json").read_text())
    hidden = [c for q in report["questions"] for c in q["checks"] if c["hidden"] and not c["passed"]]
    assert hidden and all("[" not in c["feedback"] and "expected" not in c["feedback"] for c in hidden)


def test_nothing_was_written_outside_the_temp_folder(corpus_run):
    for path in ESCAPES:
        assert not path.exists()


def test_no_submissions_is_a_usage_error(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(SystemExit) as exc:
        grade.main(["--assignment", "from-scratch", "--out", str(tmp_path / "o"), str(tmp_path / "empty")])
    assert exc.value.code == 2


def test_duplicate_names_get_distinct_reports(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    for d in (a, b):
        (d / "x.ipynb").write_text((CORPUS / "perfect.ipynb").read_text())
    reports = grade.grade_many([a / "x.ipynb", b / "x.ipynb"], ASSIGNMENTS["from-scratch"], tmp_path / "o",
                               progress=None)
    assert [r["submission"] for r in reports] == ["x", "x-2"]
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["grades.csv", "x-2.json", "x.json"]


def test_prepare_notebook_keeps_line_numbers_and_strips_magics():
    cells, warnings, errors, _ = grade.prepare_notebook(["!ls\nx = 1\ny = (\n 2)", "%%bash\necho hi", "def f(:"])
    assert [s["line"] for s in cells[0]["statements"]] == [2, 3]
    assert len(warnings) == 2 and errors[0]["cell"] == 3


def test_ast_scan_follows_aliases_and_ignores_paths():
    import ast

    src = ("from helpers.metrics import recall_at_k as r\nimport importlib\n"
           "def recall_at_k(a, b, c):\n    return r(a, b, c)\n"
           "def hit_at_k(a, b, c):\n    return importlib.import_module('helpers').hit_at_k(a, b, c)\n"
           "def precision_at_k(a, b, c):\n    open('/tmp/helpers_notes.txt')\n    return 0.0\n")
    usage = grade.helpers_usage([(1, ast.parse(src))], ["recall_at_k", "hit_at_k", "precision_at_k"])
    assert sorted(usage) == ["hit_at_k", "recall_at_k"]


def test_sandbox_values_are_tagged_not_trusted():
    cells = [{"index": 1, "statements": [{"line": 1, "source": "import numpy as np\nclass F(float):\n    pass\n"},
                                         {"line": 4, "source": "x = [1.5, np.float64(2.0), F(1.0), True, 3]\n"}]}]
    res = run_submission(cells, [{"name": "q", "kind": "value", "target": "x", "cases": []}], allow_helpers=False,
                         limits=Limits(timeout=20))
    tagged = res.questions["q"]["cases"][0]["value"]["v"]
    assert [decode(t)[2] for t in tagged] == ["float", "numpy.float64", "__main__.F", "bool", "int"]


def test_sandbox_cpu_limit_and_output_cap():
    cells = [{"index": 1, "statements": [{"line": 1, "source": "import os\nos.write(1, b'z' * 10_000_000)\n"},
                                         {"line": 3, "source": "print('after')\n"}]}]
    res = run_submission(cells, [{"name": "q", "kind": "value", "target": "os", "cases": []}], allow_helpers=False,
                         limits=Limits(timeout=20, output_bytes=4096))
    assert len(res.output) <= 4096
    assert res.questions["q"]["cases"][0]["value"]["t"] == "other"
