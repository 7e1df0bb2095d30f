"""The class's gradebook: every grading run, result and manual score of one assignment, in SQLite.

``OUT/gradebook.sqlite`` (the grading output folder) is the record of a term; every file an
instructor uploads (``grades.csv``, ``canvas.csv``, the feedback files) is written from it by
:mod:`helpers.grade.exports`. It is append-only history:

- ``runs``: every grading run (when, seed, isolation, the command line, how it ended);
- ``results``: every submission graded (learner, the file's display name and sha256,
  ``submitted_at``, time graded, seed, status, reason, score and the whole JSON report);
- ``checks``: every per-check result of those reports (for queries; the report keeps them too);
- ``manual``: every score an instructor gave a hand-graded answer (points, comment, who, when);
- ``seeds``: the assignment's seed, drawn once; a fresh draw only on request, recorded with why;
- ``roster`` and ``meta``: the latest roster, the late policy, the assignment's questions.

Decisions:

- A learner is their roster id; without one (no roster, or a file that matched nobody), the
  submission's report name (``file:<name>``). The *current* result of a learner is the one of
  the latest run; within one run, the latest ``submitted_at``, then the last display name.
  Grading one learner never changes another learner's current result.
- A manual score belongs to (learner, question, file sha256): a regrade of the same file keeps it,
  a new file's answer needs grading again.
- Each graded submission is committed in its own transaction, so an interrupted run loses
  nothing it graded; a rerun skips a (learner, sha256, seed) already in the book.
- One gradebook holds one assignment; a book written by a newer schema is refused.
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import secrets
import sqlite3
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = [
    "SCHEMA_VERSION",
    "FILE_NAME",
    "SEED_BITS",
    "draw_seed",
    "short_seed",
    "Gradebook",
    "GradebookError",
    "Result",
    "learner_key",
    "utc_text",
]

SCHEMA_VERSION = 2  # 2: seeds are TEXT (a 128-bit seed does not fit SQLite's 64-bit integers)
FILE_NAME = "gradebook.sqlite"
LOCK_NAME = "gradebook.lock"  # held by the grading run writing the book (:meth:`Gradebook.hold_for_run`)
#: Bits of a drawn seed. The sandbox holds a public hash of it (``grader.data_seed``) that a worked
#: example can return; every seed of fewer bits could be tried offline until the hash matches, and
#: the seed gives every hidden case. 2**128 seeds cannot be tried.
SEED_BITS = 128
#: Seeds below this (a 32-bit draw of schema 1, a small ``--seed``) can be searched: the run warns.
_SHORT = 1 << 64

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE seeds (
    id INTEGER PRIMARY KEY, seed TEXT NOT NULL, drawn_at TEXT NOT NULL, how TEXT NOT NULL);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY, started_at TEXT NOT NULL, seed TEXT NOT NULL, isolation TEXT NOT NULL,
    command TEXT NOT NULL, finished_at TEXT, outcome TEXT);
CREATE TABLE roster (
    position INTEGER PRIMARY KEY, id TEXT UNIQUE NOT NULL, name TEXT NOT NULL, section TEXT NOT NULL,
    login TEXT NOT NULL, canvas_id TEXT NOT NULL, pattern TEXT NOT NULL);
CREATE TABLE results (
    id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id), assignment TEXT NOT NULL,
    who TEXT NOT NULL, learner TEXT, submission TEXT NOT NULL, display TEXT NOT NULL,
    sha256 TEXT NOT NULL, submitted_at TEXT, graded_at TEXT NOT NULL, seed TEXT NOT NULL,
    status TEXT NOT NULL, reason TEXT NOT NULL, score REAL NOT NULL, max_score REAL NOT NULL,
    report TEXT NOT NULL);
CREATE INDEX results_who ON results(who, sha256, seed);
CREATE TABLE checks (
    result_id INTEGER NOT NULL REFERENCES results(id), question TEXT NOT NULL, target TEXT NOT NULL,
    name TEXT NOT NULL, hidden INTEGER NOT NULL, passed INTEGER NOT NULL, points REAL NOT NULL,
    max_points REAL NOT NULL);
CREATE TABLE manual (
    id INTEGER PRIMARY KEY, who TEXT NOT NULL, question TEXT NOT NULL, sha256 TEXT NOT NULL,
    points REAL NOT NULL, comment TEXT NOT NULL, grader TEXT NOT NULL, at TEXT NOT NULL);
"""
_RESULT_COLUMNS = (
    "id, run_id, who, learner, submission, display, sha256, submitted_at, graded_at, seed, "
    "status, reason, score, max_score, report"
)


