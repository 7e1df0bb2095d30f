"""Assignment specs, the learner-notebook generator, the reference solutions and check()."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import helpers
from helpers.grade import assignments as A
from helpers.grade.grader import grade_many, make_plan
from helpers.grade.scoring import score_question
from tools import learner_notebooks as LN

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"


def test_learner_versions_are_up_to_date():
    assert LN.generate(check_only=True) == [], "run: python tools/learner_notebooks.py"


def test_generate_check_detects_a_stale_copy(tmp_path):
    (tmp_path / "source").mkdir()
    for name in A.ASSIGNMENTS:
        (tmp_path / "source" / f"{name}.ipynb").write_text(
            (EXERCISES / "source" / f"{name}.ipynb").read_text()
        )
    assert sorted(LN.generate(root=tmp_path)) == sorted(A.ASSIGNMENTS)  # written
    assert LN.generate(check_only=True, root=tmp_path) == []
    (tmp_path / "from-scratch.ipynb").write_text("{}")
    assert LN.generate(check_only=True, root=tmp_path) == ["from-scratch"]


def test_learner_versions_hold_no_solution():
    for name in A.ASSIGNMENTS:
        text = (EXERCISES / f"{name}.ipynb").read_text()
        assert "BEGIN SOLUTION" not in text and "END SOLUTION" not in text
        nb = json.loads(text)
        assert all(c.get("outputs", []) == [] for c in nb["cells"])
    assert "hits / k" not in (EXERCISES / "from-scratch.ipynb").read_text()


@pytest.mark.parametrize(
    "bad", ["### BEGIN SOLUTION\nx\n### BEGIN SOLUTION\n", "### BEGIN SOLUTION\nx\n", "x\n### END SOLUTION\n"]
)
def test_strip_solutions_rejects_broken_regions(bad):
    with pytest.raises(ValueError, match="SOLUTION"):
        LN.strip_solutions(bad)


@pytest.fixture(scope="module")
def graded_sources(tmp_path_factory, trusted_mode):
    out = {}
    for name, a in A.ASSIGNMENTS.items():
        d = tmp_path_factory.mktemp(name)
        out[name] = grade_many(
            [EXERCISES / "source" / f"{name}.ipynb", EXERCISES / f"{name}.ipynb"],
            a,
            d,
            jobs=2,
            progress=None,
            mode=trusted_mode,
        )
    return out


@pytest.mark.parametrize("name", sorted(A.ASSIGNMENTS))
def test_reference_solutions_get_full_marks(graded_sources, name):
    source, _ = graded_sources[name]
    assert source["score"] == A.ASSIGNMENTS[name].max_score, json.dumps(source, indent=1)[:3000]


@pytest.mark.parametrize("name", sorted(A.ASSIGNMENTS))
def test_untouched_learner_versions_score_zero(graded_sources, name):
    _, stub = graded_sources[name]
    assert stub["score"] == 0.0
    assert {q["status"] for q in stub["questions"]} == {"not attempted"}


@pytest.mark.parametrize("name", sorted(A.ASSIGNMENTS))
def test_no_report_blames_a_package_the_notebook_does_not_need(graded_sources, name):
    """Issue 32: every report, even 14/14, said "helpers is not available...". The self-check's import is
    expected to be absent while graded: neither the learner versions nor the solutions get a warning."""
    for report in graded_sources[name]:
        assert not any("helpers is not available" in w for w in report["warnings"]), report["warnings"]
        assert report["cell_errors"] == [], report["cell_errors"]


def test_an_old_plain_self_check_import_is_not_blamed_either(tmp_path, trusted_mode):
    """A notebook saved before the try/except (a bare ``from helpers.grade.assignments import check``)
    gets no warning; one that uses ``helpers`` for its answers still does."""
    nb = json.loads((EXERCISES / "source" / "from-scratch.ipynb").read_text())
    nb["cells"][2]["source"] = "import math\n\nfrom helpers.grade.assignments import check\n"
    (tmp_path / "old.ipynb").write_text(json.dumps(nb))
    helped = json.loads(json.dumps(nb))
    helped["cells"][2]["source"] += "from helpers import precision_at_k\n"
    (tmp_path / "helped.ipynb").write_text(json.dumps(helped))
    old, uses = grade_many(
        [tmp_path / "old.ipynb", tmp_path / "helped.ipynb"],
        A.ASSIGNMENTS["from-scratch"],
        tmp_path / "out",
        progress=None,
        mode=trusted_mode,
    )
    assert old["score"] == 14.0 and old["warnings"] == [] and old["cell_errors"] == []
    assert any("helpers is not available" in w for w in uses["warnings"])


def test_hidden_cases_are_deterministic_per_seed():
    for a in A.ASSIGNMENTS.values():
        for q in a.questions:
            assert A.build_cases(a, q, 7) == A.build_cases(a, q, 7)
    a = A.ASSIGNMENTS["from-scratch"]
    q = a.question("ndcg_at_k")
    hidden = lambda seed: [args for chk, args in A.build_cases(a, q, seed) if chk == "randomized cases"]
    assert hidden(1) != hidden(2)
    public = lambda seed: [args for chk, args in A.build_cases(a, q, seed) if chk == "worked examples"]
    assert public(1) == public(2)


def test_graded_inputs_respect_the_stated_rules():
    a = A.ASSIGNMENTS["from-scratch"]
    for q in a.questions:
        for _, (ranking, relevant, k) in A.build_cases(a, q, seed=3):
            assert len(set(ranking)) == len(ranking) and isinstance(k, int) and k >= 1
            if q.target in ("recall_at_k", "average_precision_at_k", "ndcg_at_k"):
                assert relevant, "recall/AP/NDCG are only graded on users with a relevant item"


def test_every_from_scratch_question_tests_the_named_edge_cases():
    for q in A.ASSIGNMENTS["from-scratch"].questions:
        names = {c.name for c in q.checks} | {q.type_check}
        assert {"k larger than the list", "single relevant item", "relevant items never recommended"} <= names
        assert any(c.hidden for c in q.checks) and any(not c.hidden for c in q.checks)


def test_numeric_answers_come_from_helpers():
    recs, relevant = A.choosing_metrics_data()
    users = sorted(relevant)
    q = {x.name: x.reference(None) for x in A.ASSIGNMENTS["choosing-metrics"].questions}
    p5 = sum(helpers.precision_at_k(recs["A"][u], set(relevant[u]), 5) for u in users) / len(users)
    assert q["q1"] == pytest.approx(p5)
    rr = {
        m: sum(helpers.reciprocal_rank_at_k(recs[m][u], set(relevant[u]), 5) for u in users) / len(users)
        for m in "AB"
    }
    assert q["q2"] == pytest.approx(rr["B"] - rr["A"])
    rated = [u for u in users if relevant[u]]
    r5 = sum(helpers.recall_at_k(recs["B"][u], set(relevant[u]), 5) for u in rated) / len(rated)
    assert q["q5"] == pytest.approx(r5)
    assert q["q4"] <= 0.0 and isinstance(q["q3"], int)


def test_loo_reference_matches_a_plain_reading():
    log, recs = A.loo_example_data()
    assert A._ref_held_out(log) == {"ann": 14, "bob": 23, "cat": 31}
    res = A._ref_evaluate_loo(log, recs, 5)
    assert res == pytest.approx({"HR": 2 / 3, "MRR": (1 / 3 + 1) / 3, "NDCG": (0.5 + 1) / 3})


def test_compare_is_strict():
    q = A.ASSIGNMENTS["from-scratch"].question("hit_at_k")
    assert A.compare(q, 1, 1.0) is None  # an int is a number
    assert "bool" in A.compare(q, True, 1.0)
    assert "finite" in A.compare(q, float("inf"), 1.0)
    assert A.compare(q, 0.5, 1.0) == "wrong value"
    assert A.type_problem(q, 1) is None  # the same rule as the notebooks' checks: an int is a number


def test_numpy_scalars_of_the_right_value_pass_everywhere():
    import numpy as np

    from helpers.checking.values import judge_number

    q = A.ASSIGNMENTS["from-scratch"].question("precision_at_k")
    for value, expected in ((np.float64(0.4), 0.4), (np.float32(0.5), 0.5), (np.int64(0), 0.0)):
        assert A.compare(q, value, expected) is None, value
        assert A.type_problem(q, value) is None
        assert judge_number(value, expected).ok
    assert A.compare(q, np.float64(0.5), 0.4) == "wrong value"
    for bad in (np.bool_(True), np.array([0.4]), "0.4", [0.4], float("nan")):
        assert A.compare(q, bad, 0.4) is not None, bad


def test_one_dict_rule_in_the_self_check_and_the_runner():
    """Red team 28: the standard library's dict subclasses are dicts on both sides, read by value;
    a notebook's own subclass is a dict on neither (the runner runs none of its methods)."""
    from collections import Counter, OrderedDict, defaultdict

    from helpers.checking.values import DICT_TYPES
    from helpers.grade import child
    from helpers.grade.scoring import decode

    assert child._DICTS == DICT_TYPES
    q = A.ASSIGNMENTS["leave-one-out"].question("evaluate_loo")
    means = {"HR": 0.5, "MRR": 0.25, "NDCG": 0.375}
    mine = type("Mine", (dict,), {"items": lambda self: iter(())})
    for value in (OrderedDict(means), defaultdict(float, means), Counter(means)):
        assert A.compare(q, value, means) is None, type(value)
        assert decode(child.tag(value)) == means  # what the grader reads of the runner's reply
    assert A.compare(q, mine(means), means) == "returned a Mine, not a dict"
    assert child.tag(mine(means)) == {"t": "other", "type": f"{__name__}.Mine"}
    import numpy as np  # red team 30: a NumPy string is a str id on both sides, keys and values

    held = {np.str_("u0"): np.str_("i3")}
    assert decode(child.tag(held)) == {"u0": "i3"} and type(next(iter(decode(child.tag(held))))) is str
    items = A.ASSIGNMENTS["leave-one-out"].question("held_out_items")
    assert A.compare(items, held, {"u0": "i3"}) is None
    # and a NumPy timedelta is a number on neither side (it subclasses NumPy's integers)
    hr = A.ASSIGNMENTS["from-scratch"].question("hit_at_k")
    assert A.compare(hr, np.timedelta64(1), 1.0) is not None and child.tag(np.timedelta64(1))["t"] == "other"


