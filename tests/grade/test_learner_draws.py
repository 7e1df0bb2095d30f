"""Every learner meets hidden cases and data of their own (issue 33: red team 12's residue).

Red team 12 showed that two sandboxes can pass bits through state the kernel shares between them
(the page cache of the runtime's files, which outlives a sandbox); its demonstrated form is closed by
seccomp, and reading a page then timing reads later still carries a few bits one way. The principle
that makes any such channel worthless: a classmate's answers are not one's own. ``grade_many`` and the
Gradescope entry grade each learner on ``make_plan(assignment, seed, learner)``
(:func:`helpers.grade.grader.learner_seed`), so

- a notebook holding a classmate's answers (what any channel from an earlier sandbox carries: the
  hidden inputs and outputs of the functions, the answers of the drawn data) scores nothing, while
  the same notebook built from the learner's *own* answers scores full marks (the control: the
  oracle form itself is not what fails), and the honest classmate keeps full marks;
- the same learner meets the same cases on every run (a regrade, a late file);
- two learners who hand in the same partly wrong code get the same verdict on every check: the
  check-by-check verdicts of the grading corpus's partly wrong notebooks, and of leave-one-out bugs
  written here, are the same for every learner drawn (``helpers.grade.assignments.DRAWN``).
"""

from __future__ import annotations

import copy
import functools
import io
import json
import math
from pathlib import Path

import pytest

from helpers.grade import exports, isolation, scoring
from helpers.grade import grader as grade
from helpers.grade.assignments import ASSIGNMENTS
from helpers.grade.child import tag
from helpers.grade.sandbox import Limits
from helpers.grade.spec import Assignment

from .redteam_r5.common import notebook
from .redteam_r8.test_runtime_syntax_error_channel import _honest_source

CORPUS = Path(__file__).resolve().parent / "grading_corpus"
SEED = 0x5EED_1EA2_E2_D2A5  # any run seed: each learner's draw is a hash of it and their key
LEARNERS = [f"s{n:03d}" for n in range(16)]


@functools.cache
def _plan(name: str, learner: str) -> grade.Plan:
    return grade.make_plan(ASSIGNMENTS[name], SEED, learner)


def _hidden(plan: grade.Plan, question: str) -> list[tuple]:
    q = plan.assignment.question(question)
    hidden = {c.name for c in q.checks if c.hidden}
    return [args for check, args in plan.cases[question] if check in hidden]


def _public(plan: grade.Plan, question: str) -> list[tuple]:
    q = plan.assignment.question(question)
    hidden = {c.name for c in q.checks if c.hidden}
    return [args for check, args in plan.cases[question] if check not in hidden]


def _assert_own_hidden_cases(question: str, ann: grade.Plan, bob: grade.Plan, run: grade.Plan) -> None:
    assert _public(ann, question) == _public(bob, question)  # the worked examples are everyone's
    assert _hidden(ann, question) != _hidden(bob, question), question
    assert _hidden(ann, question) != _hidden(run, question), question


@pytest.mark.parametrize("name", sorted(ASSIGNMENTS))
def test_each_learner_meets_hidden_cases_of_their_own(name):
    ann, bob, run = _plan(name, "s001"), _plan(name, "s002"), _plan(name, "")
    again = grade.make_plan(ASSIGNMENTS[name], SEED, "s001")
    assert (again.cases, again.expected, again.data_seeds) == (ann.cases, ann.expected, ann.data_seeds)
    assert ann.seed == bob.seed == run.seed == SEED  # the gradebook records the run's seed
    assert (ann.learner, bob.learner, run.learner) == ("s001", "s002", "")
    for q in ASSIGNMENTS[name].questions:
        if q.kind == "function":
            _assert_own_hidden_cases(q.name, ann, bob, run)
    if ann.data_seeds:
        assert not set(ann.data_seeds) & set(bob.data_seeds) and len(ann.data_seeds) == 2
        values = [q.name for q in ASSIGNMENTS[name].questions if q.kind == "value"]
        assert any(ann.expected[v] != bob.expected[v] for v in values)


