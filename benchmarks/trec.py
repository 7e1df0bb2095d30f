"""Benchmark: the trec_eval drop-in against pytrec_eval, whole processes reading the same TREC files.

    python -m benchmarks.trec                      # 200 and 2,000 queries x 1000 documents, best of 3
    python -m benchmarks.trec --queries 200 --repeats 1

Each shape gets a qrels file and a run file written once (deterministic:
``numpy.random.default_rng([2024, queries])``): every query ranks 1000
documents with scores on a coarse grid (ties), judged documents are 300 per
query (a TREC pool), graded -2..3 as in the Web track, about 40 % of the
run's documents unjudged. Both routes are whole processes started here and
timed wall-clock from start to exit, start-up and imports included:

* ``topkeval``: ``python -m topkeval -m map -m P.5,10 -m ndcg_cut.10 -m recip_rank
  -m bpref -m recall.100 QRELS RUN`` (prints trec_eval's lines);
* ``pytrec_eval``: a script that reads the files with ``pytrec_eval.parse_qrel``
  / ``parse_run``, evaluates the same measures with ``RelevanceEvaluator`` and
  prints the means (trec_eval's C code behind a Python reader).

The two routes alternate (ours, theirs, ours, ...), ``--repeats`` times each;
the best time of each counts, and the peak memory is each process's maximum
resident set, read by a small launcher process that forks and waits for it
(``os.wait4``'s rusage): on Linux a child's ``ru_maxrss`` starts from its
parent's peak at fork and exec, and this process's peak (writing the
2,000-query files) is larger than either route's. The 1-minute load average is printed
before and after: the machine is shared, so numbers from a loaded machine
are noisy. Before timing, the means both print are checked to agree (to
5e-5, the printed precision).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

MEASURES = ["map", "P.5,10", "ndcg_cut.10", "recip_rank", "bpref", "recall.100"]
PYTREC_NAMES = {"map", "P_5", "P_10", "ndcg_cut_10", "recip_rank", "bpref", "recall_100"}
PYTREC_SCRIPT = """
import sys, pytrec_eval
with open(sys.argv[1]) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    run = pytrec_eval.parse_run(f)
names = {"map", "P.5,10", "ndcg_cut.10", "recip_rank", "bpref", "recall.100"}
result = pytrec_eval.RelevanceEvaluator(qrels, names).evaluate(run)
wanted = sorted(next(iter(result.values())))
for name in wanted:
    print(f"{name}\\tall\\t{sum(q[name] for q in result.values()) / len(result):.4f}")
"""


def write_files(folder: Path, n_queries: int, n_docs: int = 1000, n_judged: int = 300) -> tuple[Path, Path]:
    rng = np.random.default_rng([2024, n_queries])
    q = np.repeat(np.arange(n_queries), n_docs)
    doc = np.concatenate([rng.choice(5000, n_docs, replace=False) for _ in range(n_queries)])
    score = np.round(rng.random(len(q)) * 50) / 10  # ties
    run_lines = [
        f"q{a} Q0 doc{b} {i % n_docs + 1} {s} run\n"
        for i, (a, b, s) in enumerate(zip(q, doc, score, strict=True))
    ]
    run = folder / f"run.{n_queries}"
    run.write_text("".join(run_lines))
    qrels_lines = []
    grades = np.array([-2, -1, 0, 0, 0, 0, 1, 1, 2, 3])
    for query in range(n_queries):
        listed = doc[query * n_docs : (query + 1) * n_docs]
        judged = np.concatenate(
            [
                rng.choice(listed, n_judged * 2 // 3, replace=False),
                5000 + rng.choice(5000, n_judged // 3, replace=False),
            ]
        )
        qrels_lines += [
            f"q{query} 0 doc{d} {g}\n" for d, g in zip(judged, rng.choice(grades, len(judged)), strict=True)
        ]
    qrels = folder / f"qrels.{n_queries}"
    qrels.write_text("".join(qrels_lines))
    return qrels, run


#: run as ``python -S -c LAUNCHER REPORT COMMAND...``: forks and execs COMMAND, waits for it and writes its
#: wall-clock seconds, peak resident KiB and CPU seconds to REPORT. Its own resident set (about 10 MB) is
#: the floor of the command's ``ru_maxrss``, not this benchmark's, whose peak is far larger.
LAUNCHER = """
import os, sys, time
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
seconds = time.perf_counter() - start
with open(sys.argv[1], "w") as report:
    report.write(f"{seconds} {usage.ru_maxrss} {usage.ru_utime + usage.ru_stime}")
