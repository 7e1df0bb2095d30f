"""trec_eval's measures, computed for every query at once, printed as trec_eval prints them.

:func:`evaluate` scores a run against qrels with trec_eval's measures and
options; :func:`format_lines` writes the result line for line as trec_eval
10.0 does (``%-22s\\t%s\\t%6.4f``; counts as integers; ``runid`` first).
``python -m topkeval`` uses them when it is given trec_eval's measure names
(``-m map``, ``-m P.5,10``, ``-m all_trec``) or no ``-m`` at all.

Every measure is computed from one ordering of the run and one join with the
qrels: numpy arrays over all (query, rank) rows, summed per query with
``bincount``; no loop over queries or over measures' positions.

trec_eval's conventions, read from its source and followed here:

* each query's documents are ordered by score, highest first, ties by docno
  in descending byte order (``strcmp``); the rank column is not read;
  ``-M n`` keeps the first n of that order;
* a document the qrels do not list is *not in the pool* (unjudged); a
  negative grade (Web-track qrels: -2 spam, -1 junk ...) marks a document
  *in the pool but unjudged*: it is neither relevant nor judged
  non-relevant, so ``bpref`` and ``infAP`` skip it and ``-J`` drops it,
  like an unlisted document (``relstring`` prints ``.`` for it, ``-`` for
  an unlisted one);
* a document is relevant when its grade is at least ``-l`` (default 1);
  nDCG's gains are the grades themselves (or ``ndcg.1=3,2=9`` ...);
* the queries scored are those of the qrels that the run lists (with
  ``-c``: every query of the qrels, a missing one scored on an empty list
  and averaged in); queries of the run only are ignored; the output lists
  queries in the qrels' byte order;
* ``num_ret``, ``num_rel``, ``num_rel_ret`` and ``num_nonrel_judged_ret`` are
  summed over queries, ``gm_map`` and ``gm_bpref`` are geometric means
  (values floored at 1e-5), everything else is the arithmetic mean.

Differences, each a decision: trec_eval 10.0 stops with exit status 4 when
a query of the qrels is missing from the run (without ``-c``); trec_eval 9
and pytrec_eval skip that query, and so does topkeval. ``iprec_at_recall`` and
``11pt_avg`` round a recall point x R to the nearest whole document, as
trec_eval 10 does; trec_eval 9 and pytrec_eval take ``(long)(x * R + 0.9)``
(e.g. 0.1 x 3 relevant: the 1st relevant document, not none), which
``Options(recall_rounding="trec_eval9")`` or ``--recall-rounding trec_eval9``
reproduce: use it when comparing with numbers from pytrec_eval. The preference and
judgment-group measures (``-R prefs``, ``-R qrels_jg``: ``prefs_*``,
``*_avgjg``), ``yaap`` and z-scores (``-Z``) need input formats topkeval does
not read; they are refused by name.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from . import _cutoff, _trec_files
from ._errors import InvalidInputError
from ._validation import FilePath, validate_params

__all__ = ["Options", "Measure", "parse_measures", "evaluate", "format_lines", "MEASURES", "NICKNAMES"]

_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_RECALL_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


@dataclass(frozen=True)
class Spec:
    """One of trec_eval's measures: its name, how its parameters read, how it averages and prints.

    ``kind``: ``long`` (a count), ``double``, ``cut_long`` (integer cutoffs,
    one value each: ``P.5,10``), ``cut_double`` (fractions, one value each),
    ``p_double`` (numbers that shape one value), ``p_pair`` (``name=value``
    pairs), ``runid``, ``relstring``. ``average``: ``mean``, ``sum``,
    ``gm`` (geometric), ``none``.
    """

    name: str
    kind: str
    default: tuple = ()
    per_query: bool = True
    average: str = "mean"


#: trec_eval's measures in trec_eval's order (the order it prints them in)
MEASURES: tuple[Spec, ...] = (
    Spec("runid", "runid", per_query=False, average="none"),
    Spec("num_q", "long", per_query=False, average="num_q"),
    Spec("num_ret", "long", average="sum"),
    Spec("num_rel", "long", average="num_rel"),
    Spec("num_rel_ret", "long", average="sum"),
    Spec("map", "double"),
    Spec("gm_map", "double", per_query=False, average="gm"),
    Spec("Rprec", "double"),
    Spec("bpref", "double"),
    Spec("recip_rank", "double"),
    Spec("iprec_at_recall", "cut_double", _RECALL_POINTS),
    Spec("P", "cut_long", _CUTS),
    Spec("relstring", "relstring", (10.0,), average="none"),
    Spec("recall", "cut_long", _CUTS),
    Spec("infAP", "double"),
    Spec("gm_bpref", "double", per_query=False, average="gm"),
    Spec("Rprec_mult", "cut_double", (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)),
    Spec("utility", "p_double", (1.0, -1.0, 0.0, 0.0)),
    Spec("11pt_avg", "p_double", _RECALL_POINTS),
    Spec("binG", "double"),
    Spec("G", "p_pair"),
    Spec("dcg", "p_pair"),
    Spec("ideal_dcg", "p_pair"),
    Spec("ndcg", "p_pair"),
    Spec("ndcg_rel", "p_pair"),
    Spec("Rndcg", "p_pair"),
    Spec("ndcg_cut", "cut_long", _CUTS),
    Spec("map_cut", "cut_long", _CUTS),
    Spec("relative_P", "cut_long", _CUTS),
    Spec("success", "cut_long", (1, 5, 10)),
    Spec("set_P", "double"),
    Spec("set_relative_P", "double"),
    Spec("set_recall", "double"),
    Spec("set_map", "double"),
    Spec("set_F", "p_double", (1.0,)),
    Spec("num_nonrel_judged_ret", "long", average="sum"),
    Spec("rbp", "p_pair"),
    Spec("rbp_resid", "p_pair"),
    Spec("unj", "cut_long", (5, 10, 20)),
)
_BY_NAME = {spec.name: spec for spec in MEASURES}
_OFFICIAL = (
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
)
#: trec_eval's nicknames for sets of measures
NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": _OFFICIAL,
    "set": (
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "utility",
        "set_P",
        "set_recall",
        "set_relative_P",
        "set_map",
        "set_F",
    ),
    "all_trec": _OFFICIAL
    + (
        "relstring",
        "recall",
        "unj",
        "rbp",
        "rbp_resid",
        "infAP",
        "gm_bpref",
        "utility",
        "11pt_avg",
        "ndcg",
        "relative_P",
        "Rprec_mult",
        "success",
        "map_cut",
        "ndcg_cut",
        "ndcg_rel",
        "Rndcg",
        "binG",
        "G",
        "set_P",
        "set_recall",
        "set_relative_P",
        "set_map",
        "set_F",
        "num_nonrel_judged_ret",
    ),
}
#: trec_eval measures that need inputs topkeval does not read, and why
REFUSED = {
    **{
        name: "preference judgments (trec_eval -R prefs)"
        for name in (
            "prefs",
            "all_prefs",
            "prefs_num_prefs_poss",
            "prefs_num_prefs_ful",
            "prefs_num_prefs_ful_ret",
            "prefs_simp",
            "prefs_pair",
            "prefs_avgjg",
            "prefs_avgjg_Rnonrel",
            "prefs_simp_ret",
            "prefs_pair_ret",
            "prefs_avgjg_ret",
            "prefs_avgjg_Rnonrel_ret",
            "prefs_simp_imp",
            "prefs_pair_imp",
            "prefs_avgjg_imp",
        )
    },
    **{
        name: "judgment groups (trec_eval -R qrels_jg)"
        for name in ("qrels_jg", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg")
    },
    "yaap": "trec_eval's experimental yaap (undocumented in its source)",
}


@dataclass(frozen=True)
class Options:
    """trec_eval's options: ``-q``, ``-c``, ``-M``, ``-l``, ``-J``, ``-N``, ``-n``."""

    per_query: bool = False  # -q
    complete: bool = False  # -c
    max_docs: int | None = None  # -M
    level: int = 1  # -l
    judged_only: bool = False  # -J
    num_docs: int = 0  # -N
    summary: bool = True  # not -n
    #: how iprec_at_recall and 11pt_avg turn a recall point into a number of relevant documents:
    #: "round" (trec_eval 10: C's lround) or "trec_eval9" (trec_eval 9 and pytrec_eval: (long)(x * R + 0.9))
    recall_rounding: str = "round"


