"""The twenty-fifth red team: round 24's one fail-closed marker rule (``authoring._refuse_loose_markers``,
``_MARKER_WORDS = (BEGIN|END)\\s+SOLUTION`` case-blind).

No learner code runs here (authoring only: the instructor's tool), so no classmate is graded.

Broken (each test passes once the hole is closed: the notebook is refused, or the secret is absent):

1. ``test_invisible_characters_in_a_marker_are_refused`` (low): a marker holding a zero-width space,
   a zero-width joiner or a soft hyphen (pasted from a web page/PDF) looks exactly like
   ``### BEGIN SOLUTION`` in the editor, is not a marker, and is not refused: the solution is handed out
   (code cells and answer cells alike). ``\\s`` does not match Unicode format characters (category Cf).
2. ``test_visible_marker_variants_are_refused`` (low): full-width letters (an East-Asian IME),
   ``BEGIN_SOLUTION``, ``BEGINSOLUTION``, ``BEGIN-SOLUTION`` pass the rule and hand the solution out.
3. ``test_html_entity_marker_in_markdown_is_refused`` (low): in markdown ``### BEGIN&nbsp;SOLUTION``
   renders as the marker but is neither a region nor refused.
4. ``test_honest_prose_is_not_refused`` (low, the other way): a course note saying "an end-to-end
   solution" or "a front-end solution" (markdown or a code comment) is refused as a "solution marker":
   ``\\b`` matches after the hyphen. The course's own sources are unaffected today.

Principle: compare on a folded form (NFKC, format characters removed, HTML entities unescaped in
markdown, ``[\\s_-]*`` between the words) for the refusal, and anchor it to marker-like lines (words
first on the line after comment/heading punctuation) so that prose mentioning the words mid-sentence
passes.

Held (run in /tmp probes): a BOM before ``###`` (refused), plural ``SOLUTIONS`` in an answer cell
(refused: the region count), ``Before you begin, solution ...`` (the comma), the course's sources
(``tools/learner_notebooks.py --check`` up to date). Not counted: a marker split over two lines
(``### BEGIN`` / ``SOLUTION``) passes, but it does not look like a marker to anyone; homoglyphs
(Cyrillic ``Е``) pass too, noted only (a confusables skeleton would be needed).

Closed at stop 42: a line is refused when it reads as a marker once folded (HTML entities unescaped,
invisible format characters removed, NFKC) and the words stand where a marker stands (the start of a
line or of a comment, after heading punctuation): ``authoring._marker_like``. Prose that mentions the
words mid-sentence passes.
"""

from __future__ import annotations

import pytest

from ..redteam_r5.common import authored_or_refused as _authored
from ..redteam_r5.common import code_cell as _code
from ..redteam_r5.common import markdown_cell as _markdown

SECRET = "0.7315"
DECLARATION = (
    '# grading\nASSIGNMENT = {"name": "hw"}\n'
    'QUESTIONS = [{"target": "answer_q1", "points": 1, "result": "number"},\n'
    '             {"target": "why_ndcg", "kind": "text", "points": 3, "rubric": "3: graded gains"}]\n'
)


ANSWER = _markdown(
    "Why NDCG?\n<!-- answer: why_ndcg -->\n### BEGIN SOLUTION\nGraded gains.\n### END SOLUTION"
)
ANSWER_Q1 = _code("### BEGIN SOLUTION\nanswer_q1 = 0.5\n### END SOLUTION\n")


INVISIBLE = {
    "zero-width-space": ("### BEGIN\u200bSOLUTION", "### END\u200bSOLUTION"),
    "zero-width-joiner": ("### BEG\u200dIN SOLUTION", "### E\u200dND SOLUTION"),
    "soft-hyphen": ("### BEGIN SOLU\u00adTION", "### END SOLU\u00adTION"),
}
VISIBLE = {
    "full-width": ("### ＢＥＧＩＮ ＳＯＬＵＴＩＯＮ", "### ＥＮＤ ＳＯＬＵＴＩＯＮ"),
    "underscore": ("### BEGIN_SOLUTION", "### END_SOLUTION"),
    "no-space": ("### BEGINSOLUTION", "### ENDSOLUTION"),
    "hyphen": ("### BEGIN-SOLUTION", "### END-SOLUTION"),
}


@pytest.mark.parametrize("kind", ["code", "answer"])
@pytest.mark.parametrize("spelling", list(INVISIBLE), ids=list(INVISIBLE))
def test_invisible_characters_in_a_marker_are_refused(tmp_path, spelling, kind):
    begin, end = INVISIBLE[spelling]
    if kind == "code":
        cells = [ANSWER, _code(f"{begin}\nanswer_q1 = {SECRET}\n{end}\n"), _code(DECLARATION)]
    else:
        answer = _markdown(f"Why?\n<!-- answer: why_ndcg -->\n{begin}\nGains {SECRET}.\n{end}")
        cells = [answer, ANSWER_Q1, _code(DECLARATION)]
    handed_out = _authored(tmp_path, cells)
    assert handed_out is None or SECRET not in handed_out


@pytest.mark.parametrize("spelling", list(VISIBLE), ids=list(VISIBLE))
def test_visible_marker_variants_are_refused(tmp_path, spelling):
    begin, end = VISIBLE[spelling]
    cells = [ANSWER, _code(f"{begin}\nanswer_q1 = {SECRET}\n{end}\n"), _code(DECLARATION)]
    handed_out = _authored(tmp_path, cells)
    assert handed_out is None or SECRET not in handed_out


@pytest.mark.parametrize("entity", ["&nbsp;", "&#32;"])
def test_html_entity_marker_in_markdown_is_refused(tmp_path, entity):
    notes = _markdown(f"### BEGIN{entity}SOLUTION\nanswer_q1 is {SECRET}\n### END{entity}SOLUTION")
    handed_out = _authored(tmp_path, [ANSWER, notes, ANSWER_Q1, _code(DECLARATION)])
    assert handed_out is None or SECRET not in handed_out


@pytest.mark.parametrize(
    "cell",
    [
        _markdown("We build an end-to-end solution: data, model, metrics."),
        _markdown("A front-end solution is out of scope for this course."),
        _code("# an end-to-end solution of the pipeline\nx = 1\n"),
    ],
    ids=["markdown-end-to-end", "markdown-front-end", "code-comment"],
)
def test_honest_prose_is_not_refused(tmp_path, cell):
    handed_out = _authored(tmp_path, [ANSWER, cell, ANSWER_Q1, _code(DECLARATION)])
    assert handed_out is not None and "-end solution" in handed_out
