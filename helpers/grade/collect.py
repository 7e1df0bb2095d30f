"""Where the notebooks to grade come from: files, folders and the downloads learning platforms hand over.

:func:`collect` turns the command line's paths into a :class:`Collection`. It accepts

- as plain paths: single notebooks, and flat folders and zips of them (every ``*.ipynb`` entry,
  whatever its type: :mod:`helpers.grade.files` refuses a symlink, FIFO or device when it reads it;
  a zip whose only entry is a folder is read as that folder). Each file is known by its name only;
- and each platform's download, **given as such** by the instructor (the command line's options):
  - ``learner_folders`` (``--learner-folders``): a folder of per-learner folders (``ann/hw.ipynb``,
    ``s02/hw.ipynb``): the folder's name is matched against the roster's ``id``, ``login`` and
    ``canvas_id``;
  - ``canvas`` (``--canvas``): Canvas's bulk download (the zip, or the folder it unpacks to): Canvas
    names each file ``<name>_[LATE_]<user id>_<submission id>_<original name>`` (``<name>`` is the
    learner's name, lower-case and run together; ``-1``, ``-2`` end a resubmitted original name).
    The user id is matched against the roster's ``canvas_id``, then ``<name>`` against ``login``;
    only then the whole file name against the roster's ``file`` patterns;
  - ``gradescope`` (``--gradescope``): Gradescope's "Export Submissions" (the zip, or its folder):
    ``submission_metadata.yml`` maps each ``submission_<id>`` folder to its submitters (``:sid``
    matched against ``id``, ``:email`` against ``login``) and its time (``:created_at``); a group
    submission counts for each submitter.

Decisions, written down here and tested in ``tests/grade/test_collect.py``:

- **Nothing is ever scored as somebody else's.** A file that matches no roster entry is in
  :attr:`Collection.unmatched`, one that matches several (at the rule that decides, see
  :meth:`helpers.grade.reports.Roster.match_all`) in :attr:`Collection.ambiguous`.
- **A claim by the platform beats a claim by a name; two claims of one kind are a conflict.** A
  file is identified by the platform (Canvas's user id or name in a source the instructor gave as
  Canvas's download; Gradescope's submitters; a per-learner folder's name: nothing a learner types)
  or by its file name (a roster pattern). When several files claim one
  learner, the platform's wins over names (those files are unmatched, saying why); otherwise none
  of them is assigned: each is in
  :attr:`Collection.unassigned` with :attr:`Submission.contested` set to the learner, so the
  grader keeps that learner's earlier result, marks their row ``conflict`` (never 0, even with
  ``--missing-zero``) and says which files to rename or remove. A second file never takes a
  classmate's place, nor costs the classmate a grade. Look-alike names (equal once
  NFC-normalised) are no conflict: the one spelled exactly as the roster's ``file`` keeps the learner.
- **Matching uses what the platform controls before what a learner typed**: Canvas's user id
  and Gradescope's ``:sid`` come before any file-name pattern.
- **Only the instructor says which source is which platform's** (red teams 39, 40). A download's
  shape is something any learner can make: an emailed ``bsmith_102_1_hw.ipynb`` saved beside
  Canvas's late download made the folder look like Canvas's and took Bo's row; a folder named
  ``bsmith/`` or a ``submission_metadata.yml`` among files learners named did the same. In a plain
  source a Canvas-shaped name is a file name like any other (the roster's ``file`` patterns only,
  no ``LATE``, no ``canvas:`` key; a note says to give the download with ``--canvas`` if it is
  one), a folder inside is refused (:data:`NESTED_FOLDER`), and a metadata file is a file.
  Whatever is saved into a download's folder is read as the platform's.
- **Archives are read, never trusted**: a member with an absolute path or ``..`` (zip-slip),
  a symbolic link, a nested archive, a member larger than :attr:`ArchiveLimits.member_bytes`
  (counted while extracting, not from the header), or an archive of more than
  :attr:`ArchiveLimits.members` entries or :attr:`ArchiveLimits.total_bytes` is refused with
  the reason; files are extracted with ``O_EXCL | O_NOFOLLOW`` into ``workdir`` only.
- **Submission times only from the platform**: Gradescope's ``:created_at`` (made UTC). Canvas's
  file names carry a ``LATE`` marker but no time, so ``submitted_at`` is ``None`` for them and a
  note in :attr:`Collection.notes` says so; file times on disk are never used (a copy resets them).
- ``.ipynb_checkpoints`` and ``__MACOSX`` entries are skipped (Jupyter's and macOS's copies,
  never a submission); other non-notebook files of an archive or a learner's folder are refused
  with "not a notebook", those of a flat folder (a roster, a README) are ignored.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import stat
import sys
import unicodedata
import zipfile
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from .files import display_name, exact_name
from .reports import Learner, Roster

__all__ = [
    "ArchiveLimits",
    "Collection",
    "Submission",
    "collect",
    "parse_canvas_name",
    "canvas_readings",
    "CanvasName",
    "extract_zip",
    "instructor_lines",
    "from_command_line",
    "assigned_roster",
]

SKIPPED = (".ipynb_checkpoints", "__MACOSX")
GRADESCOPE_METADATA = "submission_metadata.yml"
#: what follows the name part of a Canvas download's file name (Canvas's ``content_zipper``): the name is
#: the learner's sortable name, lower-cased, word characters kept (underscores and digits included)
#: the uploaded (original) name is the learner's: any character, a line feed too (red team 49)
_CANVAS_REST = re.compile(
    r"(?:(?P<late>LATE)_)?(?P<user>\d+)_(?P<submission>\d+)_(?P<original>.+)", re.DOTALL
)
_RESUBMITTED = re.compile(r"-\d+(?=\.ipynb$)")
PLATFORM, NAME = "platform", "name"  # how a file names its learner (see the module's decisions)
#: what the instructor says a source is (the command line's options; a plain path is PLAIN)
PLAIN, CANVAS, GRADESCOPE, FOLDERS = "plain", "canvas", "gradescope", "learner-folders"
DOWNLOAD_ONLY = {
    CANVAS: "--canvas takes Canvas's bulk download: its zip, or the folder it unpacks to",
    GRADESCOPE: "--gradescope takes Gradescope's Export Submissions: its zip, or the folder it unpacks to",
    FOLDERS: "--learner-folders takes a folder (or a zip) holding one folder per learner",
}
#: why a folder inside a source is not read: only a source given with --learner-folders has learners' folders
NESTED_FOLDER = {
    PLAIN: "a folder inside a folder or zip of notebooks is not read (its name is not the platform's "
    "word): give a folder of per-learner folders with --learner-folders, Gradescope's export with "
    "--gradescope",
    CANVAS: "a folder inside Canvas's download (Canvas's zip holds none): not read",
}


# ------------------------------------------------------------------ the interface (g-interfaces.md)
@dataclass(frozen=True)
class Submission:
    """One notebook to grade, and whose it is.

    Parameters
    ----------
    path : pathlib.Path
        The notebook to grade (extracted into the run's private work folder if it came in a zip).
    display : str
        The name as the LMS handed it over (learner-controlled: data, never markup).
    learner : str or None
        The roster id it matched; None when no roster was given or it matched nobody.
    submitted_at : datetime or None
        Timezone-aware UTC, from the LMS's metadata when it gives one, else None (file times on
        disk are never used).
    lms_late : bool or None
        Canvas's LATE marker for a Canvas file; None elsewhere.
    contested : str or None
        The roster id this file claims together with other files of the same kind (a conflict: the
        file is nobody's, and that learner keeps their earlier result); None otherwise.
    key : str
        Who the platform says handed the file in, for a file no roster id names: ``canvas:`` and
        Canvas's user id (in a download given with ``--canvas``), ``folder:`` and a per-learner folder's name,
        ``gradescope:`` and the submitters' ids (``sid=``, else ``email=``); empty when only the
        file's own name says (:func:`helpers.grade.grader.no_roster_key`). Never a container's name
        (a zip, the folder given) nor a per-submission id, so a re-download or a resubmission is the
        same learner.
    origin : str
        Where the instructor gave the file: its absolute path, or for a file extracted from a zip the
        JSON pair ``["<the zip's absolute path>", "<member>"]`` (never the run's temporary folder, and
        never equal to a path: red team 45), so that a name derived from it is the same in every
        run of the same command (red team 44).

    Examples
    --------
    >>> Submission(Path("ann.ipynb"), "ann.ipynb", "s1", None).learner
    's1'
    """

    path: Path  # the notebook to grade (extracted into the run's private work folder if it came in a zip)
    display: str  # the name as the LMS handed it over (learner-controlled: data, never markup)
    learner: str | None  # the roster id it matched; None when no roster was given
    submitted_at: datetime | None  # timezone-aware UTC, from the LMS's metadata when it gives one, else None
    lms_late: bool | None = None  # Canvas's LATE marker (True/False) for a Canvas file; None elsewhere
    # the roster id this file claims together with other files (a conflict: it is nobody's); else None
    contested: str | None = None
    key: str = ""  # who the platform says it is, without a roster id (canvas:, folder:, gradescope:)
    origin: str = ""  # where the instructor gave it: the absolute path, or ``["<zip's path>", "<member>"]``


@dataclass(frozen=True)
class Collection:
    """What :func:`collect` found: submissions, and what the instructor must look at.

    Parameters
    ----------
    submissions : list of Submission
        The files to grade as somebody's (or everybody's files, without a roster).
    unmatched : list of (str, str)
        Names that matched no roster entry, and why.
    ambiguous : list of (str, list of str)
        Names that match several roster entries, with those ids: never graded as anybody's, so
        a file cannot be named to take a classmate's credit.
    refused : list of (str, str)
        Names refused before grading (zip-slip, symlink, nested zip, not a notebook...), and why.
    notes : list of str
        Facts about the sources (e.g. Canvas gives no times).
    unassigned : list of Submission
        The files of ``unmatched`` and ``ambiguous`` as submissions of nobody: an instructor may
        grade them to look at, never to credit anyone.

    Examples
    --------
    >>> Collection([], [("x.ipynb", "no roster entry matches it")], [], []).unmatched[0][0]
    'x.ipynb'
    """

    submissions: list[Submission]
    unmatched: list[tuple[str, str]]  # (name as handed over, why it matched no roster entry)
    ambiguous: list[tuple[str, list[str]]]  # (name, the roster ids it matches): never graded as anybody's
    refused: list[tuple[str, str]]  # (name, reason): zip-slip, symlink, nested zip, not a notebook...
    notes: list[str] = field(default_factory=list)  # facts about the sources (e.g. Canvas gives no times)
    # the files of `unmatched` and `ambiguous`, as submissions of nobody (learner None): an instructor
    # may grade them to look at, never to credit anyone
    unassigned: list[Submission] = field(default_factory=list)

    def conflicts(self) -> dict[str, list[str]]:
        """Each roster id that several files claim (none assigned), with those files' names."""
        out: dict[str, list[str]] = {}
        for sub in self.unassigned:
            if sub.contested is not None:
                out.setdefault(sub.contested, []).append(sub.display)
        return out


