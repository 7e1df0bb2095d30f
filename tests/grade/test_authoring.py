"""Instructors author their own assignments (issue 24, item 2).

- A new source notebook (solution markers + a ``# grading`` cell) becomes a learner notebook and a
  spec with one command; its solution scores full marks, its learner version zero, a wrong answer
  loses exactly the hidden check it fails; the hidden cases are in neither the learner notebook nor
  the learner's feedback.
- The built-in ``leave-one-out`` expressed in the same format gives the built-in learner notebook
  byte for byte, the same cases at any seed and the same expected values.
- Bad declarations are refused with a message that says what to fix.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest

from helpers.grade import authoring
from helpers.grade import grader as grade
from helpers.grade.assignments import ASSIGNMENTS
from helpers.grade.spec import build_cases

ROOT = Path(__file__).resolve().parents[2]
SECRET_CASE = 987654  # a hidden fixed case's argument: must never reach a learner
DECLARATION = f"""# grading
def _lists(rng):
    return ([rng.randint(1, 50) for _ in range(rng.randint(1, 8))], rng.randint(1, 5))

ASSIGNMENT = {{"name": "rank-basics", "title": "Rank basics"}}
QUESTIONS = [
    {{"target": "mean_of_top", "points": 3, "result": "number", "abs_tol": 1e-9,
      "checks": [
          {{"name": "worked example", "cases": [([4, 2, 9], 2)]}},
          {{"name": "a hidden fixed case", "hidden": True, "cases": [([{SECRET_CASE}, 1], 1)]}},
          {{"name": "k larger than the list", "hidden": True, "cases": [([3, 5], 7), ([8], 3)]}},
          {{"name": "random lists", "hidden": True, "general": True, "generate": _lists, "n": 12}},
      ]}},
    {{"target": "answer_q2", "title": "How many items does hit@3 look at?", "points": 1, "result": "number"}},
]
"""


def _cell(kind: str, source: str) -> dict:
    cell = {"cell_type": kind, "metadata": {}, "source": source}
    if kind == "code":
        cell.update(outputs=[], execution_count=None)
    return cell


def source_notebook(declaration: str = DECLARATION) -> dict:
    return {
        "cells": [
            _cell(
                "markdown", "# Rank basics\n\nWrite `mean_of_top(values, k)`: the mean of the first k values."
            ),
            _cell(
                "code",
                "def mean_of_top(values, k):\n    ### BEGIN SOLUTION\n    top = values[:k]\n"
                "    return sum(top) / len(top)\n    ### END SOLUTION\n",
            ),
            _cell("code", "### BEGIN SOLUTION\nanswer_q2 = 3\n### END SOLUTION\n"),
            _cell("code", declaration),
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


@pytest.fixture
def authored(tmp_path):
    source = tmp_path / "rank-basics-source.ipynb"
    source.write_text(json.dumps(source_notebook()), encoding="utf-8")
    assert grade.main(["author", str(source), "--out", str(tmp_path / "build")]) == 0
    return (
        tmp_path,
        source,
        tmp_path / "build" / "rank-basics.ipynb",
        tmp_path / "build" / "rank-basics.grader.py",
    )


def _grade(tmp_path, spec, notebooks, mode):
    out = tmp_path / "out"
    unsafe = ["--unsafe-no-sandbox"] if mode == "unsafe-no-sandbox" else []
    args = ["--assignment", str(spec), "--out", str(out), "--quiet", "--seed", "3", *unsafe]
    assert grade.main([*args, *map(str, notebooks)]) == 0
    return {p.stem: json.loads(p.read_text()) for p in out.glob("*.json")}, out


def test_one_command_writes_learner_notebook_and_spec(authored):
    _, _, learner, spec = authored
    text = learner.read_text(encoding="utf-8")
    assert "raise NotImplementedError()" in text and "answer_q2 = ...  # YOUR ANSWER HERE" in text
    assert "sum(top)" not in text and "# grading" not in text and "QUESTIONS" not in text
    assert str(SECRET_CASE) not in text  # hidden cases stay hidden
    assert str(SECRET_CASE) in spec.read_text(encoding="utf-8") and "sum(top)" in spec.read_text(
        encoding="utf-8"
    )
    a = authoring.load_spec(spec)
    assert [q.target for q in a.questions] == ["mean_of_top", "answer_q2"] and a.max_score == 4.0
    assert [q.kind for q in a.questions] == ["function", "value"]


def test_solution_full_marks_learner_zero_wrong_loses_a_check(authored, trusted_mode):
    tmp_path, source, learner, spec = authored
    wrong = copy.deepcopy(source_notebook())
    wrong["cells"][1]["source"] = "def mean_of_top(values, k):\n    return sum(values[:k]) / k\n"
    wrong["cells"][2]["source"] = "answer_q2 = 4\n"
    wrong_path = tmp_path / "wrong.ipynb"
    wrong_path.write_text(json.dumps(authoring.learner_version(wrong)), encoding="utf-8")
    solution = tmp_path / "solution.ipynb"
    shutil.copyfile(source, solution)
    reports, out = _grade(tmp_path, spec, [solution, learner, wrong_path], trusted_mode)
    assert reports["solution"]["score"] == 4.0
    assert reports["rank-basics"]["score"] == 0.0
    assert {q["status"] for q in reports["rank-basics"]["questions"]} == {"not attempted"}
    q1 = reports["wrong"]["questions"][0]
    failed = [c["name"] for c in q1["checks"] if not c["passed"] and c["max_points"] > 0]
    assert failed == ["k larger than the list", "random lists"] and q1["points"] == 1.0
    assert reports["wrong"]["questions"][1]["points"] == 0.0
    for path in (out / "feedback").iterdir():
        assert str(SECRET_CASE) not in path.read_text(encoding="utf-8")


def test_leave_one_out_is_expressible_in_the_format(tmp_path, trusted_mode):
    declaration = ROOT / "exercises" / "source" / "leave-one-out.grading.py"
    source = ROOT / "exercises" / "source" / "leave-one-out.ipynb"
    assert (
        grade.main(["author", str(source), "--grading", str(declaration), "--out", str(tmp_path / "b")]) == 0
    )
    learner = tmp_path / "b" / "leave-one-out.ipynb"
    assert learner.read_bytes() == (ROOT / "exercises" / "leave-one-out.ipynb").read_bytes()
    authored, builtin = (
        authoring.load_spec(tmp_path / "b" / "leave-one-out.grader.py"),
        ASSIGNMENTS["leave-one-out"],
    )
    assert authored.max_score == builtin.max_score
    for qa, qb in zip(authored.questions, builtin.questions, strict=True):
        assert (qa.target, qa.points, qa.result, qa.kind) == (qb.target, qb.points, qb.result, qb.kind)
        assert [(c.name, c.hidden, c.general) for c in qa.checks] == [
            (c.name, c.hidden, c.general) for c in qb.checks
        ]
        for seed in (0, 1, 12345):
            cases = build_cases(authored, qa, seed)
            assert cases == build_cases(builtin, qb, seed)
            for _, args in cases[:10]:
                assert qa.reference(*copy.deepcopy(args)) == pytest.approx(qb.reference(*copy.deepcopy(args)))
    reports, _ = _grade(tmp_path, tmp_path / "b" / "leave-one-out.grader.py", [source, learner], trusted_mode)
    assert sorted(r["score"] for r in reports.values()) == [0.0, 10.0]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: d.replace('"target": "mean_of_top"', '"target": "mean_of_tops"'),
            "defines no 'mean_of_tops'",
        ),
        (lambda d: d.replace('"result": "number", "abs_tol"', '"result": "fuzzy", "abs_tol"'), "not one of"),
        (lambda d: d.replace('"points": 3', '"points": -1'), "points must be > 0"),
        (
            lambda d: d.replace('"cases": [([4, 2, 9], 2)]', '"cases": [([4, 2, 9], 2)], "generate": _lists'),
            "exactly one",
        ),
        (lambda d: d.replace("([3, 5], 7)", "(object(), 7)"), "plain values"),
        (lambda d: d.replace("QUESTIONS = [", "QUESTIONZ = ["), "must define ASSIGNMENT"),
        (lambda d: d + "\nraise RuntimeError('oops')\n", "failed to run: RuntimeError: oops"),
    ],
)
def test_bad_declarations_are_refused_with_the_fix(tmp_path, capsys, change, message):
    source = tmp_path / "s.ipynb"
    source.write_text(json.dumps(source_notebook(change(DECLARATION))), encoding="utf-8")
    assert grade.main(["author", str(source), "--out", str(tmp_path / "b")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "b").exists()


def test_a_notebook_without_declaration_and_unknown_assignment_paths(tmp_path, capsys):
    nb = source_notebook()
    nb["cells"].pop()
    source = tmp_path / "s.ipynb"
    source.write_text(json.dumps(nb), encoding="utf-8")
    assert grade.main(["author", str(source), "--out", str(tmp_path / "b")]) == 2
    assert "no grading declaration" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        grade.main(["--assignment", str(tmp_path / "nope.grader.py"), "--out", str(tmp_path), str(source)])
    assert "cannot read the spec" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        grade.main(["--assignment", "no-such-assignment", "--out", str(tmp_path), str(source)])
    assert "unknown assignment" in capsys.readouterr().err


def test_the_learner_notebook_keeps_the_authors_cells_and_locks_and_nothing_of_a_run():
    """Red teams 22 and 23: an allow-list. Kept: a figure the learner's text shows, cell locks, tags,
    the kernel; dropped: a saved widget state, a picture only the model answer shows, outputs."""
    figure = {"image/png": "iVBORw0KGgo="}
    source = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {"kernelspec": {"name": "python3"}, "widgets": {"state": "0.7315"}},
        "cells": [
            {"cell_type": "markdown", "id": "a", "metadata": {"tags": ["intro"]},
             "source": "See ![f](attachment:f.png)", "attachments": {"f.png": figure, "g.png": figure}},
            {"cell_type": "code", "id": "b",
             "metadata": {"editable": False, "deletable": False, "widgets": 1}, "source": "x = 1",
             "outputs": [{"output_type": "stream", "text": "0.7315"}], "execution_count": 3},
        ],
    }  # fmt: skip
    learner = authoring.learner_version(source)
    assert learner["metadata"] == {"kernelspec": {"name": "python3"}}
    intro, given = learner["cells"]
    assert intro["attachments"] == {"f.png": figure} and intro["metadata"] == {"tags": ["intro"]}
    assert given["metadata"] == {"editable": False, "deletable": False}
    assert given["outputs"] == [] and given["execution_count"] is None and "0.7315" not in json.dumps(learner)


@pytest.mark.parametrize("marker", ["### BEGIN SOLUTION (q1)", "# BEGIN SOLUTION", "### END SOLUTION here"])
def test_a_marker_written_another_way_is_refused(marker):
    with pytest.raises(ValueError, match="reads like a solution marker but is not one"):
        authoring.strip_solutions(f"x = 1\n{marker}\nanswer_q1 = 0.25\n")


def _refused_release(tmp_path, cells: dict[int, str], declaration: str = DECLARATION) -> str | None:
    """The error of authoring ``source_notebook`` with some cells' sources replaced (None: written)."""
    nb = source_notebook(declaration)
    for index, text in cells.items():
        nb["cells"][index]["source"] = text
    source = tmp_path / "source.ipynb"
    source.write_text(json.dumps(nb), encoding="utf-8")
    try:
        authoring.author(source, tmp_path / "build")
    except authoring.AuthoringError as exc:
        return str(exc)
    return None


