# ruff: noqa: F821  (log, recommendations and held_out_items come from the source notebook's cells)
# grading
# The built-in assignment `leave-one-out` written in the authoring format of `python -m helpers.grade author`
# (helpers/grade/authoring.py): with the source notebook it becomes the learner notebook exercises/leave-one-out.ipynb
# and a spec that draws the same cases as the built-in one (tests/grade/test_authoring.py checks both).
#
#   python -m helpers.grade author exercises/source/leave-one-out.ipynb \
#       --grading exercises/source/leave-one-out.grading.py --out build/
import random as _random

_DRAWN = 16  # drawn cases per hidden check: every learner meets a draw of their own


def _random_log(rng, n_users=6, ties=True):
    rows = []
    for u in range(n_users):
        n = rng.randint(2, 6)
        items = rng.sample(range(1, 30), n)
        times = [rng.randint(1, 8) for _ in range(n)] if ties else rng.sample(range(1, 1000), n)
        rows.extend([f"u{u}", item, t] for item, t in zip(items, times, strict=True))
    rng.shuffle(rows)
    return rows


def _recommendations(rng, rows, k, without=""):
    recs = {}
    position = {(row[0], row[1]): i for i, row in enumerate(rows)}  # users in the order of their held-out row
    truth = sorted(held_out_items(rows).items(), key=lambda pair: position[pair])
    chosen = rng.randint(1, len(truth) - 1) if without else 0  # this user surely has none
    for n, (user, item) in enumerate(truth):
        if n == chosen and without:
            if without == "empty":
                recs[user] = []
            continue
        if n and rng.random() < 0.15:  # a user without recommendations (left out, or an empty list)
            if rng.random() < 0.5:
                recs[user] = []
            continue
        ranking = rng.sample(range(30, 60), rng.randint(1, k + 3))
        if rng.random() < 0.7:
            ranking.insert(rng.randint(0, len(ranking)), item)
        recs[user] = ranking
    return recs


def _evaluation_cases(rng):
    out = []
    for i in range(_DRAWN):  # the first two: a user left out, a user with an empty list
        rows = _random_log(rng, rng.randint(2, 8))
        k = rng.randint(1, 10)
        out.append((rows, _recommendations(rng, rows, k, ("left out", "empty", "")[min(i, 2)]), k))
    return out


def _rank_case(rng, kind):
    ranking = rng.sample(range(50), rng.randint(2 if kind == "beyond" else 1, 12))
    if kind == "beyond":
        k = rng.randint(1, len(ranking) - 1)
        return ranking, ranking[k if rng.random() < 0.5 else rng.randint(k, len(ranking) - 1)], k
    if kind == "absent":
        return ranking, 77, rng.randint(1, 15)
    if kind == "short":
        return ranking, rng.choice(ranking), len(ranking) + rng.randint(1, 5)
    item = rng.choice(ranking + [88])
    rank = ranking.index(item) + 1 if item in ranking else rng.randint(1, 15)
    return ranking, item, max(1, rank - rng.randint(0, 1)) if rng.random() < 0.5 else rng.randint(1, 15)


def _rank_cases(kind):
    def make(rng: _random.Random):
        return [_rank_case(rng, kind) for _ in range(_DRAWN if kind != "random" else 3 * _DRAWN)]

    return make


_RANK_CHECKS = [
    {"name": "worked example", "cases": [([4, 6, 2, 3, 1, 8, 10, 9, 5, 7], 2, 5), ([4, 6, 2], 6, 1)]},
    {"name": "a list shorter than k", "cases": [([4, 6, 2], 2, 5), ([4, 6, 2], 9, 5)]},
    {"name": "held-out item ranked below k", "make": _rank_cases("beyond"), "hidden": True},
    {"name": "held-out item never recommended", "make": _rank_cases("absent"), "hidden": True},
    {"name": "k larger than the list", "make": _rank_cases("short"), "hidden": True},
    {"name": "randomized cases", "make": _rank_cases("random"), "hidden": True, "general": True},
]

ASSIGNMENT = {
    "name": "leave-one-out",
    "title": "Leave-one-out evaluation",
    "notes": "Write each function yourself; helpers is not available while grading.",
    "packages": ["numpy"],
}
QUESTIONS = [
    {
        "target": "held_out_items",
        "title": "Hold out each user's last interaction",
        "points": 3,
        "result": "exact",
        "checks": [
            {"name": "worked example", "cases": [(log,)]},
            {
                "name": "rows not in time order",
                "make": lambda rng: [(_random_log(rng, 5, ties=False),) for _ in range(_DRAWN)],
                "hidden": True,
            },
            {
                "name": "ties on the timestamp go to the row listed last",
                "cases": [([["x", 1, 5], ["x", 2, 5], ["y", 3, 1], ["y", 4, 1], ["y", 5, 0]],)],
            },
            {
                "name": "randomized logs",
                "make": lambda rng: [(_random_log(rng, rng.randint(1, 9)),) for _ in range(2 * _DRAWN)],
                "hidden": True,
                "general": True,
            },
        ],
    },
    {
        "target": "loo_hit_at_k",
        "title": "Hit@k with one held-out item",
        "points": 2,
        "result": "unit",
        "checks": _RANK_CHECKS,
    },
    {
        "target": "loo_ndcg_at_k",
        "title": "NDCG@k with one held-out item",
        "points": 2,
        "result": "unit",
        "checks": _RANK_CHECKS,
    },
    {
        "target": "evaluate_loo",
        "title": "Evaluate a recommender with leave-one-out",
        "points": 3,
        "result": "float_dict",
        "checks": [
            {"name": "worked example", "cases": [(log, recommendations, 5), (log, recommendations, 1)]},
            {
                "name": "randomized logs and recommendations",
                "make": _evaluation_cases,
                "hidden": True,
                "general": True,
            },
        ],
    },
]
