"""No exercise check can be fooled by the usual mistakes.

For every question, a catalogue of plausible wrong answers: off-by-one cutoffs both ways
(``ranking[:k - 1]`` and ``ranking[:k + 1]``), 0-based ranks, every wrong denominator (including the
seeds' own idioms and "relevant items found in the ranking"), an unsorted or uncut ideal, ``ln`` and
``log10``, ``2**rel`` without the ``- 1``, ignoring ``k``, seed 004's "shrink k to the list length",
values hard-coded for the cases a notebook shows, and constant answers. Every one must be rejected;
the common ones (those attached to the question as a ``Mistake``) must also be *named*.

Known-right variants (NumPy scalars, ints where an int is meaningful, other correct formulations)
must pass.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

import helpers.course as course
from helpers.course import examples as ex
from helpers.course import nb00, nb01, nb02, nb03, nb04, nb05, nb06, nb08, nb09, nb11, nb12, nb13, nb15
from helpers.course import progress_file as _progress

QUESTIONS = course.all_questions()


@pytest.fixture(autouse=True)
def _no_progress_file(monkeypatch):
    monkeypatch.setenv("TOPK_COURSE_PROGRESS", "off")
    monkeypatch.setattr(_progress, "_memory", {})


@dataclass(frozen=True)
class Wrong:
    """A wrong answer: a function (or, for a value question, a value) and the label it must get, if any."""

    name: str
    answer: object
    named: str | None = None


# ---------------------------------------------------------------- building blocks
def _hits(ranking, relevant, stop):
    return sum(1 for item in ranking[: max(stop, 0)] if item in relevant)


def _found(ranking, relevant):
    """Relevant items that appear anywhere in the ranking (seed 001's len(R), the 'found' denominator)."""
    return sum(1 for item in ranking if item in relevant)


#: How far a learner's slice reaches, for a cutoff k and a ranking.
STOPS: dict[str, Callable] = {
    "ranking[:k]": lambda ranking, k: k,
    "ranking[:k - 1]": lambda ranking, k: k - 1,
    "ranking[:k + 1]": lambda ranking, k: k + 1,
    "whole list (ignores k)": lambda ranking, k: len(ranking),
}

#: Denominators a learner might divide a count of hits by.
DENOMINATORS: dict[str, Callable] = {
    "k": lambda ranking, relevant, k: k,
    "k - 1": lambda ranking, relevant, k: k - 1,
    "k + 1": lambda ranking, relevant, k: k + 1,
    "len(ranking[:k])": lambda ranking, relevant, k: len(ranking[:k]),
    "len(ranking)": lambda ranking, relevant, k: len(ranking),
    "|R|": lambda ranking, relevant, k: len(relevant),
    "min(k, |R|)": lambda ranking, relevant, k: min(k, len(relevant)),
    "relevant found in the ranking": lambda ranking, relevant, k: _found(ranking, relevant),
}


def _count(stop):
    return lambda ranking, relevant, k: _hits(ranking, relevant, STOPS[stop](ranking, k))


def _safe_div(a, b):
    return a / b if b else 0.0


def _ratio(stop, denominator):
    return lambda ranking, relevant, k: _safe_div(
        _hits(ranking, relevant, STOPS[stop](ranking, k)), DENOMINATORS[denominator](ranking, relevant, k)
    )


def _always(value):
    return lambda *args: value


def _constants(*values):
    return [Wrong(f"always {value!r}", _always(value)) for value in values]


def _ips_at_k(weight="1 / p", stop="ranking[:k]", over="k"):
    """Wrong propensity-weighted precision@k (notebook 15): a weight, a slice or a denominator changed."""

    def wrong(ranking, logged, propensity, k):
        hits = [i for i in ranking[: max(STOPS[stop](ranking, k), 0)] if i in logged]
        w = {
            "1 / p": lambda i: 1 / propensity[i],
            "p": lambda i: propensity[i],
            "1": lambda i: 1.0,
            "1 - p": lambda i: 1 - propensity[i],
        }[weight]
        total = sum(w(i) for i in hits)
        denominator = {"k": k, "hits": len(hits), "|logged|": len(logged), "sum of weights": total}[over]
        return _safe_div(total, denominator)

    return wrong


def _public(question, is_public, fallbacks=(0.0, 1.0)):
    """Hard-coded answers: right on the inputs a notebook shows, a guess elsewhere."""
    out = []
    for fallback in fallbacks:

        def hard_coded(*args, fallback=fallback):
            return question.reference(*args) if is_public(args) else fallback

        out.append(Wrong(f"hard-coded public cases, else {fallback!r}", hard_coded))
    return out


_SEED_LISTS = [
    ex.CAR_ITEMS,
    ex.BDZ_RANKING_1,
    ex.BDZ_RANKING_2,
    ex.SEED001_P,
    ex.GRADED_A,
    ex.GRADED_B,
    ex.BINARY_10,
    ex.CAR_ITEMS[:5],
]


def _seed_input(args):
    return any(args[0] == seed for seed in _SEED_LISTS)


def _named(question, wrongs_by_name: dict[str, Callable], labels: dict[str, str]):
    """Wrong answers from a family; those in ``labels`` must get that mistake label."""
    known = {m.label for m in question.mistakes}
    missing = set(labels.values()) - known
    assert not missing, f"{question.id}: labels {missing} are not mistakes of the question"
    return [Wrong(name, function, labels.get(name)) for name, function in wrongs_by_name.items()]


# ---------------------------------------------------------------- 00.q1 hits
def _catalogue_00():
    q = nb00.q1
    family = {f"hits in {stop}": _count(stop) for stop in STOPS if stop != "ranking[:k]"}
    family["len(relevant)"] = lambda r, rel, k: len(rel)
    family["min(k, |R|)"] = lambda r, rel, k: min(k, len(rel))
    family["misses instead of hits"] = lambda r, rel, k: len(r[:k]) - _hits(r, rel, k)
    family["hits below the cutoff"] = lambda r, rel, k: _hits(r[k:], rel, len(r))
    family["share instead of count (P@K)"] = lambda r, rel, k: _hits(r, rel, k) / k
    labels = {
        "hits in whole list (ignores k)": "ignores the cutoff k",
        "hits in ranking[:k + 1]": "0- vs 1-based rank (one item too many)",
        "hits in ranking[:k - 1]": "one item too few (ranking[:k - 1])",
    }
    return _named(q, family, labels) + _constants(0, 1, 3) + _public(q, _seed_input, (0, 1))


# ---------------------------------------------------------------- 01.q1 precision and recall of a set
def _catalogue_01():
    q = nb01.q1

    def pr(p_den, r_den):
        def f(recommended, relevant):
            hits = len(set(recommended) & set(relevant))
            return hits / p_den(recommended, relevant), hits / r_den(recommended, relevant)

        return f

    n_rec = lambda rec, rel: len(rec)
    n_rel = lambda rec, rel: len(set(rel))  # a repeated relevant item counts once
    n_rel_list = lambda rec, rel: len(rel)  # counts a repeat twice
    family = {
        "swapped": pr(n_rel, n_rec),
        "both over recommended": pr(n_rec, n_rec),
        "both over relevant": pr(n_rel, n_rel),
        "recall over min(len(recommended), |R|)": pr(n_rec, lambda rec, rel: min(len(rec), len(rel))),
        "recall over relevant found": pr(n_rec, lambda rec, rel: max(1, len(set(rec) & set(rel)))),
        "list instead of tuple of floats": lambda rec, rel: [0.0, 0.0],
        "recall over len(relevant) with a repeat": pr(n_rec, n_rel_list),
        "hits counted over the list, not the set": lambda rec, rel: (
            sum(x in rel for x in rec) / len(rec),
            sum(x in rel for x in rec) / len(rel),
        ),
    }
    labels = {
        "swapped": "precision and recall swapped",
        "both over recommended": "recall divides by the number recommended",
        "recall over len(relevant) with a repeat": "a repeated relevant item counted twice",
    }
    return (
        _named(q, family, labels)
        + _constants((0.0, 0.0), (1.0, 1.0), 0.5)
        + _public(q, _seed_input, ((0.0, 0.0), (1.0, 1.0)))
    )


# ---------------------------------------------------------------- 02 P@K and R@K
def _ratio_family(right):
    return {
        f"hits in {stop} / {den}": _ratio(stop, den)
        for stop, den in itertools.product(STOPS, DENOMINATORS)
        if (stop, den) != right
    }


def _catalogue_02_q1():
    q = nb02.q1
    family = _ratio_family(("ranking[:k]", "k"))
    family["integer division hits // k"] = lambda r, rel, k: float(_hits(r, rel, k) // k)
    labels = {
        "hits in ranking[:k] / len(ranking[:k])": "divides by the length of the list instead of k",
        "hits in ranking[:k] / len(ranking)": "divides by len(ranking) instead of k",
        "hits in ranking[:k + 1] / k": "0- vs 1-based rank (one item too many at the cutoff)",
        "hits in ranking[:k - 1] / k": "one item too few at the cutoff (ranking[:k - 1])",
        "hits in ranking[:k] / |R|": "divides by the number of relevant items",
        "hits in ranking[:k] / min(k, |R|)": "divides by min(k, |R|)",
        "hits in whole list (ignores k) / k": "ignores the cutoff k",
    }
    return _named(q, family, labels) + _constants(0.0, 1.0, 0.5) + _public(q, _seed_input)


def _catalogue_02_q2():
    q = nb02.q2
    family = _ratio_family(("ranking[:k]", "|R|"))
    labels = {
        "hits in ranking[:k] / k": "divides by k",
        "hits in ranking[:k] / min(k, |R|)": "divides by min(k, number of relevant items)",
        "hits in whole list (ignores k) / |R|": "ignores the cutoff k",
        "hits in ranking[:k] / relevant found in the ranking": (
            "divides by the relevant items found in the ranking"
        ),
        "hits in ranking[:k - 1] / |R|": "one item too few at the cutoff (ranking[:k - 1])",
        "hits in ranking[:k + 1] / |R|": "one item too many at the cutoff (ranking[:k + 1])",
    }
    return _named(q, family, labels) + _constants(0.0, 1.0, 0.5) + _public(q, _seed_input)


# ---------------------------------------------------------------- 03.q1 AP@K
def _ap(stop="ranking[:k]", denominator="min(k, |R|)", shift=0, shrink=False):
    def f(ranking, relevant, k):
        if shrink:
            k = min(k, len(ranking))
        hits, total = 0, 0.0
        for rank, item in enumerate(ranking[: max(STOPS[stop](ranking, k), 0)], start=1):
            if item in relevant:
                hits += 1
                total += hits / (rank + shift)
        denominators = {
            "min(k, |R|)": min(k, len(relevant)),
            "hits in the top k": hits,
            "|R|": len(relevant),
            "k": k,
            "relevant found in the ranking": _found(ranking, relevant),
            "min(k - 1, |R|)": min(k - 1, len(relevant)),
            "none (the sum)": 1,
        }
        return _safe_div(total, denominators[denominator])

    return f


def _catalogue_03_q1():
    q = nb03.q1
    family = {}
    for stop, den, shift in itertools.product(
        STOPS,
        [
            "min(k, |R|)",
            "hits in the top k",
            "|R|",
            "k",
            "relevant found in the ranking",
            "min(k - 1, |R|)",
            "none (the sum)",
        ],
        (0, 1, -1),
    ):
        if (stop, den, shift) == ("ranking[:k]", "min(k, |R|)", 0) or shift == -1 and stop != "ranking[:k]":
            continue
        family[f"{stop}, / {den}, rank + {shift}"] = _ap(stop, den, shift)
    family["seed 004: k shrunk to the list length"] = _ap(shrink=True)
    family["mean of P@1..P@k (Elliot)"] = lambda r, rel, k: (
        sum(_hits(r, rel, j) / j for j in range(1, k + 1)) / k
    )
    family["P@k at each hit (not P@rank)"] = lambda r, rel, k: _safe_div(
        _hits(r, rel, k) * _hits(r, rel, k) / k, min(k, len(rel))
    )
    labels = {
        "ranking[:k], / hits in the top k, rank + 0": "wrong AP denominator: hits in the top k",
        "ranking[:k], / |R|, rank + 0": "wrong AP denominator: |R|",
        "ranking[:k], / k, rank + 0": "wrong AP denominator: k",
        "mean of P@1..P@k (Elliot)": "averages P@j over every rank j <= k",
        "ranking[:k], / min(k, |R|), rank + 1": "0- vs 1-based rank",
        "seed 004: k shrunk to the list length": "k shrunk to the list length",
        "ranking[:k], / relevant found in the ranking, rank + 0": (
            "wrong AP denominator: relevant items found"
        ),
        "ranking[:k - 1], / min(k, |R|), rank + 0": "one item too few at the cutoff (ranking[:k - 1])",
        "whole list (ignores k), / min(k, |R|), rank + 0": "ignores the cutoff k",
    }
    return _named(q, family, labels) + _constants(0.0, 1.0, 0.5) + _public(q, _seed_input)


# ---------------------------------------------------------------- 04 RR@K and Hit@K
def _hit_ranks(ranking, relevant, stop):
    return [rank for rank, item in enumerate(ranking[: max(stop, 0)], start=1) if item in relevant]


def _rr(stop="ranking[:k]", pick=lambda ranks: 1 / ranks[0], shift=0):
    def f(ranking, relevant, k):
        ranks = [r + shift for r in _hit_ranks(ranking, relevant, STOPS[stop](ranking, k))]
        return pick(ranks) if ranks else 0.0

    return f


def _catalogue_04_q1():
    q = nb04.q1
    family = {f"first hit in {stop}": _rr(stop) for stop in STOPS if stop != "ranking[:k]"}
    family.update(
        {
            "rank + 1 (0-based index used as rank + 1)": _rr(shift=1),
            "0-based index as the rank": _rr(shift=-1, pick=lambda ranks: _safe_div(1, ranks[0])),
            "1 / 0-based index (ZeroDivisionError at rank 1)": _rr(shift=-1, pick=lambda ranks: 1 / ranks[0]),
            "last hit": _rr(pick=lambda ranks: 1 / ranks[-1]),
            "mean of 1/rank over hits": _rr(pick=lambda ranks: sum(1 / r for r in ranks) / len(ranks)),
            "sum of 1/rank over hits": _rr(pick=lambda ranks: sum(1 / r for r in ranks)),
            "next() with no default (StopIteration on a miss)": lambda r, rel, k: next(
                1 / i for i, x in enumerate(r[:k], start=1) if x in rel
            ),
            "rank instead of 1/rank": _rr(pick=lambda ranks: float(ranks[0])),
            "1/rank of first hit, no cutoff at all": lambda r, rel, k: _rr()(r, rel, len(r)),
            "hit instead of RR": _rr(pick=lambda ranks: 1.0),
        }
    )
    labels = {
        "first hit in whole list (ignores k)": "ignores the cutoff k",
        "rank + 1 (0-based index used as rank + 1)": "0- vs 1-based rank",
        "last hit": "uses the last hit instead of the first",
        "sum of 1/rank over hits": "sums 1/rank over every hit",
        "next() with no default (StopIteration on a miss)": "next() without a default: no hit in the top k",
        "1 / 0-based index (ZeroDivisionError at rank 1)": "0-based index used as the rank (1 / index)",
        "0-based index as the rank": "0-based index used as the rank (1 / index)",
        "first hit in ranking[:k - 1]": "one item too few at the cutoff (ranking[:k - 1])",
        "first hit in ranking[:k + 1]": "one item too many at the cutoff (ranking[:k + 1])",
    }
    return _named(q, family, labels) + _constants(0.0, 1.0, 0.5) + _public(q, _seed_input)


def _any_hit(stop):
    return lambda ranking, relevant, k: float(_count(stop)(ranking, relevant, k) > 0)


def _catalogue_04_q2():
    q = nb04.q2
    family = {f"any hit in {stop}": _any_hit(stop) for stop in STOPS if stop != "ranking[:k]"}
    family.update(
        {
            "number of hits": lambda r, rel, k: float(_hits(r, rel, k)),
            "P@K": lambda r, rel, k: _hits(r, rel, k) / k,
            "R@K": lambda r, rel, k: _hits(r, rel, k) / len(rel),
            "True/False instead of a number": lambda r, rel, k: _hits(r, rel, k) > 0,
            "1 if the user has any relevant item": lambda r, rel, k: float(bool(rel)),
            "hit only if every top-k item is relevant": lambda r, rel, k: float(
                _hits(r, rel, k) == len(r[:k])
            ),
        }
    )
    labels = {
        "number of hits": "returns the number of hits",
        "any hit in whole list (ignores k)": "ignores the cutoff k",
        "any hit in ranking[:k - 1]": "one item too few at the cutoff (ranking[:k - 1])",
        "any hit in ranking[:k + 1]": "one item too many at the cutoff (ranking[:k + 1])",
    }
    return _named(q, family, labels) + _constants(0.0, 1.0, True) + _public(q, _seed_input)


# ---------------------------------------------------------------- 05 DCG, NDCG, exponential DCG
GAINS = {
    "g": lambda g: g,
    "2^g - 1": lambda g: 2**g - 1,
    "2^g": lambda g: 2**g,
    "binary": lambda g: float(g > 0),
}
DISCOUNTS = {
    "log2(i + 1)": lambda i: math.log2(i + 1),
    "ln(i + 1)": lambda i: math.log(i + 1),
    "log10(i + 1)": lambda i: math.log10(i + 1),
    "log2(i + 2)": lambda i: math.log2(i + 2),
    "log2(max(i, 2))": lambda i: math.log2(max(i, 2)),
    "log2(i) (ZeroDivisionError at rank 1)": lambda i: math.log2(i),
    "i": lambda i: float(i),
    "1 (no discount: CG)": lambda i: 1.0,
}
DCG_STOPS = {
    "grades[:k]": lambda k, n: k,
    "grades[:k - 1]": lambda k, n: k - 1,
    "grades[:k + 1]": lambda k, n: k + 1,
    "all grades (ignores k)": lambda k, n: n,
}


def _dcg(grades, k, gain="g", discount="log2(i + 1)", stop="grades[:k]"):
    cut = grades[: max(DCG_STOPS[stop](k, len(grades)), 0)]
    return sum(GAINS[gain](g) / DISCOUNTS[discount](i) for i, g in enumerate(cut, start=1))


def _dcg_variant(gain, discount, stop):
    return lambda grades, k: _dcg(grades, k, gain, discount, stop)


def _dcg_family(right_gain):
    family = {}
    for gain, discount, stop in itertools.product(GAINS, DISCOUNTS, DCG_STOPS):
        if (gain, discount, stop) != (right_gain, "log2(i + 1)", "grades[:k]"):
            family[f"{gain} / {discount}, {stop}"] = _dcg_variant(gain, discount, stop)
    return family


def _catalogue_05_q1():
    q = nb05.q1
    labels = {
        "g / ln(i + 1), grades[:k]": "ln instead of log2",
        "g / log10(i + 1), grades[:k]": "log10 instead of log2",
        "g / log2(i + 2), grades[:k]": "0- vs 1-based rank",
        "g / log2(i + 1), all grades (ignores k)": "ignores the cutoff k",
        "g / log2(i + 1), grades[:k - 1]": "one item too few at the cutoff (grades[:k - 1])",
        "g / log2(i + 1), grades[:k + 1]": "one item too many at the cutoff (grades[:k + 1])",
        "2^g - 1 / log2(i + 1), grades[:k]": "exponential gain",
        "g / log2(i) (ZeroDivisionError at rank 1), grades[:k]": "the top rank divided by log2(1) = 0",
    }
    return _named(q, _dcg_family("g"), labels) + _constants(0.0, 1.0) + _public(q, _seed_input)


IDEALS = {
    "sorted best first, cut at k": lambda grades, k: sorted(grades, reverse=True)[:k],
    "the list itself (unsorted)": lambda grades, k: grades[:k],
    "only the top k sorted": lambda grades, k: sorted(grades[:k], reverse=True),
    "sorted worst first": lambda grades, k: sorted(grades)[:k],
    "sorted, not cut at k": lambda grades, k: sorted(grades, reverse=True),
    "sorted, cut at k - 1": lambda grades, k: sorted(grades, reverse=True)[: k - 1],
}


def _ndcg(gain="g", discount="log2(i + 1)", stop="grades[:k]", ideal="sorted best first, cut at k"):
    def f(grades, k):
        ideal_grades = IDEALS[ideal](grades, k)
        top = _dcg(ideal_grades, len(ideal_grades), gain, discount, "grades[:k]")
        return _safe_div(_dcg(grades, k, gain, discount, stop), top)

    return f


def _with_dcg(function):
    """A wrong (grades, k) NDCG as the learner writes it for 05.q2: (grades, k, dcg), dcg unused."""

    def ndcg(grades, k, dcg):
        return function(grades, k)

    return ndcg


def _own_dcg_ndcg(ideal):
    """A learner's NDCG built on the dcg passed in, with a wrong ideal order."""
    return lambda grades, k, dcg: dcg(grades, k) / dcg(ideal(grades, k), k)


def _catalogue_05_q2():
    q = nb05.q2
    family = {}
    for gain, discount, stop, ideal in itertools.product(
        ["g", "2^g", "binary"], ["log2(i + 1)", "log2(i + 2)", "log2(max(i, 2))", "i"], DCG_STOPS, IDEALS
    ):
        if (gain, discount, stop, ideal) != ("g", "log2(i + 1)", "grades[:k]", "sorted best first, cut at k"):
            family[f"{gain} / {discount}, {stop}, ideal {ideal}"] = _ndcg(gain, discount, stop, ideal)
    family["2^g - 1 gain"] = _ndcg("2^g - 1")
    base = "g / log2(i + 1), grades[:k], ideal "
    labels = {
        base + "the list itself (unsorted)": "IDCG from the predicted order",
        base + "only the top k sorted": "IDCG sorts only the top k items",
        base + "sorted worst first": "ideal sorted worst first",
        base + "sorted, not cut at k": "IDCG not cut at k",
        "g / log2(i + 2), grades[:k], ideal sorted best first, cut at k": "0- vs 1-based rank",
        "g / log2(i + 1), grades[:k - 1], ideal sorted best first, cut at k": (
            "one item too few at the cutoff (grades[:k - 1])"
        ),
    }
    wrongs = [
        Wrong(w.name, _with_dcg(w.answer), w.named)
        for w in _named(q, family, labels) + _constants(0.0, 1.0) + _public(q, _seed_input)
    ]
    # the mistakes, written with the learner's own dcg: an ascending ideal gives NDCG > 1
    wrongs += [
        Wrong(
            "your dcg, ideal sorted ascending",
            _own_dcg_ndcg(lambda g, k: sorted(g)),
            "ideal sorted worst first",
        ),
        Wrong(
            "your dcg, top k sorted ascending",
            _own_dcg_ndcg(lambda g, k: sorted(g[:k])),
            "ideal sorted worst first (top k only)",
        ),
        Wrong("your dcg, ideal = the list", _own_dcg_ndcg(lambda g, k: g), "IDCG from the predicted order"),
    ]
    return wrongs


def _catalogue_05_q3():
    q = nb05.q3
    family = _dcg_family("2^g - 1")
    family["2^(g - 1)"] = lambda grades, k: sum(
        2 ** (g - 1) / math.log2(i + 1) for i, g in enumerate(grades[:k], 1)
    )
    labels = {
        "2^g / log2(i + 1), grades[:k]": "2^rel instead of 2^rel - 1",
        "g / log2(i + 1), grades[:k]": "linear gain",
        "2^g - 1 / ln(i + 1), grades[:k]": "ln instead of log2",
        "2^g - 1 / log2(i + 2), grades[:k]": "0- vs 1-based rank",
        "2^g - 1 / log2(i + 1), all grades (ignores k)": "ignores the cutoff k",
        "2^g - 1 / log2(i + 1), grades[:k - 1]": "one item too few at the cutoff (grades[:k - 1])",
        "2^g - 1 / log2(i) (ZeroDivisionError at rank 1), grades[:k]": "the top rank divided by log2(1) = 0",
    }
    return _named(q, family, labels) + _constants(0.0, 1.0) + _public(q, _seed_input)


# ---------------------------------------------------------------- 06.q1 leave-one-out NDCG
LOO_IN = {
    "r <= k": lambda r, k: r <= k,
    "r < k": lambda r, k: r < k,
    "r <= k + 1": lambda r, k: r <= k + 1,
    "always (ignores k)": lambda r, k: True,
}
LOO_SCORE = {
    "1/log2(r + 1)": lambda r: 1 / math.log2(r + 1),
    "1/log2(r + 2)": lambda r: 1 / math.log2(r + 2),
    "1/ln(r + 1)": lambda r: 1 / math.log(r + 1),
    "1/log10(r + 1)": lambda r: 1 / math.log10(r + 1),
    "1/r": lambda r: 1 / r,
    "1 (hit)": lambda r: 1.0,
    "1/log2(max(r, 2))": lambda r: 1 / math.log2(max(r, 2)),
    "1/log2(r)": lambda r: _safe_div(1, math.log2(r)),
}


def _loo_variant(inside, score):
    return lambda r, k: 0.0 if r is None or not LOO_IN[inside](r, k) else LOO_SCORE[score](r)


def _catalogue_06_q1():
    q = nb06.q1
    family = {}
    for inside, score in itertools.product(LOO_IN, LOO_SCORE):
        if (inside, score) != ("r <= k", "1/log2(r + 1)"):
            family[f"{score} if {inside}"] = _loo_variant(inside, score)
    labels = {
        "1/log2(r + 2) if r <= k": "0- vs 1-based rank",
        "1/ln(r + 1) if r <= k": "ln instead of log2",
        "1/log2(r + 1) if always (ignores k)": "ignores the cutoff k",
        "1/log2(r + 1) if r < k": "one rank too few at the cutoff (r < k)",
        "1/r if r <= k": "that is reciprocal rank",
        "None not handled (None > k: TypeError)": "None not handled",
    }
    family["None not handled (None > k: TypeError)"] = lambda r, k: 0.0 if r > k else 1 / math.log2(r + 1)
    shown = lambda args: args[1] == ex.LOO_K or args == (3, 5)
    return _named(q, family, labels) + _constants(0.0, 1.0) + _public(q, shown)


# ---------------------------------------------------------------- 08 statistics
def _catalogue_08_q1():
    q = nb08.q1

    def quantiles(lo, hi, **kw):
        return lambda samples, c: tuple(float(v) for v in np.quantile(samples, [lo(c), hi(c)], **kw))

    family = {
        "whole tail on each side": quantiles(lambda c: 1 - c, lambda c: c),
        "normal approximation": q.mistakes[1].function,
        "percentiles given as fractions": q.mistakes[2].function,
        "confidence used as the tail": quantiles(lambda c: c / 2, lambda c: 1 - c / 2),
        "(high, low)": lambda s, c: tuple(reversed(nb08.percentile_interval(s, c))),
        "another quantile definition": quantiles(
            lambda c: (1 - c) / 2, lambda c: (1 + c) / 2, method="nearest"
        ),
        "min and max": lambda s, c: (float(min(s)), float(max(s))),
        "mean +/- std": lambda s, c: (float(np.mean(s) - np.std(s)), float(np.mean(s) + np.std(s))),
    }
    labels = {m.label: m.label for m in q.mistakes}
    return _named(q, family, labels) + _constants((0.0, 1.0))


def _catalogue_08_q2():
    q = nb08.q2

    def p(extreme, plus_one=True):
        def f(d, s):
            d, s = np.asarray(d, float), np.asarray(s, float)
            count = int(np.count_nonzero(extreme((s * d).mean(axis=1), d.mean())))
            return (count + plus_one) / (len(s) + plus_one)

        return f

    family = {
        "no +1 correction": q.mistakes[0].function,
        "one-sided test": q.mistakes[1].function,
        "strict inequality": q.mistakes[2].function,
        "+1 only on top": lambda d, s: (
            (1 + p(lambda f, o: np.abs(f) >= abs(o) - 1e-12, False)(d, s) * len(s)) / len(s)
        ),
        "counts the draws less extreme": p(lambda f, o: np.abs(f) <= abs(o) + 1e-12),
        "compares with the signed mean": p(lambda f, o: np.abs(f) >= o - 1e-12),
        "the median instead of the mean": q.mistakes[3].function,
    }
    labels = {m.label: m.label for m in q.mistakes}
    return _named(q, family, labels) + _constants(0.0, 1.0, 0.05)


# ---------------------------------------------------------------- 09.q1 rank among negatives
def _catalogue_09_q1():
    q = nb09.q1
    family = {
        "0-based rank": lambda p, n: sum(1 for s in n if s > p),
        "counted the negatives below": lambda p, n: 1 + sum(1 for s in n if s < p),
        "ties counted above (>=)": lambda p, n: 1 + sum(1 for s in n if s >= p),
        "rank among negatives plus itself, from the bottom": lambda p, n: (
            1 + len(n) - sum(1 for s in n if s > p)
        ),
        "share instead of rank": lambda p, n: sum(1 for s in n if s > p) / len(n),
    }
    labels = {
        "0-based rank": "0-based rank",
        "counted the negatives below": "counted the negatives below",
        "ties counted above (>=)": "ties counted as above",
    }
    return _named(q, family, labels) + _constants(1, 0)


CATALOGUE: dict[str, list[Wrong]] = {
    "00.q1": _catalogue_00(),
    "01.q1": _catalogue_01(),
    "02.q1": _catalogue_02_q1(),
    "02.q2": _catalogue_02_q2(),
    "03.q1": _catalogue_03_q1(),
    "04.q1": _catalogue_04_q1(),
    "04.q2": _catalogue_04_q2(),
    "05.q1": _catalogue_05_q1(),
    "05.q2": _catalogue_05_q2(),
    "05.q3": _catalogue_05_q3(),
    "06.q1": _catalogue_06_q1(),
    "08.q1": _catalogue_08_q1(),
    "08.q2": _catalogue_08_q2(),
    "09.q1": _catalogue_09_q1(),
}

# ---------------------------------------------------------------- value questions: wrong values
CUT = "cut to"  # the rounding-slip wording of helpers.checking.values
VALUE_CATALOGUE: dict[str, list[Wrong]] = {
    "01.q2": [
        Wrong("the worked example's K = 5 counts", (4, 1, 2), "those are the counts at K = 5"),
        Wrong("FP and FN swapped", (5, 1, 2), "FP and FN swapped"),
        Wrong("FN only inside the top K", (5, 2, 0), "FN counted only inside the top K"),
        Wrong("FN = |R|", (5, 2, 6), "FN = all relevant items"),
        Wrong("TN instead of FN", (5, 2, 4992)),
        Wrong("floats of the wrong counts", (4.0, 1.0, 2.0), "those are the counts at K = 5"),
        Wrong("list of wrong counts", [5, 2, 2]),
        Wrong("constant", (0, 0, 0)),
    ],
    "03.q2": [
        Wrong("MAP@5 printed above", 0.275, "that is MAP@5"),
        Wrong("÷ hits", 0.25, "wrong AP denominator: hits in the top k"),
        Wrong(
            "user 2 left out of the mean",
            1 / 6,
            "a user with no hit left out of the mean (or a 0-based rank)",
        ),
        Wrong("mean of P@1..P@3", (0 + 1 / 2 + 1 / 3) / 3 / 2, "averages P@j over every rank j <= k"),
        Wrong("rounded to 2 decimals", 0.08),
        Wrong("÷ k over one list", 1 / 2 / 3),
        Wrong("constant", 0.0),
    ],
    "03.q3": [
        Wrong("÷ hits, as printed above", 34 / 45, "wrong AP denominator: hits in the top k"),
        Wrong("÷ hits, rounded", 0.7556, "wrong AP denominator: hits in the top k"),
        Wrong("÷ K", 34 / 75, "wrong AP denominator: k"),
        Wrong(
            "mean of P@1..P@5", (1 + 1 / 2 + 2 / 3 + 2 / 4 + 3 / 5) / 5, "averages P@j over every rank j <= k"
        ),
        Wrong("cut to 4 decimals", 0.5666, CUT),
        Wrong("rounded to 1 decimal", 0.6),
        Wrong("list B", (1 / 2 + 2 / 4 + 3 / 5) / 4),
    ],
    "06.q2": [
        Wrong(
            "miss left out of the mean", (1 / math.log2(5) + 1) / 2, "a user with no hit left out of the mean"
        ),
        Wrong(
            "miss left out, mean of rounded scores",
            (0.4307 + 1) / 2,
            "a user with no hit left out of the mean",
        ),
        Wrong("miss left out, rounded", 0.7154, "a user with no hit left out of the mean"),
        Wrong("the sum", 1 / math.log2(5) + 1, "summed, not averaged"),
        Wrong("the sum, rounded", 1.4307, "summed, not averaged"),
        Wrong("1/log2(r), rank 1 undiscounted", 0.5, "log2(r) instead of log2(r + 1)"),
        Wrong("log2(r + 2)", (1 / math.log2(6) + 1 / math.log2(3)) / 3, "0- vs 1-based rank"),
        Wrong("MRR", (1 / 4 + 1) / 3, "that is MRR"),
        Wrong("HR", 2 / 3, "that is the hit ratio"),
        Wrong("ln", (1 / math.log(5) + 1 / math.log(2)) / 3, "ln instead of log2"),
        Wrong("rank 4's NDCG alone", 1 / math.log2(5)),
        Wrong("cut to 4 decimals", 0.4768, CUT),
        Wrong("constant 1", 1.0),
    ],
    "08.q3": [
        Wrong("ratio", nb08.q3.mistakes[0].function(), "ratio instead of difference"),
        Wrong("NDCG@5", nb08.q3.mistakes[1].function(), "wrong cutoff (K = 5)"),
        Wrong("HR@10", round(nb08.q3.mistakes[2].function(), 4), "hit ratio instead of NDCG"),
        Wrong("rounded to 2 decimals", round(nb08.svd_minus_pop(), 2)),
        Wrong(
            "cut to 4 decimals",
            math.trunc(nb08.svd_minus_pop() * 1e4) / 1e4
            if round(nb08.svd_minus_pop(), 4) != math.trunc(nb08.svd_minus_pop() * 1e4) / 1e4
            else nb08.svd_minus_pop() + 0.01,
        ),
        Wrong("MostPopular minus PureSVD", -nb08.svd_minus_pop()),
        Wrong("constant", 0.0),
    ],
    "09.q2": [
        Wrong("counted the item itself", 100 * 50 / 999, "counted the item itself"),
        Wrong("divided by all 1000 candidates", 4.9, "divided by all 1000 candidates"),
        Wrong("expected sampled rank", 1 + 100 * 49 / 999, "the expected sampled rank, not the count above"),
        Wrong("cut to 3 decimals", 4.904, CUT),
        Wrong("constant", 5),
    ],
    "09.q3": [
        Wrong("one too early", nb09.first_rank_below_half() - 1, "the last rank still at or above one half"),
        Wrong("exact cutoff", 11, "the exact cutoff"),
        Wrong("proportional guess", 101, "proportional guess"),
        Wrong("a float near the rank", nb09.first_rank_below_half() + 0.4),
        Wrong("str", "94"),
    ],
}


# ---------------------------------------------------------------- right answers that must pass
def _np_float(function):
    return lambda *args: np.float64(function(*args))


RIGHT: dict[str, list[tuple[str, object]]] = {
    "00.q1": [
        ("int count", nb00.hits_at_k),
        ("numpy int", lambda r, rel, k: np.int64(len(set(r[:k]) & set(rel)))),
        ("float count", lambda r, rel, k: float(sum(x in rel for x in r[:k]))),
    ],
    "01.q1": [
        ("numpy floats", lambda rec, rel: tuple(np.float64(v) for v in nb01.precision_recall(rec, rel))),
        ("list", lambda rec, rel: list(nb01.precision_recall(rec, rel))),
    ],
    "02.q1": [
        ("numpy", lambda r, rel, k: np.isin(np.array(r[:k], dtype=object), list(rel)).sum() / k),
        ("sum of booleans", lambda r, rel, k: sum(x in rel for x in r[:k]) / k),
    ],
    "02.q2": [
        ("numpy float", _np_float(nb02.recall_at_k)),
        ("set intersection", lambda r, rel, k: len(set(r[:k]) & set(rel)) / len(rel)),
    ],
    "03.q1": [
        ("numpy float", _np_float(nb03.average_precision_at_k)),
        (
            "precisions list",
            lambda r, rel, k: (
                sum(sum(x in rel for x in r[:i]) / i for i in range(1, min(k, len(r)) + 1) if r[i - 1] in rel)
                / min(k, len(rel))
            ),
        ),
    ],
    "04.q1": [
        ("numpy float", _np_float(nb04.reciprocal_rank_at_k)),
        ("int 0 for a miss", lambda r, rel, k: next((1 / i for i, x in enumerate(r[:k], 1) if x in rel), 0)),
    ],
    "04.q2": [
        ("int 1 or 0", lambda r, rel, k: int(any(x in rel for x in r[:k]))),
        ("numpy float", _np_float(nb04.hit_at_k)),
        ("min(1, hits)", lambda r, rel, k: min(1, _hits(r, rel, k))),
    ],
    "05.q1": [
        ("numpy", lambda g, k: np.sum(np.asarray(g[:k], float) / np.log2(np.arange(2, len(g[:k]) + 2)))),
        (
            "0-based index with log2(i + 2)",
            lambda g, k: sum(x / math.log2(i + 2) for i, x in enumerate(g[:k])),
        ),
    ],
    "05.q2": [
        ("ln in DCG and IDCG", _with_dcg(_ndcg(discount="ln(i + 1)"))),
        ("log10 in both", _with_dcg(_ndcg(discount="log10(i + 1)"))),
        ("numpy float", _np_float(nb05.ndcg)),
        ("with the dcg passed in", _own_dcg_ndcg(lambda g, k: sorted(g, reverse=True))),
    ],
    "05.q3": [
        (
            "numpy",
            lambda g, k: np.sum(
                (np.exp2(np.asarray(g[:k], float)) - 1) / np.log2(np.arange(2, len(g[:k]) + 2))
            ),
        )
    ],
    "06.q1": [
        ("numpy float", _np_float(nb06.loo_ndcg)),
        ("ln ratio", lambda r, k: 0 if r is None or r > k else math.log(2) / math.log(r + 1)),
    ],
    "08.q1": [
        ("np.percentile", lambda s, c: tuple(np.percentile(s, [50 * (1 - c), 50 * (1 + c)]))),
        ("numpy scalars", lambda s, c: tuple(np.quantile(s, [(1 - c) / 2, (1 + c) / 2]))),
    ],
    "08.q2": [("numpy float", _np_float(nb08.sign_flip_p_value))],
    "09.q1": [
        ("numpy int", lambda p, n: np.int64(1 + np.sum(np.asarray(n) > p))),
        ("float rank", lambda p, n: float(1 + sum(s > p for s in n))),
    ],
}
VALUE_RIGHT: dict[str, list[object]] = {
    "01.q2": [(5, 2, 1), [5, 2, 1], (np.int64(5), np.int64(2), np.int64(1)), np.array([5, 2, 1])],
    "03.q2": [1 / 12, np.float64(1 / 12), 0.0833, 0.08333],
    "03.q3": [34 / 60, 0.5667, 0.56667, np.float64(17 / 30)],
    "06.q2": [(1 / math.log2(5) + 1) / 3, 0.4769, np.float64(0.47689)],
    "08.q3": [nb08.svd_minus_pop(), round(nb08.svd_minus_pop(), 4), np.float64(nb08.svd_minus_pop())],
    "09.q2": [100 * 49 / 999, 4.905, 4.9049, np.float64(100 * 49 / 999)],
    "09.q3": [nb09.first_rank_below_half(), np.int64(nb09.first_rank_below_half())],
}


# ---------------------------------------------------------------- notebooks 11-14
def _novelty(stop="ranking[:k]", log=math.log2, divide="shown"):
    def wrong(ranking, k, popularity):
        shown = ranking[: STOPS[stop](ranking, k)]
        total = sum(-log(popularity[item]) for item in shown)
        return total / {"shown": max(len(shown), 1), "k": k, "none": 1}[divide]

    return wrong


def _gini(order="ascending", zeros=True, scale="n * sum"):
    def wrong(counts):
        kept = [c for c in counts if zeros or c > 0]
        ordered = {"ascending": sorted(kept), "descending": sorted(kept, reverse=True), "given": list(kept)}[
            order
        ]
        n, total = len(ordered), sum(ordered)
        numerator = sum((2 * i - n - 1) * c for i, c in enumerate(ordered, start=1))
        return (
            numerator / {"n * sum": n * total, "sum": total, "n": n, "(n - 1) * sum": (n - 1) * total}[scale]
        )

    return wrong


def _rbp(stop="ranking[:k]", exponent=lambda r: r - 1, factor=True):
    def wrong(ranking, relevant, k, p):
        ranks = [r for r, item in enumerate(ranking[: STOPS[stop](ranking, k)], start=1) if item in relevant]
        return (1 - p if factor else 1) * sum(p ** exponent(r) for r in ranks)

    return wrong


def _ips(weight="t / lp", mean="n", cap=None, clip_estimate=False):
    def wrong(clicks, target, logging):
        c, t, lp = (np.asarray(v, dtype=float) for v in (clicks, target, logging))
        w = {
            "t / lp": t / lp,
            "t * lp": t * lp,
            "lp / t": np.divide(lp, t, out=np.zeros_like(lp), where=t > 0),
            "t": t,
            "1": np.ones_like(t),
        }[weight]
        w = w if cap is None else np.minimum(w, cap)
        estimate = float(np.sum(c * w) / {"n": len(c), "sum w": np.sum(w), "n - 1": len(c) - 1}[mean])
        return min(1.0, max(0.0, estimate)) if clip_estimate else estimate

    return wrong


def _exposure(stop="ranking[:k]", weight=lambda r: 1 / math.log2(r + 1), reduce="sum"):
    """Wrong exposure of one item (notebook 11): a slice, a slot weight or a total changed."""

    def wrong(rankings, item, k):
        values = [
            weight(r)
            for ranking in rankings
            for r, x in enumerate(ranking[: max(STOPS[stop](ranking, k), 0)], 1)
            if x == item
        ]
        return sum(values) / {"sum": 1, "lists": len(rankings), "k": k}[reduce]

    return wrong


CATALOGUE.update(
    {
        "11.q1": [
            Wrong("natural log", _novelty(log=math.log), "natural log"),
            Wrong("sum instead of mean", _novelty(divide="none"), "sum instead of mean"),
            Wrong("divides by k", _novelty(divide="k"), "divides by k"),
            Wrong("log10", _novelty(log=math.log10)),
            Wrong("ranking[:k - 1]", _novelty(stop="ranking[:k - 1]")),
            Wrong("ranking[:k + 1]", _novelty(stop="ranking[:k + 1]")),
            Wrong("ignores k", _novelty(stop="whole list (ignores k)")),
            Wrong("popularity share itself", lambda r, k, pop: sum(pop[i] for i in r[:k]) / len(r[:k])),
            *[Wrong(f"constant {v}", _always(v)) for v in (0.0, 1.0)],
        ],
        "11.q2": [
            Wrong("drops the zeros", _gini(zeros=False), "drops the zeros"),
            Wrong("forgets to divide by n", _gini(scale="sum"), "forgets to divide by n"),
            Wrong("not sorted", _gini(order="given"), "not sorted"),
            Wrong("sorted largest first", _gini(order="descending")),
            Wrong("divides by n only", _gini(scale="n")),
            Wrong("divides by (n - 1) * sum", _gini(scale="(n - 1) * sum")),
            *[Wrong(f"constant {v}", _always(v)) for v in (0.0, 1.0)],
        ],
        "11.q5": [
            Wrong("counts the slots", _exposure(weight=lambda r: 1.0), "counts the slots"),
            Wrong(
                "1/rank instead of 1/log2(rank + 1)",
                _exposure(weight=lambda r: 1 / r),
                "1/rank instead of 1/log2(rank + 1)",
            ),
            Wrong("ignores the cutoff k", _exposure(stop="whole list (ignores k)"), "ignores the cutoff k"),
            Wrong("mean over lists", _exposure(reduce="lists"), "mean over lists"),
            Wrong("ranking[:k - 1]", _exposure(stop="ranking[:k - 1]")),
            Wrong("ranking[:k + 1]", _exposure(stop="ranking[:k + 1]")),
            Wrong("0-based rank: 1/log2(rank + 2)", _exposure(weight=lambda r: 1 / math.log2(r + 2))),
            Wrong("natural log", _exposure(weight=lambda r: 1 / math.log(r + 1)), "natural log"),
            Wrong("clipped log2: 1/log2(max(rank, 2))", _exposure(weight=lambda r: 1 / math.log2(max(r, 2)))),
            Wrong("RBP weights p^(rank - 1), p = 0.8", _exposure(weight=lambda r: 0.8 ** (r - 1))),
            Wrong("divides by k", _exposure(reduce="k")),
            *[Wrong(f"constant {v}", _always(v)) for v in (0.0, 1.0)],
        ],
        "12.q2": [
            Wrong(
                "p^rank instead of p^(rank - 1)", _rbp(exponent=lambda r: r), "p^rank instead of p^(rank - 1)"
            ),
            Wrong("no (1 - p) factor", _rbp(factor=False), "no (1 - p) factor"),
            Wrong("ignores the cutoff k", _rbp(stop="whole list (ignores k)"), "ignores the cutoff k"),
            Wrong("ranking[:k - 1]", _rbp(stop="ranking[:k - 1]")),
            Wrong("ranking[:k + 1]", _rbp(stop="ranking[:k + 1]")),
            Wrong("p^(rank - 2)", _rbp(exponent=lambda r: r - 2)),
            Wrong("precision at k", lambda r, rel, k, p: _hits(r, rel, k) / k),
            *[Wrong(f"constant {v}", _always(v)) for v in (0.0, 1.0)],
        ],
        "12.q4": [
            Wrong("multiplies by the propensity", _ips(weight="t * lp"), "multiplies by the propensity"),
            Wrong("self-normalised (SNIPS)", _ips(mean="sum w"), "self-normalised (SNIPS)"),
            Wrong("plain click rate of the log", _ips(weight="1"), "plain click rate of the log"),
            Wrong("inverted weight", _ips(weight="lp / t")),
            Wrong("target probability only", _ips(weight="t")),
            Wrong("divides by n - 1", _ips(mean="n - 1")),
            Wrong("clips the estimate to [0, 1]", _ips(clip_estimate=True), "clips the estimate to [0, 1]"),
            Wrong("caps the weights at 10", _ips(cap=10.0), "caps the weights (clipped IPS)"),
            Wrong("caps the weights at 1", _ips(cap=1.0)),
            Wrong("caps the weights at 20", _ips(cap=20.0)),
            *[Wrong(f"constant {v}", _always(v)) for v in (0.0, 1.0)],
        ],
        "12.q6": [
            Wrong("no guard for new rank 0", nb12._pbm(shown=lambda new: True), "no guard for new rank 0"),
            Wrong(
                "new rank 0 read as rank 1",
                nb12._pbm(discount=lambda r, new: 1 / math.log2(1 + max(new, 1)), shown=lambda new: True),
                "no guard for new rank 0",
            ),
            Wrong(
                "multiplies by the propensity",
                nb12._pbm(propensity=lambda r, new, eta: r**eta),
                "multiplies by the propensity",
            ),
            Wrong(
                "no propensity (the naive click metric)",
                nb12._pbm(propensity=lambda r, new, eta: 1.0),
                "no propensity (the naive click metric)",
            ),
            Wrong(
                "propensity of the new rank",
                nb12._pbm(propensity=lambda r, new, eta: new**-eta),
                "propensity of the new rank",
            ),
            Wrong(
                "discounts by the logged rank",
                nb12._pbm(discount=lambda r, new: 1 / math.log2(1 + r)),
                "discounts by the logged rank",
            ),
            Wrong("0-based logged rank", nb12._pbm(propensity=lambda r, new, eta: max(r - 1, 1) ** -eta)),
            Wrong(
                "log2(new rank) without the + 1", nb12._pbm(discount=lambda r, new: 1 / math.log2(new + 0.0))
            ),
            Wrong("natural log", nb12._pbm(discount=lambda r, new: 1 / math.log(1 + new))),
            Wrong("reciprocal rank instead of the DCG discount", nb12._pbm(discount=lambda r, new: 1 / new)),
            Wrong(
                "eta applied to the wrong side",
                nb12._pbm(propensity=lambda r, new, eta: r ** -(1 / (eta + 1))),
            ),
            Wrong(
                "mean over the clicks instead of the sum",
                lambda c, nr, eta: nb12.pbm_dcg(c, nr, eta) / max(sum(c), 1),
            ),
            *[Wrong(f"constant {v}", _always(v)) for v in (0.0, 1.0)],
        ],
        "12.q8": [
            *[Wrong(m.label, m.function, m.label) for m in nb12.q8.mistakes],
            *[Wrong(f"constant {v}", _always(v)) for v in (0.0, 1.0)],
        ],
        "13.q2": [
            Wrong(
                "log2(rank + 2) with a 1-based rank",
                nb13._with(shift=2),
                "log2(rank + 2) with a 1-based rank",
            ),
            Wrong("natural log", nb13._with(log=math.log), "natural log"),
            Wrong("ignores the cutoff k", nb13._with(cut=False), "ignores the cutoff k"),
            Wrong(
                "log2(rank)",
                lambda r, h, k: next(
                    (1 / math.log2(i) if i > 1 else 1.0 for i, x in enumerate(r[:k], 1) if x == h), 0.0
                ),
            ),
            Wrong(
                "reciprocal rank",
                lambda r, h, k: next((1 / i for i, x in enumerate(r[:k], 1) if x == h), 0.0),
            ),
            Wrong("hit", lambda r, h, k: float(h in r[:k])),
            Wrong("ranking[:k - 1]", lambda r, h, k: nb13.loo_ndcg(r, h, k - 1), "cuts at k - 1"),
            Wrong("ranking[:k + 1]", lambda r, h, k: nb13.loo_ndcg(r, h, k + 1), "cuts at k + 1"),
            *[Wrong(f"constant {v}", _always(v)) for v in (0.0, 1.0)],
        ],
        "15.q2": [
            Wrong("multiplies by the propensity", _ips_at_k(weight="p"), "multiplies by the propensity"),
            Wrong(
                "no weights (the log's precision)", _ips_at_k(weight="1"), "no weights (the log's precision)"
            ),
            Wrong("divides by the number of hits", _ips_at_k(over="hits"), "divides by the number of hits"),
            Wrong("ignores the cutoff k", _ips_at_k(stop="whole list (ignores k)"), "ignores the cutoff k"),
            Wrong("ranking[:k - 1]", _ips_at_k(stop="ranking[:k - 1]")),
            Wrong("ranking[:k + 1]", _ips_at_k(stop="ranking[:k + 1]")),
            Wrong("divides by |logged|", _ips_at_k(over="|logged|")),
            Wrong("self-normalised over the hits' weights", _ips_at_k(over="sum of weights")),
            Wrong("1 - propensity as the weight", _ips_at_k(weight="1 - p")),
            Wrong("weights clipped at 10", nb15.q2.mistakes[3].function, "clips the weights"),
            Wrong(
                "divides by the list's length",
                nb15.q2.mistakes[4].function,
                "divides by the list's length instead of k",
            ),
            *[Wrong(f"constant {v}", _always(v)) for v in (0.0, 1.0)],
        ],
    }
)


def _choice_wrongs(qid):
    """Every wrong option, named; an unknown letter and a non-letter."""
    q = QUESTIONS[qid]
    return [Wrong(f"option {m.function()}", m.function(), m.label) for m in q.mistakes] + [
        Wrong("not an option", "z"),
        Wrong("a number", 2),
    ]


_CHOICES = [
    qid for qid in QUESTIONS if qid[:2] in ("07", "11", "12", "13", "14", "15") and qid not in CATALOGUE
]
VALUE_CATALOGUE.update({qid: _choice_wrongs(qid) for qid in _CHOICES})
RIGHT.update(
    {
        "11.q1": [("numpy", lambda r, k, pop: np.mean(-np.log2([pop[i] for i in r[:k]])))],
        "11.q2": [
            ("numpy float", _np_float(nb11.gini)),
            (
                "mean absolute difference",
                lambda c: float(np.abs(np.subtract.outer(c, c)).sum() / (2 * len(c) ** 2 * np.mean(c))),
            ),
        ],
        "11.q5": [
            ("numpy float", _np_float(nb11.exposure)),
            (
                "numpy over the ranks",
                lambda rankings, item, k: np.sum(
                    [1 / np.log2(list(r[:k]).index(item) + 2) for r in rankings if item in r[:k]]
                ),
            ),
        ],
        "12.q2": [
            ("numpy float", _np_float(nb12.rbp)),
            ("numpy", lambda r, rel, k, p: (1 - p) * np.sum([p**i for i, x in enumerate(r[:k]) if x in rel])),
        ],
        "12.q4": [
            ("numpy float", lambda c, t, lp: np.mean(np.asarray(c) * np.asarray(t) / np.asarray(lp))),
            ("the hint as written, on arrays", lambda c, t, lp: np.mean(c * t / lp)),
            (
                "a loop",
                lambda c, t, lp: sum(ci * ti / li for ci, ti, li in zip(c, t, lp, strict=True)) / len(c),
            ),
        ],
        "12.q8": [("solution", nb12.doubly_robust), ("numpy float", _np_float(nb12.doubly_robust))],
        "12.q6": [
            ("numpy float", _np_float(nb12.pbm_dcg)),
            (
                "numpy, dividing by the propensity",
                lambda c, nr, eta: np.sum(
                    [
                        (1 / np.log2(1 + n)) / (1 / r) ** eta
                        for r, (x, n) in enumerate(zip(c, nr, strict=True), 1)
                        if x and n
                    ]
                ),
            ),
        ],
        "13.q2": [
            ("numpy float", _np_float(nb13.loo_ndcg)),
            (
                "0-based with log2(i + 2)",
                lambda r, h, k: next((1 / math.log2(i + 2) for i, x in enumerate(r[:k]) if x == h), 0.0),
            ),
        ],
        "15.q2": [
            ("numpy float", _np_float(nb15.ips_precision)),
            (
                "numpy",
                lambda r, logged, p, k: np.sum([1 / p[i] for i in r[:k] if i in logged]) / k,
            ),
        ],
    }
)
VALUE_RIGHT.update(
    {qid: [QUESTIONS[qid].solution_code(), QUESTIONS[qid].solution_code().upper()] for qid in _CHOICES}
)

# The mistakes attached to each question, exactly as attached, must be named too.
for _qid, _wrongs in {**CATALOGUE, **VALUE_CATALOGUE}.items():
    _q = QUESTIONS[_qid]
    _wrongs += [Wrong(f"attached: {m.label}", _q.answer_from(m.function), m.label) for m in _q.mistakes]


def _uses(question):
    """The right functions a question builds on (05.q2's dcg), as a learner who solved them passes them."""
    return tuple(q.solution_code for q in getattr(question, "uses", ()))


_WRONG_CASES = [(qid, wrong) for qid, wrongs in {**CATALOGUE, **VALUE_CATALOGUE}.items() for wrong in wrongs]


def test_every_question_has_a_catalogue():
    checked = {qid for qid, q in QUESTIONS.items() if not isinstance(q, course.PropertyQuestion)}
    assert set(CATALOGUE) | set(VALUE_CATALOGUE) == checked
    assert set(RIGHT) | set(VALUE_RIGHT) == checked


def test_every_known_mistake_is_in_the_catalogue():
    for qid, wrongs in {**CATALOGUE, **VALUE_CATALOGUE}.items():
        labels = {w.named for w in wrongs if not w.name.startswith("attached: ")}
        for mistake in QUESTIONS[qid].mistakes:
            assert mistake.label in labels, (
                f"{qid}: mistake {mistake.label!r} has no catalogue entry that names it"
            )


@pytest.mark.parametrize("qid, wrong", _WRONG_CASES, ids=[f"{q}-{w.name}" for q, w in _WRONG_CASES])
def test_wrong_answer_is_rejected(qid, wrong):
    q = QUESTIONS[qid]
    result = q.check(wrong.answer, *_uses(q))
    assert result.outcome == course.INCORRECT, f"{qid} accepted {wrong.name}: {result.message}"
    if wrong.named == CUT:
        assert CUT in result.message, result.message
    elif wrong.named is not None:
        assert result.mistake == wrong.named, (
            f"{qid}, {wrong.name}: named {result.mistake!r}\n{result.message}"
        )
        assert f"Recognised mistake: {wrong.named}." in result.message


_RIGHT_CASES = [(qid, name, f) for qid, rights in RIGHT.items() for name, f in rights]
_VALUE_RIGHT_CASES = [(qid, v) for qid, values in VALUE_RIGHT.items() for v in values]


@pytest.mark.parametrize("qid, name, function", _RIGHT_CASES, ids=[f"{q}-{n}" for q, n, _ in _RIGHT_CASES])
def test_right_variant_passes(qid, name, function):
    result = QUESTIONS[qid].check(function, *_uses(QUESTIONS[qid]))
    assert result.outcome == course.CORRECT, result.message


@pytest.mark.parametrize("qid, value", _VALUE_RIGHT_CASES, ids=[f"{q}-{v!r}" for q, v in _VALUE_RIGHT_CASES])
def test_right_value_passes(qid, value):
    result = QUESTIONS[qid].check(value)
    assert result.outcome == course.CORRECT, result.message


def test_catalogue_size():
    """The report quotes this size; keep it large."""
    assert len(_WRONG_CASES) >= 300
