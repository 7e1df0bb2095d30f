"""What a class's grading run tells an instructor and each learner: statuses, the roster, CSV, feedback files.

- :func:`submission_status`: one ``status`` and ``reason`` per submission (``graded``,
  ``not a notebook``, ``symlink``, ``too large``, ``timed out``, ``crashed``, ...).
- :func:`question_result`: one learner-facing result per question (``right``,
  ``partly right``, ``wrong``, ``not attempted``, ``missing``, ``timed out``, ...).
- :class:`Roster`: maps submission files (exact names or glob patterns) to learner ids and names.
- :func:`display_names`: file names as shown in spreadsheets and feedback: NFC-normalised, and
  marked when two different files look alike (equal once normalised, or the same UTS #39
  confusable skeleton, :func:`skeleton`).
- :func:`grades_csv`: ``grades.csv``; every text cell goes through :func:`helpers.grade.inert.csv_cell`.
- :func:`feedback_markdown`: the file a learner reads. It never holds an input or an expected
  value of a hidden case, nor the learner's own exception messages (which could echo hidden inputs).
"""

from __future__ import annotations

import csv
import fnmatch
import functools
import io
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import inert
from .decode import DRAWN_END, HIDDEN_END
from .scoring import GATED_REASON

__all__ = [
    "Learner",
    "Roster",
    "RosterError",
    "submission_status",
    "question_result",
    "display_names",
    "grades_csv",
    "feedback_markdown",
    "learner_examples",
    "safe_check_feedback",
    "write_csv",
]

#: Submission statuses, in the order an instructor cares about them.
STATUSES = (
    "graded",
    "no submission",
    "empty notebook",
    "not a notebook",
    "symlink",
    "not a regular file",
    "too large",
    "unreadable",
    "timed out",
    "crashed",
    "stopped",
    "internal error",
)

_QUESTION_RESULTS = {
    "ok": "right",
    "partial": "partly right",
    "failed": "wrong",
    "not a function": "wrong",
    "same answer for every input": "wrong",
    "not attempted": "not attempted",
    "missing": "missing",
    "not graded": "not graded",
}
_TIMEOUT = re.compile(r"timed out|CPU time limit", re.IGNORECASE)
_CRASH = re.compile(r"killed|exited with code|stopped reporting|crash|sent more than", re.IGNORECASE)


# ------------------------------------------------------------------ statuses
def _failure_kind(text: str) -> str:
    if HIDDEN_END in text or DRAWN_END in text:  # how it ended is the instructor's (``detail``)
        return "stopped"
    if _TIMEOUT.search(text):
        return "timed out"
    return "crashed" if _CRASH.search(text) else "no report"


def question_result(question: dict) -> tuple[str, str]:
    """The learner-facing result of one question report, and its reason.

    Parameters
    ----------
    question : dict
        One question's report.

    Returns
    -------
    tuple of (str, str)
        The result in a fixed vocabulary (``right``, ``partly right``, ``wrong``, ``not attempted``,
        ``timed out``...) and the reason in words.

    Examples
    --------
    >>> question_result({"status": "not attempted", "points": 0.0, "max_points": 2.0})
    ('not attempted', 'still the stub (raises NotImplementedError or is ...)')
    >>> question_result({"status": "failed", "points": 0.0, "max_points": 2.0, "checks": []})
    ('wrong', 'no hidden check passed')
    >>> question_result({"status": "no report",
    ...                  "reason": "did not report: timed out after 10 s (wall clock)"})
    ('timed out', 'did not report: timed out after 10 s (wall clock)')
    >>> question_result({"status": "same answer for every input", "reason": "returns one value",
    ...                  "points": 0.0, "max_points": 2.0, "checks": []})
    ('wrong', 'no hidden check passed')
    """
    status = question.get("status", "")
    if status == "no report":
        reason = question.get("reason", "did not report")
        return _failure_kind(reason), reason
    result = _QUESTION_RESULTS.get(status, status or "not graded")
    if status == "not attempted":
        return result, "still the stub (raises NotImplementedError or is ...)"
    if "reason" in question and status != "same answer for every input":
        return result, question["reason"]
    return result, _checks_reason(question, status)


