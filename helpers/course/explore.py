"""Metrics you can move: a list of hits or grades, a cutoff K, and P/R/AP/NDCG with their formulas.

The core notebooks show one of these after each worked example. In JupyterLab it is a widget
(ipywidgets): click a rank to make it a hit or a miss (so "move a hit" is two clicks), drag K, pick a
grade, and every metric and its formula, with your numbers in it, updates. Everywhere else (nbval,
the HTML site, a terminal, no ipywidgets) it shows the same table for its starting state, as plain
text and HTML, so the stored output is stable.

Every number comes from :mod:`helpers`; this module only builds the inputs and writes the formulas.

Examples
--------
>>> for line in hit_lines([1, 0, 1, 0, 0], k=3, n_relevant=2):
...     print(line.metric, "=", line.worked, "=", f"{line.value:.4f}")
P@3 = 2 / 3 = 0.6667
R@3 = 2 / 2 = 1.0000
AP@3 = (1/1 + 2/3) / min(3, 2) = 0.8333
NDCG@3 = DCG 1.5000 / IDCG 1.6309 = 0.9197
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from helpers import (
    average_precision_at_k,
    dcg_at_k,
    idcg_at_k,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
)
from helpers.course.examples import from_binary, from_grades

__all__ = ["Line", "hit_lines", "grade_lines", "HitExplorer", "GradeExplorer", "widgets_available"]

GRADES = (0, 1, 2, 3)


@dataclass(frozen=True)
class Line:
    """One metric: its name at the current K, its formula, the formula with the numbers, its value.

    Parameters
    ----------
    metric : str
        The metric at the current cutoff (``"P@3"``).
    formula : str
        The definition in words and symbols.
    worked : str
        The formula with this list's numbers in it (``"2 / 3"``).
    value : float
        The value, computed by :mod:`helpers` (NaN for NDCG when every grade is 0).

    Examples
    --------
    >>> Line("P@3", "hits in the top K / K", "2 / 3", 2 / 3).worked
    '2 / 3'
    """

    metric: str
    formula: str
    worked: str
    value: float


def _check_labels(labels: Sequence[int], k: int, allowed: Sequence[int]) -> None:
    if not labels:
        raise ValueError("the list is empty: give at least one rank")
    bad = [x for x in labels if x not in allowed]
    if bad:
        raise ValueError(f"every entry must be one of {list(allowed)}; got {bad[0]!r}")
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= len(labels):
        raise ValueError(f"k must be an integer from 1 to the list length {len(labels)}; got {k!r}")


def _binary_inputs(labels: Sequence[int], n_relevant: int) -> tuple[list[str], set[str]]:
    ranking, relevant = from_binary(labels)
    missing = n_relevant - len(relevant)  # relevant items the list never shows
    return ranking, relevant | {f"unlisted{j}" for j in range(1, missing + 1)}


def hit_lines(labels: Sequence[int], k: int, n_relevant: int | None = None) -> list[Line]:
    """P@K, R@K, AP@K and NDCG@K of a 0/1 list, each with its formula worked out.

    Parameters
    ----------
    labels : sequence of {0, 1}
        ``labels[i]`` is 1 when the item at rank ``i + 1`` is relevant (a hit).
    k : int
        The cutoff, 1 to ``len(labels)``.
    n_relevant : int, optional
        All relevant items of the user, listed or not (``|R|``); at least the hits in the list.
        Default: the hits in the list.

    Returns
    -------
    list of Line
        The four metrics, in the order P, R, AP, NDCG.

    Raises
    ------
    ValueError
        For an empty list, a label other than 0 or 1, a cutoff outside 1 to the list's length,
        or fewer relevant items than the list holds (or none at all: recall would divide by 0).

    Examples
    --------
    >>> [line.metric for line in hit_lines([0, 1, 0], k=2, n_relevant=3)]
    ['P@2', 'R@2', 'AP@2', 'NDCG@2']
    >>> hit_lines([0, 1, 0], k=2, n_relevant=3)[1].worked
    '1 / 3'
    """
    _check_labels(labels, k, (0, 1))
    listed = sum(labels)
    n_relevant = listed if n_relevant is None else n_relevant
    if n_relevant < max(listed, 1):
        raise ValueError(f"n_relevant must be at least the {max(listed, 1)} relevant item(s) the list needs")
    ranking, relevant = _binary_inputs(labels, n_relevant)
    hit_ranks = [rank for rank, label in enumerate(labels[:k], start=1) if label]
    hits = len(hit_ranks)
    terms = " + ".join(f"{n}/{rank}" for n, rank in enumerate(hit_ranks, start=1)) or "0"
    dcg = dcg_at_k(ranking, relevant, k)
    idcg = idcg_at_k(ranking, relevant, k)
    return [
        Line(f"P@{k}", "hits in the top K / K", f"{hits} / {k}", precision_at_k(ranking, relevant, k)),
        Line(
            f"R@{k}", "hits in the top K / |R|", f"{hits} / {n_relevant}", recall_at_k(ranking, relevant, k)
        ),
        Line(
            f"AP@{k}",
            "(sum of P@i over the hit ranks i <= K) / min(K, |R|)",
            f"({terms}) / min({k}, {n_relevant})",
            average_precision_at_k(ranking, relevant, k),
        ),
        Line(
            f"NDCG@{k}",
            "DCG@K / IDCG@K, DCG@K = sum over hit ranks i <= K of 1 / log2(i + 1)",
            f"DCG {dcg:.4f} / IDCG {idcg:.4f}",
            ndcg_at_k(ranking, relevant, k),
        ),
    ]


def grade_lines(grades: Sequence[int], k: int) -> list[Line]:
    """DCG@K, IDCG@K and NDCG@K of a list of grades (0-3, in rank order), with the terms written out.

    The ideal is built from the listed grades (every judged item is in the list). A list with no
    relevant item has IDCG 0 and NDCG 0/0: the line says so and its value is NaN, instead of the
    error the library raises.

    Parameters
    ----------
    grades : sequence of {0, 1, 2, 3}
        The grade of the item at each rank, best rank first.
    k : int
        The cutoff, 1 to ``len(grades)``.

    Returns
    -------
    list of Line
        DCG, IDCG and NDCG at ``k``.

    Raises
    ------
    ValueError
        For an empty list, a grade outside 0-3 or a cutoff outside 1 to the list's length.

    Examples
    --------
    >>> for line in grade_lines([3, 0, 2], k=2):
    ...     print(line.metric, line.worked, round(line.value, 4))
    DCG@2 3/log2(2) + 0/log2(3) 3.0
    IDCG@2 3/log2(2) + 2/log2(3) 4.2619
    NDCG@2 3.0000 / 4.2619 0.7039
    """
    _check_labels(grades, k, GRADES)
    ranking, relevance = from_grades(grades)
    ideal = sorted(grades, reverse=True)

    def terms(values: Sequence[int]) -> str:
        return " + ".join(f"{g}/log2({i + 1})" for i, g in enumerate(values[:k], start=1))

    dcg = dcg_at_k(ranking, relevance, k)
    idcg = idcg_at_k(ranking, relevance, k)
    # No relevant item: IDCG = 0 and NDCG is 0/0, which helpers.ndcg_at_k refuses (a ValueError);
    # the explorer shows it as undefined (NaN) instead of a number.
    ndcg = ndcg_at_k(ranking, relevance, k) if idcg > 0 else math.nan
    return [
        Line(f"DCG@{k}", "sum over ranks i <= K of grade_i / log2(i + 1)", terms(grades), dcg),
        Line(f"IDCG@{k}", "the DCG@K of the grades sorted best first", terms(ideal), idcg),
        Line(
            f"NDCG@{k}",
            "DCG@K / IDCG@K (undefined, 0/0, when every grade is 0)",
            f"{dcg:.4f} / {idcg:.4f}" if idcg > 0 else "no relevant item: 0 / 0",
            ndcg,
        ),
    ]


# ----------------------------------------------------------------- rendering
def _shown(value: float) -> str:
    """A metric's value to 4 decimals, or ``undefined`` for 0/0 (NaN)."""
    return "undefined" if math.isnan(value) else f"{value:.4f}"


