"""The three graded assignments, written in the spec of :mod:`helpers.grade.spec`, and the learner's
``check``.

Each assignment in :data:`ASSIGNMENTS` lists its questions. A question names
the function (or answer variable) the learner writes, its points, the
``helpers`` reference it is compared with, and its *checks*: named properties
("k larger than the list", "single relevant item", ...) each with cases.
Public checks use small hand-computable cases from the notebook; hidden
checks draw random cases from a grader-side seed, so they reveal nothing and
cannot be memorised: each learner's cases come from the gradebook's seed (drawn at
its first run, recorded in the reports) and their learner key
(:func:`helpers.grade.grader.learner_seed`). Only hidden checks carry points (see
:mod:`helpers.grade.scoring`).
:mod:`helpers.grade` runs them; learners call :func:`check` in their notebook
for instant feedback on the public cases.

Each assignment also names the packages its learners may import while being
graded (:attr:`Assignment.sandbox_packages`): only those are in the sandbox.

The learner notebooks ``exercises/<name>.ipynb`` are generated from the
sources ``exercises/source/<name>.ipynb`` by ``tools/learner_notebooks.py``.

Examples
--------
>>> from helpers.grade.assignments import ASSIGNMENTS
>>> sorted(ASSIGNMENTS)
['choosing-metrics', 'from-scratch', 'leave-one-out']
>>> [q.target for q in ASSIGNMENTS["from-scratch"].questions][:3]
['precision_at_k', 'recall_at_k', 'hit_at_k']
"""

from __future__ import annotations

import copy
import json
import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from helpers.checking.values import format_value
from helpers.experiments.exercise_data import choosing_metrics_data

from .spec import Assignment, Check, Question, _is_number, build_cases, compare, type_problem

__all__ = [
    "Check",
    "Question",
    "Assignment",
    "ASSIGNMENTS",
    "build_cases",
    "compare",
    "type_problem",
    "check",
    "public_checks",
    "public_cases",
    "self_check",
    "SelfCheck",
    "public_checks_file",
    "load_public_checks",
    "choosing_metrics_data",
    "loo_example_data",
]

#: Seed for :func:`check`, which only builds the public cases (they ignore the seed).
PUBLIC_SEED = 0


# ------------------------------------------------------------- reference wrappers
def _empty_ok(function: str) -> bool:
    """Whether a user with no relevant item has a defined value (0.0): the registry's rule for the metric."""
    from helpers import METRICS

    rules = {m.function: m.empty_value is not None for m in METRICS.values()}
    return rules.get(function, True)  # dcg_at_k is not a registry metric: a sum, 0.0 with nothing relevant


def _ref(name: str) -> Callable[..., float]:
    def call(ranking, relevant, k):
        import helpers

        return getattr(helpers, name)(list(ranking), set(relevant), k)

    call.__name__ = f"reference_{name}"
    return call


def _ref_loo(name: str) -> Callable[..., float]:
    def call(ranking, held_out, k):
        import helpers

        return getattr(helpers, name)(list(ranking), {held_out}, k)

    call.__name__ = f"reference_loo_{name}"
    return call


def _ref_held_out(log):
    import pandas as pd

    import helpers

    frame = pd.DataFrame([list(row) for row in log], columns=["user", "item", "timestamp"])
    _, test = helpers.leave_one_out_split(frame)
    return {row.user: row.item for row in test.itertuples(index=False)}


def _ref_evaluate_loo(log, recommendations, k):
    import pandas as pd

    import helpers

    frame = pd.DataFrame([list(row) for row in log], columns=["user", "item", "timestamp"])
    _, test = helpers.leave_one_out_split(frame)
    rows = [(u, item, r) for u, items in recommendations.items() for r, item in enumerate(items, start=1)]
    recs = pd.DataFrame(rows, columns=["user", "item", "rank"])
    table = helpers.evaluate(recs, test[["user", "item"]], k, metrics=["hit", "rr", "ndcg"])
    means = table.mean()
    return {"HR": float(means[f"hit@{k}"]), "MRR": float(means[f"rr@{k}"]), "NDCG": float(means[f"ndcg@{k}"])}


# ------------------------------------------------------------------ case makers
# The worked example of the notebooks (seed 001): ten items ranked, three relevant.
EXAMPLE_RANKING = [4, 6, 2, 3, 1, 8, 10, 9, 5, 7]
EXAMPLE_RELEVANT = {1, 6, 9}


