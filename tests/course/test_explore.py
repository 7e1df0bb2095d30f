"""helpers.course.explore: the metrics a learner moves, their formulas, and the static fallback.

Values are checked against hand-written oracles (fractions and closed forms), not against helpers.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import nbformat
import pytest

from helpers import ndcg_at_k
from helpers.course import explore
from helpers.course.examples import from_grades

ROOT = Path(__file__).resolve().parents[2]
log2 = math.log2


def _values(lines):
    return {line.metric: line.value for line in lines}


def test_hit_lines_match_hand_computed_values_and_formulas():
    lines = explore.hit_lines([1, 0, 1, 0, 1], k=5, n_relevant=4)
    values = _values(lines)
    assert values["P@5"] == pytest.approx(3 / 5)
    assert values["R@5"] == pytest.approx(3 / 4)
    assert values["AP@5"] == pytest.approx((1 + 2 / 3 + 3 / 5) / 4)
    ideal = 1 + 1 / log2(3) + 1 / log2(4) + 1 / log2(5)
    assert values["NDCG@5"] == pytest.approx((1 + 1 / log2(4) + 1 / log2(6)) / ideal)
    worked = {line.metric: line.worked for line in lines}
    assert worked == {
        "P@5": "3 / 5",
        "R@5": "3 / 4",
        "AP@5": "(1/1 + 2/3 + 3/5) / min(5, 4)",
        "NDCG@5": f"DCG {1 + 1 / log2(4) + 1 / log2(6):.4f} / IDCG {ideal:.4f}",
    }


def test_moving_a_hit_and_changing_k_change_the_numbers():
    top = _values(explore.hit_lines([1, 0, 0, 0], k=4))
    moved = _values(explore.hit_lines([0, 0, 0, 1], k=4))  # the same hit, moved from rank 1 to rank 4
    assert top["P@4"] == moved["P@4"] == 1 / 4  # a set metric does not see the move
    assert top["AP@4"] == 1 and moved["AP@4"] == pytest.approx(1 / 4)
    assert moved["NDCG@4"] == pytest.approx(1 / log2(5))
    cut = _values(explore.hit_lines([0, 0, 0, 1], k=3))
    assert cut == {"P@3": 0.0, "R@3": 0.0, "AP@3": 0.0, "NDCG@3": 0.0}


def test_grade_lines_match_hand_computed_values():
    lines = explore.grade_lines([2, 3, 3, 1, 2], k=5)
    dcg = 2 + 3 / log2(3) + 3 / 2 + 1 / log2(5) + 2 / log2(6)
    idcg = 3 + 3 / log2(3) + 2 / 2 + 2 / log2(5) + 1 / log2(6)
    assert _values(lines) == pytest.approx({"DCG@5": dcg, "IDCG@5": idcg, "NDCG@5": dcg / idcg})
    assert lines[0].worked == "2/log2(2) + 3/log2(3) + 3/log2(4) + 1/log2(5) + 2/log2(6)"
    assert lines[1].worked == "3/log2(2) + 3/log2(3) + 2/log2(4) + 2/log2(5) + 1/log2(6)"
    zero = explore.grade_lines([0, 0, 0], k=2)  # a decision: 0/0 is undefined, as helpers.ndcg_at_k says
    assert math.isnan(_values(zero)["NDCG@2"]) and zero[2].worked == "no relevant item: 0 / 0"
    assert "NDCG@2 = no relevant item: 0 / 0 = undefined" in explore.GradeExplorer([0, 0, 0], k=2).text()
    with pytest.raises(ValueError):
        ndcg_at_k(*from_grades([0, 0, 0]), 2)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: explore.hit_lines([], 1), "the list is empty"),
        (lambda: explore.hit_lines([1, 2], 1), "one of \\[0, 1\\]; got 2"),
        (lambda: explore.hit_lines([1, 0], 3), "k must be an integer from 1 to the list length 2; got 3"),
        (lambda: explore.hit_lines([1, 0], True), "k must be an integer"),
        (lambda: explore.hit_lines([1, 1], 2, n_relevant=1), "n_relevant must be at least the 2"),
        (lambda: explore.grade_lines([1, 4], 1), "one of \\[0, 1, 2, 3\\]; got 4"),
        (lambda: explore.HitExplorer([1, 0], k=0), "k must be an integer"),
    ],
)
def test_bad_input_says_what_is_wrong(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_static_view_is_stable_text_and_html():
    first = explore.HitExplorer([1, 0, 1, 0, 1], k=5, n_relevant=6)._repr_mimebundle_()
    again = explore.HitExplorer([1, 0, 1, 0, 1], k=5, n_relevant=6)._repr_mimebundle_()
    assert first["text/plain"] == again["text/plain"] and first["text/html"] == again["text/html"]
    assert first["text/plain"].splitlines()[0] == "ranks 1:hit 2:- 3:hit 4:- 5:hit | K = 5, |R| = 6"
    assert "P@5    = 3 / 5 = 0.6000   [hits in the top K / K]" in first["text/plain"]
    assert '<td class="topk-value" data-metric="AP">' in first["text/html"]
    if explore.widgets_available():
        assert "application/vnd.jupyter.widget-view+json" in first


def test_the_widget_updates_the_numbers_it_shows():
    pytest.importorskip("ipywidgets", reason="ipywidgets is in the course extra")
    shown = explore.HitExplorer([1, 0, 0, 1, 0], k=5, n_relevant=2)
    box = shown.widget()
    ranks, slider, table = box.children[0].children[1:], box.children[1], box.children[2]
    assert 'data-metric="P">0.4000<' in table.value
    ranks[1].value = True  # rank 2 becomes a hit (and |R| grows to 3: the list holds 3 hits)
    assert 'data-metric="P">0.6000<' in table.value and "|R| = 3" in table.value
    ranks[3].value = False  # moving the rank-4 hit to rank 2 is two clicks
    assert 'data-metric="AP">' + f"{(1 + 2 / 2) / 2:.4f}<" in table.value and "|R| = 2" in table.value
    slider.value = 1
    assert 'data-metric="P">1.0000<' in table.value and "K = 1" in table.value
    graded = explore.GradeExplorer([2, 3, 3, 1, 2], k=5)
    pickers = graded.widget().children[0].children[1:]
    pickers[3].value = 3  # rank 4: grade 1 -> 3
    dcg = 2 + 3 / log2(3) + 3 / 2 + 3 / log2(5) + 2 / log2(6)
    idcg = 3 + 3 / log2(3) + 3 / 2 + 2 / log2(5) + 2 / log2(6)
    assert f'data-metric="NDCG">{dcg / idcg:.4f}<' in graded.widget().children[2].value


def test_moving_a_miss_keeps_p_r_and_r_fixed():
    pytest.importorskip("ipywidgets", reason="ipywidgets is in the course extra")
    shown = explore.HitExplorer([1, 1, 1, 0, 1], k=5, n_relevant=6)  # notebook 01's top 5 of the car list
    ranks, table = shown.widget().children[0].children[1:], shown.widget().children[2]
    ranks[0].value = False  # first click: 3 hits, |R| still 6 (a relevant item the list no longer shows)
    assert "|R| = 6" in table.value and 'data-metric="R">0.5000<' in table.value
    ranks[3].value = True  # second click: the miss has moved from rank 4 to rank 1
    assert 'data-metric="P">0.8000<' in table.value and 'data-metric="R">0.6667<' in table.value
    ap = (1 / 2 + 2 / 3 + 3 / 4 + 4 / 5) / 5  # hits at ranks 2-5, divided by min(K, |R|) = 5
    assert "|R| = 6" in table.value and f'data-metric="AP">{ap:.4f}<' in table.value


def test_the_html_site_shows_the_static_table_not_an_empty_widget(tmp_path):
    spec = importlib.util.spec_from_file_location(
        "course_build_site_explore", ROOT / "tools" / "build_site.py"
    )
    site = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = site
    spec.loader.exec_module(site)
    bundle = explore.HitExplorer([1, 0, 1], k=2)._repr_mimebundle_()
    bundle["application/vnd.jupyter.widget-view+json"] = {
        "version_major": 2,
        "version_minor": 0,
        "model_id": "x",
    }
    cell = nbformat.v4.new_code_cell("explorer", execution_count=1)
    cell.outputs = [nbformat.v4.new_output("display_data", data=bundle)]
    folder = tmp_path / "nbs"
    folder.mkdir()
    nbformat.write(
        nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# T"), cell]), folder / "00-t.ipynb"
    )
    site.build(folder, tmp_path / "site")
    page = (tmp_path / "site" / "00-t.html").read_text(encoding="utf-8")
    assert 'data-metric="P">0.5000<' in page
    assert "jupyter-widgets" not in page
