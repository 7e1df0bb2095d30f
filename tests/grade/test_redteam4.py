"""The fourth red team (issue 33's closing review): attacks beyond the eleven classes already fixed,
each graded beside an honest classmate who must keep full marks.

- a hidden input leaked through a covert channel: which *built-in* exception a function raises,
  or which built-in type it returns, on one hidden case is chosen from that case's input; the
  feedback names the exception types and returned types of hidden cases, so the choice reads back
  as the input;
- the review page must show the whole hand-graded answer (up to the grader's own cap), with its
  line breaks, as data;
- terminal escapes in a file name must not reach the instructor's terminal (``history``, progress).

The class is graded once per module in the real sandbox (skipped loudly without bubblewrap,
failed on CI: ``tests/grade/conftest.py``).
"""

from __future__ import annotations

import io
import json
import shlex
import shutil
import zipfile
from collections import Counter
from pathlib import Path

import pytest

from helpers.grade import exports, isolation
from helpers.grade import grader as grade
from helpers.grade import gradescope_package as GP
from helpers.grade.assignments import ASSIGNMENTS
from helpers.grade.gradebook import Gradebook

from .redteam_r5.common import own_draws

CORPUS = Path(__file__).resolve().parent / "grading_corpus"
A = ASSIGNMENTS["from-scratch"]
SEED = 515151
# Built-in exceptions a learner's code may raise and the feedback shows by name (never
# NotImplementedError, which means "not attempted"): index = the hidden k (1..20).
EXCEPTIONS = [
    "ArithmeticError", "AssertionError", "AttributeError", "BufferError", "EOFError",
    "FloatingPointError", "ImportError", "IndexError", "KeyError", "LookupError", "NameError",
    "OSError", "OverflowError", "RecursionError", "ReferenceError", "RuntimeError", "SystemError",
    "TypeError", "UnicodeError", "ValueError", "ZeroDivisionError", "TimeoutError",
]  # fmt: skip
# Built-in types whose name the type check and a hidden check's "e.g." show: index = k % 8.
TYPES = ["complex", "bytes", "bytearray", "tuple", "set", "frozenset", "range", "slice"]
_MAKE = "[complex(1, 1), b'x', bytearray(b'x'), (1,), {1}, frozenset({1}), range(1), slice(1)]"


def _notebook(path: Path, *sources: str) -> Path:
    cells = [
        {"cell_type": "code", "metadata": {}, "source": s, "outputs": [], "execution_count": None}
        for s in sources
    ]
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


def _first_random(target: str) -> tuple[int, int]:
    """How many cases run before the question's randomised check (a learner can count them: the
    checks' sizes do not depend on the seed), and the k of its first case that leaks.ipynb meets in
    this run (its learner's own draw: no roster, so the key is its report name's)."""
    plan = grade.make_plan(A, SEED, "file:leaks")
    cases = plan.cases[A.question(target).name]
    general = next(c.name for c in A.question(target).checks if c.general)
    index = next(i for i, (check, _) in enumerate(cases) if check == general)
    return index, cases[index][1][2]


def _leaks() -> str:
    p_at, _ = _first_random("precision_at_k")
    r_at, _ = _first_random("recall_at_k")
    return (
        f"EXC = [{', '.join(EXCEPTIONS)}]\nCALLS = {{'p': 0, 'r': 0}}\n"
        "def precision_at_k(ranking, relevant, k):\n"
        "    CALLS['p'] += 1\n"
        f"    if CALLS['p'] == {p_at + 1}:\n"
        "        raise EXC[k - 1]('x')\n"
        "    return 0.0\n"
        "def recall_at_k(ranking, relevant, k):\n"
        "    CALLS['r'] += 1\n"
        f"    if CALLS['r'] == {r_at + 1}:\n"
        f"        return {_MAKE}[k % 8]\n"
        "    return 0.0\n"
    )


# Lone surrogates and terminal escapes made at run time (the notebook's own JSON is clean): printed,
# in an exception's message and class name, returned as a str and as a dict key on worked examples.
SURROGATES = (
    "S = chr(0xD800) + '\\x1b[2J\\x1b]0;owned\\x07'\n"
    "print(S)\n"
    "def precision_at_k(ranking, relevant, k):\n    return S\n"
    "def recall_at_k(ranking, relevant, k):\n    return {S: S}\n"
    "def hit_at_k(ranking, relevant, k):\n    raise type(S, (Exception,), {})(S)\n"
    "def ndcg_at_k(ranking, relevant, k):\n    raise ValueError(S)\n",
    "raise KeyError(S)",
)