#: Drawn cases of a hidden check (more for a randomised check). Every learner meets a draw of their own
#: (``grader.learner_seed``), so a check's verdict on a bug must not depend on the draw: a targeted
#: check's drawn cases keep to its property (they never catch by luck what another check is for), and a
#: randomised check draws so many that a bug some case can show is shown on (almost) every draw. With 4
#: or 5 drawn cases per check, the same wrong notebook's partial credit differed between learners for 2
#: of the grading corpus's 7 partly wrong notebooks; ``tests/grade/test_learner_draws.py`` measures it.
DRAWN = 16


def _fixed(*cases: tuple) -> Callable[[random.Random], list[tuple]]:
    return lambda rng: [copy.deepcopy(c) for c in cases]


def _random_case(rng: random.Random, *, n_rel_min: int = 1) -> tuple:
    n_items = rng.randint(5, 40)
    length = rng.randint(0, min(n_items, 15))
    ranking = rng.sample(range(n_items), length)
    n_rel = rng.randint(n_rel_min, min(n_items, 8))
    relevant = set(rng.sample(range(n_items), n_rel))
    hits = [i for i, item in enumerate(ranking) if item in relevant]
    if hits and rng.random() < 0.5:  # a hit (the first one, or any) at rank k or at rank k + 1
        i = hits[0] if rng.random() < 0.5 else rng.choice(hits)
        return ranking, relevant, max(1, i + rng.randint(0, 1))
    return ranking, relevant, rng.randint(1, 20)


def _randomized(n: int = 6 * DRAWN, n_rel_min: int = 1):
    return lambda rng: [_random_case(rng, n_rel_min=n_rel_min) for _ in range(n)]


def _k_beyond_list(rng: random.Random) -> list[tuple]:
    cases = [(["a", "b", "c"], {"a", "c", "z"}, 5), ([7], {7}, 3), ([], {1, 2}, 2), ([5, 8], {8}, 3)]
    for _ in range(DRAWN):
        length = rng.randint(1, 6)
        ranking = rng.sample(range(30), length)
        k = length + rng.randint(1, 6)
        inside = set(rng.sample(ranking, rng.randint(1, length)))
        # |R| <= k: more relevant items than k is the denominators' check
        outside = set(rng.sample(range(30, 40), rng.randint(0, min(2, k - len(inside)))))
        cases.append((ranking, inside | outside, k))
    return cases


def _single_relevant(rng: random.Random) -> list[tuple]:
    cases = [(EXAMPLE_RANKING, {2}, 5), (EXAMPLE_RANKING, {7}, 5), (EXAMPLE_RANKING, {4}, 1)]
    cases += [(EXAMPLE_RANKING, {3}, 4), (EXAMPLE_RANKING, {1}, 4)]  # the item at rank k, at rank k + 1
    for _ in range(DRAWN):
        ranking = rng.sample(range(30), rng.randint(3, 12))
        k = rng.randint(1, len(ranking) - 1)  # k beyond the list: its own check
        target = ranking[k - 1 + rng.randint(0, 1)] if rng.random() < 0.5 else rng.choice(ranking + [99])
        cases.append((ranking, {target}, k))
    return cases


def _never_recommended(rng: random.Random) -> list[tuple]:
    cases: list[tuple] = [(["a", "b", "c"], {"x", "y"}, 3)]
    for _ in range(DRAWN):
        ranking = rng.sample(range(20), rng.randint(1, 10))
        relevant = set(rng.sample(range(20, 40), rng.randint(1, 5)))
        cases.append((ranking, relevant, rng.randint(1, 12)))
    return cases


def _below_k_only(rng: random.Random) -> list[tuple]:
    cases = [(EXAMPLE_RANKING, {9, 5}, 4), (EXAMPLE_RANKING, {1}, 4)]  # {1}: at rank k + 1
    for _ in range(DRAWN):
        ranking = rng.sample(range(30), rng.randint(6, 12))
        k = rng.randint(1, 4)
        relevant = set(rng.sample(ranking[k:], rng.randint(1, 2)))
        cases.append((ranking, relevant | {ranking[k]} if rng.random() < 0.5 else relevant, k))
    return cases


def _no_relevant(rng: random.Random) -> list[tuple]:
    cases: list[tuple] = [(["a", "b"], set(), 2), (EXAMPLE_RANKING, set(), 5), ([], set(), 1)]
    for _ in range(DRAWN):  # drawn too, so that no hidden check is made of cases known in advance only
        cases.append((rng.sample(range(40), rng.randint(0, 12)), set(), rng.randint(1, 15)))
    return cases


