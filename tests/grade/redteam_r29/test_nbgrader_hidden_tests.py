"""Red team 29: nbgrader's OTHER markers pass to learners as written.

The authoring format takes nbgrader's solution markers (``authoring`` docstring: "nbgrader's
markers"), so an instructor porting an nbgrader notebook keeps its autograder test cells, whose
``### BEGIN HIDDEN TESTS`` ... ``### END HIDDEN TESTS`` regions nbgrader removes from the release
(and its task cells' ``=== BEGIN MARK SCHEME ===`` regions). Here neither the spelling rule
(``_begins_a_marker``: HIDDEN/TESTS/MARK are not SOLUTION-like) nor the positive rule (the assert on
``...`` fails, so nothing is bound) refuses them: the learner notebook shows ``assert answer_q2 == 3``
(the graded answer) and a hidden case with its expected value.

Broken: ``test_nbgrader_hidden_tests_do_not_reach_learners`` (medium, authored assignments only).
Principle: fail closed on every marker-position ``BEGIN``/``END`` line the tool does not implement
(nbgrader's ``HIDDEN TESTS``, ``MARK SCHEME``), or implement them (drop the region from the release).
No learner code runs here (authoring only), so no classmate is graded.

Closed at stop 43: ``authoring._nbgrader_region`` refuses nbgrader's hidden-test and
mark-scheme regions with a message saying where hidden checks and marking go.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from helpers.grade import authoring

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_authoring import SECRET_CASE, _cell, source_notebook

HIDDEN_TESTS = (
    "# tests for mean_of_top and answer_q2\nassert answer_q2 is not ...\n### BEGIN HIDDEN TESTS\n"
    f"assert answer_q2 == 3\nassert mean_of_top([{SECRET_CASE}, 1], 1) == {SECRET_CASE}\n"
    "### END HIDDEN TESTS\n"
)
MARK_SCHEME = (
    "Explain why hit@3 looks at three items.\n\n=== BEGIN MARK SCHEME ===\n"
    "answer_q2 is 3: one point for saying it looks at the top 3.\n=== END MARK SCHEME ===\n"
)


@pytest.mark.parametrize(
    "kind, source", [("code", HIDDEN_TESTS), ("markdown", MARK_SCHEME)], ids=["hidden-tests", "mark-scheme"]
)
def test_nbgrader_hidden_tests_do_not_reach_learners(tmp_path, kind, source):
    nb = source_notebook()
    nb["cells"].insert(3, _cell(kind, source))
    path = tmp_path / "source.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    try:
        learner, _spec, _ = authoring.author(path, tmp_path / "build")
    except authoring.AuthoringError:
        return  # refused: fail closed
    text = learner.read_text(encoding="utf-8")
    assert "answer_q2 == 3" not in text and "answer_q2 is 3" not in text
    assert str(SECRET_CASE) not in text
