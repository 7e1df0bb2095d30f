"""The autograder, for instructors: ``python -m helpers.grade``.

- :mod:`helpers.grade.spec`: what an assignment, a question and a check are; how cases
  are built from a seed and how a returned value is judged.
- :mod:`helpers.grade.assignments`: the three graded assignments written in that spec
  (reference implementations, case generators, the packages learners may import) and
  the learner's ``check`` self-test.
- :mod:`helpers.grade.grader`: the command line; reads notebooks, plans cases,
  grades submissions in parallel, writes reports and ``grades.csv``.
- :mod:`helpers.grade.scoring`: turns validated results into points and feedback.
- :mod:`helpers.grade.reports`: statuses and reasons, the roster, ``grades.csv`` and the
  learners' Markdown feedback (no hidden input or expected value in it).
- :mod:`helpers.grade.gradebook`: ``OUT/gradebook.sqlite``, every run, result and hand-given
  score of one assignment; the seed drawn once.
- :mod:`helpers.grade.late`: deadline, grace period and late penalty.
- :mod:`helpers.grade.exports`: ``grades.csv``, Canvas's gradebook CSV and the feedback, written
  from the gradebook; Gradescope's ``results.json`` (``python -m helpers.grade gradescope`` is the
  ``run_autograder`` entry point).
- :mod:`helpers.grade.review`: ``python -m helpers.grade review OUT``: the local page where an
  instructor scores hand-graded answers.
- :mod:`helpers.grade.authoring`: ``python -m helpers.grade author``: a source notebook with
  solution markers and a grading declaration becomes a learner notebook and a graded spec.
- :mod:`helpers.grade.similarity`: ``python -m helpers.grade similarity``: normalised code
  compared across a class and with the course's own solutions.
- :mod:`helpers.grade.collect`: where submissions come from: files, per-learner folders, Canvas's
  and Gradescope's downloads (archives refused member by member), matched to the roster; a file that
  matches nobody or several learners is nobody's, and listed.
- :mod:`helpers.grade.gradescope_package`: ``python -m helpers.grade gradescope-package``: the
  autograder zip (``setup.sh``, ``run_autograder``, the course and the spec).
- :mod:`helpers.grade.files`: reads submissions (regular files only) and writes
  results atomically under safe, unique names.
- :mod:`helpers.grade.isolation`: the bubblewrap sandbox (or the explicit unsafe
  mode) a submission runs in, and what it can see.
- :mod:`helpers.grade.sandbox`: runs one submission in it and validates what comes back.
- :mod:`helpers.grade.child`: the code that runs inside the sandbox (standard
  library only; its text is passed in on standard input, never imported there).

Imports: the library root and :mod:`helpers.checking`; never :mod:`helpers.course`.
"""