def _many_relevant(rng: random.Random) -> list[tuple]:
    # |R| > k (AP divides by k) and |R| < k with misses (AP divides by |R|)
    cases = [
        (EXAMPLE_RANKING, {4, 6, 2, 3, 1, 8}, 3),
        (EXAMPLE_RANKING, {6, 9}, 10),
        (EXAMPLE_RANKING, {1, 6, 9, 42}, 5),
        ([4, 6], {4, 6, 2, 3, 1, 8}, 3),  # a list shorter than k, and more relevant items than k
    ]
    for _ in range(DRAWN):
        ranking = rng.sample(range(25), 10)
        cases.append((ranking, set(rng.sample(range(25), rng.randint(2, 12))), rng.randint(2, 8)))
    return cases


def _first_hit(rng: random.Random) -> list[tuple]:
    cases = [(EXAMPLE_RANKING, {6, 2, 3}, 5), (EXAMPLE_RANKING, {3, 1}, 10)]
    for _ in range(DRAWN):
        ranking = rng.sample(range(20), 10)
        cases.append((ranking, set(rng.sample(ranking[2:], 3)), 10))
    return cases


def _outside_list(rng: random.Random) -> list[tuple]:
    # relevant items that the ranking never lists must still count in IDCG
    cases = [(EXAMPLE_RANKING[:5], {1, 6, 9}, 5), (["a", "b"], {"a", "c", "x"}, 2)]
    for _ in range(DRAWN):
        ranking = rng.sample(range(20), 6)
        relevant = set(rng.sample(ranking, 2)) | set(rng.sample(range(20, 30), rng.randint(1, 3)))
        cases.append((ranking, relevant, rng.randint(2, 8)))
    return cases


def _discount_cases(rng: random.Random) -> list[tuple]:
    return [([1, 0, 2], {1, 2}, 3), (EXAMPLE_RANKING, {1, 6, 9}, 10), (["a", "b", "c", "d"], {"d"}, 4)]


WORKED = _fixed(
    (EXAMPLE_RANKING, EXAMPLE_RELEVANT, 5),
    (EXAMPLE_RANKING, EXAMPLE_RELEVANT, 10),
    (["a", "b", "c", "d"], {"a", "c", "x"}, 2),
    (["a", "b", "c", "d"], {"a", "c", "x"}, 4),
)


#: The short lists the notebook's text spells out (Q1: ``precision_at_k(["a"], {"a"}, 4)`` is 1/4): a public
#: check, so that check() catches dividing by the length of a short list, as the grader's hidden checks do.
SHORT_LISTS = _fixed((["a"], {"a"}, 4), (["a", "b", "c"], {"a", "c", "z"}, 5))


def _scratch_checks(*extra: Check, empty_ok: bool, n_rel_min: int = 1) -> tuple[Check, ...]:
    checks = [
        Check("worked examples", WORKED),
        Check("a list shorter than k", SHORT_LISTS),
        Check("k larger than the list", _k_beyond_list, hidden=True),
        Check("single relevant item", _single_relevant, hidden=True),
        Check("relevant items never recommended", _never_recommended, hidden=True),
        Check("only the top k positions count", _below_k_only, hidden=True),
    ]
    if empty_ok:
        checks.append(Check("no relevant item gives 0.0", _no_relevant, hidden=True))
    checks.extend(extra)
    checks.append(
        Check("randomized cases", _randomized(n_rel_min=0 if empty_ok else 1), hidden=True, general=True)
    )
    return tuple(checks)


def _scratch() -> Assignment:
    q = []
    specs = [
        ("precision_at_k", "Precision@k", (), "unit"),
        (
            "recall_at_k",
            "Recall@k",
            (Check("several relevant items, some missed", _many_relevant, hidden=True),),
            "unit",
        ),
        ("hit_at_k", "Hit@k", (), "unit"),
        (
            "reciprocal_rank_at_k",
            "Reciprocal rank@k",
            (Check("only the first hit counts", _first_hit, hidden=True),),
            "unit",
        ),
        (
            "average_precision_at_k",
            "Average precision@k",
            (Check("denominator is min(k, |R|)", _many_relevant, hidden=True),),
            "unit",
        ),
        ("dcg_at_k", "DCG@k", (Check("discount 1/log2(rank + 1)", _discount_cases),), "nonneg"),
        (
            "ndcg_at_k",
            "NDCG@k",
            (
                Check("IDCG uses all relevant items, also those not recommended", _outside_list, hidden=True),
                Check("IDCG is cut at k", _many_relevant, hidden=True),
            ),
            "unit",
        ),
    ]
    for i, (target, title, extra, result) in enumerate(specs, start=1):
        checks = _scratch_checks(*extra, empty_ok=_empty_ok(target))
        q.append(Question(f"q{i}", title, target, 2.0, _ref(target), checks, result=result))
    return Assignment(
        "from-scratch",
        "Top-K metrics from scratch",
        tuple(q),
        notes="Write each metric yourself; helpers is not available while grading.",
    )


