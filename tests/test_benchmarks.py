"""Smoke run of the benchmark (the full run is `make bench`): data, agreement, table."""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pytest

from benchmarks import readme_table
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


# ---------------------------------------------------------------- shapes, and the README's speed table
@pytest.mark.parametrize("relevant", ["1", "10"])
def test_the_fixed_shapes_give_every_user_that_many_relevant_items(relevant):
    top, indptr, items = bench.make_data(2000, 10, relevant)
    assert np.all(np.diff(indptr) == int(relevant))
    hits = np.isin(items, top).mean()
    assert 0.05 < hits < 0.3  # relevant items in the list with probability 0.15 at K = 10, as in mixed
    again = bench.make_data(2000, 10, relevant)
    assert all(np.array_equal(a, b) for a, b in zip((top, indptr, items), again, strict=True))


def test_the_mixed_shape_is_the_default_and_an_unknown_shape_is_refused():
    default, mixed = bench.make_data(500, 10), bench.make_data(500, 10, "mixed")
    assert all(np.array_equal(a, b) for a, b in zip(default, mixed, strict=True))
    assert set(np.diff(default[1]).tolist()) <= set(range(21))
    with pytest.raises(ValueError, match="relevant='2': choose one of mixed, 1, 10"):
        bench.make_data(10, 10, "2")


def test_every_run_prints_its_command_and_its_shape():
    out = io.StringIO()
    bench.run([300], [10], ["python"], repeats=1, n_check=50, out=out, relevant="1")
    assert "shape: 1 relevant item per user (leave-one-out); ids str" in out.getvalue()
    assert "rows: frames = rank rows grouped by user" in out.getvalue()
    line = bench.header(["--relevant", "1"])
    assert readme_table._SECTION.match(line), line


RECORDED = """\
# python -m benchmarks.run --relevant 10 --k 100, 2026-11-28 05:21 UTC, commit abc1234
topkeval 0.3.0, numpy 2.4.6; peers: pytrec_eval; median of 1; load average 8.2 / 10.6 / 11.6 at the start
shape: 10 relevant items per user; ids str
K=100  U=   50,000  arrays              0.317 s      157,847 users/s  peak +0.017 GiB (inputs 0.041 GiB)  max
K=100  U=   50,000  scores              3.636 s       13,750 users/s  peak n/a (inputs 0.211 GiB)
K=100  U=   50,000  pytrec_eval        30.032 s        1,665 users/s  peak +1.238 GiB  94.8x slower than \
arrays, 8.3x slower than scores  max |diff| 0.0e+00 (all users)
# python -m benchmarks.run --users 1000000, 2026-11-27 23:25 UTC, commit fe615d4
topkeval 0.3.0; peers: pytrec_eval; median of 1; load average 1.0 / 1.1 / 1.4 at the start
K=10   U=1,000,000  frames              3.236 s      309,051 users/s  peak +0.376 GiB (inputs 0.829 GiB)  max
K=10   U=1,000,000  pytrec_eval        22.410 s       44,623 users/s  peak +0.492 GiB  6.9x slower than frames
"""


def test_the_speed_table_reads_shape_load_and_ratios_from_the_recorded_output():
    rows = readme_table.parse(RECORDED)
    assert [(r["shape"], r["route"], r["users"], r["k"]) for r in rows] == [
        ("10", "arrays", 50_000, 100),
        ("10", "scores", 50_000, 100),
        ("10", "pytrec_eval", 50_000, 100),
        ("mixed", "frames", 1_000_000, 10),  # a run from before --relevant: the mixed shape
        ("mixed", "pytrec_eval", 1_000_000, 10),
    ]
    assert rows[0]["load"] == 8.2 and rows[3]["load"] == 1.0 and rows[1]["peak"] is None
    table = readme_table.markdown(rows).splitlines()
    assert len(table) == 2 + 3  # header, rule, our three rows (the peer is a column)
    assert "| 2026-11-28 05:21, **under load** (8.2) | 50,000 | 100 | 10 | pandas `str` |" in table[3]
    assert table[3].endswith("| 3.64 s | n/a | 8.3x |")
    assert "quiet (1.0) | 1,000,000 | 10 | 1-20 (mean 13.3), 5 % none | pandas `str` | rank rows" in table[4]


def speed_rows(readme: str) -> list[dict[str, str]]:
    """README.md's speed table, one dict per row (column name -> cell)."""
    start, end = readme.index("<!-- speed-table:start -->"), readme.index("<!-- speed-table:end -->")
    lines = [line for line in readme[start:end].splitlines() if line.startswith("|")]
    columns = [c.strip() for c in lines[0].strip("|").split("|")]
    return [
        dict(zip(columns, (c.strip() for c in line.strip("|").split("|")), strict=True)) for line in lines[2:]
    ]


def shape_problems(row: dict[str, str]) -> list[str]:
    """What a speed-table row fails to state: users, K, relevant items, ids, row order, load."""
    checks = {
        "users": r"\d{1,3}(,\d{3})*",
        "K": r"\d+",
        "relevant items per user": "|".join(map(re.escape, readme_table.RELEVANT.values())),
        "ids": r"int|pandas `str`",
        "row order": "|".join(map(re.escape, [*bench.ROW_ORDER.values(), "int matrix (users × K) + CSR"])),
        "measured (load at start)": r"\d{4}-\d\d-\d\d \d\d:\d\d, (quiet|\*\*under load\*\*) \(\d+\.\d\)",
    }
    return [name for name, pattern in checks.items() if not re.fullmatch(pattern, row.get(name, ""))]


def test_every_row_of_the_readme_speed_table_names_its_shape():
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    rows = speed_rows(readme)
    assert rows and not {i: shape_problems(row) for i, row in enumerate(rows) if shape_problems(row)}
    shapes = {row["relevant items per user"] for row in rows}
    assert {"1 (leave-one-out)", "10", "1-20 (mean 13.3), 5 % none"} <= shapes
    assert any("quiet" in row["measured (load at start)"] for row in rows)  # the quiet rows are kept
    assert readme_table.speed_table() in readme, (
        "README's speed table is stale: run python tools/render_readme.py"
    )


def test_the_shape_check_catches_a_row_without_its_shape():
    row = speed_rows(
        "<!-- speed-table:start -->\n"
        + readme_table.markdown(readme_table.parse(RECORDED))
        + "\n<!-- speed-table:end -->"
    )[0]
    assert shape_problems(row) == []
    assert shape_problems({**row, "relevant items per user": ""}) == ["relevant items per user"]
    assert shape_problems({**row, "measured (load at start)": "2026-11-28"}) == ["measured (load at start)"]
