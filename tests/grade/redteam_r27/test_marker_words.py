"""The twenty-seventh red team: round 26's rule (``authoring._marker_like``: a line, or a ``#`` comment
in it, whose letters begin with BEGIN or END followed by a word within two edits of SOLUTION).

No learner code runs here (authoring only: the instructor's tool), so no classmate is graded.

Broken (each test passes once the hole is closed: the source is refused, or the secret is absent):

1. ``test_marker_with_a_word_between_is_refused`` (low): ``### BEGIN MODEL SOLUTION`` /
   ``### END MODEL SOLUTION`` (also ``SAMPLE``, ``EXERCISE 2``, ``PART A``): the letters after BEGIN are
   ``MODELSOLUTION``, whose first 6-11 letters are more than two edits from SOLUTION. Neither a region
   nor refused: the solution is handed out.
2. ``test_marker_with_words_swapped_is_refused`` (low): ``### SOLUTION BEGIN`` / ``### SOLUTION END``
   (the order of several other tools' and course templates' banners): the letters do not *begin*
   with BEGIN/END.
3. ``test_abbreviated_marker_is_refused`` (low): ``### BEGIN SOLN`` / ``### END SOLN`` (and ``SOL``):
   four letters are four edits from SOLUTION.

Principle: a line that carries a marker's words in a marker's place is a marker attempt whatever sits
between or around them: fail closed on a marker-position line (the start of a line or ``#`` comment,
letters only) holding both a BEGIN/END/START/STOP word and a SOLUTION-like word (SOLUTION within two
edits, SOLN, SOL), in either order, with at most a couple of short words between.

Held (run): the course's own sources (``tools/learner_notebooks.py --check``: up to date, none
refused); ``### BEIGN SOLUTION`` with a correct END and ``### END SOLUTOIN`` with a correct BEGIN (an
unpaired marker is refused: ``strip_solutions``); ``### Beginning of solution`` / ``### End of
solution`` (the END line is caught); ``BEGINSOLUTION``; a U+2028 after the marker (``splitlines``
splits there, so the region is found).

Closed at stop 42 (``authoring._begins_a_marker``): a line's first words read as a marker when a
word like SOLUTION (within two edits, or SOL/SOLN) comes first, or BEGIN/END/START/STOP (within one
edit) with such a word among the next three, or the two run together; such a line that is not an
exact marker is refused.
"""

from __future__ import annotations

import pytest

from ..redteam_r26.test_marker_spellings import _leaks  # and its control: the real markers hide it


@pytest.mark.parametrize("word", ["MODEL", "SAMPLE", "EXERCISE 2", "PART A"])
def test_marker_with_a_word_between_is_refused(tmp_path, word):
    assert not _leaks(tmp_path, f"### BEGIN {word} SOLUTION", f"### END {word} SOLUTION")


def test_marker_with_words_swapped_is_refused(tmp_path):
    assert not _leaks(tmp_path, "### SOLUTION BEGIN", "### SOLUTION END")


@pytest.mark.parametrize("word", ["SOLN", "SOL"])
def test_abbreviated_marker_is_refused(tmp_path, word):
    assert not _leaks(tmp_path, f"### BEGIN {word}", f"### END {word}")
