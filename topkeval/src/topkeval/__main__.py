"""The command line: a drop-in trec_eval, with ir_measures' measure names beside trec_eval's.

    topkeval [-q] [-c] [-n] [-J] [-M n] [-l n] [-N n] [-m MEASURE ...] [--convention NAME] QRELS RUN
    python -m topkeval ...

With trec_eval's measure names (``-m map``, ``-m P.5,10``, ``-m ndcg_cut.10``,
``-m all_trec``), or without ``-m`` (trec_eval's ``official`` set), it prints
what trec_eval prints, line for line (:mod:`topkeval.treceval`). With
ir_measures' names (``-m P@5``, ``-m nDCG@10``, ``-m AP``) it prints
``measure<TAB>query<TAB>value`` lines in the same layout, under the
conventions of ``--convention`` (default trec_eval; :mod:`topkeval.trec`).
Both kinds may be mixed: trec_eval's lines come first.

Bad input (an unknown measure, an unreadable or empty file, a malformed
line) prints one line on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import re
import sys

_EPILOG = (
    "trec_eval's measures: map gm_map Rprec bpref gm_bpref recip_rank iprec_at_recall 11pt_avg P recall "
    "Rprec_mult map_cut ndcg ndcg_cut ndcg_rel Rndcg dcg ideal_dcg G binG success relative_P set_P "
    "set_relative_P set_recall set_map set_F infAP unj rbp rbp_resid utility relstring num_q num_ret num_rel "
    "num_rel_ret num_nonrel_judged_ret runid, with parameters after a dot (P.5,10 ndcg.1=3,2=9 "
    "iprec_at_recall..10,.5); nicknames official (the default), set, all_trec. ir_measures' names (any "
    "case; the other names of a metric work too, e.g. MRR, R-prec): "
)


def _parser() -> argparse.ArgumentParser:
    from . import _registry

    parser = argparse.ArgumentParser(
        prog="topkeval",
        description="Score a TREC run against qrels; prints what trec_eval prints.",
        epilog=_EPILOG + _registry.measure_notation() + ".",
    )
    parser.add_argument("qrels", help="qrels file: qid iter docno grade")
    parser.add_argument("run", help="run file: qid Q0 docno rank score runid (the rank column is not read)")
    parser.add_argument(
        "-m",
        "--measure",
        action="append",
        metavar="MEASURE",
        help="a measure or nickname (repeat for more; also space-separated); default official",
    )
    parser.add_argument(
        "-q", "--query_eval_wanted", action="store_true", help="also print every query's values"
    )
    parser.add_argument(
        "-c",
        "--complete_rel_info_wanted",
        action="store_true",
        help="average over every query of the qrels (a query the run lacks scores 0)",
    )
    parser.add_argument("-n", "--nosummary", action="store_true", help="no summary (all) lines")
    parser.add_argument(
        "-J",
        "--Judged_docs_only",
        action="store_true",
        help="drop the run's unjudged documents first (condensed lists)",
    )
    parser.add_argument(
        "-M",
        "--Max_retrieved_per_topic",
        type=int,
        metavar="N",
        help="score only each query's first N documents",
    )
    parser.add_argument(
        "-l",
        "--level_for_rel",
        type=int,
        default=1,
        metavar="N",
        help="the lowest grade that counts as relevant (default 1)",
    )
    parser.add_argument(
        "-N",
        "--Number_docs_in_coll",
        type=int,
        default=0,
        metavar="N",
        help="documents in the collection (for utility)",
    )
    parser.add_argument(
        "-R",
        "--Rel_info_format",
        default="qrels",
        metavar="FORMAT",
        help="qrels only (trec_eval's prefs and qrels_jg formats are not read)",
    )
    parser.add_argument(
        "-T", "--Results_format", default="trec_results", metavar="FORMAT", help="trec_results only"
    )
    parser.add_argument(
        "--recall-rounding",
        choices=("round", "trec_eval9"),
        default="round",
        help="iprec_at_recall and 11pt_avg: recall point x R rounded to the nearest whole document "
        "(trec_eval 10, default) or (long)(x * R + 0.9) as trec_eval 9 and pytrec_eval do",
    )
    parser.add_argument("-Z", "--Zscore", metavar="FILE", help="not supported (trec_eval's z-scores)")
    parser.add_argument(
        "--crash",
        choices=("raise", "skip"),
        default="raise",
        help="for ir_measures' names: a library that crashes on some queries (LensKit): stop or skip them",
    )
    parser.add_argument(
        "--convention",
        default="trec_eval",
        metavar="NAME",
        help="for ir_measures' names: whose conventions to follow; default trec_eval",
    )
    parser.add_argument("-v", "--version", action="store_true", help="print the version and exit")
    return parser


def _is_trec_eval_name(text: str, convention: str = "trec_eval") -> bool:
    """Whether ``text`` is trec_eval's name; under another convention, a name spelled as a registry metric's
    ``measure`` (ir_measures' ``Rprec``, which trec_eval shares) is ir_measures' name."""
    from . import _registry
    from .treceval import _BY_NAME, NICKNAMES, REFUSED

    if convention != "trec_eval":
        name = re.match(r"[A-Za-z_-]*", text.strip())
        if name and name.group() in {metric.measure_name for metric in _registry.METRICS.values()}:
            return False
    root = text.partition(".")[0]
    return root in _BY_NAME or root in NICKNAMES or root in REFUSED


def _trec_eval_lines(args, names: list[str]) -> list[str]:
    from . import treceval

    if args.convention != "trec_eval":
        from . import conventions

        conventions._library_key(args.convention)  # an unknown name is refused first
        raise ValueError(
            f"trec_eval's measure names ({' '.join(names)}) follow trec_eval's conventions; for "
            f"--convention {args.convention} name the measures as ir_measures does (P@5, AP, nDCG@10, ...)."
        )
    options = treceval.Options(
        per_query=args.query_eval_wanted,
        complete=args.complete_rel_info_wanted,
        max_docs=args.Max_retrieved_per_topic,
        level=args.level_for_rel,
        judged_only=args.Judged_docs_only,
        num_docs=args.Number_docs_in_coll,
        summary=not args.nosummary,
        recall_rounding=args.recall_rounding,
    )
    measures = treceval.parse_measures(names)
    return treceval.format_lines(treceval.evaluate(args.qrels, args.run, measures, options), options)


def _ir_measure(trec, text: str):
    """An ir_measures name; an unknown one is refused with trec_eval's names as well as ir_measures'."""
    from ._errors import InvalidInputError

    try:
        return trec.parse_measure(text)
    except InvalidInputError as err:
        from .treceval import unknown_measure

        raise InvalidInputError(f"{unknown_measure(text)} Or {err.args[0].split('; ', 1)[-1]}") from None


def _ir_measures_lines(args, names: list[str]) -> list[str]:
    from . import _trec_files, conventions, trec

    parsed = [_ir_measure(trec, m) for m in names]
    library = conventions._library_key(args.convention)
    for path, what in ((args.qrels, "qrels"), (args.run, "run")):
        _trec_files._read_bytes(path, what)  # an empty or unreadable file is an error naming it
    qrels, run = trec.read_qrels(args.qrels), trec.read_run(args.run)
    try:
        values = trec.evaluate_run(
            qrels, run, parsed, convention=library, judged_only=args.Judged_docs_only, crash=args.crash
        )
    except ValueError as err:  # the library's own words, with this command line's option
        raise ValueError(str(err).replace("pass crash='skip'", "pass --crash skip")) from None
    if library == "trec_eval" and any(m.metric == "err" for m in parsed):
        print(_GDEVAL_NOTE, file=sys.stderr)
    return trec.format_trec(values, per_query=args.query_eval_wanted).splitlines()


_GDEVAL_NOTE = (
    "topkeval: note: trec_eval has no ERR; ERR here is gdeval's (the TREC Web track's script): "
    "gain (2^g - 1) / 2^4, ties by docno descending, queries with a grade > 0."
)


def _supported_formats(args) -> None:
    if args.Rel_info_format != "qrels" or args.Results_format != "trec_results" or args.Zscore:
        raise ValueError(
            "topkeval reads trec_eval's qrels and trec_results formats only; -R prefs, -R qrels_prefs, "
            "-R qrels_jg, -T and -Z (z-scores) are trec_eval options it does not support."
        )


def _lines(args) -> list[str]:
    given = [m for each in (args.measure or []) for m in each.split()]
    trec_eval_names = [m for m in given if _is_trec_eval_name(m, args.convention)]
    ir_names = [m for m in given if not _is_trec_eval_name(m, args.convention)]
    lines = _trec_eval_lines(args, trec_eval_names) if trec_eval_names or not given else []
    return lines + (_ir_measures_lines(args, ir_names) if ir_names else [])


def _return_freed_memory() -> None:
    """Allocators that hand freed arrays back to the system at once, for a command's peak resident memory.

    A command (not the library, whose host process is the user's) frees arrays of every size one after
    another: glibc's malloc raises its mmap threshold after each large free and keeps later arrays in
    its heap, and pyarrow's default pool (mimalloc or jemalloc) keeps what it frees. On
    benchmarks/trec.py's 2,000-query files the peak was 440 MB without this, 383 MB with it (a fixed
    threshold of 128 KiB: 339 MB, but 0.25 s more CPU zeroing pages; 2 MiB keeps most of the saving).
    An explicit ``ARROW_DEFAULT_MEMORY_POOL`` is left as set.
    """
    import os

    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None).mallopt(-3, 2 * 2**20)  # M_MMAP_THRESHOLD, fixed: arrays above 2 MiB mmapped
        except (AttributeError, OSError):  # not glibc (musl): nothing to tune
            pass


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status (0, or 2 on bad input, with one line on stderr).

    Without ``argv`` (a command run from the shell: ``topkeval``, ``python -m topkeval``) the process's
    allocators are set to give freed memory back first (:func:`_return_freed_memory`).
    """
    if argv is None:
        _return_freed_memory()
    args = _parser().parse_args(argv)
    if args.version:
        from importlib.metadata import version

        print(f"topkeval {version('topkeval')}")
        return 0
    try:
        _supported_formats(args)
        lines = _lines(args)
    except (ValueError, TypeError, OSError) as err:  # topkeval's input errors, unreadable files
        print(f"topkeval: error: {err}", file=sys.stderr)
        return 2
    sys.stdout.write("".join(line + "\n" for line in lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