def test_check_reports_pass_fail_and_not_attempted(capsys):
    def good(ranking, relevant, k):
        return sum(1 for x in ranking[:k] if x in relevant) / k

    def short(ranking, relevant, k):
        top = ranking[:k]
        return sum(1 for x in top if x in relevant) / len(top)

    def stub(ranking, relevant, k):
        raise NotImplementedError()

    assert A.check("precision_at_k", good) is True
    assert A.check("precision_at_k", stub) is False
    assert "not attempted" in capsys.readouterr().out
    assert A.check("average_precision_at_k", lambda r, s, k: 0.3) is False
    assert "FAILED" in capsys.readouterr().out
    assert A.check("answer_q1", ...) is False and A.check("answer_q1", 0.5) is True
    with pytest.raises(ValueError, match="no graded question"):
        A.check("precision", good)
    assert short([1], {1}, 1) == 1.0
    assert A.check("precision_at_k", short) is False  # issue 32: the case Q1's text spells out
    assert "a list shorter than k" in capsys.readouterr().out


# ------------------------------------------------------------------ check() is as honest as the grader
def _right(q, plan):
    return {
        "ev": "result",
        "q": q.name,
        "status": "ok",
        "cases": [{"value": _tagged(v)} for v in plan.expected[q.name]],
    }