class GradebookError(ValueError):
    """The gradebook cannot be used for this run (the message says why and what to do).

    Examples
    --------
    See :class:`Gradebook`: a folder holds one assignment's gradebook, and opening it for another
    assignment raises this error instead of mixing two assignments' grades.
    """


def draw_seed() -> int:
    """A fresh seed of the hidden cases: :data:`SEED_BITS` random bits.

    Returns
    -------
    int
        A seed in ``[0, 2**128)``, from :mod:`secrets`.

    Examples
    --------
    >>> draw_seed() != draw_seed(), short_seed(draw_seed()) is None
    (True, True)
    """
    return secrets.randbits(SEED_BITS)


def short_seed(seed: int) -> str | None:
    """Why ``seed`` is too short to keep the hidden cases secret, or ``None``.

    Parameters
    ----------
    seed : int
        A seed of the hidden cases (drawn, stored or given with ``--seed``).

    Returns
    -------
    str or None
        The warning to print (what to do included), or ``None`` for a seed of 64 bits or more.

    Examples
    --------
    >>> short_seed(5_000_123)[:44]
    'the seed 5000123 has 23 bits: every seed of '
    """
    if seed >= _SHORT:
        return None
    return (
        f"the seed {seed} has {seed.bit_length()} bits: every seed of that size can be tried against the "
        f"data a notebook reads while graded, which gives the hidden cases away: draw a {SEED_BITS}-bit "
        "one (--new-seed for a gradebook, whose learners keep their results until regraded; no --seed "
        "for a Gradescope package)"
    )


def utc_text(moment: datetime | None = None) -> str:
    """A moment as ISO 8601 UTC text with seconds, ``now`` when omitted.

    Parameters
    ----------
    moment : datetime, optional
        An aware moment; now when None.

    Returns
    -------
    str
        ``YYYY-MM-DDTHH:MM:SSZ``.

    Examples
    --------
    >>> utc_text(datetime(2026, 3, 1, 12, 0, 5, 123, tzinfo=UTC))
    '2026-03-01T12:00:05Z'
    """
    moment = datetime.now(UTC) if moment is None else moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def learner_key(learner: str | None, submission: str) -> str:
    """Whose result a report is: the roster id, else ``file:`` and the name the file came under.

    Parameters
    ----------
    learner : str or None
        The roster id.
    submission : str
        Used when there is no roster id: the name the file was handed in under
        (:func:`helpers.grade.grader.no_roster_key`).

    Returns
    -------
    str
        The key under which the learner's results are kept (a regrade replaces only theirs).

    Examples
    --------
    >>> learner_key("s01", "ann"), learner_key(None, "Untitled1")
    ('s01', 'file:Untitled1')
    """
    return learner if learner else f"file:{submission}"


