"""Exercises and tables of ``notebooks/14-recap.ipynb``: every metric in one table, and choosing a metric."""

from __future__ import annotations

import pandas as pd

from helpers import BEYOND_METRICS, BEYOND_OPTIONS, METRICS, OPTIONS
from helpers.course.choice import choice
from topkeval.conventions import library_table

__all__ = [
    "recap_table",
    "core_cheat_sheet",
    "CORE_METRICS",
    "DECISION_GUIDE",
    "GUIDE_EVIDENCE",
    "q1",
    "q2",
    "q3",
    "q4",
]


#: The columns of the library table that, with the option settings, make one library's convention
#: for a metric.
_RULES = ["steps", "no relevant item", "not in truth", "no recommendations", "ties"]


def _settings(options: str, names) -> tuple:
    """The option settings of a library table row, defaults written out.

    ``"gain='linear'"`` becomes ``(("gain", "linear"), ...)``.
    """
    given = {}
    for part in options.split(","):
        if "=" in part:
            name, value = part.split("=", 1)
            given[name.strip()] = value.strip().strip("'\"")
    return tuple((name, given.get(name, OPTIONS[name].default)) for name in names if name in OPTIONS)


def _conventions(libraries: pd.DataFrame, metric) -> tuple[int, int]:
    """(libraries of notebook 07 with this metric, distinct conventions among them).

    A convention is the option settings with defaults written out, the extra steps and the rules for
    awkward users (no relevant item, not in the truth, no recommendations, ties): two libraries share one
    only if all agree.
    """
    if metric.key not in set(libraries.index.get_level_values("metric")):
        return 0, 0
    rows = libraries.xs(metric.key, level="metric")
    names = getattr(metric, "options", ())
    found = {(_settings(row["options"], names), *(row[c] for c in _RULES)) for _, row in rows.iterrows()}
    return len(rows), len(found)


def _option_text(name: str) -> str:
    """An option and its values (a beyond-accuracy option under its keyword); a numeric one by name."""
    if name in OPTIONS:
        return f"{name}: " + " / ".join(OPTIONS[name].values)
    if name in BEYOND_OPTIONS:
        return f"{BEYOND_OPTIONS[name].name}: " + " / ".join(BEYOND_OPTIONS[name].values)
    return name


def recap_table() -> pd.DataFrame:
    """The recap of notebook 14: one row per metric of the registry.

    Each row gives the formula, the options, the range, what the metric rewards and its
    leave-one-out form (all from the registry), and how many libraries of notebook 07's table
    compute it with how many conventions.

    Returns
    -------
    pandas.DataFrame
        Indexed by the metric's notation, one row per core and beyond-accuracy metric.

    Examples
    --------
    >>> table = recap_table()
    >>> table.loc["NDCG@k", "family"], "formula" in table.columns
    ('accuracy', True)
    """
    libraries = library_table()
    rows = []
    entries = [(m, m.family) for m in METRICS.values()] + [(m, "beyond") for m in BEYOND_METRICS.values()]
    for metric, family in entries:
        options = "; ".join(_option_text(name) for name in getattr(metric, "options", ())) or "none"
        n_libraries, n_conventions = _conventions(libraries, metric)
        rows.append(
            {
                "metric": metric.notation,
                "family": family,
                "formula": metric.formula,
                "range": metric.value_range,
                "rewards": metric.rewards,
                "leave-one-out form": metric.leave_one_out,
                "helpers options": options,
                "libraries in notebook 07's table": n_libraries,
                "distinct conventions among them": n_conventions,
            }
        )
    return pd.DataFrame(rows).set_index("metric")


#: The six core metrics of notebooks 01-06, in the order the core teaches them (notations of the registry).
CORE_METRICS = ("P@k", "R@k", "AP@k", "NDCG@k", "RR@k", "Hit@k")


def core_cheat_sheet() -> pd.DataFrame:
    """The one-page sheet of the six core metrics: formula, range, what it rewards, leave-one-out form.

    Every cell comes from the registry (the same entries as :func:`recap_table`), so the sheet cannot
    disagree with the library.

    Returns
    -------
    pandas.DataFrame
        Six rows, in the order the course teaches the metrics.

    Examples
    --------
    >>> list(core_cheat_sheet().index)
    ['P@k', 'R@k', 'AP@k', 'NDCG@k', 'RR@k', 'Hit@k']
    """
    return recap_table().loc[list(CORE_METRICS), ["formula", "range", "rewards", "leave-one-out form"]]