# ---- leave-one-out
def _random_log(rng: random.Random, n_users: int = 6, ties: bool = True) -> list[list]:
    log: list[list] = []
    for u in range(n_users):
        n = rng.randint(2, 6)
        items = rng.sample(range(1, 30), n)
        # without ties, each user's times are distinct (a tie is the tie check's, never met by luck here)
        times = [rng.randint(1, 8) for _ in range(n)] if ties else rng.sample(range(1, 1000), n)
        log.extend([f"u{u}", item, t] for item, t in zip(items, times, strict=True))
    rng.shuffle(log)
    return log


def loo_example_data() -> tuple[list[list], dict[str, list[int]]]:
    """The small interaction log and recommendations of the leave-one-out exercise.

    Returns
    -------
    log : list of [user, item, timestamp]
    recommendations : dict user -> ranked list of items

    Examples
    --------
    >>> log, recs = loo_example_data()
    >>> log[:2]
    [['ann', 10, 1], ['ann', 11, 2]]
    >>> recs["ann"][:3]
    [12, 13, 14]
    """
    log = [
        ["ann", 10, 1],
        ["ann", 11, 2],
        ["ann", 14, 3],
        ["bob", 20, 5],
        ["bob", 21, 4],
        ["bob", 22, 9],
        ["bob", 23, 9],
        ["cat", 30, 2],
        ["cat", 31, 7],
    ]
    recs = {
        "ann": [12, 13, 14, 15, 16],
        "bob": [23, 24, 25, 26, 27],
        "cat": [32, 33, 34, 35, 36],
    }
    return log, recs


def _loo_recs(rng: random.Random, log: list[list], k: int, without: str = "") -> dict:
    """Recommendations for the users of ``log``: some users have none (left out, or an empty list:
    each scores 0); ``without`` (``"left out"`` or ``"empty"``) makes sure one user has none so."""
    truth = _ref_held_out(log)
    chosen = rng.randint(1, len(truth) - 1) if without else 0
    recs: dict = {}
    for n, (user, item) in enumerate(truth.items()):
        if n == chosen and without:
            if without == "empty":
                recs[user] = []
            continue
        if n and rng.random() < 0.15:  # a user without recommendations (left out, or an empty list) scores 0
            if rng.random() < 0.5:
                recs[user] = []
            continue
        ranking = rng.sample(range(30, 60), rng.randint(1, k + 3))
        if rng.random() < 0.7:
            ranking.insert(rng.randint(0, len(ranking)), item)
        recs[user] = ranking
    return recs


def _loo_eval_cases(n: int):
    def make(rng):
        out = []
        for i in range(n):  # the first two: a user left out, a user with an empty list, on every draw
            log = _random_log(rng, rng.randint(2, 8))
            k = rng.randint(1, 10)
            out.append((log, _loo_recs(rng, log, k, ("left out", "empty", "")[min(i, 2)]), k))
        return out

    return make


def _loo_rank_case(rng: random.Random, kind: str) -> tuple:
    ranking = rng.sample(range(50), rng.randint(2 if kind == "beyond" else 1, 12))
    if kind == "beyond":
        k = rng.randint(1, len(ranking) - 1)
        # half the cases hold the item at rank k + 1, the boundary, so every draw meets it
        return ranking, ranking[k if rng.random() < 0.5 else rng.randint(k, len(ranking) - 1)], k
    if kind == "absent":
        return ranking, 77, rng.randint(1, 15)
    if kind == "short":
        return ranking, rng.choice(ranking), len(ranking) + rng.randint(1, 5)
    item = rng.choice(ranking + [88])
    rank = ranking.index(item) + 1 if item in ranking else rng.randint(1, 15)
    # half the cases hold the item at rank k or k + 1: both sides of the cut-off on every draw
    return ranking, item, max(1, rank - rng.randint(0, 1)) if rng.random() < 0.5 else rng.randint(1, 15)


def _loo_rank_cases(kind: str):
    return lambda rng: [_loo_rank_case(rng, kind) for _ in range(DRAWN if kind != "random" else 3 * DRAWN)]


