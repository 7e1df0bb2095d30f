"""TREC run and qrels files in, trec_eval's numbers out.

* :func:`read_run` reads a run file (six columns: ``qid Q0 docno rank
  score tag``) into the ``recommendations`` frame :func:`topkeval.evaluate`
  takes (``user``, ``item``, ``score``);
* :func:`read_qrels` reads a qrels file (four columns: ``qid iter docno
  relevance``, graded) into the ``truth`` frame (``user``, ``item``,
  ``relevance``);
* :func:`parse_measure` reads a measure in ir_measures' notation (``P@5``,
  ``AP``, ``nDCG@10``, ``RBP(p=0.8)@10``, ...; case-insensitive);
* :func:`evaluate_run` scores a run with those measures under the
  conventions of one library of :data:`topkeval.conventions.LIBRARIES`
  (default trec_eval: its numbers equal trec_eval's);
* ``python -m topkeval QRELS RUN`` (or the ``topkeval`` command) prints them
  in trec_eval's format.

trec_eval's conventions, which the default follows: each query's documents
are ordered by score, highest first, ties by docno in descending string
order; the rank column is not read; unjudged documents are not relevant; a
document is relevant when its grade is >= 1 (graded gains for nDCG); a query
of the run that is not in the qrels is left out, and so is a query of the
qrels that the run does not list; a query whose judged documents all have
grade 0 scores 0. A measure without ``@k`` covers the whole list (AP is
trec_eval's ``map``, nDCG its ``ndcg``, RR its ``recip_rank``).

trec_eval's ``bpref`` is topkeval's ``bpref`` on the whole list: grade-0
documents are the judged non-relevant ones and unjudged documents are
skipped.

A measure a library does not define is refused with :func:`topkeval.evaluate_as`'s
message, with two exceptions: under trec_eval's conventions ERR is gdeval's
(the TREC Web track's script: gain (2^g - 1) / 2^4, ties by docno
descending; trec_eval itself has no ERR) and RBP is topkeval's with
trec_eval's order. ir_measures' RR without a cutoff is pytrec_eval's
(ties by docno descending), as ir_measures computes it; its RR@k is
msmarco's (ties by docno ascending).

Negative grades (Web-track qrels: -2 spam, -1 junk) are read as trec_eval
reads them: the document is in the pool but unjudged, which for these
measures is the same as not listed (:mod:`topkeval.treceval` keeps the
difference where a measure sees it: ``infAP``, ``relstring``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import IO, Any

import numpy as np
import pandas as pd

from . import _registry, conventions
from ._validation import Flag, InvalidInputError, OneOf, Text, plain, validate_params

__all__ = ["read_run", "read_qrels", "parse_measure", "Measure", "evaluate_run", "format_trec"]

#: NAME, NAME@k or NAME(param=value, ...)@k. Every metric of the registry may be named, by its
#: ``measure`` (ir_measures' spelling: P, nDCG, Rprec), its key or any of its aliases (trec_eval's map,
#: recip_rank, ndcg_cut; R-prec), in any case; the registry also says which need a cutoff (``needs_cutoff``)
#: and which numeric parameters each takes (its ``options`` that are ``PARAMETERS``).
_MEASURE = re.compile(r"^\s*([A-Za-z_][A-Za-z_-]*)\s*(?:\(([^)]*)\))?\s*(?:@\s*(\d+))?\s*$")


# ------------------------------------------------------------------ reading
def _source_name(source: Any) -> str:
    """How messages name the file: its path, or ``<stream>`` for a file object without a name."""
    if isinstance(source, str | os.PathLike):
        return str(source)
    return str(getattr(source, "name", None) or "<stream>")


def _read_columns(source: str | IO[str], n_columns: int, what: str) -> pd.DataFrame:
    """The whitespace-separated columns of a file as strings, one row per non-blank line (index: line)."""
    name = _source_name(source)
    try:
        frame = pd.read_csv(
            source,
            sep=r"\s+",
            header=None,
            dtype=str,
            skip_blank_lines=False,
            names=range(n_columns + 1),  # one spare: a line with too many columns fills it
            engine="c",
            keep_default_na=False,
            na_values=[],
        )
    except pd.errors.ParserError as err:
        found = re.search(r"line (\d+), saw (\d+)", str(err))
        where = f" line {found.group(1)} has {found.group(2)} columns;" if found else f" {err};"
        raise InvalidInputError(f"{name}:{where} a {what} line has {n_columns} columns.") from None
    except pd.errors.EmptyDataError:
        frame = pd.DataFrame(columns=range(n_columns + 1), dtype=str)
    frame.index = pd.RangeIndex(1, len(frame) + 1)  # line numbers
    blank = frame[0].isna() | (frame[0] == "")
    frame = frame.loc[~blank]
    long = frame[n_columns].notna() & (frame[n_columns] != "")
    if long.any():
        line = int(frame.index[long.to_numpy()][0])
        raise InvalidInputError(
            f"{name}: line {line} has more than {n_columns} columns; a {what} line has {n_columns}."
        )
    short = frame[n_columns - 1].isna() | (frame[n_columns - 1] == "")
    if short.any():
        line = int(frame.index[short.to_numpy()][0])
        raise InvalidInputError(
            f"{name}: line {line} has fewer than {n_columns} columns; a {what} line has {n_columns}."
        )
    return frame


def _numbers(column: pd.Series, name: str, what: str, integer: bool) -> np.ndarray:
    values = pd.to_numeric(column, errors="coerce")
    bad = values.isna().to_numpy() | ~np.isfinite(values.to_numpy(dtype=float, na_value=np.nan))
    if integer:
        bad |= values.to_numpy(dtype=float, na_value=np.nan) % 1 != 0
    if bad.any():
        line = int(column.index[bad][0])
        kind = "an integer" if integer else "a finite number"
        raise InvalidInputError(f"{name}: line {line}: the {what} {column.loc[line]!r} is not {kind}.")
    return values.to_numpy(dtype=np.int64 if integer else np.float64)


def _check_unique(frame: pd.DataFrame, name: str, what: str) -> None:
    twice = frame.duplicated(["user", "item"], keep=False)
    if twice.any():
        lines = frame.index[twice.to_numpy()]
        first = frame.loc[lines[0]]
        same = lines[
            (frame.loc[lines, "user"] == first["user"]).to_numpy()
            & (frame.loc[lines, "item"] == first["item"]).to_numpy()
        ]
        raise InvalidInputError(
            f"{name}: lines {int(same[0])} and {int(same[1])} both list document {plain(first['item'])!r} "
            f"for query {plain(first['user'])!r}; a {what} lists each (query, document) once."
        )


@validate_params({"keep_rank": Flag()})
def read_run(source: str | IO[str], keep_rank: bool = False) -> pd.DataFrame:
    """Read a TREC run file into the frame :func:`topkeval.evaluate` takes.

    Parameters
    ----------
    source : str, path or text file
        Six whitespace-separated columns per line: ``qid Q0 docno rank score
        tag``. Blank lines are skipped.
    keep_rank : bool
        False (default, as trec_eval): the rank column is not read, so
        ``evaluate`` orders by score. True keeps it as ``rank`` (``evaluate``
        then orders by rank and does not read the scores).

    Returns
    -------
    pandas.DataFrame
        Columns ``user`` (qid, str), ``item`` (docno, str) and ``score``
        (float), plus ``rank`` (int) with ``keep_rank``; in file order,
        indexed by line number.

    Raises
    ------
    topkeval.InvalidInputError
        A ``ValueError`` naming the file and the line: a line without six
        columns, a score that is not a number, a document listed twice for
        one query.

    Examples
    --------
    >>> import io
    >>> run = read_run(io.StringIO("q1 Q0 d1 1 2.5 sys\\nq1 Q0 d2 2 3.0 sys\\n"))
    >>> run
      user item  score
    1   q1   d1    2.5
    2   q1   d2    3.0
    """
    name = _source_name(source)
    columns = _read_columns(source, 6, "run (qid Q0 docno rank score tag)")
    frame = pd.DataFrame(
        {"user": columns[0], "item": columns[2], "score": _numbers(columns[4], name, "score", integer=False)},
        index=columns.index,
    )
    if keep_rank:
        frame["rank"] = _numbers(columns[3], name, "rank", integer=True)
    _check_unique(frame, name, "run")
    return frame


def read_qrels(source: str | IO[str]) -> pd.DataFrame:
    """Read a TREC qrels file into the ``truth`` frame :func:`topkeval.evaluate` takes.

    Parameters
    ----------
    source : str, path or text file
        Four whitespace-separated columns per line: ``qid iter docno
        relevance``, the relevance an integer grade (0 = judged not
        relevant; trec_eval reads it as an integer). Blank lines are skipped.

    Returns
    -------
    pandas.DataFrame
        Columns ``user`` (qid, str), ``item`` (docno, str) and ``relevance``
        (int), in file order, indexed by line number.

    Raises
    ------
    topkeval.InvalidInputError
        A ``ValueError`` naming the file and the line: a line without four
        columns, a grade that is not an integer, a document judged twice for
        one query.

    Examples
    --------
    >>> import io
    >>> read_qrels(io.StringIO("q1 0 d1 2\\nq1 0 d3 0\\n"))
      user item  relevance
    1   q1   d1          2
    2   q1   d3          0
    """
    name = _source_name(source)
    columns = _read_columns(source, 4, "qrels (qid iter docno relevance)")
    frame = pd.DataFrame(
        {
            "user": columns[0],
            "item": columns[2],
            "relevance": _numbers(columns[3], name, "relevance", integer=True),
        },
        index=columns.index,
    )
    _check_unique(frame, name, "qrels file")
    return frame


# ------------------------------------------------------------------ measures
@dataclass(frozen=True)
class Measure:
    """One measure of ir_measures' notation, as :func:`parse_measure` reads it.

    Attributes
    ----------
    metric : str
        The metric key of :func:`topkeval.evaluate` (``"ndcg"``, ``"ap"``, ...).
    k : int or None
        The cutoff; None covers the whole list.
    params : dict
        The measure's parameters, e.g. ``{"p": 0.8}`` for RBP's persistence.
    """

    metric: str
    k: int | None = None
    params: dict = field(default_factory=dict)

    def __str__(self) -> str:
        args = ",".join(f"{key}={value:g}" for key, value in self.params.items())
        name = _registry.METRICS[self.metric].measure_name
        return name + (f"({args})" if args else "") + (f"@{self.k}" if self.k else "")


@validate_params({"text": Text(" such as 'nDCG@10' (a measure)")})
def parse_measure(text: str) -> Measure:
    """Read a measure in ir_measures' notation (case-insensitive), e.g. ``nDCG@10`` or ``RBP(p=0.8)@10``.

    Parameters
    ----------
    text : str
        ``NAME``, ``NAME@k`` or ``NAME(param=value)@k``. Every metric of
        the registry has a name here, its ``measure`` (ir_measures'
        spelling: ``P``, ``R``, ``Success``, ``AP``, ``nDCG``, ``RR``,
        ``ERR``, ``RBP``, ``Rprec``, ``Bpref``, ...), and the other names
        :func:`topkeval.evaluate` accepts for it work too (trec_eval's
        ``map``, ``recip_rank``, ``ndcg_cut``; ``MRR``, ``R-prec``, ...).
        Without ``@k`` a measure covers the whole list (as trec_eval's
        ``map``, ``Rprec``, ``bpref``); those the registry marks
        ``needs_cutoff`` (``P``, ``R``, ``Success``, ``ERR``) must have
        one. The parameters are the metric's numeric options (``RBP``'s
        ``p``, the persistence, default 0.8).

    Returns
    -------
    Measure
        Our metric key, the cutoff (None: the whole list) and the parameters.

    Raises
    ------
    topkeval.InvalidInputError
        An unknown name or parameter, a cutoff below 1, a measure that needs
        ``@k`` without one.
    topkeval.InputTypeError
        ``text`` is not a str.

    Examples
    --------
    >>> parse_measure("ndcg@10")
    Measure(metric='ndcg', k=10, params={})
    >>> str(parse_measure("rbp(p=0.5)@20"))
    'RBP(p=0.5)@20'
    >>> str(parse_measure("map"))  # trec_eval's name
    'AP'
    """
    found = _MEASURE.match(text)
    metric = _registry.metric_key(found.group(1)) if found else None
    if not found or metric is None:
        known = _registry.measure_notation()
        raise InvalidInputError(f"unknown measure {text!r}; measures are written as in ir_measures: {known}.")
    k = int(found.group(3)) if found.group(3) else None
    if k is not None and k < 1:
        raise InvalidInputError(f"measure {text!r}: the cutoff after @ must be >= 1.")
    entry = _registry.METRICS[metric]
    if k is None and entry.needs_cutoff:
        raise InvalidInputError(f"measure {text!r} needs a cutoff, e.g. {entry.measure_name}@10.")
    return Measure(metric, k, _parameters(text, metric, found.group(2)))


def _parameters(text: str, metric: str, given: str | None) -> dict:
    params: dict = {}
    allowed = _registry.METRICS[metric].parameters
    for part in filter(None, (given or "").split(",")):
        key, _, value = (s.strip() for s in part.partition("="))
        if key.lower() not in allowed:
            which = ", ".join(allowed) or "none"
            raise InvalidInputError(
                f"measure {text!r}: unknown parameter {key!r} (parameters of {metric}: {which})."
            )
        try:
            params[key.lower()] = float(value)
        except ValueError:
            raise InvalidInputError(
                f"measure {text!r}: parameter {key} must be a number; got {value!r}."
            ) from None
    return params


# ------------------------------------------------------------------ evaluation
def _whole_list(run: pd.DataFrame, qrels: pd.DataFrame) -> int:
    """A cutoff that covers every list and every query's relevant documents (nDCG's ideal included)."""
    longest = int(run.groupby("user").size().max()) if len(run) else 0
    positive = qrels.loc[qrels["relevance"] > 0] if "relevance" in qrels.columns else qrels
    most = int(positive.groupby("user").size().max()) if len(positive) else 0
    return max(1, longest, most)


def _one(
    measure: Measure, run: pd.DataFrame, qrels: pd.DataFrame, library: str, k: int, crash: str = "raise"
) -> pd.Series:
    """Per-query values of one measure (NaN: left out, as the library leaves the query out)."""
    if library == "trec_eval" and measure.metric == "err":
        return _gdeval_err(run, qrels, k, measure)
    supported = measure.metric in conventions.supported_metrics(library)
    if not supported and measure.metric not in conventions.WHOLE_LIST.get(library, ()):
        # the library lacks it: evaluate_as refuses, with its message
        conventions.evaluate_as(library, run, qrels, k, metrics=[measure.metric], per_user=True, crash=crash)
    # ir_measures hands RR without a cutoff to pytrec_eval (ties by docno, descending; RR@k goes to msmarco)
    pytrec_rr = library == "ir_measures" and measure.metric == "rr" and measure.k is None
    if supported and not measure.params and not pytrec_rr:
        table = conventions.evaluate_as(
            library, run, qrels, k, metrics=[measure.metric], per_user=True, crash=crash
        )
        return table[f"{measure.metric}@{k}"]
    return _with_library_rules(measure, run, qrels, library, k)


def _with_library_rules(measure: Measure, run: pd.DataFrame, qrels: pd.DataFrame, library: str, k: int):
    """topkeval's definition of the measure, with the library's order of ties and its rules for which queries
    count."""
    lib = conventions.LIBRARIES[library]
    rows = [c for c in conventions.CONVENTIONS if c.library == library and c.default]
    rule = conventions._tie_rule(rows[0], lib, None) if lib.by_score else "input_order"
    base = conventions._Inputs(run, qrels, _COLUMNS, string_ids=lib.string_ids, by_score=lib.by_score)
    from .batch import evaluate

    values = evaluate(
        base.recs, base.truth, k, metrics=[measure.metric], empty="zero", ties=rule, **measure.params
    )[f"{measure.metric}@{k}"].reindex(base.users, fill_value=0.0)
    users = rows[0].users
    has_rel = base.users.isin(list(base.relevant_users))
    judged, listed = base.users.isin(list(base.judged)), base.users.isin(list(base.listed))
    kinds = {"judged_empty": ~has_rel & judged, "unjudged": ~judged, "no_recommendations": ~listed}
    for kind, mask in kinds.items():
        if users[kind] != "zero":  # "skip", or "raise": the library would crash; leave the query out
            values[mask] = np.nan
        else:
            values[mask & values.isna()] = 0.0
    return values


#: gdeval (the TREC Web track's evaluation script) grades up to 4: ERR's gain is (2^g - 1) / 2^4
GDEVAL_MAX_GRADE = 4


def _gdeval_err(run: pd.DataFrame, qrels: pd.DataFrame, k: int, measure: Measure) -> pd.Series:
    """ERR@k as gdeval computes it (trec_eval has no ERR): ties by docno descending, gain (2^g - 1) / 2^4
    for grades 1..4 (0 and negative grades gain nothing), over the queries with a grade > 0 that the run
    lists (others: NaN, left out)."""
    if measure.params:
        raise InvalidInputError(
            f"measure {str(measure)!r}: under trec_eval's conventions ERR is gdeval's, whose grade scale "
            f"is fixed at {GDEVAL_MAX_GRADE}; drop the parameters, or choose another convention."
        )
    if "relevance" in qrels.columns and (qrels["relevance"] > GDEVAL_MAX_GRADE).any():
        raise InvalidInputError(
            f"ERR follows gdeval, which takes grades up to {GDEVAL_MAX_GRADE}; "
            f"this qrels file has {int(qrels['relevance'].max())}."
        )
    from .batch import evaluate

    positive = qrels.loc[qrels["relevance"] > 0]
    base = conventions._Inputs(run, positive, _COLUMNS, string_ids=True, by_score=True)
    values = evaluate(
        base.recs,
        base.truth,
        k,
        metrics=["err"],
        empty="zero",
        ties="item_descending",
        max_grade=GDEVAL_MAX_GRADE,
    )[f"err@{k}"].reindex(base.users)
    counted = base.users.isin(list(base.relevant_users)) & base.users.isin(list(base.listed))
    return values.where(counted)


_COLUMNS = dict(
    user_col="user", item_col="item", rank_col="rank", score_col="score", relevance_col="relevance"
)


@validate_params(
    {
        "convention": Text(" naming a library of topkeval.conventions.LIBRARIES"),
        "judged_only": Flag(),
        "crash": OneOf("crash", ("raise", "skip")),
    }
)
def evaluate_run(
    qrels: pd.DataFrame,
    run: pd.DataFrame,
    measures: Sequence[str | Measure] | str | Measure,
    convention: str = "trec_eval",
    judged_only: bool = False,
    crash: str = "raise",
) -> pd.DataFrame:
    """Per-query values of each measure, as the ``convention`` library computes them.

    Parameters
    ----------
    qrels : pandas.DataFrame
        As :func:`read_qrels` returns (``user``, ``item``, ``relevance``).
    run : pandas.DataFrame
        As :func:`read_run` returns (``user``, ``item``, ``score``; a
        ``rank`` column is ignored by libraries that order by score).
    measures : list of str or Measure
        In ir_measures' notation, e.g. ``["P@5", "AP", "nDCG@10"]`` (one
        measure may be given alone: ``"AP"``).
    convention : str
        A key (or alias) of :data:`topkeval.conventions.LIBRARIES`.
    judged_only : bool
        True drops the run's documents that the qrels do not judge before
        anything is computed (condensed lists: trec_eval's ``-J``, as
        ``unjudged="condense"`` in :func:`topkeval.evaluate`). As there, a
        query keeps its place in the run when every one of its documents is
        dropped: it scores 0 wherever the convention counts it.
    crash : {"raise", "skip"}
        For a library that crashes on some queries (LensKit on a query
        without relevant documents): raise (default) or leave them out, as
        :func:`topkeval.evaluate_as`'s ``crash``.

    Returns
    -------
    pandas.DataFrame
        One row per query (sorted as strings), one column per measure (named
        as :class:`Measure` prints it); NaN where the library leaves the
        query out. ``.mean()`` gives the library's averages.

    Examples
    --------
    >>> import io
    >>> qrels = read_qrels(io.StringIO("q1 0 d1 1\\nq1 0 d2 0\\nq2 0 d9 1\\n"))
    >>> run = read_run(io.StringIO("q1 Q0 d1 1 1.0 s\\nq1 Q0 d2 2 1.0 s\\nq3 Q0 d1 1 5.0 s\\n"))
    >>> evaluate_run(qrels, run, ["P@1", "RR"])  # d2 before d1: ties go by docno, descending
         P@1   RR
    q1   0.0  0.5
    """
    library = conventions._library_key(convention)
    if "relevance" in qrels.columns:
        qrels = qrels.loc[
            qrels["relevance"] >= 0
        ]  # trec_eval: in the pool, unjudged (see the module's notes)
    given = [measures] if isinstance(measures, str | Measure) else measures  # one measure, not a list
    parsed = [m if isinstance(m, Measure) else parse_measure(m) for m in given]
    if not parsed:
        raise InvalidInputError("name at least one measure, e.g. ['AP', 'nDCG@10'].")
    if judged_only:
        return _judged_only(qrels, run, parsed, library, crash)
    whole = _whole_list(run, qrels)
    columns = {str(m): _one(m, run, qrels, library, m.k or whole, crash) for m in parsed}
    frame = pd.DataFrame(columns)
    frame.index = frame.index.astype(str)
    frame = frame.loc[frame.notna().any(axis=1)].sort_index()
    frame.index.name = None
    return frame


def _judged_only(
    qrels: pd.DataFrame, run: pd.DataFrame, measures: list[Measure], library: str, crash: str = "raise"
) -> pd.DataFrame:
    """:func:`evaluate_run` on the judged documents only; a query that loses all its documents scores 0 where
    the convention counts it with its full list (an empty list finds nothing), as trec_eval ``-J``."""
    judged = pd.MultiIndex.from_frame(qrels[["user", "item"]])
    kept = pd.MultiIndex.from_frame(run[["user", "item"]]).isin(judged)
    emptied = run.loc[~run["user"].isin(run.loc[kept, "user"])]
    frames = [evaluate_run(qrels, run.loc[kept], measures, library, crash=crash)]
    if len(emptied):
        counted = evaluate_run(qrels, emptied, measures, library, crash=crash)
        frames.append(counted.where(counted.isna(), 0.0))
    return pd.concat(frames).sort_index()


@validate_params({"per_query": Flag()})
def format_trec(values: pd.DataFrame, per_query: bool = False) -> str:
    """Write per-query values as trec_eval prints them: ``measure<TAB>query<TAB>value`` lines.

    Parameters
    ----------
    values : pandas.DataFrame
        One row per query, one column per measure, as :func:`evaluate_run`
        returns; NaN (a query the convention leaves out) is not printed and
        not averaged.
    per_query : bool
        False (default): one ``all`` line per measure, the mean over the
        queries it counts (0 when none counts). True: every query's line
        first, as trec_eval's ``-q``.

    Returns
    -------
    str
        The lines, four decimals, without a final newline.

    Examples
    --------
    >>> print(format_trec(pd.DataFrame({"AP": [0.5, 1.0]}, index=["q1", "q2"]), per_query=True))
    AP	q1	0.5000
    AP	q2	1.0000
    AP	all	0.7500
    """
    lines = []
    if per_query:
        for query, row in values.iterrows():
            lines += [f"{name}\t{query}\t{value:.4f}" for name, value in row.items() if not np.isnan(value)]
    for name in values.columns:
        column = values[name].dropna()
        mean = float(column.mean()) if len(column) else 0.0
        lines.append(f"{name}\tall\t{mean:.4f}")
    return "\n".join(lines)