#: What backs each row of the decision guide. ``("definition", metrics)``: the rule restates what the
#: metrics measure (section 1's table, from the registry). ``(notebook, fragment)``: the rule rests on a
#: verdict that notebook prints, and the fragment is the start of that printed verdict (tests/test_claims.py
#: checks that each fragment is printed in that notebook, on a verdict line).
GUIDE_EVIDENCE: dict[str, list[tuple[str, str]]] = {
    "one item": [("definition", "Hit@k, RR@k")],
    "set": [("definition", "P@k, R@k")],
    "position": [("definition", "AP@k, NDCG@k")],
    "graded": [("definition", "NDCG@k, ERR@k")],
    "cascade": [("definition", "ERR@k, RR@k")],
    "patience": [("definition", "RBP@k, RBP residual@k")],
    "catalogue": [
        ("11", "ItemKNN(400) ahead of ItemKNN(100) on NDCG@10"),
        ("11", "ItemKNN(400) ahead of ItemKNN(100) on ARP@10"),
    ],
    "exposure": [("11", "Verdict: exposure disparity@10 (vs merit) ItemKNN(400) - ItemKNN(100)")],
    "calibration": [("11", "EASE(100) ahead of ItemKNN(100) on -C_KL@10")],
    "significance": [("13", "EASE ahead of ItemKNN on NDCG@10: ItemKNN - EASE = -0.0160")],
    "sampled": [
        ("09", "EASE-10 ahead of EASE-3000 on HR@10"),
        ("09", "EASE-10 vs EASE-3000 on HR@10: a tie at this sample size"),
        ("15", "full ranking: ItemKNN vs EASE on HR@10"),
        ("15", "corrected sampled: ItemKNN vs EASE on HR@10"),
        ("15", "EASE: full ahead of corrected on EASE's HR@10"),
    ],
    "log": [
        ("15", "ItemKNN vs EASE on ndcg@10: a tie at this sample size"),
        ("15", "ItemKNN ahead of EASE on ndcg@10"),
    ],
    "online": [("12", "Verdict: interleaving needs 0.62 times the sessions of the A/B test")],
}


def _backing(key: str) -> str:
    parts = []
    for source, what in GUIDE_EVIDENCE[key]:
        parts.append(f"definition ({what})" if source == "definition" else f'notebook {source}: "{what}"')
    return "; ".join(parts)


_GUIDE_ROWS = [
    (
        "one item",
        "Does the user find one thing they want (one relevant item, e.g. the next song)?",
        "HR@k, then MRR@k",
        "one item: HR says whether, RR says how high",
    ),
    (
        "set",
        "Many relevant items, binary, every slot equally likely to be seen (a small grid taken in at a "
        "glance)?",
        "P@k and R@k",
        "set metrics; P when slots are scarce, R when coverage of the user's tastes matters; graded "
        "relevance or a grid that scrolls makes position matter (next rows)",
    ),
    (
        "position",
        "Many relevant items and position matters (a vertical feed, a grid that scrolls)?",
        "MAP@k or NDCG@k",
        "both reward early hits; state the AP denominator",
    ),
    (
        "graded",
        "Graded relevance (stars, purchase > click)?",
        "NDCG@k (say linear or exponential gain), or ERR@k",
        "binary metrics throw the grades away",
    ),
    ("cascade", "Users stop at the first good item (search, Q&A)?", "ERR@k or MRR@k", "cascade reading"),
    (
        "patience",
        "List length varies, or users scroll as long as they like?",
        "RBP with a p you can defend",
        "no cutoff to argue about; report the residual (p^k when the whole top k is judged)",
    ),
    (
        "catalogue",
        "Is the catalogue being used, are we a popularity machine?",
        "coverage@k, Gini@k, ARP@k, novelty@k",
        "on notebook 11's log, the model with more neighbours is ahead on NDCG@10 and also ahead on ARP@10 "
        "(more popular items), with lower coverage: accuracy alone can reward popular items",
    ),
    (
        "exposure",
        "Do items or providers get attention in proportion to what users want from them?",
        "exposure disparity@k against a stated target (e.g. merit) for proportionality; exposure "
        "Gini@k for how concentrated attention is, against equal attention for every item",
        "slot 1 is seen more than slot 10, and a count-based Gini treats them alike; state the browsing "
        "model, the groups and the target (Singh and Joachims, KDD 2018; notebook 11)",
    ),
    (
        "calibration",
        "Does each list keep the user's own mix of tastes (genres), not only their main one?",
        "C_KL@k, calibration (Steck, RecSys 2018), compared per user with a paired verdict",
        "an accurate list can crowd out a user's minor interests; the smoothing alpha (0.01) keeps "
        "the KL finite; read it against a floor, since a 10-item list cannot reach 0 (notebook 11)",
    ),
    (
        "significance",
        "Is the difference between two systems real, with this many test users?",
        "a paired verdict: difference, interval, p (Holm over every comparison scanned)",
        "the verdict rests on the interval and the adjusted p alone: a difference below the minimum "
        "detectable effect can still be ahead (notebook 13: EASE ahead of ItemKNN by 0.0160, below that "
        "pair's MDE). The MDE and users_needed plan a study before it runs, at the family's alpha / m; "
        "quoted after the fact they restate the p-value (notebook 08, section 8)",
    ),
    (
        "sampled",
        "Rank each user's held-out item against a few sampled negatives instead of the catalogue?",
        "don't; if you must, correct the sampled metric (Krichene and Rendle, KDD 2020) and say how many "
        "negatives and which estimator",
        "sampled metrics can hide a difference the full ranking shows (notebook 09); the corrected "
        "estimate moves each model's mean back towards its full-ranking value, not onto it: for EASE the "
        "full ranking is ahead of the corrected value (notebook 15), and per pair the correction need not "
        "keep the full ranking's order: compare the verdicts under both (notebook 15)",
    ),
    (
        "log",
        "Is the interaction log a fair stand-in for what users would like?",
        "metrics on the log, then the model order under propensity weighting (Yang et al., RecSys 2018)",
        "logs are missing not at random: popular items are over-observed, and the log's means can put "
        "two models in the reverse of their true order while its verdicts call them a tie and the "
        "truth's separate them: the log can hide a real difference (notebook 15)",
    ),
    (
        "online",
        "Will the change win online?",
        "an A/B test (or interleaving first)",
        "offline metrics predict, they do not measure; in notebook 12's simulated world interleaving "
        "needs 0.62 times the sessions of an A/B test for the same power (95% CI 0.57 to 0.67), one world, "
        "not a general figure; field studies report larger gains",
    ),
]

