"""What the red teams' download tests share (rounds 39 to 48): a platform's download graded beside an
honest classmate who hands in a plain file, the class's rows read back, and archive limits scaled
down so that a budget can be reached on a shared test machine."""

from __future__ import annotations

import contextlib
import csv
import io
import shutil
import zipfile
from pathlib import Path

import pytest

from helpers.grade import collect
from helpers.grade import grader as grade
from tests.grade.redteam_r5.common import CORPUS

#: the roster row of Cy, the honest classmate every download test grades beside the download
CY_ROW = "hw_cy.ipynb,cy,Cy"
_REAL_LIMITS = collect.ArchiveLimits


def class_list(out: Path) -> list[dict]:
    """``grades.csv``'s rows in ``out``, in order."""
    return list(csv.DictReader(io.StringIO((out / "grades.csv").read_text("utf-8"))))


def class_rows(out: Path) -> dict[str, dict]:
    """``grades.csv``'s rows in ``out``, by learner id."""
    return {row["learner_id"]: row for row in class_list(out)}


def gs_record(number: int, *people: dict[str, str], day: int = 20) -> str:
    """One submission of Gradescope's ``submission_metadata.yml``: ``submission_<number>`` by
    ``people`` (each a mapping of ``name``, ``sid``, ``email`` to its YAML text, written as given)."""
    lines = [f"submission_{number}:", "  :submitters:"]
    for person in people:
        lines += [f"  {' -'[i == 0]} :{key}: {text}" for i, (key, text) in enumerate(person.items())]
    return "\n".join([*lines, f"  :created_at: 2026-11-{day} 10:00:00.000000000 +00:00", ""])


#: Gradescope's export metadata for Al (``submission_101``) and Bo (``submission_102``)
GS_META = gs_record(101, {"name": "Al", "sid": "al", "email": "al@x.edu"}) + gs_record(
    102, {"name": "Bo", "sid": "bo", "email": "bo@x.edu"}
)


def gs_export(path: Path, meta: str, notebooks: dict[int, str]) -> Path:
    """A Gradescope export zip at ``path``: ``meta`` and each submission's one notebook, by number (a
    file of the grading corpus: ``perfect.ipynb``, ``constant_zero.ipynb``)."""
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("submission_metadata.yml", meta)
        for number, corpus_file in notebooks.items():
            zf.write(CORPUS / corpus_file, f"submission_{number}/hw.ipynb")
    return path


def full_marks(rows: dict[str, dict], learner: str) -> bool:
    """Whether ``learner`` was graded with the full 14 points of ``from-scratch``."""
    return rows[learner]["status"] == "graded" and rows[learner]["score"] == "14"


def scaled_limits(monkeypatch: pytest.MonkeyPatch) -> tuple[int, int, str]:
    """Archive limits scaled 32x down (1 MiB a notebook, 8 MiB an archive, from 25 MiB and 2 GiB),
    through the module global ``collect.collect`` reads: the order and budget logic are the real ones.
    Returns the two limits and a blank notebook of one member's size."""
    member, total = 2**20, 8 * 2**20
    monkeypatch.setattr(
        collect, "ArchiveLimits", lambda: _REAL_LIMITS(member_bytes=member, total_bytes=total)
    )
    blank = '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'.ljust(member - 16)
    return member, total, blank


def grade_sources(
    tmp_path: Path, roster: str | None, *sources: str | Path, quiet: bool = True
) -> tuple[dict[str, dict], str, str]:
    """Grade ``sources`` (paths, and options such as ``--canvas`` before a download) of
    ``from-scratch`` with ``roster`` (a CSV text, or None for none) into ``tmp_path / "out"``, in the
    real sandbox: the class's rows, standard output and standard error."""
    out = tmp_path / "out"
    args = ["--assignment", "from-scratch", "--out", str(out), "--jobs", "2", *(["--quiet"] * quiet)]
    if roster is not None:
        (tmp_path / "roster.csv").write_text(roster, "utf-8")
        args += ["--roster", str(tmp_path / "roster.csv")]
    args += list(map(str, sources))
    with contextlib.redirect_stdout(io.StringIO()) as so, contextlib.redirect_stderr(io.StringIO()) as err:
        assert grade.main(args) == 0
    return class_rows(out), so.getvalue(), err.getvalue()


def grade_download(
    tmp_path: Path, option: str, download: Path, roster: str | None, *, quiet: bool = True
) -> tuple[dict[str, dict], str, str]:
    """:func:`grade_sources` for ``download`` given with ``option`` (``--canvas``, ``--gradescope``,
    ``--learner-folders``) beside Cy's plain file ``hw_cy.ipynb`` (full marks); ``roster`` holds
    :data:`CY_ROW`, or is None. Asserts Cy is untouched."""
    assert roster is None or CY_ROW in roster
    shutil.copy(CORPUS / "perfect.ipynb", tmp_path / "hw_cy.ipynb")
    found = grade_sources(tmp_path, roster, option, download, tmp_path / "hw_cy.ipynb", quiet=quiet)
    cy = [r for r in class_list(tmp_path / "out") if r["file"] == "hw_cy.ipynb"]
    assert [(r["status"], r["score"]) for r in cy] == [("graded", "14")], cy
    return found
