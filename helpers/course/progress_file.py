"""A small, local record of exercise outcomes, and the summary ``progress()`` shows.

Outcomes are kept in one JSON file, so they survive a kernel restart and work
offline, in JupyterLab, in Binder and in CI alike. The path is the
``TOPK_COURSE_PROGRESS`` environment variable, or
``~/.local/share/topk-course/progress.json``. ``TOPK_COURSE_PROGRESS=off``
keeps the record in memory only.

Each question keeps its **best** result and the **history** of its checks: a
correct answer followed by another, wrong, try still counts as solved, and the
summary shows the tries in order. Files of the earlier format (the last outcome
only) are read as a one-try history.

Nothing here may break a lesson: an unreadable, corrupt or unwritable file is
reported once in the summary and the record carries on in memory.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from .catalogue import NOTEBOOKS, load_all

__all__ = ["progress_path", "record", "load", "history", "reset_progress", "progress", "Progress"]

ENV_VAR = "TOPK_COURSE_PROGRESS"
_FORMAT = 2
_RANK = {"not attempted": 0, "incorrect": 1, "correct": 2}
#: Attempts kept per question (the oldest are dropped; the best result is kept apart).
HISTORY_LIMIT = 50

#: question id -> {"best": outcome, "history": [outcome, ...]} (this session's view, merged with the file)
_memory: dict[str, dict] = {}
_problem: str | None = None


def progress_path() -> Path | None:
    """Where outcomes are stored, or ``None`` when storage is off.

    Set ``TOPK_COURSE_PROGRESS`` to a file path to keep progress elsewhere (a course
    folder that is backed up, say), or to ``off`` (also ``none``, ``memory``) to keep it in
    memory for this session only.

    Returns
    -------
    pathlib.Path or None
        The file (by default ``~/.local/share/topk-course/progress.json``; it need not exist yet),
        or None when storage is off.

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


def _entry(value) -> dict | None:
    """One question's stored record, validated: ``{"best", "history"}``, or None if unusable.

    Format 1 stored the last outcome only (a string); it becomes a one-attempt history.
    """
    if isinstance(value, str):
        return {"best": value, "history": [value]} if value in _RANK else None
    if not isinstance(value, dict):
        return None
    history = (
        [o for o in value.get("history", []) if o in _RANK] if isinstance(value.get("history"), list) else []
    )
    best = value.get("best")
    if best not in _RANK:
        best = max(history, key=_RANK.__getitem__, default=None)
    return None if best is None else {"best": best, "history": history[-HISTORY_LIMIT:]}


def _read(path: Path) -> dict[str, dict]:
    """The stored records; an unreadable file gives ``{}`` and notes the problem."""
    global _problem
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        records = data["questions"] if "questions" in data else data["outcomes"]
        if not isinstance(records, dict):
            raise ValueError("the records are not a mapping")
    except (OSError, ValueError, KeyError, TypeError) as error:
        _problem = f"the progress file could not be read ({type(error).__name__}); keeping progress in memory"
        return {}
    entries = {str(k): _entry(v) for k, v in records.items()}
    return {k: v for k, v in entries.items() if v is not None}


def _records() -> dict[str, dict]:
    """Every record: the file's, with this session's attempts merged in."""
    path = progress_path()
    stored = _read(path) if path is not None else {}
    return _merge(stored, _memory)


def load() -> dict[str, str]:
    """The best outcome of every attempted question: question id -> outcome.

    Reads the file each time (another notebook's kernel may have written to it) and merges this
    session's attempts in; an unreadable file counts as empty, and :func:`progress` says so.

    Returns
    -------
    dict
        Question id -> ``"correct"`` or ``"incorrect"`` (a question never checked is absent).

    Examples
    --------
    >>> import os
    >>> saved = os.environ.get("TOPK_COURSE_PROGRESS")
    >>> os.environ["TOPK_COURSE_PROGRESS"] = "off"  # memory only: no file is touched
    >>> record("02.q1", "incorrect"); record("02.q1", "correct"); record("02.q1", "incorrect")
    >>> load()["02.q1"]  # the best result is kept
    'correct'
    >>> reset_progress()
    >>> _ = (os.environ.pop("TOPK_COURSE_PROGRESS") if saved is None
    ...      else os.environ.update(TOPK_COURSE_PROGRESS=saved))
    """
    return {qid: entry["best"] for qid, entry in _records().items()}


def history(question_id: str) -> list[str]:
    """The outcomes of a question's checks, oldest first (at most :data:`HISTORY_LIMIT`).

    Parameters
    ----------
    question_id : str
        ``"NN.qM"``.

    Returns
    -------
    list of str
        Each check's outcome; empty for a question never checked.

    Examples
    --------
    >>> import os
    >>> saved = os.environ.get("TOPK_COURSE_PROGRESS")
    >>> os.environ["TOPK_COURSE_PROGRESS"] = "off"  # memory only: no file is touched
    >>> record("02.q2", "incorrect"); record("02.q2", "correct")
    >>> history("02.q2")
    ['incorrect', 'correct']
    >>> reset_progress()
    >>> _ = (os.environ.pop("TOPK_COURSE_PROGRESS") if saved is None
    ...      else os.environ.update(TOPK_COURSE_PROGRESS=saved))
    """
    entry = _records().get(question_id)
    return list(entry["history"]) if entry else []


def _merge(old: dict[str, dict], new: dict[str, dict]) -> dict[str, dict]:
    """``old`` with the records of ``new``; a longer history (a superset, from this session) wins."""
    merged = {k: {"best": v["best"], "history": list(v["history"])} for k, v in old.items()}
    for key, entry in new.items():
        before = merged.get(key)
        if before is None or len(entry["history"]) >= len(before["history"]):
            history_ = list(entry["history"])
        else:
            history_ = before["history"]
        best = max([entry["best"], *([before["best"]] if before else [])], key=_RANK.__getitem__)
        merged[key] = {"best": best, "history": history_[-HISTORY_LIMIT:]}
    return merged


