"""Learner-controlled text made inert for each output the grader writes.

Anything a learner controls (a file name, an exception's or a class's name, an output, code, an
answer) is *data* in every output: it must never become a link, an image, an HTML tag, a
spreadsheet formula or a terminal control sequence. Every writer of learner text goes through one
of these functions:

- :func:`plain`: printable text; control characters, bidi overrides, zero-width and other
  invisible format characters, separators and lone surrogates are shown escaped (``\\x1b``,
  ``\\u202e``), so nothing reorders or hides what follows. Every other function starts here.
- :func:`md_code`: a Markdown code span that cannot be broken out of, whatever backticks the text
  holds (the fence is longer than any run of backticks inside); nothing in a code span is markup.
  This is how the Markdown outputs show learner text.
- :func:`md_text`: Markdown prose in which every character that can open or close markup is
  escaped (``[``, ``]``, ``(``, ``)``, ``!``, backtick, ``*``, ``_``, ``#``, ``|``, ``:``, ``@``, the dot
  of ``www.``) and ``<``, ``>``, ``&`` are character references: for the course's own text that may
  quote learner text (reasons, notes).
- :func:`html_text`: text for HTML (element content or a quoted attribute).
- :func:`csv_cell`: a spreadsheet cell that is never a formula (a leading ``= + - @``, tab or
  carriage return, after any spaces, is neutralised with a ``'``, as OWASP recommends).
- :func:`type_name`: an exception's or a value's type name as a learner may see it: built-in and
  NumPy names (and a fixed list of the standard library's) verbatim, anything else "an exception
  class from the notebook or a package" (a name is chosen by the learner's code, so it could carry
  anything, a hidden input included).
"""

from __future__ import annotations

import builtins
import html
import re
import unicodedata
from functools import cache
from typing import Any

__all__ = ["plain", "md_text", "md_code", "html_text", "csv_cell", "type_name", "exception_label"]

#: Unicode categories shown escaped: controls, format characters (bidi overrides and isolates,
#: zero-width characters), surrogates, private use, unassigned, line and paragraph separators.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
#: What ``md_text`` escapes: every character that opens or closes Markdown markup (links and images
#: ``[ ] ( ) !``, code and emphasis, headings, tables, autolinks ``: @`` and GitHub's ``www.``).
_MARKDOWN_PUNCTUATION = re.compile(r"[!\"#*+\-:<>@\[\\\]_`{|}~()=^$]|(?<=www)\.", re.IGNORECASE)
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
DEFINED_IN_NOTEBOOK = "an exception class from the notebook or a package"
CLASS_IN_NOTEBOOK = "a class from the notebook or a package"


def _escape_char(c: str) -> str:
    code = ord(c)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def plain(text: Any, limit: int = 2000) -> str:
    """Printable text: invisible and control characters shown escaped, cut to ``limit`` characters.

    Parameters
    ----------
    text : Any
        Learner-controlled text; anything else is shown through ``str``.
    limit : int
        Characters kept (before escaping); a longer text is cut and ends with an ellipsis.

    Returns
    -------
    str
        The text with every control, format, separator, surrogate, private-use and unassigned
        character written as its escape (``\\x1b``), so a terminal or a viewer shows it as it is.

    Examples
    --------
    >>> plain("ok\\x1b[31m\\u202eevil\\nnext")
    'ok\\\\x1b[31m\\\\u202eevil\\\\x0anext'
    >>> plain("x" * 10, limit=4)
    'xxxx…'
    """
    text = text if isinstance(text, str) else str(text)
    cut = len(text) > limit
    text = text[:limit]
    out = "".join(_escape_char(c) if unicodedata.category(c) in _HIDDEN_CATEGORIES else c for c in text)
    return out + ("…" if cut else "")


