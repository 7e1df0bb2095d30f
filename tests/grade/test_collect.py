"""Collection as learning platforms hand it over (issue 31 item 3; issue 33: a file matching several
roster entries is nobody's): single files, per-learner folders, Canvas's bulk-download zip and
Gradescope's export; hostile archives refused with a reason, each beside honest classmates.

The grading runs at the end use the real sandbox where it works (``trusted_mode``, as the other grade
tests): the point there is who gets credited, checked in ``canvas.csv``.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import stat
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import pytest

from helpers.grade import collect as C
from helpers.grade import grader as grade
from helpers.grade.reports import Roster

CORPUS = Path(__file__).resolve().parent / "grading_corpus"
PERFECT = (CORPUS / "perfect.ipynb").read_bytes()
STUB = (CORPUS / "unchanged_stub.ipynb").read_bytes()
ROSTER = (
    "file,id,name,login,canvas_id\n"
    "ann.ipynb,s01,Ann Lee,leeann,1001\n"
    "*_s02*.ipynb,s02,Bo Chen,chenbo,1002\n"
    "*_s03*.ipynb,s03,Cy Dunn,dunncy,1003\n"
)


@pytest.fixture
def roster() -> Roster:
    return Roster.from_text(ROSTER)


def _zip(path: Path, members: dict[str, bytes], *, links: dict[str, str] | None = None) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, target)
    return path


def _who(collection: C.Collection) -> dict[str, str | None]:
    return {s.display: s.learner for s in collection.submissions}


# ------------------------------------------------------------------ Canvas
def test_canvas_zip_maps_user_id_then_login_and_keeps_late_without_a_time(tmp_path):
    roster = Roster.from_text(ROSTER + "dee.ipynb,s04,Dee Eng,engdee,\n")  # Dee: no canvas_id
    archive = _zip(
        tmp_path / "submissions.zip",
        {
            "leeann_1001_555_from-scratch.ipynb": PERFECT,  # user id 1001 = s01
            "chenbo_LATE_1002_556_from-scratch-1.ipynb": STUB,  # late, resubmitted
            "engdee_9998_559_hw.ipynb": STUB,  # id in no row, login of a row with no canvas_id: s04
            "dunncy_9999_557_Untitled1.ipynb": STUB,  # Cy's login, but Cy's user id is 1003: nobody's
            "nobody_4242_558_hw.ipynb": STUB,  # nobody's
        },
    )
    work = tmp_path / "work"
    work.mkdir()
    found = C.collect([], roster, work, canvas=[archive])
    assert _who(found) == {
        "submissions.zip/leeann_1001_555_from-scratch.ipynb": "s01",
        "submissions.zip/chenbo_LATE_1002_556_from-scratch-1.ipynb": "s02",
        "submissions.zip/engdee_9998_559_hw.ipynb": "s04",
    }
    late = {s.display.split("/")[1][:6]: s.lms_late for s in found.submissions}
    assert late == {"leeann": False, "chenbo": True, "engdee": False}
    assert all(s.submitted_at is None for s in found.submissions)
    assert any("LATE" in n and "no submission time" in n for n in found.notes)
    assert dict(found.unmatched) == {
        "submissions.zip/dunncy_9999_557_Untitled1.ipynb": "Canvas user id 9999 is in no roster row "
        "(canvas_id), and no row without a canvas_id has the login 'dunncy' or a file pattern that matches",
        "submissions.zip/nobody_4242_558_hw.ipynb": "Canvas user id 4242 is in no roster row (canvas_id), "
        "and no row without a canvas_id has the login 'nobody' or a file pattern that matches",
    }
    for s in found.submissions:
        assert s.path.is_relative_to(work) and s.path.read_bytes() in (PERFECT, STUB)


def test_canvas_names_are_parsed_as_canvas_writes_them():
    name = C.parse_canvas_name("leeann_LATE_1001_555_my_hw_v2-3.ipynb")
    assert (name.name, name.late, name.user_id, name.submission_id, name.original) == (
        "leeann",
        True,
        "1001",
        "555",
        "my_hw_v2.ipynb",
    )
    assert C.parse_canvas_name("hw_s02.ipynb") is None
    assert C.parse_canvas_name("a_b_c_d.ipynb") is None  # ids are digits


# ------------------------------------------------------------------ Gradescope
GS_META = """\
submission_101:
  :submitters:
  - :name: Ann Lee
    :sid: s01
    :email: LeeAnn
  :created_at: 2026-11-20 23:59:30.123456789 -08:00
  :score: 0.0
