"""The autograder, for instructors: ``python -m helpers.grade``.

- :mod:`helpers.grade.spec`: what an assignment, a question and a check are; how cases
  are built from a seed and how a returned value is judged.
- :mod:`helpers.grade.assignments`: the three graded assignments written in that spec
  (reference implementations, case generators, the packages learners may import) and
  the learner's ``check`` self-test.
- :mod:`helpers.grade.grader`: the command line; reads notebooks, plans cases,
  grades submissions in parallel, writes reports and ``grades.csv``.
- :mod:`helpers.grade.scoring`: turns validated results into points and feedback.
- :mod:`helpers.grade.files`: reads submissions (regular files only) and writes
  results atomically under safe, unique names.
- :mod:`helpers.grade.isolation`: the bubblewrap sandbox (or the explicit unsafe
  mode) a submission runs in, and what it can see.
- :mod:`helpers.grade.sandbox`: runs one submission in it and validates what comes back.
- :mod:`helpers.grade.child`: the code that runs inside the sandbox (standard
  library only; its text is passed in on standard input, never imported there).

Imports: the library root and :mod:`helpers.checking`; never :mod:`helpers.course`.
"""
