"""The answer key of ``choosing-metrics``: the instructor's, never in the learner release.

The skill ``choosing-metrics`` grades is the choice of metric and options, so the code that computes
its expected values *is* the answer: it lives here, apart from :mod:`helpers.grade.assignments`, and
``tools/learner_release.py`` leaves this file out (red team 10: a notebook pasting the published
reference code scored 10/10 on any run's data). :mod:`helpers.grade.assignments` imports it only when
an expected value is computed, and says what to do where it is missing.

Examples
--------
>>> sorted(ANSWERS)
['q1', 'q2', 'q3', 'q4', 'q5']
>>> 0.0 <= ANSWERS["q1"](None) <= 1.0
True
"""

from __future__ import annotations

from collections.abc import Callable

from helpers.experiments.exercise_data import choosing_metrics_data

__all__ = ["ANSWERS"]


def _frames(seed: int | str | None, model: str):
    import pandas as pd

    recs, relevant = choosing_metrics_data(seed)
    rows = [(u, item, r) for u, items in recs[model].items() for r, item in enumerate(items, start=1)]
    truth = [(u, item) for u, items in relevant.items() for item in items]
    return pd.DataFrame(rows, columns=["user", "item", "rank"]), pd.DataFrame(truth, columns=["user", "item"])


def _mean(seed: int | str | None, model: str, metric: str, k: int, **options) -> float:
    import helpers

    recs, truth = _frames(seed, model)
    users = sorted(choosing_metrics_data(seed)[1])
    table = helpers.evaluate(recs, truth, k, metrics=[metric], **options)
    column = table[f"{metric}@{k}"]
    if options.get("empty") == "skip":
        return float(column.mean())
    return float(column.reindex(users, fill_value=0.0).mean())


def _answer_q3(seed: int | str | None) -> int:
    import helpers

    recs, relevant = choosing_metrics_data(seed)
    wins = 0
    for user, rel in relevant.items():
        if rel and helpers.ndcg_at_k(recs["A"][user], set(rel), 5) > helpers.ndcg_at_k(
            recs["B"][user], set(rel), 5
        ):
            wins += 1
    return wins


def _map_denominators(seed: int | str | None) -> float:
    by_relevant = _mean(seed, "A", "ap", 5, empty="skip", denominator="n_relevant")
    return by_relevant - _mean(seed, "A", "ap", 5, empty="skip", denominator="min_k_n_relevant")


#: Question name -> its expected value for a data seed (``None``: the data a learner has at home).
ANSWERS: dict[str, Callable[[int | str | None], float]] = {
    "q1": lambda seed: _mean(seed, "A", "precision", 5, empty="zero"),
    "q2": lambda seed: _mean(seed, "B", "rr", 5, empty="zero") - _mean(seed, "A", "rr", 5, empty="zero"),
    "q3": _answer_q3,
    "q4": _map_denominators,
    "q5": lambda seed: _mean(seed, "B", "recall", 5, empty="skip"),
}