submission_102:
  :submitters:
  - :name: Bo Chen
    :sid: ''
    :email: chenbo
  - :name: Cy Dunn
    :sid: s03
    :email: dunncy@x.edu
  :created_at: 2026-11-21 08:00:00.000000000 +00:00
submission_103:
  :submitters:
  - :name: Stranger
    :sid: x9
    :email: x9@x.edu
  :created_at: 2026-11-21 09:00:00 +0000
"""


def _gradescope_tree(root: Path) -> Path:
    root.mkdir()
    (root / "submission_metadata.yml").write_text(GS_META)
    for sub, data in (("submission_101", PERFECT), ("submission_102", STUB), ("submission_103", STUB)):
        (root / sub).mkdir()
        (root / sub / "from-scratch.ipynb").write_bytes(data)
    (root / "submission_999").mkdir()  # not in the metadata
    (root / "submission_999" / "x.ipynb").write_bytes(PERFECT)
    return root


def test_gradescope_export_folder_and_zip(tmp_path, roster):
    root = _gradescope_tree(tmp_path / "assignment_77_export")
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in sorted(root.rglob("*")):
            zf.write(path, path.relative_to(tmp_path).as_posix())
    for source in (root, archive):
        work = tmp_path / f"work-{source.suffix or 'dir'}"
        work.mkdir()
        found = C.collect([], roster, work, gradescope=[source])
        by = {(s.display.rsplit("/", 2)[-2], s.learner): s for s in found.submissions}
        assert set(by) == {("submission_101", "s01"), ("submission_102", "s02"), ("submission_102", "s03")}
        assert by["submission_101", "s01"].submitted_at == datetime(2026, 11, 21, 7, 59, 30, 123456, UTC)
        assert by["submission_102", "s02"].submitted_at == datetime(2026, 11, 21, 8, 0, tzinfo=UTC)
        assert [why for _, why in found.unmatched] == [
            "submitter (sid 'x9', email 'x9@x.edu') is in no roster row (id, login)"
        ]
        assert any(
            "submission_999" in name and "not a submission folder" in why for name, why in found.refused
        )
        assert all(s.submitted_at.tzinfo is UTC for s in found.submissions)


# ------------------------------------------------------------------ folders
def test_folder_of_per_learner_folders(tmp_path, roster):
    for folder, data in (("s01", PERFECT), ("chenbo", STUB), ("1003", STUB), ("zed", STUB)):
        (tmp_path / "class" / folder).mkdir(parents=True)
        (tmp_path / "class" / folder / "hw.ipynb").write_bytes(data)
    (tmp_path / "class" / "zed" / "notes.txt").write_text("x")
    (tmp_path / "class" / ".ipynb_checkpoints").mkdir()
    (tmp_path / "class" / ".ipynb_checkpoints" / "hw-checkpoint.ipynb").write_bytes(PERFECT)
    found = C.collect([], roster, tmp_path, learner_folders=[tmp_path / "class"])
    assert _who(found) == {"s01/hw.ipynb": "s01", "chenbo/hw.ipynb": "s02", "1003/hw.ipynb": "s03"}
    assert [name for name, _ in found.unmatched] == ["zed/hw.ipynb"]
    assert found.refused == [("zed/notes.txt", "not a notebook (.ipynb)")]


def test_without_a_roster_every_notebook_is_collected_for_nobody(tmp_path):
    (tmp_path / "a.ipynb").write_bytes(PERFECT)
    (tmp_path / "roster.csv").write_text("file,id\n")  # a flat folder's other files are the instructor's
    found = C.collect([tmp_path, tmp_path / "a.ipynb"], None, tmp_path)
    assert [(s.display, s.learner) for s in found.submissions] == [("a.ipynb", None)]
    assert not (found.unmatched or found.ambiguous or found.refused)


def test_without_a_roster_the_platform_names_the_learner_never_the_container(tmp_path):
    """``Submission.key``: Canvas's user id in a Canvas download (``--canvas``), a per-learner folder's
    name (``--learner-folders``), a Gradescope export's submitters (``--gradescope``); nothing for a
    plain file (its own name says, in the grader)."""
    canvas = tmp_path / "submissions (1).zip"  # a second download: the browser's name
    with zipfile.ZipFile(canvas, "w") as zf:
        zf.writestr("bob_LATE_12_99_hw-1.ipynb", PERFECT)
    (tmp_path / "subs" / "ann").mkdir(parents=True)
    (tmp_path / "subs" / "ann" / "hw.ipynb").write_bytes(PERFECT)
    (tmp_path / "flat").mkdir()
    (tmp_path / "flat" / "cy.ipynb").write_bytes(PERFECT)
    (tmp_path / "flat" / "Dee.IPYNB").write_bytes(PERFECT)
    found = C.collect(
        [tmp_path / "flat"], None, tmp_path, canvas=[canvas], learner_folders=[tmp_path / "subs"]
    )
    keys = sorted((s.path.name, s.key) for s in found.submissions)
    assert keys == [("bob_LATE_12_99_hw-1.ipynb", "canvas:12"), ("cy.ipynb", ""), ("hw.ipynb", "folder:ann")]
    assert [why for name, why in found.refused if "Dee" in name] == [
        "the extension is not '.ipynb' in lower case: rename the file and grade it"
    ]
    root = _gradescope_tree(tmp_path / "export")
    found = C.collect([], None, tmp_path / "export", gradescope=[root])
    assert {s.key for s in found.submissions} == {
        "gradescope:sid=s01", "gradescope:email=chenbo,sid=s03", "gradescope:sid=x9"
    }  # fmt: skip


# ------------------------------------------------------------------ issue 33: nobody's, never the first
def test_a_name_matching_two_roster_patterns_is_nobodys(tmp_path, roster):
    (tmp_path / "hw_s02.ipynb").write_bytes(STUB)
    (tmp_path / "hw_s02_s03.ipynb").write_bytes(PERFECT)
    found = C.collect([tmp_path], roster, tmp_path)
    assert _who(found) == {"hw_s02.ipynb": "s02"}
    assert found.ambiguous == [("hw_s02_s03.ipynb", ["s02", "s03"])]
    assert [s.display for s in found.unassigned] == ["hw_s02_s03.ipynb"]
    assert all(s.learner is None for s in found.unassigned)
    assert Roster.from_text(ROSTER).match("hw_s02_s03.ipynb") is None


def test_two_files_claiming_one_learner_are_both_unassigned(tmp_path, roster):
    (tmp_path / "a_s02.ipynb").write_bytes(STUB)
    (tmp_path / "b_s02.ipynb").write_bytes(PERFECT)
    found = C.collect([tmp_path], roster, tmp_path)
    assert found.submissions == []
    assert sorted(why.split(" is also")[0] for _, why in found.unmatched) == ["learner s02"] * 2
    # red team 5: a conflict, not a file of nobody's: the grader keeps s02's earlier result and says so
    assert found.conflicts() == {"s02": ["a_s02.ipynb", "b_s02.ipynb"]}
    assert all(s.contested == "s02" and s.learner is None for s in found.unassigned)
    assert any(line.startswith("CONFLICT: learner s02") for line in C.instructor_lines(found))


def test_canvas_name_part_may_be_empty(tmp_path, roster):
    """Canvas writes the sortable name with its non-word characters taken out, so a name with no
    ASCII letter (``이지은``) leaves the name part empty: ``_1001_7_hw.ipynb`` is still user 1001's
    (red team 50's observation), and an empty name matches no login."""
    assert [(r.name, r.user_id) for r in C.canvas_readings("_1001_7_hw.ipynb")] == [("", "1001")]
    folder = tmp_path / "canvas"
    folder.mkdir()
    (folder / "_1001_7_hw.ipynb").write_bytes(PERFECT)
    (folder / "_4242_8_hw.ipynb").write_bytes(PERFECT)  # an off-roster learner, also nameless
    with_blank_login = Roster.from_text(ROSTER + "x.ipynb,s04,Nobody Yet,,\n")
    for who in (roster, with_blank_login):
        found = C.collect([], who, tmp_path, canvas=[folder])
        assert _who(found) == {"_1001_7_hw.ipynb": "s01"}
        assert "_4242_8_hw.ipynb" in dict(found.unmatched)


def test_canvas_identifies_by_its_user_id_before_a_name_a_classmate_typed(tmp_path):
    """A Canvas name starts with Canvas's user id, which no learner chooses: Mallory (user 1099, not in the
    roster's canvas_id column) uploads a file she named for Bo; Bo's own file, identified by his user id,
    keeps him and hers is nobody's: a row with a canvas_id is claimed by that user id only (red team
    49), so hers claims nobody (no conflict). Two files both identified by
    Bo's user id (two attachments) are a conflict: the instructor decides."""
    roster = Roster.from_text(ROSTER)
    folder = tmp_path / "canvas"
    folder.mkdir()
    (folder / "chenbo_1002_7_hw.ipynb").write_bytes(STUB)
    (folder / "mallory_1099_8_hw_s02.ipynb").write_bytes(PERFECT)  # matches *_s02*.ipynb by its name
    found = C.collect([], roster, tmp_path, canvas=[folder])
    assert _who(found) == {"chenbo_1002_7_hw.ipynb": "s02"}
    assert found.conflicts() == {}
    assert "claimed only by their canvas_id" in dict(found.unmatched)["mallory_1099_8_hw_s02.ipynb"]
    (folder / "chenbo_1002_7_hw-1.ipynb").write_bytes(PERFECT)
    found = C.collect([], roster, tmp_path, canvas=[folder])
    assert _who(found) == {}
    assert found.conflicts() == {"s02": ["chenbo_1002_7_hw-1.ipynb", "chenbo_1002_7_hw.ipynb"]}


def test_a_look_alike_of_the_exact_roster_name_is_no_conflict(tmp_path):
    roster = Roster.from_text("file,id\ncaf\u00e9.ipynb,s1\n")
    (tmp_path / "caf\u00e9.ipynb").write_bytes(PERFECT)
    (tmp_path / "cafe\u0301.ipynb").write_bytes(STUB)  # NFD: the same name once normalised
    found = C.collect([tmp_path], roster, tmp_path)
    assert _who(found) == {"caf\u00e9.ipynb": "s1"} and found.conflicts() == {}


# ------------------------------------------------ hostile archives, honest classmates beside
def test_hostile_zip_members_are_refused_with_reasons_and_the_honest_one_is_kept(tmp_path, roster):
    """Each hostile member beside an honest classmate's notebook (one at a time: members that are no
    learner's are listed three, then counted)."""
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as zf:
        zf.writestr("leeann_1001_1_x.ipynb", PERFECT)
    hostile = {
        "../escape.ipynb": ("zip-slip", PERFECT),
        "a/../../escape2.ipynb": ("zip-slip", PERFECT),
        "/tmp/absolute.ipynb": ("absolute path", PERFECT),
        "C:/windows.ipynb": ("absolute path", PERFECT),
        "dunncy_1003_3_nested.zip": ("nested archive", inner.getvalue()),
        "big_1001_4_huge.ipynb": ("larger than 1 MiB", b" " * (3 * 2**20)),
        "leeann_1001_5_link.ipynb": ("symbolic link", "/etc/passwd"),
        "notes.pdf": ("not a notebook", b"%PDF"),
    }
    for i, (name, (word, data)) in enumerate(hostile.items()):
        honest = {"chenbo_1002_2_hw.ipynb": PERFECT}  # the honest classmate
        link = {name: data} if word == "symbolic link" else {}
        (tmp_path / f"{i}").mkdir()
        members = honest if link else {**honest, name: data}
        archive = _zip(tmp_path / f"{i}" / "canvas.zip", members, links=link)
        work = tmp_path / f"work{i}"
        work.mkdir()
        found = C.collect([], roster, work, C.ArchiveLimits(member_bytes=2**20), canvas=[archive])
        assert _who(found) == {"canvas.zip/chenbo_1002_2_hw.ipynb": "s02"}
        assert word in dict(found.refused).get(f"canvas.zip/{name}", ""), (name, found.refused)
        assert not (tmp_path / "escape.ipynb").exists() and not Path("/tmp/absolute.ipynb").exists()
        assert not any(p.is_symlink() for p in work.rglob("*"))
        assert {p.name for p in work.rglob("*") if p.is_file()} == {
            "chenbo_1002_2_hw.ipynb"
        }  # notebooks only


def test_a_lying_header_does_not_pass_the_size_cap(tmp_path):
    archive = _zip(tmp_path / "a.zip", {"x.ipynb": b"0" * (3 * 2**20)})
    data = bytearray(archive.read_bytes())
    # rewrite the central directory's uncompressed size to 10 bytes: the count while extracting decides
    cd = data.rfind(b"PK\x01\x02")
    data[cd + 24 : cd + 28] = (10).to_bytes(4, "little")
    archive.write_bytes(bytes(data))
    dest = tmp_path / "out"
    refused = C.extract_zip(archive, dest, C.ArchiveLimits(member_bytes=2**20))
    assert refused and "x.ipynb" in refused[0][0]
    assert not (dest / "x.ipynb").exists()


def test_too_many_members_and_not_a_zip_refuse_the_whole_archive(tmp_path, roster):
    many = _zip(tmp_path / "many.zip", {f"f{i}.ipynb": b"{}" for i in range(30)})
    fake = tmp_path / "fake.zip"
    fake.write_bytes(b"not a zip")
    link = tmp_path / "link.zip"
    link.symlink_to(many)
    (tmp_path / "work").mkdir()
    found = C.collect([many, fake, link], roster, tmp_path / "work", C.ArchiveLimits(members=20))
    reasons = dict(found.refused)
    assert "more than 20 entries" in reasons["many.zip"]
    assert "not a readable zip" in reasons["fake.zip"]
    assert not any(s.path.parent.parent == tmp_path / "work" for s in found.submissions)
    assert "never followed" in reasons["link.zip"] and found.submissions == []
    assert os.listdir(tmp_path / "work") == []


# ------------------------------------------------------------------ end to end: who is credited
def test_grading_credits_only_the_right_learner(tmp_path, trusted_mode):
    """The issue-33 attack end to end, with a Canvas zip beside it: the attacker's perfect file named for
    two learners is graded for nobody, each honest classmate keeps their own score."""
    archive = _zip(
        tmp_path / "canvas.zip",
        {"leeann_1001_1_hw.ipynb": PERFECT},
    )
    flat = tmp_path / "flat"
    flat.mkdir()
    (flat / "hw_s02.ipynb").write_bytes(STUB)  # the honest s02: a blank notebook
    (flat / "x_s02_s03.ipynb").write_bytes(PERFECT)  # s03, the attacker, names the file for both
    (tmp_path / "roster.csv").write_text(ROSTER)
    out = tmp_path / "out"
    argv = [
        "--assignment",
        "from-scratch",
        "--out",
        str(out),
        "--quiet",
        "--roster",
        str(tmp_path / "roster.csv"),
    ]
    argv += ["--unsafe-no-sandbox"] if trusted_mode == "unsafe-no-sandbox" else []
    assert grade.main([*argv, "--canvas", str(archive), str(flat)]) == 0
    canvas = {r["SIS User ID"]: r for r in csv.DictReader(io.StringIO((out / "canvas.csv").read_text()))}
    column = "Top-K metrics from scratch"
    # s03's only file is nobody's, so s03 is missing (an empty cell, not a graded 0)
    assert (canvas["s01"][column], canvas["s02"][column], canvas["s03"][column]) == ("14", "0", "")
    rows = {r["file"]: r for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))}
    assert rows["x_s02_s03.ipynb"]["learner_id"] == "" and rows["x_s02_s03.ipynb"]["score"] == "14"
    assert rows["hw_s02.ipynb"]["learner_id"] == "s02"
    shutil.rmtree(out)


