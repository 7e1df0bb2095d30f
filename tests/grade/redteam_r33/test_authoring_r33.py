"""Red team 33: the authoring tool's newest rules (``authoring._run_release``, ``_giving``,
``_shown_cases``, ``_open_answer_cells``, ``_begins_a_marker``/``_nbgrader_region``).

Broken (each test fails while the hole is open, passes once it is closed):

1. ``test_value_answer_computed_outside_its_region_is_refused`` (low): for a FUNCTION target the
   release is refused when any function it defines is right (red team 29: the solution as a helper
   the region calls); for an ANSWER VARIABLE only the target's own bindings are read
   (``_giving``: ``held``). A region placed around the answer line only (``answer_q2 = ndcg``), with
   the computation given above it, hands the value out and is written silently. Principle: read
   every value the release binds (names, container items) against a value answer's reference, as
   for functions (small integers aside if coincidences matter).
2. ``test_nested_hidden_cases_stay_hidden`` (low-medium; the neighbour of red team 31's hole):
   ``_shown_cases`` compares a hidden fixed case with values bound at the top of the namespace and
   ONE level down. Hidden cases kept in a cell above the declaration one level deeper (a per-target
   dict ``CASES['mean_of_top']['hidden']``, per-user example data ``USERS['alice']['values']``) or
   returned by a given function (``hidden_cases()``) reach learners verbatim. Principle: refuse when
   a hidden check of the declaration reads a name the release binds (the declaration's loaded names
   against the release's bindings), or search the release's values recursively (bounded).
3. ``test_second_answer_cell_without_region_is_refused`` (low): ``_open_answer_cells`` reads only
   the FIRST answer cell of a target (``setdefault``); a duplicated answer cell holding the model
   answer as plain text (no region) goes to learners. Principle: every cell carrying an answer
   marker must hold the placeholder (or refuse a target's second answer cell).
4. ``test_honest_prose_is_not_refused`` (low; honest instructor source refused): the verbs are read
   within one edit (``_begins_a_marker``, ``_nbgrader_region``), so AND (END), TOP/STEP (STOP),
   SEND (END), and a word ending like SCHEMA (SCHEME) open a "marker": a hard-wrapped markdown
   line starting "and your solution's ...", "and hidden checks at grading.", "Step 3: test your
   solution ...", "Send your solution ...", "Start with the schema ..." are refused. The course's
   own sources pass (``tools/learner_notebooks.py --check``). Principle: edit tolerance only for
   words long enough to be typos of the verb (BEGIN), never for short common words (AND, TOP, STEP,
   SEND); SCHEME's tolerance not on SCHEMA.

5. ``test_coincidental_small_list_is_not_a_shown_case`` (low): see its docstring.

Held (run): a ``while True:`` whose ``break`` sits inside the solution region does not hang
``_run_release`` (nbgrader's stub raises, leaving the loop); the course's sources (``--check``).

Closed at stop 43: ``_given_value`` reads every value the release holds to depth 4
(``_release_values``; integers and floats of at most two decimals set aside by decision);
``_shown_cases`` compares fixed hidden cases with those values and with the code's text (whole
arguments, or one argument written out in ten characters or more); every answer cell of a target
must hold the placeholder; ``_verb`` reads END and STOP as written, BEGIN and START within one edit,
and SCHEME only as written.
"""

# ruff: noqa: E501  (notebook sources written out as the learners and instructors would)

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from helpers.grade import authoring

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_authoring import DECLARATION, SECRET_CASE, _cell, source_notebook

from ..redteam_r31.test_authoring_r31 import _author, assert_hidden_case_stays_hidden