@pytest.mark.parametrize("name", sorted(A.ASSIGNMENTS))
def test_check_runs_exactly_the_public_checks_the_grader_reports(name):
    """The grader's public checks, read from its own report (the checks that score nothing), are the
    checks check() runs, on the same cases."""
    a = A.ASSIGNMENTS[name]
    plan = make_plan(a, 11)
    for q in a.questions:
        report = score_question(q, plan.cases[q.name], plan.expected[q.name], _right(q, plan))
        graders = [c["name"] for c in report["checks"] if c["max_points"] == 0]
        assert A.public_checks(q) == graders, q.target
        if q.kind == "value":
            assert graders == []  # an answer variable's only check scores: check() never reveals it
            continue
        ran = A.self_check(q, q.reference, A.public_cases(a, q))
        assert [r.name for r in ran] == graders and all(r.passed and r.cases > 0 for r in ran), ran
        by_grader = [(c, args) for c, args in plan.cases[q.name] if c in graders]
        assert [(c, args) for c, args, _ in A.public_cases(a, q)] == by_grader


def test_check_fails_every_known_wrong_answer_the_public_cases_can_see(capsys):
    """Each wrong implementation a public example exposes fails check(), as it fails the grader."""
    wrong = {
        "precision_at_k": lambda r, s, k: sum(x in s for x in r[:k]) / max(len(r[:k]), 1),
        "recall_at_k": lambda r, s, k: sum(x in s for x in r[:k]) / k,
        "average_precision_at_k": lambda r, s, k: 0.3,
        "dcg_at_k": lambda r, s, k: sum(
            1 / __import__("math").log2(i + 2) for i, x in enumerate(r[:k], 1) if x in s
        ),
        "loo_hit_at_k": lambda r, h, k: 1.0 if h in r else 0.0,
    }
    for target, function in wrong.items():
        assert A.check(target, function) is False, target
        assert "FAILED" in capsys.readouterr().out


