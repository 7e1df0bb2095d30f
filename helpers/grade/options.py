"""The ``--assignment`` option every grading command shares: a built-in assignment or an authored spec.

Used by the grader (:mod:`helpers.grade.grader`) and the similarity report
(:mod:`helpers.grade.similarity`); it sits below both, so neither imports the other.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from . import authoring
from .assignments import ASSIGNMENTS
from .spec import Assignment

__all__ = ["add_assignment_option", "resolve_assignment"]


def add_assignment_option(parser: argparse.ArgumentParser) -> None:
    """``--assignment``: a built-in name or the path of an authored spec (written by ``author``)."""
    parser.add_argument(
        "--assignment",
        required=True,
        help=f"a built-in assignment ({', '.join(sorted(ASSIGNMENTS))}) or the path of an authored "
        "spec (*.grader.py, written by `python -m helpers.grade author`)",
    )


def resolve_assignment(parser: argparse.ArgumentParser, value: str) -> Assignment:
    """The assignment named by ``--assignment``; a usage error (exit 2) with the fix otherwise."""
    if value in ASSIGNMENTS:
        return ASSIGNMENTS[value]
    if not value.endswith(".py"):
        parser.error(
            f"unknown assignment {value!r}: choose from {', '.join(sorted(ASSIGNMENTS))} or give the path "
            "of an authored spec (*.grader.py)"
        )
    try:
        return authoring.load_spec(Path(value))
    except authoring.AuthoringError as exc:
        parser.error(str(exc))
    raise AssertionError("not reached")