#: Cyrillic and Ukrainian look-alikes for most letters: too far from the words for the spelling rule
HOMOGLYPH = "### \u0412\u0415GIN \u0405\u041eLU\u0422\u0406\u041eN"
MEAN = "sum(values[:k]) / min(k, len(values))"
HOMOGLYPH_END = "### \u0415ND \u0405\u041eLU\u0422\u0406\u041eN"


@pytest.mark.parametrize(
    "cells, target",
    [
        ({2: "answer_q2 = 3\n"}, "answer_q2"),  # no markers at all
        ({2: f"{HOMOGLYPH}\nanswer_q2 = 3\n{HOMOGLYPH_END}\n"}, "answer_q2"),
        ({1: "def mean_of_top(values, k):\n    return sum(values[:k]) / len(values[:k])\n"}, "mean_of_top"),
        (
            {1: f"def mean_of_top(values, k):\n    {HOMOGLYPH}\n    return {MEAN}\n"},
            "mean_of_top",
        ),
    ],
    ids=["unmarked-answer", "look-alike-answer-markers", "unmarked-function", "look-alike-function-markers"],
)
def test_a_release_that_already_answers_is_refused_whatever_the_markers(tmp_path, cells, target):
    """The positive rule behind the spelling rules: the learner notebook is run as released and a
    graded target right on every case (or an answer variable equal to the solution's) is refused,
    however its markers were spelled (the look-alike letters the spelling rule accepts as a limit)."""
    message = _refused_release(tmp_path, cells)
    assert message is not None and f"already answers {target} (" in message
    assert not (tmp_path / "build").exists()  # nothing written: no learner notebook to hand out


