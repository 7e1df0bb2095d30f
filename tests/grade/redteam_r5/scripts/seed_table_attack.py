"""Red team 5, end to end: the grading seed from the data seed a worked example shows, then a table
of every hidden answer that scores full marks under that seed (as on Gradescope, where every
resubmission meets the same seed), beside an honest classmate.

    gcc -O2 -o /tmp/brute_seed tests/grade/redteam_r5/scripts/brute_seed.c -lcrypto
    PYTHONPATH=$PWD:$PWD/topkeval/src .venv/bin/python tests/grade/redteam_r5/scripts/seed_table_attack.py

The brute force here searches 400,000 seeds around the (known) seed to keep the demonstration short;
all 2**32 seeds take ~4 h on one core of the 2-core review VM (~300,000 SHA-256/s with sprintf), and
seconds to minutes on a laptop's cores or a GPU (hashcat).
"""

from __future__ import annotations


def main() -> None:
    import io
    import json
    import re
    import shutil
    import subprocess
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
    value = float(re.search(r"got ` (0\.\d+(?:e-\d+)?) `", feedback).group(1))
    prefix = f"{round(value * 2**32):08x}"
    print("the feedback shows", value, "-> data seed prefix", prefix)
    started = time.time()
    found = subprocess.run(
        ["/tmp/brute_seed", prefix, str(seed - 200_000), str(seed + 200_000)], capture_output=True, text=True
    ).stdout.split()
    rate = 400_000 / (time.time() - started)
    print(
        f"seed found: {found} ({rate:.0f} hashes/s here: "
        f"all 2**32 in {2**32 / rate / 3600:.1f} h on one core)"
    )
    # Offline: the course's public case makers and reference rebuild every hidden case and its answer
    plan = grade.make_plan(a, int(found[0]))

    def key(args):
        ranking, relevant, k = args
        return repr((list(ranking), sorted(relevant, key=repr), k))

    tables = {
        q.target: {
            key(args): right
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
    nb(root / "s2" / "table.ipynb", src)
    shutil.copyfile(corpus / "perfect.ipynb", root / "s2" / "honest.ipynb")
    done = run(root / "s2", root / "o2")
    print("submission 2, same seed:", [(r["file"], r["score"], r["max_score"]) for r in done])


if __name__ == "__main__":
    main()
