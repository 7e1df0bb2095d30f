"""How an answer is judged: one rule set for the course's checks, the assignments' self-check and the grader.

- :mod:`helpers.checking.values`: what counts as a number, equality within a
  tolerance, readable values; feedback never shows the expected value.
- :mod:`helpers.checking.questions`: question objects (``check``, ``hint``,
  ``solution``) for the notebooks' instant-feedback exercises.

Imports: the standard library and NumPy only (never the rest of ``helpers``).
"""
