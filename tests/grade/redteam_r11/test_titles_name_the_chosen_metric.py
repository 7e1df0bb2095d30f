"""The eleventh red team: ``choosing-metrics`` publishes the metric choice it grades in its titles.

Red team 10 found the answer key in the learner release; the fix moved the code computing the expected
values to ``helpers/grade/answer_key.py``, which the release leaves out. But the *choice* that code
makes is still written, in plain words, in the questions' titles, which stay in the published
``helpers/grade/assignments.py`` and head every question of every learner's feedback (Markdown and
Gradescope ``results.json``), a blank submission's included:

* Q1 asks "A shop page shows exactly five recommendations ... Which metric measures that?"; its title
  is "Five slots, every liked item counts: mean **P@5** of model A".
* Q2 asks "users click the first item they like and stop looking. Which metric matches?"; its title
  is "Users stop at the first liked item: **MRR@5** of B minus MRR@5 of A".

The exercise notebook says "the skill being graded is the choice of metric and options". A learner
who hands in the blank notebook once (or reads ``ASSIGNMENTS["choosing-metrics"]`` in their own
JupyterLab) reads both choices, and then writes ``helpers.evaluate(..., metrics=["precision"])`` and
``["rr"]``: 4 of the 10 points, whose whole skill is the choice, are given away. (Q3-Q5 name their
metric in the exercise itself, so their titles reveal nothing more.)

Asserted (the honest solution graded beside the blank still scores 10, the blank 0): neither the
published assignment module's titles nor the blank learner's feedback name the metric Q1 or Q2 asks
the learner to choose. The principle that would close it: a value question's title (and any text
published or shown to learners) restates the question as the learner reads it, never its answer;
the instructor's wording of the answer belongs with the answer key.
"""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

from helpers.grade import exports, isolation
from helpers.grade import grader as grade
from helpers.grade.assignments import ASSIGNMENTS
from tools import learner_release

ROOT = Path(__file__).resolve().parents[3]
A = ASSIGNMENTS["choosing-metrics"]
#: the answers of Q1 and Q2, as the course writes their metrics (the registry's labels and names)
CHOSEN = {
    "answer_q1": re.compile(r"\bP@|precision", re.IGNORECASE),
    "answer_q2": re.compile(r"\bMRR|reciprocal", re.IGNORECASE),
}


def test_the_exercise_itself_leaves_the_choice_to_the_learner():
    """The premise: the learner version asks which metric, and does not name it."""
    cells = json.loads((ROOT / "exercises" / "choosing-metrics.ipynb").read_text(encoding="utf-8"))["cells"]
    text = " ".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    text = " ".join(text.split())
    asked = text.split("## Q1")[1].split("## Q3")[0]  # Q1's and Q2's sections
    assert asked.count("Which metric") == 2
    for target, named in CHOSEN.items():
        assert not named.search(asked), target


def test_titles_do_not_name_the_metric_the_question_grades():
    assert learner_release.published("helpers/grade/assignments.py")
    shown = {target: A.question(target).title for target in CHOSEN}
    named = {t: title for t, title in shown.items() if CHOSEN[t].search(title)}
    assert not named, f"published titles name the metric the learner is asked to choose: {named}"


def test_the_feedback_of_a_blank_notebook_does_not_name_the_chosen_metric(bwrap, tmp_path):
    folder, out = tmp_path / "class", tmp_path / "out"
    folder.mkdir()
    shutil.copyfile(ROOT / "exercises" / "source" / "choosing-metrics.ipynb", folder / "honest.ipynb")
    shutil.copyfile(ROOT / "exercises" / "choosing-metrics.ipynb", folder / "blank.ipynb")
    done = grade.grade_many(
        sorted(folder.iterdir()), A, out, jobs=2, seed=11, mode=isolation.BUBBLEWRAP, progress=io.StringIO()
    )
    by_file = {r["file"]: r for r in done}
    assert by_file["honest.ipynb"]["score"] == 10.0, by_file["honest.ipynb"]
    blank = by_file["blank.ipynb"]
    assert blank["score"] == 0.0
    feedback = (out / "feedback" / f"{blank['submission']}.md").read_text(encoding="utf-8")
    results = json.dumps(exports.gradescope_results(blank, A.title))
    for target, named in CHOSEN.items():
        for where, text in (("feedback", feedback.replace("\\", "")), ("results.json", results)):
            found = named.findall(text)
            assert not found, f"the blank notebook's {where} names {target}'s metric: {found}"