def md_text(text: Any, limit: int = 2000) -> str:
    """Markdown text that renders as the characters it holds and nothing else (no link, emphasis, HTML).

    Parameters
    ----------
    text : Any
        Learner-controlled text; anything else is shown through ``str``.
    limit : int
        Characters kept (before escaping); a longer text is cut and ends with an ellipsis.

    Returns
    -------
    str
        Markdown prose whose every markup character is backslash-escaped, and ``< > &`` character
        references.

    Examples
    --------
    >>> md_text("[x](javascript:alert(1)) <b>|")
    '\\\\[x\\\\]\\\\(javascript\\\\:alert\\\\(1\\\\)\\\\) &lt;b&gt;\\\\|'
    """
    text = plain(text, limit)
    escaped = "".join(_ENTITIES.get(c, c) for c in text.replace("&", "\0"))
    escaped = _MARKDOWN_PUNCTUATION.sub(lambda m: "\\" + m.group(), escaped)
    return escaped.replace("\0", "&amp;")


def md_code(text: Any, limit: int = 2000, *, in_table: bool = False) -> str:
    """A Markdown code span holding ``text`` verbatim (after :func:`plain`), which nothing can end early.

    The fence is one backtick longer than the longest run of backticks in the text, and a space
    pads each side (CommonMark strips exactly one), so a text starting or ending with a backtick
    stays inside. Line breaks are already escaped by :func:`plain`. In a table cell
    (``in_table=True``) a ``|`` is written ``\\|``, which GitHub-flavoured tables read as a pipe
    inside the cell, code spans included.

    Parameters
    ----------
    text : Any
        Learner-controlled text; anything else is shown through ``str``.
    limit : int
        Characters kept (before escaping); a longer text is cut and ends with an ellipsis.
    in_table : bool
        Escape ``|`` too, for a cell of a Markdown table.

    Returns
    -------
    str
        The code span, fences and padding included.

    Examples
    --------
    >>> md_code("a`b")
    '`` a`b ``'
    >>> md_code("``x")
    '``` ``x ```'
    >>> md_code("a|b", in_table=True)
    '` a\\\\|b `'
    """
    body = plain(text, limit)
    if in_table:
        body = body.replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * (longest + 1)
    return f"{fence} {body} {fence}"


def html_text(text: Any, limit: int = 2000) -> str:
    """Text for HTML element content or a quoted attribute value.

    Parameters
    ----------
    text : Any
        Learner-controlled text; anything else is shown through ``str``.
    limit : int
        Characters kept (before escaping); a longer text is cut and ends with an ellipsis.

    Returns
    -------
    str
        The text with ``< > & " '`` as character references.

    Examples
    --------
    >>> html_text('<img src=x onerror="alert(1)">')
    '&lt;img src=x onerror=&quot;alert(1)&quot;&gt;'
    """
    return html.escape(plain(text, limit), quote=True)


def csv_cell(text: Any, limit: int = 2000) -> str:
    """A spreadsheet cell that no spreadsheet evaluates: a formula's first character is neutralised.

    A cell whose first character other than spaces is ``= + - @`` (or that starts with a tab
    or carriage return) gets a leading ``'``; control characters are escaped by :func:`plain`.
    Numbers are written by the caller as numbers, never through this function.

    Parameters
    ----------
    text : Any
        Learner-controlled text; anything else is shown through ``str``.
    limit : int
        Characters kept (before escaping); a longer text is cut and ends with an ellipsis.

    Returns
    -------
    str
        The cell's text, with a leading ``'`` when a spreadsheet would read a formula.

    Examples
    --------
    >>> [csv_cell(x) for x in ("=1+1", "  @SUM(A1)", "-2", "ok", "a=b")]
    ["'=1+1", "'  @SUM(A1)", "'-2", 'ok', 'a=b']
    """
    raw = text if isinstance(text, str) else str(text)
    if raw[:1] in _FORMULA_START or raw.lstrip(" ")[:1] in _FORMULA_START:
        return "'" + plain(raw, limit)
    return plain(raw, limit)