@dataclass(frozen=True)
class ArchiveLimits:
    """Bounds on one archive: how many entries, how large each notebook, how much in all.

    Only notebooks (and Gradescope's ``submission_metadata.yml``) are extracted, each folder's first
    notebook before any folder's second, so what one learner adds to a download (a committed
    ``node_modules/``, extra notebooks) costs that learner's own files first (red team 46).

    Parameters
    ----------
    members : int
        Entries in one archive, folders included: more is refused as a whole (its directory alone is
        the cost), so the bound is far above any class's download.
    member_bytes : int
        Bytes of one extracted notebook (the grader's own limit on a submission).
    total_bytes : int
        Bytes extracted from one archive in all.

    Examples
    --------
    >>> ArchiveLimits().member_bytes == 25 * 2**20
    True
    """

    members: int = 1_000_000
    member_bytes: int = 25 * 2**20
    total_bytes: int = 2 * 2**30


@dataclass(frozen=True)
class CanvasName:
    """The parts of a Canvas bulk-download file name.

    Parameters
    ----------
    name : str
        The learner's name as Canvas wrote it (lower case, no spaces).
    late : bool
        Whether Canvas marked the submission LATE.
    user_id, submission_id : str
        Canvas's numeric ids.
    original : str
        The file name the learner uploaded, without Canvas's ``-1`` resubmission counter.

    Examples
    --------
    >>> parse_canvas_name("ann_1234_98765_hw1.ipynb").user_id
    '1234'
    """

    name: str
    late: bool
    user_id: str
    submission_id: str
    original: str


def parse_canvas_name(file_name: str) -> CanvasName | None:
    """The parts of a Canvas bulk-download name, or ``None`` when it is not one.

    Parameters
    ----------
    file_name : str
        A file's base name.

    Returns
    -------
    CanvasName or None
        Its parts, or None for a name Canvas did not write.

    Examples
    --------
    >>> parse_canvas_name("leeann_LATE_1234_98765_from-scratch-1.ipynb")
    CanvasName(name='leeann', late=True, user_id='1234', submission_id='98765', original='from-scratch.ipynb')
    >>> parse_canvas_name("from-scratch.ipynb") is None
    True
    """
    readings = canvas_readings(file_name)
    return readings[0] if readings else None


