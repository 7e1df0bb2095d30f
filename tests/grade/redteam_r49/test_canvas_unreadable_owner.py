"""Red team 49: a Canvas upload whose name reads NO way escapes the per-learner rank.

Round 48 closed the several-readings route (``collect._owner`` now charges a name with several
readings to one shared owner, ``"canvas: several readings"``, after every learner's first). A name
with NO reading still owns itself: ``_owner`` returns ``parts[-1]`` (meant for a file the instructor
added). A Canvas name reads no way when the uploaded (original) part holds a line feed:
``_CANVAS_REST`` ends in ``(?P<original>.+)`` and ``.`` does not match ``\\n``, so
``mal_101_9001_x\\n0.ipynb`` fails every reading. Mal uploads many large notebooks named so; each
ranks as a learner of its own at rank 0, before Zed's first (and only) notebook, which comes later in
the archive; the archive's byte budget is spent and Zed stays ``missing``.

Realism: the upload name is the learner's. A browser's form encodes a line feed in a file name as
``%0A``, so this needs Canvas's file-upload API (the learner's own token) keeping the name as given;
whether Canvas sanitises it we could not check. The hole in the grader is that "no reading" is
treated as "somebody else's (the instructor's) file" in the budget order.

Test scaling (as red teams 47/48): ``collect.ArchiveLimits`` scaled 32x down.

Suggested fix principle: in Canvas's download, rank a file with no reading after every learner's
first notebook too (a file the instructor added is no learner's first), or rank by the longest
``_<digits>_<digits>_`` prefix Canvas wrote.

Closed at stop 45, with the rest of round 49 (``test_canvas_unreadable_claims_classmate``).
"""

from __future__ import annotations

import zipfile

import pytest

from tests.grade.redteam_r5.common import CORPUS
from tests.grade.redteam_r5.downloads import CY_ROW, full_marks, grade_download, scaled_limits

ROSTER = f"file,id,name,canvas_id\nmal.ipynb,mal,Mal,101\nzed.ipynb,zed,Zed,102\n{CY_ROW},\n"
#: a line feed in the uploaded part (now Mal's own), and a name that is no Canvas name at all
NAMES = ["mal_101_9001_x\n{i}{ext}", "X{i}{ext}"]


@pytest.mark.parametrize("form", NAMES)
def test_unreadable_canvas_names_do_not_spend_classmates_budget(tmp_path, bwrap, monkeypatch, form):
    member, total, blank = scaled_limits(monkeypatch)
    download = tmp_path / "submissions.zip"
    with zipfile.ZipFile(download, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(CORPUS / "perfect.ipynb", "mal_101_9001_hw.ipynb")
        for i in range(total // member + 1):  # Mal's extra uploads
            zf.writestr(form.format(i=i, ext=".ipynb"), blank)
        zf.write(CORPUS / "perfect.ipynb", "zed_102_9002_hw.ipynb")  # Zed: honest, full marks
    rows, said, err = grade_download(tmp_path, "--canvas", download, ROSTER)
    assert full_marks(rows, "zed"), (rows["zed"], said[-2000:], err[-2000:])


@pytest.mark.parametrize("form", NAMES)
def test_unreadable_canvas_names_do_not_flood_the_instructors_lines(tmp_path, bwrap, form):
    """The same root cause in ``_left_over``: each non-notebook upload whose Canvas name reads no way
    is an owner of its own, so the "three, then a count" bound per learner never applies."""
    download = tmp_path / "submissions.zip"
    with zipfile.ZipFile(download, "w") as zf:
        zf.write(CORPUS / "perfect.ipynb", "mal_101_9001_hw.ipynb")
        for i in range(2000):  # small non-notebook uploads
            zf.writestr(form.format(i=i, ext=".txt"), "")
        zf.write(CORPUS / "perfect.ipynb", "zed_102_9002_hw.ipynb")  # Zed: honest, full marks
    rows, _said, err = grade_download(tmp_path, "--canvas", download, ROSTER)
    assert full_marks(rows, "zed"), rows["zed"]  # untouched
    about_mal = [line for line in err.splitlines() if "mal_101_9001_x" in line or "zip/X" in line]
    assert len(about_mal) <= 50, f"{len(about_mal)} lines about Mal's uploads, e.g. {about_mal[:3]}"