def _unnamed_builtins() -> set[str]:
    """Built-in types with no name in :mod:`builtins` that a function returns by mistake (red team 28:
    a generator was "a class from the notebook or a package"): generators, views, iterators, functions."""
    empty: tuple = ()
    samples: list[Any] = [(x for x in empty), {}.keys(), {}.values(), {}.items(), iter([]), iter(empty)]
    samples += [iter(range(0)), iter({}), iter(set()), iter(""), len, _unnamed_builtins, None, ...]
    samples.append(NotImplemented)
    return {type(x).__name__ for x in samples}


def _standard_names() -> set[str]:
    """``module.qualname`` of the standard library's classes a learner's answer may be by mistake."""
    import collections
    import decimal
    import fractions
    import statistics

    kinds: list[type] = [collections.OrderedDict, collections.defaultdict, collections.Counter]
    kinds += [collections.deque, decimal.Decimal, fractions.Fraction, statistics.StatisticsError]
    return {f"{k.__module__}.{k.__qualname__}" for k in kinds}


@cache
def _known_names() -> frozenset[str]:
    """Names of the built-in types and of NumPy's public types and exceptions, bare and qualified."""
    import numpy as np

    names = {n for n, v in vars(builtins).items() if isinstance(v, type)} | _unnamed_builtins()
    qualified = {f"builtins.{n}" for n in names} | _standard_names()
    for space, prefix in ((np, "numpy"), (np.exceptions, "numpy.exceptions"), (np.linalg, "numpy.linalg")):
        found = {n for n, v in vars(space).items() if isinstance(v, type) and not n.startswith("_")}
        names |= found
        qualified |= {f"{prefix}.{n}" for n in found} | {f"numpy.{n}" for n in found}
    return frozenset(names | qualified)


def type_name(name: Any, *, exception: bool = False) -> str:
    """A type's name as a learner may see it: built-in or NumPy names verbatim, others replaced.

    ``name`` is a bare name (``KeyError``) or ``module.qualname`` (``builtins.set``,
    ``numpy.float64``, ``decimal.Decimal``); a name the learner's code chose (any other class)
    becomes "a class from the notebook or a package" (with ``exception=True``: "an exception class
    from the notebook or a package"). Red team 28: a generator or a ``Decimal`` was said to be "a
    class defined in the notebook", a class the learner never wrote.

    Parameters
    ----------
    name : Any
        The type's name as the sandbox reported it; anything but a string counts as a name the
        notebook chose.
    exception : bool
        Word the replacement for an exception class.

    Returns
    -------
    str
        The name itself when it is a built-in or NumPy type, otherwise the fixed phrase.

    Examples
    --------
    >>> type_name("KeyError"), type_name("numpy.float64"), type_name("numpy.linalg.LinAlgError")
    ('KeyError', 'numpy.float64', 'numpy.linalg.LinAlgError')
    >>> type_name("builtins.generator"), type_name("fractions.Fraction")
    ('builtins.generator', 'fractions.Fraction')
    >>> type_name("u3_i7_secret", exception=True)
    'an exception class from the notebook or a package'
    >>> type_name("__main__.F")
    'a class from the notebook or a package'
    """
    text = name if isinstance(name, str) else ""
    if text in _known_names():
        return text
    return DEFINED_IN_NOTEBOOK if exception else CLASS_IN_NOTEBOOK


def exception_label(error: Any) -> str:
    """The shown type of an error text ``"Type: message"`` (the message, which could echo inputs, dropped).

    Parameters
    ----------
    error : Any
        The error text as the sandbox reported it (``"Type: message"``).

    Returns
    -------
    str
        The type as :func:`type_name` shows it.

    Examples
    --------
    >>> exception_label("ZeroDivisionError: division by zero"), exception_label("Evil[x](y): 1")
    ('ZeroDivisionError', 'an exception class from the notebook or a package')
    """
    text = error if isinstance(error, str) else ""
    return type_name(text.split(":", 1)[0].strip(), exception=True)
