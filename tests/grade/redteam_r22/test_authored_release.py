"""The twenty-second red team: what an authored assignment's learner notebook carries (no sandbox).

1. ``test_widget_state_of_the_solution_run`` (BROKEN, low): ``authoring.learner_version`` strips the
   solution regions, the outputs and the execution counts of code cells, but copies the source
   notebook's metadata verbatim. A source notebook the instructor ran and saved with widget state
   (``metadata.widgets``, ipywidgets' "save widget state": a label, ``interact`` or progress bar that
   showed a solution's value) hands that value to every learner in ``<name>.ipynb``: an authored
   answer variable is fixed (``authoring._question``: its reference is the solution's value, no data
   draw), so copying it scores without computing. Nothing is graded, so no classmate is involved.
   Principle: the learner version is built from an allow-list (cells' type, source, the metadata keys
   the course needs such as ``kernelspec``/``language_info``/tags), never copied from the source and
   then pruned.
"""

from __future__ import annotations

import json

from helpers.grade.authoring import author

SECRET = "0.7315"
DECLARATION = (
    '# grading\nASSIGNMENT = {"name": "hw"}\n'
    'QUESTIONS = [{"target": "answer_q1", "points": 1, "result": "number"}]\n'
)


def test_widget_state_of_the_solution_run(tmp_path):
    solution = f"### BEGIN SOLUTION\nanswer_q1 = {SECRET}\n### END SOLUTION\nshow(answer_q1)"
    widgets = {"state": {"m1": {"model_name": "LabelModel", "state": {"value": f"answer_q1 = {SECRET}"}}},
               "version_major": 2, "version_minor": 0}  # fmt: skip
    cells = [
        {"cell_type": "code", "metadata": {}, "source": "def show(x):\n    pass\n", "outputs": [],
         "execution_count": 1},
        {"cell_type": "code", "metadata": {}, "source": solution, "execution_count": 2,
         "outputs": [{"output_type": "display_data", "metadata": {},
                      "data": {"application/vnd.jupyter.widget-view+json": {"model_id": "m1"}}}]},
        {"cell_type": "code", "metadata": {}, "source": DECLARATION, "outputs": [], "execution_count": 3},
    ]  # fmt: skip
    source = tmp_path / "src.ipynb"
    metadata = {"widgets": {"application/vnd.jupyter.widget-state+json": widgets}}
    source.write_text(json.dumps({"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}))
    learner_notebook, spec, assignment = author(source, tmp_path / "out")
    assert assignment.questions[0].reference() == float(SECRET)  # the fixed answer the grader expects
    handed_out = learner_notebook.read_text(encoding="utf-8")
    assert "answer_q1 = ..." in handed_out  # the solution region itself is stripped
    assert SECRET not in handed_out  # and nothing else in the learner's file holds the answer