def _loo_rank_checks() -> tuple[Check, ...]:
    return (
        Check("worked example", _fixed(([4, 6, 2, 3, 1, 8, 10, 9, 5, 7], 2, 5), ([4, 6, 2], 6, 1))),
        Check("a list shorter than k", _fixed(([4, 6, 2], 2, 5), ([4, 6, 2], 9, 5))),
        Check("held-out item ranked below k", _loo_rank_cases("beyond"), hidden=True),
        Check("held-out item never recommended", _loo_rank_cases("absent"), hidden=True),
        Check("k larger than the list", _loo_rank_cases("short"), hidden=True),
        Check("randomized cases", _loo_rank_cases("random"), hidden=True, general=True),
    )


def _leave_one_out() -> Assignment:
    example_log, example_recs = loo_example_data()
    questions = (
        Question(
            "q1",
            "Hold out each user's last interaction",
            "held_out_items",
            3.0,
            _ref_held_out,
            (
                Check("worked example", _fixed((example_log,))),
                Check(
                    "rows not in time order",
                    lambda rng: [(_random_log(rng, 5, ties=False),) for _ in range(DRAWN)],
                    hidden=True,
                ),
                Check(
                    "ties on the timestamp go to the row listed last",
                    _fixed(
                        ([["x", 1, 5], ["x", 2, 5], ["y", 3, 1], ["y", 4, 1], ["y", 5, 0]],),
                    ),
                    hidden=False,
                ),
                Check(
                    "randomized logs",
                    lambda rng: [(_random_log(rng, rng.randint(1, 9)),) for _ in range(2 * DRAWN)],
                    hidden=True,
                    general=True,
                ),
            ),
            result="exact",
        ),
        Question(
            "q2",
            "Hit@k with one held-out item",
            "loo_hit_at_k",
            2.0,
            _ref_loo("hit_at_k"),
            _loo_rank_checks(),
        ),
        Question(
            "q3",
            "NDCG@k with one held-out item",
            "loo_ndcg_at_k",
            2.0,
            _ref_loo("ndcg_at_k"),
            _loo_rank_checks(),
        ),
        Question(
            "q4",
            "Evaluate a recommender with leave-one-out",
            "evaluate_loo",
            3.0,
            _ref_evaluate_loo,
            (
                Check(
                    "worked example", _fixed((example_log, example_recs, 5), (example_log, example_recs, 1))
                ),
                Check(
                    "randomized logs and recommendations", _loo_eval_cases(DRAWN), hidden=True, general=True
                ),
            ),
            result="float_dict",
        ),
    )
    return Assignment(
        "leave-one-out",
        "Leave-one-out evaluation",
        questions,
        notes="Write each function yourself; helpers is not available while grading.",
    )


# ---- choosing and interpreting metrics
def _answer(name: str) -> Callable[[Any], float]:
    """The expected value of answer ``name``, from the instructor's answer key
    (:mod:`helpers.grade.answer_key`, never in the learner release: its code is the metric choice
    the question grades)."""

    def reference(seed):
        try:
            from . import answer_key
        except ImportError:
            raise RuntimeError(
                "choosing-metrics' answer key (helpers/grade/answer_key.py) is not in this copy of the "
                "course (a learner release leaves it out): grade from the instructor's copy"
            ) from None
        return answer_key.ANSWERS[name](seed)

    return reference


def _choosing() -> Assignment:
    # A title restates the question as the learner reads it, never the metric it asks them to choose
    # (red team 11: every feedback heading named it). The choice lives in the answer key only.
    value_check = (Check("answer", _fixed(())),)
    questions = (
        Question(
            "q1",
            "Five slots, every liked item counts: the metric that measures it, mean over all users, model A",
            "answer_q1",
            2.0,
            _answer("q1"),
            value_check,
            kind="value",
            result="number",
            abs_tol=1e-3,
        ),
        Question(
            "q2",
            "Users stop at the first liked item: the metric that matches, @5, model B minus model A",
            "answer_q2",
            2.0,
            _answer("q2"),
            value_check,
            kind="value",
            result="number",
            abs_tol=1e-3,
        ),
        Question(
            "q3",
            "Number of users for whom A has the higher NDCG@5",
            "answer_q3",
            2.0,
            _answer("q3"),
            value_check,
            kind="value",
            result="number",
            abs_tol=1e-9,
        ),
        Question(
            "q4",
            "MAP@5 of A: denominator |R| minus denominator min(k, |R|)",
            "answer_q4",
            2.0,
            _answer("q4"),
            value_check,
            kind="value",
            result="number",
            abs_tol=1e-3,
        ),
        Question(
            "q5",
            "Mean recall@5 of B over the users who have relevant items",
            "answer_q5",
            2.0,
            _answer("q5"),
            value_check,
            kind="value",
            result="number",
            abs_tol=1e-3,
        ),
    )
    # The answers are numbers computed with helpers, which is the point of the exercise, from data of each
    # learner's own (helpers.experiments.exercise_data: a hash of the learner's seed reaches the sandbox):
    # the sandbox holds helpers (read-only, the installed package only, without its grader) and what it
    # needs, read from the installed packages' metadata (helpers.grade.isolation.package_paths); the grader
    # computes the expected values itself, outside.
    return Assignment(
        "choosing-metrics",
        "Choosing and interpreting metrics",
        questions,
        notes="helpers may be used; the answers are numbers.",
        sandbox_packages=("helpers",),
    )


