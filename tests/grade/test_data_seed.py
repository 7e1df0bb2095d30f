"""The sandbox never holds the seed of the hidden cases (red team 3, found by the team's own attacker).

The data of ``choosing-metrics`` change with each grading run, so the sandbox's environment holds a seed
for them. The hidden cases are built from the run's seed by the course's public code
(``helpers.grade.spec.build_cases``): had the sandbox held the run's seed, a notebook could rebuild every
hidden input before any case ran. It holds a one-way hash of it instead.
"""

from __future__ import annotations

import random

import pytest

from helpers.grade import grader, isolation
from helpers.grade.assignments import ASSIGNMENTS
from helpers.grade.spec import build_cases

SEED = 20261128


@pytest.mark.parametrize("name", sorted(ASSIGNMENTS))
def test_grading_hands_the_sandbox_the_data_seed_only_for_answer_variables(name, tmp_path, monkeypatch):
    seen = []

    def spy(cells, jobs, runtime, limits, seed=None):
        seen.append(seed)
        raise grader.NotebookError("stopped by the test", "crashed")

    monkeypatch.setattr(grader, "run_submission", spy)
    notebook = tmp_path / "ann.ipynb"
    notebook.write_text(
        '{"cells": [{"cell_type": "code", "source": "x = 1", "metadata": {}, "outputs": [], '
        '"execution_count": null}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
    )
    grader.grade_many(
        [notebook], ASSIGNMENTS[name], tmp_path / "out", jobs=1, seed=SEED, mode=isolation.UNSAFE
    )
    if any(q.kind == "value" for q in ASSIGNMENTS[name].questions):  # the first of the data's two draws
        own = grader.learner_seed(SEED, "file:ann")  # ann's own draw (no roster: the file's name)
        assert seen == [grader.data_seed(own)] != [grader.data_seed(SEED)]
        assert str(SEED) not in seen[0] and str(own) not in seen[0]
    else:  # no answer variables: the sandbox gets no data seed at all
        assert seen == [None]


def test_the_data_seed_rebuilds_no_hidden_case():
    assignment = ASSIGNMENTS["from-scratch"]
    plan = grader.make_plan(assignment, SEED)
    for q in assignment.questions:
        if q.kind == "value":
            continue
        # what an attacker who took the sandbox's seed for the run's seed would build
        forged = build_cases(assignment, q, plan.data_seed)  # type: ignore[arg-type]
        assert [args for _, args in forged] != [args for _, args in plan.cases[q.name]], q.name


def test_value_answers_are_computed_from_the_data_seed():
    assignment = ASSIGNMENTS["choosing-metrics"]
    plan = grader.make_plan(assignment, SEED)
    for q in assignment.questions:
        if q.kind == "value":
            assert plan.expected[q.name] == [q.reference(data) for data in plan.data_seeds]
    assert random.Random(plan.data_seed).random() != random.Random(SEED).random()


def test_an_answer_variable_has_two_draws_no_one_value_is_right_on():
    """Red team 9: a typed number must not score. Every plan of an assignment with answer variables
    draws the data twice, and for each answer no value is within tolerance of both right values
    (checked here by the grader's own ``compare`` on both ends and the midpoint)."""
    a = ASSIGNMENTS["choosing-metrics"]
    for seed in range(12):
        plan = grader.make_plan(a, seed)
        assert len(plan.data_seeds) == 2 and plan.data_seeds[0] == grader.data_seed(seed)
        for q in a.questions:
            first, second = plan.expected[q.name]
            for typed in (first, second, (first + second) / 2):
                right = [grader.compare(q, typed, e) is None for e in (first, second)]
                assert not all(right), (seed, q.name, first, second, typed)
    assert grader.make_plan(ASSIGNMENTS["from-scratch"], 1).data_seeds == ()  # no data: no seed at all