@dataclass(frozen=True)
class Measure:
    """A requested measure: its spec, parameters, and the names of the values it prints."""

    spec: Spec
    params: tuple
    printable: str | None = None
    labels: tuple[str, ...] = field(default=())


def _atol(text: str) -> int:
    found = re.match(r"\s*[+-]?\d+", text)
    return int(found.group()) if found else 0


def _atof(text: str) -> float:
    found = re.match(r"\s*[+-]?(\d+\.?\d*(e[+-]?\d+)?|\.\d+(e[+-]?\d+)?)", text, re.IGNORECASE)
    return float(found.group()) if found else 0.0


def _cut_params(spec: Spec, text: str) -> tuple:
    values = sorted(_atol(p) if spec.kind == "cut_long" else _atof(p) for p in text.split(","))
    if spec.kind == "cut_long" and values[0] <= 0:
        raise InvalidInputError(f"measure {spec.name}.{text}: cutoffs must be positive integers.")
    if len(set(values)) != len(values):
        raise InvalidInputError(f"measure {spec.name}.{text}: a cutoff is given twice.")
    return tuple(values)


def _pair_params(spec: Spec, text: str) -> tuple:
    pairs = []
    for part in text.split(","):
        name, equals, value = part.partition("=")
        if not equals or not name:
            raise InvalidInputError(
                f"measure {spec.name}.{text}: parameters are name=value pairs, e.g. {spec.name}.1=1,2=3."
            )
        pairs.append((name, _atof(value)))
    return tuple(pairs)


def _cut_measure(spec: Spec, text: str | None) -> Measure:
    params = _cut_params(spec, text) if text is not None else spec.default
    if spec.kind == "cut_long":
        return Measure(spec, params, text, tuple(f"{spec.name}_{v}" for v in params))
    return Measure(spec, params, text, tuple(f"{spec.name}_{v:3.2f}" for v in params))


def _measure(spec: Spec, text: str | None) -> Measure:
    if spec.kind in ("cut_long", "cut_double"):
        return _cut_measure(spec, text)
    if text is None:
        params = () if spec.kind == "p_pair" else spec.default
    elif spec.kind == "p_pair":
        params = _pair_params(spec, text)
    elif spec.kind in ("p_double", "relstring"):
        params = tuple(_atof(p) for p in text.split(","))
    else:
        params = ()
    label = f"{spec.name}_{text}" if text is not None and params else spec.name
    return Measure(spec, params, text, (label,))


def _names_of(text: str) -> tuple[str, ...]:
    name = text.partition(".")[0]
    if name in REFUSED:
        raise InvalidInputError(
            f"trec_eval's measure {name!r} is not computed by topkeval: it needs {REFUSED[name]}."
        )
    if name not in NICKNAMES and name not in _BY_NAME:
        raise InvalidInputError(unknown_measure(text))
    return NICKNAMES.get(name, (name,))


def unknown_measure(text: str) -> str:
    """The error for a measure name trec_eval does not know: trec_eval's names, and the one meant.

    A printed label typed as the name (``P_5``, ``ndcg_cut_10``) is pointed to its ``-m`` form.

    Examples
    --------
    >>> unknown_measure("ndcg_cut_10").split(";")[0]
    "illegal measure 'ndcg_cut_10' (did you mean 'ndcg_cut.10'? -m takes P.5, a printed label is P_5)"
    """
    meant = next(
        (
            f"{n}.{text[len(n) + 1 :]}"
            for n in sorted(_BY_NAME, key=len, reverse=True)
            if text.startswith(n + "_")
        ),
        None,
    )
    hint = f" (did you mean {meant!r}? -m takes P.5, a printed label is P_5)" if meant else ""
    known = ", ".join(sorted([*_BY_NAME, *NICKNAMES], key=str.lower))
    return f"illegal measure {text!r}{hint}; trec_eval's measures are: {known}."