def canvas_readings(file_name: str) -> list[CanvasName]:
    """Every way a file name reads as Canvas's ``name_[LATE_]userid_submissionid_original``, the
    shortest name part first. The name part may hold underscores and digits (``o_brien``,
    ``mallory_101``) and the original name too, so one file name can read several ways (red team 34:
    ``mallory_101_202_9002_hw.ipynb`` read as user 101, a classmate).

    Parameters
    ----------
    file_name : str
        A file's base name.

    Returns
    -------
    list of CanvasName
        The readings (Canvas writes the name part in lower case); empty for a name Canvas did not write.

    Examples
    --------
    >>> [r.user_id for r in canvas_readings("mallory_101_202_9002_hw.ipynb")]
    ['101', '202']
    >>> [r.name for r in canvas_readings("o_brien_104_9004_hw.ipynb")]
    ['o_brien']
    """
    out = []
    for i, c in enumerate(file_name):
        match = _CANVAS_REST.fullmatch(file_name, i + 1) if c == "_" else None
        name = file_name[:i]
        if match and "/" not in file_name and name == name.lower():
            original = _RESUBMITTED.sub("", match["original"])
            out.append(CanvasName(name, bool(match["late"]), match["user"], match["submission"], original))
    return out


# ------------------------------------------------------------------ collecting
@dataclass
class _Found:
    """One candidate before the roster's cross-checks: a file and the learners it names."""

    path: Path
    display: str
    learners: list[Learner] | None  # None: no roster; []: unmatched
    why: str = ""  # why unmatched
    submitted_at: datetime | None = None
    lms_late: bool | None = None
    by: str = PLATFORM  # what identified the learners: PLATFORM (nothing a learner types) or NAME
    key: str = ""  # the platform's identity of the file's learner (Submission.key)
    origin: str = ""  # Submission.origin, set when the collection is finished


@dataclass
class _Builder:
    roster: Roster | None
    workdir: Path
    limits: ArchiveLimits
    found: list[_Found] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    archives: int = 0
    unpacked: dict[Path, Path] = field(default_factory=dict)  # an archive's folder in workdir -> the zip

    def add(self, path: Path, display: str, learners: list[Learner] | None, why: str = "", **extra) -> None:
        self.found.append(_Found(path, display, None if self.roster is None else learners, why, **extra))

    def by_canvas_name(self, path: Path, display: str, why: str, **extra) -> None:
        """Add a file of Canvas's download that no Canvas user id claims, by its name: the file
        patterns of roster rows with no ``canvas_id`` only. A row with one is claimed by that user id
        alone, since the name's uploaded part is the learner's (red team 49: an off-roster or
        unreadable upload named ``x_s102_.ipynb`` took the row whose pattern is ``*_s102_*.ipynb``)."""
        if self.roster is None:
            self.add(path, display, None, **extra)
            return
        matched = self.roster.match_all(path.name)
        found = [x for x in matched if not x.canvas_id]
        if matched and not found:
            ids = ", ".join(x.id for x in matched[:5])
            why = f"{why}; its name matches the file pattern of {ids}, claimed only by their canvas_id"
        self.add(path, display, found, "" if found else why, by=NAME, **extra)

    def by_name(self, path: Path, display: str, why: str = "", **extra) -> None:
        """Add a file identified by its name (the roster's file patterns), with ``why`` when unmatched."""
        if self.roster is None:
            self.add(path, display, None, **extra)
            return
        found = self.roster.match_all(path.name)
        why = why or "no roster entry's file pattern matches the name"
        self.add(path, display, found, "" if found else why, by=NAME, **extra)


def collect(
    sources: Sequence[Path | str],
    roster: Roster | None,
    workdir: Path,
    limits: ArchiveLimits | None = None,
    *,
    canvas: Sequence[Path | str] = (),
    gradescope: Sequence[Path | str] = (),
    learner_folders: Sequence[Path | str] = (),
) -> Collection:
    """The submissions in ``sources`` and the platforms' downloads, matched to ``roster``.

    Archives are extracted into ``workdir`` (which must exist and stay until grading ends). Only a
    download given as the platform's says who handed a file in (the module's decisions).

    Parameters
    ----------
    sources : sequence of pathlib.Path or str
        Notebooks, and flat folders and zips of notebooks: each file is known by its name only.
    roster : Roster or None
        Who the submissions belong to; None grades every file as nobody's.
    workdir : pathlib.Path
        An existing private folder for extracted archives.
    limits : ArchiveLimits, optional
        Bounds on each archive (the defaults when None).
    canvas : sequence of pathlib.Path or str, optional
        Canvas's bulk downloads (zips, or the folders they unpack to).
    gradescope : sequence of pathlib.Path or str, optional
        Gradescope's "Export Submissions" (zips or folders holding ``submission_metadata.yml``).
    learner_folders : sequence of pathlib.Path or str, optional
        Folders (or zips) of per-learner folders, each named by a roster ``id``, ``login`` or
        ``canvas_id`` (nbgrader's, GitHub Classroom's layout).

    Returns
    -------
    Collection
        The submissions and everything that was not assigned or was refused.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> for name in ("ann.ipynb", "x_s2_s3.ipynb", "zed.ipynb"):
    ...     _ = (folder / name).write_text("{}")
    >>> roster = Roster.from_text("file,id\\nann.ipynb,s1\\n*_s2*.ipynb,s2\\n*_s3*.ipynb,s3\\n")
    >>> c = collect([folder], roster, folder)
    >>> [(s.display, s.learner) for s in c.submissions], c.ambiguous
    ([('ann.ipynb', 's1')], [('x_s2_s3.ipynb', ['s2', 's3'])])
    >>> c.unmatched
    [('zed.ipynb', "no roster entry's file pattern matches the name")]
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "ann_101_9001_hw.ipynb").write_text("{}")
    >>> roster = Roster.from_text("file,id,canvas_id\\nann.ipynb,s1,101\\n")
    >>> [s.learner for s in collect([], roster, folder, canvas=[folder]).submissions]
    ['s1']
    """
    build = _Builder(roster, Path(workdir), limits or ArchiveLimits())
    given = [(PLAIN, sources), (CANVAS, canvas), (GRADESCOPE, gradescope), (FOLDERS, learner_folders)]
    for kind, paths in given:
        for path in paths:
            _source(build, Path(path), kind)
    return _finish(build)


def _source(build: _Builder, path: Path, kind: str) -> None:
    if path.is_dir() and not path.name.endswith(".ipynb"):
        _folder(build, path, "", archive=False, kind=kind)  # names inside as they are (the instructor's)
    elif path.suffix.lower() == ".zip":
        _zip_source(build, path, kind)
    elif kind != PLAIN:
        build.refused.append((display_name(path), DOWNLOAD_ONLY[kind]))
    else:
        build.by_name(path, display_name(path))


def _entries(folder: Path) -> list[os.DirEntry]:
    with os.scandir(folder) as it:
        return sorted((e for e in it if e.name not in SKIPPED), key=lambda e: os.fsencode(e.name))


def _gradescope_root(folder: Path, entries: list[os.DirEntry], archive: bool) -> Path | None:
    """Where ``submission_metadata.yml`` is: the folder itself or, in an archive, its one top folder."""
    if (folder / GRADESCOPE_METADATA).is_file():
        return folder
    inner = [e for e in entries if e.is_dir(follow_symlinks=False)]
    if archive and len(entries) == 1 and inner and (Path(inner[0].path) / GRADESCOPE_METADATA).is_file():
        return Path(inner[0].path)
    return None


