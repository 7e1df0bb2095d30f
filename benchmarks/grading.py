"""Grading throughput: 100 generated "from scratch" submissions, graded with --jobs 2.

Run from the repository root::

    .venv/bin/python benchmarks/grading.py [--n 100] [--jobs 2]

Prints submissions per second (target: >= 5 per second on 2 cores), with
every submission in its own bubblewrap sandbox (``--unsafe-no-sandbox`` to
measure plain processes). The submissions mix correct functions with the usual bugs (off-by-one discount,
wrong AP denominator, precision over the list length, IDCG from retrieved
items only, a missing function) chosen by a seeded RNG, so every run grades
the same set.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CORRECT = {
    "precision_at_k": "def precision_at_k(ranking, relevant, k):\n"
    "    return sum(1 for x in ranking[:k] if x in relevant) / k",
    "recall_at_k": "def recall_at_k(ranking, relevant, k):\n"
    "    return sum(1 for x in ranking[:k] if x in relevant) / len(relevant)",
    "hit_at_k": "def hit_at_k(ranking, relevant, k):\n"
    "    return 1.0 if any(x in relevant for x in ranking[:k]) else 0.0",
    "reciprocal_rank_at_k": "def reciprocal_rank_at_k(ranking, relevant, k):\n"
    "    for i, x in enumerate(ranking[:k], start=1):\n"
    "        if x in relevant:\n            return 1 / i\n    return 0.0",
    "average_precision_at_k": "def average_precision_at_k(ranking, relevant, k):\n    hits, total = 0, 0.0\n"
    "    for i, x in enumerate(ranking[:k], start=1):\n        if x in relevant:\n"
    "            hits += 1\n            total += hits / i\n"
    "    return total / min(k, len(relevant))",
    "dcg_at_k": "def dcg_at_k(ranking, relevant, k):\n"
    "    return float(sum(1 / math.log2(i + 1) for i, x in enumerate(ranking[:k], start=1) "
    "if x in relevant))",
    "ndcg_at_k": "def ndcg_at_k(ranking, relevant, k):\n"
    "    ideal = sum(1 / math.log2(i + 1) for i in range(1, min(k, len(relevant)) + 1))\n"
    "    return dcg_at_k(ranking, relevant, k) / ideal",
}

BUGS = {
    "precision_at_k": CORRECT["precision_at_k"].replace("/ k", "/ max(1, len(ranking[:k]))"),
    "recall_at_k": CORRECT["recall_at_k"].replace("ranking[:k]", "ranking[:k + 1]"),
    "hit_at_k": CORRECT["hit_at_k"].replace("1.0 if ", "").replace(" else 0.0", ""),
    "reciprocal_rank_at_k": CORRECT["reciprocal_rank_at_k"]
    .replace("start=1", "start=0")
    .replace("1 / i", "1 / (i + 2)"),
    "average_precision_at_k": CORRECT["average_precision_at_k"].replace(
        "min(k, len(relevant))", "len(relevant)"
    ),
    "dcg_at_k": CORRECT["dcg_at_k"].replace("log2(i + 1)", "log2(i + 2)"),
    "ndcg_at_k": CORRECT["ndcg_at_k"].replace(
        "min(k, len(relevant))", "sum(1 for x in ranking[:k] if x in relevant) or 1"
    ),
}


def make_submissions(folder: Path, n: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    for i in range(n):
        cells = ["import math"]
        for name, src in CORRECT.items():
            roll = rng.random()
            if roll < 0.03:
                continue  # missing function
            cells.append(BUGS[name] if roll < 0.3 else src)
        if rng.random() < 0.2:
            cells.append(
                "import numpy as np\nprint(np.arange(3))"
            )  # a heavier import, as real notebooks have
        nb = {
            "cells": [
                {"cell_type": "code", "metadata": {}, "source": c, "outputs": [], "execution_count": None}
                for c in cells
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
        (folder / f"learner{i:03d}.ipynb").write_text(json.dumps(nb))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--unsafe-no-sandbox", action="store_true", help="plain processes instead of sandboxes"
    )
    args = parser.parse_args()
    extra = ["--unsafe-no-sandbox"] if args.unsafe_no_sandbox else []
    with tempfile.TemporaryDirectory() as tmp:
        subs, out = Path(tmp) / "subs", Path(tmp) / "out"
        subs.mkdir()
        make_submissions(subs, args.n)
        started = time.perf_counter()
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "helpers.grade",
                "--assignment",
                "from-scratch",
                "--out",
                str(out),
                "--jobs",
                str(args.jobs),
                "--seed",
                "0",
                "--quiet",
                *extra,
                str(subs),
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        elapsed = time.perf_counter() - started
        if proc.returncode != 0:
            print(proc.stderr, file=sys.stderr)
            return 1
        with open(out / "grades.csv", newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
        scores = sorted(float(r["score"]) for r in rows)
        mode = rows[0]["isolation"]
    print(
        f"graded {len(rows)} submissions ({mode}) with --jobs {args.jobs} in {elapsed:.2f} s "
        f"(whole CLI run, including start-up): {len(rows) / elapsed:.2f} submissions/second"
    )
    print(f"scores: min {scores[0]:g}, median {scores[len(scores) // 2]:g}, max {scores[-1]:g} (of 14)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
