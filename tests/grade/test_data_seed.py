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
def test_grading_hands_the_sandbox_the_data_seed_only(name, tmp_path, monkeypatch):
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
    assert seen == [grader.data_seed(SEED)]
    assert str(SEED) not in seen[0]


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
            assert plan.expected[q.name] == [q.reference(plan.data_seed)]
    assert random.Random(plan.data_seed).random() != random.Random(SEED).random()