#: Product question -> the metric that answers it, why, and the verdict or definition that backs the rule.
DECISION_GUIDE = pd.DataFrame(
    [(question, metric, why, _backing(key)) for key, question, metric, why in _GUIDE_ROWS],
    columns=["product question", "metric", "why", "backed by"],
    index=[key for key, *_ in _GUIDE_ROWS],
)


q1 = choice(
    "14.q1",
    "Choose and justify: a music app autoplays ONE next song",
    "the metric for the next-song product",
    {
        "a": (
            "NDCG@10 with exponential gain.",
            "Defensible, but only the first song plays: the other nine ranks do not exist for the user.",
        ),
        "b": (
            "HR@1 (is the first song one the user keeps?), with MRR@10 as a secondary signal.",
            "Yes: one slot, one relevant item; HR@1 is exactly the product's success, "
            "and MRR@10 shows how close the misses were.",
            True,
        ),
        "c": (
            "Catalogue coverage@10.",
            "Coverage says nothing about whether this user likes the song; "
            "keep it as a guard-rail, not the goal.",
        ),
    },
    ["How many items does the user actually see?"],
)

q2 = choice(
    "14.q2",
    "Choose and justify: a shop grid of 20 products with star ratings as relevance",
    "the metric for a graded, position-aware grid",
    {
        "a": (
            "P@20.",
            "Binary and order-blind: a 5-star item counts as much as a 3-star one, and slot 1 as much as "
            "slot 20. "
            "The decision guide's P@k row is for binary relevance and slots all seen alike; star ratings "
            "make this "
            "grid graded, and a grid of 20 scrolls, so its first rows are seen more.",
        ),
        "b": (
            "NDCG@20 with the gain stated (linear or exponential) and the ideal list from all judged items.",
            "Yes: graded, position-aware, and with both conventions stated anyone can reproduce the number.",
            True,
        ),
        "c": ("MAP@20.", "Binary: it would have to throw the star grades away."),
    },
    ["Which metrics use grades at all?"],
)

q3 = choice(
    "14.q3",
    "Choose and justify: a model gains +0.004 NDCG@10 and loses a third of its coverage",
    "the right reading of that trade-off",
    {
        "a": (
            "Ship it: NDCG is the main metric and it went up.",
            "Check first whether +0.004 is more than noise (a paired interval and its p-value, adjusted "
            "for every comparison looked at), and what losing coverage costs the catalogue.",
        ),
        "b": (
            "Report both with their uncertainty and let the product goal decide; test online if it matters.",
            "Yes: the gain may be noise (notebook 08's paired interval), "
            "while the coverage loss is certain; which matters more is a product question, "
            "and only an online test measures the effect on users.",
            True,
        ),
        "c": (
            "Reject it: coverage matters more than accuracy.",
            "Not in general; it depends on the product (a long-tail shop, or a hits-only service).",
        ),
    },
    ["Notebook 11 found such pairs; notebook 08 showed how to tell a gain from noise."],
)

q4 = choice(
    "14.q4",
    "Choose and justify: a paper reports MAP@10 = MRR@10 exactly",
    "why the two numbers are equal",
    {
        "a": (
            "A bug: MAP and MRR are different metrics.",
            "They differ in general, but not under one protocol.",
        ),
        "b": (
            "Leave-one-out: with one relevant item per user, AP@k equals RR@k.",
            "Yes: one hit at rank r gives AP = (1/r)/1 = RR. "
            "Under leave-one-out, report HR and NDCG/MRR and skip the duplicates.",
            True,
        ),
        "c": (
            "Every user's relevant item was at rank 1.",
            "That would make both equal to 1, not merely equal to each other.",
        ),
    },
    ["How many relevant items does each user have under leave-one-out?"],
)
