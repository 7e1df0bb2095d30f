"""Red team 48: a classmate's junk files hide, from every output, that a learner handed a notebook in.

Round 47's fix extracts only what a download's reader reads and lists the members left over ten at
most, then ONE count for the whole archive (``collect._left_over``, in archive order). Before it, a
notebook one folder too deep was extracted and the reader named its submission (Gradescope:
"``submission_102/``: a Gradescope submission needs exactly one notebook (found none)"; learner
folders: "``bo/sub/``: a folder inside a learner's folder"). Now a notebook too deep is not extracted,
so its submission's folder is never created and the reader says nothing of it; it can only appear
among the first ten left-over lines, which are whatever comes first in the archive.

Al (first in the export) hands in his notebook plus ten stray files; Bo (honest) uploads
``hw/hw.ipynb`` (Gradescope keeps the folder he dragged in). Bo is listed in
``submission_metadata.yml``, yet no line of the run names ``submission_102`` or Bo's notebook: the
instructor reads "(the rest): 1 more entries not extracted" and Bo is simply ``missing`` (0 with
``--missing-zero``), where an unzipped copy of the same export says which submission has no notebook
at its top. The same with ``--learner-folders`` (``bo/sub/hw.ipynb``).

Severity: low (Bo's notebook was not gradable as placed either way; the instructor loses the line that
tells them so, depending on a classmate's files, and Bo's row shows only ``missing``).

Suggested fix principle: bound the listing per learner (owner), not per archive, and never count a
NOTEBOOK among "the rest": every learner/submission whose notebooks were all left out gets a line
naming it (or the reader also walks the metadata's submissions and says which has no notebook).

Closed at stop 44: conflict bookkeeping shares one list of claimants and names five, then counts
(``collect._losers``, ``_rival_reason``, ``_some``); a Canvas name with several readings is extracted
after every learner's first (``_owner``); members left are listed per learner, notebooks first, three
lines then a count (``_left_over``).
"""

from __future__ import annotations

import zipfile

from tests.grade.redteam_r5.common import CORPUS
from tests.grade.redteam_r5.downloads import CY_ROW, GS_META, full_marks, grade_download


def test_too_deep_notebook_is_named_despite_classmates_junk(tmp_path, bwrap):
    download = tmp_path / "export.zip"
    perfect = (CORPUS / "perfect.ipynb").read_bytes()
    with zipfile.ZipFile(download, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("submission_metadata.yml", GS_META)
        zf.writestr("submission_101/hw.ipynb", perfect)  # Al: graded
        for i in range(10):
            zf.writestr(f"submission_101/notes{i}.txt", "x")  # Al's stray files
        zf.writestr("submission_102/hw/hw.ipynb", perfect)  # Bo: his notebook one folder down
    roster = f"file,id,name,login\nal.ipynb,al,Al,al@x.edu\nbo.ipynb,bo,Bo,bo@x.edu\n{CY_ROW},\n"
    rows, said, err = grade_download(tmp_path, "--gradescope", download, roster, quiet=False)
    assert full_marks(rows, "al"), rows["al"]
    assert "submission_102" in said + err, (said + err)[-3000:]
