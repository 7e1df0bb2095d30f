"""Exercises and tables of ``notebooks/14-recap.ipynb``: every metric in one table, and choosing a metric."""

from __future__ import annotations

import pandas as pd

from helpers import METRICS, OPTIONS
from helpers.course.choice import choice
from topkeval._registry import BEYOND_METRICS
from topkeval.conventions import library_table

__all__ = ["recap_table", "DECISION_GUIDE", "q1", "q2", "q3", "q4"]


def recap_table() -> pd.DataFrame:
    """One row per metric: formula, options, range, what it rewards and its leave-one-out form, all from the registry."""
    libraries = library_table()
    rows = []
    entries = [(m, m.family) for m in METRICS.values()] + [(m, "beyond") for m in BEYOND_METRICS.values()]
    for metric, family in entries:
        options = (
            "; ".join(
                f"{name}: " + " / ".join(OPTIONS[name].values) if name in OPTIONS else name
                for name in getattr(metric, "options", ())
            )
            or "none"
        )
        variants = (
            libraries.xs(metric.key, level="metric")["options"].nunique()
            if metric.key in set(libraries.index.get_level_values("metric"))
            else 0
        )
        rows.append(
            {
                "metric": metric.notation,
                "family": family,
                "formula": metric.formula,
                "range": metric.value_range,
                "rewards": metric.rewards,
                "leave-one-out form": metric.leave_one_out,
                "helpers options": options,
                "option settings used by the libraries in notebook 07": variants,
            }
        )
    return pd.DataFrame(rows).set_index("metric")


#: Product question -> the metric that answers it, and why.
DECISION_GUIDE = pd.DataFrame(
    [
        (
            "Does the user find one thing they want (one relevant item, e.g. the next song)?",
            "HR@k, then MRR@k",
            "one item: HR says whether, RR says how high",
        ),
        (
            "Many relevant items, binary, order inside the list does not matter (a grid of tiles)?",
            "P@k and R@k",
            "set metrics; P when slots are scarce, R when coverage of the user's tastes matters",
        ),
        (
            "Many relevant items and position matters (a vertical feed)?",
            "MAP@k or NDCG@k",
            "both reward early hits; state the AP denominator",
        ),
        (
            "Graded relevance (stars, purchase > click)?",
            "NDCG@k (say linear or exponential gain), or ERR@k",
            "binary metrics throw the grades away",
        ),
        ("Users stop at the first good item (search, Q&A)?", "ERR@k or MRR@k", "cascade reading"),
        (
            "List length varies, or users scroll as long as they like?",
            "RBP with a p you can defend",
            "no cutoff to argue about; report the residual p^k",
        ),
        (
            "Is the catalogue being used, are we a popularity machine?",
            "coverage@k, Gini@k, ARP@k, novelty@k",
            "accuracy alone rewards popular items",
        ),
        (
            "Will the change win online?",
            "an A/B test (or interleaving first)",
            "offline metrics predict, they do not measure",
        ),
    ],
    columns=["product question", "metric", "why"],
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
            "Yes: one slot, one relevant item; HR@1 is exactly the product's success, and MRR@10 shows how close "
            "the misses were.",
            True,
        ),
        "c": (
            "Catalogue coverage@10.",
            "Coverage says nothing about whether this user likes the song; keep it as a guard-rail, not the goal.",
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
            "Binary and order-blind: a 5-star item at slot 1 counts as much as a 4-star one at slot 20.",
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
            "Check first whether +0.004 is larger than the noise (a paired interval), and what losing coverage "
            "costs the catalogue.",
        ),
        "b": (
            "Report both with their uncertainty and let the product goal decide; test online if it matters.",
            "Yes: the gain may be noise (notebook 08's paired interval), while the coverage loss is certain; which "
            "matters more is a product question, and only an online test measures the effect on users.",
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
            "Yes: one hit at rank r gives AP = (1/r)/1 = RR. Under leave-one-out, report HR and NDCG/MRR and skip "
            "the duplicates.",
            True,
        ),
        "c": (
            "Every user's relevant item was at rank 1.",
            "That would make both equal to 1, not merely equal to each other.",
        ),
    },
    ["How many relevant items does each user have under leave-one-out?"],
)
