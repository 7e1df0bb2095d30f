"""Red team 49: a Canvas upload that reads NO way falls back to the roster's file patterns: a classmate's.

In a download given with ``--canvas`` a file's Canvas name is the platform's word, so Mal (roster row
with ``canvas_id`` 101) can only ever hand in files for herself... unless her name reads no way
(``collect.canvas_readings`` returns ``[]``). Then ``collect._canvas_file`` treats it as a file the
instructor added and matches the WHOLE name against the roster's ``file`` patterns
(``build.by_name``), a claim by name. The uploaded part of the name is the learner's, and a line feed
in it makes every reading fail (``_CANVAS_REST`` ends in ``(?P<original>.+)``; ``.`` does not match
``\\n``), while ``fnmatch``'s ``*`` does match it. With the README's glob patterns
(``*_s123_*.ipynb``), Mal's late upload ``x\\n_s102_.ipynb`` (Canvas: ``mal_LATE_101_9003_x\\n_s102_.ipynb``)
claims Zed (``*_s102_*.ipynb``) by name; in the run that grades the late download (the instructor's
"grade a late file into the same --out"), no file of Zed's competes, so Mal's notebook is graded as
Zed's and REPLACES his 14/14. (In a single run with Zed's own file given by name, e.g. emailed, the
two make a CONFLICT and Zed's row is ``conflict``, not 14.) Mal's own Canvas user id is ignored.

Realism: a browser's form encodes a line feed in a file name as ``%0A`` (but Rack, which Canvas runs
on, percent-decodes multipart file names); Canvas's file-upload API takes the name as JSON. We could
not check whether Canvas keeps it in the bulk download. Severity: medium if it does (a classmate's
grade replaced; the REPLACED line is printed, so a careful instructor notices).

Suggested fix principle: in a ``--canvas`` download, a name that is Canvas-shaped at its start
(``<lowercase name>_[LATE_]<digits>_<digits>_``) is the platform's, whatever follows; never fall back
to file patterns for a file Canvas wrote (only for a name with no Canvas prefix at all), or read the
original part with ``re.DOTALL``.

Closed at stop 45: Canvas's uploaded part is read with any character, a line feed included
(``collect._CANVAS_REST``, ``re.DOTALL``), so such a name is its uploader's; a file of Canvas's
download that no user id claims (not a Canvas name, or an off-roster user id) is matched only by the
file patterns of rows with NO ``canvas_id`` (``_Builder.by_canvas_name``): a row with a ``canvas_id``
is claimed by that user id alone; a file that is not a Canvas name ranks and is listed after every
learner's first (``_owner``: ``"canvas: not a Canvas name"``); a ``--learner-folders`` folder lists
what a learner's folder leaves out three lines, then a count (``_some_lines``), as a zip does.
"""

from __future__ import annotations

import shutil
import zipfile

import pytest

from tests.grade.redteam_r5.common import CORPUS
from tests.grade.redteam_r5.downloads import CY_ROW, full_marks, grade_sources

ROSTER = f"file,id,name,canvas_id\n*_s101_*.ipynb,mal,Mal,101\n*_s102_*.ipynb,zed,Zed,102\n{CY_ROW},\n"


@pytest.mark.parametrize(
    "late_name",
    [
        "mal_LATE_101_9003_x\n_s102_.ipynb",  # a line feed in Mal's uploaded name
        "newbie_LATE_105_9005_x_s102_.ipynb",  # an off-roster learner (user 105)
        "X_s102_.ipynb",  # no Canvas name at all
    ],
)
def test_unreadable_canvas_upload_does_not_replace_a_classmates_grade(tmp_path, bwrap, late_name):
    shutil.copy(CORPUS / "perfect.ipynb", tmp_path / "hw_cy.ipynb")  # Cy: an honest plain file
    ontime = tmp_path / "ontime.zip"
    with zipfile.ZipFile(ontime, "w") as zf:
        zf.write(CORPUS / "perfect.ipynb", "zed_102_9002_hw_s102_.ipynb")  # Zed: honest, full marks
        zf.write(CORPUS / "constant_zero.ipynb", "mal_101_9001_hw_s101_.ipynb")
    rows, _, _ = grade_sources(tmp_path, ROSTER, "--canvas", ontime, tmp_path / "hw_cy.ipynb")
    assert full_marks(rows, "zed") and full_marks(rows, "cy"), rows

    late = tmp_path / "late.zip"  # the late submissions, graded into the same --out
    with zipfile.ZipFile(late, "w") as zf:
        zf.write(CORPUS / "constant_zero.ipynb", late_name)
    rows, said, err = grade_sources(tmp_path, ROSTER, "--canvas", late, tmp_path / "hw_cy.ipynb", quiet=False)
    assert full_marks(rows, "cy"), rows["cy"]  # untouched
    assert full_marks(rows, "zed"), (rows["zed"], (said + err)[-1500:])
