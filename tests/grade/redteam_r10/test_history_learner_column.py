"""Red team 10's note: ``history`` cut the learner column to 13 characters, so an unassigned file that
claimed s123 (``file:hw1_s123 (x).ipynb``) showed as ``file:hw1_s123``, like s123's own result. The
column is now as wide as its longest entry, escaped like the file column."""

from __future__ import annotations

from types import SimpleNamespace

from helpers.grade import grader


def _result(i: int, who: str, display: str) -> SimpleNamespace:
    return SimpleNamespace(
        id=i, run_id=1, who=who, display=display, graded_at="2026-11-28T12:00:00Z", score=14.0,
        status="graded", seed=5, sha256="ab" * 32,
    )  # fmt: skip


def test_history_shows_every_learner_key_whole_and_escaped():
    results = [
        _result(1, "s123", "hw1_s123.ipynb"),
        _result(2, "file:hw1_s123 (x)\x1b[2J.ipynb", "hw1_s123 (x)\x1b[2J.ipynb"),
    ]
    book = SimpleNamespace(current=lambda: results, seeds=lambda: [], history=lambda who=None: results)
    lines = grader.history_lines(book)  # type: ignore[arg-type]
    assert any("file:hw1_s123 (x)\\x1b[2J.ipynb " in line for line in lines), lines
    assert not any("\x1b" in line for line in lines)
    starts = {line.index("14") for line in lines[2:]}
    assert len(starts) == 1, lines  # the score column lines up
