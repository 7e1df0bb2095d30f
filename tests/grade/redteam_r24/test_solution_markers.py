"""The twenty-fourth red team: round 23's fail-closed marker rule (``authoring._refuse_loose_markers``)
and attachment rule (``authoring._ATTACHMENT`` in ``_learner_cell``).

No learner code runs here (authoring only: the instructor's tool), so no classmate is graded.

Broken (each test passes once the hole is closed: the notebook is refused, or the secret is absent):

1. ``test_second_labelled_region_in_an_answer_cell`` (low): a hand-graded answer cell holding one proper
   ``### BEGIN SOLUTION`` ... ``### END SOLUTION`` region and a second one with labelled markers
   (``### BEGIN SOLUTION (b)``, round 23's spelling) passes: ``_answer_region`` counts whole-line
   markers only, and markdown cells never go through ``_refuse_loose_markers``; the part (b) model
   answer reaches every learner (and is missing from ``model_answers``).
2. ``test_marker_typos_in_code_are_refused`` (low): ``_refuse_loose_markers`` looks for the exact
   substring ``BEGIN SOLUTION``; ``### BEGIN  SOLUTION`` (two spaces), a tab, a no-break space (macOS
   Option-Space) or ``### begin solution`` are neither markers nor refused: the solution is handed out.
3. ``test_marker_spellings_in_markdown_and_raw_are_refused`` (low): code cells refuse ``BEGIN SOLUTION``
   without ``###`` (nbgrader's own delimiter), markdown and raw cells test only ``### BEGIN SOLUTION``:
   an answer cell ``BEGIN SOLUTION`` ... ``END SOLUTION``, a markdown ``## BEGIN SOLUTION`` region, a raw
   ``# BEGIN SOLUTION`` region all go to learners verbatim.

Principle for all three: one fail-closed test for every cell kind, on every line outside a recognised
region, matching ``BEGIN\\s+SOLUTION``/``END\\s+SOLUTION`` case-blind after Unicode whitespace folding.

Held (run with /tmp probes, not kept as tests unless below): an HTML ``<img src="attachment:m.png">`` inside
the region (dropped: ``_learner_cell`` keeps only names found in the learner's text); markers split by
``\\x0b``/``\\x0c``/``\\u2028`` (``splitlines`` and the substring refusal agree); markers inside a
triple-quoted string (stripped, fail closed); ``<!-- answer: T -->`` inside the region (refused by
``author``'s "would not mention" check); the course's own sources (``tools/learner_notebooks.py --check``
up to date).

Closed at stop 42: one fail-closed rule for every kind of cell, on whatever is left once the real
regions are out: a line with ``BEGIN SOLUTION`` or ``END SOLUTION`` in any case, with any Unicode spaces, is
refused (``authoring._refuse_loose_markers``, ``_MARKER_WORDS``).
"""

from __future__ import annotations

import pytest

from ..redteam_r5.common import authored_or_refused as _handed_out_or_refused
from ..redteam_r5.common import code_cell as _code
from ..redteam_r5.common import markdown_cell as _markdown

SECRET = "0.7315"
DECLARATION = (
    '# grading\nASSIGNMENT = {"name": "hw"}\n'
    'QUESTIONS = [{"target": "answer_q1", "points": 1, "result": "number"},\n'
    '             {"target": "why_ndcg", "kind": "text", "points": 3, "rubric": "3: graded gains"}]\n'
)
PICTURE = "iVBORw0KGgoMODELSKETCH"


ANSWER = _markdown(
    "Why NDCG?\n<!-- answer: why_ndcg -->\n### BEGIN SOLUTION\nGraded gains.\n### END SOLUTION"
)
ANSWER_Q1 = _code("### BEGIN SOLUTION\nanswer_q1 = 0.5\n### END SOLUTION\n")


def test_second_labelled_region_in_an_answer_cell(tmp_path):
    answer = _markdown(
        "Why NDCG? (a) and (b)\n<!-- answer: why_ndcg -->\n"
        "### BEGIN SOLUTION\nGraded gains.\n### END SOLUTION\n"
        f"(b)\n### BEGIN SOLUTION (b)\nPosition discount {SECRET}.\n### END SOLUTION (b)"
    )
    handed_out = _handed_out_or_refused(tmp_path, [answer, ANSWER_Q1, _code(DECLARATION)])
    assert handed_out is None or SECRET not in handed_out


@pytest.mark.parametrize(
    ("begin", "end"),
    [
        ("### BEGIN  SOLUTION", "### END  SOLUTION"),
        ("### BEGIN\tSOLUTION", "### END\tSOLUTION"),
        ("### BEGIN\u00a0SOLUTION", "### END\u00a0SOLUTION"),
        ("### begin solution", "### end solution"),
    ],
    ids=["two-spaces", "tab", "no-break-space", "lower-case"],
)
def test_marker_typos_in_code_are_refused(tmp_path, begin, end):
    cells = [ANSWER, _code(f"{begin}\nanswer_q1 = {SECRET}\n{end}\n"), _code(DECLARATION)]
    handed_out = _handed_out_or_refused(tmp_path, cells)
    assert handed_out is None or SECRET not in handed_out


@pytest.mark.parametrize(
    "cell",
    [
        _markdown(f"Why?\n<!-- answer: why_ndcg -->\nBEGIN SOLUTION\nGains {SECRET}.\nEND SOLUTION"),
        _markdown(f"Notes.\n## BEGIN SOLUTION\nanswer_q1 is {SECRET}\n## END SOLUTION"),
        {"cell_type": "raw", "metadata": {}, "source": f"# BEGIN SOLUTION\nq1 = {SECRET}\n# END SOLUTION"},
    ],
    ids=["answer-cell-no-hashes", "markdown-two-hashes", "raw-one-hash"],
)
def test_marker_spellings_in_markdown_and_raw_are_refused(tmp_path, cell):
    cells = [cell, ANSWER_Q1, _code(DECLARATION)]
    if cell["cell_type"] == "raw" or "answer:" not in cell["source"]:
        cells.insert(0, ANSWER)
    handed_out = _handed_out_or_refused(tmp_path, cells)
    assert handed_out is None or SECRET not in handed_out


def test_html_img_of_the_model_answer_is_dropped(tmp_path):
    """Held (regression guard): an HTML ``<img>`` of the model answer's attachment inside the region."""
    answer = _markdown(
        "Why NDCG?\n<!-- answer: why_ndcg -->\n"
        '### BEGIN SOLUTION\n<img src="attachment:model.png" width=200>\n'
        "### END SOLUTION",
        {"model.png": {"image/png": PICTURE}},
    )
    handed_out = _handed_out_or_refused(tmp_path, [answer, ANSWER_Q1, _code(DECLARATION)])
    assert handed_out is not None and PICTURE not in handed_out
