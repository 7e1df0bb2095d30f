"""Deliberately naive oracles, written straight from the formulas.

Rational metrics use exact ``Fraction`` arithmetic; log-based ones use
``math.fsum``. They share no code with ``topkeval`` (no cutoff helpers, no
validation), so a bug in the package cannot hide in both. :data:`ORACLES` holds
one per registry metric key (``tests/library/test_oracles.py`` checks that every
key has one and that the library matches it).
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


def _bpref_judged(ranking, judgments):
    """bpref's relevant set, its judged-not-relevant set and the size of the pool it counts against."""
    if isinstance(judgments, dict):
        relevant = {item for item, grade in judgments.items() if grade > 0}
        nonrelevant = {item for item, grade in judgments.items() if grade == 0}
        return relevant, nonrelevant, min(len(relevant), len(nonrelevant))
    relevant = set(judgments)
    return relevant, {item for item in ranking if item not in relevant}, len(relevant)


def bpref(ranking, judgments, k):
    """Buckley and Voorhees' bpref, read straight off its definition, over the top k.

    ``judgments`` maps item -> grade (0 = judged not relevant, absent = unjudged); a set lists the
    relevant items and judges every other item not relevant, with at least |R| of those.
    """
    relevant, nonrelevant, pool = _bpref_judged(ranking, judgments)
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


# ---------------------------------------------------------------------------------------------------------
# One oracle per registry metric key, all called alike: ``ORACLES[key](ranking, relevance, k, options)``.
# ``relevance`` is a set (binary, every other item judged not relevant) or a mapping item -> grade
# (0 = judged not relevant, absent = unjudged); ``options`` maps option names to values. A metric that is
# 0/0 for a user with no relevant item raises ZeroDivisionError here. Written from the definitions with
# plain loops; nothing is shared with topkeval.
def _as_grades(relevance):
    return dict(relevance) if isinstance(relevance, dict) else {item: 1 for item in relevance}


def _relevant_items(relevance):
    return {item for item, grade in _as_grades(relevance).items() if grade > 0}


def _log_discount(rank, kind):
    """1 / log2(rank + 1), or Järvelin and Kekäläinen's 1 / log2(max(rank, 2))."""
    return 1 / math.log2(max(rank, 2) if kind == "clipped_log2" else rank + 1)


def _ndcg_oracle(ranking, relevance, k, options):
    grades = _as_grades(relevance)
    if not _relevant_items(relevance):
        raise ZeroDivisionError("NDCG: no relevant item")
    gain, kind = options.get("gain", "linear"), options.get("discount", "log2")
    shown = [_gain(grades.get(item, 0), gain) for item in ranking[:k]]
    if options.get("ideal", "all") == "all":
        pool = [g for g in grades.values() if g > 0]
    else:
        pool = [grades[item] for item in ranking if grades.get(item, 0) > 0]
    best = [_gain(g, gain) for g in sorted(pool, reverse=True)[:k]]
    dcg_ = math.fsum(g * _log_discount(i, kind) for i, g in enumerate(shown, start=1))
    idcg_ = math.fsum(g * _log_discount(i, kind) for i, g in enumerate(best, start=1))
    return dcg_ / idcg_ if idcg_ > 0 else 0.0


def _err_oracle(ranking, relevance, k, options):
    """Chapelle et al.'s cascade: the user reads down and stops at rank i with chance R_i."""
    grades = _as_grades(relevance)
    top = options.get("max_grade") or 1
    total, still_reading = 0.0, 1.0
    for i, item in enumerate(ranking[:k], start=1):
        stop = (2 ** grades.get(item, 0) - 1) / 2**top
        total += still_reading * stop / i
        still_reading *= 1 - stop
    return total


def _rbp_oracle(ranking, relevance, k, options):
    p, relevant = options.get("p", 0.8), _relevant_items(relevance)
    return (1 - p) * math.fsum(
        p ** (i - 1) for i, item in enumerate(ranking[:k], start=1) if item in relevant
    )


def _rbp_residual_oracle(ranking, relevance, k, options):
    p = options.get("p", 0.8)
    judged = _as_grades(relevance) if isinstance(relevance, dict) else None
    unknown = [i for i, item in enumerate(ranking[:k], start=1) if judged is not None and item not in judged]
    return p**k + (1 - p) * math.fsum(p ** (i - 1) for i in unknown)


def _ap_oracle(ranking, relevance, k, options):
    relevant = _relevant_items(relevance)
    if not relevant:
        raise ZeroDivisionError("AP: no relevant item")
    return average_precision(ranking, relevant, k, options.get("denominator", "min_k_n_relevant"))


def _bpref_oracle(ranking, relevance, k, options):
    if isinstance(relevance, dict):
        return bpref(ranking, relevance, k)
    return bpref(ranking, set(relevance), k)


def r_precision(ranking, relevant, k):
    """trec_eval's Rprec of the list cut at k: relevant items among the first R ranks, over R = |relevant|.

    Ranks past the end of the cut list hold nothing, so they are misses, as in trec_eval.
    """
    cut = list(ranking)[:k]
    return Fraction(
        sum(1 for rank in range(len(relevant)) if rank < len(cut) and cut[rank] in relevant), len(relevant)
    )


ORACLES = {
    "precision": lambda r, rel, k, o: precision(r, _relevant_items(rel), k),
    "recall": lambda r, rel, k, o: recall(r, _relevant_items(rel), k),
    "hit": lambda r, rel, k, o: hit(r, _relevant_items(rel), k),
    "rr": lambda r, rel, k, o: reciprocal_rank(r, _relevant_items(rel), k),
    "ap": _ap_oracle,
    "ndcg": _ndcg_oracle,
    "err": _err_oracle,
    "rbp": _rbp_oracle,
    "rbp_residual": _rbp_residual_oracle,
    "rprec": lambda r, rel, k, o: r_precision(r, _relevant_items(rel), k),
    "bpref": _bpref_oracle,
}

#: Registry keys whose whole-list value trec_eval computes too: key -> (trec_eval measure, our options).
#: ``tests/library/test_oracles_trec_eval.py`` compares each with pytrec_eval, a second oracle.
TREC_EVAL = {
    "rr": ("recip_rank", {}),
    "ap": ("map", {"denominator": "n_relevant"}),
    "ndcg": ("ndcg", {}),
    "bpref": ("bpref", {}),
    "rprec": ("Rprec", {}),
}
