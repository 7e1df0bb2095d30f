"""Smoke run of the benchmark (the full run is `make bench`): data, agreement, table."""

from __future__ import annotations

import io

import numpy as np

from benchmarks import run as bench


def test_synthetic_data_is_deterministic_and_well_formed():
    top, indptr, items = bench.make_data(3000, 10)
    again = bench.make_data(3000, 10)
    assert all(np.array_equal(a, b) for a, b in zip((top, indptr, items), again))
    assert all(len(set(row)) == 10 for row in top.tolist())  # K distinct ids per user
    sizes = np.diff(indptr)
    assert sizes.max() <= 20 and 0.02 < (sizes == 0).mean() < 0.08
    for u in range(0, 3000, 97):
        rel = items[indptr[u] : indptr[u + 1]]
        assert np.all(np.diff(rel) > 0)  # sorted within the user, no repeats


def test_quick_run_checks_agreement_and_prints_every_route():
    out = io.StringIO()
    rows = bench.run([1500], [10], ["pytrec_eval", "python"], repeats=1, n_check=300, out=out)
    text = out.getvalue()
    routes = {row["route"] for row in rows}
    assert {"arrays", "frames", "python"} <= routes
    assert all(row.get("agreement", 0) <= 1e-9 for row in rows)
    assert "users/s" in text and "slower than arrays" in text
