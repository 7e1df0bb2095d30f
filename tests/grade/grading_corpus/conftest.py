"""The grading corpus holds deliberately hostile notebooks (fork bombs, infinite loops, os._exit).

They must never be executed by nbval during ``make test``: only ``tests/test_grade.py``
grades them, through the sandboxed grader.
"""

collect_ignore_glob = ["*.ipynb", "*.json"]
