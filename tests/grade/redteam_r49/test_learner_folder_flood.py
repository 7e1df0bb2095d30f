"""Red team 49: one learner's files flood the instructor's lines when ``--learner-folders`` is a FOLDER.

Red teams 47/48 bounded the listing of what an ARCHIVE leaves out (``collect._left_over``: per
learner, three lines, then a count). The same download given as the folder it unpacks to (a
``gh classroom clone`` / nbgrader ``submitted/`` tree, which the README allows: "a folder (or a zip)")
goes through ``collect._learner_folder``, which appends one ``refused:`` line per entry of the
learner's folder that is not a notebook (and one per sub-folder), unbounded. Al commits 3,000 files
and 300 folders at his repository's root: 3,300 lines on the instructor's standard error, burying
what the instructor must read about classmates (a CONFLICT, a classmate's refused file). Classmates
are still graded: low severity, the instructor's workflow (the class red team 47 reported).

Suggested fix principle: one listing rule for both shapes of a download: bound what a learner's
folder leaves out per learner (a few lines, then a count), whether it came as a zip or a folder.

Closed at stop 45: a learner's folder given as a folder lists what it leaves out three lines, then
a count (``collect._some_lines``), as a zip does.
"""

from __future__ import annotations

import shutil

from tests.grade.redteam_r5.common import CORPUS
from tests.grade.redteam_r5.downloads import CY_ROW, full_marks, grade_download


def test_one_learners_files_do_not_flood_the_instructors_lines_from_a_folder(tmp_path, bwrap):
    download = tmp_path / "classroom"
    (download / "al").mkdir(parents=True)
    (download / "bo").mkdir()
    shutil.copy(CORPUS / "perfect.ipynb", download / "al" / "hw.ipynb")
    for i in range(3000):  # committed junk at the repository's root
        (download / "al" / f"f{i}.js").write_text("")
    for i in range(300):
        (download / "al" / f"p{i}").mkdir()
    shutil.copy(CORPUS / "perfect.ipynb", download / "bo" / "hw.ipynb")  # Bo: honest, full marks
    roster = f"file,id,name\nal.ipynb,al,Al\nbo.ipynb,bo,Bo\n{CY_ROW}\n"
    rows, _said, err = grade_download(tmp_path, "--learner-folders", download, roster)
    assert full_marks(rows, "bo"), rows["bo"]  # untouched
    about_al = [line for line in err.splitlines() if "'al/" in line]
    assert len(about_al) <= 50, f"{len(about_al)} lines about Al's folder, e.g. {about_al[:3]}"