@pytest.fixture(scope="module")
def graded(tmp_path_factory, request):
    request.getfixturevalue("bwrap")
    folder = tmp_path_factory.mktemp("class4")
    shutil.copyfile(CORPUS / "perfect.ipynb", folder / "honest.ipynb")
    _notebook(folder / "leaks.ipynb", _leaks())
    _notebook(folder / "surrogates.ipynb", *SURROGATES)
    (folder / "\x1b[2J\x1b]0;owned\x07term.ipynb").write_text("not json")
    out = tmp_path_factory.mktemp("out4")
    paths = sorted(folder.iterdir())
    progress = io.StringIO()
    with own_draws(A, SEED):  # each file graded on its learner's own cases (what _first_random reads)
        done = grade.grade_many(
            paths, A, out, jobs=2, seed=SEED, mode=isolation.BUBBLEWRAP, progress=progress
        )
    by_file = {r["file"]: r for r in done}
    by_file["progress"] = progress.getvalue()
    feedback = {
        r["file"]: (out / "feedback" / f"{r['submission']}.md").read_text(encoding="utf-8") for r in done
    }
    results = {r["file"]: json.dumps(exports.gradescope_results(r, A.title)) for r in done}
    return out, by_file, feedback, results


def test_the_attacker_scores_nothing_and_the_classmate_everything(graded):
    _, by_file, _, _ = graded
    assert by_file["honest.ipynb"]["score"] == 14.0
    assert by_file["leaks.ipynb"]["score"] == 0.0


def test_a_hidden_input_does_not_leak_as_the_built_in_exception_a_hidden_case_raised(graded):
    _, by_file, feedback, results = graded
    assert by_file["honest.ipynb"]["score"] == 14.0
    _, k = _first_random("precision_at_k")
    leaked = EXCEPTIONS[k - 1]
    assert leaked not in feedback["leaks.ipynb"] and leaked not in results["leaks.ipynb"]


def test_a_hidden_input_does_not_leak_as_the_built_in_type_a_hidden_case_returned(graded):
    _, by_file, feedback, results = graded
    assert by_file["honest.ipynb"]["score"] == 14.0
    _, k = _first_random("recall_at_k")
    leaked = f"returned a builtins.{TYPES[k % 8]}"
    assert leaked not in feedback["leaks.ipynb"] and leaked not in results["leaks.ipynb"]


def test_terminal_escapes_in_a_file_name_reach_no_terminal(graded):
    out, by_file, _, _ = graded
    assert by_file["honest.ipynb"]["score"] == 14.0
    with Gradebook.open(out) as book:
        lines = grade.history_lines(book)
    assert not any("\x1b" in line or "\x07" in line for line in lines), lines
    assert any("\\x1b[2J" in line for line in lines)
    assert "\x1b" not in by_file["progress"] and "\x07" not in by_file["progress"]


def test_run_time_surrogates_and_escapes_stay_in_their_own_row_as_text(graded):
    out, by_file, feedback, results = graded
    assert by_file["honest.ipynb"]["score"] == 14.0 and by_file["surrogates.ipynb"]["score"] == 0.0
    text = feedback["surrogates.ipynb"] + results["surrogates.ipynb"] + (out / "grades.csv").read_text()
    assert "\x1b" not in text and "\x07" not in text and "\ud800" not in text
    assert "got ` '" in feedback["surrogates.ipynb"]  # the returned str, shown escaped
    with Gradebook.open(out) as book:
        assert {r.display for r in book.current()} >= {"honest.ipynb", "surrogates.ipynb"}


# ------------------------------------------------------------------ the review page
def _review_class(tmp: Path, mode: str, answers: dict[str, str]) -> Path:
    """An authored assignment with one hand-graded question (tests/grade/test_review.py's), graded."""
    from tests.grade import test_review

    source = tmp / "why-metrics-source.ipynb"
    source.write_text(json.dumps(test_review.source_notebook()), encoding="utf-8")
    from helpers.grade import authoring

    notebook, spec, _ = authoring.author(source, tmp / "build")
    learner = json.loads(notebook.read_text(encoding="utf-8"))
    folder = tmp / "class"
    folder.mkdir()
    for name, answer in answers.items():
        (folder / f"{name}.ipynb").write_text(json.dumps(test_review._answered(learner, answer)))
    out = tmp / "out"
    unsafe = ["--unsafe-no-sandbox"] if mode == isolation.UNSAFE else []
    assert grade.main(["--assignment", str(spec), "--out", str(out), "--quiet", *unsafe, str(folder)]) == 0
    return out


# An honest, long answer: 60 numbered paragraphs (about 5,000 characters), the last one decisive.
LONG = "\n\n".join(f"Point {i}: NDCG discounts by position and uses graded relevance." for i in range(60))
LONG += "\n\nIn short: NDCG@10."


def test_the_review_page_shows_the_whole_answer_with_its_line_breaks(tmp_path, trusted_mode):
    from helpers.grade import review

    out = _review_class(tmp_path, trusted_mode, {"long": LONG, "evil": "</pre><script>alert(1)</script>"})
    with Gradebook.open(out) as book:
        page = review.render_page(book, "t0ken")
    assert "<script>" not in page and "&lt;/pre&gt;&lt;script&gt;" in page
    assert "Point 59: NDCG" in page and "In short: NDCG@10." in page  # nothing of the answer cut
    assert "\\x0a" not in page and "graded relevance.\n\nPoint 1:" in page  # line breaks kept