@dataclass(frozen=True)
class Result:
    """One graded submission as recorded (a row of ``results``).

    Parameters
    ----------
    id, run_id : int
        The row's id and the grading run that wrote it.
    who : str
        :func:`learner_key`: whose result it is.
    learner : str or None
        The roster id, None without a roster.
    submission : str
        The report's name (:func:`helpers.grade.files.report_names`).
    display : str
        The file name as handed over (learner-controlled: data).
    sha256 : str
        The hash of the file graded.
    submitted_at : str or None
        When the LMS says it was handed in (ISO 8601 UTC), if it says.
    graded_at : str
        When it was graded (ISO 8601 UTC).
    seed : int
        The seed of its hidden cases.
    status, reason : str
        The submission's status and why.
    score, max_score : float
        Its points (before any late penalty) and the maximum.
    report : dict
        The full JSON report.

    Examples
    --------
    >>> r = Result(1, 1, "s1", "s1", "ann", "ann.ipynb", "ab12", None, "2026-03-01T12:00:05Z", 7,
    ...            "graded", "", 2.0, 5.0, {"questions": []})
    >>> r.score / r.max_score
    0.4
    """

    id: int
    run_id: int
    who: str
    learner: str | None
    submission: str
    display: str
    sha256: str
    submitted_at: str | None
    graded_at: str
    seed: int
    status: str
    reason: str
    score: float
    max_score: float
    report: dict

    @classmethod
    def _from_row(cls, row: tuple) -> Result:
        names = [f.name for f in fields(cls)]
        values = dict(zip(names, (*row[:-1], json.loads(row[-1])), strict=True))
        return cls(**{**values, "seed": int(values["seed"])})


def _current_key(result: Result) -> tuple:
    return (result.run_id, result.submitted_at or "", result.display, result.id)


