"""Red team 30: a NumPy string is an id at home and "a class from the notebook or a package" when graded.

``helpers.checking.values.judge_item`` (the rule the learner's own ``check()`` and the grader share)
says "a NumPy string as a str": ``np.str_`` counts as a str id, and a dict keyed by ``np.str_`` has
the expected keys (``np.str_("u0") == "u0"``, same hash). The runner (``child.tag``) reads a ``str``
by its exact type only and knows no NumPy string (``_numpy_tag`` reads floats, ints and bool), so an
``np.str_`` key or value becomes ``{"t": "other", "type": "numpy.str_"}``: the whole dict is "a dict
containing numpy.str_, not a dict" and the question scores 0.

An honest ``held_out_items`` that walks ``np.unique`` of the users (or ``np.array(log)[:, 0]``,
``dict(zip(users_array, items))``) is told at home that its public checks pass and loses 3 of 10
points when graded, with a confusing message. Red team 28's fix (one dict rule on both sides) did
not reach the keys: this is the same class of mismatch one level down.

Suggested fix: one rule for a str as for numbers: the runner tags ``np.str_`` (a C type of module
``numpy``, read with ``str.__str__``) as a str, or ``check()``/``judge_item`` refuse it with the
grader's words.

Closed at stop 43: the runner reads a genuine ``numpy.str_`` (a C type of module ``numpy``) as a
``str`` with ``str.__str__`` (``child._numpy_tag``), as ``judge_item`` does.
"""

from __future__ import annotations

import contextlib
import io

from helpers.grade.assignments import ASSIGNMENTS, check

from ..redteam_r5.common import grade_class, notebook
from ..redteam_r28.test_dict_subclass_answers import _solution_cells

L = ASSIGNMENTS["leave-one-out"]

NUMPY_KEYS = r"""
import numpy as np

def held_out_items(log):
    held = {}
    for user in np.unique([row[0] for row in log]):
        last = None
        for row in log:
            if row[0] == user and (last is None or row[2] >= last[2]):
                last = row
        held[user] = last[1]
    return held
"""


def test_numpy_str_keys_score_like_str(bwrap, tmp_path):
    cells = _solution_cells()
    space: dict = {}
    for source in [*cells, NUMPY_KEYS]:
        exec(source, space)
    said = io.StringIO()
    with contextlib.redirect_stdout(said):
        check("held_out_items", space["held_out_items"])
    assert "public checks the grader runs passed" in said.getvalue(), said.getvalue()  # passes at home

    folder = tmp_path / "subs"
    folder.mkdir()
    notebook(folder / "honest.ipynb", *cells)
    notebook(folder / "npkeys.ipynb", *cells, NUMPY_KEYS)
    graded = grade_class(folder, tmp_path / "out", seed=11, assignment=L)
    assert graded["honest.ipynb"]["report"]["score"] == L.max_score  # the classmate is untouched
    feedback = graded["npkeys.ipynb"]["feedback"]
    assert "numpy.str_" not in feedback.replace("\\", ""), feedback
    assert graded["npkeys.ipynb"]["report"]["score"] == L.max_score, feedback
