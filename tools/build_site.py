"""Build a read-only HTML version of the course: ``python tools/build_site.py [--out _site]``.

For people who only want to read. Each committed notebook in ``notebooks/`` is converted as it is
stored (executed, outputs included; nothing is re-run) with nbconvert's JupyterLab template, and an
``index.html`` lists them in course order, titled by each notebook's first heading. Links between
notebooks (``02-cutoffs.ipynb``) are rewritten to the HTML pages. Works offline; figures are
embedded in the pages. (Formulas are typeset by MathJax, which the pages load from a CDN when they
are viewed; without a network the LaTeX source shows instead.)

A notebook with code cells that were never run is refused: the site would show no outputs.
"""

from __future__ import annotations

import argparse
import html
import re
import shutil
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NOTEBOOK_NAME = re.compile(r"\d\d-[a-z0-9-]+\.ipynb")


def course_notebooks(notebook_dir: Path) -> list[Path]:
    """The course notebooks (``NN-name.ipynb``), in course order."""
    return sorted(p for p in notebook_dir.glob("*.ipynb") if NOTEBOOK_NAME.fullmatch(p.name))


def title_of(nb) -> str:
    """The text of the notebook's first Markdown heading (any level), without Markdown markup."""
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        for line in cell.source.splitlines():
            match = re.match(r"\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", line)
            if match:
                text = re.sub(r"[*_`]", "", match.group(1))
                return re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text).strip()
    raise ValueError("the notebook has no Markdown heading; start it with '# Title'")


def unexecuted_cells(nb) -> list[int]:
    """Indices (1-based, among code cells) of non-empty code cells that were never run."""
    code = [c for c in nb.cells if c.cell_type == "code"]
    return [i for i, c in enumerate(code, start=1) if c.source.strip() and c.get("execution_count") is None]


def _link_pages(page: str, names: set[str]) -> str:
    """Point links to sibling notebooks (``02-cutoffs.ipynb#x``) at their HTML pages."""

    def repl(match: re.Match) -> str:
        target = match.group(2)
        stem = target.split("#", 1)[0]
        if stem in names:
            return f'{match.group(1)}{Path(stem).stem}.html{target[len(stem) :]}"'
        return match.group(0)

    return re.sub(r'(href=")(?:\./|\.\./notebooks/)?([^"#:/]+\.ipynb(?:#[^"]*)?)"', repl, page)


INDEX = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
  body {{ font-family: system-ui, -apple-system, "Segoe UI", sans-serif; max-width: 46rem;
         margin: 2.5rem auto; padding: 0 1rem; line-height: 1.5; color: #1a1a1a; }}
  h1 {{ font-size: 1.8rem; margin-bottom: .25rem; }}
  ol {{ padding-left: 1.6rem; }}
  li {{ margin: .45rem 0; }}
  a {{ color: #0b57a4; }}
  .file {{ color: #555; font-family: ui-monospace, monospace; font-size: .85rem; }}
  footer {{ margin-top: 2.5rem; color: #555; font-size: .9rem; }}
</style>
</head>
<body>
<h1>{title}</h1>
<p>A read-only version of the course: every notebook as it is stored, with its outputs.
To run the code and do the exercises, open the notebooks in JupyterLab (see the repository's README).</p>
<ol start="0">
{items}
</ol>
<footer>Built from {count} notebooks with nbconvert.</footer>
</body>
</html>
"""


def _static_outputs():
    """Exporter settings that show an interactive output's static fallback.

    The notebooks are executed without a browser, so no widget state is saved: a widget view
    would render as an empty box. The course's widgets also carry their state as HTML
    (``helpers.course.explore``), which the page shows instead.
    """
    from nbconvert import HTMLExporter
    from traitlets.config import Config

    priority = HTMLExporter().default_config.NbConvertBase.display_data_priority
    config = Config()
    config.NbConvertBase.display_data_priority = [
        m for m in priority if m != "application/vnd.jupyter.widget-view+json"
    ]
    return config


def build(
    notebook_dir: Path = REPO / "notebooks",
    out: Path = REPO / "_site",
    title: str = "Evaluating top-K recommendations",
) -> list[tuple[str, str]]:
    """Write one HTML page per course notebook plus ``index.html`` into ``out``.

    Returns ``(page file name, title)`` pairs in course order. ``out`` is emptied first.
    Raises ValueError when there is no notebook, a notebook has no heading, or a code cell was
    never run.
    """
    import nbformat
    from nbconvert import HTMLExporter

    _STATIC_OUTPUTS = _static_outputs()

    notebooks = course_notebooks(notebook_dir)
    if not notebooks:
        raise ValueError(f"no NN-name.ipynb notebooks in {notebook_dir}")
    loaded = []
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        missing = unexecuted_cells(nb)
        if missing:
            raise ValueError(
                f"{path.name}: code cells {missing} were never run; execute the notebook "
                f"(jupyter nbconvert --to notebook --execute --inplace {path.name}) first"
            )
        try:
            loaded.append((path, nb, title_of(nb)))
        except ValueError as exc:
            raise ValueError(f"{path.name}: {exc}") from None

    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    exporter = HTMLExporter(template_name="lab", embed_images=True, config=_STATIC_OUTPUTS)
    names = {p.name for p, _, _ in loaded}
    pages = []
    for path, nb, nb_title in loaded:
        body, _ = exporter.from_notebook_node(
            nb, resources={"metadata": {"name": nb_title}, "unique_key": path.stem}
        )
        page = f"{path.stem}.html"
        (out / page).write_text(_link_pages(body, names), encoding="utf-8")
        pages.append((page, nb_title))
    items = "\n".join(
        f'<li><a href="{html.escape(page)}">{html.escape(nb_title)}</a> '
        f'<span class="file">{html.escape(Path(page).stem)}.ipynb</span></li>'
        for page, nb_title in pages
    )
    (out / "index.html").write_text(
        INDEX.format(title=html.escape(title), items=items, count=len(pages)), encoding="utf-8"
    )
    return pages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notebooks", type=Path, default=REPO / "notebooks", help="folder of NN-name.ipynb")
    parser.add_argument("--out", type=Path, default=REPO / "_site", help="output folder (emptied first)")
    args = parser.parse_args(argv)
    start = time.monotonic()
    try:
        pages = build(args.notebooks, args.out)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for page, nb_title in pages:
        print(f"  {page:45s} {nb_title}")
    print(
        f"{len(pages)} pages + index.html in {args.out} ({time.monotonic() - start:.1f} s); "
        f"open {args.out / 'index.html'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
