"""The command line: trec_eval's numbers for a TREC run, with ir_measures' measure names.

    topkeval [-m MEASURE ...] [-q] [-J] [--convention NAME] QRELS RUN
    python -m topkeval [-m MEASURE ...] [-q] [-J] [--convention NAME] QRELS RUN

Prints ``measure<TAB>query<TAB>value`` for every query with ``-q``, then one
``all`` line per measure (the mean over the queries the convention counts).
See :mod:`topkeval.trec` for the conventions.
"""

from __future__ import annotations

import argparse
import sys

from . import __version__, conventions, trec
from ._validation import InputTypeError

DEFAULT_MEASURES = ["P@10", "R@10", "AP", "nDCG@10", "RR"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="topkeval",
        description="Score a TREC run against qrels; output as trec_eval prints it.",
        epilog="Measures as in ir_measures (case-insensitive): P@k, R@k, Success@k, AP, AP@k, nDCG, "
        "nDCG@k, RR, RR@k, ERR@k, RBP(p=0.8)@k, Bpref. Conventions: "
        + ", ".join(conventions.LIBRARIES)
        + ".",
    )
    parser.add_argument("qrels", help="qrels file: qid iter docno relevance")
    parser.add_argument("run", help="run file: qid Q0 docno rank score tag (the rank column is not read)")
    parser.add_argument(
        "-m",
        "--measure",
        action="append",
        metavar="MEASURE",
        help=f"a measure (repeat for more; also space-separated); default {' '.join(DEFAULT_MEASURES)}",
    )
    parser.add_argument("-q", "--per-query", action="store_true", help="also print every query's value")
    parser.add_argument(
        "-J",
        "--judged-only",
        action="store_true",
        help="drop the run's unjudged documents first (condensed lists), as trec_eval -J",
    )
    parser.add_argument(
        "--convention",
        default="trec_eval",
        metavar="NAME",
        help="whose conventions to follow (ties, which queries count, variants); default trec_eval",
    )
    parser.add_argument("--version", action="version", version=f"topkeval {__version__}")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status (0, or 2 on bad input, with one line on stderr)."""
    args = _parser().parse_args(argv)
    measures = [m for given in (args.measure or DEFAULT_MEASURES) for m in given.split()]
    try:
        parsed = [trec.parse_measure(m) for m in measures]
        conventions._library_key(args.convention)
        qrels, run = trec.read_qrels(args.qrels), trec.read_run(args.run)
        values = trec.evaluate_run(
            qrels, run, parsed, convention=args.convention, judged_only=args.judged_only
        )
    except (ValueError, InputTypeError, OSError) as err:  # topkeval's input errors, unreadable files
        print(f"topkeval: error: {err}", file=sys.stderr)
        return 2
    print(trec.format_trec(values, per_query=args.per_query))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
