"""Red team 48: one learner's folder of many tiny notebooks exhausts the grader's memory before anybody
is graded (quadratic conflict bookkeeping in ``collect._losers``); no classmate gets a grade.

Round 46 raised the archive bound to 1,000,000 entries and round 47 extracts every notebook a reader
reads (each learner's first before anyone's second). In a ``--learner-folders`` download (a GitHub
Classroom / nbgrader zip: each folder is whatever its learner committed) every notebook at the top of
Al's folder claims Al (``collect._learner_folder``); several claims of one learner are a CONFLICT, and
``collect._losers`` records, FOR EACH of the N files, a list of the N-1 others::

    out[i] = _Lost([j for j in strongest if j != i], True)

That is N² list slots: measured, 8,000 tiny notebooks (an 850 KB zip) cost ~650 MB; 25,000 (a
2.6 MB zip) die with ``MemoryError`` under a 3 GB cap; 100,000 (a 10 MB zip, a repository git
handles easily) would need ~80 GB. ``collect`` runs before anything is graded and nothing catches
``MemoryError``: the command dies with a traceback (or the host's OOM killer strikes, taking whatever
else runs there) and NO learner of the run is graded, whatever the order of extraction.

Test scaling (not an artefact of the hole): the instructor's command runs in a subprocess whose
address space is capped at 2 GiB (``RLIMIT_AS``), with 18,000 of Al's notebooks (~2.6 GB of list
slots; without the cap the same happens at a larger N, on the host's memory). A control run with 20
notebooks under the same cap shows the cap alone harms nobody (the sandboxes run under it and grade
Bo and Cy). Once collect is linear the run goes on to grade the 18,000 unassigned files (graded for
nobody, after every assigned learner), so the test stops it with SIGTERM after Bo and Cy had time to
be graded (the grader's documented Ctrl-C/SIGTERM path keeps every result so far) and reads their
rows with ``export``.

Suggested fix principle: conflict bookkeeping linear in the number of claimants (one shared list of
the claimants, with each loser referring to it; reasons naming a few and counting the rest).

Closed at stop 44: conflict bookkeeping shares one list of claimants and names five, then counts
(``collect._losers``, ``_rival_reason``, ``_some``); a Canvas name with several readings is extracted
after every learner's first (``_owner``); members left are listed per learner, notebooks first, three
lines then a count (``_left_over``).
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

from tests.grade.redteam_r5.common import CORPUS

ROOT = Path(__file__).resolve().parents[3]
_CAPPED = """
import resource, sys
cap = 2 * 2**30
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
from helpers.grade import grader
sys.exit(grader.main(sys.argv[1:]))
"""


def _run(tmp_path: Path, n: int, wait: float):
    download = tmp_path / "classroom.zip"
    with zipfile.ZipFile(download, "w", zipfile.ZIP_STORED) as zf:
        zf.write(CORPUS / "perfect.ipynb", "al/hw.ipynb")
        for i in range(n):  # Al's committed notebooks: tiny, all at his folder's top
            zf.writestr(f"al/x{i}.ipynb", "{}")
        zf.write(CORPUS / "perfect.ipynb", "bo/hw.ipynb")  # Bo: honest, full marks
    shutil.copy(CORPUS / "perfect.ipynb", tmp_path / "hw_cy.ipynb")  # Cy: an honest plain file
    roster = tmp_path / "roster.csv"
    roster.write_text("file,id,name\nal.ipynb,al,Al\nbo.ipynb,bo,Bo\nhw_cy.ipynb,cy,Cy\n")
    out = tmp_path / "out"
    args = ["--assignment", "from-scratch", "--out", str(out), "--quiet", "--jobs", "2"]
    args += ["--roster", str(roster), "--learner-folders", str(download), str(tmp_path / "hw_cy.ipynb")]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-c", _CAPPED, *args], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + wait
    while proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.5)
    if proc.poll() is None:  # still grading the unassigned files: stop it the documented way
        proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    exported = subprocess.run(
        [sys.executable, "-m", "helpers.grade", "export", str(out)], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    grades = out / "grades.csv"
    text = grades.read_text("utf-8") if grades.exists() else ""
    rows = {r["learner_id"]: r for r in csv.DictReader(io.StringIO(text)) if r["learner_id"]}
    return err[-1500:] + exported.stderr[-500:], rows


def test_control_cap_alone_harms_nobody(tmp_path, bwrap):
    err, rows = _run(tmp_path, 20, 60)
    assert rows["bo"]["score"] == "14" and rows["cy"]["score"] == "14", (rows, err)


def test_many_notebooks_in_one_folder_do_not_stop_the_run(tmp_path, bwrap):
    err, rows = _run(tmp_path, 18_000, 75)
    assert "bo" in rows and "cy" in rows, err
    assert rows["bo"]["status"] == "graded" and rows["bo"]["score"] == "14", rows["bo"]
    assert rows["cy"]["status"] == "graded" and rows["cy"]["score"] == "14", rows["cy"]
