"""The autograder, for instructors: ``python -m helpers.grade``.

- :mod:`helpers.grade.assignments`: the graded assignments (questions, reference
  implementations, case generators) and the learner's ``check`` self-test.
- :mod:`helpers.grade.grader`: reads notebooks, plans cases, scores answers,
  writes reports and ``grades.csv``.
- :mod:`helpers.grade.sandbox`: runs one submission in an isolated child.
- :mod:`helpers.grade.child`: the code that runs inside the sandbox (standard
  library only; it is copied into the sandbox, never imported there from ``helpers``).

Imports: the library root and :mod:`helpers.checking`; never :mod:`helpers.course`.
"""
