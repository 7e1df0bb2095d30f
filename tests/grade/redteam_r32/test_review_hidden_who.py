"""Red team 32: the review page's form carries the learner key as *displayed*, not as it is.

``review._answer_html`` writes each answer's hidden ``who`` field with ``inert.html_text``, which
escapes every control, format, private-use and unassigned character as text (``\\u200d``). Without a
roster the learner key is ``file:`` and the file's exact name (``grader.no_roster_key``), so a file
handed in under a name holding such a character (an emoji sequence's zero-width joiner, a soft
hyphen or a left-to-right mark pasted from a chat) has a key the page's form never posts back:
``save_score`` finds "no such answer", and the instructor can never score that learner's hand-graded
answer (the page's message says to reload, which changes nothing).

Graded in the sandbox beside an honest classmate (``cy.ipynb``), whose score must be saved normally.
"""

from __future__ import annotations

import html
import json
import re

from helpers.grade import authoring, review
from helpers.grade import grader as grade
from helpers.grade.gradebook import Gradebook
from tests.grade.test_review import _answered, source_notebook

ZWJ_NAME = "hw1 \U0001f469\u200d\U0001f4bb.ipynb"  # "hw1 👩‍💻.ipynb": an emoji with its zero-width joiner


def _posted_form(page: str, anchor_who: str) -> dict[str, str]:
    """The hidden fields of the form the page shows for the answer whose heading holds ``anchor_who``,
    as a browser posts them (HTML entities decoded)."""
    for form in re.findall(r"<form.*?</form>", page, re.S):
        fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', form))
        fields = {k: html.unescape(v) for k, v in fields.items()}
        if anchor_who in fields.get("who", ""):
            return fields
    raise AssertionError(f"no form for {anchor_who!r}")


def test_a_zero_width_joiner_in_the_name_can_be_scored(tmp_path, bwrap):
    source = tmp_path / "why-metrics-source.ipynb"
    source.write_text(json.dumps(source_notebook()), encoding="utf-8")
    notebook, spec, _ = authoring.author(source, tmp_path / "build")
    learner = json.loads(notebook.read_text(encoding="utf-8"))
    folder, out = tmp_path / "class", tmp_path / "out"
    folder.mkdir()
    for name, answer in {
        ZWJ_NAME: "NDCG: graded relevance, position discount.",
        "cy.ipynb": "Precision.",
    }.items():
        (folder / name).write_text(json.dumps(_answered(learner, answer)), encoding="utf-8")
    assert (
        grade.main(["--assignment", str(spec), "--out", str(out), "--quiet", "--jobs", "2", str(folder)]) == 0
    )
    with Gradebook.open(out) as book:
        page = review.render_page(book, "tok")
        keys = {a.display: a.who for a in review.answers(book)}
    # the honest classmate is scored through the page's own form
    cy = _posted_form(page, "file:cy")
    review.save_score(out, cy | {"points": "1", "comment": ""}, "ta")
    # the learner with the emoji in the name, through the page's own form
    zwj = _posted_form(page, "hw1")
    assert zwj["who"] != keys["cy.ipynb"]
    review.save_score(out, zwj | {"points": "3", "comment": ""}, "ta")  # ValueError: no such answer
    with Gradebook.open(out) as book:
        given = {who: s["points"] for (who, _, _), s in book.manual_scores().items()}
    assert given == {"file:cy": 1.0, keys[next(k for k in keys if k != "cy.ipynb")]: 3.0}