def parse_measures(given: list[str] | tuple[str, ...]) -> list[Measure]:
    """Read trec_eval's ``-m`` arguments into the measures to compute, in trec_eval's order.

    Parameters
    ----------
    given : list of str
        As after ``-m``: a measure (``map``), a measure with parameters
        (``P.5,10``, ``ndcg.1=3,2=9``, ``iprec_at_recall..10,.5``) or a
        nickname (``official``, ``set``, ``all_trec``). Empty: ``official``
        (trec_eval's default). A measure named twice keeps its first
        parameters, as trec_eval does.

    Returns
    -------
    list of Measure

    Raises
    ------
    topkeval.InvalidInputError
        An unknown name (with the known ones), malformed parameters, or a
        measure that needs an input format topkeval does not read.

    Examples
    --------
    >>> [m.labels for m in parse_measures(["P.10,5", "map"])]
    [('map',), ('P_5', 'P_10')]
    >>> parse_measures(["iprec_at_recall..25"])[0].labels
    ('iprec_at_recall_0.25',)
    """
    marked: dict[str, str | None] = {}
    for text in given or ["official"]:
        name, dot, params = text.partition(".")
        for each in _names_of(text):
            marked.setdefault(each, None)
        if dot and name not in NICKNAMES:
            marked.setdefault(f"{name}.params", params)
    return [_measure(spec, marked.get(f"{spec.name}.params")) for spec in MEASURES if spec.name in marked]


# ------------------------------------------------------------------ the joined, ordered run
class _Rows:
    """The run's (query, rank) rows in trec_eval's order, each with its grade, and the qrels per query.

    ``rel`` per row: the grade (>= 0), -1 for a document the qrels do not
    list, -2 for one they list with a negative grade (trec_eval's
    RELVALUE_NONPOOL and RELVALUE_UNJUDGED).
    """

    def __init__(
        self,
        qrels: _trec_files.Table,
        run: _trec_files.Table,
        options: Options,
        names: tuple[str, str] = ("qrels", "run"),
    ):
        self.options = options
        q_run, q_qrels, n_q = _trec_files.dense_codes(run.qid, qrels.qid)
        d_run, d_qrels, n_doc = _trec_files.dense_codes(run.docno, qrels.docno)
        qrels_key = q_qrels * max(n_doc, 1) + d_qrels
        order = np.argsort(qrels_key, kind="stable")
        self._qrels_key, self._qrels_grade = qrels_key[order], qrels.value[order]
        _no_twice(self._qrels_key, names[0], qrels, order)
        in_qrels = np.unique(q_qrels)
        in_run = np.zeros(n_q, bool)
        in_run[q_run] = True
        scored = in_qrels if options.complete else in_qrels[in_run[in_qrels]]
        if not len(scored):
            raise InvalidInputError(
                f"no query of the {names[1]} file has judgments in the {names[0]} file "
                "(check that both files use the same query ids)."
            )
        index = np.full(n_q, -1, np.int64)
        index[scored] = np.arange(len(scored))
        self.nq = len(scored)
        self.queries = _names(qrels.qid, q_qrels, scored)
        self.bogus = ~in_run[scored]
        self._qrels_rows(index[q_qrels], qrels.value, options.level, qrels)
        self._run_rows(index, q_run, d_run, run.value, n_doc, names[1], run)

    def _qrels_rows(self, qi: np.ndarray, grade: np.ndarray, level: int, qrels) -> None:
        keep = qi >= 0
        qi, grade = qi[keep], grade[keep]
        judged = grade >= 0
        n_levels = int(grade.max()) + 1 if judged.any() else 1
        counts = np.bincount(qi[judged] * n_levels + grade[judged], minlength=self.nq * n_levels)
        self.rel_levels = counts.reshape(self.nq, n_levels)
        self.num_rel = self.rel_levels[:, max(level, 0) :].sum(axis=1)
        if level < 0:  # trec_eval: a negative -l makes no judged level less relevant
            self.num_rel = self.rel_levels.sum(axis=1)
        nonzero = self.rel_levels > 0
        self.num_rel_levels = np.where(nonzero.any(axis=1), n_levels - np.argmax(nonzero[:, ::-1], axis=1), 0)
        self.judged_q, self.judged_grade = qi[judged], grade[judged]
        self.positive_total = int(np.count_nonzero(grade > 0))

    def _run_rows(self, index, q_run, d_run, score, n_doc, name, run) -> None:
        qi = index[q_run]
        if (qi >= 0).all():  # every query of the run is scored (the usual case): no copies of its rows
            order = _trec_order(qi, score, d_run, n_doc)
        else:
            keep = np.flatnonzero(qi >= 0)
            order = keep[_trec_order(qi[keep], score[keep], d_run[keep], n_doc)]
            del keep
        q = qi[order]
        del qi  # the run's rows are 2 x 10^6 at 2,000 queries: each array freed as soon as it is used up
        keys = q_run[order] * max(n_doc, 1)
        keys += d_run[order]
        _no_twice_in_run(keys, name, run, order)
        del order
        rel = self._grades(keys)
        del keys
        q, rel = self._add_bogus(q, rel)
        pos = _positions(q, self.nq)
        if self.options.max_docs is not None:
            q, rel = q[pos < self.options.max_docs], rel[pos < self.options.max_docs]
            pos = _positions(q, self.nq)
        self.num_nonpool = np.bincount(q[rel == -1], minlength=self.nq)
        self.num_unjudged = np.bincount(q[rel == -2], minlength=self.nq)
        if self.options.judged_only:
            q, rel = q[rel >= 0], rel[rel >= 0]
            pos = _positions(q, self.nq)
            self.num_nonpool = self.num_unjudged = np.zeros(self.nq, np.int64)
        self.q, self.rel, self.pos = q, rel, pos
        self.num_ret = np.bincount(q, minlength=self.nq)

    def _grades(self, keys: np.ndarray) -> np.ndarray:
        at = np.searchsorted(self._qrels_key, keys)
        np.minimum(at, len(self._qrels_key) - 1, out=at)
        found = self._qrels_key[at] == keys
        rel = self._qrels_grade[at].astype(np.int64, copy=False)
        del at
        rel[rel < 0] = -2
        rel[~found] = -1
        return rel

    def _add_bogus(self, q: np.ndarray, rel: np.ndarray):
        """trec_eval -c: a query of the qrels that the run lacks gets one unjudged document."""
        if not self.bogus.any():
            return q, rel
        extra = np.flatnonzero(self.bogus)
        q = np.concatenate([q, extra])
        rel = np.concatenate([rel, np.full(len(extra), -1, np.int64)])
        order = np.argsort(q, kind="stable")
        return q[order], rel[order]


