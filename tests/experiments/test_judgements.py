"""infAP (helpers.experiments.judgements.inferred_ap) against independent oracles."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.experiments.judgements import inferred_ap


def _ap(ranking, relevant, k):
    """Plain AP@k with |R| as the denominator, written independently."""
    hits, total = 0, 0.0
    for rank, item in enumerate(ranking[:k], start=1):
        if item in relevant:
            hits += 1
            total += hits / rank
    return total / len(relevant) if relevant else 0.0


def test_with_every_item_judged_infap_is_ap():
    rng = np.random.default_rng(1)
    for _ in range(50):
        items = list(range(30))
        rng.shuffle(items)
        relevant = {i for i in items if rng.random() < 0.3} or {items[0]}
        nonrelevant = set(items) - relevant
        ranking = items[:20]
        assert inferred_ap(ranking, relevant, nonrelevant, 20) == pytest.approx(
            _ap(ranking, relevant, 20), abs=1e-4
        )


def test_under_uniform_sampling_infap_is_close_to_ap_on_average_while_the_condensed_reading_is_low():
    rng = np.random.default_rng(7)
    items = list(range(200))
    relevant = set(rng.choice(200, size=40, replace=False).tolist())
    ranking = sorted(items, key=lambda i: (i not in relevant) * 1.0 + rng.random() * 2.0)[:100]
    truth = _ap(ranking, relevant, 100)
    inferred, as_nonrelevant = [], []
    for _ in range(3000):
        judged = {i for i in items if rng.random() < 0.3}
        rel, nonrel = relevant & judged, judged - relevant
        if not rel:
            continue
        inferred.append(inferred_ap(ranking, rel, nonrel, 100))
        as_nonrelevant.append(_ap(ranking, rel, 100))  # unjudged = non-relevant, over judged relevant
    # approximately unbiased: a ratio estimator, and with no judged item above a hit the share is taken as 1/2
    assert np.mean(inferred) == pytest.approx(truth, rel=0.05)
    assert abs(np.mean(inferred) - truth) < abs(np.mean(as_nonrelevant) - truth) / 3


def test_by_hand_and_edge_cases():
    # rank 1 relevant: 1; rank 2 non-relevant; rank 4 relevant with 1 rel, 1 nonrel, 1 unjudged above:
    # 1/4 + 3/4 * (1 + e)/(2 + 2e) = 0.625; two judged relevant items in all -> (1 + 0.625) / 2
    assert inferred_ap(["a", "b", "x", "c"], {"a", "c"}, {"b"}, 4) == pytest.approx(0.8125, abs=1e-5)
    assert inferred_ap(["a", "b"], set(), {"a"}, 2) == 0.0
    assert inferred_ap(["a", "b", "c"], {"c"}, set(), 2) == 0.0  # beyond the cutoff
    with pytest.raises(ValueError, match="both relevant and non-relevant"):
        inferred_ap(["a"], {"a"}, {"a"}, 1)
    with pytest.raises(ValueError, match="k must be"):
        inferred_ap(["a"], {"a"}, set(), 0)
    with pytest.raises(ValueError, match="twice"):
        inferred_ap(["a", "a"], {"a"}, set(), 2)
