"""tools/trec_eval_suite.py: trec_eval's test suite is fetched whole and checked, or not at all."""

from __future__ import annotations

import io
import tarfile

from tools import trec_eval_suite

TOP = f"trec_eval-{trec_eval_suite.COMMIT}"


def _tarball(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, content in members.items():
            info = tarfile.TarInfo(f"{TOP}/{name}")
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


def test_a_tarball_that_is_not_trec_eval_10_leaves_nothing_behind(tmp_path):
    dest = tmp_path / "trec_eval"
    archive = _tarball({"Makefile": b"quicktest:\n", "test/out.test": b"map all 1.0\n"})
    problem = trec_eval_suite.fetch(dest, archive)
    assert problem is not None and "differ from trec_eval 10.0's" in problem
    assert not dest.exists()


def test_a_matching_tarball_is_installed_and_checked_in_place(tmp_path, monkeypatch):
    files = {"Makefile": b"quicktest:\n", "test/out.test": b"map all 1.0\n"}
    monkeypatch.setattr(trec_eval_suite, "DIGEST", trec_eval_suite.digest(files))
    dest = tmp_path / "trec_eval"
    archive = _tarball({**files, "src/trec_eval.c": b"int main;", "../escape": b"x"})
    assert trec_eval_suite.fetch(dest, archive) is None
    assert sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file()) == sorted(files)
    assert not (tmp_path / "escape").exists()

    # a second call finds the checked files and downloads nothing
    def no_download():
        raise AssertionError("downloaded again")

    monkeypatch.setattr(trec_eval_suite, "_download", no_download)
    assert trec_eval_suite.fetch(dest) is None


def test_no_network_is_a_warning_not_a_failure(tmp_path, monkeypatch, capsys):
    def offline():
        raise OSError("Name or service not known")

    monkeypatch.setattr(trec_eval_suite, "_download", offline)
    assert trec_eval_suite.main(["--dest", str(tmp_path / "trec_eval")]) == 0
    err = capsys.readouterr().err
    assert "WARNING" in err and "SKIPPED" in err and "Name or service not known" in err


def test_garbage_is_not_a_tarball(tmp_path):
    problem = trec_eval_suite.fetch(tmp_path / "t", b"<html>rate limited</html>")
    assert problem is not None and "not a readable tarball" in problem