def test_a_roster_line_with_more_cells_than_the_header_is_read():
    """Spreadsheets often leave a trailing comma: the extra cell is ignored (it used to crash the reader)."""
    roster = Roster.from_text("file,id,name\na.ipynb,s1,Ann,\nb.ipynb,s2,Bo\n")
    assert [(x.id, x.name) for x in roster.learners] == [("s1", "Ann"), ("s2", "Bo")]


# ------------------------------------------------ red team 39: only the instructor says "Canvas"
def test_a_folder_is_canvas_download_only_when_given_with_canvas(tmp_path, roster):
    """A folder of Canvas-shaped names given as a plain path: every name is a file name (the roster's
    patterns), no ``canvas:`` key and no LATE, and a note says how to give Canvas's download."""
    folder = tmp_path / "late"
    folder.mkdir()
    (folder / "leeann_LATE_1001_9_hw.ipynb").write_bytes(PERFECT)
    (folder / "x_1002_1_hw_s02.ipynb").write_bytes(STUB)  # a roster pattern (*_s02*) still matches
    found = C.collect([folder], roster, tmp_path)
    assert _who(found) == {"x_1002_1_hw_s02.ipynb": "s02"}
    assert dict(found.unmatched) == {
        "leeann_LATE_1001_9_hw.ipynb": "no roster entry's file pattern matches the name"
    }
    assert all(s.lms_late is None and s.key == "" for s in [*found.submissions, *found.unassigned])
    assert [n for n in found.notes if "--canvas" in n] == [
        "late: 2 notebook(s) are named like Canvas's download, but it was not given as one: their "
        "names are matched to the roster's file patterns only; if it is Canvas's download, give it with "
        "--canvas (and only Canvas's own files in it)"
    ]
    found = C.collect([], roster, tmp_path, canvas=[folder])
    assert _who(found) == {"leeann_LATE_1001_9_hw.ipynb": "s01", "x_1002_1_hw_s02.ipynb": "s02"}  # user ids
    assert [s.lms_late for s in found.submissions] == [True, False]
    assert not [n for n in found.notes if "--canvas" in n]


