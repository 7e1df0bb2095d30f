"""The options every grading command shares: ``--assignment`` (a built-in assignment or an authored
spec) and the submissions (paths, and Canvas's downloads given with ``--canvas``).

Used by the grader (:mod:`helpers.grade.grader`) and the similarity report
(:mod:`helpers.grade.similarity`); it sits below both, so neither imports the other.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from . import authoring
from .assignments import ASSIGNMENTS
from .spec import Assignment

__all__ = ["add_assignment_option", "add_submission_arguments", "submission_paths", "resolve_assignment"]


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


def add_submission_arguments(parser: argparse.ArgumentParser) -> None:
    """The submissions: paths (notebooks, folders, zips, Gradescope's export) and ``--canvas``.

    Canvas's bulk download is named by the instructor (``--canvas``, as often as needed): its file
    names say who handed each file in, and anybody can type such a name, so a folder is never taken
    for Canvas's download by its contents (red team 39).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser; it gets ``submissions`` (zero or more paths) and ``--canvas``.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_submission_arguments(parser)
    >>> args = parser.parse_args(["late.ipynb", "--canvas", "submissions.zip"])
    >>> args.submissions, args.canvas
    (['late.ipynb'], ['submissions.zip'])
    """
    parser.add_argument(
        "--canvas",
        action="append",
        default=[],
        metavar="DOWNLOAD",
        help="Canvas's bulk download of submissions (its zip, or the folder it unpacks to): file names "
        "are read as Canvas writes them (user id, LATE); give it once per download",
    )
    parser.add_argument(
        "submissions",
        nargs="*",
        help="notebooks (.ipynb), folders of notebooks or of per-learner folders, zips, and "
        "Gradescope's export (zip or folder)",
    )


def submission_paths(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """A usage error (exit 2) when neither a path nor ``--canvas`` was given.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser.
    args : argparse.Namespace
        Its parsed arguments.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_submission_arguments(parser)
    >>> submission_paths(parser, parser.parse_args(["hw.ipynb"]))
    """
    if not args.submissions and not args.canvas:
        parser.error("give the submissions: notebooks, folders or zips, or Canvas's download with --canvas")


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
