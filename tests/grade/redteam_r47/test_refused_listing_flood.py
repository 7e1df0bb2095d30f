"""Red team 47: one learner's files spread over many folders flood the instructor's terminal.

Round 46's fix lists what is left in an archive "a few per folder, then counted"
(``collect._not_notebooks``, 5 per folder). The bound is per FOLDER, not per learner: one learner's
folder holding one file in each of N sub-folders (a committed ``node_modules/`` is thousands of
folders of a few files each; a hostile one is one file per folder) gives N ``refused:`` lines on the
instructor's standard error (``collect.instructor_lines``). With the archive bound now 1,000,000
entries, that is up to a million lines from one learner
(measured: 200,000 folders -> 200,000 refused entries, 10 s and 366 MB in ``collect.collect``),
burying what the instructor must read about classmates (a classmate's "too large" or "CONFLICT").
The classmates are still graded (so: low severity, instructor's workflow).

Here Al's folder holds 3,000 one-file folders beside his notebook; Bo (honest, same download) and Cy
(an honest plain file) keep 14/14; the lines naming Al's folder must stay a handful.

Suggested fix principle: bound the listing per learner (per top folder of a download / per
submission folder, or per archive): list a few, then one count line.

Closed at stop 44: only what the reader of the download's kind reads is extracted (Gradescope's
metadata at the export's root first, then notebooks no deeper than the kind reads), each learner's
first notebook before anyone's second (a learner's or a submission's folder, a Canvas user id), and the
members left are listed ten at most, then counted (``collect._extraction``, ``_owner``, ``_left_over``).
"""

from __future__ import annotations

import zipfile

from tests.grade.redteam_r5.common import CORPUS
from tests.grade.redteam_r5.downloads import CY_ROW, full_marks, grade_download


def test_one_learners_folders_do_not_flood_the_instructors_lines(tmp_path, bwrap):
    download = tmp_path / "classroom.zip"
    with zipfile.ZipFile(download, "w") as zf:
        zf.write(CORPUS / "perfect.ipynb", "al/hw.ipynb")
        for i in range(3000):  # one small file in each of many folders
            zf.writestr(f"al/node_modules/p{i}/index.js", "")
        zf.write(CORPUS / "perfect.ipynb", "bo/hw.ipynb")  # Bo: honest, full marks
    roster = f"file,id,name\nal.ipynb,al,Al\nbo.ipynb,bo,Bo\n{CY_ROW}\n"
    rows, _said, err = grade_download(tmp_path, "--learner-folders", download, roster)
    assert full_marks(rows, "bo"), rows["bo"]  # untouched
    about_al = [line for line in err.splitlines() if "classroom.zip/al/" in line]
    assert len(about_al) <= 50, f"{len(about_al)} lines about Al's folder, e.g. {about_al[:3]}"
