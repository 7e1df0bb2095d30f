"""The twenty-fifth red team (final round of stop 42): round 24's fail-closed marker rule and the grader.

Broken (xfail strict, ``test_marker_spellings.py``): marker spellings ``_MARKER_WORDS`` misses
(zero-width/format characters, full-width letters, ``BEGIN_SOLUTION``/``BEGINSOLUTION``/``BEGIN-SOLUTION``,
HTML entities in markdown) hand a solution to learners; honest prose ("an end-to-end solution") is
refused. Held: see that file's docstring, and two grader probes run by hand (not kept): a copy of
``perfect.ipynb`` with every identifier in full-width letters is paired at 1.000 (Python's parser
NFKC-folds identifiers before ``similarity`` sees them); a file named with U+202E/U+200B graded in
bubblewrap beside ``perfect.ipynb`` (14/14 untouched) is escaped in the terminal, ``grades.csv`` and
the JSON report, and its report name is sanitised (``inert.plain``, the report-name rule).
"""
