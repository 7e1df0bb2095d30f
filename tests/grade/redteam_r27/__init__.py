"""The twenty-seventh red team (final round of stop 42): round 26's letters-only marker rule and the grader.

Broken (xfail strict, ``test_marker_words.py``): markers whose words are right but not in the order or
form the rule expects (``### BEGIN MODEL SOLUTION``, ``### SOLUTION BEGIN``, ``### BEGIN SOLN``,
``### BEGIN EXERCISE 2 SOLUTION``) are neither regions nor refused: the solution goes to learners.
Held: see that file's docstring (the course's own sources pass ``tools/learner_notebooks.py --check``;
grader probes read, not run: forged runner replies, hash-colliding globals keys, frame walking to the
command nonce).
"""
