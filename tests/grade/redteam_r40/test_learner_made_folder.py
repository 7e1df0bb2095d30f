"""Red team 40: a folder a learner makes among files learners named is "the platform's word".

``collect._folder_entry`` reads EVERY sub-folder of a folder (or zip) the instructor gives as a
per-learner folder (``_learner_folder``): its name is matched to the roster's ``id``, ``login`` and
``canvas_id`` and the claim is a PLATFORM claim (``_Found.by`` defaults to ``PLATFORM``), which beats
a claim by a file name (``collect._losers``). In a flat folder of files the learners named
themselves (a shared drive, or its download as a zip: red team 32's setting, where "a learner of a
flat folder of files can hand in a folder instead"), Mallory adds a folder named after Bo's login
(``bsmith/``; a login or a Canvas user id is visible to classmates) holding a blank notebook. Bo's own
file ``hw1_bsmith.ipynb`` matches his roster pattern, but only "by its name": it is set aside as
"unassigned" and Bo is graded on Mallory's blank notebook (0/14 instead of 14/14). The run's line to
the instructor even says the blank notebook "is identified by the platform as s2's".

This is red team 32's hole (a Canvas-shaped name in a zip of learner-named files read as Canvas's)
with a folder name instead of a Canvas name: the same principle ("only the instructor says which
source is Canvas's download") applies to per-learner folders. Suggested fix principle: a folder's
name is the platform's claim only in a source the instructor declares as a folder of per-learner
folders (e.g. a ``--folders`` flag, or a folder whose every entry is a folder); a sub-folder among
plain files is at most a claim by a name (a CONFLICT with the learner's own file, never a win).

The honest classmate Cy keeps full marks.

Closed at stop 44: per-learner folders are read only in a source given with ``--learner-folders``;
a folder inside a plain folder or zip is refused, saying so (``collect.NESTED_FOLDER``), and a zip
whose only entry is a folder is read as that folder's notebooks (``collect._unwrapped``).
"""

from __future__ import annotations

import shutil
import zipfile

from tests.grade.redteam_r5.common import CORPUS
from tests.grade.redteam_r5.downloads import grade_sources

ROSTER = (
    "file,id,name,login\nhw1_bsmith*.ipynb,s2,Bo,bsmith\nhw1_cy*.ipynb,s4,Cy,cy\nhw1_mal*.ipynb,s3,Mal,mal\n"
)


def _grade(tmp_path, source):
    rows, _said, err = grade_sources(tmp_path, ROSTER, source)
    return rows, err


def _files(tmp_path):
    return {
        "hw1_bsmith.ipynb": CORPUS / "perfect.ipynb",  # Bo, honest
        "hw1_cy.ipynb": CORPUS / "perfect.ipynb",  # Cy, the honest classmate
        "bsmith/hw.ipynb": CORPUS / "empty_notebook.ipynb",  # Mallory's folder named after Bo's login
    }


def _assert_bo_unharmed(rows, said):
    assert rows["s4"]["score"] == "14", rows["s4"]  # the honest classmate
    # Bo's own file is his, or at worst his row is a conflict: never the attacker's blank notebook
    assert rows["s2"]["status"] == "conflict" or (
        rows["s2"]["score"] == "14" and rows["s2"]["file"].endswith("hw1_bsmith.ipynb")
    ), (rows["s2"], said)


def test_folder_named_after_a_classmate_in_a_flat_folder(tmp_path, bwrap):
    subs = tmp_path / "subs"
    for name, src in _files(tmp_path).items():
        (subs / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, subs / name)
    _assert_bo_unharmed(*_grade(tmp_path, subs))


def test_folder_named_after_a_classmate_in_a_drive_zip(tmp_path, bwrap):
    archive = tmp_path / "hw1-drive-download.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for name, src in _files(tmp_path).items():
            z.write(src, name)
    _assert_bo_unharmed(*_grade(tmp_path, archive))
