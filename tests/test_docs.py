"""The API reference site builds from the docstrings with no warning, and its guide examples run.

Sphinx (numpydoc, MyST, pydata theme: the ``test`` extra) builds ``docs/`` into a temporary folder with
warnings as errors; the guide pages' ``>>>`` examples are doctested (the API pages' examples are the
docstrings, doctested by pytest's ``--doctest-modules``).
"""

from __future__ import annotations

import doctest
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def test_the_site_builds_with_warnings_as_errors(tmp_path, require):
    try:
        import myst_parser  # noqa: F401
        import pydata_sphinx_theme  # noqa: F401
        import sphinx  # noqa: F401
    except ImportError:
        require(
            "sphinx", False, "pip install -e '.[test]' (sphinx, numpydoc, myst-parser, pydata-sphinx-theme)"
        )
    out = tmp_path / "html"
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-E", "-q", "-b", "html", str(DOCS), str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    front = (out / "index.html").read_text(encoding="utf-8")
    assert "Evaluate a DataFrame" in front and "API reference" in front
    page = (out / "generated" / "topkeval.r_precision_at_k.html").read_text(encoding="utf-8")
    assert "Parameters" in page and "Examples" in page
    import topkeval

    names = [name for name in topkeval.__all__ if callable(getattr(topkeval, name))]
    missing = [name for name in names if not (out / "generated" / f"topkeval.{name}.html").exists()]
    assert not missing, f"no API page for {missing}"
    table = (out / "guide" / "conventions.html").read_text(encoding="utf-8")
    assert "r_precision_at_k" in table and "min_k_n_relevant" in table  # the registry's table, rendered


@pytest.mark.parametrize(
    "page", [DOCS / "index.md", *sorted((DOCS / "guide").glob("*.md"))], ids=lambda p: p.name
)
def test_the_guide_examples_run(page):
    result = doctest.testfile(
        str(page),
        module_relative=False,
        optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS,
        verbose=False,
    )
    assert result.failed == 0, f"{page.name}: {result.failed} of {result.attempted} examples failed"