def _checks_reason(question: dict, status: str) -> str:
    """A question's reason from its checks (passed or failed) alone.

    A function that returned one value on every hidden case reads the same as any question scoring
    zero: whether the hidden cases got one value back is the instructor's (``status``)."""
    scored = [c for c in question.get("checks", []) if c["max_points"] > 0]
    if status == "ok":
        return "every hidden check passed"
    if status == "partial":
        return "failed: " + "; ".join(c["name"] for c in scored if not c["passed"])
    return GATED_REASON if any(c["passed"] for c in scored) else "no hidden check passed"


def _given_status(report: dict) -> tuple[str, str] | None:
    """The status a report already carries (its reader's, or an internal error), if any."""
    if report.get("status") and "reason" in report:
        return report["status"], report["reason"]
    if report.get("status") and report["status"] != "graded":
        return report["status"], report.get("error", "")
    if report.get("error"):
        return "internal error", report["error"]
    return None


def submission_status(report: dict) -> tuple[str, str]:
    """``(status, reason)`` of a whole submission from its JSON report.

    A submission whose notebook could not be read has the status its reader gave
    (``report["status"]``); one whose every question failed the same way while the
    notebook ran (a top-level infinite loop, a crash) is ``timed out`` or ``crashed``;
    anything else that ran is ``graded``, with the questions that did not report named.

    Parameters
    ----------
    report : dict
        The submission's JSON report.

    Returns
    -------
    tuple of (str, str)
        The status and its reason (empty when there is nothing to add).

    Examples
    --------
    >>> submission_status({"status": "symlink", "error": "not a regular file but a symbolic link"})
    ('symlink', 'not a regular file but a symbolic link')
    >>> q = {"status": "no report",
    ...      "reason": "did not report: running the notebook failed: timed out after 4 s"}
    >>> submission_status({"questions": [q, q]})
    ('timed out', 'running the notebook failed: timed out after 4 s')
    >>> submission_status({"questions": [{"status": "ok"}, q | {"question": "q2"}]})
    ('graded', 'q2 timed out')
    """
    given = _given_status(report)
    if given:
        return given
    questions = report.get("questions", [])
    failed = [q for q in questions if q.get("status") == "no report"]
    reasons = {q.get("reason", "").removeprefix("did not report: ") for q in failed}
    if questions and len(failed) == len(questions) and len(reasons) == 1:
        reason = reasons.pop()
        return _failure_kind(reason), reason
    notes = [
        f"{q.get('question', q.get('target', '?'))} {_failure_kind(q.get('reason', ''))}" for q in failed
    ]
    return "graded", "; ".join(notes)


# ------------------------------------------------------------------ roster
class RosterError(ValueError):
    """The roster file cannot be used (the message says what to fix).

    Examples
    --------
    >>> Roster.from_text("id\\ns1\\n")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    helpers.grade.reports.RosterError: the roster needs a header with at least the columns ...
    """


@dataclass(frozen=True)
class Learner:
    """One roster row: who a submission belongs to.

    Parameters
    ----------
    pattern : str
        The roster's ``file`` cell: an exact file name or a glob pattern.
    id : str
        The learner's id, written to ``grades.csv``.
    name : str
        The learner's name.
    section : str
        Their section (optional).
    login : str
        Canvas's SIS Login ID (optional; the Canvas export needs it or ``canvas_id``).
    canvas_id : str
        Canvas's numeric user ID (optional).

    Examples
    --------
    >>> Learner("ann.ipynb", "s1", "Ann").id
    's1'
    """

    pattern: str
    id: str
    name: str = ""
    section: str = ""
    login: str = ""
    canvas_id: str = ""


_ROSTER_COLUMNS = ("file", "id", "name", "section", "login", "canvas_id")


def _ascii_lower(text: str) -> str:
    """``text`` with A to Z lower-cased and nothing else changed (``"BO\u212a"`` stays unlike ``"bok"``)."""
    return text.translate(_ASCII_LOWER)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def _roster_row(line: int, raw: dict, seen: set[str]) -> Learner:
    """One roster line as a :class:`Learner` (cells beyond the header are ignored)."""
    row = {k.strip().lower(): (v or "").strip() for k, v in raw.items() if isinstance(k, str)}
    if not row.get("file") or not row.get("id"):
        raise RosterError(f"roster line {line}: 'file' and 'id' must both be filled in")
    if row["id"] in seen:
        raise RosterError(f"roster line {line}: the id {row['id']!r} appears twice")
    row["pattern"] = row.pop("file")
    return Learner(**{k: row.get(k, "") for k in ("pattern", *_ROSTER_COLUMNS[1:])})


