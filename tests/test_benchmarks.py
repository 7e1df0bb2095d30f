"""Smoke run of the benchmark (the full run is `make bench`): data, agreement, table."""

from __future__ import annotations

import io

import numpy as np
import pytest

from benchmarks import run as bench


def test_synthetic_data_is_deterministic_and_well_formed():
    top, indptr, items = bench.make_data(3000, 10)
    again = bench.make_data(3000, 10)
    assert all(np.array_equal(a, b) for a, b in zip((top, indptr, items), again, strict=True))
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


def test_chunked_peers_give_the_same_values(monkeypatch):
    arrays = bench.make_data(1100, 10)
    data = (*arrays, *bench.make_frames(*arrays))
    for peer in ("pytrec_eval", "python"):
        whole = bench.ROUTES[peer](data, 10).reset_index(drop=True)
        parts = bench.in_chunks(bench.ROUTES[peer], 400)(data, 10).reset_index(drop=True)
        assert parts.shape == whole.shape
        assert np.abs(parts.to_numpy() - whole.to_numpy()).max() == 0
    monkeypatch.setattr(bench, "PEER_CHUNK", {"pytrec_eval": 500, "ranx": 500, "python": 500})
    out = io.StringIO()
    rows = bench.run([1100], [10], ["python"], repeats=1, n_check=100, out=out)
    assert [r["chunks"] for r in rows if r["route"] == "python"] == [3]
    assert "3 chunks of 500 users" in out.getvalue()
    assert "targets (largest U at each K) (the targets are set for U = 1,000,000)" in out.getvalue()


def test_full_agreement_catches_a_wrong_value_and_a_missing_user():
    arrays = bench.make_data(600, 10)
    data = (*arrays, *bench.make_frames(*arrays))
    ours = {"arrays": bench.route_arrays(data, 10), "frames": bench.route_frames(data, 10)}
    python = bench.route_python(data, 10)
    peer = bench.route_pytrec_eval(data, 10)
    assert bench.full_agreement("python", python, ours, arrays[1]) <= 1e-12
    assert bench.full_agreement("pytrec_eval", peer, ours, arrays[1]) <= 1e-12
    python.iloc[7, 4] += 0.25
    assert bench.full_agreement("python", python, ours, arrays[1]) == pytest.approx(0.25)
    with pytest.raises(AssertionError, match="different set of users"):
        bench.full_agreement("pytrec_eval", peer.iloc[1:], ours, arrays[1])


def test_every_input_kind_is_measured_and_memory_comes_from_a_fresh_process(tmp_path):
    names = [
        name
        for name, _, _ in bench.our_inputs(
            (*bench.make_data(30, 10), *bench.make_frames(*bench.make_data(30, 10))), 10
        )
    ]
    assert {
        "frames",
        "scores",
        "unsorted",
        "shuffled",
        "frames-object",
        "scores-object",
        "shuffled-object",
    } <= set(names)
    arrays = bench.make_data(400, 10)
    path = tmp_path / "data.npz"
    np.savez(path, top=arrays[0], indptr=arrays[1], items=arrays[2])
    rows = [{"route": "shuffled-object"}, {"route": "python"}]
    bench.measure_memory(rows, arrays, 10)
    assert all(row["peak_gib"] >= 0 for row in rows)  # a number from each child (NaN without Linux' /proc)
    assert bench.memory_child("scores", 10, str(path)) >= 0


def test_unsorted_rows_stay_grouped_but_leave_best_first():
    arrays = bench.make_data(300, 10)
    _, _, _, recs, _ = (*arrays, *bench.make_frames(*arrays))
    rows = bench._kind_rows(recs, "unsorted", 10)
    users = rows["user"].to_numpy()
    starts = np.flatnonzero(np.r_[True, users[1:] != users[:-1]])
    assert len(starts) == recs["user"].nunique()  # each user one run: still grouped
    score = rows["score"].to_numpy()
    assert (np.diff(score)[np.diff(np.r_[starts, len(score)])[0] :] > 0).any()  # not best first
    assert sorted(map(tuple, rows[["user", "item"]].to_numpy())) == sorted(
        map(tuple, recs[["user", "item"]].to_numpy())
    )
