"""Red team 50: a file in a ``--learner-folders`` folder that names NOBODY claims a classmate by its name.

In a download given with ``--learner-folders`` the folder's name is the platform's word for who handed
the files in (round 44: "a learner folder is the identity the instructor's platform gave"). When the
folder's name is no roster ``id``, ``login`` or ``canvas_id`` (an off-roster hub user, a dropped or
auditing learner), ``collect._learner_folder`` falls back to each file's NAME against EVERY roster
row's ``file`` pattern (``build.by_name``), including rows the platform identifies by their own
folder. So Mal (hub user ``mallory``, not on the roster) hands in ``x_s102_.ipynb`` and claims Zed
(``*_s102_*.ipynb``, whose own folder ``zed`` was graded on time). In the run that grades the late
folders into the same ``--out`` nothing of Zed's competes: Mal's notebook is graded as Zed's and
REPLACES his 14/14. This is round 49's hole (an off-roster Canvas upload claimed a row with a
``canvas_id``) in the neighbouring download kind; round 49's fix (``_Builder.by_canvas_name``) covers
only ``--canvas``.

Suggested fix principle: in a platform's download a file whose platform identity names nobody is
nobody's claim (or, as for Canvas, claims only rows the platform cannot identify: here, none).

Closed at stop 45: a learner's folder that names nobody claims nobody, whatever its files are named
(``collect._learner_folder``: graded for nobody and listed, with how to add the folder's name to the
roster's ``login``).
"""

from __future__ import annotations

import shutil

from tests.grade.redteam_r5.common import CORPUS
from tests.grade.redteam_r5.downloads import CY_ROW, full_marks, grade_sources

ROSTER = f"file,id,name,login\n*_s101_*.ipynb,mal,Mal,mal\n*_s102_*.ipynb,zed,Zed,zed\n{CY_ROW},\n"


def test_unidentified_learner_folder_does_not_replace_a_classmates_grade(tmp_path, bwrap):
    shutil.copy(CORPUS / "perfect.ipynb", tmp_path / "hw_cy.ipynb")  # Cy: an honest plain file
    ontime = tmp_path / "ontime"
    (ontime / "zed").mkdir(parents=True)
    shutil.copy(CORPUS / "perfect.ipynb", ontime / "zed" / "hw.ipynb")  # Zed: honest, full marks
    rows, _, _ = grade_sources(tmp_path, ROSTER, "--learner-folders", ontime, tmp_path / "hw_cy.ipynb")
    assert full_marks(rows, "zed") and full_marks(rows, "cy"), rows

    late = tmp_path / "late"  # the late folders, graded into the same --out
    (late / "mallory").mkdir(parents=True)  # a hub user the roster does not know
    shutil.copy(CORPUS / "constant_zero.ipynb", late / "mallory" / "x_s102_.ipynb")
    rows, said, err = grade_sources(
        tmp_path, ROSTER, "--learner-folders", late, tmp_path / "hw_cy.ipynb", quiet=False
    )
    assert full_marks(rows, "cy"), rows["cy"]  # untouched
    assert full_marks(rows, "zed"), (rows["zed"], (said + err)[-1500:])
