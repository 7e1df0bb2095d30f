"""Red team 5, a measurement: the grader's peak memory while it grades notebooks whose every case returns
a list of 3,700 None (~48 KB of tags), so each question's result event is ~3.9 MiB, just under the 4 MiB
one sandbox run may send; runs restart after each question that overflows, so up to one event per
question is kept. On the review VM (2 cores, load 6): 121 MiB peak for an honest notebook alone; once
357 MiB with two such notebooks graded two at a time beside it (~120 MiB per notebook in flight), and
121 MiB in four later runs, in which the loaded machine made every question time out before it sent
its event. Nothing of it reaches the outputs, and the classmate keeps 14/14.

    export PYTHONPATH=$PWD:$PWD/topkeval/src
    .venv/bin/python tests/grade/redteam_r5/scripts/grader_memory.py [N_ATTACKERS]
"""


def main() -> None:
    import io
    import json
    import shutil
    import sys
    from pathlib import Path

    from helpers.grade import grader as grade
    from helpers.grade import isolation
    from helpers.grade.assignments import ASSIGNMENTS

    A = ASSIGNMENTS["from-scratch"]
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    root = Path("/tmp/r5-mem/run")
    shutil.rmtree(root, ignore_errors=True)
    (root / "subs").mkdir(parents=True)
    code = "BIG = [None] * 3700\n" + "".join(
        f"def {q.target}(ranking, relevant, k):\n    return BIG\n" for q in A.questions
    )
    for i in range(n):
        (root / "subs" / f"big{i}.ipynb").write_text(
            json.dumps(
                {
                    "cells": [
                        {
                            "cell_type": "code",
                            "metadata": {},
                            "source": code,
                            "outputs": [],
                            "execution_count": None,
                        }
                    ],
                    "metadata": {},
                    "nbformat": 4,
                    "nbformat_minor": 5,
                }
            )
        )
    shutil.copyfile(
        Path(__file__).resolve().parents[2] / "grading_corpus" / "perfect.ipynb",
        root / "subs" / "honest.ipynb",
    )

    def hwm():
        return (
            int(next(line for line in open("/proc/self/status") if line.startswith("VmHWM")).split()[1])
            // 1024
        )

    print("before", hwm(), "MiB")
    done = grade.grade_many(
        sorted((root / "subs").iterdir()),
        A,
        root / "out",
        jobs=2,
        seed=3,
        mode=isolation.BUBBLEWRAP,
        progress=io.StringIO(),
    )
    print([(r["file"], r["score"], r.get("status")) for r in done][:3])
    print("peak", hwm(), "MiB")


if __name__ == "__main__":
    main()