ASSIGNMENTS: dict[str, Assignment] = {a.name: a for a in (_scratch(), _leave_one_out(), _choosing())}


# ---------------------------------------------------------------- learner check()
def public_checks(q: Question) -> list[str]:
    """The public checks the grader runs and reports for ``q``, in its order: the checks that score
    nothing (the notebook's examples, when hidden checks carry the points) and the type check.

    :func:`check` runs exactly these; ``tests/grade/test_assignments.py`` derives them from a
    grader's report and compares.

    Parameters
    ----------
    q : Question
        The question.

    Returns
    -------
    list of str
        The checks' names.

    Examples
    --------
    >>> public_checks(ASSIGNMENTS["from-scratch"].question("precision_at_k"))
    ['worked examples', 'a list shorter than k', 'returns a float in [0, 1]']
    >>> public_checks(ASSIGNMENTS["choosing-metrics"].question("answer_q1"))
    []
    """
    if q.kind == "value" or not any(c.hidden for c in q.checks):
        return [q.type_check] if q.type_check else []
    return [c.name for c in q.checks if not c.hidden] + ([q.type_check] if q.type_check else [])


@dataclass(frozen=True)
class SelfCheck:
    """One public check as :func:`check` ran it: its name, whether it passed, the first problem.

    Parameters
    ----------
    name : str
        The check's name, as the grader reports it.
    passed : bool
        Whether every case of the check was right.
    cases : int
        The check's public cases.
    problem : str
        The first wrong case, with the input and the learner's value (public cases only, so both
        may be shown); empty when passed.

    Examples
    --------
    >>> SelfCheck("worked examples", True, 4)
    SelfCheck(name='worked examples', passed=True, cases=4, problem='')
    """

    name: str
    passed: bool
    cases: int
    problem: str = ""


def public_cases(a: Assignment, q: Question) -> list[tuple[str, tuple, Any]]:
    """``(check name, arguments, expected value)`` of every public case of ``q`` (none for a value).

    Parameters
    ----------
    a : Assignment
        The assignment.
    q : Question
        One of its questions.

    Returns
    -------
    list of (str, tuple, Any)
        The cases of :func:`public_checks`, with the reference's value of each (the public seed, so
        the same on every machine).

    Examples
    --------
    >>> a = ASSIGNMENTS["from-scratch"]
    >>> name, args, expected = public_cases(a, a.question("precision_at_k"))[0]
    >>> name, args[2], expected
    ('worked examples', 5, 0.4)
    """
    names = set(public_checks(q))
    built = build_cases(a, q, PUBLIC_SEED) if q.kind == "function" else []
    return [(c, args, q.reference(*copy.deepcopy(args))) for c, args in built if c in names]


def self_check(
    q: Question, answer: Callable[..., Any], cases: list[tuple[str, tuple, Any]]
) -> list[SelfCheck]:
    """Run ``answer`` on the public ``cases`` and judge each check as the grader does.

    Raises
    ------
    NotImplementedError
        From the learner's stub (the question is not attempted yet).

    Parameters
    ----------
    q : Question
        The question.
    answer : callable
        The learner's function.
    cases : list of (str, tuple, Any)
        From :func:`public_cases`.

    Returns
    -------
    list of SelfCheck
        One per public check, in order.

    Examples
    --------
    >>> a = ASSIGNMENTS["from-scratch"]
    >>> q = a.question("precision_at_k")
    >>> first = self_check(q, lambda ranking, relevant, k: 0.5, public_cases(a, q))[0]
    >>> first.passed, first.problem
    (False, 'precision_at_k([4, 6, 2, 3, 1, 8, 10, 9, 5, 7], {1, 6, 9}, 5) returned 0.5 (wrong value)')
    """
    problems: dict[str, list[str]] = {name: [] for name in public_checks(q)}
    counts = dict.fromkeys(problems, 0)
    for name, args, expected in cases:
        value, problem, type_issue = _run_public(q, answer, args, expected)
        counts[name] += 1
        if problem:
            problems[name].append(f"{q.target}{_show(args)} {problem}")
        if q.type_check:
            counts[q.type_check] += 1
            if type_issue:
                problems[q.type_check].append(f"{q.target}{_show(args)} {type_issue}")
    return [SelfCheck(n, not p, counts[n], p[0] if p else "") for n, p in problems.items()]