class Gradebook:
    """One assignment's gradebook (``OUT/gradebook.sqlite``); open it with :meth:`open`.

    Parameters
    ----------
    connection : sqlite3.Connection
        The open database.
    path : pathlib.Path
        Its file.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> with Gradebook.open(folder, {"name": "hw", "title": "HW", "questions": []}) as book:
    ...     seed = book.seed(None, fresh=False)
    ...     book.seed(None, fresh=False) == seed
    True
    >>> Gradebook.open(folder, {"name": "other", "title": "O", "questions": []})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    helpers.grade.gradebook.GradebookError: ... holds the grades of 'hw', not 'other': ...
    """

    def __init__(self, connection: sqlite3.Connection, path: Path):
        self.db = connection
        self.path = path
        self._held: int | None = None  # the lock file's descriptor while a run holds the book

    # ------------------------------------------------------------ opening
    @classmethod
    def open(cls, folder: Path, assignment: dict | None = None) -> Gradebook:
        """Open (or, given ``assignment``, create) the gradebook in ``folder``.

        Parameters
        ----------
        folder : Path
            The grading output folder.
        assignment : dict, optional
            ``{"name", "title", "questions": [...]}``; required to create a book, and checked
            against an existing one (the questions are updated: a spec may gain a rubric).

        Raises
        ------
        GradebookError
            No book and no assignment; a book of another assignment; a newer schema; not SQLite.
        """
        path = Path(folder) / FILE_NAME
        if not path.exists() and assignment is None:
            raise GradebookError(f"no gradebook in {folder}: grade the class into it first ({FILE_NAME})")
        try:
            connection = sqlite3.connect(path, timeout=30)
            book = cls(connection, path)
            book._prepare(assignment)
        except sqlite3.DatabaseError as exc:
            raise GradebookError(f"{path} is not a gradebook this course can read ({exc})") from None
        return book

    def _prepare(self, assignment: dict | None) -> None:
        self.db.execute("PRAGMA foreign_keys = ON")
        tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "meta" not in tables:
            if tables:
                raise GradebookError(f"{self.path} is an SQLite file but not a gradebook")
            with self.db:
                self.db.executescript(_SCHEMA)
                self._set_meta("schema_version", SCHEMA_VERSION)
                self._set_meta("created_at", utc_text())
        self._check_schema()
        if self.meta("schema_version") == 1:
            self._migrate_seeds()
        if assignment is not None:
            self._check_assignment(assignment)

    def _check_schema(self) -> None:
        version = self.meta("schema_version")
        if not isinstance(version, int) or version > SCHEMA_VERSION:
            raise GradebookError(
                f"{self.path} was written by a newer version of the course (gradebook schema {version}, "
                f"this one reads {SCHEMA_VERSION}): update the course (git pull; pip install -e .)"
            )

    def _migrate_seeds(self) -> None:
        """Schema 1 to 2: the ``seed`` columns become TEXT (SQLite's integers hold 64 bits; a seed 128).

        Each table is rebuilt as SQLite's documentation describes (a column's type cannot be
        altered): the new table, its rows copied, the old one dropped, the new one renamed."""
        self.db.execute("PRAGMA foreign_keys = OFF")
        try:
            with self.db:
                for table in ("seeds", "runs", "results"):
                    (sql,) = self.db.execute(
                        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
                    ).fetchone()
                    new = sql.replace(f"CREATE TABLE {table} (", f"CREATE TABLE {table}_2 (", 1)
                    self.db.execute(new.replace("seed INTEGER NOT NULL", "seed TEXT NOT NULL"))
                    self.db.execute(f"INSERT INTO {table}_2 SELECT * FROM {table}")
                    self.db.execute(f"DROP TABLE {table}")
                    self.db.execute(f"ALTER TABLE {table}_2 RENAME TO {table}")
                self.db.execute("CREATE INDEX results_who ON results(who, sha256, seed)")
                self._set_meta("schema_version", SCHEMA_VERSION)
        finally:
            self.db.execute("PRAGMA foreign_keys = ON")

    def _check_assignment(self, assignment: dict) -> None:
        stored = self.meta("assignment")
        if stored is not None and stored["name"] != assignment["name"]:
            raise GradebookError(
                f"{self.path} holds the grades of {stored['name']!r}, not {assignment['name']!r}: "
                "grade each assignment into its own --out folder"
            )
        with self.db:
            self._set_meta("assignment", assignment)

    # ------------------------------------------------------------ meta
    def _set_meta(self, key: str, value: Any) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))

    def meta(self, key: str, default: Any = None) -> Any:
        """A stored setting (JSON value), or ``default``."""
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return default if row is None else json.loads(row[0])

    def set_meta(self, key: str, value: Any) -> None:
        """Store a setting (a JSON value), committed."""
        with self.db:
            self._set_meta(key, value)

    @property
    def assignment(self) -> dict:
        """The assignment's name, title, max score and questions, as the last run stored them."""
        return self.meta("assignment")

    # ------------------------------------------------------------ seed
    def seed(self, requested: int | None, fresh: bool) -> int:
        """The seed of the hidden cases: the stored one; drawn and stored the first time.

        ``requested`` sets it (allowed only as the first seed or with ``fresh``); ``fresh`` draws
        a new one (or takes ``requested``). Every change is a new row of ``seeds``.

        Raises
        ------
        GradebookError
            When ``requested`` differs from the stored seed without ``fresh``.
        """
        row = self.db.execute("SELECT seed FROM seeds ORDER BY id DESC LIMIT 1").fetchone()
        row = None if row is None else (int(row[0]),)
        if row is not None and not fresh:
            if requested is not None and requested != row[0]:
                raise GradebookError(
                    f"this gradebook grades with seed {row[0]} (every learner gets the same hidden cases); "
                    f"to replace it by {requested}, add --new-seed (already graded learners keep their "
                    "results until they are regraded)"
                )
            return int(row[0])
        seed = draw_seed() if requested is None else int(requested)
        how = "first run" if row is None else "fresh draw requested (--new-seed)"
        how += "" if requested is None else ", given with --seed"
        with self.db:
            self.db.execute(
                "INSERT INTO seeds (seed, drawn_at, how) VALUES (?, ?, ?)", (str(seed), utc_text(), how)
            )
        return seed

    def seeds(self) -> list[tuple[int, str, str]]:
        """Every seed the book used: ``(seed, drawn_at, how)``, oldest first."""
        rows = self.db.execute("SELECT seed, drawn_at, how FROM seeds ORDER BY id")
        return [(int(seed), at, how) for seed, at, how in rows]

    # ------------------------------------------------------------ runs and results
    def start_run(self, seed: int, isolation: str, command: str) -> int:
        """Record the start of a grading run; returns its id."""
        with self.db:
            cursor = self.db.execute(
                "INSERT INTO runs (started_at, seed, isolation, command) VALUES (?, ?, ?, ?)",
                (utc_text(), str(seed), isolation, command),
            )
        return int(cursor.lastrowid or 0)

    def finish_run(self, run_id: int, outcome: str) -> None:
        """Record how a run ended (``complete``, ``interrupted``, ``stopped: ...``)."""
        with self.db:
            self.db.execute(
                "UPDATE runs SET finished_at = ?, outcome = ? WHERE id = ?", (utc_text(), outcome, run_id)
            )

    def already_graded(self, who: str, sha256: str, seed: int) -> Result | None:
        """The latest result of ``who`` for this exact file and seed (a rerun skips it), or ``None``."""
        row = self.db.execute(
            f"SELECT {_RESULT_COLUMNS} FROM results WHERE who = ? AND sha256 = ? AND seed = ? "
            "ORDER BY id DESC LIMIT 1",
            (who, sha256, str(seed)),
        ).fetchone()
        return None if row is None else Result._from_row(row)

    def record(
        self, run_id: int, who: str, learner: str | None, submitted_at: str | None, report: dict
    ) -> int:
        """Store one graded report and its checks in one transaction; returns the result's id."""
        values = (
            run_id, report["assignment"], who, learner, report["submission"], report["file"],
            report.get("sha256", ""), submitted_at, utc_text(), str(report["seed"]), report["status"],
            report.get("reason", ""), float(report["score"]), float(report["max_score"]),
            json.dumps(report, ensure_ascii=False),
        )  # fmt: skip
        values = tuple(_utf8(v) for v in values)
        with self.db:
            cursor = self.db.execute(
                "INSERT INTO results (run_id, assignment, who, learner, submission, display, sha256, "
                "submitted_at, graded_at, seed, status, reason, score, max_score, report) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                values,
            )
            result_id = int(cursor.lastrowid or 0)
            self.db.executemany(
                "INSERT INTO checks VALUES (?, ?, ?, ?, ?, ?, ?, ?)", _check_rows(result_id, report)
            )
        return result_id

    def history(self, who: str | None = None) -> list[Result]:
        """Every result (of ``who``, or of everybody), oldest first."""
        where, args = ("WHERE who = ?", (who,)) if who else ("", ())
        rows = self.db.execute(f"SELECT {_RESULT_COLUMNS} FROM results {where} ORDER BY id", args)
        return [Result._from_row(r) for r in rows]

    def current(self) -> list[Result]:
        """The current result of every learner (see the module's decisions), ordered by learner."""
        best: dict[str, Result] = {}
        for result in self.history():
            if result.who not in best or _current_key(result) > _current_key(best[result.who]):
                best[result.who] = result
        return [best[k] for k in sorted(best)]

    # ------------------------------------------------------------ roster
    def set_roster(self, learners: list[dict]) -> None:
        """Replace the stored roster (dicts with ``id``, ``name``, ``section``, ``login``,
        ``canvas_id``, ``pattern``)."""
        with self.db:
            self.db.execute("DELETE FROM roster")
            self.db.executemany(
                "INSERT INTO roster VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (i, x["id"], x["name"], x["section"], x["login"], x["canvas_id"], x["pattern"])
                    for i, x in enumerate(learners)
                ],
            )

    def roster(self) -> list[dict]:
        """The stored roster, in its order (empty when no run gave one)."""
        keys = ("id", "name", "section", "login", "canvas_id", "pattern")
        rows = self.db.execute(f"SELECT {', '.join(keys)} FROM roster ORDER BY position")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    # ------------------------------------------------------------ manual scores
    def add_manual(
        self,
        who: str,
        question: str,
        sha256: str,
        points: float,
        max_points: float,
        comment: str,
        grader: str,
    ) -> None:
        """Record an instructor's score of a hand-graded answer.

        Raises
        ------
        GradebookError
            For points that are not a number in ``[0, max_points]``.
        """
        if not isinstance(points, (int, float)) or not math.isfinite(points) or not 0 <= points <= max_points:
            raise GradebookError(f"points must be a number from 0 to {max_points:g} (got {points!r})")
        with self.db:
            self.db.execute(
                "INSERT INTO manual (who, question, sha256, points, comment, grader, at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (who, question, sha256, float(points), comment, grader, utc_text()),
            )

    def manual_scores(self) -> dict[tuple[str, str, str], dict]:
        """The latest manual score per (learner, question, sha256).

        Each is a dict with ``points``, ``comment``, ``grader`` and ``at``.
        """
        out: dict[tuple[str, str, str], dict] = {}
        rows = self.db.execute(
            "SELECT who, question, sha256, points, comment, grader, at FROM manual ORDER BY id"
        )
        for who, question, sha, points, comment, grader, at in rows:
            out[(who, question, sha)] = {"points": points, "comment": comment, "grader": grader, "at": at}
        return out

    # ------------------------------------------------------------ one run at a time
    def hold_for_run(self) -> None:
        """Take the gradebook for one grading run, until :meth:`close` (or the process ends).

        *Decision* (red team 19): one grading run at a time per gradebook. A run decides report
        names and who replaces whom from the results current when it starts; a second run
        recording meanwhile (a late file graded beside a ``--new-seed`` regrade) gave two learners
        one feedback file and made a replacement unsaid. The lock is ``flock`` on
        ``OUT/gradebook.lock``, released by the system if the process dies. Reading the book
        (``history``, the review page, exports) needs no lock.

        Raises
        ------
        GradebookError
            Another run holds the book: it names the holder's process and start.
        """
        try:  # the book's own permissions decide who may grade into it (the umask, as for the book)
            fd = os.open(self.path.with_name(LOCK_NAME), os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as exc:
            raise GradebookError(
                f"cannot open {self.path.with_name(LOCK_NAME)} ({exc.strerror}): the folder's owner can "
                "let you write it, or grade into a folder of your own"
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "a process"
            os.close(fd)
            raise GradebookError(
                f"another grading run is writing {self.path.parent} ({holder}): wait for it to end, "
                "then run this command again (one run at a time per output folder)"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"process {os.getpid()}, started {utc_text()}".encode(), 0)
        self._held = fd

    # ------------------------------------------------------------ closing
    def close(self) -> None:
        """Close the connection (everything is committed already) and let another run in."""
        self.db.close()
        if self._held is not None:
            os.close(self._held)  # the flock goes with its last descriptor
            self._held = None

    def __enter__(self) -> Gradebook:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _utf8(value: Any) -> Any:
    """A text as SQLite can store it: a lone surrogate (valid in JSON and in Python text, never in
    UTF-8) becomes its escape ``\\ud800``; inside the report's JSON that escape reads back as the
    same text. So no learner string can make recording fail (one row's text never stops the run).

    Examples
    --------
    >>> _utf8("ok\\ud800"), _utf8(2.5)
    ('ok\\\\ud800', 2.5)
    """
    return value.encode("utf-8", "backslashreplace").decode("utf-8") if isinstance(value, str) else value


def _check_rows(result_id: int, report: dict) -> list[tuple]:
    return [
        (result_id, q.get("question", ""), q["target"], c["name"], int(bool(c.get("hidden"))),
         int(bool(c["passed"])), float(c["points"]), float(c["max_points"]))
        for q in report.get("questions", [])
        for c in q.get("checks", [])
    ]  # fmt: skip
