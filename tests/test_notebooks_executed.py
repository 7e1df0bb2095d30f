"""Every notebook in notebooks/ is committed executed, in order, with a proper opening.

nbval only compares outputs of cells that have an execution count, so a
cleared notebook would pass it trivially; these checks close that gap.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"
NAME = re.compile(r"^\d\d-[a-z0-9-]+\.ipynb$")
NOTEBOOKS = sorted(p for p in NOTEBOOK_DIR.glob("*.ipynb"))
CORE = [
    "00-start-here.ipynb",
    "01-from-classification-to-ranking.ipynb",
    "02-cutoffs.ipynb",
    "03-average-precision.ipynb",
    "04-reciprocal-rank-and-hit-ratio.ipynb",
    "05-dcg-ndcg.ipynb",
    "06-leave-one-out.ipynb",
]


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def test_the_core_notebooks_exist():
    names = {p.name for p in NOTEBOOKS}
    assert set(CORE) <= names


def test_no_stray_files_in_notebooks():
    stray = [
        p.name
        for p in NOTEBOOK_DIR.iterdir()
        if p.is_file() and p.suffix == ".ipynb" and not NAME.match(p.name)
    ]
    assert stray == [], f"notebook names must match {NAME.pattern}: {stray}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_name_matches_convention(path):
    assert NAME.match(path.name), f"{path.name} must match {NAME.pattern} (e.g. 02-cutoffs.ipynb)"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_code_cells_are_executed_in_order(path):
    cells = [c for c in _load(path)["cells"] if c["cell_type"] == "code"]
    assert cells, f"{path.name} has no code cell"
    counts = [c.get("execution_count") for c in cells]
    unexecuted = [i for i, n in enumerate(counts, start=1) if n is None]
    assert not unexecuted, (
        f"{path.name}: code cells {unexecuted} were never executed; run "
        f"jupyter nbconvert --to notebook --execute --inplace notebooks/{path.name}"
    )
    assert counts == list(range(1, len(cells) + 1)), (
        f"{path.name}: execution counts {counts} are not 1, 2, 3, ...: restart the kernel and run all cells"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_starts_with_title_and_you_will_learn(path):
    cells = _load(path)["cells"]
    assert cells and cells[0]["cell_type"] == "markdown", f"{path.name} must start with a markdown cell"
    text = _source(cells[0])
    assert text.lstrip().startswith("# "), f"{path.name}: the first cell must start with a '# Title'"
    assert "You will learn" in text, f"{path.name}: the first cell needs a 'You will learn' list"
    after = text.split("You will learn", 1)[1]
    bullets = [line for line in after.splitlines() if re.match(r"^\s*[-*]\s+\S", line)]
    assert len(bullets) >= 2, f"{path.name}: the 'You will learn' list needs at least two bullets"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_error_outputs_or_volatile_text(path):
    for cell in _load(path)["cells"]:
        for output in cell.get("outputs", []):
            assert output.get("output_type") != "error", f"{path.name}: a cell raised an uncaught error"
            text = "".join(output.get("text", "")) + "".join(output.get("data", {}).get("text/plain", ""))
            assert " at 0x" not in text, f"{path.name}: an object address in an output is not deterministic"


# Numbers in prose that are quoted, not computed: what a seed printed, a rounding of a computed
# value, a version. Every other decimal in a markdown cell must appear in the notebook's code or
# outputs (its leading digits will do), so re-running a notebook after a change cannot leave its
# prose quoting a stale result.
QUOTED = {
    "00-start-here.ipynb": {"3.11": "Python version"},
    "16-where-the-sources-and-libraries-differ.ipynb": {
        "0.6666666666666666": "seed 001's printed recall",
        "3.10": "Python version",
        "0.6667": "seed 001's printed value",
        "1.25": "NumPy version",
    },
}
DECIMAL = re.compile(r"(?<![\w.])-?\d+\.\d{2,}(?!\d)")


def _shown(cell: dict) -> str:
    parts = [_source(cell)]
    for output in cell.get("outputs", []):
        parts.append("".join(output.get("text", "")))
        parts += ["".join(v) for k, v in output.get("data", {}).items() if k.startswith("text/")]
    return "\n".join(parts)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_decimals_in_prose_are_computed_in_the_notebook(path):
    stale, unused = _stale_and_unused_decimals(_load(path)["cells"], QUOTED.get(path.name, {}))
    assert not stale, f"{path.name}: prose quotes {stale}, which no code cell shows; re-check the prose"
    assert not unused, f"{path.name}: QUOTED lists {unused}, no longer in the prose"


def _stale_and_unused_decimals(cells: list[dict], quoted: dict[str, str]) -> tuple[list[str], list[str]]:
    """The prose's decimals that no code cell shows (and ``quoted`` does not explain), and the entries
    of ``quoted`` that the prose no longer holds."""
    shown = "\n".join(_shown(c) for c in cells if c.get("cell_type") == "code")
    markdown = [_source(c) for c in cells if c.get("cell_type") == "markdown"]
    prose = {n for text in markdown for n in DECIMAL.findall(text)}
    stale = sorted(n for n in prose - set(quoted) if n not in shown)  # "0.714" may quote 0.7142857
    unused = sorted(n for n in quoted if not any(n in text for text in markdown))
    return stale, unused


# ---------------------------------------------------------------- stale prose: counts and lists
# Counts and lists that the course states in prose come from the helpers or are checked here, so adding an
# exercise, a notebook or a library cannot leave a sentence behind.
ASSIGNMENTS = {"from-scratch", "leave-one-out", "choosing-metrics"}
NUMBER_WORDS = {
    word: n
    for n, word in enumerate(
        (
            "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen"
        ).split()
    )
}


def _markdown(path: Path) -> str:
    return "\n".join(_source(c) for c in _load(path)["cells"] if c.get("cell_type") == "markdown")


def _outputs(path: Path) -> str:
    cells = [c for c in _load(path)["cells"] if c.get("cell_type") == "code"]
    return "\n".join(_shown(c) for c in cells)


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if p.name[0] == "0"], ids=lambda p: p.name)
def test_links_the_graded_assignment_that_covers_it(path):
    """Every notebook 00-09 links at least one assignment in exercises/, by a relative link that exists."""
    links = re.findall(r"\]\((\.\./exercises/([a-z-]+)\.ipynb)\)", _markdown(path))
    assert links, f"{path.name} links no graded assignment (../exercises/<name>.ipynb)"
    for target, name in links:
        assert name in ASSIGNMENTS, f"{path.name} links an unknown assignment {name}"
        assert (path.parent / target).resolve().is_file(), f"{path.name}: {target} does not exist"


def test_notebook_00_lists_every_notebook():
    start = NOTEBOOK_DIR / "00-start-here.ipynb"
    text = _markdown(start)
    missing = [p.name for p in NOTEBOOKS if p.name != start.name and f"]({p.name})" not in text]
    assert not missing, f"00-start-here's table of notebooks does not link {missing}"
    assert not re.search(r"\b(seven|six|eight|nine|ten) (core )?notebooks\b", text), (
        "state no notebook count in prose"
    )


def test_notebook_00_progress_output_counts_every_exercise():
    import helpers.course as course

    total = len(course.all_questions())
    shown = re.findall(r"Exercises correct: \d+ of (\d+)", _outputs(NOTEBOOK_DIR / "00-start-here.ipynb"))
    assert shown and all(int(n) == total for n in shown), (
        f"00-start-here's stored progress() output says {shown} exercises; "
        f"helpers.course has {total}: re-execute it"
    )


def test_notebook_07_library_counts_come_from_helpers():
    from helpers import conventions

    path = NOTEBOOK_DIR / "07-same-name-different-numbers.ipynb"
    text = _markdown(path)
    outputs = _outputs(path)
    libraries = len(conventions.LIBRARIES)
    match = re.search(r"\b(\w+) libraries compute top-K metrics", text, flags=re.IGNORECASE)
    assert match and NUMBER_WORDS[match.group(1).lower()] == libraries, (match and match.group(0), libraries)
    assert f"{libraries} libraries; how many have each metric" in outputs
    with_map = re.search(r"'MAP@10': (\d+)", outputs)
    said = re.search(r"\b(\w+) of them have a \"MAP@10\"", text, flags=re.IGNORECASE)
    assert with_map and said and NUMBER_WORDS[said.group(1).lower()] == int(with_map.group(1)), (
        "07's opening sentence must say how many libraries have a MAP@10, as its printed count does"
    )


def test_capstone_outputs_come_from_the_real_movielens_100k():
    """Notebook 13's committed run is on the real ratings (counts pinned in tests/movielens_wheel.py).

    Not on the synthetic log.
    """
    from tests import movielens_wheel as real

    path = NOTEBOOK_DIR / "13-capstone-movielens.ipynb"
    assert path.name in real.REAL_DATA_NOTEBOOKS
    first = f"MovieLens 100K: {real.N_RATINGS:,} ratings, {real.N_USERS} users, {real.N_ITEMS:,} items"
    assert first in _outputs(path), f"{path.name} must be executed on the real MovieLens 100K ({first!r})"
    assert "synthetic" not in _outputs(path).lower()