# ------------------------------------------------------------------ the same bug, the same verdicts
def _corpus_functions(file: str) -> dict:
    """The functions of one of the grading corpus's partly wrong notebooks (plain code the project
    wrote: run here, outside any sandbox)."""
    space: dict = {}
    cells = json.loads((CORPUS / file).read_text(encoding="utf-8"))["cells"]
    for cell in cells:
        if cell["cell_type"] == "code":
            source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
            try:
                exec(source, space)
            except Exception:  # a stub cell, or the cell a corpus notebook breaks on purpose
                pass
    return space


def _held_out(log, *, ties_to_last=True):
    last: dict = {}
    for user, item, time in log:
        if user not in last or time > last[user][0] or (ties_to_last and time == last[user][0]):
            last[user] = (time, item)
    return {user: item for user, (_, item) in last.items()}


def _hit(ranking, item, k):
    return 1.0 if item in list(ranking)[:k] else 0.0


def _ndcg(ranking, item, k, *, cut=True):
    top = list(ranking)[:k] if cut else list(ranking)
    return 1.0 / math.log2(top.index(item) + 2) if item in top else 0.0


def _evaluate(log, recommendations, k, *, rr_cut=True):
    truth = _held_out(log)
    rows = []
    for user, item in truth.items():
        ranking = list(recommendations.get(user, []))
        seen = ranking if not rr_cut else ranking[:k]
        rr = 1.0 / (seen.index(item) + 1) if item in seen else 0.0
        rows.append((_hit(ranking, item, k), rr, _ndcg(ranking, item, k)))
    return {key: sum(r[i] for r in rows) / len(rows) for i, key in enumerate(("HR", "MRR", "NDCG"))}


def _loo(**bugs) -> dict:
    right = {
        "held_out_items": _held_out,
        "loo_hit_at_k": _hit,
        "loo_ndcg_at_k": _ndcg,
        "evaluate_loo": _evaluate,
    }
    return {**right, **bugs}


def _scratch(**bugs) -> dict:
    """The grading corpus's correct from-scratch functions, with ``bugs`` (name -> wrapper of the
    right function) in place of some."""
    right = _corpus_functions("perfect.ipynb")
    return {**right, **{name: wrap(right[name]) for name, wrap in bugs.items()}}


def _cut(shift: int):
    """A function evaluated with the cut-off moved by ``shift`` (rank k + 1 counted, or rank k not)."""
    return lambda f: lambda ranking, relevant, k: f(ranking, relevant, k + shift) if k + shift > 0 else 0.0


TARGETS = (
    "precision_at_k",
    "recall_at_k",
    "hit_at_k",
    "reciprocal_rank_at_k",
    "average_precision_at_k",
    "dcg_at_k",
)


def _evaluate_raises_without_recommendations(log, recommendations, k):
    return _evaluate(log, {user: recommendations[user] for user in _held_out(log)}, k)


PARTLY_WRONG = {
    # the grading corpus's partly wrong from-scratch notebooks
    **{
        file: ("from-scratch", functools.partial(_corpus_functions, file))
        for file in (
            "ndcg_ideal_from_retrieved.ipynb",
            "wrong_ap_denominator.ipynb",
            "off_by_one_rank.ipynb",
            "precision_divides_by_list_length.ipynb",
            "bool_and_int_results.ipynb",
            "partially_correct.ipynb",
            "nan_and_inf.ipynb",
        )
    },
    # the cut-off one rank off (an expert reviewer's: they varied between learners before the
    # boundary ranks were in every draw)
    "hit@k counts rank k+1": ("from-scratch", lambda: _scratch(hit_at_k=_cut(1))),
    "RR counts rank k+1": ("from-scratch", lambda: _scratch(reciprocal_rank_at_k=_cut(1))),
    "hit@k stops at rank k-1": ("from-scratch", lambda: _scratch(hit_at_k=_cut(-1))),
    "RR stops at rank k-1": ("from-scratch", lambda: _scratch(reciprocal_rank_at_k=_cut(-1))),
    "every metric counts rank k+1": ("from-scratch", lambda: _scratch(**dict.fromkeys(TARGETS, _cut(1)))),
    # leave-one-out bugs a learner makes, one at a time
    "ties go to the first row": (
        "leave-one-out", lambda: _loo(held_out_items=functools.partial(_held_out, ties_to_last=False))
    ),
    "LOO hit@k counts rank k+1": (
        "leave-one-out", lambda: _loo(loo_hit_at_k=lambda r, i, k: _hit(r, i, k + 1))
    ),
    "a user without recommendations raises": (
        "leave-one-out", lambda: _loo(evaluate_loo=_evaluate_raises_without_recommendations)
    ),
    "NDCG not cut at k": ("leave-one-out", lambda: _loo(loo_ndcg_at_k=functools.partial(_ndcg, cut=False))),
    "MRR not cut at k": (
        "leave-one-out", lambda: _loo(evaluate_loo=functools.partial(_evaluate, rr_cut=False))
    ),
}  # fmt: skip


