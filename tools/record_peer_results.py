"""Run every installed peer library on the shared dataset and store its numbers next to ours.

    python tools/record_peer_results.py    # rewrites helpers/experiments/results/conformance.json

``make test-conformance`` runs it in its own venv (torchmetrics, Microsoft Recommenders, PySpark).
"""

from __future__ import annotations

import sys
from pathlib import Path

from helpers.experiments import peers

TARGET = Path(__file__).resolve().parent.parent / "helpers" / "experiments" / "results" / "conformance.json"

if __name__ == "__main__":
    if sys.argv[1:]:
        print("usage: python tools/record_peer_results.py", file=sys.stderr)
        raise SystemExit(2)
    peers.record(TARGET)