def _run_public(q: Question, answer: Callable[..., Any], args: tuple, expected: Any) -> tuple[Any, str, str]:
    """The value, its problem and its type problem on one case ("" when right)."""
    try:
        value = answer(*copy.deepcopy(args))
    except NotImplementedError:
        raise
    except Exception as exc:
        text = f"raised {type(exc).__name__}: {str(exc)[:200]}"
        return None, text, text
    problem = compare(q, value, expected)
    type_issue = type_problem(q, value) if q.type_check else None
    shown = f"returned {format_value(value)}"
    return (
        value,
        f"{shown} ({problem})" if problem else "",
        f"{shown} ({type_issue})" if type_issue else "",
    )


def check(name: str, answer: Any, assignment: str | Assignment | None = None) -> bool:
    """Run every public check the grader runs for one question, in your notebook, and print the outcome.

    Parameters
    ----------
    name : str
        The function or variable name, e.g. ``"precision_at_k"``.
    answer : callable or value
        Your function (or, for a numeric question, your answer).
    assignment : str, optional
        Needed only when ``name`` is ambiguous; for an assignment your instructor wrote, the path of
        its ``<name>.checks.json`` (written beside the notebook by ``python -m helpers.grade author``).

    Returns
    -------
    bool
        True when every public check passed.

    Notes
    -----
    This runs, in your own kernel (anywhere the course runs: Linux, macOS, Windows, Binder; no
    sandbox needed), exactly the public checks the grader runs and reports: the notebook's
    examples and the type check. They score nothing; the points come from hidden randomized
    checks drawn for each learner (k larger than the list, a single relevant item,
    ...), which only the grader runs: passing here is necessary, not sufficient. Answer
    variables are never revealed: for them ``check`` only says whether the value is a usable number.

    Examples
    --------
    >>> def precision_at_k(ranking, relevant, k):
    ...     return sum(1 for item in ranking[:k] if item in relevant) / k
    >>> check("precision_at_k", precision_at_k)
    precision_at_k: the 3 public checks the grader runs passed (worked examples, a list shorter than k, \
returns a float in [0, 1]). Hidden checks (the points, with cases of your own when graded): \
k larger than the list, single relevant item, relevant items never recommended, \
only the top k positions count, no relevant item gives 0.0, randomized cases.
    True
    >>> def short_list(ranking, relevant, k):
    ...     return sum(1 for item in ranking[:k] if item in relevant) / len(ranking[:k])
    >>> check("precision_at_k", short_list)
    precision_at_k: 1 of 3 public checks FAILED:
      - a list shorter than k: precision_at_k(['a'], {'a'}, 4) returned 1 (wrong value)
    False
    """
    a, q = _find_question(name, assignment)
    if q.kind == "value":
        return _check_value(name, answer)
    try:
        results = self_check(q, answer, public_cases(a, q))
    except NotImplementedError:
        print(f"{name}: not attempted yet (raises NotImplementedError).")
        return False
    return _print_outcome(q, results)


def _print_outcome(q: Question, results: list[SelfCheck]) -> bool:
    failed = [r for r in results if not r.passed]
    if failed:
        print(f"{q.target}: {len(failed)} of {len(results)} public checks FAILED:")
        for r in failed:
            print(f"  - {r.name}: {r.problem}")
        return False
    hidden = ", ".join(x.name for x in q.checks if x.hidden)
    names = ", ".join(r.name for r in results)
    print(
        f"{q.target}: the {len(results)} public checks the grader runs passed ({names})."
        + (f" Hidden checks (the points, with cases of your own when graded): {hidden}." if hidden else "")
    )
    return True


def _find_question(name: str, assignment: str | Assignment | None) -> tuple[Assignment, Question]:
    if isinstance(assignment, Assignment) or (isinstance(assignment, str) and assignment.endswith(".json")):
        a = assignment if isinstance(assignment, Assignment) else load_public_checks(assignment)
        return a, a.question(name)
    for a in ASSIGNMENTS.values():
        for q in a.questions:
            if q.target == name and assignment in (None, a.name):
                return a, q
    raise ValueError(f"no graded question is called {name!r}; check the spelling of the function name")