def _folder(build: _Builder, folder: Path, prefix: str, *, archive: bool, kind: str) -> None:
    """A folder given (or a zip's contents) read as ``kind`` says: a flat folder of notebooks
    (``PLAIN``), Canvas's download, Gradescope's export, or a folder of per-learner folders."""
    entries = _entries(folder)
    if kind == GRADESCOPE:
        _gradescope_export(build, folder, prefix, entries, archive)
        return
    if kind == PLAIN:
        folder, prefix, entries = _unwrapped(folder, prefix, entries, archive)
        _canvas_shaped_note(build, folder, prefix, entries)
    late = sum(_folder_entry(build, entry, prefix, archive, kind) for entry in entries)
    if late:
        build.notes.append(
            f"{_where(folder, prefix)}: {late} Canvas file(s) are marked LATE; Canvas's file names carry "
            "no submission "
            "time, so their submitted_at is unknown: take the times from Canvas's gradebook or "
            "submission export for the late policy"
        )


def _unwrapped(
    folder: Path, prefix: str, entries: list[os.DirEntry], archive: bool
) -> tuple[Path, str, list[os.DirEntry]]:
    """A zip whose only entry is a folder (``hw1/...``, as "Compress" makes a folder's zip) is read as
    that folder's notebooks."""
    if archive and len(entries) == 1 and entries[0].is_dir(follow_symlinks=False):
        inner = Path(entries[0].path)
        return inner, prefix + display_name(inner.name) + "/", _entries(inner)
    return folder, prefix, entries


def _gradescope_export(
    build: _Builder, folder: Path, prefix: str, entries: list[os.DirEntry], archive: bool
) -> None:
    root = _gradescope_root(folder, entries, archive)
    if root is None:
        where = _where(folder, prefix)
        build.refused.append((where, f"no {GRADESCOPE_METADATA} in it: it is not Gradescope's export"))
        return
    _gradescope(build, root, prefix + ("" if root == folder else display_name(root.name) + "/"))


def _canvas_shaped_note(build: _Builder, folder: Path, prefix: str, entries: list[os.DirEntry]) -> None:
    """Say so when a source not given as Canvas's download has notebooks named as Canvas names them:
    their names are read as any file name (red team 39: anybody can type one)."""
    shaped = sum(1 for e in entries if e.name.endswith(".ipynb") and canvas_readings(e.name))
    if shaped:
        build.notes.append(
            f"{_where(folder, prefix)}: {shaped} notebook(s) are named like Canvas's download, but it was "
            "not given as one: their names are matched to the roster's file patterns only; if it is "
            "Canvas's download, give it with --canvas (and only Canvas's own files in it)"
        )


def _where(folder: Path, prefix: str) -> str:
    """How a note names a source: the zip (``prefix`` is ``"name.zip/"``) or the folder given."""
    return prefix.removesuffix("/") or display_name(folder)


def _folder_entry(build: _Builder, entry: os.DirEntry, prefix: str, archive: bool, kind: str) -> int:
    """One entry of a submissions folder; returns 1 for a Canvas file marked LATE."""
    shown = prefix + display_name(entry.name)
    if entry.name.endswith(".ipynb"):  # whatever its type: files.py refuses a folder, FIFO or link by name
        if kind == CANVAS:
            return _canvas_file(build, Path(entry.path), shown)
        build.by_name(Path(entry.path), shown)
    elif entry.is_dir(follow_symlinks=False):
        if kind == FOLDERS:
            _learner_folder(build, Path(entry.path), shown + "/")
        else:
            build.refused.append((shown + "/", NESTED_FOLDER[kind]))
    elif entry.name.lower().endswith(".zip"):
        build.refused.append((shown, "a zip inside the submissions (nested archives are not opened)"))
    elif entry.name.lower().endswith(".ipynb"):  # Bob.IPYNB: a notebook by its name, never silently left out
        build.refused.append(
            (shown, "the extension is not '.ipynb' in lower case: rename the file and grade it")
        )
    elif archive:
        build.refused.append((shown, "not a notebook (.ipynb)"))
    return 0


def _canvas_file(build: _Builder, path: Path, shown: str) -> int:
    """A notebook at the top of Canvas's download (as the instructor declared it). Returns 1 if marked
    LATE.

    Its Canvas name is the platform's claim when it reads one way (:func:`canvas_readings`); a name
    with no reading (a file the instructor added) is matched by the file patterns of the roster's rows
    with no ``canvas_id`` (:meth:`_Builder.by_canvas_name`).
    """
    readings = canvas_readings(path.name)
    if not readings:
        build.by_canvas_name(
            path, shown, "not a Canvas name, and no file pattern of a row without a canvas_id matches"
        )
        return 0
    canvas = _one_reading(readings)
    if canvas is None:
        _ambiguous(build, path, shown, readings)
        return int(readings[0].late)
    found = _canvas_learners(build.roster, canvas)
    if found or build.roster is None:
        build.add(path, shown, found, lms_late=canvas.late, key=f"canvas:{canvas.user_id}")
    else:  # the whole name against the file patterns: a claim by a name (the original is the learner's)
        why = (
            f"Canvas user id {canvas.user_id} is in no roster row (canvas_id), and no row without a "
            f"canvas_id has the login {canvas.name!r} or a file pattern that matches"
        )
        build.by_canvas_name(path, shown, why, lms_late=canvas.late)
    return int(canvas.late)


def _one_reading(readings: list[CanvasName]) -> CanvasName | None:
    """The one reading of a Canvas name, or ``None`` when there are several: the name part (a sortable
    name learners may edit: red team 34) and the original name (what the learner uploaded: red team
    36) can both hold ``_<id>_<id>_``, so no reading, not even the only one a roster row has, is the
    platform's word."""
    return readings[0] if len(readings) == 1 else None


def _ambiguous(build: _Builder, path: Path, shown: str, readings: list[CanvasName]) -> None:
    """A Canvas name that reads as several learners: nobody's claim (no roster: no ``canvas:`` key)."""
    ids = ", ".join(r.user_id for r in readings)
    why = f"the Canvas name reads as several user ids ({ids}): check in Canvas who handed it in"
    build.notes.append(f"{shown}: {why}; graded for nobody's Canvas id")
    build.add(path, shown, [], why, lms_late=readings[0].late, by=NAME)


def _canvas_learners(roster: Roster | None, canvas: CanvasName) -> list[Learner] | None:
    """The learners Canvas's own parts of the name identify: the user id, else the name as ``login``
    of a row with no ``canvas_id``. The name part is the learner's sortable name, which a learner may
    edit: it never names a row whose Canvas user id is another (red team 42: an off-roster learner
    named ``bsmith`` took Bo's row, whose ``canvas_id`` is 102)."""
    if roster is None:
        return None
    by_login = [x for x in roster.with_field("login", canvas.name) if not x.canvas_id]
    return roster.with_field("canvas_id", canvas.user_id) or by_login


