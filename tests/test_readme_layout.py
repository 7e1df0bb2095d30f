"""README.md's layout tree is generated from the packages (tools/render_readme.py) and must be current."""

from __future__ import annotations

import re
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


def change_table_paths(readme: str) -> list[str]:
    """Every path written in the README's 'Where does my change go' table (``NN`` stands for a number)."""
    section = readme.split("### Where does my change go", 1)[1].split("\n## ", 1)[0]
    paths = []
    for token in re.findall(r"`([^`]+)`", section):
        word = token.split()[-1]
        if "/" in word and not word.startswith(("http", "-")):
            paths.append(word)
    return paths


def test_every_path_in_the_change_table_exists():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    paths = change_table_paths(readme)
    assert len(paths) > 20, paths
    missing = [p for p in paths if not list(ROOT.glob(p.replace("NN", "[0-9][0-9]")))]
    assert not missing, f"README's change table names paths that do not exist: {missing}"


def test_the_change_table_check_finds_a_stale_path():
    fake = "### Where does my change go\n| a | `helpers/no_such_module.py` | `tools/render_readme.py` |\n"
    fake += "## Next\n"
    paths = change_table_paths(fake)
    assert paths == ["helpers/no_such_module.py", "tools/render_readme.py"]
    assert not list(ROOT.glob(paths[0]))
