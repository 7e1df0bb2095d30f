"""Committed notebook outputs show no digits that depend on the machine's summation order.

nbval compares every committed output with a fresh run, so a printed digit that depends on the order of a
floating-point sum makes ``make test`` fail on another CPU (issue 37: "an exact bias of size 5.6e-17" here,
"of size 0" on an AMD EPYC). Two guards:

- this scan of the committed outputs for the shapes such noise takes: a tiny number in scientific
  notation (exponent -10 or below) or a negative zero (``-0.0000``); a p-value, a stated bound
  ("below 1e-12") and a recorded benchmark file are the only places such shapes may stand;
- ``make test`` runs nbval a second time under ``tools/summation_order.py`` (NumPy's vector extensions
  narrower, another OpenBLAS kernel), which fails on any digit this scan cannot see (a float
  printed in full, ``1.0000000000000009``, is left to that run: where it is one correctly rounded
  operation, as the seeds' printed values are, its digits are the same everywhere).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tools import summation_order

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))

NOISE_SHAPES = {
    "a tiny number in scientific notation": re.compile(
        r"(?<![\w.])-?\d+(?:\.\d+)?[eE]-(?:1\d|[2-9]\d|\d{3})\b"
    ),
    "a negative zero": re.compile(r"(?<![\w.])-0(?:\.0+)?(?![\d.])"),
}
# Where such a shape is a fact and not noise, each with its reason.
ALLOWED_CONTEXTS = [
    # a p-value: its two printed digits are fixed by the data, whatever the summation order
    re.compile(r"\bp\s*[=<]\s*$"),
    # a stated bound, not a computed value ("below 1e-12", "< 1e-14", "&lt; 1e-14" in a table's HTML)
    re.compile(r"(?:\bbelow|\bunder|\bwithin|<|&lt;|≤)\s*$"),
]
# Cells that print a recorded file (a benchmark's own log, read as it was written): not computed here.
RECORDED_FILES = ("last_run_spark.txt", "last_run.txt")


def _outputs(cell: dict) -> list[str]:
    texts = ["".join(out.get("text", "")) for out in cell.get("outputs", [])]
    for out in cell.get("outputs", []):
        texts += ["".join(v) for k, v in out.get("data", {}).items() if k.startswith("text/")]
    return texts


def _findings(text: str) -> list[str]:
    found = []
    for shape, pattern in NOISE_SHAPES.items():
        for match in pattern.finditer(text):
            before = text[max(0, match.start() - 12) : match.start()]
            if any(context.search(before) for context in ALLOWED_CONTEXTS):
                continue
            found.append(f"{shape}: {text[max(0, match.start() - 40) : match.end() + 10]!r}")
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_rounding_noise_in_committed_outputs(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    problems = []
    for number, cell in enumerate(cells, start=1):
        if cell["cell_type"] != "code" or any(name in "".join(cell["source"]) for name in RECORDED_FILES):
            continue
        problems += [f"cell {number}: {finding}" for text in _outputs(cell) for finding in _findings(text)]
    assert not problems, (
        f"{path.name} prints digits that depend on the summation order (they change from CPU to CPU and "
        "fail nbval elsewhere); print a value that is zero up to rounding as 0 (or 'below 1e-12') and round "
        "the rest:\n" + "\n".join(problems)
    )


@pytest.mark.parametrize(
    "text, noisy",
    [
        ("an exact bias of size 5.6e-17", True),
        ("interval -0.0333 to -0.0000", True),
        ("p = 1.7e-52 (paired t-test)", False),
        ("RMSE 0.0123 at M = 20, 3.2e+05 rows", False),
        ("difference -0.0012", False),
        ("size 0 (below 1e-12 in floating point)", False),
    ],
)
def test_the_scan_tells_noise_from_facts(text, noisy):
    assert bool(_findings(text)) is noisy


def test_summation_order_forces_other_settings_than_the_first_run():
    forced = summation_order.settings()
    assert forced["OPENBLAS_CORETYPE"].lower() != (summation_order._openblas_kernel() or "").lower()
    for name in forced["NPY_DISABLE_CPU_FEATURES"].split():
        assert name in summation_order._numpy_dispatched_features()
