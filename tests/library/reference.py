"""Deliberately naive oracles, written straight from the formulas.

Rational metrics use exact ``Fraction`` arithmetic; log-based ones use
``math.fsum``. They share no code with ``helpers`` (no cutoff helpers, no
validation), so a bug in the package cannot hide in both.
"""

from __future__ import annotations

import math
from fractions import Fraction


def hit_positions(ranking, relevant, k):
    return [i + 1 for i in range(min(k, len(ranking))) if ranking[i] in relevant]


def precision(ranking, relevant, k):
    return Fraction(len(hit_positions(ranking, relevant, k)), k)


def recall(ranking, relevant, k):
    return Fraction(len(hit_positions(ranking, relevant, k)), len(relevant))


def hit(ranking, relevant, k):
    return Fraction(1 if hit_positions(ranking, relevant, k) else 0)


def reciprocal_rank(ranking, relevant, k):
    found = hit_positions(ranking, relevant, k)
    return Fraction(1, found[0]) if found else Fraction(0)


def average_precision(ranking, relevant, k, denominator):
    found = hit_positions(ranking, relevant, k)
    total = sum((precision(ranking, relevant, rank) for rank in found), Fraction(0))
    divide_by = {
        "n_relevant": len(relevant),
        "min_k_n_relevant": min(k, len(relevant)),
        "n_hits": len(found),
    }[denominator]
    return total / divide_by if divide_by else Fraction(0)


def _gain(grade, gain):
    return grade if gain == "linear" else 2.0**grade - 1.0


def dcg(ranking, grades, k, gain="linear"):
    return math.fsum(
        _gain(grades.get(item, 0), gain) / math.log2(i + 2) for i, item in enumerate(ranking[:k])
    )


def idcg(ranking, grades, k, gain="linear", ideal="all"):
    if ideal == "all":
        pool = [g for g in grades.values() if g > 0]
    else:
        pool = [grades[item] for item in ranking if grades.get(item, 0) > 0]
    best = sorted(pool, reverse=True)[:k]
    return math.fsum(_gain(g, gain) / math.log2(i + 2) for i, g in enumerate(best))


def ndcg(ranking, grades, k, gain="linear", ideal="all"):
    best = idcg(ranking, grades, k, gain, ideal)
    return dcg(ranking, grades, k, gain) / best if best > 0 else 0.0


def bpref(ranking, judgments, k):
    """Buckley and Voorhees' bpref, read straight off its definition, over the top k.

    ``judgments`` maps item -> grade (0 = judged not relevant, absent = unjudged); a set lists the
    relevant items and judges every other item not relevant, with at least |R| of those.
    """
    if isinstance(judgments, dict):
        relevant = {item for item, grade in judgments.items() if grade > 0}
        nonrelevant = {item for item, grade in judgments.items() if grade == 0}
        pool = min(len(relevant), len(nonrelevant))
    else:
        relevant = set(judgments)
        nonrelevant = {item for item in ranking if item not in relevant}
        pool = len(relevant)
    top = list(ranking)[:k]
    total = Fraction(0)
    for i, item in enumerate(top):
        if item in relevant:
            above = sum(1 for other in top[:i] if other in nonrelevant)
            total += 1 - (Fraction(min(above, len(relevant)), pool) if above else 0)
    return total / len(relevant)


def condensed(ranking, judgments):
    """The ranking without the items ``judgments`` (a dict) does not name; a set judges everything."""
    return [item for item in ranking if not isinstance(judgments, dict) or item in judgments]


def ips_precision(ranking, observed, propensity, k, clip=None):
    weights = [1 / Fraction(propensity[item]) for item in ranking[:k] if item in observed]
    if clip is not None:
        weights = [min(w, clip) for w in weights]
    return sum(weights, Fraction(0)) / k
