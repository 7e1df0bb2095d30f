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
    """``--assignment``: a built-in name or the path of an authored spec (written by ``author``).

    Shared by every command that grades, so each names an assignment the same way.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser; ``--assignment`` becomes a required option.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_assignment_option(parser)
    >>> parser.parse_args(["--assignment", "from-scratch"]).assignment
    'from-scratch'
    """
    parser.add_argument(
        "--assignment",
        required=True,
        help=f"a built-in assignment ({', '.join(sorted(ASSIGNMENTS))}) or the path of an authored "
        "spec (*.grader.py, written by `python -m helpers.grade author`)",
    )


def resolve_assignment(parser: argparse.ArgumentParser, value: str) -> Assignment:
    """The assignment named by ``--assignment``; a usage error (exit 2) with the fix otherwise.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser, whose ``error`` exits with the message and status 2.
    value : str
        A built-in assignment's name, or the path of a ``*.grader.py`` spec.

    Returns
    -------
    Assignment
        The built-in assignment or the loaded spec.

    Examples
    --------
    >>> import argparse
    >>> resolve_assignment(argparse.ArgumentParser(), "from-scratch").name
    'from-scratch'
    """
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
