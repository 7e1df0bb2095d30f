"""The twenty-fourth red team (final round of stop 42): round 23's authoring fixes and their neighbours.

Broken (xfail strict, ``test_solution_markers.py``): a hand-graded answer cell with one proper region
and a second, labelled one hands the second out; code-cell markers written with a typo the substring
check misses (two spaces, a tab, a no-break space, lower case) hand the solution out; markdown and raw
cells do not refuse the marker spellings code cells refuse (``BEGIN SOLUTION`` without ``###``,
``## BEGIN SOLUTION``, ``# BEGIN SOLUTION``). Held: see the module docstring of that file.
"""
