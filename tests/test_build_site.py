"""tools/build_site.py: the read-only HTML course builds from the committed notebooks."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load():
    name = "course_build_site"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / "build_site.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


site = _load()


def test_site_lists_every_notebook_in_order(tmp_path):
    notebooks = site.course_notebooks(ROOT / "notebooks")
    assert notebooks and notebooks[0].name == "00-start-here.ipynb"
    out = tmp_path / "site"
    pages = site.build(ROOT / "notebooks", out)
    index = (out / "index.html").read_text(encoding="utf-8")
    links = re.findall(r'<li><a href="([^"]+)">([^<]+)</a>', index)
    assert [href for href, _ in links] == [f"{p.stem}.html" for p in notebooks]
    for (href, text), path in zip(links, notebooks, strict=True):
        assert text == site.html.escape(site.title_of(nbformat.read(path, as_version=4)))
        page = (out / href).read_text(encoding="utf-8")
        assert "jp-Notebook" in page and "jp-OutputArea-output" in page, f"{href} has no rendered outputs"
    assert len(pages) == len(notebooks)
    # Links between notebooks point at the HTML pages, not at .ipynb files.
    start = (out / "00-start-here.html").read_text(encoding="utf-8")
    assert not re.search(r'href="(\./)?\d\d-[a-z0-9-]+\.ipynb', start)


def _notebook(tmp_path: Path, *cells) -> Path:
    folder = tmp_path / "nbs"
    folder.mkdir(exist_ok=True)
    nb = nbformat.v4.new_notebook(cells=list(cells))
    path = folder / "00-x.ipynb"
    nbformat.write(nb, path)
    return folder


def test_title_is_the_first_heading_without_markup():
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_markdown_cell("Some text\n\n## The *real* `title` [link](x.ipynb)\n# Later")]
    )
    assert site.title_of(nb) == "The real title link"


def test_unexecuted_notebook_is_refused(tmp_path):
    cell = nbformat.v4.new_code_cell("1 + 1")  # execution_count None: never run
    folder = _notebook(tmp_path, nbformat.v4.new_markdown_cell("# T"), cell)
    with pytest.raises(ValueError, match=r"00-x.ipynb: code cells \[1\] were never run"):
        site.build(folder, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_notebook_without_heading_is_refused(tmp_path):
    folder = _notebook(tmp_path, nbformat.v4.new_markdown_cell("no heading"))
    with pytest.raises(ValueError, match="no Markdown heading"):
        site.build(folder, tmp_path / "out")


def test_empty_folder_is_refused(tmp_path):
    with pytest.raises(ValueError, match="no NN-name.ipynb notebooks"):
        site.build(tmp_path, tmp_path / "out")