def _text(lines: list[Line], state: str) -> str:
    width = max(len(line.metric) for line in lines)
    rows = [
        f"{line.metric:<{width}} = {line.worked} = {_shown(line.value)}   [{line.formula}]" for line in lines
    ]
    return "\n".join([state, *rows])


def _html(lines: list[Line], state: str) -> str:
    rows = "".join(
        f"<tr><td><b>{html.escape(line.metric)}</b></td><td>{html.escape(line.formula)}</td>"
        f"<td>{html.escape(line.worked)}</td>"
        f'<td class="topk-value" data-metric="{html.escape(line.metric.split("@")[0])}">'
        f"{_shown(line.value)}</td></tr>"
        for line in lines
    )
    return (
        f'<div class="topk-explorer"><div>{html.escape(state)}</div>'
        "<table><thead><tr><th>metric</th><th>formula</th>"
        "<th>with your numbers</th><th>value</th></tr></thead>"
        f"<tbody>{rows}</tbody></table></div>"
    )


def widgets_available() -> bool:
    """True if ipywidgets can be imported (the interactive view needs it; the static one does not).

    Returns
    -------
    bool
        Whether an explorer shows as a widget in JupyterLab; without ipywidgets it shows the same
        table, fixed at its starting state.

    Examples
    --------
    >>> isinstance(widgets_available(), bool)
    True
    """
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        return False
    return True


