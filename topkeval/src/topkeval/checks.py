"""The argument checks topkeval's own functions use, for code built on topkeval (your own metrics and tools).

Each check returns the value in its plain form (a builtin ``int``, ``float`` or
``str``) or raises :class:`topkeval.InvalidInputError` (a ``ValueError``) or
:class:`topkeval.InputTypeError` (a ``TypeError``) with the message topkeval
itself gives: what was wrong, what was expected, the value received.

>>> from topkeval.checks import check_k, check_options
>>> check_k(5), check_options(discount="clipped_log2")
(5, {'discount': 'clipped_log2'})
"""

from __future__ import annotations

from typing import Any

from . import conventions
from ._validation import check_columns, check_int, check_k, check_ks, check_number, check_options

__all__ = [
    "check_k",
    "check_ks",
    "check_int",
    "check_number",
    "check_options",
    "check_columns",
    "check_library",
]


def check_library(library: Any) -> str:
    """The key of a library of :data:`topkeval.conventions.LIBRARIES`, from its key or any of its names.

    Parameters
    ----------
    library : str
        A library's key or alias, in any case, with ``-`` or ``_``.

    Returns
    -------
    str
        The library's key in :data:`topkeval.conventions.LIBRARIES`.

    Raises
    ------
    topkeval.InvalidInputError
        For a name no library has (the message lists the keys).
    topkeval.InputTypeError
        If ``library`` is not a str.

    Examples
    --------
    >>> from topkeval.checks import check_library
    >>> check_library("trec_eval")
    'trec_eval'
    """
    return conventions._library_key(library)
