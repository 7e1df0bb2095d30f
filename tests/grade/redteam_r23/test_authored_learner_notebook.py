"""The twenty-third red team: what `authoring.learner_version` (round 22's allow-list) keeps or drops.

No learner code runs here (authoring only: the instructor's tool), so no classmate is graded.

1. ``test_model_answer_picture_stays_with_the_solution`` (BROKEN, low-medium): the allow-list keeps a
   cell's ``attachments`` whole. A hand-graded answer cell (``<!-- answer: T -->``) whose model answer,
   inside ``### BEGIN SOLUTION`` ... ``### END SOLUTION``, shows a picture pasted in JupyterLab
   (``![sketch](attachment:model.png)``) has its text replaced by the placeholder, but the picture's
   bytes stay in the learner notebook's ``attachments``: every learner gets the model answer.
   Principle: keep only attachments the learner's source still references (``attachment:NAME``), and
   none on code cells.
2. ``test_labelled_solution_markers_are_stripped_or_refused`` (BROKEN, low): code cells match the markers
   as whole lines only (``authoring._BEGIN``/``_END``); ``### BEGIN SOLUTION (q1)`` ... ``### END SOLUTION
   (q1)`` (nbgrader strips it: it matches the marker as a substring) is neither stripped nor refused, so
   the solution is handed out verbatim. Markdown and raw cells already fail closed on the substring.
   Principle: fail closed: a code line holding ``BEGIN SOLUTION``/``END SOLUTION`` that is not exactly a
   marker is an ``AuthoringError``.
3. ``test_cell_locks_survive`` (BROKEN, functional regression of round 22's fix): ``_CELL_METADATA`` keeps
   only ``tags``, so JupyterLab's ``editable: false`` / ``deletable: false`` (the locks an instructor sets
   on the given cells, kept before the fix) are dropped. Principle: the allow-list holds every
   authoring key JupyterLab/nbformat define that cannot carry a run's state (editable, deletable,
   jupyter.source_hidden/outputs_hidden, raw cells' format).

Closed at stop 42: an attachment is kept only if the learner's text still shows it (none on code
cells); a line that mentions a solution marker without being one is refused; the allow-list holds the
authoring keys of nbformat and JupyterLab (``editable``, ``deletable``, ``jupyter``, ``format``,
``slideshow``, ``name``, ``tags``).
"""

from __future__ import annotations

import base64
import json

from helpers.grade.authoring import AuthoringError, author

from ..redteam_r5.common import code_cell as _code

SECRET = "0.7315"
PICTURE = base64.b64encode(b"\x89PNG\r\n\x1a\n MODEL ANSWER SKETCH").decode()
DECLARATION = (
    '# grading\nASSIGNMENT = {"name": "hw"}\n'
    'QUESTIONS = [{"target": "answer_q1", "points": 1, "result": "number"},\n'
    '             {"target": "why_ndcg", "kind": "text", "points": 3, "rubric": "3: graded gains"}]\n'
)


def _answer_cell(model: str, attachments: dict | None = None) -> dict:
    cell = {
        "cell_type": "markdown",
        "metadata": {},
        "source": f"Why NDCG?\n<!-- answer: why_ndcg -->\n### BEGIN SOLUTION\n{model}\n### END SOLUTION",
    }
    if attachments:
        cell["attachments"] = attachments
    return cell


def _author(tmp_path, cells):
    source = tmp_path / "src.ipynb"
    source.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 4}))
    learner, _spec, _assignment = author(source, tmp_path / "out")
    return learner.read_text(encoding="utf-8")


def test_model_answer_picture_stays_with_the_solution(tmp_path):
    cells = [
        _answer_cell(
            "Graded gains: see ![sketch](attachment:model.png)", {"model.png": {"image/png": PICTURE}}
        ),
        _code(f"### BEGIN SOLUTION\nanswer_q1 = {SECRET}\n### END SOLUTION\n"),
        _code(DECLARATION),
    ]
    handed_out = _author(tmp_path, cells)
    assert "Graded gains" not in handed_out  # the model answer's text is replaced by the placeholder
    assert PICTURE not in handed_out  # and its picture must go with it


def test_labelled_solution_markers_are_stripped_or_refused(tmp_path):
    cells = [
        _answer_cell("Graded gains."),
        _code(f"### BEGIN SOLUTION (q1)\nanswer_q1 = {SECRET}\n### END SOLUTION (q1)\n"),
        _code(DECLARATION),
    ]
    try:
        handed_out = _author(tmp_path, cells)
    except AuthoringError:
        return  # refused: the instructor fixes the markers
    assert SECRET not in handed_out


def test_cell_locks_survive(tmp_path):
    cells = [
        _code("import numpy as np\nDATA = np.arange(10)\n", editable=False, deletable=False),
        _answer_cell("Graded gains."),
        _code(f"### BEGIN SOLUTION\nanswer_q1 = {SECRET}\n### END SOLUTION\n"),
        _code(DECLARATION),
    ]
    learner = json.loads(_author(tmp_path, cells))
    assert SECRET not in json.dumps(learner)
    assert learner["cells"][0]["metadata"].get("editable") is False
    assert learner["cells"][0]["metadata"].get("deletable") is False
