"""The twenty-fifth red team (final round of stop 42): round 24's fail-closed marker rule and the grader.

Broken (xfail strict, ``test_marker_spellings.py``): marker spellings ``_MARKER_WORDS`` misses
(zero-width/format characters, full-width letters, ``BEGIN_SOLUTION``/``BEGINSOLUTION``/``BEGIN-SOLUTION``,
HTML entities in markdown) hand a solution to learners; honest prose ("an end-to-end solution") is
refused. Held: see the module docstrings and the final report.
"""
