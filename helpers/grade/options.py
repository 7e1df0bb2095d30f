"""The options every grading command shares: ``--assignment`` (a built-in assignment or an authored
spec) and the submissions (plain paths, and the platforms' downloads: ``--canvas``, ``--gradescope``,
``--learner-folders``).

Used by the grader (:mod:`helpers.grade.grader`) and the similarity report
(:mod:`helpers.grade.similarity`); it sits below both, so neither imports the other.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from . import authoring
from .assignments import ASSIGNMENTS
from .collect import CANVAS, FOLDERS, GRADESCOPE
from .spec import Assignment

__all__ = [
    "add_assignment_option",
    "add_submission_arguments",
    "declared_sources",
    "submission_paths",
    "resolve_assignment",
]


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


#: the options that name a platform's download, and what each takes (``collect``'s source kinds)
DOWNLOAD_OPTIONS = {
    CANVAS: ("DOWNLOAD", "Canvas's bulk download of submissions (its zip, or the folder it unpacks to): "
             "file names are read as Canvas writes them (user id, LATE)"),
    GRADESCOPE: ("EXPORT", "Gradescope's Export Submissions (its zip or folder, with "
                 "submission_metadata.yml): submitters and times are read from it"),
    FOLDERS: ("FOLDER", "a folder (or zip) holding one folder per learner, each named by a roster id, "
              "login or canvas_id (nbgrader's or GitHub Classroom's layout)"),
}  # fmt: skip


def add_submission_arguments(parser: argparse.ArgumentParser) -> None:
    """The submissions: plain paths (notebooks, flat folders and zips of them) and the platforms'
    downloads, each named by its option (``--canvas``, ``--gradescope``, ``--learner-folders``).

    A platform's download says who handed each file in; anybody can give a file, a folder or a zip
    the shape of one, so only the instructor says which source is which (red teams 39, 40). Each
    option can be given as often as needed.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser; it gets ``submissions`` (zero or more paths) and the three options.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_submission_arguments(parser)
    >>> args = parser.parse_args(["late.ipynb", "--canvas", "submissions.zip"])
    >>> args.submissions, declared_sources(args)
    (['late.ipynb'], {'canvas': ['submissions.zip'], 'gradescope': [], 'learner-folders': []})
    """
    for kind, (metavar, text) in DOWNLOAD_OPTIONS.items():
        parser.add_argument(f"--{kind}", action="append", default=[], metavar=metavar, help=text)
    parser.add_argument(
        "submissions",
        nargs="*",
        help="notebooks (.ipynb), and flat folders and zips of notebooks (each known by its file name)",
    )


def declared_sources(args: argparse.Namespace) -> dict[str, list[str]]:
    """The paths given with each download option, by kind (see :func:`add_submission_arguments`).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments.

    Returns
    -------
    dict of str to list of str
        ``collect``'s source kind -> the paths given.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_submission_arguments(parser)
    >>> declared_sources(parser.parse_args(["--learner-folders", "classroom", "--gradescope", "gs.zip"]))
    {'canvas': [], 'gradescope': ['gs.zip'], 'learner-folders': ['classroom']}
    """
    return {kind: getattr(args, kind.replace("-", "_")) for kind in DOWNLOAD_OPTIONS}


def submission_paths(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """A usage error (exit 2) when no submission was given, neither a path nor a download.

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
    if not args.submissions and not any(declared_sources(args).values()):
        parser.error(
            "give the submissions: notebooks, folders or zips of notebooks, or a download with --canvas, "
            "--gradescope or --learner-folders"
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
