"""``python -m helpers.grade``: grade a folder of learners' notebooks (see :mod:`helpers.grade.grader`)."""

from helpers.grade.grader import main

if __name__ == "__main__":
    raise SystemExit(main())
