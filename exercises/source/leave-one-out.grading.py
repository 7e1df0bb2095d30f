# ruff: noqa: F821  (log, recommendations and held_out_items come from the source notebook's cells)
# grading
# The built-in assignment `leave-one-out` written in the authoring format of `python -m helpers.grade author`
# (helpers/grade/authoring.py): with the source notebook it becomes the learner notebook exercises/leave-one-out.ipynb
# and a spec that draws the same cases as the built-in one (tests/grade/test_authoring.py checks both).
#
#   python -m helpers.grade author exercises/source/leave-one-out.ipynb \
#       --grading exercises/source/leave-one-out.grading.py --out build/
import random as _random


def _random_log(rng, n_users=6, ties=True):
    rows = []
    for u in range(n_users):
        n = rng.randint(2, 6)
        items = rng.sample(range(1, 30), n)
        times = [rng.randint(1, 8 if ties else 1000) for _ in range(n)]
        rows.extend([f"u{u}", item, t] for item, t in zip(items, times, strict=True))
    rng.shuffle(rows)
    return rows


def _recommendations(rng, rows, k):
    recs = {}
    position = {(row[0], row[1]): i for i, row in enumerate(rows)}  # users in the order of their held-out row
    for user, item in sorted(held_out_items(rows).items(), key=lambda pair: position[pair]):
        ranking = rng.sample(range(30, 60), rng.randint(1, k + 3))
        if rng.random() < 0.7:
            ranking.insert(rng.randint(0, len(ranking)), item)
        recs[user] = ranking
    return recs


def _evaluation_cases(rng):
    out = []
    for _ in range(8):
        rows = _random_log(rng, rng.randint(2, 8))
        k = rng.randint(1, 10)
        out.append((rows, _recommendations(rng, rows, k), k))
    return out


def _rank_cases(kind):
    def make(rng: _random.Random):
        out = []
        for _ in range(8 if kind != "random" else 30):
            ranking = rng.sample(range(50), rng.randint(1, 12))
            if kind == "beyond":
                k = rng.randint(1, len(ranking))
                item = ranking[k - 1 + rng.randint(1, len(ranking) - k)] if len(ranking) > k else 99
            elif kind == "absent":
                k, item = rng.randint(1, 15), 77
            elif kind == "short":
                k = len(ranking) + rng.randint(1, 5)
                item = rng.choice(ranking)
            else:
                k = rng.randint(1, 15)
                item = rng.choice(ranking + [88])
            out.append((ranking, item, k))
        return out

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
                "make": lambda rng: [(_random_log(rng, 5, ties=False),) for _ in range(5)],
                "hidden": True,
            },
            {
                "name": "ties on the timestamp go to the row listed last",
                "cases": [([["x", 1, 5], ["x", 2, 5], ["y", 3, 1], ["y", 4, 1], ["y", 5, 0]],)],
            },
            {
                "name": "randomized logs",
                "make": lambda rng: [(_random_log(rng, rng.randint(1, 9)),) for _ in range(15)],
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