def _trec_order(q: np.ndarray, score: np.ndarray, d: np.ndarray, n_doc: int) -> np.ndarray:
    """trec_eval's order: by query, then score (highest first), then docno (last in byte order first).

    One sort of a packed int64 key (query, score rank, docno) where it fits, else three (``lexsort``).
    """
    distinct, key = np.unique(score, return_inverse=True)
    n_q, n_doc, n_scores = int(q.max()) + 1 if len(q) else 1, max(n_doc, 1), len(distinct)
    if n_q * n_scores * n_doc >= 2**62:
        return np.lexsort((-d, -score, q))
    # key = (q * n_scores + (n_scores - 1 - score rank)) * n_doc + (n_doc - 1 - d), in place
    key = key.astype(np.int64, copy=False)
    np.subtract(n_scores - 1, key, out=key)
    key += q * n_scores
    key *= n_doc
    key += n_doc - 1
    key -= d
    return np.argsort(key, kind="stable")


def _positions(q: np.ndarray, nq: int) -> np.ndarray:
    starts = np.searchsorted(q, np.arange(nq))
    return np.arange(len(q)) - starts[q]


def _names(column, codes: np.ndarray, wanted: np.ndarray) -> list[str]:
    first = np.full(int(codes.max()) + 1 if len(codes) else 0, -1, np.int64)
    first[codes[::-1]] = np.arange(len(codes))[::-1]
    return _trec_files.texts(column, first[wanted])


def _value(column, row: int) -> str:
    return _trec_files.texts(column, np.array([row]))[0]


def _no_twice(sorted_keys: np.ndarray, name: str, table, order: np.ndarray, verb: str = "judges") -> None:
    """Refuse a document listed twice for one query, naming the file's line of the second listing."""
    twice = np.flatnonzero(sorted_keys[1:] == sorted_keys[:-1])
    if len(twice):
        row = int(max(order[twice[0]], order[twice[0] + 1]))
        line = _trec_files.file_line(name, row + 1) if os.path.isfile(name) else row + 1
        raise InvalidInputError(
            f"{name}: line {line}: query {_value(table.qid, row)!r} {verb} document "
            f"{_value(table.docno, row)!r} twice (trec_eval stops on a duplicate document too)."
        )


def _no_twice_in_run(keys, name, run, order) -> None:
    """Refuse a document a query retrieves twice (``keys``: query code x documents + document code)."""
    ordered = np.sort(keys)
    if (ordered[1:] == ordered[:-1]).any():  # rare: find the rows to name them
        by_key = np.argsort(keys, kind="stable")
        _no_twice(keys[by_key], name, run, order[by_key], "retrieves")


# ------------------------------------------------------------------ the measures
class _Scores:
    """Every per-query quantity the measures share, computed once (cached)."""

    def __init__(self, rows: _Rows, options: Options):
        self.r, self.o = rows, options
        self.nq = rows.nq

    def per_query(self, weights=None, mask=None) -> np.ndarray:
        q = self.r.q if mask is None else self.r.q[mask]
        w = weights if mask is None or weights is None else weights[mask]
        return np.bincount(q, weights=w, minlength=self.nq).astype(float)

    def upto(self, weights, cuts, mask=None, pos=None, q=None) -> np.ndarray:
        """Per query and cutoff: the sum of ``weights`` over the rows ranked above each cutoff.

        Counts are summed by bucket; float weights are added one row after the other in rank order, as
        trec_eval does, so the last bit (and a printed 4th decimal on a half) agrees with it.
        """
        q = self.r.q if q is None else q
        pos = self.r.pos if pos is None else pos
        if mask is not None:
            q, pos, weights = q[mask], pos[mask], (None if weights is None else weights[mask])
        cuts = np.asarray(cuts)
        if weights is not None and weights.dtype.kind == "f":
            return _upto_in_order(weights, cuts, q, pos, self.nq)
        bucket = np.searchsorted(cuts, pos, side="right")
        width = len(cuts) + 1
        sums = np.bincount(q * width + bucket, weights=weights, minlength=self.nq * width).astype(float)
        return np.cumsum(sums.reshape(self.nq, width), axis=1)[:, :-1]

    @cached_property
    def isrel(self) -> np.ndarray:
        return self.r.rel >= self.o.level

    @cached_property
    def cumrel(self) -> np.ndarray:
        """Relevant documents at or above each row, within its query."""
        return _within(self.isrel, self.r.q, self.r.pos)

    @cached_property
    def num_rel_ret(self) -> np.ndarray:
        return self.per_query(mask=self.isrel)

    @cached_property
    def precision_at_rel(self) -> np.ndarray:
        """Precision at each row (used at the relevant rows)."""
        return self.cumrel / (self.r.pos + 1.0)

    @cached_property
    def rel_rows(self) -> np.ndarray:
        return np.flatnonzero(self.isrel)

    @cached_property
    def interpolated(self) -> np.ndarray:
        """Interpolated precision at each relevant row: the best precision at or below it."""
        rows = self.rel_rows
        best = self.precision_at_rel[rows].copy()
        q = self.r.q[rows]
        longest = int(self.num_rel_ret.max(initial=0))
        shift = 1
        while shift < longest:  # a segmented scan from the end in log2 steps: no arithmetic on the values
            same = q[:-shift] == q[shift:]
            best[:-shift] = np.where(same, np.maximum(best[:-shift], best[shift:]), best[:-shift])
            shift *= 2
        return best

    def gains(self, pairs: tuple) -> tuple[np.ndarray, np.ndarray]:
        """trec_eval's gain per row and per judged qrels document (grade, or the ``name=value`` given)."""
        given = {_atol(name): value for name, value in pairs if re.fullmatch(r"[+-]?\d+", name)}
        low = min([-2, *given])
        high = max([int(self.r.rel.max(initial=0)), int(self.r.judged_grade.max(initial=0)), *given])
        table = np.arange(low, high + 1, dtype=float)
        table[table < 0] = 0.0
        for level, value in given.items():
            table[level - low] = value
        return table[self.r.rel - low], table[self.r.judged_grade - low]

    def ideal(self, judged_gain: np.ndarray, positive_only: bool = True):
        """The ideal ordering's gains per query: (query, position, gain), best first, positive gains."""
        keep = judged_gain > 0 if positive_only else np.ones(len(judged_gain), bool)
        q, g = self.r.judged_q[keep], judged_gain[keep]
        order = np.lexsort((-g, q))
        q, g = q[order], g[order]
        return q, _positions(q, self.nq), g

    @cached_property
    def discount(self) -> np.ndarray:
        return _cutoff.discounted(1.0, self.r.pos + 1.0)