def test_canvas_takes_a_download_and_a_command_needs_submissions(tmp_path, capsys):
    (tmp_path / "hw.ipynb").write_bytes(PERFECT)
    base = ["--assignment", "from-scratch", "--out", str(tmp_path / "out")]
    with pytest.raises(SystemExit) as stop:
        grade.main([*base, "--canvas", str(tmp_path / "hw.ipynb")])
    assert stop.value.code == 2
    assert (
        "--canvas takes Canvas's bulk download: its zip, or the folder it unpacks to"
        in capsys.readouterr().err
    )
    with pytest.raises(SystemExit) as stop:
        grade.main(base)
    assert stop.value.code == 2 and "--canvas" in capsys.readouterr().err
    found = C.collect([], None, tmp_path, canvas=[tmp_path / "hw.ipynb"])
    assert found.refused == [("hw.ipynb", C.DOWNLOAD_ONLY[C.CANVAS])] and found.submissions == []


# ------------------------------------------------ red team 40: the instructor names every download
def test_a_plain_source_reads_no_learner_folder_and_no_gradescope_metadata(tmp_path, roster):
    """A folder inside a plain folder or zip is refused, naming the options that read one; a
    ``submission_metadata.yml`` there is an ordinary file; a zip of one folder is that folder's files."""
    subs = tmp_path / "subs"
    (subs / "chenbo").mkdir(parents=True)  # named after Bo's login
    (subs / "chenbo" / "hw.ipynb").write_bytes(STUB)
    (subs / "hw_s02.ipynb").write_bytes(PERFECT)  # Bo's own
    (subs / "submission_metadata.yml").write_text(GS_META)
    found = C.collect([subs], roster, tmp_path)
    assert _who(found) == {"hw_s02.ipynb": "s02"}
    assert found.refused == [("chenbo/", C.NESTED_FOLDER[C.PLAIN])]
    assert "--learner-folders" in C.NESTED_FOLDER[C.PLAIN] and "--gradescope" in C.NESTED_FOLDER[C.PLAIN]
    archive = _zip(tmp_path / "hw1.zip", {"hw1/hw_s02.ipynb": PERFECT, "hw1/ann.ipynb": STUB})
    (tmp_path / "w").mkdir()
    found = C.collect([archive], roster, tmp_path / "w")
    assert _who(found) == {"hw1.zip/hw1/hw_s02.ipynb": "s02", "hw1.zip/hw1/ann.ipynb": "s01"}
    found = C.collect([], roster, tmp_path / "w", gradescope=[subs])  # metadata, but no listed folder
    assert _who(found) == {} and all("not a submission folder" in why for _, why in found.refused)
    found = C.collect([], roster, tmp_path / "w", gradescope=[tmp_path / "w"])
    assert found.refused == [("w", "no submission_metadata.yml in it: it is not Gradescope's export")]


