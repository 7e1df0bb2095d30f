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

Asserted with 2,000 functions (2 to 4 s here now, 0.3 s with distinct names): reading them takes no
more than 3x as long as reading as many functions of distinct names (+0.5 s); and the class's report,
with a copied pair and an honest classmate beside the notebook, still names the pair. The
principle that would close it: every step of reading a notebook is linear in its size (count each
name's repeats instead of probing), or runs under the same deadline.
"""

from __future__ import annotations

import time

from helpers.grade import similarity

from ..redteam_r5.common import notebook
from .test_similarity_labels import BOB, CAROL

N = 2000  # functions in the notebook (13,097 fit in the 128 KiB code cap)


def _reading(code: str) -> float:
    started = time.monotonic()
    similarity.notebook_functions([code], {"precision_at_k"})
    return time.monotonic() - started


def test_functions_of_one_name_are_read_in_linear_time():
    distinct = _reading("".join(f"def f{i}():0\n" for i in range(N)))
    same = _reading("def f():0\n" * N)
    assert same < 3 * distinct + 0.5, (
        f"{N} functions named f: {same:.1f} s; with distinct names {distinct:.1f} s"
    )


def test_the_class_report_still_names_the_copy(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    notebook(folder / "bob.ipynb", BOB)
    notebook(folder / "carol.ipynb", CAROL)
    notebook(folder / "mallory.ipynb", BOB)  # the copy the report must show
    notebook(folder / "zz_same_names.ipynb", "def f():0\n" * N)
    out = tmp_path / "report"
    args = ["--assignment", "from-scratch", "--min-tokens", "10", "--out", str(out), str(folder)]
    assert similarity.main(args) == 0
    report = (out / "similarity.md").read_text(encoding="utf-8")
    assert "` bob.ipynb ` | ` mallory.ipynb `" in report and "carol" not in report.split("## Pairs")[1], (
        report
    )