class _Explorer:
    """A state (a list and K), its metric lines, a static view, and a widget that edits the state."""

    def __init__(self, values: Sequence[int], k: int, lines: Callable[[list[int], int], list[Line]]):
        self.values = list(values)
        self.k = k
        self._lines = lines
        lines(self.values, k)  # validate now: a bad start fails in the cell that made it
        self._widget = None

    def lines(self) -> list[Line]:
        """The metric lines of the current state."""
        return self._lines(self.values, self.k)

    def state(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def text(self) -> str:
        """The current state and its metrics, as plain text."""
        return _text(self.lines(), self.state())

    def html(self) -> str:
        """The current state and its metrics, as an HTML table."""
        return _html(self.lines(), self.state())

    def __repr__(self) -> str:
        return self.text()

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = {"text/plain": self.text(), "text/html": self.html()}
        if widgets_available():
            view = self.widget()._repr_mimebundle_(include=include, exclude=exclude) or {}
            key = "application/vnd.jupyter.widget-view+json"
            if key in view:
                bundle[key] = view[key]
        return bundle

    def widget(self):
        """The interactive view (built once): controls above, the metric table below."""
        if self._widget is None:
            import ipywidgets as w

            out = w.HTML(self.html())
            controls = self._controls(w, lambda: setattr(out, "value", self.html()))
            self._widget = w.VBox([*controls, out])
        return self._widget

    def _controls(self, w, refresh: Callable[[], None]) -> list:  # pragma: no cover - overridden
        raise NotImplementedError

    def _k_slider(self, w, refresh):
        slider = w.IntSlider(value=self.k, min=1, max=len(self.values), description="K")

        def on_k(change):
            self.k = change["new"]
            refresh()

        slider.observe(on_k, names="value")
        return slider


class HitExplorer(_Explorer):
    """Click a rank to make it a hit or a miss, drag K: P@K, R@K, AP@K and NDCG@K update.

    Outside JupyterLab (nbval, the HTML site, a terminal) it shows as the table of its starting
    state, so a notebook's stored output never changes.

    Parameters
    ----------
    labels : sequence of {0, 1}
        The starting list: 1 for a hit at that rank.
    k : int
        The starting cutoff, 1 to ``len(labels)``.
    n_relevant : int, optional
        ``|R|``, the user's relevant items, listed or not (default: the hits in the list). It stays
        fixed while you click, so moving a hit (two clicks) keeps P and R; a hit you remove is a
        relevant item the list no longer shows. It grows only while the list holds more hits than
        ``n_relevant``.

    Raises
    ------
    ValueError
        For a starting state that :func:`hit_lines` refuses: the cell that builds it fails, not a
        later click.

    Examples
    --------
    >>> explorer = HitExplorer([1, 0, 1], k=2, n_relevant=3)
    >>> print(explorer.text().splitlines()[0])
    ranks 1:hit 2:- 3:hit | K = 2, |R| = 3
    """

    def __init__(self, labels: Sequence[int], k: int, n_relevant: int | None = None):
        self.n_relevant = sum(labels) if n_relevant is None else n_relevant
        super().__init__(labels, k, lambda values, k: hit_lines(values, k, self._relevant(values)))

    def _relevant(self, values: list[int]) -> int:
        return max(sum(values), self.n_relevant, 1)

    def state(self) -> str:
        marks = " ".join(f"{rank}:{'hit' if v else '-'}" for rank, v in enumerate(self.values, start=1))
        return f"ranks {marks} | K = {self.k}, |R| = {self._relevant(self.values)}"

    def _controls(self, w, refresh):
        buttons = []
        for rank, value in enumerate(self.values, start=1):
            button = w.ToggleButton(
                value=bool(value),
                description=f"{rank}",
                tooltip=f"rank {rank}: click to make it a hit or a miss",
                layout=w.Layout(width="3.2em"),
            )

            def on_click(change, index=rank - 1):
                self.values[index] = int(change["new"])
                refresh()

            button.observe(on_click, names="value")
            buttons.append(button)
        label = w.HTML("ranks (pressed = hit):")
        return [w.HBox([label, *buttons]), self._k_slider(w, refresh)]


class GradeExplorer(_Explorer):
    """Pick a grade (0-3) at each rank, drag K: DCG@K, IDCG@K and NDCG@K update.

    Parameters
    ----------
    grades : sequence of {0, 1, 2, 3}
        The starting grades, best rank first.
    k : int
        The starting cutoff, 1 to ``len(grades)``.

    Raises
    ------
    ValueError
        For a starting state that :func:`grade_lines` refuses.

    Examples
    --------
    >>> print(GradeExplorer([0, 2, 1], k=3).text().splitlines()[-1])
    NDCG@3 = 1.7619 / 2.6309 = 0.6697   [DCG@K / IDCG@K (undefined, 0/0, when every grade is 0)]
    """

    def __init__(self, grades: Sequence[int], k: int):
        super().__init__(grades, k, grade_lines)

    def state(self) -> str:
        return f"grades {self.values} | K = {self.k}"

    def _controls(self, w, refresh):
        pickers = []
        for rank, grade in enumerate(self.values, start=1):
            picker = w.Dropdown(
                options=list(GRADES), value=grade, description=f"{rank}", layout=w.Layout(width="7em")
            )
            picker.style.description_width = "1.5em"

            def on_pick(change, index=rank - 1):
                self.values[index] = int(change["new"])
                refresh()

            picker.observe(on_pick, names="value")
            pickers.append(picker)
        return [w.HBox([w.HTML("grade at each rank:"), *pickers]), self._k_slider(w, refresh)]
