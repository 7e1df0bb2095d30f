"""The twenty-eighth red team: a ``dict`` the grader does not take as one (an honest learner misgraded).

``leave-one-out`` asks ``held_out_items`` and ``evaluate_loo`` to "Return a ``dict``". The runner
(``child.tag``) describes a value by its *exact* type (``t is dict``), so a ``collections.OrderedDict``
or ``defaultdict`` (both ``dict`` subclasses from the standard library, ``isinstance(x, dict)``) is
``{"t": "other", "type": "collections.OrderedDict"}``, and ``inert.type_name`` turns that into "a class
defined in the notebook". The learner's own self-check, ``helpers.grade.assignments.check`` (the
"public checks the grader runs", in the learner's kernel), passes the very same functions, so an
honest learner is told all is well at home and loses 6 of 10 points when graded, with feedback naming a
class the notebook never defined. ``helpers/checking/values.py`` promises "one rule set ... shared by
the notebooks' checks ... and the grader"; for numbers the README documents the exact-type rule, for
``dict`` nothing does.

The test grades the honest course solution beside the same solution with ``held_out_items`` returning
an ``OrderedDict`` (filled in time order) and ``evaluate_loo`` returning a ``defaultdict(float)`` of the
three means, in the real bubblewrap sandbox; it checks first that ``check()`` passes both.
Suggested fix: one rule for both sides: either the runner tags standard-library ``dict`` subclasses
(``OrderedDict``, ``defaultdict``, ``Counter``) by value through ``dict``'s own methods (running none
of the subclass's code), or ``check()`` refuses what the grader refuses, with the same words
("returned a collections.OrderedDict, not a dict").

Closed at stop 43: one rule on both sides, :data:`helpers.checking.values.DICT_TYPES` (``dict``,
``OrderedDict``, ``defaultdict``, ``Counter``), read by value in the runner with ``dict.items`` (no
method of the value runs); a notebook's own ``dict`` subclass is refused by ``check()`` and the grader
alike (``tests/grade/test_assignments.py``).
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

from helpers.grade.assignments import ASSIGNMENTS, check

from ..redteam_r5.common import grade_class, notebook

ROOT = Path(__file__).resolve().parents[3]
L = ASSIGNMENTS["leave-one-out"]

SUBCLASSES = r"""
from collections import OrderedDict, defaultdict

def held_out_items(log):
    held = OrderedDict()
    for user, item, timestamp in sorted(log, key=lambda row: row[2]):  # stable: ties keep log order
        held[user] = item
    return held

def evaluate_loo(log, recommendations, k):
    truth = held_out_items(log)
    sums = defaultdict(float, HR=0.0, MRR=0.0, NDCG=0.0)
    for user, item in truth.items():
        top = recommendations.get(user, [])[:k]
        if item in top:
            rank = top.index(item) + 1
            sums["HR"] += 1.0
            sums["MRR"] += 1.0 / rank
            sums["NDCG"] += 1.0 / math.log2(rank + 1)
    for metric in sums:
        sums[metric] /= len(truth)
    return sums
"""


def _solution_cells() -> list[str]:
    """The course's leave-one-out solution (markers out), without its ``check(...)`` cells."""
    nb = json.loads((ROOT / "exercises" / "source" / "leave-one-out.ipynb").read_text(encoding="utf-8"))
    cells = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    cells = [c.replace("    ### BEGIN SOLUTION\n", "").replace("    ### END SOLUTION\n", "") for c in cells]
    return [c for c in cells if not c.startswith("check(")]


def test_dict_subclass_scores_like_a_dict(bwrap, tmp_path):
    cells = _solution_cells()
    space: dict = {}
    for source in [*cells, SUBCLASSES]:
        exec(source, space)
    said = io.StringIO()
    with contextlib.redirect_stdout(said):
        check("held_out_items", space["held_out_items"])
        check("evaluate_loo", space["evaluate_loo"])
    assert said.getvalue().count("checks the grader runs passed") == 2, said.getvalue()  # passes at home

    folder = tmp_path / "subs"
    folder.mkdir()
    notebook(folder / "honest.ipynb", *cells)
    notebook(folder / "ordered.ipynb", *cells, SUBCLASSES)
    graded = grade_class(folder, tmp_path / "out", seed=11, assignment=L)
    assert graded["honest.ipynb"]["report"]["score"] == L.max_score  # the classmate is untouched
    feedback = graded["ordered.ipynb"]["feedback"]
    assert "a class from the notebook or a package" not in feedback, feedback
    assert graded["ordered.ipynb"]["report"]["score"] == L.max_score, feedback