def _learner_folder(build: _Builder, folder: Path, prefix: str) -> None:
    """One learner's folder: its name says who (id, login or canvas_id); a folder that names nobody
    claims nobody, whatever its files are named (a learner names them)."""
    owners = build.roster.identify(folder.name) if build.roster is not None else None
    key = "folder:" + exact_name(folder.name)
    folders: list[tuple[str, str]] = []  # listed a few, then counted (red team 49: as in a zip)
    others: list[tuple[str, str]] = []
    for entry in _entries(folder):
        shown = prefix + display_name(entry.name)
        if entry.is_dir(follow_symlinks=False):
            folders.append((shown + "/", "a folder inside a learner's folder (only one level is read)"))
        elif not entry.name.endswith(".ipynb"):
            others.append((shown, "not a notebook (.ipynb)"))
        else:  # the platform's word: a folder that names nobody claims nobody (red team 50)
            why = (
                f"the folder {display_name(folder.name)!r} is no roster id, login or canvas_id (add it "
                "to the learner's row as login; a file's name is never read in a learner's folder)"
            )
            build.add(Path(entry.path), shown, owners, "" if owners else why, key=key)
    build.refused += _some_lines(folders + others, prefix, "entries not read")


# ------------------------------------------------------------------ Gradescope
def _gradescope(build: _Builder, folder: Path, prefix: str) -> None:
    metadata = _read_metadata(folder / GRADESCOPE_METADATA)
    if isinstance(metadata, str):
        build.refused.append((prefix + GRADESCOPE_METADATA, metadata))
        return
    for entry in _entries(folder):
        shown = prefix + display_name(entry.name)
        if entry.name == GRADESCOPE_METADATA:
            continue
        record = metadata.get(entry.name)
        if not entry.is_dir(follow_symlinks=False) or not isinstance(record, dict):
            build.refused.append((shown, f"not a submission folder listed in {GRADESCOPE_METADATA}"))
            continue
        notebooks = [e for e in _entries(Path(entry.path)) if e.name.endswith(".ipynb")]
        if len(notebooks) != 1:
            names = ", ".join(display_name(e.name) for e in notebooks[:5]) or "none"
            build.refused.append(
                (shown + "/", f"a Gradescope submission needs exactly one notebook (found {names})")
            )
            continue
        _gradescope_submission(
            build, Path(notebooks[0].path), shown + "/" + display_name(notebooks[0].name), record
        )


def _submitters_key(submitters: list[dict]) -> str:
    """Who a Gradescope export's submission is without a roster: its submitters' ids (else emails),
    sorted; empty when one has neither. Each id is kept as Gradescope spelled it (no Unicode
    normalisation: red team 51), with ``%``, ``,`` and lone surrogates written ``%XX``, so no
    learner's id spells another's or a group's key (red team 50: the id ``al,sid=bo``).

    Examples
    --------
    >>> _submitters_key([{":sid": "bo"}, {":sid": "al"}])
    'gradescope:sid=al,sid=bo'
    >>> _submitters_key([{":sid": "al,sid=bo"}])
    'gradescope:sid=al%2Csid=bo'
    >>> _submitters_key([{":sid": "jose\u0301"}]) == _submitters_key([{":sid": "jos\u00e9"}])
    False
    """
    ids = sorted(
        f"sid={s[':sid']}" if s.get(":sid") else f"email={s[':email']}" if s.get(":email") else ""
        for s in submitters
    )
    return "gradescope:" + ",".join(map(_key_text, ids)) if ids and all(ids) else ""


def _key_text(text: str) -> str:
    """``text`` as it is, with ``%``, ``,`` and lone surrogates written ``%XX`` (``%`` always is, so
    two texts never read alike)."""
    return "".join(f"%{ord(c):02X}" if c in "%," or 0xD800 <= ord(c) < 0xE000 else c for c in text)


def _gradescope_submission(build: _Builder, path: Path, shown: str, record: dict) -> None:
    when = _utc(record.get(":created_at"))
    submitters = [s for s in record.get(":submitters") or [] if isinstance(s, dict)]
    if build.roster is None or not submitters:
        key = _submitters_key(submitters)
        build.add(
            path, shown, [] if submitters == [] else None, "no submitter listed", submitted_at=when, key=key
        )
        return
    for person in submitters:
        sid, email = str(person.get(":sid") or ""), str(person.get(":email") or "")
        learners = build.roster.with_field("id", sid, exact=True) or build.roster.with_field(
            "login", email, exact=True
        )
        why = "" if learners else f"submitter (sid {sid!r}, email {email!r}) is in no roster row (id, login)"
        build.add(path, shown, learners, why, submitted_at=when)


def _read_metadata(path: Path) -> dict | str:
    """Gradescope's ``submission_metadata.yml``, every value as the text Gradescope wrote (YAML's
    base loader): a learner's name or id that YAML 1.1 would read as a date, a number or a base-60
    number (``2001-02-30``, ``1:00:00:00``) is their text, never a classmate's id nor an error that
    refuses the whole export (red team 52)."""
    try:
        import yaml
    except ImportError:
        return "reading Gradescope's export needs PyYAML: pip install pyyaml"
    try:
        data = yaml.load(_read_bounded(path, 16 * 2**20), Loader=yaml.BaseLoader)  # text only, no tags
    except (OSError, ValueError, RecursionError, yaml.YAMLError) as exc:  # never the parser's text
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        return f"cannot read {GRADESCOPE_METADATA}: {type(exc).__name__}{where}"
    return data if isinstance(data, dict) else f"{GRADESCOPE_METADATA} is not a mapping of submissions"


def _read_bounded(path: Path, limit: int) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError("not a regular file")
        data = os.read(fd, limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise ValueError(f"larger than {limit // 2**20} MiB")
    return data


def _utc(value: object) -> datetime | None:
    """Gradescope's ``:created_at`` (its text, or a YAML timestamp) as an aware UTC time, else ``None``."""
    if isinstance(value, str):
        text = re.sub(r"(\.\d{6})\d+", r"\1", value.strip())  # Ruby writes nanoseconds
        text = re.sub(r"\s+([+-]\d\d):?(\d\d)$", r"\1:\2", text)
        try:
            value = datetime.fromisoformat(text)
        except ValueError:
            return None
    if not isinstance(value, datetime) or value.tzinfo is None:
        return None  # a time without a zone is no time we can compare with a deadline
    return value.astimezone(UTC)


# ------------------------------------------------------------------ zip archives
def _zip_source(build: _Builder, path: Path, kind: str) -> None:
    build.archives += 1
    dest = build.workdir / f"archive-{build.archives}"
    build.unpacked[dest] = Path(os.path.abspath(path))
    shown = display_name(path)
    try:
        refused = extract_zip(path, dest, build.limits, kind)
    except ArchiveError as exc:
        build.refused.append((shown, str(exc)))
        return
    build.refused.extend((f"{shown}/{name}", why) for name, why in refused)
    _folder(build, dest, shown + "/", archive=True, kind=kind)  # "/": no file name holds it (red team 45)


class ArchiveError(ValueError):
    """The archive as a whole cannot be used (the message says why)."""


def _path_problem(name: str) -> str | None:
    """Why a member's path is refused: absolute, escaping with ``..`` (zip-slip), or unusable."""
    parts = PurePosixPath(name.replace("\\", "/")).parts
    if name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name):
        return "an absolute path (refused: it could write outside the work folder)"
    if ".." in parts:
        return "a path with '..' (zip-slip: it could write outside the work folder)"
    if "\0" in name or any(p in ("", ".") for p in parts[:-1]):
        return "an unusable path"
    return None