def test_a_release_that_answers_nothing_is_written_with_given_code(tmp_path):
    """Honest given code is not refused: a helper the learner may use, a function that is not graded,
    and a top-level stub that fails (the cells after it run on, as in a learner's run)."""
    given = (
        "import math\nhelper = math.fsum([1, 2])\n\ndef shown(values):\n    return sorted(values)\n\n"
        "### BEGIN SOLUTION\nworked = helper\n### END SOLUTION\n"
    )
    nb = source_notebook()
    nb["cells"].insert(1, _cell("code", given))
    source = tmp_path / "source.ipynb"
    source.write_text(json.dumps(nb), encoding="utf-8")
    learner, _, _ = authoring.author(source, tmp_path / "build")
    text = learner.read_text(encoding="utf-8")
    assert "def shown(values)" in text and "worked = helper" not in text


def test_an_answer_cell_without_a_model_answer_region_is_refused(tmp_path):
    declaration = DECLARATION.replace(
        "]\n", '    {"target": "why", "kind": "text", "points": 2, "rubric": "2: position"},\n]\n'
    )
    nb = source_notebook(declaration)
    nb["cells"].insert(
        1, _cell("markdown", "Why does position matter?\n<!-- answer: why -->\nBecause users scan.")
    )
    source = tmp_path / "source.ipynb"
    source.write_text(json.dumps(nb), encoding="utf-8")
    with pytest.raises(
        authoring.AuthoringError, match=r"already answers why \(its answer cell has no model-answer region\)"
    ):
        authoring.author(source, tmp_path / "build")
    region = "### BEGIN SOLUTION\nBecause users scan.\n### END SOLUTION"
    nb["cells"][1]["source"] = f"Why does position matter?\n<!-- answer: why -->\n{region}"
    source.write_text(json.dumps(nb), encoding="utf-8")
    learner, _, _ = authoring.author(source, tmp_path / "build")
    assert "Because users scan" not in learner.read_text(encoding="utf-8")