def test_value_answer_computed_outside_its_region_is_refused(tmp_path):
    nb = source_notebook(
        DECLARATION.replace(
            '"target": "answer_q2", "title": "How many items does hit@3 look at?"',
            '"target": "answer_q2", "title": "nDCG of the worked example", "abs_tol": 1e-6',
        )
    )
    nb["cells"][2]["source"] = (
        "import math\ngains = [3, 2, 3, 0, 1, 2]\n"
        "dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains))\n"
        "idcg = sum(g / math.log2(i + 2) for i, g in enumerate(sorted(gains, reverse=True)))\n"
        "ndcg = dcg / idcg\n### BEGIN SOLUTION\nanswer_q2 = ndcg\n### END SOLUTION\n"
    )
    learner = _author(tmp_path, nb)
    if learner is not None:  # written: the value went out with it
        spec = authoring.load_spec(tmp_path / "build" / "rank-basics.grader.py")
        assert spec.questions[1].reference() == pytest.approx(0.9608, abs=1e-3)
        assert "ndcg = dcg / idcg" not in learner.read_text(encoding="utf-8")
    assert learner is None


NESTED = {
    "per-target-dict": (
        "CASES['mean_of_top']['hidden']",
        f"CASES = {{'mean_of_top': {{'public': [([4, 2, 9], 2)], 'hidden': [([{SECRET_CASE}, 1], 1)]}}}}\n",
    ),
    "per-user-data": (
        "[(u['values'], u['k']) for u in USERS.values()]",
        f"USERS = {{'alice': {{'values': [{SECRET_CASE}, 1, 5], 'k': 1}}}}\n",
    ),
    "given-function": ("hidden_cases()", f"def hidden_cases():\n    return [([{SECRET_CASE}, 1], 1)]\n"),
}


@pytest.mark.parametrize("kind", sorted(NESTED))
def test_nested_hidden_cases_stay_hidden(tmp_path, kind):
    assert_hidden_case_stays_hidden(tmp_path, *NESTED[kind])


def test_second_answer_cell_without_region_is_refused(tmp_path):
    text_question = '    {"target": "why_k", "kind": "text", "points": 2, "rubric": "2: users look at the first k only"},\n]\n'
    nb = source_notebook(DECLARATION.rstrip().rstrip("]") + text_question)
    nb["cells"].insert(
        3,
        _cell(
            "markdown",
            "<!-- answer: why_k -->\n### BEGIN SOLUTION\nBecause users only look at the first k.\n### END SOLUTION",
        ),
    )
    nb["cells"].insert(
        4, _cell("markdown", "<!-- answer: why_k -->\nModel answer: users only look at the first k items.")
    )
    learner = _author(tmp_path, nb)
    assert learner is None or "Model answer" not in learner.read_text(encoding="utf-8")


PROSE = [
    "Try the public checks first; if one fails, read its message\nand your solution's signature again.",
    "Public checks run at home,\nand hidden checks at grading.",
    "Step 3: test your solution with the public checks.",
    "Send your solution to the TA by Friday.",
    "Start with the schema of the ratings table.",
]


@pytest.mark.parametrize("prose", PROSE)
def test_honest_prose_is_not_refused(tmp_path, prose):
    nb = source_notebook()
    nb["cells"].insert(1, _cell("markdown", prose))
    learner = _author(tmp_path, nb)
    assert (
        learner is not None and prose in json.loads(learner.read_text(encoding="utf-8"))["cells"][1]["source"]
    )


def test_coincidental_small_list_is_not_a_shown_case(tmp_path):
    """5. (low; honest instructor source refused) ``_shown_cases`` compares any sizable argument
    (3+ items) with every value the release binds: a hidden case ``([1, 2, 3], 7)`` and an unrelated
    given ``ks = [1, 2, 3]`` (the cut-offs of a plot) refuse the source, saying the notebook "already
    answers mean_of_top". Principle: compare the whole argument tuple (or names the declaration
    reads), not a lone short list any notebook may bind."""
    nb = source_notebook(DECLARATION.replace("[([3, 5], 7), ([8], 3)]", "[([1, 2, 3], 7), ([8], 3)]"))
    nb["cells"].insert(2, _cell("code", "ks = [1, 2, 3]  # the cut-offs plotted below\n"))
    assert _author(tmp_path, nb) is not None
