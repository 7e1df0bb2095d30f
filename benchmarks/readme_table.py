"""README.md's speed table, rendered from the committed output of ``make bench`` (never typed by hand).

Each section of an output file starts with the command line, its date and commit
(``# ... -m benchmarks.run ..., 2026-11-28 05:21 UTC, commit abc1234``), then the header with the load
average at the start, then (since ``--relevant`` exists) the ``shape:`` line. Every row of the table
states the shape it was measured on: users, K, relevant items per user, id type and row order, and
the machine's load when the run started.
"""

from __future__ import annotations

import re
from pathlib import Path

from benchmarks.run import ROW_ORDER, SHAPES

HERE = Path(__file__).resolve().parent
#: The files the table quotes, in order: the quiet-machine runs, then the shapes measured under load.
FILES = ("last_run.txt", "last_run_shapes.txt")
ROUTES = ("arrays", *ROW_ORDER)  # pandas str ids and the arrays route; other id holders: see the files
RELEVANT = {"mixed": "1-20 (mean 13.3), 5 % none", "1": "1 (leave-one-out)", "10": "10"}
QUIET_BELOW = 2.0  # a load average at the start below this (2 cores): a quiet machine
COLUMNS = (
    "measured (load at start)",
    "users",
    "K",
    "relevant items per user",
    "ids",
    "row order",
    "route",
    "seconds",
    "extra peak",
    "pytrec_eval ÷ this",
)

_SECTION = re.compile(
    r"^# (?P<command>.*benchmarks\.run.*), (?P<date>\d{4}-\d\d-\d\d \d\d:\d\d) UTC, commit \w+$"
)
_LOAD = re.compile(r"load average (?P<load>[\d.]+) / [\d.]+ / [\d.]+ at the start")
_ROW = re.compile(
    r"^K=(?P<k>\d+)\s+U=\s*(?P<users>[\d,]+)\s+(?P<route>\S+)\s+(?P<seconds>[\d.]+) s\s+[\d,]+ users/s\s+"
    r"(?:peak \+(?P<peak>[\d.]+) GiB|peak n/a)(?P<rest>.*)$"
)
_VERSUS = re.compile(r"(?P<ratio>[\d.]+)x (?P<way>slower|faster) than (?P<route>\w+)")


def _shape_key(line: str) -> str:
    text = line.removeprefix("shape: ").split(";")[0]
    return next(key for key, words in SHAPES.items() if words == text)


def parse(text: str) -> list[dict]:
    """One dict per timed row of every section in ``text``: date, load, shape, k, users, route, seconds,
    peak (GiB or None) and, for a peer, its time over each of our routes' (``versus``)."""
    rows: list[dict] = []
    section: dict = {}
    for line in text.splitlines():
        if match := _SECTION.match(line):
            section = {"date": match["date"], "load": None, "shape": "mixed"}  # before --relevant: mixed
        elif (match := _LOAD.search(line)) and section:
            section["load"] = float(match["load"])
        elif line.startswith("shape: ") and section:
            section["shape"] = _shape_key(line)
        elif (match := _ROW.match(line)) and section:
            versus = {
                m["route"]: float(m["ratio"]) if m["way"] == "slower" else 1 / float(m["ratio"])
                for m in _VERSUS.finditer(match["rest"])
            }
            rows.append(
                {
                    **section,
                    "k": int(match["k"]),
                    "users": int(match["users"].replace(",", "")),
                    "route": match["route"],
                    "seconds": float(match["seconds"]),
                    "peak": float(match["peak"]) if match["peak"] else None,
                    "versus": versus,
                }
            )
    return rows


def _cells(row: dict, ratio: float | None) -> list[str]:
    quiet = row["load"] is not None and row["load"] < QUIET_BELOW
    when = f"{row['date']}, {'quiet' if quiet else '**under load**'} ({row['load']:.1f})"
    route = row["route"]
    return [
        when,
        f"{row['users']:,}",
        str(row["k"]),
        RELEVANT[row["shape"]],
        "int" if route == "arrays" else "pandas `str`",
        "int matrix (users × K) + CSR" if route == "arrays" else ROW_ORDER[route],
        "`evaluate_arrays`" if route == "arrays" else f"`evaluate` ({route})",
        f"{row['seconds']:.2f} s",
        "n/a" if row["peak"] is None else f"{row['peak']:.2f} GiB",
        "n/a" if ratio is None else f"{ratio:.1f}x",
    ]


def markdown(rows: list[dict]) -> str:
    """The table: one line per (run, K, U, route) of ours, with pytrec_eval's time over ours."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    peers = {(r["date"], r["k"], r["users"]): r for r in rows if r["route"] == "pytrec_eval"}
    for row in rows:
        if row["route"] not in ROUTES:
            continue
        peer = peers.get((row["date"], row["k"], row["users"]))
        ratio = peer["versus"].get(row["route"]) if peer else None
        lines.append("| " + " | ".join(_cells(row, ratio)) + " |")
    return "\n".join(lines)


def speed_table(folder: Path = HERE) -> str:
    """The README's speed table from the committed output files."""
    rows: list[dict] = []
    for name in FILES:
        path = folder / name
        if path.exists():
            rows += parse(path.read_text(encoding="utf-8"))
    return markdown(rows)