def _attempt(entry: dict | None, outcome: str) -> dict:
    """The record after one more attempt: the history grows, the best result never drops."""
    history_ = [*(entry["history"] if entry else []), outcome][-HISTORY_LIMIT:]
    best = outcome if entry is None else max(entry["best"], outcome, key=_RANK.__getitem__)
    return {"best": best, "history": history_}


def record(question_id: str, outcome: str) -> None:
    """Store one attempt; never raises (falls back to memory).

    Every ``q.check`` calls this. "not attempted" is never written: it is what a question with
    no record shows anyway, so running an untouched notebook (or ``make test``) leaves the
    progress file alone. A file that cannot be read or written keeps the attempt in memory, and
    :func:`progress` notes why.

    Parameters
    ----------
    question_id : str
        ``"NN.qM"``.
    outcome : str
        ``"correct"`` or ``"incorrect"``; anything else is ignored.

    Examples
    --------
    >>> import os
    >>> saved = os.environ.get("TOPK_COURSE_PROGRESS")
    >>> os.environ["TOPK_COURSE_PROGRESS"] = "off"  # memory only: no file is touched
    >>> record("02.q1", "not attempted")
    >>> history("02.q1")
    []
    >>> reset_progress()
    >>> _ = (os.environ.pop("TOPK_COURSE_PROGRESS") if saved is None
    ...      else os.environ.update(TOPK_COURSE_PROGRESS=saved))
    """
    global _problem
    if outcome not in _RANK or outcome == "not attempted":
        return
    path = progress_path()
    stored = _read(path) if path is not None else {}
    current = _merge(stored, _memory).get(question_id)
    _memory[question_id] = _attempt(current, outcome)
    if path is None:
        return
    try:
        merged = _merge(stored, {question_id: _memory[question_id]})
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(
            "w", dir=path.parent, prefix=".progress-", suffix=".tmp", delete=False, encoding="utf-8"
        ) as handle:
            json.dump({"format": _FORMAT, "questions": dict(sorted(merged.items()))}, handle, indent=1)
            temp = handle.name
        os.replace(temp, path)
    except OSError as error:
        _problem = (
            f"the progress file could not be written ({type(error).__name__}); keeping progress in memory"
        )


def reset_progress() -> None:
    """Forget every recorded outcome (the file and memory).

    A file that cannot be removed is noted in :func:`progress` rather than raised.

    Examples
    --------
    >>> import os
    >>> saved = os.environ.get("TOPK_COURSE_PROGRESS")
    >>> os.environ["TOPK_COURSE_PROGRESS"] = "off"  # memory only: no file is touched
    >>> record("02.q1", "correct")
    >>> reset_progress()
    >>> load()
    {}
    >>> _ = (os.environ.pop("TOPK_COURSE_PROGRESS") if saved is None
    ...      else os.environ.update(TOPK_COURSE_PROGRESS=saved))
    """
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

    Parameters
    ----------
    rows : list of (notebook, question id, best outcome)
        One row per question, in the order shown (grouped by notebook).
    note : str or None
        Why progress is only in memory (an unreadable or unwritable file), shown last.
    histories : dict, optional
        Question id -> the outcomes of its checks, oldest first; shown as the tries of each row.

    Attributes
    ----------
    done, total : int
        Questions answered correctly (at least once), and all questions.

    Examples
    --------
    >>> summary = Progress(
    ...     [("02-cutoffs", "02.q1", "correct"), ("02-cutoffs", "02.q2", "incorrect")], None,
    ...     {"02.q1": ["incorrect", "correct"], "02.q2": ["incorrect"]})
    >>> for line in repr(summary).splitlines()[:4]:
    ...     print(line)
    Exercises correct: 1 of 2
      02-cutoffs
        [x] q1: correct (2 tries: incorrect, correct)
        [!] q2: incorrect (1 try: incorrect)
    """

    def __init__(
        self,
        rows: list[tuple[str, str, str]],
        note: str | None,
        histories: dict[str, list[str]] | None = None,
    ):
        self.rows = rows
        self.note = note
        self.histories = histories or {}
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
            lines.append(f"    {mark} {qid.split('.', 1)[1]}: {outcome}{_tries(self.histories.get(qid, []))}")
        lines.append(
            "Legend: [x] solved (the best of your tries), [!] tried but not correct yet, [ ] not attempted."
        )
        if self.note:
            lines.append(f"Note: {self.note}.")
        return "\n".join(lines)


def _tries(history_: list[str]) -> str:
    """The text `` (3 tries: incorrect, correct, incorrect)`` for a history; empty for none."""
    if not history_:
        return ""
    shown = history_ if len(history_) <= 6 else ["...", *history_[-5:]]
    return f" ({len(history_)} {'try' if len(history_) == 1 else 'tries'}: {', '.join(shown)})"


def progress() -> Progress:
    """Summarise the outcomes of every course exercise, per notebook.

    Works offline: it reads the local JSON file (see :func:`progress_path`). Every question of
    the course is listed, checked or not; a question counts as done once any check said
    Correct, even if a later try did not.

    Returns
    -------
    Progress
        Shows as a per-notebook list with the tries of each question.

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

    records = _records()
    rows = []
    for qid in sorted(QUESTIONS):
        notebook = NOTEBOOKS.get(qid.split(".", 1)[0], qid.split(".", 1)[0])
        rows.append((notebook, qid, records[qid]["best"] if qid in records else "not attempted"))
    return Progress(rows, _problem, {qid: entry["history"] for qid, entry in records.items()})