def _verdicts(assignment: Assignment, plan: grade.Plan, functions: dict) -> tuple[float, list]:
    """The score and every hidden check's verdict of ``functions`` on ``plan``, scored as the grader
    scores a sandbox's result."""
    score, verdicts = 0.0, []
    for q in assignment.questions:
        fn = functions.get(q.target)
        values = []
        for _, args in plan.cases[q.name]:
            try:
                values.append({"value": tag(fn(*copy.deepcopy(args)))})
            except Exception as exc:
                values.append({"error": f"{type(exc).__name__}: raised"})
        raw = {"ev": "result", "q": q.name, "status": "ok", "cases": values}
        report = scoring.score_question(q, plan.cases[q.name], plan.expected[q.name], raw)
        score += report["points"]
        verdicts += [(q.name, c["name"], c["passed"]) for c in report["checks"] if c["hidden"]]
    return round(score, 2), verdicts


@pytest.mark.parametrize("case", sorted(PARTLY_WRONG))
def test_the_same_bug_gets_the_same_verdicts_for_every_learner(case):
    name, functions = PARTLY_WRONG[case]
    assignment, code = ASSIGNMENTS[name], functions()
    seen = {learner: _verdicts(assignment, _plan(name, learner), code) for learner in LEARNERS}
    score, verdicts = seen[LEARNERS[0]]
    assert 0 < score < assignment.max_score, f"{case} is not partly wrong: {score}"
    differ = {
        learner: sorted(set(v) ^ set(verdicts))
        for learner, (s, v) in seen.items()
        if (s, v) != (score, verdicts)
    }
    assert not differ, f"{case}: {score} for {LEARNERS[0]}; other verdicts: {differ}"


# ------------------------------------------------------------------ a classmate's answers
def _lookup_functions(plan: grade.Plan) -> str:
    """Functions that return the plan's expected value for each of its inputs (what a channel from a
    sandbox graded earlier carries: the hidden inputs and their answers), and 0.0 for the rest."""
    code = ["import json", "def _key(args):\n    return json.dumps(args, sort_keys=True, default=sorted)"]
    for q in plan.assignment.questions:
        table = {
            json.dumps(list(args), sort_keys=True, default=sorted): value
            for (_, args), value in zip(plan.cases[q.name], plan.expected[q.name], strict=True)
        }
        code.append(f"_{q.target} = {table!r}")
        code.append(f"def {q.target}(*args):\n    return _{q.target}.get(_key(list(args)), 0.0)")
    return "\n".join(code)


def _lookup_answers(plan: grade.Plan) -> str:
    """Answers for each of the plan's two data draws, picked by the draw the sandbox holds (what a
    channel from a classmate's two runs carries)."""
    values = [q for q in plan.assignment.questions if q.kind == "value"]
    table = {
        seed: {q.target: plan.expected[q.name][i] for q in values} for i, seed in enumerate(plan.data_seeds)
    }
    return (
        f"import os\n_TABLE = {table!r}\n_MINE = _TABLE.get(os.environ.get('HELPERS_GRADING_SEED'), {{}})\n"
        + "".join(f"{q.target} = _MINE.get({q.target!r})\n" for q in values)
    )


_DONE: list[dict] = []  # the reports of the last class graded (for failure messages)


