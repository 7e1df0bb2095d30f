"""The tenth red team: one notebook of functions that share a name holds ``similarity`` for minutes,
outside its time budget.

``similarity._all_functions`` keys every function a notebook defines by its name, ``name (2)``,
``name (3)``... for repeats, and finds the next free key by counting up from 1 each time: n functions
of one name cost n**2 / 2 dictionary probes (each formatting a string). Nothing bounds it: the time
budget (``--time-budget``, 120 s, "for the exact comparisons") covers only the comparisons, and the
size bound (``MAX_TOKENS``) is checked after ``notebook_functions`` has run. Within the grader's own
code cap (128 KiB), ``"def f():0\\n" * 13_097`` (a notebook that grades like any other: it defines
``f``, then again) took **95 s** to read here (load 2.5 on 2 cores), against **1.2 s** for as many
functions with distinct names; every such notebook of the class adds its 95 s to the report's run.
Red team 6's fix (a deadline in ``_matches``) and issue 33's (fingerprints) bound other quadratic steps.

Asserted with 4,000 functions (11 s here now, 2.5 s with distinct names): the class's report, with an
honest copied pair beside the notebook, takes no longer than with distinct names (within 2x + 1 s)
and still names the pair. The
principle that would close it: every step of reading a notebook is linear in its size (count each
name's repeats instead of probing), or runs under the same deadline.
"""

from __future__ import annotations

import time

from helpers.grade import similarity

from ..redteam_r5.common import notebook
from .test_similarity_labels import BOB, CAROL


def _report(tmp_path, name: str, code: str) -> tuple[float, str]:
    folder = tmp_path / name
    folder.mkdir()
    notebook(folder / "bob.ipynb", BOB)
    notebook(folder / "carol.ipynb", CAROL)
    notebook(folder / "mallory.ipynb", BOB)  # the copy the report must still show
    notebook(folder / "zz_many_functions.ipynb", code)
    out = tmp_path / f"{name}-report"
    args = ["--assignment", "from-scratch", "--min-tokens", "10", "--out", str(out), str(folder)]
    started = time.monotonic()
    assert similarity.main(args) == 0
    return time.monotonic() - started, (out / "similarity.md").read_text(encoding="utf-8")


def test_functions_of_one_name_do_not_hold_the_class_report(tmp_path):
    distinct, _ = _report(tmp_path, "distinct", "".join(f"def f{i}():0\n" for i in range(4000)))
    same, report = _report(tmp_path, "same", "def f():0\n" * 4000)
    assert "` bob.ipynb ` | ` mallory.ipynb `" in report, report
    assert same < 2 * distinct + 1.0, (
        f"4,000 functions named f held the report {same:.1f} s; with distinct names {distinct:.1f} s"
    )