def test_the_refusal_names_how_the_release_gives_an_answer_away(tmp_path):
    """A solution handed out as a helper the region only calls is named in the message; a draft of
    the target above its marked version is found under the binding it had then (red team 29)."""
    body = "    return sum(values[:k]) / len(values[:k])\n"
    helper = f"def _top_mean(values, k):\n{body}\n"
    call = "    return _top_mean(values, k)\n"
    region = f"def mean_of_top(values, k):\n    ### BEGIN SOLUTION\n{call}    ### END SOLUTION\n"
    message = _refused_release(tmp_path, {1: helper + region})
    assert message is not None and "mean_of_top (the release's '_top_mean' is right on every case)" in message
    draft = f"def mean_of_top(values, k):\n{body}\n"
    message = _refused_release(tmp_path, {1: draft + region.replace(call, body)})
    assert (
        message is not None and "already answers mean_of_top (its function is right on every case)" in message
    )


@pytest.mark.parametrize(
    "line",
    [
        "### BEGIN HIDDEN TESTS",
        "### END HIDDEN TESTS",
        "=== BEGIN MARK SCHEME ===",
        "=== END MARKING SCHEME ===",
    ],
)
def test_nbgrader_regions_this_tool_does_not_take_are_refused(line):
    """Red team 29: ported from nbgrader, hidden tests and mark schemes went to learners as written."""
    with pytest.raises(ValueError, match="nbgrader's hidden-test or mark-scheme regions"):
        authoring.strip_solutions(f"{line}\nassert answer_q2 == 3\n")
