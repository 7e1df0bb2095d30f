"""README.md's layout tree is generated from the packages (tools/render_readme.py) and must be current."""

from __future__ import annotations

from pathlib import Path

from tools.render_readme import LAYOUT, layout, render

ROOT = Path(__file__).resolve().parent.parent


def test_readme_layout_is_generated_from_the_packages():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert render(readme) == readme, "README.md is stale: run `python tools/render_readme.py`"


def test_layout_lists_every_library_module_and_course_subpackage():
    tree = layout()
    for path in (ROOT / "topkeval" / "src" / "topkeval").glob("*.py"):
        assert f"src/topkeval/{path.name}" in tree
    for package in (ROOT / "helpers").glob("*/__init__.py"):
        assert f"  {package.parent.name}/" in tree


def test_a_new_module_appears_in_the_layout(tmp_path, monkeypatch):
    import tools.render_readme as r

    fake = tmp_path / "topkeval"
    fake.mkdir()
    (fake / "brand_new.py").write_text('"""A module nobody listed by hand."""\n')
    monkeypatch.setattr(r, "LIBRARY", fake)
    (line,) = [row for row in r.layout().splitlines() if "brand_new.py" in row]
    assert line.split() == ["src/topkeval/brand_new.py", "A", "module", "nobody", "listed", "by", "hand."]
    assert LAYOUT[0].startswith("<!--")
