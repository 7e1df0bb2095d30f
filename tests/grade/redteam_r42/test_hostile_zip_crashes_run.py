"""Red team 42: a learner's zip that Python's ``zipfile`` cannot decode stops the whole run.

The README reads "single notebooks, and flat folders and zips of them as plain paths" (an emailed zip,
a late zip given beside the class's folder). ``collect.extract_zip`` catches ``OSError`` and
``zipfile.BadZipFile`` when it opens the archive, and ``_extract_one`` catches ``OSError``,
``BadZipFile``, ``EOFError``, ``RuntimeError`` and ``NotImplementedError`` while it reads a member.
Three malformed zips raise something else, which no caller catches: ``collect`` dies with a traceback
before anything is graded, so nobody in the run gets a grade (here the honest classmate Cy, given in
the same command), no gradebook, no ``grades.csv``; the traceback does not even say which zip:

1. a member name flagged UTF-8 (general purpose bit 11) that is not UTF-8: ``UnicodeDecodeError``
   from ``zipfile.ZipFile()`` itself (Python decodes the central directory strictly);
2. a deflated member whose data is not a deflate stream: ``zlib.error``;
3. an LZMA member with broken properties: ``_lzma.LZMAError``.

All three are a few bytes changed in an ordinary zip (a broken zip tool or a learner on purpose).
Suggested fix principle: an archive is refused, never trusted, whatever the error: read each archive
under one broad ``except Exception`` that refuses the archive (or the member) with the exception's type
name, as the rest of the collection goes on.

The honest classmate Cy (``cy.ipynb``, given as a plain file in the same run) must get full marks.

Closed at stop 44: whatever a crafted archive makes ``zipfile`` raise refuses that archive (or
member) with the exception's type name (``collect.extract_zip``, ``_extract_one``); the run goes on.
"""

from __future__ import annotations

import contextlib
import csv
import io
import shutil
import struct
import zipfile

import pytest

from helpers.grade import grader as grade
from tests.grade.redteam_r5.common import CORPUS

BLANK = (CORPUS / "empty_notebook.ipynb").read_bytes()


def _data_start(raw: bytes) -> int:
    i = raw.find(b"PK\x03\x04")
    n, m = struct.unpack_from("<HH", raw, i + 26)
    return i + 30 + n + m


def _utf8_flag_bad_name(path):
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("mal.ipynb", BLANK)
    raw = bytearray(path.read_bytes().replace(b"mal.ipynb", b"m\xffl.ipynb"))
    for sig, off in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        i = raw.find(sig)
        struct.pack_into("<H", raw, i + off, struct.unpack_from("<H", raw, i + off)[0] | 0x800)
    path.write_bytes(bytes(raw))


def _bad_deflate(path):
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("mal.ipynb", BLANK)
    raw = bytearray(path.read_bytes())
    start = _data_start(raw)
    raw[start : start + 2] = b"\xff\xff"  # an invalid deflate block type
    path.write_bytes(bytes(raw))


def _bad_lzma(path):
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_LZMA) as zf:
        zf.writestr("mal.ipynb", BLANK)
    raw = bytearray(path.read_bytes())
    start = _data_start(raw)
    for k in range(4, 30):
        raw[start + k] ^= 0x5A  # the LZMA properties
    path.write_bytes(bytes(raw))


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(_utf8_flag_bad_name, id="utf8-flag-invalid-name"),
        pytest.param(_bad_deflate, id="corrupt-deflate"),
        pytest.param(_bad_lzma, id="corrupt-lzma"),
    ],
)
def test_malformed_zip_is_refused_and_the_classmate_graded(tmp_path, bwrap, make):
    cy = tmp_path / "cy.ipynb"
    shutil.copy(CORPUS / "perfect.ipynb", cy)
    mal = tmp_path / "mallory.zip"
    make(mal)
    out = tmp_path / "out"
    args = ["--assignment", "from-scratch", "--out", str(out), "--quiet", "--jobs", "2", str(cy), str(mal)]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        assert grade.main(args) == 0
    rows = {r["file"]: r["score"] for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))}
    assert rows.get("cy.ipynb") == "14", rows
    assert "mallory.zip" in err.getvalue()  # refused, saying which zip