class Roster:
    """Learners and the files they handed in: ``file`` (exact name or glob pattern), ``id``, ``name``.

    Optional columns: ``section``, ``login`` (Canvas's SIS Login ID) and ``canvas_id``
    (Canvas's numeric ID). A file's base name is compared NFC-normalised; an exact
    name wins over a pattern; a name that two patterns match is nobody's (:meth:`match_all`).

    Parameters
    ----------
    learners : list of Learner
        The roster's rows, usually read with :meth:`from_text` or :meth:`from_file`.

    Examples
    --------
    >>> r = Roster.from_text("file,id,name\\nann.ipynb,s1,Ann\\n*_s2_*.ipynb,s2,Bo\\n")
    >>> r.match("ann.ipynb").name, r.match("hw1_s2_late.ipynb").id, r.match("x.ipynb")
    ('Ann', 's2', None)

    Matching a roster to files is :mod:`helpers.grade.collect`'s job; this class is its data.
    """

    def __init__(self, learners: list[Learner]):
        self.learners = learners

    @classmethod
    def from_text(cls, text: str) -> Roster:
        reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
        header = [h.strip().lower() for h in reader.fieldnames or []]
        if "file" not in header or "id" not in header:
            raise RosterError(
                f"the roster needs a header with at least the columns 'file' and 'id' (found {header}); "
                "e.g. 'file,id,name' then one row per learner"
            )
        learners: list[Learner] = []
        for line, row in enumerate(reader, start=2):
            learners.append(_roster_row(line, row, {x.id for x in learners}))
        return cls(learners)

    @classmethod
    def read(cls, path: str | Path) -> Roster:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise RosterError(f"cannot read the roster {path}: {exc}") from None
        return cls.from_text(text)

    def match_all(self, file_name: str) -> list[Learner]:
        """Every learner the file's base name belongs to, by the first rule that matches anybody: the
        same bytes, then the same NFC-normalised name, then the file patterns. More than one learner
        means the name is ambiguous: it is nobody's (:mod:`helpers.grade.collect` lists it for the
        instructor); never the first of them.

        Examples
        --------
        >>> r = Roster.from_text("file,id\\nann.ipynb,s1\\n*_s2_*.ipynb,s2\\n*_s3_*.ipynb,s3\\n")
        >>> [x.id for x in r.match_all("hw_s2_s3_.ipynb")], [x.id for x in r.match_all("ann.ipynb")]
        (['s2', 's3'], ['s1'])
        """
        name = Path(file_name).name
        rules = (
            lambda r: r.pattern == name,
            lambda r: _nfc(r.pattern) == _nfc(name),
            lambda r: fnmatch.fnmatchcase(_nfc(name), _nfc(r.pattern)),
        )
        for rule in rules:
            found = [r for r in self.learners if rule(r)]
            if found:
                return found
        return []

    def match(self, file_name: str) -> Learner | None:
        """The one learner a file (its base name) belongs to (:meth:`match_all`), or ``None`` when it
        matches nobody or several learners."""
        found = self.match_all(file_name)
        return found[0] if len(found) == 1 else None

    def with_field(self, column: str, value: str, *, exact: bool = False) -> list[Learner]:
        """The learners whose ``column`` (``id``, ``login``, ``canvas_id``) is ``value`` (NFC, case-blind
        for ``login``); nobody for an empty value. ``exact``: as the platform spelled it, only a login's
        ASCII letters lower-cased (an id a learner typed into Gradescope: ``jose\u0301`` is not
        ``jos\u00e9``, red team 51).

        Examples
        --------
        >>> r = Roster.from_text("file,id,login\\na.ipynb,jos\u00e9,Jo@x.edu\\n")
        >>> len(r.with_field("id", "jose\u0301")), len(r.with_field("id", "jose\u0301", exact=True))
        (1, 0)
        >>> len(r.with_field("login", "jo@x.edu", exact=True))
        1
        """
        if not value.strip():
            return []
        fold: Callable[[str], str]
        if exact:  # a login's ASCII letters only: str.lower maps the Kelvin sign to k (red team 52)
            fold = _ascii_lower if column == "login" else str.__str__
        else:
            fold = (lambda s: _nfc(s).casefold()) if column == "login" else _nfc
        return [r for r in self.learners if getattr(r, column) and fold(getattr(r, column)) == fold(value)]

    def identify(self, name: str) -> list[Learner]:
        """The learners a folder's name names (their ``id``, ``login`` or ``canvas_id``)."""
        found = {id(x): x for col in ("id", "login", "canvas_id") for x in self.with_field(col, name)}
        return list(found.values())

    def assign(self, paths: list[Path]) -> list[Learner | None]:
        """The learner of each file; of look-alike files (equal once NFC-normalised) matched by one
        roster entry, only the one spelled exactly as in the roster keeps it (the other is unassigned)."""
        found = [self.match(str(p)) for p in paths]
        names = [Path(str(p)).name for p in paths]
        for i, learner in enumerate(found):
            if learner is None or learner.pattern == names[i]:
                continue
            rivals = [j for j, other in enumerate(found) if other is learner and j != i]
            if any(_nfc(names[j]) == _nfc(names[i]) and names[j] == learner.pattern for j in rivals):
                found[i] = None
        return found


