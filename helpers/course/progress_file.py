"""A small, local record of exercise outcomes, and the summary ``progress()`` shows.

Outcomes are kept in one JSON file, so they survive a kernel restart and work
offline, in JupyterLab, in Binder and in CI alike. The path is the
``TOPK_COURSE_PROGRESS`` environment variable, or
``~/.local/share/topk-course/progress.json``. ``TOPK_COURSE_PROGRESS=off``
keeps the record in memory only.

Nothing here may break a lesson: an unreadable, corrupt or unwritable file is
reported once in the summary and the record carries on in memory.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from .catalogue import NOTEBOOKS, load_all

__all__ = ["progress_path", "record", "load", "reset_progress", "progress", "Progress"]

ENV_VAR = "TOPK_COURSE_PROGRESS"
_FORMAT = 1
_RANK = {"not attempted": 0, "incorrect": 1, "correct": 2}

_memory: dict[str, str] = {}
_problem: str | None = None


def progress_path() -> Path | None:
    """Where outcomes are stored, or ``None`` when storage is off.

    Examples
    --------
    >>> import os
    >>> saved = os.environ.get("TOPK_COURSE_PROGRESS")
    >>> os.environ["TOPK_COURSE_PROGRESS"] = "off"
    >>> progress_path() is None
    True
    >>> os.environ["TOPK_COURSE_PROGRESS"] = "/tmp/course/progress.json"
    >>> progress_path().name
    'progress.json'
    >>> _ = (os.environ.pop("TOPK_COURSE_PROGRESS") if saved is None
    ...      else os.environ.update(TOPK_COURSE_PROGRESS=saved))
    """
    value = os.environ.get(ENV_VAR, "").strip()
    if value.lower() in ("off", "none", "memory"):
        return None
    if value:
        return Path(value).expanduser()
    return Path.home() / ".local" / "share" / "topk-course" / "progress.json"


def _read(path: Path) -> dict[str, str]:
    """The stored outcomes; an unreadable file gives ``{}`` and notes the problem."""
    global _problem
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        outcomes = data["outcomes"]
        if not isinstance(outcomes, dict):
            raise ValueError("outcomes is not a mapping")
        return {str(k): v for k, v in outcomes.items() if v in _RANK}
    except (OSError, ValueError, KeyError, TypeError) as error:
        _problem = f"the progress file could not be read ({type(error).__name__}); keeping progress in memory"
        return {}


def load() -> dict[str, str]:
    """All recorded outcomes: question id -> outcome (file and memory merged)."""
    path = progress_path()
    stored = _read(path) if path is not None else {}
    return _merge(stored, _memory)


def _merge(old: dict[str, str], new: dict[str, str]) -> dict[str, str]:
    merged = dict(old)
    for key, outcome in new.items():
        # a re-run of an untouched stub never erases an attempt
        if outcome != "not attempted" or key not in merged:
            merged[key] = outcome
    return merged


def record(question_id: str, outcome: str) -> None:
    """Store one outcome; never raises (falls back to memory).

    "not attempted" is never written: it is what a question with no record
    shows anyway, so running an untouched notebook (or ``make test``)
    leaves the progress file alone.
    """
    global _problem
    if outcome == "not attempted":
        return
    _memory.update(_merge(_memory, {question_id: outcome}))
    path = progress_path()
    if path is None:
        return
    try:
        merged = _merge(_read(path), {question_id: outcome})
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(
            "w", dir=path.parent, prefix=".progress-", suffix=".tmp", delete=False, encoding="utf-8"
        ) as handle:
            json.dump({"format": _FORMAT, "outcomes": dict(sorted(merged.items()))}, handle, indent=1)
            temp = handle.name
        os.replace(temp, path)
    except OSError as error:
        _problem = (
            f"the progress file could not be written ({type(error).__name__}); keeping progress in memory"
        )


def reset_progress() -> None:
    """Forget every recorded outcome (the file and memory)."""
    global _problem
    _memory.clear()
    _problem = None
    path = progress_path()
    if path is not None:
        try:
            path.unlink(missing_ok=True)
        except OSError as error:
            _problem = f"the progress file could not be removed ({type(error).__name__})"


class Progress:
    """The summary returned by :func:`progress`; shows as plain text.

    Attributes
    ----------
    rows : list of (notebook, question id, outcome)
    done, total : int
        Questions answered correctly, and all questions.
    """

    def __init__(self, rows: list[tuple[str, str, str]], note: str | None):
        self.rows = rows
        self.note = note
        self.total = len(rows)
        self.done = sum(1 for _, _, outcome in rows if outcome == "correct")

    def __repr__(self) -> str:
        lines = [f"Exercises correct: {self.done} of {self.total}"]
        current = None
        for notebook, qid, outcome in self.rows:
            if notebook != current:
                lines.append(f"  {notebook}")
                current = notebook
            mark = {"correct": "[x]", "incorrect": "[!]"}.get(outcome, "[ ]")
            lines.append(f"    {mark} {qid.split('.', 1)[1]}: {outcome}")
        lines.append("Legend: [x] correct, [!] tried but not correct yet, [ ] not attempted.")
        if self.note:
            lines.append(f"Note: {self.note}.")
        return "\n".join(lines)


def progress() -> Progress:
    """Summarise the outcomes of every course exercise, per notebook.

    Works offline: it reads the local JSON file (see :func:`progress_path`).

    Examples
    --------
    >>> import os
    >>> saved = os.environ.get("TOPK_COURSE_PROGRESS")
    >>> os.environ["TOPK_COURSE_PROGRESS"] = "off"  # memory only, for this example
    >>> summary = progress()
    >>> summary.total > 10
    True
    >>> print(repr(summary).splitlines()[0])  # doctest: +ELLIPSIS
    Exercises correct: ... of ...
    >>> _ = (os.environ.pop("TOPK_COURSE_PROGRESS") if saved is None
    ...      else os.environ.update(TOPK_COURSE_PROGRESS=saved))
    """
    load_all()  # the question modules register themselves on import
    from helpers.checking.questions import QUESTIONS

    outcomes = load()
    rows = []
    for qid in sorted(QUESTIONS):
        notebook = NOTEBOOKS.get(qid.split(".", 1)[0], qid.split(".", 1)[0])
        rows.append((notebook, qid, outcomes.get(qid, "not attempted")))
    return Progress(rows, _problem)