def test_check_needs_no_sandbox_and_no_grader_modules():
    """check() runs anywhere the course runs (macOS, Windows, Binder): no bubblewrap on the PATH, none
    of the sandbox's modules imported."""
    code = (
        "import sys\n"
        "from helpers.grade.assignments import check\n"
        "ok = check('precision_at_k', lambda r, s, k: sum(x in s for x in r[:k]) / k)\n"
        "bad = [m for m in ('helpers.grade.isolation', 'helpers.grade.sandbox', 'helpers.grade.seccomp',\n"
        "       'helpers.grade.cgroup', 'helpers.grade.grader') if m in sys.modules]\n"
        "print('RESULT', ok, bad)\n"
    )
    env = {**os.environ, "PATH": "/nonexistent"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert "RESULT True []" in done.stdout, done.stderr[-2000:]


def test_learner_versions_say_how_they_are_graded_and_how_to_self_check():
    for name in A.ASSIGNMENTS:
        text = "".join(
            "".join(c["source"]) for c in json.loads((EXERCISES / f"{name}.ipynb").read_text())["cells"]
        )
        assert "## How this notebook is graded" in text and "check(" in text, name
        assert "macOS" in text and "no sandbox" in text, name  # the self-check runs anywhere
        assert "except ImportError" in text, name  # and its import does not fail while graded


def test_authored_assignments_get_the_same_check(tmp_path, capsys):
    from helpers.grade import authoring
    from tests.grade.test_authoring import SECRET_CASE, source_notebook

    source = tmp_path / "src.ipynb"
    source.write_text(json.dumps(source_notebook()), encoding="utf-8")
    _, spec, assignment = authoring.author(source, tmp_path / "build")
    checks = tmp_path / "build" / "rank-basics.checks.json"
    text = checks.read_text()
    assert str(SECRET_CASE) not in text and "BEGIN SOLUTION" not in text and "sum(top)" not in text
    assert A.check("mean_of_top", lambda v, k: sum(v[:k]) / len(v[:k]), assignment=str(checks)) is True
    assert "public checks the grader runs passed (worked example" in capsys.readouterr().out
    assert A.check("mean_of_top", lambda v, k: sum(v[:k]) / k + 1, assignment=str(checks)) is False
    assert "FAILED" in capsys.readouterr().out
    assert A.check("answer_q2", 3, assignment=str(checks)) is True
    loaded = A.load_public_checks(checks)
    for q in assignment.questions:
        assert A.public_checks(loaded.question(q.target)) == A.public_checks(q)


# ------------------------------------------------------------------ degenerate answers earn little
def _tagged(value):
    """The tag the sandbox's child would send for a plain value."""
    if isinstance(value, bool):
        return {"t": "bool", "v": value}
    if isinstance(value, float):
        return {"t": "float", "v": value.hex()}
    if isinstance(value, int):
        return {"t": "int", "v": str(value)}
    if isinstance(value, str):
        return {"t": "str", "v": value}
    if isinstance(value, dict):
        return {"t": "dict", "v": [[_tagged(k), _tagged(v)] for k, v in value.items()]}
    return {"t": "list", "v": [_tagged(v) for v in value]}


def _degenerate_score(a, strategy, seed):
    plan = make_plan(a, seed)
    total = 0.0
    for q in a.questions:
        cases = plan.cases[q.name]
        # an answer variable has no public case: check() never reveals its value
        public = [
            plan.expected[q.name][i]
            for i, (chk, _) in enumerate(cases)
            if q.kind == "function" and not next(c for c in q.checks if c.name == chk).hidden
        ]
        answer = {"zero": 0.0, "one": 1.0, "first public": public[0] if public else 0.0}[strategy]
        n = 1 if q.kind == "value" else len(cases)
        raw = {"ev": "result", "q": q.name, "status": "ok", "cases": [{"value": _tagged(answer)}] * n}
        total += score_question(q, cases, plan.expected[q.name], raw)["points"]
    return total


@pytest.mark.parametrize("strategy", ["zero", "one", "first public"])
@pytest.mark.parametrize("name", sorted(A.ASSIGNMENTS))
def test_degenerate_answers_earn_under_15_percent(name, strategy):
    a = A.ASSIGNMENTS[name]
    for seed in (1, 2, 3):
        assert _degenerate_score(a, strategy, seed) < 0.15 * a.max_score, (name, strategy, seed)


def test_only_cases_unknown_in_advance_carry_points():
    for a in A.ASSIGNMENTS.values():
        for q in a.questions:
            if any(c.hidden for c in q.checks):
                assert any(c.general for c in q.checks), (a.name, q.target)
            plan = make_plan(a, 5)
            right = {
                "ev": "result",
                "q": q.name,
                "status": "ok",
                "cases": [{"value": _tagged(v)} for v in plan.expected[q.name]],
            }
            report = score_question(q, plan.cases[q.name], plan.expected[q.name], right)
            assert report["points"] == q.points, (a.name, q.target)
            for check in report["checks"]:
                public = not check["hidden"] and any(c.hidden for c in q.checks)
                assert (check["max_points"] == 0) == (public or check["name"] == q.type_check), check


def test_a_wrong_value_of_the_right_type_earns_nothing():
    a = A.ASSIGNMENTS["from-scratch"]
    q = a.question("precision_at_k")
    plan = make_plan(a, 9)
    wrong = [v + 0.125 if v < 0.5 else v - 0.125 for v in plan.expected[q.name]]
    raw = {"ev": "result", "q": q.name, "status": "ok", "cases": [{"value": _tagged(v)} for v in wrong]}
    report = score_question(q, plan.cases[q.name], plan.expected[q.name], raw)
    assert report["points"] == 0.0
    assert next(c for c in report["checks"] if c["name"] == q.type_check)[
        "passed"
    ]  # in [0, 1], yet no points


def test_every_hidden_check_draws_cases_from_the_seed():
    for a in A.ASSIGNMENTS.values():
        for q in a.questions:
            for check in (c for c in q.checks if c.hidden):
                one = [args for chk, args in A.build_cases(a, q, 1) if chk == check.name]
                two = [args for chk, args in A.build_cases(a, q, 2) if chk == check.name]
                assert one != two, f"{a.name} {q.target}: hidden check {check.name!r} is known in advance"


def test_check_never_shows_the_expected_value(capsys):
    def off_by_one(ranking, relevant, k):  # P@k on the top k-1: wrong on the public cases
        top = ranking[: k - 1]
        return sum(1 for x in top if x in relevant) / k

    assert A.check("precision_at_k", off_by_one) is False
    shown = capsys.readouterr().out
    assert "FAILED" in shown and "expected" not in shown
    a = A.ASSIGNMENTS["from-scratch"]
    q = a.question("precision_at_k")
    cases = A.build_cases(a, q, seed=1)
    public = {check.name for check in q.checks if not check.hidden}
    # what the learner's function returned on a public case is shown on purpose ("returned 0.2")
    returned = {off_by_one(*args) for check, args in cases if check in public}
    for _, args in cases:
        right = q.reference(*args)
        if right not in (0.0, 1.0) and right != off_by_one(*args) and right not in returned:
            assert repr(right) not in shown and f"{right:.6g}" not in shown