def _within(values: np.ndarray, q: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """The running sum of ``values`` over the rows, restarting at each query's first row (rows by query).

    Counts: one cumulative sum over all rows, minus its value before each query (exact for integers).
    Floats: summed query by query in row order, as trec_eval does (a run-wide sum minus an offset would
    lose the last bits, enough to flip a printed half such as 0.00655).
    """
    if values.dtype.kind == "f":
        out = np.empty(len(values))
        starts = np.flatnonzero(np.concatenate([[True], q[1:] != q[:-1]])) if len(q) else np.zeros(0, int)
        for a, b in zip(starts, [*starts[1:], len(values)][: len(starts)], strict=True):
            np.cumsum(values[a:b], out=out[a:b])
        return out
    cumulative = np.cumsum(values)
    if not len(q):
        return cumulative
    first = np.arange(len(q)) - pos
    before = np.concatenate([[0], cumulative])[first]
    return cumulative - before


def _upto_in_order(weights, cuts, q, pos, nq) -> np.ndarray:
    """Per query and cutoff: the running sum in row order (:func:`_within`) at the last row above the cut."""
    running = _within(np.asarray(weights, float), q, pos)
    base = int(pos.max(initial=0)) + 2
    keys = q.astype(np.int64) * base + pos
    wanted = np.arange(nq, dtype=np.int64)[:, None] * base + np.minimum(cuts, base - 1)[None, :]
    last = np.searchsorted(keys, wanted, side="left") - 1
    safe = np.clip(last, 0, None)
    found = (last >= 0) & (q[safe] == np.arange(nq)[:, None]) if len(q) else np.zeros(wanted.shape, bool)
    return np.where(found, running[safe] if len(q) else 0.0, 0.0)


def _ratio(num, den) -> np.ndarray:
    num, den = np.asarray(num, float), np.asarray(den, float)
    return np.divide(num, den, out=np.zeros(np.broadcast(num, den).shape), where=den != 0)


# Each function: (scores, params) -> per-query values, shape (nq,) or (nq, n_cutoffs).
def _num_ret(s, _):
    return s.r.num_ret.astype(float)


def _num_rel(s, _):
    return s.r.num_rel.astype(float)


def _num_rel_ret(s, _):
    return s.num_rel_ret


def _ap_sum(s) -> np.ndarray:
    return s.per_query(s.precision_at_rel, s.isrel)


def _map(s, _):
    return _ratio(_ap_sum(s), s.r.num_rel) * (s.num_rel_ret > 0)


def _gm_map(s, _):
    return np.log(np.maximum(_map(s, _), 1e-5))


def _rprec(s, _):
    top = s.per_query(mask=s.isrel & (s.r.pos < s.r.num_rel[s.r.q]))
    return _ratio(top, s.r.num_rel)


def _bpref(s, _):
    level = max(s.o.level, 0)
    num_nonrel = s.r.rel_levels[:, :level].sum(axis=1)
    judged_nonrel = (s.r.rel >= 0) & (s.r.rel < s.o.level)
    before = _within(judged_nonrel, s.r.q, s.r.pos) - judged_nonrel
    big_r = s.r.num_rel[s.r.q]
    rel = s.isrel & (s.r.rel != -1) & (s.r.rel != -2)
    penalty = _ratio(np.minimum(before, big_r), np.minimum(num_nonrel[s.r.q], big_r))
    return _ratio(s.per_query(1.0 - penalty, rel), s.r.num_rel)


def _gm_bpref(s, _):
    return np.log(np.maximum(_bpref(s, _), 1e-5))


def _recip_rank(s, _):
    rows = s.rel_rows
    out = np.zeros(s.nq)
    first, at = np.unique(s.r.q[rows], return_index=True)
    out[first] = 1.0 / (s.r.pos[rows[at]] + 1.0)
    return out


def _iprec(s, points) -> np.ndarray:
    """Interpolated precision at recall points (trec_eval rounds points x R to whole documents)."""
    points = np.asarray(points, float)
    scaled = points[None, :] * s.r.num_rel[:, None]
    if s.o.recall_rounding == "trec_eval9":
        cut = np.trunc(scaled + 0.9).astype(np.int64)
    else:  # C's lround: halves away from zero
        cut = (np.floor(np.abs(scaled) + 0.5) * np.sign(scaled)).astype(np.int64)
    nrr = s.num_rel_ret.astype(np.int64)[:, None]
    start = np.searchsorted(s.r.q[s.rel_rows], np.arange(s.nq))[:, None]
    ip = s.interpolated
    which = np.where(cut >= 1, cut, 1) - 1
    safe = np.clip(start + which, 0, max(len(ip) - 1, 0))
    got = ip[safe] if len(ip) else np.zeros(safe.shape)
    with np.errstate(invalid="ignore", divide="ignore"):
        floor = (s.num_rel_ret / s.r.num_ret)[:, None]  # 0/0 is NaN, as in trec_eval
    value = np.where(nrr > 0, got, floor)
    return np.where(cut > nrr, 0.0, value)


def _P(s, cuts):
    return s.upto(None, cuts, s.isrel) / np.asarray(cuts, float)


def _recall(s, cuts):
    return _ratio(s.upto(None, cuts, s.isrel), s.r.num_rel[:, None])


def _relative_P(s, cuts):
    return _ratio(s.upto(None, cuts, s.isrel), np.minimum(np.asarray(cuts)[None, :], s.r.num_rel[:, None]))


def _success(s, cuts):
    return (s.upto(None, cuts, s.isrel) > 0).astype(float)


def _map_cut(s, cuts):
    return _ratio(s.upto(s.precision_at_rel, cuts, s.isrel), s.r.num_rel[:, None])


def _unj(s, cuts):
    return s.upto(None, cuts, s.r.rel < 0) / np.asarray(cuts, float)


def _relstring(s, params) -> list[str]:
    length = int(params[0]) if params else 10
    chars = np.array(list("0123456789"), dtype="<U1")
    rel = s.r.rel
    char = np.where(
        rel > 9, ">", np.where(rel >= 0, chars[np.clip(rel, 0, 9)], np.where(rel == -1, "-", "."))
    )
    keep = s.r.pos < length
    out = [""] * s.nq
    q, c = s.r.q[keep], char[keep]
    bounds = np.searchsorted(q, np.arange(s.nq + 1))
    for i in range(s.nq):
        out[i] = "".join(c[bounds[i] : bounds[i + 1]])
    return out


def _infap(s, _):
    r = s.r
    nonrel = (r.rel >= 0) & (r.rel < s.o.level)
    unjudged = r.rel == -2
    nonrel_before = _within(nonrel, r.q, r.pos) - nonrel
    unj_before = _within(unjudged, r.q, r.pos) - unjudged
    rel = s.isrel & (r.rel >= 0)
    rel_so_far = _within(rel, r.q, r.pos)
    j = r.pos.astype(float)
    k = rel_so_far - 1.0
    eps = 1e-5
    with np.errstate(invalid="ignore", divide="ignore"):
        later = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((k + nonrel_before + unj_before) / j) * (
            (k + eps) / (k + nonrel_before + 2 * eps)
        )
    term = np.where(r.pos == 0, 1.0, later)
    return _ratio(s.per_query(term, rel), r.num_rel)


def _rprec_mult(s, points):
    cut = (np.asarray(points)[None, :] * s.r.num_rel[:, None] + 0.9).astype(np.int64)
    flat = np.unique(cut)
    counts = s.upto(None, flat, s.isrel) if len(flat) else np.zeros((s.nq, 0))
    got = np.take_along_axis(counts, np.searchsorted(flat, cut), axis=1)
    return _ratio(got, cut)


def _utility(s, params):
    if len(params) != 4:
        raise InvalidInputError("measure utility takes 4 coefficients, e.g. utility.1,-1,0,0.")
    a, b, c, d = params
    ret, rel, hit = s.r.num_ret, s.r.num_rel, s.num_rel_ret
    return a * hit + b * (ret - hit) + c * (rel - hit) + d * (s.o.num_docs + hit - ret - rel)


def _11pt_avg(s, points):
    if not len(points):
        raise InvalidInputError("measure 11pt_avg needs at least one recall point.")
    return _iprec(s, points).sum(axis=1) / len(points)


def _binG(s, _):
    term = _cutoff.discounted(1.0, 2.0 + s.r.pos - s.cumrel)
    return _ratio(s.per_query(term, s.isrel), s.r.num_rel) * (s.num_rel_ret > 0)


def _dcg_parts(s, pairs):
    row_gain, judged_gain = s.gains(pairs)
    dcg = s.per_query(row_gain * s.discount)
    iq, ipos, ig = s.ideal(judged_gain)
    idcg = np.bincount(iq, weights=_cutoff.discounted(ig, ipos + 1.0), minlength=s.nq).astype(float)
    return row_gain, dcg, (iq, ipos, ig), idcg


def _ndcg(s, pairs):
    _, dcg, _, idcg = _dcg_parts(s, pairs)
    return _ratio(dcg, idcg)


def _dcg(s, pairs):
    return _dcg_parts(s, pairs)[1]


def _ideal_dcg(s, pairs):
    return _dcg_parts(s, pairs)[3]


def _ideal_prefix(s, ideal, pos_rows):
    """Per row: the ideal DCG over positions 0..pos (capped at the last positive ideal gain)."""
    iq, ipos, ig = ideal
    cum = _within(_cutoff.discounted(ig, ipos + 1.0), iq, ipos)
    count = np.bincount(iq, minlength=s.nq)
    start = np.searchsorted(iq, np.arange(s.nq))
    last = np.minimum(pos_rows, count[s.r.q] - 1)
    return np.where(
        last >= 0, cum[np.clip(start[s.r.q] + last, 0, max(len(cum) - 1, 0))] if len(cum) else 0, 0.0
    )


def _ndcg_rel(s, pairs):
    row_gain, dcg, ideal, idcg = _dcg_parts(s, pairs)
    n_pos = np.bincount(ideal[0], minlength=s.nq)
    cum_dcg = _within(row_gain * s.discount, s.r.q, s.r.pos)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = cum_dcg / _ideal_prefix(s, ideal, s.r.pos)
        found = s.per_query(ratio, row_gain > 0)
        n_found = s.per_query(mask=row_gain > 0)
        total = found + (n_pos - n_found) * dcg / idcg
    return np.where(total > 0, _ratio(total, n_pos), 0.0)


def _rndcg(s, pairs):
    row_gain, dcg, (iq, ipos, ig), idcg = _dcg_parts(s, pairs)
    n_pos = np.bincount(iq, minlength=s.nq)
    nxt = np.concatenate([ig[1:], [0.0]])
    last = np.concatenate([iq[1:] != iq[:-1], [True]]) if len(iq) else np.zeros(0, bool)
    nxt = np.where(last, 0.0, nxt)
    boundary = nxt != ig  # the ideal gain changes after this position: b = ipos + 1
    b = ipos[boundary] + 1
    bq = iq[boundary]
    cum_dcg = _within(row_gain * s.discount, s.r.q, s.r.pos)
    start = np.searchsorted(s.r.q, np.arange(s.nq))
    upto = np.minimum(b, s.r.num_ret[bq])
    dcg_before = np.where(
        upto > 0,
        cum_dcg[np.clip(start[bq] + upto - 1, 0, max(len(cum_dcg) - 1, 0))] if len(cum_dcg) else 0.0,
        0.0,
    )
    ideal_cum = _within(_cutoff.discounted(ig, ipos + 1.0), iq, ipos)
    idcg_before = ideal_cum[boundary]
    total = np.bincount(bq, weights=dcg_before / idcg_before, minlength=s.nq).astype(float)
    count = np.bincount(bq, minlength=s.nq).astype(float)
    tail = (n_pos + 1 < s.r.num_ret) & (idcg > 0)
    total += np.where(tail, _ratio(dcg, idcg), 0.0)
    count += tail
    out = _ratio(total, count)
    return np.where(s.r.num_rel > 0, out, 0.0)


def _G(s, pairs):
    row_gain, _, (iq, ipos, ig), _ = _dcg_parts(s, pairs)
    count = np.bincount(iq, minlength=s.nq)
    start = np.searchsorted(iq, np.arange(s.nq))
    inside = s.r.pos < count[s.r.q]
    ideal_here = np.where(
        inside, ig[np.clip(start[s.r.q] + s.r.pos, 0, max(len(ig) - 1, 0))] if len(ig) else 0.0, 0.0
    )
    cost = _within(np.maximum(ideal_here, 1.0), s.r.q, s.r.pos)
    got = _within(row_gain, s.r.q, s.r.pos)
    with np.errstate(invalid="ignore", divide="ignore"):
        term = _cutoff.discounted(row_gain, 1.0 + cost - got)
    value = s.per_query(term, row_gain != 0)
    return _ratio(value, np.bincount(iq, weights=ig, minlength=s.nq))


def _ndcg_cut(s, cuts):
    gain = np.where(s.r.rel > 0, s.r.rel, 0).astype(float)
    dcg = s.upto(gain * s.discount, cuts)
    positive = s.r.judged_grade > 0
    iq, ipos, ig = s.ideal(s.r.judged_grade.astype(float) * positive)
    idcg = s.upto(_cutoff.discounted(ig, ipos + 1.0), cuts, pos=ipos, q=iq)
    return np.where(idcg > 0, _ratio(dcg, idcg), dcg)


def _p_of(pairs, default=0.9) -> float:
    return next((value for name, value in pairs if name == "p"), default)


def _rbp(s, pairs):
    p = _p_of(pairs)
    row_gain, _ = s.gains(pairs)
    given = [value for name, value in pairs if re.fullmatch(r"[+-]?\d+", name)]
    high = np.maximum(s.r.num_rel_levels - 1, max(given, default=0)).astype(float)
    low = min([0.0, *given])
    stretch = (high > 1) | (low < 0)
    span = np.where(stretch, high - low, 1.0)
    q = s.r.q
    norm = np.where(stretch[q], (row_gain - low) / span[q], row_gain)
    norm = np.where(s.r.rel < 0, np.where(stretch[q], (row_gain - low) / span[q], row_gain), norm)
    weight = np.power(p, s.r.pos.astype(float))
    return (1.0 - p) * s.per_query(norm * weight, norm != 0)


def _rbp_resid(s, pairs):
    p = _p_of(pairs)
    unj = s.r.rel < 0
    weight = np.power(p, s.r.pos.astype(float))
    total = (1.0 - p) * s.per_query(weight, unj) + np.power(p, s.r.num_ret.astype(float))
    return np.where(s.per_query(mask=unj) > 0, total, 0.0)


def _set_P(s, _):
    return _ratio(s.num_rel_ret, s.r.num_ret)


def _set_relative_P(s, _):
    return _ratio(s.num_rel_ret, np.minimum(s.r.num_ret, s.r.num_rel)) * (s.r.num_rel > 0)


def _set_recall(s, _):
    return _ratio(s.num_rel_ret, s.r.num_rel)


def _set_map(s, _):
    return _ratio(s.num_rel_ret * s.num_rel_ret, s.r.num_ret * s.r.num_rel.astype(float))


def _set_F(s, params):
    beta = params[0] if params else 1.0
    p, r = _set_P(s, ()), _set_recall(s, ())
    with np.errstate(invalid="ignore", divide="ignore"):
        f = (beta + 1.0) * p * r / (beta * p + r)
    return np.where(s.num_rel_ret > 0, f, 0.0)


def _num_nonrel_judged_ret(s, _):
    r = s.r
    return (r.num_ret - r.num_nonpool - r.num_unjudged - s.num_rel_ret).astype(float)


_COMPUTE = {
    "num_q": lambda s, _: np.ones(s.nq),
    "num_ret": _num_ret,
    "num_rel": _num_rel,
    "num_rel_ret": _num_rel_ret,
    "map": _map,
    "gm_map": _gm_map,
    "Rprec": _rprec,
    "bpref": _bpref,
    "recip_rank": _recip_rank,
    "iprec_at_recall": _iprec,
    "P": _P,
    "relstring": _relstring,
    "recall": _recall,
    "infAP": _infap,
    "gm_bpref": _gm_bpref,
    "Rprec_mult": _rprec_mult,
    "utility": _utility,
    "11pt_avg": _11pt_avg,
    "binG": _binG,
    "G": _G,
    "dcg": _dcg,
    "ideal_dcg": _ideal_dcg,
    "ndcg": _ndcg,
    "ndcg_rel": _ndcg_rel,
    "Rndcg": _rndcg,
    "ndcg_cut": _ndcg_cut,
    "map_cut": _map_cut,
    "relative_P": _relative_P,
    "success": _success,
    "set_P": _set_P,
    "set_relative_P": _set_relative_P,
    "set_recall": _set_recall,
    "set_map": _set_map,
    "set_F": _set_F,
    "num_nonrel_judged_ret": _num_nonrel_judged_ret,
    "rbp": _rbp,
    "rbp_resid": _rbp_resid,
    "unj": _unj,
}
#: values trec_eval zeroes for a query the run lacks (``-c``), by the measure's printed name
_BOGUS_ZERO = ("num_ret", "utility", "rbp_resid")


@dataclass
class Result:
    """Per-query values (query order as trec_eval prints them) and the summary line of every value."""

    queries: list[str]
    measures: list[Measure]
    values: dict[str, Any]  # label -> per-query array (or list of str for relstring)
    summary: dict[str, float]  # label -> the "all" value
    runid: str


@validate_params({"qrels": FilePath(), "run": FilePath()})
def evaluate(
    qrels: str | os.PathLike,
    run: str | os.PathLike,
    measures: list[Measure] | None = None,
    options: Options = Options(),
) -> Result:
    """Score a run file against a qrels file as trec_eval does.

    Parameters
    ----------
    qrels, run : str or path
        trec_eval's input files (``qid iter docno grade``; ``qid Q0 docno
        rank score runid``).
    measures : list of Measure, optional
        As :func:`parse_measures` returns; default trec_eval's ``official``.
    options : Options
        trec_eval's ``-c``, ``-M``, ``-l``, ``-J``, ``-N``.

    Returns
    -------
    Result

    Raises
    ------
    topkeval.InvalidInputError
        An unreadable or empty file (named), a malformed line, a document
        listed twice, no query in common.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "qrels").write_text("q1 0 d1 1\\nq1 0 d2 0\\nq1 0 d3 -2\\n")
    >>> _ = (d / "run").write_text("q1 Q0 d2 1 0.5 r\\nq1 Q0 d1 2 0.5 r\\n")
    >>> result = evaluate(d / "qrels", d / "run", parse_measures(["recip_rank"]))
    >>> float(result.summary["recip_rank"])  # tie: d2 before d1 (docno descending)
    0.5
    """
    measures = measures or parse_measures([])
    readers = _trec_files.reader_order(_trec_files.file_size(qrels, run))  # both files by one reader
    qrels_table, run_table = _trec_files.read_qrels(qrels, readers), _trec_files.read_run(run, readers)
    rows = _Rows(qrels_table, run_table, options, (str(qrels), str(run)))
    scores = _Scores(rows, options)
    values: dict[str, Any] = {}
    summary: dict[str, float] = {}
    for measure in measures:
        if measure.spec.kind == "runid":
            continue
        got = _COMPUTE[measure.spec.name](scores, measure.params)
        _bogus(measure, got, rows)
        _store(measure, got, values, summary, rows, options)
    return Result(rows.queries, measures, values, summary, run_table.runid)


def _bogus(measure: Measure, got, rows: _Rows) -> None:
    if not rows.bogus.any():
        return
    name = measure.labels[0]
    if measure.spec.kind == "relstring" and name == "relstring":
        for i in np.flatnonzero(rows.bogus):
            got[i] = ""
    elif name in _BOGUS_ZERO or measure.spec.name == "unj":
        got[rows.bogus] = 0.0


def _store(measure: Measure, got, values: dict, summary: dict, rows: _Rows, options: Options) -> None:
    if measure.spec.kind == "relstring":
        values[measure.labels[0]] = got
        return
    columns = got if got.ndim == 2 else got[:, None]
    for j, label in enumerate(measure.labels):
        column = columns[:, j]
        values[label] = column
        summary[label] = _average(measure.spec.average, column, rows)


def _average(kind: str, column: np.ndarray, rows: _Rows) -> float:
    n = rows.nq
    total = float(np.cumsum(column)[-1]) if len(column) else 0.0  # in query order, as trec_eval adds
    if kind == "num_q":
        return float(n)
    if kind == "num_rel" and rows.options.complete:
        return float(rows.positive_total)
    if kind in ("sum", "num_rel"):
        return total
    if kind == "gm":
        return math.exp(total / n) if n else 0.0
    return total / n if n else 0.0


def _number(value: float, integer: bool) -> str:
    if integer:
        return str(int(value))
    if math.isnan(value):
        return "  -nan"
    return f"{value:6.4f}"


def format_lines(result: Result, options: Options = Options()) -> list[str]:
    """trec_eval's output: with ``-q`` every query's lines first (in qrels order), then the ``all`` lines.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "qrels").write_text("q1 0 d1 1\\n")
    >>> _ = (d / "run").write_text("q1 Q0 d1 1 0.5 myrun\\n")
    >>> for line in format_lines(evaluate(d / "qrels", d / "run", parse_measures(["runid", "P.1"]))):
    ...     print(line.replace("\\t", " | "))
    runid                  | all | myrun
    P_1                    | all | 1.0000
    """
    lines: list[str] = []
    if options.per_query:
        for i, query in enumerate(result.queries):
            for measure in result.measures:
                lines += _query_lines(measure, result, i, query)
    if options.summary:
        for measure in result.measures:
            lines += _summary_lines(measure, result)
    return lines


def _query_lines(measure: Measure, result: Result, i: int, query: str) -> list[str]:
    spec = measure.spec
    if not spec.per_query:
        return []
    if spec.kind == "relstring":
        return [f"{measure.labels[0]:<22}\t{query}\t'{result.values[measure.labels[0]][i]}'"]
    integer = spec.kind == "long"
    return [f"{label:<22}\t{query}\t{_number(result.values[label][i], integer)}" for label in measure.labels]


def _summary_lines(measure: Measure, result: Result) -> list[str]:
    spec = measure.spec
    if spec.kind == "runid":
        return [f"{'runid':<22}\tall\t{result.runid}"]
    if spec.average == "none":
        return []
    integer = spec.kind == "long"
    return [f"{label:<22}\tall\t{_number(result.summary[label], integer)}" for label in measure.labels]
