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
