"""Red team 47: one learner's notebooks in sub-folders of their own folder take the archive's byte
budget ahead of every classmate after them in the download.

Round 46's fix (``collect._first_notebooks_first``) extracts "each folder's first notebook before any
folder's second", so that "what one learner adds to a download costs that learner's own files first";
the README says "one learner's extra files cost only that learner's own" and the round-47 brief's
accepted budget note rests on "each learner's first notebook is extracted before anyone's second".
But the rank is per *folder* (the member's parent path), not per learner: a learner who puts one
notebook in each of many sub-folders of their own folder (``al/d0/x.ipynb``, ``al/d1/x.ipynb``, ...)
gets rank 0 for every one of them, tied with every classmate's first notebook and ordered by the
archive's order. The grader never reads those notebooks ("a folder inside a learner's folder (only
one level is read)"), yet they are extracted first and spend ``ArchiveLimits.total_bytes``; every
classmate whose folder comes later in the download is then refused "the archive holds more than
2048 MiB" and stays ``missing`` (0 with ``--missing-zero``). Notebooks compress ~1000:1 (a 25 MiB
notebook of blank lines is a ~25 KB zip member, a tiny git blob), so 82 of them are a small
repository / Gradescope upload.

Test scaling (not an artefact of the hole): extracting 2 GiB is too heavy for a shared test machine,
so ``collect.ArchiveLimits`` is scaled down 32x (1 MiB a notebook, 8 MiB an archive) through the
module global the grader's ``collect.collect`` reads; the order and budget logic are the real ones.
The download's order is the one ``zip -r`` / a sorted listing gives (``al`` before ``bo``).

Three tests: ``--learner-folders`` (Bo refused), ``--gradescope`` (the export's own metadata refused:
the whole class ungraded), ``--canvas`` (a flat download: "per folder" is archive order, so one
learner's several uploaded files come before a later classmate's only one; this one needs ~2 GiB of
raw uploads, since Canvas keeps uploads as they are, and is arguably inside the accepted budget note,
except that note's premise "each learner's first notebook before anyone's second" is false there).

Suggested fix principle: rank and budget by LEARNER (the learner folder / Gradescope submission
folder, i.e. the first path component of a download), not by parent folder; and never extract a
member the reader will refuse anyway (a notebook below the one level read).

Closed at stop 44: only what the reader of the download's kind reads is extracted (Gradescope's
metadata at the export's root first, then notebooks no deeper than the kind reads), each learner's
first notebook before anyone's second (a learner's or a submission's folder, a Canvas user id), and the
members left are listed ten at most, then counted (``collect._extraction``, ``_owner``, ``_left_over``).
"""

from __future__ import annotations

import zipfile

from tests.grade.redteam_r5.common import CORPUS
from tests.grade.redteam_r5.downloads import CY_ROW, GS_META, full_marks, grade_download, scaled_limits


def test_subfolder_notebooks_do_not_spend_classmates_budget(tmp_path, bwrap, monkeypatch):
    member, total, blank = scaled_limits(monkeypatch)
    download = tmp_path / "classroom.zip"
    with zipfile.ZipFile(download, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(CORPUS / "perfect.ipynb", "al/hw.ipynb")  # Al's own graded notebook
        for i in range(total // member + 1):  # Al's sub-folders: one large blank notebook each
            zf.writestr(f"al/d{i:02}/x.ipynb", blank)
        zf.write(CORPUS / "perfect.ipynb", "bo/hw.ipynb")  # Bo: honest, full marks
    assert download.stat().st_size < 200_000  # the whole download is small
    roster = f"file,id,name\nal.ipynb,al,Al\nbo.ipynb,bo,Bo\n{CY_ROW}\n"
    rows, said, err = grade_download(tmp_path, "--learner-folders", download, roster)
    # Bo's one notebook, first in his folder, must be extracted before Al's extra ones
    assert full_marks(rows, "bo"), (rows["bo"], said[-2000:], err[-2000:])


def test_subfolder_notebooks_do_not_unmake_a_gradescope_export(tmp_path, bwrap, monkeypatch):
    """The same hole through ``--gradescope``: Gradescope keeps the folders of what a learner uploads
    (``submission_101/d0/x.ipynb``; the reader takes only a submission's top-level notebook). In an
    export zipped in sorted order (as ``tests/grade/test_collect.py`` builds one), the top-level
    ``submission_metadata.yml`` sorts after ``submission_<digits>/``, so Al's extra notebooks (rank 0,
    earlier in the archive) spend the budget and the metadata itself is refused: the export is "not
    Gradescope's export" and NO learner in it is graded. Scaled 32x down as above."""
    member, total, blank = scaled_limits(monkeypatch)
    entries = {"export/submission_101/hw.ipynb": (CORPUS / "perfect.ipynb").read_bytes()}
    for i in range(total // member + 1):
        entries[f"export/submission_101/d{i:02}/x.ipynb"] = blank.encode()
    entries["export/submission_102/hw.ipynb"] = (CORPUS / "perfect.ipynb").read_bytes()  # Bo: honest
    entries["export/submission_metadata.yml"] = GS_META.encode()
    download = tmp_path / "export.zip"
    with zipfile.ZipFile(download, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(entries):
            zf.writestr(name, entries[name])
    roster = f"file,id,name\nal.ipynb,al,Al\nbo.ipynb,bo,Bo\n{CY_ROW}\n"
    rows, said, err = grade_download(tmp_path, "--gradescope", download, roster)
    assert full_marks(rows, "bo"), (rows["bo"], said[-2000:], err[-2000:])


def test_one_canvas_learners_many_files_do_not_spend_classmates_budget(tmp_path, bwrap, monkeypatch):
    """The same rank in Canvas's download: it is FLAT (every learner's files at the top), so "each
    folder's first before any folder's second" is plain archive order and protects nobody. Canvas's
    file-upload assignments take several files per submission (all kept in the bulk download as
    ``name_userid_submissionid_original``); Mal's large uploads, earlier in the download than Zed's,
    spend the budget and Zed's one notebook is refused. Scaled 32x down as above."""
    member, total, blank = scaled_limits(monkeypatch)
    download = tmp_path / "submissions.zip"
    with zipfile.ZipFile(download, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(CORPUS / "perfect.ipynb", "mal_101_9001_hw.ipynb")
        for i in range(total // member + 1):  # Mal's extra uploads in the same submission
            zf.writestr(f"mal_101_9001_x{i:02}.ipynb", blank)
        zf.write(CORPUS / "perfect.ipynb", "zed_102_9002_hw.ipynb")  # Zed: honest, full marks
    roster = f"file,id,name,canvas_id\nmal.ipynb,mal,Mal,101\nzed.ipynb,zed,Zed,102\n{CY_ROW},\n"
    rows, said, err = grade_download(tmp_path, "--canvas", download, roster)
    assert full_marks(rows, "zed"), (rows["zed"], said[-2000:], err[-2000:])