def _member_problem(info: zipfile.ZipInfo) -> str | None:
    """Why a member is refused before anything is written (``None``: extract it)."""
    mode = info.external_attr >> 16 if info.create_system == 3 else 0  # Unix modes only from Unix zips
    if stat.S_ISLNK(mode):
        return "a symbolic link (never followed)"
    if stat.S_IFMT(mode) and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        return "not a regular file"
    if info.filename.lower().endswith((".zip", ".tar", ".gz", ".tgz", ".7z", ".rar")):
        return "a nested archive (not opened: unpack it and hand in the notebook)"
    return _path_problem(info.filename)


def extract_zip(archive: Path, dest: Path, limits: ArchiveLimits, kind: str = PLAIN) -> list[tuple[str, str]]:
    """Extract ``archive`` into the new folder ``dest``; returns the refused members with their reasons.

    Raises
    ------
    ArchiveError
        For a file that is not a readable zip, or one over :attr:`ArchiveLimits.members` entries.

    Parameters
    ----------
    archive : pathlib.Path
        The zip file.
    dest : pathlib.Path
        A folder that does not exist yet.
    limits : ArchiveLimits
        Bounds on entries and sizes; a member over them is refused, not cut.
    kind : str, optional
        What the archive is (:data:`PLAIN`, :data:`CANVAS`, :data:`GRADESCOPE`, :data:`FOLDERS`): only
        the notebooks the reader of that kind reads are extracted, in the order of
        :func:`_extraction`.

    Returns
    -------
    list of (str, str)
        The refused members and why (a path outside ``dest``, a link, a nested archive, too
        large...).
    """
    try:
        regular = stat.S_ISREG(os.lstat(archive).st_mode)
        zf = zipfile.ZipFile(archive) if regular else None
    except Exception as exc:  # whatever a crafted archive makes zipfile raise (red team 42): refused
        raise ArchiveError(f"not a readable zip archive ({type(exc).__name__})") from None
    if zf is None:
        raise ArchiveError("not a regular file (never followed)")
    with zf:
        infos = zf.infolist()
        if len(infos) > limits.members:
            raise ArchiveError(f"more than {limits.members} entries (refused as a whole)")
        dest.mkdir(mode=0o700)
        files = [i for i in infos if not i.is_dir() and _parts(i) and not set(_parts(i)) & set(SKIPPED)]
        root = _export_root(files) if kind == GRADESCOPE else 0
        kept, left = _extraction(files, kind, root)
        return _left_over(left, kind, root) + _extract_members(zf, kept, dest, limits)


def _extract_members(
    zf: zipfile.ZipFile, infos: list[zipfile.ZipInfo], dest: Path, limits: ArchiveLimits
) -> list:
    refused, budget = [], limits.total_bytes
    for info in infos:
        problem = _member_problem(info)
        if problem is None and budget <= 0:
            problem = f"the archive holds more than {limits.total_bytes // 2**20} MiB"
        if problem is None:
            written, problem = _extract_one(zf, info, dest, min(limits.member_bytes, budget))
            budget -= written
        if problem:
            refused.append((_shown_member(info.filename), problem))
    return refused


def _parts(info: zipfile.ZipInfo) -> tuple[str, ...]:
    return PurePosixPath(info.filename.replace("\\", "/")).parts


def _extraction(
    files: list[zipfile.ZipInfo], kind: str, root: int
) -> tuple[list[zipfile.ZipInfo], list[zipfile.ZipInfo]]:
    """Which members to extract, in which order, and which to leave (red teams 46, 47).

    Only what the reader of ``kind`` reads: Gradescope's metadata at the export's root, and notebooks
    no deeper than that kind's (Canvas: the top; a folder of learners' folders, or a zip of one folder:
    one folder down; Gradescope: in a submission's folder). The metadata comes first, then each
    learner's first notebook before anyone's second (a learner: a learner's or a submission's folder,
    a Canvas user id, else the file), so what one learner adds costs that learner's own files first.
    """
    depth = {CANVAS: 1, GRADESCOPE: root + 2}.get(kind, 2)
    kept, left, seen = [], [], Counter[str]()
    for i, info in enumerate(files):
        parts = _parts(info)
        if kind == GRADESCOPE and parts == (*parts[:root], GRADESCOPE_METADATA):
            kept.append((-1, i, info))
        elif parts[-1].lower().endswith(".ipynb") and len(parts) <= depth:
            owner = _owner(parts, root, kind)
            kept.append((seen[owner], i, info))
            seen[owner] += 1
        else:
            left.append(info)
    return [info for _, _, info in sorted(kept, key=lambda r: r[:2])], left


def _export_root(files: list[zipfile.ZipInfo]) -> int:
    """How deep Gradescope's metadata is: 0 at the top, 1 in the export's one top folder."""
    tops = {_parts(i)[0] for i in files}
    inner = any(_parts(i)[1:] == (GRADESCOPE_METADATA,) for i in files)
    return 1 if len(tops) == 1 and inner else 0


def _owner(parts: tuple[str, ...], root: int, kind: str) -> str:
    """Whose a member is, for the extraction order: a Canvas user id, else its learner's folder."""
    if kind == CANVAS:
        readings = canvas_readings(parts[-1])
        if len(readings) != 1:  # no user id's claim: after every learner's first (red teams 48, 49)
            return "canvas: several readings" if readings else "canvas: not a Canvas name"
        return "canvas:" + readings[0].user_id
    return parts[root] if len(parts) > root + 1 else parts[-1]


def _left_over(left: list[zipfile.ZipInfo], kind: str, root: int, shown: int = 3) -> list[tuple[str, str]]:
    """The members not extracted, for the instructor: per learner (:func:`_owner`), its notebooks
    first, ``shown`` lines, then one count (red teams 47, 48: one learner's thousands of folders
    flooded the terminal; then its junk hid that a classmate's notebook was too deep to be read)."""
    per_owner: dict[str, list[zipfile.ZipInfo]] = {}
    for info in left:
        parts = _parts(info)
        per_owner.setdefault(_owner(parts, root, kind), []).append(info)
    refused = []
    for owner, members in per_owner.items():
        members.sort(key=lambda x: not x.filename.lower().endswith(".ipynb"))
        lines = [(_shown_member(x.filename), _left_reason(x)) for x in members]
        refused += _some_lines(lines, _shown_member(owner), "entries not extracted", shown)
    return refused


