"""The tenth red team: the learner release publishes the answer key of ``choosing-metrics``.

``tools/learner_release.py`` publishes ``helpers/`` whole, the grader included, because "hidden cases
are drawn afresh at every grading run, so its case makers reveal nothing that scores". That holds for
function questions. ``choosing-metrics`` asks for five numbers whose skill is "the choice of metric and
options, not the implementation" (the notebook's words), and its expected values are computed by code
in ``helpers/grade/assignments.py`` that is exactly that choice: ``_mean(seed, "A", "precision", 5,
empty="zero")``, ``"rr"`` for q2, ``denominator="n_relevant"`` minus ``"min_k_n_relevant"`` for q4,
``empty="skip"`` for q5, and ``_answer_q3``. A learner reads it in their own JupyterLab
(``inspect.getsource(helpers.grade.assignments)``, or the file), pastes ``_frames``, ``_mean`` and
``_answer_q3`` with the five one-line answers, and scores **10/10** on any run's data, having chosen
nothing. Nothing sees it: the release's ``--scan`` grades the ``.py`` file as it is (it binds no
``answer_qN``: blank), and ``similarity`` compares function questions only.

Asserted: a notebook built only from the published grader's code scores no more than the blank learner
version (the scan's own property), while the course's solution, graded beside it, scores 10. The
principle that would close it: the expected values of a value question are not computed by code the
learner release ships (keep the references of value questions in the instructor's private spec, as
``*.grading.py`` files are, and publish only the learner's ``check``).
"""

from __future__ import annotations

import inspect
import io
import shutil
from pathlib import Path

from helpers.grade import assignments as published
from helpers.grade import grader, isolation
from tools import learner_release

from ..redteam_r5.common import notebook

ROOT = Path(__file__).resolve().parents[3]

ANSWERS = """
answer_q1 = _mean(None, "A", "precision", 5, empty="zero")
answer_q2 = _mean(None, "B", "rr", 5, empty="zero") - _mean(None, "A", "rr", 5, empty="zero")
answer_q3 = _answer_q3(None)
answer_q4 = (_mean(None, "A", "ap", 5, empty="skip", denominator="n_relevant")
             - _mean(None, "A", "ap", 5, empty="skip", denominator="min_k_n_relevant"))
answer_q5 = _mean(None, "B", "recall", 5, empty="skip")
"""


def _from_the_release() -> str:
    """What a learner copies: the published grader's own functions, then one line per answer."""
    copied = [inspect.getsource(f) for f in (published._frames, published._mean, published._answer_q3)]
    head = "from helpers.experiments.exercise_data import choosing_metrics_data\n"
    return head + "\n".join(copied) + ANSWERS


def test_the_published_grader_is_no_answer_key(bwrap, tmp_path):
    assert learner_release.published("helpers/grade/assignments.py")  # what the learner reads
    folder = tmp_path / "class"
    folder.mkdir()
    shutil.copyfile(ROOT / "exercises" / "source" / "choosing-metrics.ipynb", folder / "honest.ipynb")
    shutil.copyfile(ROOT / "exercises" / "choosing-metrics.ipynb", folder / "blank.ipynb")
    notebook(folder / "copied_key.ipynb", _from_the_release())
    done = grader.grade_many(
        sorted(folder.iterdir()), published.ASSIGNMENTS["choosing-metrics"], tmp_path / "out", jobs=2,
        mode=isolation.BUBBLEWRAP, progress=io.StringIO(),
    )  # fmt: skip
    scores = {r["file"]: r["score"] for r in done}
    assert scores["honest.ipynb"] == 10.0  # the classmate who chose the metrics
    assert scores["copied_key.ipynb"] <= scores["blank.ipynb"], scores
