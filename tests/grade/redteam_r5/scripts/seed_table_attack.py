"""Red team 5, end to end: the grading seed from the data seed a worked example shows, then a table
of every hidden answer that scores full marks under that seed (as on Gradescope, where every
resubmission of a learner meets the same seed and, since each learner meets cases of their own, the
same cases: the table is handed in again by the probe's own learner, under its file name), beside an
honest classmate.

    PYTHONPATH=$PWD:$PWD/topkeval/src .venv/bin/python tests/grade/redteam_r5/scripts/seed_table_attack.py

The brute force here searches 400,000 seeds around the (known) seed to keep the demonstration short,
in Python: the data seed is now the hash of the learner's own seed (``grader.learner_seed``, from the
run's seed and the learner key, which the learner knows), two SHA-256 per candidate, which
``brute_seed.c`` (one hash of the run's seed, the scheme red team 5 broke) does not compute. Since red
team 9 an assignment without answer variables (from-scratch) gets no data seed at all: the probe
then reads nothing and the attack stops at its first step, as it should.
"""

from __future__ import annotations


def main() -> None:
    import io
    import json
    import re
    import shutil
    import time
    from pathlib import Path

    from helpers.grade import grader as grade
    from helpers.grade import isolation
    from helpers.grade.assignments import ASSIGNMENTS

    a = ASSIGNMENTS["from-scratch"]
    seed = 5_000_123  # a Gradescope package's seed: fixed for every resubmission, < 2**32
    root = Path("/tmp/r5-seed/run")
    shutil.rmtree(root, ignore_errors=True)
    (root / "s1").mkdir(parents=True)
    corpus = Path(__file__).resolve().parents[2] / "grading_corpus"

    def nb(path: Path, src: str) -> None:
        cell = {"cell_type": "code", "metadata": {}, "source": src, "outputs": [], "execution_count": None}
        path.write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))

    def run(folder: Path, out: Path) -> list[dict]:
        return grade.grade_many(
            sorted(folder.iterdir()), a, out, seed=seed, mode=isolation.BUBBLEWRAP, progress=io.StringIO()
        )

    # Submission 1: a worked example returns 32 bits of the data seed as a float in [0, 1)
    nb(
        root / "s1" / "probe.ipynb",
        "import os\nH = int(os.environ['HELPERS_GRADING_SEED'][:8], 16)\n"
        "def precision_at_k(ranking, relevant, k):\n    return H / 2**32\n",
    )
    shutil.copyfile(corpus / "perfect.ipynb", root / "s1" / "honest.ipynb")
    print("submission 1:", [(r["file"], r["score"]) for r in run(root / "s1", root / "o1")])
    feedback = (root / "o1" / "feedback" / "probe.md").read_text()
    shown = re.search(r"got ` (0\.\d+(?:e-\d+)?) `", feedback)
    if shown is None:
        print("the probe's feedback shows no data seed: the attack stops here")
        return
    value = float(shown.group(1))
    prefix = f"{round(value * 2**32):08x}"
    print("the feedback shows", value, "-> data seed prefix", prefix)
    started = time.time()
    key = "file:probe"  # the probe's learner key (no roster: its file's name), known to the learner
    found = [
        s
        for s in range(seed - 200_000, seed + 200_000)
        if grade.data_seed(grade.learner_seed(s, key))[:8] == prefix
    ]
    rate = 400_000 / (time.time() - started)
    print(
        f"seed found: {found} ({rate:.0f} hashes/s here: "
        f"all 2**32 in {2**32 / rate / 3600:.1f} h on one core)"
    )
    # Offline: the course's public case makers and reference rebuild every hidden case and its answer
    plan = grade.make_plan(a, int(found[0]), key)  # the probe's learner's own cases

    def table_key(args):
        ranking, relevant, k = args
        return repr((list(ranking), sorted(relevant, key=repr), k))

    tables = {
        q.target: {
            table_key(args): right
            for (_, args), right in zip(plan.cases[q.name], plan.expected[q.name], strict=True)
        }
        for q in a.questions
    }
    src = "TABLES = " + repr(tables) + "\n"
    for target in tables:
        src += (
            f"def {target}(ranking, relevant, k):\n"
            f"    return TABLES[{target!r}].get(repr((list(ranking), sorted(relevant, key=repr), k)), 0.0)\n"
        )
    (root / "s2").mkdir()
    nb(root / "s2" / "probe.ipynb", src)  # handed in again by the same learner: her own cases
    shutil.copyfile(corpus / "perfect.ipynb", root / "s2" / "honest.ipynb")
    done = run(root / "s2", root / "o2")
    print("submission 2, same seed:", [(r["file"], r["score"], r["max_score"]) for r in done])


if __name__ == "__main__":
    main()