def _some_lines(lines: list[tuple[str, str]], owner: str, what: str, shown: int = 3) -> list[tuple[str, str]]:
    """The first ``shown`` of one learner's lines, then one line counting the rest.

    Examples
    --------
    >>> _some_lines([("a/x", "why"), ("a/y", "why"), ("a/z", "why")], "a/", "entries not read", 2)
    [('a/x', 'why'), ('a/y', 'why'), ('a/', '1 more entries not read')]
    """
    more = [(owner, f"{len(lines) - shown} more {what}")] if len(lines) > shown else []
    return lines[:shown] + more


def _left_reason(info: zipfile.ZipInfo) -> str:
    if info.filename.lower().endswith(".ipynb"):
        return _member_problem(info) or "in a folder this download's reader does not read: not extracted"
    return _member_problem(info) or "not a notebook (.ipynb): not extracted"


def _shown_member(name: str) -> str:
    return "/".join(display_name(p) for p in name.split("/")) if "/" in name else display_name(name)


def _extract_one(
    zf: zipfile.ZipFile, info: zipfile.ZipInfo, dest: Path, limit: int
) -> tuple[int, str | None]:
    """Stream one member to ``dest`` (its folders made, nothing followed), at most ``limit`` bytes."""
    parts = PurePosixPath(info.filename.replace("\\", "/")).parts
    target = dest.joinpath(*parts)
    try:
        for depth in range(1, len(parts)):
            sub = dest.joinpath(*parts[:depth])
            if not sub.exists():
                sub.mkdir(mode=0o700)
            elif sub.is_symlink() or not sub.is_dir():
                return 0, "its folder is not a folder"
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except FileExistsError:
        return 0, "a second entry with the same name"
    except OSError as exc:
        return 0, f"cannot be extracted ({exc.strerror or exc})"
    written = 0
    try:
        with zf.open(info) as src, os.fdopen(fd, "wb") as out:
            while chunk := src.read(1 << 20):
                written += len(chunk)
                if written > limit:
                    break
                out.write(chunk)
    except Exception as exc:  # a corrupt stream raises zlib.error, LZMAError...: that member is refused
        target.unlink(missing_ok=True)
        return written, f"cannot be extracted ({type(exc).__name__})"
    if written > limit:
        target.unlink(missing_ok=True)
        return written, f"larger than {limit // 2**20} MiB once uncompressed"
    return written, None


# ------------------------------------------------------------------ the roster's cross-checks
def _finish(build: _Builder) -> Collection:
    """Unmatched, ambiguous, and files that claim a learner another file claims too."""
    found = _unique(build.found)
    for f in found:
        f.origin = _origin(build, f.path)
    rivals = _rivals(found)
    out = Collection([], [], [], build.refused, build.notes, [])
    for i, f in enumerate(found):
        ids = sorted({x.id for x in f.learners}) if f.learners is not None else None
        if ids is None or (len(ids) == 1 and i not in rivals):
            learner = ids[0] if ids else None
            out.submissions.append(
                Submission(f.path, f.display, learner, f.submitted_at, f.lms_late, key=f.key, origin=f.origin)
            )
        else:
            _unassigned(out, found, i, ids, rivals.get(i))
    return out


def _origin(build: _Builder, path: Path) -> str:
    """Where the instructor gave ``path`` (:attr:`Submission.origin`)."""
    for dest, archive in build.unpacked.items():
        if path.is_relative_to(dest):
            return json.dumps([str(archive), path.relative_to(dest).as_posix()])  # never a path
    return os.path.abspath(path)


def _unassigned(out: Collection, found: list[_Found], i: int, ids: list[str], lost: _Lost | None) -> None:
    """File ``i`` is nobody's: matching no entry, several, or a learner another file keeps or contests."""
    f = found[i]
    contested = ids[0] if lost is not None and lost.contested else None
    out.unassigned.append(
        Submission(f.path, f.display, None, f.submitted_at, f.lms_late, contested, f.key, f.origin)
    )
    if len(ids) > 1:
        out.ambiguous.append((f.display, ids))
    elif lost is not None:
        out.unmatched.append((f.display, _rival_reason(found, i, ids[0], lost)))
    else:
        out.unmatched.append((f.display, f.why or "no roster entry matches"))


@dataclass(frozen=True)
class _Lost:
    """Why a file that claims one learner is not assigned: the files it lost to, and whether it is a
    conflict (no file won: the learner has none this run) or it lost to the platform's or the roster's
    exact name."""

    others: list[int]  # the files it lost to (for a conflict: every claimant, itself included)
    contested: bool


def _rival_reason(found: list[_Found], i: int, learner: str, lost: _Lost) -> str:
    """Why file ``i`` lost ``learner``: five of the files it lost to are named, the rest counted (red
    team 48: thousands of one learner's files made every reason name every other)."""
    rivals = len(lost.others) - lost.contested  # a conflict's list holds ``i`` itself
    named = list(itertools.islice((j for j in lost.others if j != i), 5))
    others = ", ".join(repr(found[j].display) for j in named)
    others += f" and {rivals - len(named)} more file(s)" if rivals > len(named) else ""
    if lost.contested:
        return (
            f"learner {learner} is also claimed by {others} (a CONFLICT): none of these files is graded "
            f"as {learner}'s (an earlier result of {learner} stays); rename or remove all but the right "
            "one, then grade again"
        )
    how = "is identified by the platform" if found[lost.others[0]].by == PLATFORM else "is named exactly"
    return f"claims learner {learner} by its name, but {others} {how} as {learner}'s"


def _unique(found: list[_Found]) -> list[_Found]:
    """One entry per (file, learners): a source named twice is one submission."""
    seen, out = set(), []
    for f in found:
        key = (os.fsencode(str(f.path)), tuple(sorted(x.id for x in f.learners or [])))
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def _rivals(found: list[_Found]) -> dict[int, _Lost]:
    """For each file whose single learner another file also claims, and that does not keep it: why."""
    claims: dict[str, list[int]] = {}
    for i, f in enumerate(found):
        if f.learners and len({x.id for x in f.learners}) == 1:
            claims.setdefault(f.learners[0].id, []).append(i)
    out: dict[int, _Lost] = {}
    for ids in (ids for ids in claims.values() if len(ids) > 1):
        out.update(_losers(found, ids))
    return out


def _losers(found: list[_Found], ids: list[int]) -> dict[int, _Lost]:
    """Of several files claiming one learner, each that loses it: a claim by name loses to the
    platform's; among the strongest, one spelled exactly as the roster wins over its look-alikes;
    otherwise the strongest are in conflict and all lose."""
    strongest = [i for i in ids if found[i].by == PLATFORM] or ids
    kept = set(strongest)
    out = {i: _Lost(strongest, False) for i in ids if i not in kept}
    winner = _exact_spelling(found, strongest) if len(strongest) > 1 else strongest[0]
    conflict = _Lost(strongest, True)  # one list for every claimant: linear in the claimants (red team 48)
    for i in strongest:
        if winner is None:
            out[i] = conflict
        elif i != winner:
            out[i] = _Lost([winner], False)
    return out


