"""Red team 48: a Canvas learner whose uploaded names read several ways escapes the per-learner rank.

Round 47's fix (``collect._extraction``, ``_owner``) extracts each learner's first notebook before
anyone's second; in Canvas's flat download a learner is ``"canvas:" + user id`` **only when the
file name reads one way** (``canvas_readings``); a name that reads several ways is its own owner
(``_owner`` returns ``parts[-1]``). The uploaded (original) part of a Canvas name is whatever the
learner typed, and red team 34/36 showed it can hold ``_<digits>_<digits>_``: Mal uploads files named
``x_7000_1_a.ipynb``, ``x_7001_1_a.ipynb``, ...; Canvas writes ``mal_101_9001_x_7000_1_a.ipynb``
(user 101 OR user 7000), so EVERY one of her extra files is a separate "learner" at rank 0, tied with
each classmate's first notebook and ordered by the archive. Her large uploads, earlier in the
download than Zed's, spend ``ArchiveLimits.total_bytes``; Zed's one notebook is refused "the archive
holds more than ... MiB" and Zed stays ``missing`` (0 with ``--missing-zero``). This is exactly red
team 47's Canvas test with the original names made ambiguous.

Test scaling (as red team 47's tests, not an artefact of the hole): ``collect.ArchiveLimits`` is
scaled 32x down (1 MiB a notebook, 8 MiB an archive) through the module global ``collect.collect``
reads; the order and budget logic are the real ones.

Suggested fix principle: a name that reads several ways is nobody's claim (graded for nobody), so
it must not rank as a learner of its own: extract such files after every one-reading file's first
notebook (or charge them to the reading a roster row has), never ahead of a classmate's only notebook.

Closed at stop 44: conflict bookkeeping shares one list of claimants and names five, then counts
(``collect._losers``, ``_rival_reason``, ``_some``); a Canvas name with several readings is extracted
after every learner's first (``_owner``); members left are listed per learner, notebooks first, three
lines then a count (``_left_over``).
"""

from __future__ import annotations

import zipfile

from helpers.grade import collect
from tests.grade.redteam_r5.common import CORPUS
from tests.grade.redteam_r5.downloads import CY_ROW, full_marks, grade_download, scaled_limits


def test_ambiguous_canvas_names_do_not_spend_classmates_budget(tmp_path, bwrap, monkeypatch):
    member, total, blank = scaled_limits(monkeypatch)
    download = tmp_path / "submissions.zip"
    with zipfile.ZipFile(download, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(CORPUS / "perfect.ipynb", "mal_101_9001_hw.ipynb")
        for i in range(total // member + 1):  # Mal's extra uploads, each named to read two ways
            name = f"mal_101_9001_x_{7000 + i}_1_a.ipynb"
            assert len(collect.canvas_readings(name)) == 2
            zf.writestr(name, blank)
        zf.write(CORPUS / "perfect.ipynb", "zed_102_9002_hw.ipynb")  # Zed: honest, full marks
    roster = f"file,id,name,canvas_id\nmal.ipynb,mal,Mal,101\nzed.ipynb,zed,Zed,102\n{CY_ROW},\n"
    rows, said, err = grade_download(tmp_path, "--canvas", download, roster)
    assert full_marks(rows, "zed"), (rows["zed"], said[-2000:], err[-2000:])
