"""Exercises of ``notebooks/01-from-classification-to-ranking.ipynb``."""

from __future__ import annotations

from helpers import precision_at_k as _precision_at_k
from helpers import recall_at_k as _recall_at_k
from helpers.checking.questions import FunctionQuestion, Mistake, ValueQuestion
from helpers.course.examples import CAR_ITEMS, CAR_RELEVANT

__all__ = ["q1", "q2", "Q2_K", "precision_recall", "confusion_counts"]


def precision_recall(recommended, relevant):
    """Precision and recall of a recommended list read as a set (order ignored).

    The classification view that notebook 01 starts from, before ranks matter: every
    recommended item is a prediction "relevant", and nothing else is.

    Parameters
    ----------
    recommended : sequence
        The recommended items (not empty); duplicates count once only in the hit count.
    relevant : sequence or set
        The user's relevant items (not empty).

    Returns
    -------
    tuple of float
        ``(precision, recall)``: hits over the recommended items, and hits over the relevant ones.

    Examples
    --------
    >>> precision_recall([1, 2, 3, 4], [1, 3, 9])
    (0.5, 0.6666666666666666)
    """
    hits = len(set(recommended) & set(relevant))
    return hits / len(recommended), hits / len(set(relevant))


def _reference(recommended, relevant):
    k = len(recommended)
    return (_precision_at_k(recommended, relevant, k), _recall_at_k(recommended, relevant, k))


def _swapped(recommended, relevant):
    p, r = precision_recall(recommended, relevant)
    return r, p


def _both_over_recommended(recommended, relevant):
    hits = len(set(recommended) & set(relevant))
    return hits / len(recommended), hits / len(recommended)


q1 = FunctionQuestion(
    id="01.q1",
    title="precision and recall of a recommendation list, read as a set",
    function_name="precision_recall",
    reference=_reference,
    cases=[
        (CAR_ITEMS[:5], CAR_RELEVANT),
        (CAR_ITEMS, CAR_RELEVANT),
        (["a", "b", "c", "d"], {"b", "x"}),
        (["a", "b"], {"a", "b", "c", "d", "e"}),
        (["a", "b", "c"], ["b", "b", "x"]),  # relevant given as a list that repeats an item
    ],
    hints=[
        "hits = the recommended items that are relevant. Precision divides the hits by what you "
        "recommended, recall by what was relevant.",
        "hits = len(set(recommended) & set(relevant)); "
        "return (hits / len(recommended), hits / len(set(relevant))): a repeated relevant item counts once.",
    ],
    solution_code=precision_recall,
    mistakes=[
        Mistake(
            "precision and recall swapped",
            "Precision = TP / (TP + FP) divides by the number recommended; recall = TP / (TP + FN) "
            "divides by the number of relevant items.",
            _swapped,
        ),
        Mistake(
            "recall divides by the number recommended",
            "That is precision again; recall asks what share of the user's relevant items you found.",
            _both_over_recommended,
        ),
        Mistake(
            "a repeated relevant item counted twice",
            "relevant can be a list that names an item twice; read as a set, it is one relevant item: "
            "divide by len(set(relevant)).",
            lambda recommended, relevant: (
                len(set(recommended) & set(relevant)) / len(recommended),
                len(set(recommended) & set(relevant)) / len(relevant),
            ),
        ),
    ],
)


#: The cutoff q2 asks about (the notebook's worked example uses K = 5).
Q2_K = 7


def confusion_counts():
    """TP, FP and FN of the car list when the user is shown the top 7 (6 relevant items).

    The worked answer of question 01.q2: the items shown are the predictions, so a relevant item
    shown is a true positive, an irrelevant one shown a false positive, and a relevant item left
    below rank 7 a false negative.

    Returns
    -------
    tuple of int
        ``(tp, fp, fn)``.

    Examples
    --------
    >>> tp, fp, fn = confusion_counts()
    >>> tp + fp  # the seven items shown
    7
    """
    shown = CAR_ITEMS[:7]
    tp = sum(1 for item in shown if item in CAR_RELEVANT)
    fp = len(shown) - tp
    fn = len(CAR_RELEVANT) - tp
    return (tp, fp, fn)


def _counts_at(k):
    tp = round(_precision_at_k(CAR_ITEMS, CAR_RELEVANT, k) * k)
    missed = round((1 - _recall_at_k(CAR_ITEMS, CAR_RELEVANT, k)) * len(CAR_RELEVANT))
    return (tp, k - tp, missed)


def _fp_fn_swapped():
    tp, fp, fn = _counts_at(Q2_K)
    return (tp, fn, fp)


def _fn_inside_top_k():
    tp, fp, _ = _counts_at(Q2_K)
    return (tp, fp, 0)


q2 = ValueQuestion(
    id="01.q2",
    title="the confusion-matrix counts of the car list at K = 7",
    prompt="(TP, FP, FN) of the car-accessories list cut at K = 7",
    reference=lambda: _counts_at(Q2_K),
    hints=[
        "Shown = the top 7. TP: shown and relevant. FP: shown but not relevant. FN: relevant but not shown.",
        "The car list has 6 relevant items in all; count how many of them are in the top 7 "
        "(the list with its relevant items is printed in notebook 00 and above).",
    ],
    solution_code=confusion_counts,
    mistakes=[
        Mistake(
            "those are the counts at K = 5",
            "The worked example above shows the top 5; this question shows the user the top 7.",
            lambda: _counts_at(5),
        ),
        Mistake(
            "FP and FN swapped",
            "A false positive is a recommended item the user did not want; a false negative is a "
            "wanted item the list did not show.",
            _fp_fn_swapped,
        ),
        Mistake(
            "FN counted only inside the top K",
            "False negatives are relevant items the user was NOT shown: they sit below the cutoff.",
            _fn_inside_top_k,
        ),
        Mistake(
            "FN = all relevant items",
            "FN counts only the relevant items the user was not shown: the relevant items minus the TP.",
            lambda: (*_counts_at(Q2_K)[:2], len(CAR_RELEVANT)),
        ),
    ],
)