def _exact_spelling(found: list[_Found], ids: list[int]) -> int | None:
    """Of look-alike names (equal once NFC-normalised), the one spelled exactly as the roster's ``file``
    keeps the learner (the rule :meth:`Roster.assign` always had); ``None`` otherwise."""
    pattern = (found[ids[0]].learners or [])[0].pattern  # every claim has exactly one learner
    exact = [i for i in ids if found[i].path.name == pattern]
    same = all(nfc(found[i].path.name) == nfc(pattern) for i in ids)
    return exact[0] if len(exact) == 1 and same else None


def instructor_lines(collection: Collection) -> list[str]:
    """What was not graded as anybody's, and why: one line each, for the instructor's terminal.

    Parameters
    ----------
    collection : Collection
        What :func:`collect` found.

    Returns
    -------
    list of str
        The unassigned, refused and noted files; each name is quoted with ``repr``, and any control or
        format character left in a line (a reason, a note) is shown escaped, so that nothing a learner
        wrote can move the terminal's cursor or reorder its text.

    Examples
    --------
    >>> c = Collection([], [], [("a_s2_s3.ipynb", ["s2", "s3"])], [("../x.ipynb", "outside the archive")])
    >>> for line in instructor_lines(c):
    ...     print(line)
    not assigned to anybody (matches several roster entries: s2, s3): 'a_s2_s3.ipynb'
    refused: '../x.ipynb': outside the archive
    """
    lines = [
        f"CONFLICT: learner {learner} is claimed by {_some(names)}: none is graded as theirs "
        "(their earlier result, if any, stays; never 0); rename or remove all but the right file, then "
        "grade again"
        for learner, names in collection.conflicts().items()
    ]
    claimants = {name for names in collection.conflicts().values() for name in names}  # said above
    lines += [
        f"not assigned to anybody: {name!r}: {why}"
        for name, why in collection.unmatched
        if name not in claimants
    ]
    lines += [
        f"not assigned to anybody (matches several roster entries: {', '.join(ids)}): {name!r}"
        for name, ids in collection.ambiguous
    ]
    lines += [f"refused: {name!r}: {why}" for name, why in collection.refused]
    lines += [f"note: {note}" for note in collection.notes]
    return list(map(_printable, lines))


def _printable(line: str) -> str:
    """``line`` with every control or format character shown escaped (nothing can move the cursor)."""
    return line if line.isprintable() else "".join(c if c.isprintable() else repr(c)[1:-1] for c in line)


def _some(names: list[str], shown: int = 5) -> str:
    """Up to ``shown`` names quoted, then how many more."""
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(map(repr, names[:shown])) + more


def from_command_line(
    sources: list[str],
    roster: Roster | None,
    workdir: Path,
    error: Callable[[str], Any],
    declared: Mapping[str, Sequence[str]] | None = None,
) -> Collection:
    """A command's paths as a :class:`Collection`, as ``grade`` and ``similarity`` read them: a missing
    path is ``error(message)`` (an argparse parser's ``error``), and what is assigned to nobody or
    refused is printed for the instructor (standard error).

    Parameters
    ----------
    sources : list of str
        The notebooks, folders and zips given as plain paths.
    roster : Roster or None
        The roster, if one was given.
    workdir : pathlib.Path
        Where archives are extracted.
    error : callable
        Called with the message when a path does not exist (it does not return).
    declared : mapping of str to sequence of str, optional
        The downloads given as a platform's, by kind (``CANVAS``, ``GRADESCOPE``, ``FOLDERS``).

    Returns
    -------
    Collection
        What :func:`collect` found.

    Examples
    --------
    >>> found = from_command_line(["/no/such/folder"], None, Path("/tmp"), print)
    no such file or folder: folder
    >>> found.submissions, found.unassigned
    ([], [])
    >>> _ = from_command_line([], None, Path("/tmp"), print, {CANVAS: ["/etc/hostname"]})
    --canvas takes Canvas's bulk download: its zip, or the folder it unpacks to (hostname is neither)
    """
    declared = declared or {}
    problem = _usage_problem(sources, declared)
    if problem:
        error(problem)
        return Collection([], [], [], [])
    downloads = {kind: [Path(p) for p in declared.get(kind, ())] for kind in DOWNLOAD_ONLY}
    found = collect(
        [Path(p) for p in sources], roster, workdir, canvas=downloads[CANVAS],
        gradescope=downloads[GRADESCOPE], learner_folders=downloads[FOLDERS],
    )  # fmt: skip
    for line in instructor_lines(found):
        print(line, file=sys.stderr)
    return found


def _usage_problem(sources: list[str], declared: Mapping[str, Sequence[str]]) -> str:
    """What is wrong with a command's paths: one that does not exist, or a download that is neither a
    folder nor a zip; empty when nothing is."""
    paths = [*sources, *(p for kind in declared.values() for p in kind)]
    missing = [p for p in paths if not (Path(p).exists() or Path(p).is_symlink())]
    if missing:
        return f"no such file or folder: {', '.join(display_name(p) for p in missing[:5])}"
    wrong = [(kind, p) for kind, given in declared.items() for p in given if not _download_shaped(p)]
    return f"{DOWNLOAD_ONLY[wrong[0][0]]} ({display_name(wrong[0][1])} is neither)" if wrong else ""


def _download_shaped(path: str) -> bool:
    return Path(path).is_dir() or path.lower().endswith(".zip")


def assigned_roster(roster: Roster, collection: Collection) -> Roster:
    """A roster whose :meth:`~Roster.assign` answers from ``collection`` (the grader's bridge until the
    gradebook stores each submission's learner): unmatched and ambiguous files are nobody's.

    Parameters
    ----------
    roster : Roster
        The roster given on the command line.
    collection : Collection
        What :func:`collect` matched.

    Returns
    -------
    Roster
        The same learners; each collected file is answered with the learner it was matched to,
        and a file matched to nobody with None (even when the roster's patterns match it).

    Examples
    --------
    >>> from helpers.grade.reports import Learner
    >>> everyone = Roster([Learner("*.ipynb", "s1", "Ann")])
    >>> mine, stray = Path("/w/hw.ipynb"), Path("/w/x.ipynb")
    >>> c = Collection([Submission(mine, "hw.ipynb", "s1", None)], [("x.ipynb", "no match")], [], [])
    >>> [learner and learner.id for learner in assigned_roster(everyone, c).assign([mine, stray])]
    ['s1', None]
    """
    by_path = {os.fsencode(str(s.path)): s.learner for s in collection.submissions}
    by_id = {x.id: x for x in roster.learners}
    return _Pinned(roster.learners, {p: by_id.get(i) if i else None for p, i in by_path.items()})


class _Pinned(Roster):
    def __init__(self, learners: list[Learner], pinned: dict[bytes, Learner | None]):
        super().__init__(learners)
        self._pinned = pinned

    def assign(self, paths: Iterable[Path]) -> list[Learner | None]:
        return [self._pinned.get(os.fsencode(str(p))) for p in paths]


def nfc(text: str) -> str:
    """``text`` NFC-normalised (how names are compared)."""
    return unicodedata.normalize("NFC", text)
