"""The twenty-sixth red team: round 25's folded marker rule (``authoring._marker_like``: HTML entities
unescaped, category ``Cf`` removed, NFKC, then ``(?:^|#)[\\s#>*_`~<!-]*(?:BEGIN|END)[\\s_-]*SOLUTION``).

No learner code runs here (authoring only: the instructor's tool), so no classmate is graded.

Broken (each test passes once the hole is closed: the source is refused, or the secret is absent):

1. ``test_banner_and_bracket_markers_are_refused`` (low): an everyday comment banner
   ``# === BEGIN SOLUTION ===`` (``=`` is not in the rule's punctuation class), ``# [BEGIN SOLUTION]``,
   a docstring ``\"\"\"BEGIN SOLUTION\"\"\"`` and ``### BEGIN: SOLUTION`` are neither regions nor refused:
   the solution goes to learners as written.
2. ``test_misspelled_marker_copied_to_end_is_refused`` (low): ``### BEGIN SOLUTON`` whose line the
   instructor copied and edited into ``### END SOLUTON`` (the usual way the END line is written): no
   region, no refusal, the solution is handed out.
3. ``test_default_ignorable_characters_in_a_marker_are_refused`` (low): invisible characters that are
   not category ``Cf`` (U+034F combining grapheme joiner, U+FE0F variation selector, U+3164 Hangul
   filler: all Default_Ignorable_Code_Point) survive the fold, so the marker looks right and is not one.
4. ``test_html_tag_markers_in_markdown_are_refused`` (low): in markdown ``<b>BEGIN SOLUTION</b>`` or
   ``<h3>BEGIN SOLUTION</h3>`` renders as the marker heading, yet is neither an answer region nor refused.

Principle: decide "is this line a marker?" on a skeleton, not on a punctuation allow-list: drop HTML
tags (markdown), every Default_Ignorable code point and every non-letter, then fail closed on a line
whose first letters are BEGIN/END followed by a word close to SOLUTION (edit distance <= 2).

Closed at stop 42: only a line's letters decide (``authoring._marker_like``): HTML entities and tags,
format characters, combining marks and fillers out, NFKC; a line or ``#`` comment whose letters begin
with BEGIN or END and a word within two edits of SOLUTION is refused.
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
    '             {"target": "answer_q2", "points": 1, "result": "number"}]\n'
)


ANSWER_Q2 = _code("### BEGIN SOLUTION\nanswer_q2 = 0.5\n### END SOLUTION\n")


def _leaks(tmp_path, begin: str, end: str) -> bool:
    cells = [_code(f"x = 1\n{begin}\nanswer_q1 = {SECRET}\n{end}\n"), ANSWER_Q2, _code(DECLARATION)]
    handed_out = _authored(tmp_path, cells)
    return handed_out is not None and SECRET in handed_out


def test_the_proper_marker_still_hides_the_secret(tmp_path):
    """Control: the real markers stub the solution (so a leak below is the spelling's, not the test's)."""
    assert not _leaks(tmp_path, "### BEGIN SOLUTION", "### END SOLUTION")


BANNERS = {
    "equals-banner": ("# === BEGIN SOLUTION ===", "# === END SOLUTION ==="),
    "brackets": ("# [BEGIN SOLUTION]", "# [END SOLUTION]"),
    "docstring": ('"""BEGIN SOLUTION"""', '"""END SOLUTION"""'),
    "colon": ("### BEGIN: SOLUTION", "### END: SOLUTION"),
}


@pytest.mark.parametrize("spelling", list(BANNERS), ids=list(BANNERS))
def test_banner_and_bracket_markers_are_refused(tmp_path, spelling):
    assert not _leaks(tmp_path, *BANNERS[spelling])


TYPOS = {
    "SOLUTON": ("### BEGIN SOLUTON", "### END SOLUTON"),
    "SOULTION": ("### BEGIN SOULTION", "### END SOULTION"),
}


@pytest.mark.parametrize("typo", list(TYPOS), ids=list(TYPOS))
def test_misspelled_marker_copied_to_end_is_refused(tmp_path, typo):
    assert not _leaks(tmp_path, *TYPOS[typo])


IGNORABLE = {
    "combining-grapheme-joiner": "\u034f",
    "variation-selector-16": "\ufe0f",
    "hangul-filler": "\u3164",
}


@pytest.mark.parametrize("char", list(IGNORABLE), ids=list(IGNORABLE))
def test_default_ignorable_characters_in_a_marker_are_refused(tmp_path, char):
    c = IGNORABLE[char]
    assert not _leaks(tmp_path, f"### BEGIN{c} SOLUTION", f"### END{c} SOLUTION")


TAGS = {"bold": "b", "heading": "h3", "strong": "strong"}


@pytest.mark.parametrize("tag", list(TAGS), ids=list(TAGS))
def test_html_tag_markers_in_markdown_are_refused(tmp_path, tag):
    t = TAGS[tag]
    notes = _markdown(f"<{t}>BEGIN SOLUTION</{t}>\n\nanswer_q1 is {SECRET}\n\n<{t}>END SOLUTION</{t}>")
    q1 = _code("### BEGIN SOLUTION\nanswer_q1 = 0.25\n### END SOLUTION\n")
    handed_out = _authored(tmp_path, [notes, q1, ANSWER_Q2, _code(DECLARATION)])
    assert handed_out is None or SECRET not in handed_out
