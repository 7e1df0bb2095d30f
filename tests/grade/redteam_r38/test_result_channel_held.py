"""Red team 38: values and exceptions at the edges of the result channel (all held).

Each graded in the real bubblewrap sandbox beside an honest classmate who must keep full marks.

1. ``edge`` (from-scratch): the corpus's solution with ``recall_at_k`` replaced by one that returns,
   case by case, a class whose ``__qualname__`` is an OSC-8 hyperlink and ``__module__`` is
   ``builtins``; a self-containing list; a ``numpy.longdouble`` overflowing to ``inf``; a dict keyed by
   a ``numpy.str_`` and a string with a NUL; a list nested six deep; and raises an exception class
   renamed ``numpy.float64`` whose ``__str__`` is terminal escapes, HTML, a Markdown link and a
   spreadsheet formula. Held: only that question loses its points; no escape, tag, link or formula
   reaches the feedback or ``results.json`` (``inert.type_name`` keeps only known names, the runner
   tags by exact type, ``_MAX_DEPTH`` cuts the nesting). Observation, not a hole: a heap class that
   renames itself ``numpy.float64`` is shown as "raised numpy.float64" for a PUBLIC case (a name from
   the fixed list of known names, chosen before any hidden input; the learner misleads only itself).
2. ``numpy`` (leave-one-out): an honest learner who writes with NumPy (``numpy.str_`` keys, ``int64``
   items in an ``OrderedDict``, ``float32`` hits, a ``defaultdict`` of ``numpy.str_`` metric names)
   scores as the plain solution does.
"""

from __future__ import annotations

import json

from helpers.grade.assignments import ASSIGNMENTS

from ..redteam_r5.common import CORPUS, grade_class, notebook, with_honest

PERFECT = [
    "".join(c["source"])
    for c in json.loads((CORPUS / "perfect.ipynb").read_text(encoding="utf-8"))["cells"]
    if c["cell_type"] == "code"
]

EDGE = r"""
import numpy as np
class Evil(Exception):
    def __str__(self):
        return "\x1b[31m<img src=x onerror=alert(1)>[link](http://e.vil) =cmd|' /C calc'!A0"
Evil.__qualname__ = "float64"; Evil.__module__ = "numpy"
class F: pass
F.__qualname__ = "\x1b]8;;http://evil\x07click\x1b]8;;\x07"; F.__module__ = "builtins"
_n = [0]
def recall_at_k(ranking, relevant, k):
    _n[0] += 1
    m = _n[0] % 6
    if m == 0: raise Evil()
    if m == 1: return F()
    if m == 2: l = []; l.append(l); return l
    if m == 3: return np.longdouble("1e4000")
    if m == 4: return {np.str_("a"): 1.0, "a\x00": 2.0}
    return [[[[[[0.5]]]]]]
"""

PLAIN_LOO = r"""
import math
def held_out_items(log):
    latest = {}
    for position, (user, item, timestamp) in enumerate(log):
        key = (timestamp, position)
        if user not in latest or key > latest[user][0]:
            latest[user] = (key, item)
    return {user: item for user, (key, item) in latest.items()}
def loo_hit_at_k(ranking, held_out, k):
    return 1.0 if held_out in ranking[:k] else 0.0
def loo_ndcg_at_k(ranking, held_out, k):
    top = ranking[:k]
    if held_out not in top:
        return 0.0
    return 1.0 / math.log2(top.index(held_out) + 2)
def evaluate_loo(log, recommendations, k):
    truth = held_out_items(log)
    hr = mrr = ndcg = 0.0
    for user, item in truth.items():
        top = recommendations.get(user, [])[:k]
        if item in top:
            rank = top.index(item) + 1
            hr += 1.0; mrr += 1.0 / rank; ndcg += 1.0 / math.log2(rank + 1)
    n = len(truth)
    return {"HR": hr / n, "MRR": mrr / n, "NDCG": ndcg / n}
"""

NUMPY_LOO = r"""
import numpy as np, collections
def held_out_items(log):
    users = np.array([r[0] for r in log]); items = np.array([r[1] for r in log], dtype=np.int64)
    times = np.array([r[2] for r in log])
    order = np.lexsort((np.arange(len(log)), times))
    out = collections.OrderedDict()
    for i in order:
        out[users[i]] = items[i]
    return out
def loo_hit_at_k(ranking, held_out, k):
    return np.float32(held_out in list(ranking)[:k])
def loo_ndcg_at_k(ranking, held_out, k):
    top = list(ranking)[:k]
    return np.float64(0.0) if held_out not in top else 1.0 / np.log2(top.index(held_out) + 2)
def evaluate_loo(log, recommendations, k):
    truth = held_out_items(log)
    recs = lambda u: list(recommendations.get(str(u), []))[:k]
    hits = np.array([loo_hit_at_k(recs(u), it, k) for u, it in truth.items()], dtype=np.float64)
    nd = np.array([loo_ndcg_at_k(recs(u), it, k) for u, it in truth.items()])
    rr = np.array([1.0 / (recs(u).index(it) + 1) if it in recs(u) else 0.0 for u, it in truth.items()])
    names = [np.str_(n) for n in ("HR", "MRR", "NDCG")]
    return collections.defaultdict(float, zip(names, (hits.mean(), rr.mean(), nd.mean())))
"""


def test_edge_values_and_exceptions_cost_only_their_question(bwrap, tmp_path):
    folder, out = tmp_path / "subs", tmp_path / "out"
    folder.mkdir()
    notebook(folder / "edge.ipynb", *PERFECT, EDGE)
    with_honest(folder, "honest.ipynb")
    graded = grade_class(folder, out, seed=7)
    assert graded["honest.ipynb"]["report"]["score"] == 14.0
    assert graded["edge.ipynb"]["report"]["score"] == 12.0
    for shown in (graded["edge.ipynb"]["feedback"], graded["edge.ipynb"]["results"]):
        for bad in ("\x1b", "\\u001b", "<img", "](http", "evil", "calc", "=cmd"):
            assert bad not in shown, bad


def test_honest_numpy_style_leave_one_out_scores_like_plain(bwrap, tmp_path):
    folder, out = tmp_path / "subs", tmp_path / "out"
    folder.mkdir()
    notebook(folder / "plain.ipynb", PLAIN_LOO)
    notebook(folder / "numpy.ipynb", NUMPY_LOO)
    graded = grade_class(folder, out, seed=7, assignment=ASSIGNMENTS["leave-one-out"])
    assert graded["plain.ipynb"]["report"]["score"] == 10.0
    assert graded["numpy.ipynb"]["report"]["score"] == 10.0
