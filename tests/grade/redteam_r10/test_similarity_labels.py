"""The tenth red team: ``similarity`` cannot say whose notebooks are alike in the layouts the grader
takes, so a copy points at nobody (or at the whole class).

The grader reads a folder of per-learner folders (``s123/hw.ipynb``, the layout of nbgrader, GitHub
Classroom and many LMS exports), Canvas's zip and Gradescope's export (``submission_<id>/hw.ipynb``).
The README gives ``similarity`` the same ``submissions/`` argument, but ``similarity`` reads only the
``*.ipynb`` entries at the top of a folder (``files.collect``) and labels each notebook by its base
name (``display_name(p)``):

1. ``similarity submissions/`` on per-learner folders stops: "no .ipynb submissions found" (exit 2);
2. given the files one by one (``submissions/*/hw.ipynb``), every label is ``hw.ipynb``: Mallory's
   verbatim copy of Bob's code is reported as "``hw.ipynb`` and ``hw.ipynb``", the groups merge every
   label into one node, and nothing tells the instructor it was Bob and Mallory rather than Carol,
   whose honest, different code sits beside them. A copy is found and attributed to nobody; reading
   all the class's notebooks by hand is the only way to see who.

The principle that would close it: ``similarity`` collects submissions as the grader does
(``collect.collect``: per-learner folders, Canvas and Gradescope downloads, the roster's ids) and
labels each by what tells learners apart (the learner's id, or the path under the folder given).
"""

from __future__ import annotations

import pytest

from helpers.grade import similarity

from ..redteam_r5.common import notebook

BOB = """
def precision_at_k(ranking, relevant, k):
    hits = 0
    for position, item in enumerate(ranking):
        if position >= k:
            break
        if item in relevant:
            hits = hits + 1
    return hits / k


def recall_at_k(ranking, relevant, k):
    if len(relevant) == 0:
        return 0.0
    hits = 0
    for position, item in enumerate(ranking):
        if position >= k:
            break
        if item in relevant:
            hits = hits + 1
    return hits / len(relevant)
"""

CAROL = """
def precision_at_k(ranking, relevant, k):
    wanted = set(relevant)
    return sum(1 for x in list(ranking)[:k] if x in wanted) / float(k) if k > 0 else 0.0


def recall_at_k(ranking, relevant, k):
    wanted = set(relevant)
    if not wanted:
        return 0.0
    found = [x for x in list(ranking)[:k] if x in wanted]
    return len(set(found)) / len(wanted)
"""


@pytest.fixture
def submissions(tmp_path):
    root = tmp_path / "submissions"
    for learner, code in (("s123", BOB), ("s200", CAROL), ("s999", BOB)):  # Mallory copies Bob
        (root / learner).mkdir(parents=True)
        notebook(root / learner / "hw.ipynb", "import math\n", code)
    return root


def _report(tmp_path, *paths) -> str:
    out = tmp_path / "report"
    args = ["--assignment", "from-scratch", "--min-tokens", "10", "--out", str(out), *map(str, paths)]
    try:
        status = similarity.main(args)
    except SystemExit as exc:  # argparse's error
        status = exc.code
    assert status == 0, f"similarity stopped (status {status}) on the folder the grader reads"
    return (out / "similarity.md").read_text(encoding="utf-8")


def test_similarity_reads_the_per_learner_folders_the_grader_reads(submissions, tmp_path):
    report = _report(tmp_path, "--learner-folders", submissions)
    assert "s123" in report and "s999" in report


def test_a_copy_is_attributed_to_the_two_learners_not_to_a_file_name(submissions, tmp_path):
    report = _report(tmp_path, *sorted(submissions.glob("*/hw.ipynb")))
    pairs = report.split("## Pairs of submissions")[1].split("## Matches")[0]
    assert "1.000" in pairs  # the copy is found...
    assert "s123" in pairs and "s999" in pairs and "s200" not in pairs, pairs  # ...and says whose