# ------------------------------------------------------------------ names
@functools.cache
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype, from Unicode's ``confusables.txt`` (UTS #39, section 4).

    The data come from the ``confusable-homoglyphs`` package, which stores every line
    ``source ; prototype`` of ``confusables.txt`` as an edge in both directions. A source has one
    edge (to its prototype) and a prototype is never a source, so the prototype of a character is
    the neighbour with more edges, or a sequence of several characters; of two characters that
    only have each other, the smaller stands for both (equal skeletons stay equal).
    """
    from confusable_homoglyphs import confusables

    data = confusables.confusables_data
    found = {}
    for char, entries in data.items():
        if len(char) != 1 or len(entries) != 1:
            continue  # a prototype (or a sequence): it maps to itself
        other = entries[0]["c"]
        if len(other) > 1 or len(data.get(other, ())) > 1:
            found[char] = other
        elif other < char:
            found[char] = other
    return found


def skeleton(text: str) -> str:
    """The UTS #39 skeleton of ``text``: two strings that look alike have the same skeleton.

    NFD, each character replaced by its prototype (repeated until nothing changes), NFD again.

    Examples
    --------
    >>> skeleton("p\u0430ul.ipynb") == skeleton("paul.ipynb")  # a Cyrillic а
    True
    >>> skeleton("rn") == skeleton("m"), skeleton("ann") == skeleton("anne")
    (True, False)
    """
    table = _prototypes()
    current = unicodedata.normalize("NFD", text)
    for _ in range(4):
        mapped = unicodedata.normalize("NFD", "".join(table.get(c, c) for c in current))
        if mapped == current:
            break
        current = mapped
    return current


def display_names(files: list[str]) -> list[str]:
    """Names for spreadsheets and feedback: NFC-normalised; look-alikes marked with their code points.

    Two different names that look the same (equal once normalised, like ``café`` typed two ways,
    or with the same UTS #39 skeleton, like ``paul`` with a Cyrillic ``а``) would display
    identically: each gets a visible marker with its escaped form.

    Parameters
    ----------
    files : list of str
        The file names, as handed over.

    Returns
    -------
    list of str
        One display name per file, in order.

    Examples
    --------
    >>> display_names(["caf\\u00e9.ipynb", "cafe\\u0301.ipynb", "b.ipynb"])
    ['café.ipynb [look-alike 1/2: caf\\\\xe9.ipynb]',
     'café.ipynb [look-alike 2/2: cafe\\\\u0301.ipynb]', 'b.ipynb']
    >>> display_names(["paul.ipynb", "p\\u0430ul.ipynb"])[1]
    'pаul.ipynb [look-alike 2/2: p\\\\u0430ul.ipynb]'
    >>> display_names(["hw.ipynb", "hw.ipynb"])
    ['hw.ipynb [same name 1/2]', 'hw.ipynb [same name 2/2]']
    """
    keys = [skeleton(f) for f in files]
    distinct: dict[str, list[str]] = {}
    for raw, key in zip(files, keys, strict=True):
        if raw not in distinct.setdefault(key, []):
            distinct[key].append(raw)
    out = []
    for raw, key in zip(files, keys, strict=True):
        name, variants = _nfc(raw), distinct[key]
        if len(variants) > 1:
            escaped = raw.encode("ascii", "backslashreplace").decode("ascii")
            name = f"{name} [look-alike {variants.index(raw) + 1}/{len(variants)}: {escaped}]"
        out.append(name)
    return _numbered_repeats(files, out)


def _numbered_repeats(files: list[str], shown: list[str]) -> list[str]:
    """The same name handed over twice (``hw.ipynb`` from two folders or zips) numbered, so no two
    rows read alike (red team 45): ``hw.ipynb [same name 1/2]``; the report name tells them apart."""
    total = Counter(files)
    seen: Counter[str] = Counter()
    out = []
    for raw, name in zip(files, shown, strict=True):
        seen[raw] += 1
        out.append(f"{name} [same name {seen[raw]}/{total[raw]}]" if total[raw] > 1 else name)
    return out


# ------------------------------------------------------------------ grades.csv
def write_csv(rows: list[list[Any]]) -> bytes:
    """CSV bytes (UTF-8) in which no text cell can become a spreadsheet formula.

    Parameters
    ----------
    rows : list of list
        The rows; numbers are written as numbers, every other cell through
        :func:`helpers.grade.inert.csv_cell`.

    Returns
    -------
    bytes
        The CSV file, UTF-8 with CRLF line ends.

    Examples
    --------
    >>> write_csv([["name", "score"], ["=SUM(A1)", 3]])
    b"name,score\\r\\n'=SUM(A1),3\\r\\n"
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for row in rows:
        writer.writerow([inert.csv_cell(x) if isinstance(x, str) else x for x in row])
    return buffer.getvalue().encode("utf-8", "backslashreplace")


def _points(value: float) -> str:
    return f"{value:g}"


def _learner_cells(learner: Learner | None) -> list[str]:
    return [learner.id, learner.name] if learner else ["", ""]


def grades_csv(
    targets: list[str],
    reports: list[dict],
    learners: list[Learner | None],
    absent: Sequence[Learner] = (),
    max_score: float = 0.0,
) -> bytes:
    """``grades.csv``: one row per report, then one per roster learner without a submission (score 0).

    Columns: ``learner_id``, ``name``, ``submission``, ``file`` (NFC, look-alikes marked), ``status``,
    ``reason``, ``isolation``, ``seed``, ``score``, ``max_score``, the points of each question
    (named after its function or variable) and, for each, ``<target> result``.

    Parameters
    ----------
    targets : list of str
        The questions' targets, in order (one points column and one result column each).
    reports : list of dict
        The submissions' JSON reports.
    learners : list of Learner or None
        Whose each report is (None: not matched to the roster).
    absent : sequence of Learner
        Roster learners with no submission.
    max_score : float
        The assignment's maximum, for the absent learners' rows.

    Returns
    -------
    bytes
        The CSV file (UTF-8), every text cell neutralised against formulas.

    Examples
    --------
    >>> absent = [Learner("ann.ipynb", "s1", "Ann")]
    >>> print(grades_csv(["precision_at_k"], [], [], absent=absent, max_score=2.0).decode().splitlines()[1])
    s1,Ann,,,no submission,no file matched the roster entry 'ann.ipynb',,,0,2,0,not attempted
    """
    header = ["learner_id", "name", "submission", "file", "status", "reason", "isolation", "seed"]
    header += ["score", "max_score", *targets, *[f"{t} result" for t in targets]]
    rows: list[list[Any]] = [header]
    shown = display_names([r["file"] for r in reports])
    for rep, learner, file in zip(reports, learners, shown, strict=True):
        status, reason = submission_status(rep)
        by_target = {q["target"]: q for q in rep["questions"]}
        points = [_points(by_target[t]["points"]) if t in by_target else "0" for t in targets]
        results = [question_result(by_target[t])[0] if t in by_target else "not graded" for t in targets]
        rows.append(
            [
                *_learner_cells(learner),
                rep["submission"],
                file,
                status,
                reason,
                rep["isolation"],
                rep["seed"],
                _points(rep["score"]),
                _points(rep["max_score"]),
                *points,
                *results,
            ]
        )
    for learner in absent:
        reason = f"no file matched the roster entry {learner.pattern!r}"
        rows.append(
            [learner.id, learner.name, "", "", "no submission", reason, "", "", "0", _points(max_score)]
        )
        rows[-1] += ["0"] * len(targets) + ["not attempted"] * len(targets)
    return write_csv(rows)


def missing_rows(roster: Roster | None, learners: list[Learner | None]) -> list[Learner]:
    """Roster learners none of whose files were handed in."""
    if roster is None:
        return []
    found = {id(x) for x in learners if x is not None}
    return [x for x in roster.learners if id(x) not in found]


# ------------------------------------------------------------------ feedback


#: What a learner reads of a failed hidden check: only that it failed. How many of its cases failed,
#: and how (an exception, a value that is not a number, a wrong value), stays in the instructor's
#: report: the notebook's code could choose it from a hidden input, a few bits per check.
HIDDEN_FAILED = "failed"


def safe_check_feedback(check: dict) -> str:
    """A check's feedback as a learner may read it: a failed hidden check is only ``failed``, so
    nothing of how its cases failed (which could be chosen from a hidden input) is shown.

    Parameters
    ----------
    check : dict
        One check's entry of a question report.

    Returns
    -------
    str
        The feedback as shown to the learner.

    Examples
    --------
    >>> safe_check_feedback({"hidden": True, "passed": False,
    ...                      "feedback": "failed on 2 of 5 cases (x); e.g. raised KeyError"})
    'failed'
    >>> safe_check_feedback({"hidden": False, "passed": False, "feedback": "failed on 1 of 2 cases (x)"})
    'failed on 1 of 2 cases (x)'
    """
    if check.get("hidden") and not check.get("passed"):
        return HIDDEN_FAILED
    return check["feedback"]


def error_types(question: dict) -> str:
    """The exception types a question's public cases raised, without their messages.

    Public cases run before any hidden input reaches the notebook's code
    (:mod:`helpers.grade.child`), so the exceptions they raised cannot carry one; those of
    hidden cases are only in the instructor's ``errors``. A report from before that order
    (no ``public_errors``) shows none. Only built-in and NumPy names are shown
    (:func:`helpers.grade.inert.exception_label`).

    Examples
    --------
    >>> errors = ["KeyError: 'u3' (2 cases)", "ZeroDivisionError: division by zero (1 case)"]
    >>> error_types({"public_errors": errors})
    'KeyError, ZeroDivisionError'
    >>> error_types({"public_errors": ["u3_i7: x (1 case)"]})
    'an exception class from the notebook or a package'
    >>> error_types({"errors": ["OverflowError: x (1 case)"]})
    ''
    """
    errors = question.get("public_errors", [])
    return ", ".join(sorted({inert.exception_label(e.split(" (")[0]) for e in errors}))


# ------------------------------------------------------------------ feedback
REDRAWN = (
    "the data behind this answer are drawn anew when the notebook is graded, twice, and it scores only "
    "when right on both draws, so a number typed in does not: compute it with code from the data the "
    "notebook loads"
)
BY_INSTRUCTOR = "graded by your instructor"
GOT_WITHHELD = (
    "what your function returned on a worked example is not shown for this older grading run: "
    "call it on the example in your notebook"
)


def learner_examples(questions: list[dict]) -> list[list[list[dict]]]:
    """The failed worked examples a learner may read, per question and check.

    The sandbox runs every question's public cases before any hidden case
    (:mod:`helpers.grade.child`), so what the function returned on a worked example cannot
    carry a hidden input and ``got`` is shown. A question graded before that order (its report
    has no ``public_errors``) keeps ``got`` only for cases that ran before any hidden one.
    Inputs and expected values of worked examples are the notebook's own and always shown.

    Parameters
    ----------
    questions : list of dict
        The question reports of one submission.

    Returns
    -------
    list
        Per question, per check, the failed worked examples (input, expected, and ``got`` where
        it may be shown).

    Examples
    --------
    >>> learner_examples([{"checks": []}])
    [[]]
    """
    seen_hidden, out = False, []
    for q in questions:
        per_check = []
        for check in q.get("checks", []):
            examples = check.get("examples", []) if not check.get("hidden") else []
            withheld = seen_hidden and "public_errors" not in q
            per_check.append([e if not withheld else {**e, "got": None} for e in examples])
            seen_hidden = seen_hidden or bool(check.get("hidden"))
        out.append(per_check)
    return out


def collapse(lines: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``(label, reason)`` pairs with the same reason merged into one, labels joined, order kept.

    Examples
    --------
    >>> collapse([("a", "x"), ("b", "y"), ("c", "x")])
    [('a, c', 'x'), ('b', 'y')]
    """
    merged: dict[str, list[str]] = {}
    for label, reason in lines:
        merged.setdefault(reason, []).append(label)
    return [(", ".join(labels), reason) for reason, labels in merged.items()]


GATED = (
    "passed, but earns no points: its right answer is the same for every case, so it scores only "
    "when the randomised check passes too"
)


NOT_SCORED = "not scored: "  # the prefix helpers.grade.scoring gives a check that carries no points
_FAILED = re.compile(r"^(?:not scored: )?failed on (\d+) of (\d+) cases \(.*?\); e\.g\. (.*)$", re.DOTALL)


def check_outcome(check: dict, reason: str | None = None) -> tuple[str, str]:
    """``(how many cases, outcome)`` of one check for the learner; checks with one outcome share a line.

    Examples
    --------
    >>> check_outcome({"passed": True, "points": 1.0, "max_points": 1.0, "feedback": "passed (8 cases)"})
    ('', 'passed')
    >>> check_outcome({"passed": False, "hidden": True, "points": 0, "max_points": 1,
    ...                "feedback": "failed on 2 of 5 cases (x); e.g. raised KeyError"})
    ('', 'failed')
    >>> check_outcome({"passed": False, "points": 0, "max_points": 0,
    ...                "feedback": "not scored: failed on 1 of 2 cases (x); e.g. wrong value"})
    ('1 of 2 cases', 'failed: wrong value')
    """
    if check["passed"]:
        if check["max_points"] > 0 and check["points"] == 0:
            return "", GATED
        return "", "passed" if check["max_points"] > 0 else "passed (not scored)"
    if check.get("hidden"):
        return "", HIDDEN_FAILED
    text = check["feedback"]
    found = _FAILED.match(text)
    if found:
        return f"{found.group(1)} of {found.group(2)} cases", f"failed: {found.group(3)}"
    if text in (reason, f"{NOT_SCORED}{reason}"):
        return "", "failed"
    return "", f"failed: {text.removeprefix(NOT_SCORED).removeprefix('failed: ')}"


def check_rows(q: dict) -> list[tuple[str, str, str]]:
    """``(check name, kind and counts, outcome)`` per check, plain text (the caller makes it inert)."""
    rows = []
    for check in q.get("checks", []):
        counts, outcome = check_outcome(check, q.get("reason"))
        kind = "hidden" if check.get("hidden") else "public"
        rows.append((check["name"], f"{kind}{', ' + counts if counts else ''}", outcome))
    return rows


def _example_lines(examples: list[dict]) -> list[str]:
    lines = []
    for e in examples:
        got = "" if e.get("got") is None else f", got {inert.md_code(e['got'])}"
        lines.append(f"  - {inert.md_code(e['input'])}: expected {inert.md_code(e['expected'])}{got}")
    return lines


def _check_lines(q: dict, examples: list[list[dict]]) -> list[str]:
    """One line per distinct outcome (checks that failed for one reason are listed together), then the
    failed worked examples with input, expected and (where safe) got."""
    rows = [
        (f"{inert.md_code(name)} ({inert.md_text(how)})", outcome) for name, how, outcome in check_rows(q)
    ]
    lines = [f"- {inert.md_text(outcome)}: {labels}" for labels, outcome in collapse(rows)]
    public = [line for shown in examples for line in _example_lines(shown)]
    if public:
        lines += ["- worked examples of the notebook that failed:", *public]
    if any(e.get("got") is None for shown in examples for e in shown):
        lines.append(f"- {inert.md_text(GOT_WITHHELD)}")
    return lines


def _question_lines(q: dict, examples: list[list[dict]], submission_reason: str) -> list[str]:
    result, reason = question_result(q)
    if q.get("status") == "needs grading":
        result, reason = "needs grading", BY_INSTRUCTOR
    head = (
        f"### {inert.md_text(q.get('title', q['target']))} ({inert.md_code(q['target'])}): "
        f"{_points(q['points'])} / {_points(q['max_points'])} — {inert.md_text(result)}"
    )
    lines = [head, ""]
    if reason and reason.removeprefix("did not report: ").removeprefix("not graded: ") != submission_reason:
        lines += [inert.md_text(reason), ""]
    if q.get("kind") == "value":
        lines += [f"- {inert.md_text(REDRAWN)}"]
    lines += _check_lines(q, examples)
    errors = error_types(q)
    if errors:
        lines.append(f"- errors raised: {', '.join(inert.md_code(e) for e in errors.split(', '))}")
    return [*lines, ""]


def _cell_error_line(err: dict) -> str:
    """A cell error: where, the exception's type, and for a syntax error its message.

    Who found the error decides what is shown (``by``), never its text, which a notebook can
    forge (red team 9: an exception class named like the grader's own note). The grader's parse
    (``parse``) found a syntax error in the learner's own cell: its message is shown. The grader
    saw a cell not finish (``grader``): its note is shown. Anything else was raised by the run:
    its type only (its message is whatever the notebook's code put there).
    """
    text = str(err.get("error", ""))
    line = f", line {inert.md_text(err['line'])}" if err.get("line") else ""
    where = f"cell {inert.md_text(err.get('cell'))}{line}"
    if err.get("by") == "parse":
        return f"- {where}: {inert.md_code(text.removesuffix(' (cell skipped)'))} (the cell was skipped)"
    if err.get("by") == "grader":
        return f"- {where}: {inert.md_text(text)}"
    return f"- {where}: raised {inert.md_code(inert.exception_label(text))}"


def feedback_markdown(report: dict, learner: Learner | None, file: str, title: str) -> str:
    """The Markdown a learner reads: score, status, and per question its result, reason and checks.

    Every learner-controlled string (file and learner names, check outcomes, examples, exception
    names) is a code span or escaped text (:mod:`helpers.grade.inert`); a reason repeated by
    every question (a notebook that did not run) is said once.

    Parameters
    ----------
    report : dict
        The submission's JSON report.
    learner : Learner or None
        Whose it is (None: the file name stands for the learner).
    file : str
        The file's display name.
    title : str
        The assignment's title.

    Returns
    -------
    str
        The Markdown file's text.

    Examples
    --------
    >>> from helpers.grade.assignments import ASSIGNMENTS
    >>> from helpers.grade.scoring import fail_question
    >>> q = ASSIGNMENTS["from-scratch"].question("precision_at_k")
    >>> report = {"score": 0.0, "max_score": 2.0, "questions": [fail_question(q, "not defined", "missing")]}
    >>> text = feedback_markdown(report, None, "hw1 [x](javascript:1).ipynb", "From scratch")
    >>> print(text.splitlines()[0])  # the learner's file name is a code span: no link
    # From scratch: feedback for ` hw1 [x](javascript:1).ipynb `
    """
    status, reason = submission_status(report)
    who = f"{learner.name} ({learner.id})" if learner else file
    lines = [
        f"# {inert.md_text(title)}: feedback for {inert.md_code(who)}",
        "",
        f"- file: {inert.md_code(file)}",
        f"- score: **{_points(report['score'])} / {_points(report['max_score'])}**",
        f"- status: {inert.md_text(status)}" + (f" — {inert.md_text(reason)}" if reason else ""),
        "",
        "Only hidden checks score; they draw new inputs at grading, so their inputs and expected",
        "values are never shown. Public checks are the notebook's worked examples.",
        "",
    ]
    cell_lines = [_cell_error_line(err) for err in report.get("cell_errors", [])]
    lines += [line for line, _ in collapse([(x, x) for x in cell_lines])][:10]
    lines += [f"- note: {inert.md_text(w)}" for w in dict.fromkeys(report.get("warnings", []))][:10]
    lines.append("")
    questions = report.get("questions", [])
    for q, examples in zip(questions, learner_examples(questions), strict=True):
        lines.extend(_question_lines(q, examples, reason))
    return "\n".join(lines).rstrip("\n") + "\n"