def _why(file: str) -> str:
    """How the last class run ended for ``file``: its status, reason, warnings and cell errors."""
    report = next((r for r in _DONE if r["file"] == file), {})
    keys = ("status", "reason", "warnings", "cell_errors", "withheld", "seconds")
    return json.dumps({k: report.get(k) for k in keys})[:2000]


def _grade_class(folder: Path, out: Path, name: str) -> dict[str, float]:
    # what is tested is whose draw a file meets, not speed: a loaded CI machine once timed a
    # 78 KB lookup notebook out at the default 10 s (Carol 0/14), so the wall clock is generous here
    done = grade.grade_many(
        sorted(folder.iterdir()), ASSIGNMENTS[name], out, jobs=2, seed=SEED, mode=isolation.BUBBLEWRAP,
        progress=io.StringIO(), limits=Limits(timeout=60.0),
    )  # fmt: skip
    _DONE[:] = done
    for report in done:  # the learner reads no hidden input or expected value of anyone
        text = json.dumps(exports.gradescope_results(report, ASSIGNMENTS[name].title))
        assert "HELPERS_GRADING_SEED" not in text
        # the instructor's report names whose cases these were; the learner's results do not
        assert report["learner"] == f"file:{Path(report['file']).stem}", report["learner"]
        assert report["learner"] not in text and str(SEED) not in text
    return {report["file"]: report["score"] for report in done}


@pytest.mark.parametrize(
    ("name", "oracle", "honest"),
    [
        ("from-scratch", _lookup_functions, lambda: (CORPUS / "perfect.ipynb").read_text(encoding="utf-8")),
        ("choosing-metrics", _lookup_answers, None),
    ],
)
def test_a_classmates_answers_score_nothing(bwrap, tmp_path, name, oracle, honest):
    folder = tmp_path / "class"
    folder.mkdir()
    if honest is None:
        notebook(folder / "alice.ipynb", _honest_source())
    else:
        (folder / "alice.ipynb").write_text(honest(), encoding="utf-8")
    # Mallory's notebook holds Alice's answers; Carol's holds her own (the control)
    notebook(folder / "mallory.ipynb", oracle(_plan(name, "file:alice")))
    notebook(folder / "carol.ipynb", oracle(_plan(name, "file:carol")))
    scores = _grade_class(folder, tmp_path / "out", name)
    full = ASSIGNMENTS[name].max_score
    assert scores["alice.ipynb"] == full, scores
    assert scores["carol.ipynb"] == full, f"the oracle form itself fails: {scores} {_why('carol.ipynb')}"
    assert scores["mallory.ipynb"] == 0.0, f"a classmate's answers scored: {scores}"


def test_gradescope_grades_each_submitter_on_their_own_draw(bwrap, tmp_path):
    """Gradescope's entry reads whose submission it is from ``submission_metadata.json`` (written by
    Gradescope beside the upload): a notebook holding another user's answers scores nothing there,
    one holding the submitter's own scores full marks."""
    name = "choosing-metrics"
    submission, meta = tmp_path / "submission", tmp_path / "submission_metadata.json"
    submission.mkdir()
    meta.write_text(json.dumps({"id": 1, "users": [{"id": 4242, "email": "m@example.org", "name": "M"}]}))
    scores = {}
    for whose in ("gradescope:4242", "gradescope:1111"):
        notebook(submission / f"{name}.ipynb", _lookup_answers(_plan(name, whose)))
        results = tmp_path / f"results-{whose[-4:]}.json"
        argv = ["--assignment", name, "--seed", str(SEED), "--submission", str(submission)]
        assert grade.gradescope([*argv, "--metadata", str(meta), "--results", str(results)]) == 0
        scores[whose] = json.loads(results.read_text(encoding="utf-8"))["score"]
    assert scores == {"gradescope:4242": 10.0, "gradescope:1111": 0.0}, scores


def test_the_run_autograder_hands_over_gradescopes_metadata():
    from helpers.grade import gradescope_package

    script = gradescope_package.run_autograder("from-scratch", 7)
    assert '--metadata "$ROOT/submission_metadata.json"' in script
