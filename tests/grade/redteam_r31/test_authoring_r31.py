"""Red team 31: the authoring tool's positive rule (``authoring._run_release``, ``_collect``,
``_giving``) and the hidden cases of a source notebook.

Broken (each test fails while the hole is open, passes once it is closed):

1. ``test_reference_inside_a_check_or_class_is_refused`` (low): ``_collect`` only looks at the plain
   functions bound at the TOP of the release's namespace. A complete reference implementation that
   an instructor leaves outside a region one level down is written to learners as is: nested in a
   given self-check helper (``def check_mean_of_top(fn): def expected(values, k): ...``), or as a
   static method of a given class (``class Reference: @staticmethod def mean_of_top(...)``).
   The learner's stub is then one line (``return Reference.mean_of_top(values, k)``). Also written
   (run, not made tests): the reference as a ``functools.partial``, as a bound method of a given
   instance, as a lambda in a dict. Principle: collect every code object the release defines (nested
   ones, class bodies; from the AST or ``co_consts``) and every callable reachable from its bindings
   (class attributes, partials, containers), not only top-level functions.
2. ``test_hidden_case_outside_the_grading_cell_stays_hidden`` (low-medium): the spec is the source's
   code cells followed by the declaration, so a declaration may read names of other cells. A hidden
   fixed case kept in an ordinary cell above the ``# grading`` cell (``HIDDEN_CASES = [...]``, the
   check reading ``"cases": HIDDEN_CASES``) is written to the learner notebook verbatim, silently,
   while the spec marks the check hidden. Principle: a hidden check's cases must not be visible in
   the release: refuse when the declaration reads a name the learner notebook binds inside a hidden
   check, or when a hidden fixed case (its arguments) equals a value the release holds.

3. ``test_marking_scheme_spelling_is_refused`` (low): ``=== BEGIN MARKING SCHEME ===`` is not read as
   nbgrader's MARK SCHEME region (``_nbgrader_region`` joins words and looks for ``MARKSCHEME``).

Held (run): a grading cell whose first line is ``# Grading``, ``# grading -- hidden``, or has a
comment above it is not recognised and the tool refuses (no declaration), it never leaks; a helper
with an extra or keyword-only parameter (not signature-compatible) is written: by the round 29
decision (only signature-compatible functions are candidates), not reported.

Closed at stop 43: the release's callables now include every code object it compiled that needs
no closure (``authoring._defined``) and those one step from its bindings (``_reachable``: partials,
methods of its classes and instances, items of containers); a fixed hidden case equal to a value the
release binds is refused (``_shown_cases``); ``_nbgrader_region`` reads the region words within one
edit (``_region_words``: MARKING SCHEME).
"""

# ruff: noqa: E501  (notebook sources written out as the learners and instructors would)

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from helpers.grade import authoring

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_authoring import DECLARATION, SECRET_CASE, _cell, source_notebook

REGION = (
    "def mean_of_top(values, k):\n    ### BEGIN SOLUTION\n    top = values[:k]\n"
    "    return sum(top) / len(top)\n    ### END SOLUTION\n"
)
GIVEN = {
    "nested-in-a-check": (
        "def check_mean_of_top(fn):\n"
        "    def expected(values, k):\n        top = values[:k]\n        return sum(top) / len(top)\n"
        "    for values, k in [([1, 2, 3], 2), ([4.0, 5.0], 1)]:\n"
        "        assert fn(values, k) == expected(values, k)\n    print('all good')\n",
        REGION,
    ),
    "static-method": (
        "class Reference:\n    @staticmethod\n    def mean_of_top(values, k):\n"
        "        top = values[:k]\n        return sum(top) / len(top)\n",
        "def mean_of_top(values, k):\n    ### BEGIN SOLUTION\n    return Reference.mean_of_top(values, k)\n"
        "    ### END SOLUTION\n",
    ),
}


def _author(tmp_path: Path, nb: dict, name: str = "rank-basics") -> Path | None:
    """The learner notebook ``author`` writes for ``nb`` (None: refused); shared with red teams 33, 35."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    source = tmp_path / "source.ipynb"
    source.write_text(json.dumps(nb), encoding="utf-8")
    try:
        authoring.author(source, tmp_path / "build")
    except authoring.AuthoringError:
        return None
    return tmp_path / "build" / f"{name}.ipynb"


@pytest.mark.parametrize("kind", sorted(GIVEN))
def test_reference_inside_a_check_or_class_is_refused(tmp_path, kind):
    given, region = GIVEN[kind]
    nb = source_notebook()
    nb["cells"][1]["source"] = region
    nb["cells"].insert(1, _cell("code", given))
    learner = _author(tmp_path, nb)
    if learner is not None:  # written: the reference went out with it
        assert "sum(top) / len(top)" not in learner.read_text(encoding="utf-8")
    assert learner is None


def assert_hidden_case_stays_hidden(tmp_path: Path, expression: str, given: str) -> None:
    """The hidden fixed case read by the declaration as ``expression`` from a cell ``given`` above
    it never reaches the learner notebook (refused, or absent); shared with red team 33."""
    nb = source_notebook(DECLARATION.replace(f"[([{SECRET_CASE}, 1], 1)]", expression))
    nb["cells"].insert(3, _cell("code", given))
    learner = _author(tmp_path, nb)
    if learner is not None:
        spec = authoring.load_spec(tmp_path / "build" / "rank-basics.grader.py")
        hidden = [c for c in spec.questions[0].checks if c.name == "a hidden fixed case"]
        assert hidden and hidden[0].hidden  # the spec does treat it as hidden
        assert str(SECRET_CASE) not in learner.read_text(encoding="utf-8")


def test_hidden_case_outside_the_grading_cell_stays_hidden(tmp_path):
    given = f"# hidden cases for the grader\nHIDDEN_CASES = [([{SECRET_CASE}, 1], 1)]\n"
    assert_hidden_case_stays_hidden(tmp_path, "HIDDEN_CASES", given)


def test_marking_scheme_spelling_is_refused(tmp_path):
    """3. (low) ``_nbgrader_region`` looks for the joined words ``MARKSCHEME``: an instructor's
    ``=== BEGIN MARKING SCHEME ===`` (a one-word slip from nbgrader's ``MARK SCHEME``) around a mark
    scheme in markdown is written to learners. Principle: the edit-distance tolerance the solution
    markers have (``_edits``) for the region's words too."""
    nb = source_notebook()
    scheme = "=== BEGIN MARKING SCHEME ===\nFull marks: mean of values[:k], i.e. sum(top) / len(top).\n=== END MARKING SCHEME ===\n"
    nb["cells"].insert(1, _cell("markdown", scheme))
    learner = _author(tmp_path, nb)
    assert learner is None or "MARKING SCHEME" not in learner.read_text(encoding="utf-8")
