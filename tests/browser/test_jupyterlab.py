"""The course works for a person in JupyterLab: a real browser runs the notebooks.

nbval proves that a notebook runs in a bare kernel; this test proves the learner's path.
JupyterLab opens the notebook, the kernel starts, *Run > Run All Cells* runs every cell without an
error or stderr output, plots and tables render, and no dialog or notification pops up. It runs
on a temporary copy of notebooks/ (never the repository's files) and saves two screenshots per
notebook to screenshots/browser/ (git-ignored).

Fixtures, the skip/fail rules and the summary banner live in conftest.py; the driver is
lab_driver.py (``python tests/browser/lab_driver.py notebooks 00-start-here.ipynb`` runs it by hand).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

NOTEBOOK_DIR = Path(__file__).resolve().parents[2] / "notebooks"

# Notebook 0 (every learner opens it first) and one notebook with inline exercises, whose
# exercise cells must show "not attempted" without any error output. Edit freely.
NOTEBOOKS = ["00-start-here.ipynb", "02-cutoffs.ipynb"]
REQUIRED = {"00-start-here.ipynb"}


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_runs_cleanly_in_jupyterlab(lab, name):
    if not (lab.notebook_dir / name).is_file():
        if name in REQUIRED:
            pytest.fail(f"notebooks/{name} is missing", pytrace=False)
        lab.skip_missing(name)
    run, problems = lab.run(name)
    report = "\n".join(f"  - {p}" for p in problems)
    assert not problems, f"{name} is broken for a learner in JupyterLab:\n{report}\n" \
                         f"screenshots: {', '.join(map(str, run.screenshots))}"
    # The saved notebook is what the learner keeps: every code cell has run, in order.
    counts = [c.get("execution_count") for c in run.saved["cells"] if c["cell_type"] == "code"]
    assert counts == list(range(1, len(counts) + 1)), counts


def test_exercise_notebook_has_exercises():
    """At least one listed notebook besides notebook 0 has inline exercises (helpers.course)."""
    names = [n for n in NOTEBOOKS if n not in REQUIRED and (NOTEBOOK_DIR / n).is_file()]
    assert names, f"none of {NOTEBOOKS} besides {sorted(REQUIRED)} exists; list a notebook with exercises"
    sources = ["".join(c["source"]) for n in names
               for c in json.loads((NOTEBOOK_DIR / n).read_text(encoding="utf-8"))["cells"]
               if c["cell_type"] == "code"]
    assert any("helpers.course" in s for s in sources) and any(".check(" in s for s in sources), \
        f"{names} call no exercise check (helpers.course ... q1.check(...)); list a notebook that does"


def test_repository_notebooks_untouched(lab):
    """The browser runs and saves notebooks, but only in its temporary copy."""
    ran = [n for n in NOTEBOOKS if n in lab.repo_digest_before]
    now = lab.repo_digest_now()
    changed = [n for n in ran if now.get(n) != lab.repo_digest_before[n]]
    assert not changed, f"the browser run wrote into the repository's notebooks: {changed}"