def test_a_lone_surrogate_in_an_answer_cell_harms_only_its_own_row(tmp_path, trusted_mode):
    """JSON may hold a lone surrogate (``"\\ud800"``); SQLite stores only valid UTF-8."""
    import csv
    import io

    answers = {"ann": "NDCG: graded relevance.", "evil": "x\ud800y", "zed": "Precision.", "zoe": "AP."}
    out = _review_class(tmp_path, trusted_mode, answers)
    rows = {r["file"]: r for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))}
    for name in ("ann", "zed", "zoe"):
        assert rows[f"{name}.ipynb"]["status"] == "graded" and rows[f"{name}.ipynb"]["score"] == "2", rows
    assert rows["evil.ipynb"]["score"] == "2"  # its code is right; its answer waits for the instructor
    from helpers.grade import review

    with Gradebook.open(out) as book:
        page = review.render_page(book, "t0ken")
        texts = {a.display: a.text for a in review.answers(book)}
    assert texts["ann.ipynb"] == answers["ann"] and "\ud800" not in texts["evil.ipynb"]
    assert page.encode("utf-8") and "x\\ud800y" in page


def test_the_gradebook_records_any_learner_text(tmp_path):
    """Defence in depth: whatever string a report carries, recording it never fails."""
    info = {"name": "hw", "title": "HW", "questions": []}
    report = {"assignment": "hw", "submission": "s", "file": "s.ipynb", "seed": 1, "status": "graded",
              "reason": "r\ud800", "score": 0.0, "max_score": 0.0, "questions": [],
              "output": "\udcff"}  # fmt: skip
    with Gradebook.open(tmp_path, info) as book:
        run = book.start_run(1, "bubblewrap", "test")
        book.record(run, "file:s", None, None, report)
        (result,) = book.current()
    assert result.reason == "r\\ud800" and result.report["output"] == "\udcff"


def _run_autograder_args(script: str) -> list[str]:
    """The arguments run_autograder passes to ``python -m helpers.grade gradescope``."""
    command = script.replace("\\\n", " ")
    line = next(x for x in command.splitlines() if "-m helpers.grade gradescope " in x)
    words = shlex.split(line.split("2>")[0])
    return words[words.index("gradescope") + 1 :]


def test_a_typed_guess_does_not_win_by_resubmitting_on_gradescope(tmp_path):
    """``gradescope`` runs once per submission with no gradebook: were the seed drawn anew each time,
    a learner could resubmit a typed answer until a draw made it right (answer_q3 counts users, a small
    integer: the commonest value is right on about a third of the draws). The package draws one seed
    when it is built, records it, and run_autograder passes it to every submission; results.json
    never shows it (with it, the course's public code would rebuild every hidden case)."""
    a = ASSIGNMENTS["choosing-metrics"]
    seeds = []
    for name in ("one.zip", "two.zip"):
        with zipfile.ZipFile(GP.build(a.name, tmp_path / name)) as zf:
            script = zf.read("run_autograder").decode()
            recorded = json.loads(zf.read(GP.SEED_FILE))
        args = grade._gradescope_parser().parse_args(_run_autograder_args(script))
        assert args.seed == recorded["seed"] and recorded["assignment"] == a.name
        seeds.append(args.seed)
    assert seeds[0] != seeds[1]  # each package draws its own (2**32 choices)
    # every submission of one learner to one package is graded against one draw (hers: the key of
    # Gradescope's submission_metadata.json): a typed guess is right on all or none
    meta = tmp_path / "submission_metadata.json"
    meta.write_text(json.dumps({"users": [{"id": 7}]}))
    learner, problem = exports.gradescope_learner(meta)
    assert learner and not problem
    answers = {tuple(grade.make_plan(a, seeds[0], learner).expected["q3"]) for _ in range(5)}
    assert len(answers) == 1
    # ... whereas a draw per submission gave the guess its chance (what the fixed seed removes)
    draws = Counter(grade.make_plan(a, seed).expected["q3"][0] for seed in range(24))
    assert draws.most_common(1)[0][1] / 24 > 0.05, draws
    # --write-run-autograder writes the same script (no bare python3, a fixed seed)
    out = tmp_path / "run_autograder"
    assert (
        grade.main(["gradescope", "--assignment", a.name, "--seed", "99", "--write-run-autograder", str(out)])
        == 0
    )
    assert out.read_text() == GP.run_autograder(a.name, 99)


def test_results_json_never_shows_the_seed(graded):
    _, _, _, results = graded
    assert all(str(SEED) not in text and '"seed"' not in text for text in results.values())