def _check_value(name: str, answer: Any) -> bool:
    """An answer variable: only whether it is a usable number (its value is the grader's to judge)."""
    if answer is Ellipsis:
        print(f"{name}: not attempted yet (still ...).")
        return False
    if not _is_number(answer) or (isinstance(answer, float) and not math.isfinite(answer)):
        print(f"{name}: must be a plain number (int or float), got {type(answer).__name__}.")
        return False
    print(f"{name}: a number; its value is checked only by the grader.")
    return True


def _show(args: tuple) -> str:
    parts = []
    for a in args:
        parts.append(
            "{" + ", ".join(repr(x) for x in sorted(a, key=repr)) + "}"
            if isinstance(a, set) and a
            else repr(a)
        )
    text = "(" + ", ".join(parts) + ")"
    return text if len(text) < 200 else text[:197] + "...)"


# ---------------------------------------------------------------- authored assignments' check()
def _encode(value: Any) -> Any:
    if isinstance(value, (set, frozenset)):
        return {"set": [_encode(x) for x in sorted(value, key=repr)]}
    if isinstance(value, tuple):
        return {"tuple": [_encode(x) for x in value]}
    if isinstance(value, dict):
        return {"dict": [[_encode(k), _encode(v)] for k, v in value.items()]}
    if isinstance(value, list):
        return [_encode(x) for x in value]
    return value


def _decode(value: Any) -> Any:
    """The inverse of :func:`_encode` (JSON back to sets, tuples and dicts with any keys)."""
    if isinstance(value, list):
        return [_decode(x) for x in value]
    if not (isinstance(value, dict) and len(value) == 1):
        return value
    ((kind, items),) = value.items()
    if kind == "dict":
        return {_decode(k): _decode(v) for k, v in items}
    decoded = [_decode(x) for x in items]
    return set(decoded) if kind == "set" else tuple(decoded)


def public_checks_file(a: Assignment) -> str:
    """The learner-side file of an authored assignment's public checks (``<name>.checks.json``):
    each function's public cases and their expected values, the judging rules; no hidden check,
    no solution. :func:`check` reads it with ``assignment="<name>.checks.json"``.

    Parameters
    ----------
    a : Assignment
        An authored assignment.

    Returns
    -------
    str
        The file's JSON text.

    Examples
    --------
    >>> import json
    >>> data = json.loads(public_checks_file(ASSIGNMENTS["from-scratch"]))
    >>> data["name"], data["questions"][0]["target"]
    ('from-scratch', 'precision_at_k')
    """
    questions = []
    for q in a.questions:
        cases = [[c, _encode(list(args)), _encode(expected)] for c, args, expected in public_cases(a, q)]
        rules = {
            k: getattr(q, k) for k in ("name", "title", "target", "kind", "result", "abs_tol", "rel_tol")
        }
        questions.append({**rules, "public": public_checks(q), "cases": cases})
    return json.dumps({"name": a.name, "title": a.title, "questions": questions}, indent=1) + "\n"


def load_public_checks(path: str | Path) -> Assignment:
    """The assignment of a ``<name>.checks.json`` (public cases only) as :func:`check` uses it.

    Parameters
    ----------
    path : str or pathlib.Path
        A file written by :func:`public_checks_file`.

    Returns
    -------
    Assignment
        The assignment with each function question's public checks only (their cases stored with
        their expected values, no reference code).
    """
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    questions = []
    for entry in data["questions"]:
        cases = [(c, tuple(_decode(args)), _decode(exp)) for c, args, exp in entry["cases"]]
        table = {repr(args): exp for _, args, exp in cases}
        names = list(dict.fromkeys(c for c, _, _ in cases))
        checks = tuple(Check(n, _fixed(*[args for c, args, _ in cases if c == n])) for n in names)
        if entry["kind"] == "function":  # a hidden placeholder keeps the public ones public
            checks += (Check("hidden checks (run by the grader only)", lambda rng: [], hidden=True),)
        questions.append(
            Question(
                entry["name"],
                entry["title"],
                entry["target"],
                0.0,
                lambda *args, _t=table: copy.deepcopy(_t[repr(args)]),
                checks,
                kind=entry["kind"],
                result=entry["result"],
                abs_tol=entry["abs_tol"],
                rel_tol=entry["rel_tol"],
            )
        )
    return Assignment(data["name"], data["title"], tuple(questions))