def test_a_learner_s_unreadable_metadata_is_named_by_its_line_never_quoted(tmp_path):
    root = tmp_path / "export"
    root.mkdir()
    (root / "submission_metadata.yml").write_text("ok: 1\n\u202e\u2066: b: c\n")
    found = C.collect([], None, tmp_path, gradescope=[root])
    assert found.refused == [
        ("submission_metadata.yml", "cannot read submission_metadata.yml: ScannerError (line 2)")
    ]
    c = C.Collection([], [("x.ipynb", "why \u202e\x1b[2J")], [], [], notes=["a \u2066 note"])
    assert C.instructor_lines(c) == [
        "not assigned to anybody: 'x.ipynb': why \\u202e\\x1b[2J",
        "note: a \\u2066 note",
    ]


def test_metadata_nested_too_deeply_refuses_that_export_only(tmp_path):
    """Red team 53's observation: a metadata file nested thousands of levels deep (no learner writes
    the file's structure) refuses its export with a reason, never the run."""
    root = tmp_path / "export"
    root.mkdir()
    (root / "submission_metadata.yml").write_text("a: " + "[" * 5000 + "]" * 5000 + "\n")
    found = C.collect([], None, tmp_path, gradescope=[root])
    why = "cannot read submission_metadata.yml: RecursionError"
    assert found.refused == [("submission_metadata.yml", why)]


