"""The course works for a person in JupyterLab: a real browser runs every notebook and tries the exercises.

nbval proves that a notebook runs in a bare kernel; this test proves the learner's path.
JupyterLab opens each notebook, the kernel starts, *Run > Run All Cells* runs every cell without an
error or stderr output, plots and tables render, and no dialog or notification pops up. In some
notebooks the test then types answers into an exercise cell, runs it with Shift+Enter, and reads
what the check prints: "Correct" for a right answer, the name of the mistake for a wrong one. It
runs on a temporary copy of notebooks/ (never the repository's files) and saves screenshots per
notebook to screenshots/browser/ (git-ignored).

Fixtures, the skip/fail rules and the summary banner live in conftest.py; the driver is
lab_driver.py (``python tests/browser/lab_driver.py notebooks 00-start-here.ipynb`` runs it by hand).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from tests import movielens_wheel

NOTEBOOK_DIR = Path(__file__).resolve().parents[2] / "notebooks"

# Every notebook of the course, in reading order; notebook 0 must exist.
NOTEBOOKS = sorted(p.name for p in NOTEBOOK_DIR.glob("*.ipynb")) or ["00-start-here.ipynb"]
REQUIRED = {"00-start-here.ipynb"}


def _answer_type():
    spec = importlib.util.spec_from_file_location(
        "course_browser_lab_driver", Path(__file__).with_name("lab_driver.py")
    )
    module = sys.modules.get("course_browser_lab_driver")
    if module is None:
        module = importlib.util.module_from_spec(spec)
        sys.modules["course_browser_lab_driver"] = module
        spec.loader.exec_module(module)
    return module.Answer


Answer = _answer_type()

_P_AT_K = (
    "def precision_at_k(ranking, relevant, k):\n"
    "    return sum(1 for item in ranking[{cut}] if item in relevant) / k\n\n\n"
    "q1.check(precision_at_k)\n"
)

#: What a learner types into exercise cells, and what the check must answer.
ANSWERS = {
    "02-cutoffs.ipynb": [
        Answer(
            "q1.check(precision_at_k)",
            _P_AT_K.format(cut=":k"),
            "Correct: precision_at_k agrees with helpers",
        ),
        Answer(
            "q1.check(precision_at_k)",
            _P_AT_K.format(cut=":k - 1"),
            "Recognised mistake: one item too few at the cutoff (ranking[:k - 1]).",
        ),
    ],
    "03-average-precision.ipynb": [
        Answer("q3.check(list_a)", "list_a = 0.5667\n\nq3.check(list_a)\n", "Correct: that is the value"),
        Answer(
            "q3.check(list_a)",
            "list_a = 34 / 45\n\nq3.check(list_a)\n",
            "Recognised mistake: wrong AP denominator: hits in the top k.",
        ),
    ],
    "15-unobserved-is-not-irrelevant.ipynb": [
        Answer(
            "q2.check(ips_precision)",
            "def ips_precision(ranking, logged, propensity, k):\n"
            "    return sum(1 / propensity[i] for i in ranking[:k] if i in logged) / "
            "k\n\n\nq2.check(ips_precision)\n",
            "Correct: ips_precision agrees with helpers",
        ),
        Answer(
            "q2.check(ips_precision)",
            "def ips_precision(ranking, logged, propensity, k):\n"
            "    return sum(propensity[i] for i in ranking[:k] if i in logged) / "
            "k\n\n\nq2.check(ips_precision)\n",
            "Recognised mistake: multiplies by the propensity.",
        ),
    ],
    "04-reciprocal-rank-and-hit-ratio.ipynb": [
        Answer(
            "q2.check(hit_at_k)",
            "def hit_at_k(ranking, relevant, k):\n"
            "    return any(item in relevant for item in ranking[:k])\n\n\n"
            "q2.check(hit_at_k)\n",
            "returned a bool, not a number",
        ),
    ],
}


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_runs_cleanly_in_jupyterlab(lab, name, require):
    if not (lab.notebook_dir / name).is_file():
        if name in REQUIRED:
            pytest.fail(f"notebooks/{name} is missing", pytrace=False)
        lab.skip_missing(name)
    if name in movielens_wheel.REAL_DATA_NOTEBOOKS:  # offline, the real ratings come from a local wheel
        require(movielens_wheel.COMPONENT, lab.course_data, movielens_wheel.HOW_TO_GET, f"{name} needs them")
    run, problems = lab.run(name, ANSWERS.get(name, ()))
    report = "\n".join(f"  - {p}" for p in problems)
    assert not problems, (
        f"{name} is broken for a learner in JupyterLab:\n{report}\n"
        f"screenshots: {', '.join(map(str, run.screenshots))}"
    )
    # The saved notebook is what the learner keeps: every code cell has run, in order.
    counts = [c.get("execution_count") for c in run.saved["cells"] if c["cell_type"] == "code"]
    assert counts == list(range(1, len(counts) + 1)), counts
    # Typed answers: the check says "Correct" to the right one and names the mistake in the wrong one.
    for answer, output in run.answers:
        assert answer.expect in output, f"{name}: typed {answer.code!r}; the cell printed:\n{output}"


def test_answers_are_typed_in_two_notebooks_at_least():
    """Right and wrong answers are tried in at least two notebooks, and the markers exist there."""
    tried = [
        name
        for name, answers in ANSWERS.items()
        if any(a.expect.startswith("Correct") for a in answers)
        and any("mistake" in a.expect for a in answers)
    ]
    assert len(tried) >= 2, tried
    for name, answers in ANSWERS.items():
        sources = [
            "".join(c["source"])
            for c in json.loads((NOTEBOOK_DIR / name).read_text(encoding="utf-8"))["cells"]
            if c["cell_type"] == "code"
        ]
        for answer in answers:
            assert sum(answer.marker in s for s in sources) == 1, (name, answer.marker)


def test_repository_notebooks_untouched(lab):
    """The browser runs and saves notebooks, but only in its temporary copy."""
    ran = [n for n in NOTEBOOKS if n in lab.repo_digest_before]
    now = lab.repo_digest_now()
    changed = [n for n in ran if now.get(n) != lab.repo_digest_before[n]]
    assert not changed, f"the browser run wrote into the repository's notebooks: {changed}"
