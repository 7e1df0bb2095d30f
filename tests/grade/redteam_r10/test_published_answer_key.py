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

Closed: the key is ``helpers/grade/answer_key.py``, which the release leaves out. Asserted: a learner
release holds no code that computes an expected value (its grader, run from the release, says the key
is not there), and the instructor's copy still grades the solution 10 and the blank 0.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

from helpers.grade import assignments, grader, isolation
from tools import learner_release

from ..redteam_r5.common import notebook

ROOT = Path(__file__).resolve().parents[3]

#: what a learner could type: the key's calls, were they published
ANSWERS = """
from helpers.grade.answer_key import ANSWERS
answer_q1, answer_q2, answer_q3, answer_q4, answer_q5 = (ANSWERS[f"q{i}"](None) for i in range(1, 6))
"""

PROBE = """
import inspect
from helpers.grade.assignments import ASSIGNMENTS
q = ASSIGNMENTS["choosing-metrics"].question("answer_q1")
try:
    q.reference(None)
except RuntimeError as exc:
    print("REFUSED", exc)
else:
    print("COMPUTED")
"""


def test_the_learner_release_holds_no_answer_key(tmp_path):
    assert learner_release.published("helpers/grade/assignments.py")  # what the learner reads
    assert not learner_release.published("helpers/grade/answer_key.py")
    release = tmp_path / "release"
    learner_release.build(release)
    assert not (release / "helpers" / "grade" / "answer_key.py").exists()
    for path in (release / "helpers" / "grade").rglob("*.py"):
        assert "min_k_n_relevant" not in path.read_text(encoding="utf-8"), path  # q4's choice
    env = {**os.environ, "PYTHONPATH": f"{release}{os.pathsep}{release / 'topkeval' / 'src'}"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=release, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.stdout.startswith("REFUSED") and "answer_key.py" in done.stdout, (done.stdout, done.stderr)


def test_the_instructors_copy_still_grades_the_choice(bwrap, tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    shutil.copyfile(ROOT / "exercises" / "source" / "choosing-metrics.ipynb", folder / "honest.ipynb")
    shutil.copyfile(ROOT / "exercises" / "choosing-metrics.ipynb", folder / "blank.ipynb")
    notebook(folder / "imports_the_key.ipynb", ANSWERS)  # the sandbox holds helpers without its grader
    done = grader.grade_many(
        sorted(folder.iterdir()), assignments.ASSIGNMENTS["choosing-metrics"], tmp_path / "out", jobs=2,
        mode=isolation.BUBBLEWRAP, progress=io.StringIO(),
    )  # fmt: skip
    scores = {r["file"]: r["score"] for r in done}
    assert scores["honest.ipynb"] == 10.0  # the classmate who chose the metrics
    assert scores["imports_the_key.ipynb"] <= scores["blank.ipynb"] == 0.0, scores