def test_one_learners_files_cost_only_that_learner(tmp_path, roster):
    """Red team 46: only notebooks are extracted, each folder's first before any folder's second, and
    what is left in the archive is listed a few per folder, then counted."""
    members = {f"zed/node_modules/m{i}.js": b"x" for i in range(40)}  # zed's committed folder
    members.update({f"zed/extra{i}.ipynb": b"{" + b" " * 600 + b"}" for i in range(5)})
    members.update({"s01/hw.ipynb": PERFECT, "chenbo/hw.ipynb": STUB})
    archive = _zip(tmp_path / "classroom.zip", members)
    work = tmp_path / "w"
    work.mkdir()
    budget = len(PERFECT) + len(STUB) + 700  # room for each learner's first notebook and one more
    found = C.collect([], roster, work, C.ArchiveLimits(total_bytes=budget), learner_folders=[archive])
    assert {s.display for s in found.submissions} >= {
        "classroom.zip/s01/hw.ipynb",
        "classroom.zip/chenbo/hw.ipynb",
    }
    reasons = dict(found.refused)
    assert reasons["classroom.zip/zed"] == "37 more entries not extracted"  # three listed, then counted
    assert sum(name.startswith("classroom.zip/zed/extra") for name in reasons) == 4  # zed's extras, not ours
    assert not [p for p in work.rglob("*.js")]


def test_a_wrapped_export_lists_what_is_left_per_submission(tmp_path, roster):
    """The export's one top folder is no learner: what is left is listed per submission folder, so one
    learner's junk never hides a classmate's notebook put too deep to be read."""
    members = {"export/submission_metadata.yml": GS_META.encode()}
    members.update({f"export/submission_101/junk{i}.txt": b"x" for i in range(20)})
    members["export/submission_102/hw/hw.ipynb"] = PERFECT  # one folder too deep: never read
    archive = _zip(tmp_path / "export.zip", members)
    (tmp_path / "w").mkdir()
    found = C.collect([], roster, tmp_path / "w", gradescope=[archive])
    reasons = dict(found.refused)
    assert reasons["export.zip/export/submission_102/hw/hw.ipynb"].startswith("in a folder this download")
    assert reasons["export.zip/submission_101"] == "17 more entries not extracted"