sys.exit(os.waitstatus_to_exitcode(status))
"""


def timed(command: list[str]) -> tuple[float, float, float, str]:
    """Wall-clock seconds, peak resident MiB, CPU seconds (user + system) and stdout of a whole process."""
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report"
        with tempfile.TemporaryFile("w+") as out:
            done = subprocess.run(
                [sys.executable, "-S", "-c", LAUNCHER, str(report), *command],
                stdout=out,
                stderr=subprocess.PIPE,
                text=True,
                check=False,
            )
            out.seek(0)
            text = out.read()
        if done.returncode:
            raise SystemExit(f"{command[:3]} failed: {done.stderr}")
        seconds, peak_kib, cpu = (float(x) for x in report.read_text().split())
    return seconds, peak_kib / 1024, cpu, text


def means(text: str) -> dict[str, float]:
    rows = [line.split("\t") for line in text.splitlines()]
    return {name.strip(): float(value) for name, query, value in rows if query == "all"}


def bench_shape(folder: Path, n_queries: int, repeats: int) -> dict:
    qrels, run = write_files(folder, n_queries)
    ours = [sys.executable, "-m", "topkeval", *[a for m in MEASURES for a in ("-m", m)], str(qrels), str(run)]
    script = folder / "pytrec.py"
    script.write_text(PYTREC_SCRIPT)
    theirs = [sys.executable, str(script), str(qrels), str(run)]
    worst = _agreement(ours, theirs)
    times: dict[str, list] = {"topkeval": [], "pytrec_eval": []}
    for _ in range(repeats):
        for name, command in (("topkeval", ours), ("pytrec_eval", theirs)):
            times[name].append(timed(command)[:3])
    return {"queries": n_queries, **summarise(times), "agree": worst}


def _agreement(ours: list[str], theirs: list[str]) -> float:
    """The largest difference between the two programs' means (they must agree to trec_eval's 4 decimals)."""
    got, want = means(timed(ours)[3]), means(timed(theirs)[3])
    worst = max(abs(got[name] - want[name]) for name in PYTREC_NAMES)
    assert worst <= 5e-5 + 1e-12, f"the means differ by {worst}"
    return worst


def summarise(times: dict[str, list]) -> dict[str, dict[str, float]]:
    """Best wall-clock and CPU seconds and the highest peak of each route's (seconds, MiB, CPU) runs."""
    return {
        "best": {name: min(t for t, _, _ in runs) for name, runs in times.items()},
        "peak": {name: max(m for _, m, _ in runs) for name, runs in times.items()},
        "cpu": {name: min(c for _, _, c in runs) for name, runs in times.items()},
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, nargs="+", default=[200, 2000])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    from benchmarks.run import header

    print(
        header(sys.argv[1:] if argv is None else argv)
        .replace("benchmarks.run", "benchmarks.trec")
        .replace(" ,", ",")
    )
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    print(
        "shape (queries x documents) | topkeval s | pytrec_eval s | speed-up (wall) "
        "| CPU s topkeval / pytrec_eval | speed-up (CPU) | peak MiB topkeval / pytrec_eval"
    )
    with tempfile.TemporaryDirectory() as folder:
        for n in args.queries:
            row = bench_shape(Path(folder), n, args.repeats)
            best, peak, cpu = row["best"], row["peak"], row["cpu"]
            print(
                f"{n} x 1000 | {best['topkeval']:.2f} | {best['pytrec_eval']:.2f} | "
                f"{best['pytrec_eval'] / best['topkeval']:.2f}x | "
                f"{cpu['topkeval']:.2f} / {cpu['pytrec_eval']:.2f} | "
                f"{cpu['pytrec_eval'] / cpu['topkeval']:.2f}x | "
                f"{peak['topkeval']:.0f} / {peak['pytrec_eval']:.0f}",
                flush=True,
            )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
