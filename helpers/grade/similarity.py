"""Similar code across a class: ``python -m helpers.grade similarity``.

Nothing is executed: each notebook is read like the grader reads it (regular files only, magics
stripped, cells that do not parse skipped). The function each graded name is bound to at the end of
the notebook is found as a run top to bottom would bind it: ``def`` and assignments at every nesting
level of module-level code (inside ``if``, ``try``, ``with``, ``for``...), aliases (``f = _impl``),
lambdas, and ``globals()[name] = ...``, ``globals().update(...)``, ``setattr(sys.modules[...], ...)``
with constant names. Every other function defined anywhere in the notebook is kept too, so that how
a function is bound never hides it (below). A value question's answer variable is compared as the
module-level assignments its value depends on (:func:`answer_functions`), the code the course hands
out left out. A notebook that runs code no static reading can follow (:func:`unreadable`) is listed
as compared in part. Submissions are collected as the grader collects them
(:func:`helpers.grade.collect.collect`) and labelled by learner id or path (:func:`_labels`).

Each function is *normalised*: statements without effect dropped (docstrings and other constant or
call-free expressions, ``pass``, bare annotations, assignments to and ``del`` of names the function
never reads, a nested ``def``/``class``/import of a name never read that calls nothing when defined,
a name given its own value (``x = x``, ``x += 0``, ``x -= 0``, ``x *= 1``), code after
``return``/``raise``/``break``/``continue``; each ``if``/``while``/``for`` on a condition that is
constant (``if False``, ``while 0``, ``for _ in ()``, ``for _ in range(0)``) and each ``try`` whose
body is ``pass`` replaced by what runs), everyday variants of one meaning written one way (``x += y``
as ``x = x + y``, ``xs[0:k]`` as ``xs[:k]``, ``enumerate(xs, start=1)`` as ``enumerate(xs, 1)``, a
condition ``len(xs) == 0`` as ``not xs``: :class:`_Canon`), the function's own name, its arguments
and its local names renamed in order of first use (``v0``, ``v1``, ...), builtins, attributes and
constants kept. A condition that only looks constant is kept (``if k != k`` is true for a NaN).
Renaming variables, reformatting, rewording comments or padding with these no-ops therefore changes
nothing. The normalised code is a sequence of AST node tokens; two functions' similarity is
:class:`difflib.SequenceMatcher`'s ratio ``2M / (|A| + |B|)`` of their sequences (``M`` tokens
matched in order), and their :func:`containment` is ``L / min(|A|, |B|)`` for ``L`` the longest
common subsequence of their :func:`blind` sequences (every renamed local name one placeholder): how
much of the shorter one the longer holds in order, whatever was inserted between its statements (red
team 15), and whatever names the insertions bring in (a name padded in early renumbers every later
one: which variable is which must not decide it). Their :func:`aligned` score is the same with
tokens matched only within statements matched one to one (a compound statement's header is one
statement): a wrapper or an insertion costs nothing, an edit costs the tokens it changes, and
unrelated code, whose common tokens lie scattered over many statements, scores far lower than by
containment (red team 17).

Two bodies of code (two submissions, or a submission and a reference) are reported when

- the mean over the graded functions both define (weighted by length) reaches ``threshold``; or
- functions are near-verbatim copies, whatever their names, each function matched to its most
  similar one on the other side: by ratio (:data:`COPY_SCORE`), or, for a function of at least
  :data:`CONTAIN_TOKENS` tokens, held whole in the other (containment :data:`CONTAIN_SCORE`:
  padding around a copy's statements cannot dilute it; shorter formulas written alike are contained
  by chance), or, for functions of :data:`ALIGN_TOKENS` or more, held statement by statement
  (:func:`aligned` :data:`ALIGN_SCORE`: a padded or wrapped copy edited in a few tokens);
  containment and alignment only between functions of proportionate length (:data:`BULK`, a
  wrapper's header not counted: a function holding a pool of solutions holds none of them); one of
  at least :data:`COPY_TOKENS`
  tokens, copies of at least :data:`COPY_TOTAL` tokens in all, or copies that make up ``threshold``
  of one side's graded code; or
- the graded functions both define are held statement by statement as a whole (:data:`ALIGN_WHOLE`
  of at least :data:`COPY_TOTAL` tokens, :func:`_aligned_whole`): a copy of every function, each
  wrapped and edited here and there, whose functions are each too short for containment.

The report lists which functions match and by which measure (``f = g 0.97``, ``f = g contained:
1.00``, ``f = g aligned: 0.97``, ``graded code aligned: 0.98``). The fingerprint filter lets a pair
through on any measure (:func:`_worth_comparing`).

Functions shorter than ``min_tokens`` (a one-line formula everybody writes alike) and unchanged
stubs are left out. The references are the course's own code: the solution notebook of a built-in
assignment (or the solutions in an authored spec), the library's implementation of the same function,
and every function of the course package learners can read (``helpers/course``). A high score is a
reason to look, not proof: short exercises have few natural solutions.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import dataclasses
import difflib
import functools
import inspect
import itertools
import json
import sys
import tempfile
import time
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from . import collect
from .files import NotebookError, display_name, read_notebook, read_submission, write_atomic
from .inert import md_code, md_text
from .options import (
    add_assignment_option,
    add_submission_arguments,
    declared_sources,
    resolve_assignment,
    submission_paths,
)
from .prepare import prepare_notebook
from .reports import Roster, RosterError, display_names
from .sandbox import Limits

__all__ = [
    "normalise",
    "function_tokens",
    "blind",
    "containment",
    "aligned",
    "similarity",
    "compare_class",
    "reference_code",
    "Answers",
    "answers",
    "answer_functions",
    "unreadable",
    "main",
]

_BUILTINS = set(dir(builtins))
REPO = Path(__file__).resolve().parents[2]
#: Bounds that keep one hostile notebook from exhausting the class's run (issue 33).
MAX_TOKENS = 60_000  # AST tokens of one notebook's graded functions together; more: not compared
EXACT_TOKENS = 2_000  # SequenceMatcher (cost ~ product of lengths) only when both are at most this long
KGRAM, WINDOW = 4, 4  # fingerprints: hashes of 4-token k-grams, winnowed over windows of 4
PREFILTER = 0.5  # a pair goes to the exact comparison when its fingerprint score >= PREFILTER * threshold
TIME_BUDGET = 120.0  # seconds of exact comparisons; later pairs keep their fingerprint estimate
COPY_SCORE = 0.95  # a function this similar to one on the other side is a near-verbatim copy
#: one copied function this long is reported on its own; shorter ones count together (COPY_TOTAL). Red
#: team 31: at 60, an honest textbook average precision (85 tokens) written with a guard clause was a
#: 'copy' of the course's, as red team 18's was 'aligned' (the same floor as ALIGN_TOKENS)
COPY_TOKENS = 160
COPY_TOTAL = 200  # copied functions this long together are reported
# a function found this whole, in order, names aside, in one on the other side is a copy... (a copy
# padded by insertions scores 1.0; among the repository's own 1,331 functions of 80 to 2,000 tokens,
# two neither nested in nor copied from the other reach 0.98 (a 98-token test held in a 502-token
# browser driver), 0.969 and 0.959: by chance, the longer being 4 to 6 times as long)
CONTAIN_SCORE = 0.99
CONTAIN_TOKENS = 80  # ... when it is this long (a 60-token formula written alike is contained by chance)
# ... or held statement by statement (:func:`aligned`) at ALIGN_SCORE when both have ALIGN_TOKENS or
# more. Measured at stop 42 on the repository's 669 functions of 160 to 2,000 tokens, across files:
# only code adapted from other code (red-team tests of one template, the authored leave-one-out
# example and its original) reaches 0.95; unrelated code stays under 0.88 (by token containment the
# same pairs reach 0.98). Shorter functions are not judged alone this way: an honest average
# precision of 83 tokens, the natural loop with the exercise's guard, is 0.977 aligned with the
# solution's (red team 18): a formula that short leaves too little freedom for a 5% tolerance.
ALIGN_SCORE = 0.95
ALIGN_TOKENS = 160
# the graded functions two sides both define, held this much statement by statement as a whole
# (weighted by their tokens, at least COPY_TOTAL of them): a copy of every function, wrapped and edited
# here and there (red team 17: 0.98 to 1.0). Seven honest notebooks of the tests (two of
# test_similarity, three of red team 18, the corpus's, the stub) reach 0.89 with each other and 0.86
# with the solution.
ALIGN_WHOLE = 0.97
# containment and alignment divide by the shorter side: a longer function holding many solutions
# would hold any honest one (red team 18's "monster" paired honest classmates). Both count only when
# the longer side's tokens, a wrapper's header (a block of one statement) left out, are at most BULK
# times the shorter side's: a wrapped copy is 1, a padded one about 1.5, a pool of 4 solutions 3.
BULK = 3.0
ALIGN_CELLS = 100_000  # statements times statements: :func:`aligned` only within (~0.4 s); beyond, not used
COURSE = REPO / "helpers" / "course"  # the course package's code, which learners can read


class _Renamer(ast.NodeTransformer):
    """Rename every non-builtin name and argument in order of first appearance."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def _new(self, name: str) -> str:
        if name in _BUILTINS:
            return name
        return self.names.setdefault(name, f"v{len(self.names)}")

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.name = self._new(node.name)
        body = node.body
        first = body[0].value if body and isinstance(body[0], ast.Expr) else None
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            node.body = body[1:] or [ast.Pass()]
        node.decorator_list = []
        node.returns = None
        self.generic_visit(node)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.arg = self._new(node.arg)
        node.annotation = None
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        node.id = self._new(node.id)
        return node


_ENDS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
_EFFECTS = (ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)


class _Pruner(ast.NodeTransformer):
    """Drop the statements of a function that have no effect (see the module's docstring)."""

    def __init__(self, unread: set[str]) -> None:
        self.unread = unread
        self.removed = 0

    def _dead(self, node: ast.stmt) -> bool:
        if isinstance(node, ast.Pass) or (isinstance(node, ast.AnnAssign) and node.value is None):
            return True  # a bare annotation (``k: int``) is never evaluated in a function
        if isinstance(node, (ast.Expr, ast.If)):
            return _empty_branch(node)
        if isinstance(node, _DEFINITIONS):
            return _unused_definition(node, self.unread)
        return _identity(node) or self._unread_binding(node)

    def _unread_binding(self, node: ast.stmt) -> bool:
        """An assignment to, or a ``del`` of, names nothing reads."""
        if isinstance(node, (ast.Assign, ast.Delete)):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        else:
            return False
        return all(isinstance(t, ast.Name) and t.id in self.unread for t in targets)

    def _body(self, body: list[ast.stmt]) -> list[ast.stmt]:
        kept: list[ast.stmt] = []
        for node in _unfolded(body):
            if not self._dead(node):
                kept.append(node)
            if isinstance(node, _ENDS):
                break
        if [id(n) for n in kept] != [id(n) for n in body]:  # dropped or unfolded: look again
            self.removed += 1
        return kept

    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        for name in ("body", "orelse", "finalbody"):
            body = getattr(node, name, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                setattr(node, name, self._body(body) or ([ast.Pass()] if name == "body" else []))
        return node


_UNITS = {ast.Add: 0, ast.Sub: 0, ast.Mult: 1}  # ``x += 0``, ``x -= 0``, ``x *= 1``


def _identity(node: ast.stmt) -> bool:
    """Whether ``node`` gives a name its own value: ``x = x`` (``x = y = x`` is not), ``x += 0``,
    ``x -= 0`` or ``x *= 1`` with an ``int`` constant (``x += 0.0`` makes an ``int`` a ``float``).

    Examples
    --------
    >>> [_identity(ast.parse(s).body[0]) for s in ("k = k", "k += 0", "k *= 1", "k = j", "k += 0.0")]
    [True, True, True, False, False]
    """
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name):
        return all(isinstance(t, ast.Name) and t.id == node.value.id for t in node.targets)
    if not (isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name)):
        return False
    value = node.value.value if isinstance(node.value, ast.Constant) else None
    return type(value) is int and _UNITS.get(type(node.op)) == value


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)


def _defined(node: ast.AST) -> list[str]:
    """The names a ``def``, ``class`` or import binds (``import a.b`` binds ``a``)."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in node.names]
    return [node.name] if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else []


def _unused_definition(node: ast.stmt, unread: set[str]) -> bool:
    """Whether a nested ``def``, ``class`` or import binds only names nothing reads, and defining it
    calls nothing (:func:`_inert`). An import's only effect is to run the module the first time: the
    notebook's own imports have done that."""
    names = _defined(node)
    return bool(names) and all(n in unread for n in names) and _inert(node)


def _inert(node: ast.stmt) -> bool:
    """Whether running a ``def`` or ``class`` statement calls nothing: no decorator, no call in the
    defaults and annotations; a class without bases or keywords (``__init_subclass__``, a metaclass)
    whose body only defines such functions and assigns names values without a call."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return True
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or node.decorator_list:
        return False
    if not isinstance(node, ast.ClassDef):
        return _no_effect(node.args) and (node.returns is None or _no_effect(node.returns))
    return not node.bases and not node.keywords and all(map(_inert_member, node.body))


def _inert_member(node: ast.stmt) -> bool:
    """A statement of a class body that calls nothing and changes nothing outside the class."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return _inert(node)
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return all(isinstance(t, ast.Name) for t in targets) and _no_effect(node)
    return isinstance(node, ast.Pass) or (isinstance(node, ast.Expr) and _no_effect(node))


def _empty_branch(node: ast.Expr | ast.If) -> bool:
    """Whether an expression statement, or an ``if`` whose only statement is ``pass``, does nothing."""
    if isinstance(node, ast.Expr):
        return _no_effect(node.value)
    empty = not node.orelse and all(isinstance(x, ast.Pass) for x in node.body)
    return empty and _no_effect(node.test)  # ``if k: pass``


def _no_effect(node: ast.AST) -> bool:
    """Whether evaluating ``node`` calls nothing (no call, ``await``, ``yield`` or ``:=``)."""
    return not any(isinstance(n, _EFFECTS) for n in ast.walk(node))


def _unfolded(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """``body`` with each ``if``, ``while`` and ``for`` whose condition is a constant replaced by the
    statements that run (``if False: ...`` by its ``else``, ``if True: ...`` by its body, ``while
    False`` and ``for _ in ()`` by their ``else``): red team 14 hid a copy behind a dead ``if
    False:`` before every statement."""
    for node in body:
        if isinstance(node, (ast.Try, ast.TryStar)) and all(isinstance(x, ast.Pass) for x in node.body):
            yield from _unfolded([*node.orelse, *node.finalbody])  # no handler runs after a ``pass``
            continue
        truth = _constant_branch(node)
        if truth is None or (truth and not isinstance(node, ast.If)):
            yield node
        else:
            assert isinstance(node, (ast.If, ast.While, ast.For))
            yield from _unfolded(node.body if truth else node.orelse)


def _constant_branch(node: ast.stmt) -> bool | None:
    """For an ``if`` or ``while`` on a constant condition, or a ``for`` over a literal, whether
    its body runs; ``None`` for any other statement."""
    if isinstance(node, (ast.If, ast.While)):
        return _truth(node.test)
    if isinstance(node, ast.For) and isinstance(node.iter, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
        return _truth(node.iter)
    return _range_truth(node.iter) if isinstance(node, ast.For) else None


def _range_truth(node: ast.expr) -> bool | None:
    """Whether ``range(...)`` of integer constants (``range(0)``, ``range(-3)``, ``range(5, 2)``) is
    not empty; ``None`` for any other iterable.

    Examples
    --------
    >>> calls = ("range(0)", "range(-2)", "range(2, 9)", "range(k)")
    >>> [_range_truth(ast.parse(s).body[0].value) for s in calls]
    [False, False, True, None]
    """
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"):
        return None
    bounds = [_int_constant(x) for x in node.args]
    if node.keywords or not 1 <= len(bounds) <= 3 or None in bounds:
        return None
    try:
        return bool(range(*bounds))  # type: ignore[arg-type]
    except ValueError:  # a step of 0
        return None


def _int_constant(node: ast.expr) -> int | None:
    """The value of an ``int`` constant, signed (``-3`` is a unary minus of ``3``), else ``None``."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign, node = (-1 if isinstance(node.op, ast.USub) else 1), node.operand
    value = node.value if isinstance(node, ast.Constant) else None
    return sign * value if type(value) is int else None


_ORDER = {
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
    ast.Is: lambda a, b: a is b,
    ast.IsNot: lambda a, b: a is not b,
}


def _truth(node: ast.expr) -> bool | None:
    """Whether ``node`` is true whatever the program's state, without calling anything; ``None``
    when that depends on the run (a name, a call) or is not plain (a comparison of non-constants)."""
    if isinstance(node, ast.Constant):
        return bool(node.value)
    if not _no_effect(node):
        return None
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts)
    if isinstance(node, ast.Dict):
        return bool(node.keys)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _truth(node.operand)
        return None if inner is None else not inner
    if isinstance(node, ast.BoolOp):
        return _bool_op_truth(node)
    if isinstance(node, ast.Compare):
        return _compare_truth(node)
    return None


def _bool_op_truth(node: ast.BoolOp) -> bool | None:
    decisive = isinstance(node.op, ast.Or)  # one true operand decides ``or``, one false one ``and``
    values = [_truth(v) for v in node.values]
    if decisive in values:
        return decisive
    return None if None in values else not decisive


def _compare_truth(node: ast.Compare) -> bool | None:
    operands = [node.left, *node.comparators]
    if not all(isinstance(x, ast.Constant) for x in operands):
        return None
    values = [x.value for x in operands]  # type: ignore[attr-defined]
    try:
        return all(_ORDER[type(op)](a, b) for op, a, b in zip(node.ops, values, values[1:], strict=False))
    except (KeyError, TypeError):  # ``in``, or an order between a str and a number
        return None


def _unread(function: ast.AST) -> set[str]:
    """Names the function binds (assignments, ``def``, ``class``, imports) and never reads: ``del``
    is no read, ``global``/``nonlocal`` names are read elsewhere.

    Examples
    --------
    >>> sorted(_unread(ast.parse("def f(k):\\n    _t = 0\\n    del _t\\n    def _u():\\n        return k")))
    ['_t', '_u', 'f']
    """
    stored: set[str] = set()
    read: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Del):
            (read if isinstance(node.ctx, ast.Load) else stored).add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            read.update(node.names)
        else:
            stored.update(_defined(node))
    return stored - read


def _clone(node: Any) -> Any:
    """A copy of a syntax tree's nodes and lists (without positions), many times faster than
    :func:`copy.deepcopy`, which dominated the run's time."""
    if isinstance(node, list):
        return [_clone(x) for x in node]
    if not isinstance(node, ast.AST):
        return node
    new = node.__class__.__new__(node.__class__)
    for name in node._fields:
        setattr(new, name, _clone(getattr(node, name, None)))
    return new


def _pruned(function: ast.FunctionDef) -> ast.FunctionDef:
    """A copy of ``function`` without its statements of no effect (until nothing more goes)."""
    tree = _clone(function)
    for _ in range(3):  # a removed assignment may leave another name unread
        pruner = _Pruner(_unread(tree))
        tree = pruner.visit(tree)
        if not pruner.removed:
            break
    return tree


_KEYWORDS = {"enumerate": "start", "sum": "start", "round": "ndigits"}  # a builtin's second parameter


class _Canon(ast.NodeTransformer):
    """Write each meaning-preserving variant of a few everyday forms one way (red team 18: such
    rewrites together hid a copy): ``x += y`` as ``x = x + y``; ``xs[0:k]`` and ``xs[:k:1]`` as
    ``xs[:k]``; ``enumerate(xs, start=1)`` as ``enumerate(xs, 1)`` (and ``sum``'s ``start``,
    ``round``'s ``ndigits``); a condition ``len(xs) == 0`` as ``not xs`` and ``len(xs) > 0`` as
    ``xs``; red team 29's guard clause ``if c: continue`` in a loop as ``if not c:`` around the rest,
    ``a if not c else b`` as ``b if c else a`` (``if``/``else``, ``not in`` and ``is not`` too) and
    ``len([x for ...])`` as ``sum(1 for ...)``. *Decision:* constants and messages are kept as
    written (``0`` is not ``0.0``, an error message is the learner's own words): they tell honest
    work that converges on the solution's formula from a copy (red team 18's honest average
    precision is the solution's but for them), and changing them costs a copier one token each. So
    are ``a, b = 0, 0.0`` and a temporary before ``return``: folding them made the corpus's honest
    average precision the course's own, token for token."""

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        self.generic_visit(node)
        read = _clone(node.target)
        if hasattr(read, "ctx"):
            read.ctx = ast.Load()
        return ast.Assign(
            targets=[node.target], value=ast.BinOp(read, node.op, node.value), type_comment=None
        )

    def visit_Slice(self, node: ast.Slice) -> ast.AST:
        self.generic_visit(node)
        if node.lower is not None and _int_constant(node.lower) == 0:
            node.lower = None
        if node.step is not None and _int_constant(node.step) == 1:
            node.step = None
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        name = node.func.id if isinstance(node.func, ast.Name) else None
        if len(node.args) == 1 and [k.arg for k in node.keywords] == [_KEYWORDS.get(name or "")]:
            node.args, node.keywords = [*node.args, node.keywords[0].value], []
        contained = _contains_call(node)
        if contained is not None:
            return contained
        if name == "len" and len(node.args) == 1 and isinstance(node.args[0], ast.ListComp):
            counted = ast.GeneratorExp(elt=ast.Constant(1), generators=node.args[0].generators)
            return ast.Call(func=ast.Name("sum", ast.Load()), args=[counted], keywords=[])
        return node

    def _test(self, node: ast.If | ast.While | ast.IfExp | ast.Assert) -> ast.AST:
        self.generic_visit(node)
        node.test = _truthiness(node.test)
        return node

    visit_Assert = _test

    def visit_If(self, node: ast.If) -> ast.AST:
        self._test(node)
        return _positive_first(node) if node.orelse else node

    visit_IfExp = visit_If  # type: ignore[assignment]  # the same fields: test, body, orelse

    def visit_While(self, node: ast.While) -> ast.AST:
        self._test(node)
        node.body = _unguarded(node.body)
        return node

    def visit_For(self, node: ast.For) -> ast.AST:
        self.generic_visit(node)
        node.body = _unguarded(node.body)
        return node


def _contains_call(node: ast.Call) -> ast.Compare | None:
    """``contains(a, x)``, ``operator.contains(a, x)`` and ``a.__contains__(x)`` as ``x in a`` (red
    team 37: with ``float()`` around each return, they hid a whole copy); ``None`` otherwise."""
    func, args = node.func, node.args
    if node.keywords:
        return None
    named = isinstance(func, ast.Name) and func.id == "contains"
    dotted = isinstance(func, ast.Attribute) and func.attr == "contains" and _named(func.value, "operator")
    if (named or dotted) and len(args) == 2:
        return ast.Compare(left=args[1], ops=[ast.In()], comparators=[args[0]])
    if isinstance(func, ast.Attribute) and func.attr == "__contains__" and len(args) == 1:
        return ast.Compare(left=args[0], ops=[ast.In()], comparators=[func.value])
    return None


def _named(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


_FLIPPED: dict[type, type] = {ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}


def _negated(test: ast.expr) -> ast.expr:
    """``not test``, with ``not (a in b)`` as ``a not in b`` (and ``is``): the same truth always."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _FLIPPED:
        return ast.Compare(left=test.left, ops=[_FLIPPED[type(test.ops[0])]()], comparators=test.comparators)
    return _truthiness(ast.UnaryOp(ast.Not(), test))


def _positive_first(node: ast.If | ast.IfExp) -> ast.AST:
    """An ``if``/``else`` whose test is negated (``not c``, ``a not in b``, ``a is not b``) written
    with the positive test and its branches swapped (red team 29: ``0.0 if not c else 1.0``)."""
    negative = isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not)
    if isinstance(node.test, ast.Compare) and len(node.test.ops) == 1:
        negative = isinstance(node.test.ops[0], (ast.NotIn, ast.IsNot))
    if negative:
        node.test, node.body, node.orelse = _negated(node.test), node.orelse, node.body
    return node


def _unguarded(body: list[ast.stmt]) -> list[ast.stmt]:
    """A loop body's guard ``if c: continue`` before the rest written as ``if not c: <rest>`` (red
    team 29: three loops rewritten that way hid a copy); the same run of every iteration."""
    for i, stmt in enumerate(body[:-1]):
        guard = isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1
        if guard and isinstance(stmt.body[0], ast.Continue):  # type: ignore[attr-defined]
            rest = _unguarded(body[i + 1 :])
            return [*body[:i], ast.If(test=_negated(stmt.test), body=rest, orelse=[])]  # type: ignore[attr-defined]
    return body


_EMPTY = {ast.Eq: 0, ast.LtE: 0, ast.Lt: 1}  # ``len(xs) == 0``, ``<= 0``, ``< 1``: empty
_FULL = {ast.NotEq: 0, ast.Gt: 0, ast.GtE: 1}  # ``len(xs) != 0``, ``> 0``, ``>= 1``: not empty


def _truthiness(test: ast.expr) -> ast.expr:
    """A condition on a length written as one on the sized object: ``len(xs) == 0`` as ``not xs``,
    ``len(xs) > 0`` and ``len(xs)`` as ``xs`` (the same truth for every sized object).

    Examples
    --------
    >>> [ast.unparse(_truthiness(ast.parse(s).body[0].value)) for s in ("len(r) == 0", "len(r) >= 1", "r")]
    ['not r', 'r', 'r']
    """
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _truthiness(test.operand)
        double = isinstance(inner, ast.UnaryOp) and isinstance(inner.op, ast.Not)
        return inner.operand if double else ast.UnaryOp(ast.Not(), inner)  # type: ignore[attr-defined]
    sized = _len_argument(test)
    if sized is not None:
        return sized
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return test
    sized, bound = _len_argument(test.left), _int_constant(test.comparators[0])
    if sized is None or bound is None:
        return test
    if _EMPTY.get(type(test.ops[0])) == bound:
        return ast.UnaryOp(ast.Not(), sized)
    return sized if _FULL.get(type(test.ops[0])) == bound else test


def _len_argument(node: ast.expr) -> ast.expr | None:
    """``xs`` of ``len(xs)``, else ``None``."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len"):
        return None
    return node.args[0] if len(node.args) == 1 and not node.keywords else None


def _canonical(function: ast.FunctionDef) -> ast.FunctionDef:
    """:func:`_pruned`, then :class:`_Canon`'s forms."""
    return _Canon().visit(_pruned(function))


def normalise(function: ast.FunctionDef) -> str:
    """The normalised source of a function (names renamed, docstring and annotations dropped).

    Parameters
    ----------
    function : ast.FunctionDef
        A function of a submission (not changed).

    Returns
    -------
    str
        Its source with every local name renamed in order of appearance, so renaming variables
        does not hide a copy.

    Examples
    --------
    >>> a = ast.parse("def f(xs, k):\\n    '''doc'''\\n    top = xs[:k]\\n    return len(top) / k").body[0]
    >>> b = ast.parse("def g(items, n):\\n    head = items[:n]  # first n\\n    return len(head) / n").body[0]
    >>> normalise(a) == normalise(b)
    True
    >>> print(normalise(a))
    def v0(v1, v2):
        v3 = v1[:v2]
        return len(v3) / v2
    >>> padded = "def h(xs, k):\\n    pass\\n    _t = None\\n    top = xs[:k]\\n"
    >>> padded += "    return len(top) / k\\n    0"
    >>> c = ast.parse(padded).body[0]
    >>> normalise(c) == normalise(a)
    True
    """
    tree = _Renamer().visit(_canonical(function))
    return ast.unparse(ast.fix_missing_locations(tree))


class Tokens(list):
    """A function's tokens in walk order (breadth first, what the ratio compares), with the same
    tokens in pre-order (:attr:`preorder`, depth first, what containment compares) and its
    statements' :func:`blind` tokens one statement at a time (:attr:`units`, what :func:`aligned`
    compares)."""

    preorder: list[str]
    units: list[tuple[str, ...]]
    bulk: int  # its tokens but its wrappers' (:func:`_bulk`, :func:`_proportionate`)


def _token(node: ast.AST) -> str:
    token = type(node).__name__
    if isinstance(node, ast.Name):
        token += f":{node.id}"
    elif isinstance(node, ast.Constant):
        token += f":{node.value!r}"[:40]
    elif isinstance(node, ast.Attribute):
        token += f":{node.attr}"
    return token


def _preorder(tree: ast.AST) -> list[str]:
    out, stack = [], [tree]
    while stack:
        node = stack.pop()
        out.append(_token(node))
        stack.extend(reversed(list(ast.iter_child_nodes(node))))
    return out


_BLOCKS = ("body", "orelse", "handlers", "finalbody", "cases")  # the fields that hold statements


def _units(node: ast.AST, out: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """``node``'s statements as units, in order: a simple statement is one unit; a compound one's
    header (its kind and expressions: an ``if``'s test, a ``for``'s target and iterable, a
    ``def``'s arguments) is one, then its blocks' statements follow, however deeply nested."""
    blocks = _blocks(node)
    out.append(tuple(blind(_header(node) if blocks else _preorder(node))))
    for child in itertools.chain.from_iterable(blocks):
        _units(child, out)
    return out


def _blocks(node: ast.AST) -> list[list[ast.AST]]:
    """The blocks of statements of a compound statement (none for a simple one)."""
    return [b for f in _BLOCKS if isinstance(b := getattr(node, f, None), list)]


def _header(node: ast.AST) -> list[str]:
    """A compound statement's kind and the tokens of its expressions, without its blocks."""
    fields = [v for k, v in ast.iter_fields(node) if k not in _BLOCKS and k != "decorator_list"]
    values = itertools.chain.from_iterable(v if isinstance(v, list) else [v] for v in fields)
    return [type(node).__name__, *(t for v in values if isinstance(v, ast.AST) for t in _preorder(v))]


def function_tokens(function: ast.FunctionDef) -> Tokens:
    """The normalised function as a sequence of node tokens (node type, plus name/constant/attribute).

    Parameters
    ----------
    function : ast.FunctionDef
        A function of a submission.

    Returns
    -------
    Tokens
        The tokens of :func:`normalise`'s tree in walk order (breadth first), and in pre-order as
        ``.preorder``: there each statement's tokens stay together, so statements inserted between
        others, or a block wrapped around each (red team 16: ``if k == k:``), leave a copy's tokens
        in order (:func:`containment`).

    Examples
    --------
    >>> tokens = function_tokens(ast.parse("def f(x):\\n    return x.y + 1").body[0])
    >>> tokens[:4], tokens.preorder[:4]
    (['Module', 'FunctionDef', 'arguments', 'Return'], ['Module', 'FunctionDef', 'arguments', 'arg'])
    """
    tree = _Renamer().visit(_canonical(function))
    # the tokens of the normalised source parsed as a module, without printing it
    out = Tokens(["Module", *(_token(node) for node in ast.walk(tree))])
    out.preorder = ["Module", *_preorder(tree)]
    out.units = _units(tree, [])
    out.bulk = sum(_bulk(n) for n in ast.walk(tree) if isinstance(n, ast.stmt))
    return out


def _bulk(statement: ast.stmt) -> int:
    """The tokens a statement adds to its function's :attr:`Tokens.bulk`: all of a simple one's,
    a compound one's header, but nothing for the header of a block of one statement (a wrapper, at
    any depth, adds no bulk: red team 16's ``if k == k:`` around each statement)."""
    blocks = _blocks(statement)
    if not blocks:
        return len(_preorder(statement))
    return 0 if sum(map(len, blocks)) == 1 else len(_header(statement))


def _proportionate(x: list[str], y: list[str]) -> bool:
    """Whether the longer of two functions' statements (``bulk``, or its length for plain tokens)
    are at most :data:`BULK` times the shorter's tokens: only then do containment and alignment,
    which divide by the shorter, count."""
    shorter, longer = sorted((x, y), key=len)
    return getattr(longer, "bulk", len(longer)) <= BULK * len(shorter)


def _matched(a: list[str], b: list[str]) -> int:
    """How many tokens of ``a`` and ``b`` difflib's matching blocks pair, in order."""
    blocks = difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks()
    return sum(block.size for block in blocks)


def blind(tokens: list[str]) -> list[str]:
    """``tokens`` with every renamed local name (``Name:v0``, ``Name:v1``...) the same placeholder,
    builtins, attributes and constants kept: which variable is which cannot decide a containment (a
    name padded in early renumbers every later one, red team 15's hole).

    Parameters
    ----------
    tokens : list of str
        Tokens of :func:`function_tokens` (names renamed ``v0``, ``v1``...).

    Returns
    -------
    list of str
        The same tokens, every renamed local name ``Name:*``.

    Examples
    --------
    >>> blind(["Name:v0", "Name:len", "Attribute:v1", "Name:v12", "Name:vars"])
    ['Name:*', 'Name:len', 'Attribute:v1', 'Name:*', 'Name:vars']
    """
    return ["Name:*" if t.startswith("Name:v") and t[6:].isdigit() else t for t in tokens]


def common(a: list[str], b: list[str]) -> int:
    """The length of the longest common subsequence of ``a`` and ``b``: how many tokens the best
    alignment pairs in order, skipping any insertion (Hyyrö's bit-parallel algorithm, 2004: one pass
    over the longer sequence with the shorter as the bits of one integer; 2,000 by 2,000 tokens in
    about a millisecond). Exact and symmetric, unlike difflib's greedy matching, which many alike
    ``Name:*`` tokens can anchor badly.

    Examples
    --------
    >>> common(list("abcbdab"), list("bdcaba")), common([], ["a"])
    (4, 0)
    """
    if len(a) > len(b):
        a, b = b, a
    masks: dict[str, int] = {}
    for i, token in enumerate(a):
        masks[token] = masks.get(token, 0) | (1 << i)
    full = (1 << len(a)) - 1
    row = full  # a zero bit for each token of ``a`` matched so far
    for token in b:
        matches = row & masks.get(token, 0)
        row = ((row + matches) | (row - matches)) & full
    return len(a) - bin(row).count("1")


def containment(a: list[str], b: list[str]) -> float:
    """How much of the shorter sequence the longer one holds, in order, in [0, 1]: ``M / min(|A|, |B|)``
    for the ``M`` tokens of their :func:`blind` sequences' longest common subsequence (:func:`common`;
    1.0: one is the other with tokens inserted, whatever names they bring in, red team 15), at every
    length (40,000 by 40,000 tokens in about 0.3 s).

    Parameters
    ----------
    a, b : list of str
        Two functions' tokens (:func:`function_tokens`: their pre-order is compared), or plain lists.

    Returns
    -------
    float
        The share of the shorter sequence's tokens matched (1.0 for two empty ones).

    Examples
    --------
    >>> copy, padded = ["a", "b", "c", "d"], ["x", "a", "y", "b", "c", "z", "d"]
    >>> containment(copy, padded), round(similarity(copy, padded), 2)
    (1.0, 0.73)
    >>> containment(["Name:v0", "Return", "Name:v1"], ["Name:v0", "Name:v1", "Return", "Name:v2"])
    1.0
    """
    if not a or not b:
        return float(not a and not b)
    x, y = (blind(getattr(t, "preorder", t)) for t in (a, b))  # function_tokens' pre-order, if given
    return common(x, y) / min(len(a), len(b))


def aligned(a: list[tuple[str, ...]], b: list[tuple[str, ...]]) -> float:
    """How much of the shorter function the longer one holds statement by statement, in [0, 1].

    Each statement of one side is matched to at most one statement of the other, in order,
    statements of either side skipped at no cost, and a matched pair counts the tokens of their
    longest common subsequence (:func:`common`): ``M / min(|A|, |B|)`` for ``|A|`` the tokens of
    ``a``'s statements. Like :func:`containment`, statements inserted or wrapped around others cost
    nothing (red teams 15 and 16); unlike it, tokens are matched only within statements matched
    whole, so unrelated code, whose common tokens lie scattered over many statements, scores far
    lower, and a small edit still costs only the tokens it changes (red team 17: a wrapped copy with
    ``min(len(relevant), k)`` for ``min(k, len(relevant))``).

    Parameters
    ----------
    a, b : list of tuple of str
        Two functions' statements (:attr:`Tokens.units`).

    Returns
    -------
    float
        The share of the shorter side's tokens matched (1.0 for two empty sides).

    Examples
    --------
    >>> copy = [("Assign", "Name:*", "Constant:0"), ("Return", "Name:*")]
    >>> wrapped = [("If", "Name:*"), copy[0], ("If", "Name:*"), ("Return", "Name:*")]
    >>> aligned(copy, wrapped)
    1.0
    >>> aligned(copy, [("Return", "Name:*"), ("Assign", "Name:*", "Constant:1")])
    0.4
    """
    if sum(map(len, a)) > sum(map(len, b)):
        a, b = b, a
    shorter = sum(map(len, a))
    if not shorter:
        return float(not sum(map(len, b)))
    ids: dict[tuple[str, ...], int] = {}
    xs, ys = ([ids.setdefault(u, len(ids)) for u in side] for side in (a, b))
    units = {i: list(u) for u, i in ids.items()}
    pairs: dict[tuple[int, int], int] = {}
    previous = [0] * (len(ys) + 1)
    for x in xs:
        row = [0]
        for j, y in enumerate(ys, 1):
            if (x, y) not in pairs:
                pairs[x, y] = len(units[x]) if x == y else common(units[x], units[y])
            row.append(max(previous[j], row[j - 1], previous[j - 1] + pairs[x, y]))
        previous = row
    return previous[-1] / shorter


def similarity(a: list[str], b: list[str]) -> float:
    """How alike two token sequences are, in [0, 1] (1.0: the same normalised code).

    Parameters
    ----------
    a, b : list of str
        Two token sequences.

    Returns
    -------
    float
        ``difflib``'s ratio of the sequences.

    Examples
    --------
    >>> similarity(["a", "b", "c"], ["a", "b", "c"]), similarity(["a"], ["b"])
    (1.0, 0.0)
    """
    if not a and not b:
        return 1.0
    if max(len(a), len(b)) > EXACT_TOKENS:
        return dice(fingerprints(a), fingerprints(b))
    return 2 * _matched(a, b) / (len(a) + len(b))


def fingerprints(tokens: list[str]) -> frozenset[int]:
    """Winnowed k-gram hashes of a token sequence (Schleimer, Wilkerson and Aiken, SIGMOD 2003).

    Every run of ``KGRAM`` tokens is hashed (from the tokens' CRC-32, the same on every machine);
    of each window of ``WINDOW`` consecutive hashes the smallest is kept. Two sequences that share
    a run of at least ``KGRAM + WINDOW - 1`` tokens share a fingerprint; the work and memory are
    linear in the length.

    Examples
    --------
    >>> a = [f"t{i}" for i in range(40)]
    >>> fingerprints(a) == fingerprints(list(a)), len(fingerprints(a)) < 37
    (True, True)
    """
    codes: dict[str, int] = {}
    ids = [codes.setdefault(t, zlib.crc32(t.encode("utf-8", "backslashreplace"))) for t in tokens]
    grams = ids
    for shift in range(1, KGRAM):
        grams = [(g * 1_000_003 + x) & 0xFFFFFFFFFFFF for g, x in zip(grams, ids[shift:], strict=False)]
    if len(grams) <= WINDOW:
        return frozenset(grams)
    return frozenset(map(min, zip(*(grams[i:] for i in range(WINDOW)), strict=False)))


def dice(a: frozenset[int], b: frozenset[int]) -> float:
    """``2|A∩B| / (|A| + |B|)`` of two fingerprint sets, in [0, 1].

    Examples
    --------
    >>> dice(frozenset({1, 2}), frozenset({2, 3})), dice(frozenset(), frozenset())
    (0.5, 1.0)
    """
    if not a and not b:
        return 1.0
    return 2 * len(a & b) / (len(a) + len(b))


def contained(a: frozenset[int], b: frozenset[int]) -> float:
    """``|A∩B| / min(|A|, |B|)`` of two fingerprint sets, in [0, 1]: the estimate of
    :func:`containment` (what :func:`dice` is to :func:`similarity`).

    Examples
    --------
    >>> contained(frozenset({1, 2}), frozenset({0, 1, 2, 3})), contained(frozenset(), frozenset({1}))
    (1.0, 0.0)
    """
    if not a or not b:
        return float(not a and not b)
    return len(a & b) / min(len(a), len(b))


def _is_stub(function: ast.FunctionDef) -> bool:
    body = [n for n in function.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
    return len(body) == 1 and isinstance(body[0], ast.Raise)


def _as_function(name: str, node: ast.Lambda) -> ast.FunctionDef:
    """A ``name = lambda ...`` binding as the function it defines (for comparison only)."""
    body: list[ast.stmt] = [ast.Return(value=node.body)]
    function = ast.FunctionDef(name=name, args=node.args, body=body, decorator_list=[], returns=None)
    setattr(function, "type_params", [])  # noqa: B010 (a field from Python 3.12 on; 3.11's ast lacks it)
    return function


_Bound = dict[str, ast.FunctionDef | None]


def _bind_value(bound: _Bound, name: str, value: ast.expr) -> None:
    """``name`` now holds ``value``: an alias of a known function, a lambda, or something else."""
    if isinstance(value, ast.Name):
        bound[name] = bound.get(value.id)
    elif isinstance(value, ast.Lambda):
        bound[name] = _as_function(name, value)
    else:
        bound[name] = None


def _is_namespace(node: ast.expr) -> bool:
    """``globals()`` (or ``vars()``, ``locals()``: the module's namespace at module level)."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("globals", "vars", "locals")
        and not node.args
    )


def _namespace_key(target: ast.expr) -> str | None:
    """``globals()["name"]``: the constant name; else ``None``."""
    if isinstance(target, ast.Subscript) and _is_namespace(target.value):
        key = target.slice.value if isinstance(target.slice, ast.Constant) else None
        return key if isinstance(key, str) else None
    return None


def _bind(bound: _Bound, targets: list[ast.expr], value: ast.expr) -> None:
    """Record what an assignment binds: ``name = ...`` or ``globals()["name"] = ...``."""
    for target in targets:
        name = target.id if isinstance(target, ast.Name) else _namespace_key(target)
        if name is not None:
            _bind_value(bound, name, value)


def _update_pairs(call: ast.Call) -> list[tuple[object, ast.expr]]:
    """``globals().update({"name": f}, name=f)``: the (name, value) pairs it binds."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "update" and _is_namespace(func.value)):
        return []
    first = call.args[0] if len(call.args) == 1 else None
    items = zip(first.keys, first.values, strict=True) if isinstance(first, ast.Dict) else []
    pairs: list[tuple[object, ast.expr]] = [(k.value, v) for k, v in items if isinstance(k, ast.Constant)]
    return pairs + [(kw.arg, kw.value) for kw in call.keywords if kw.arg]


def _setattr_pairs(call: ast.Call) -> list[tuple[object, ast.expr]]:
    """``setattr(sys.modules[__name__], "name", f)``: the (name, value) it binds."""
    if not (isinstance(call.func, ast.Name) and call.func.id == "setattr" and len(call.args) == 3):
        return []
    owner, name, value = call.args
    is_module = (
        isinstance(owner, ast.Subscript)
        and isinstance(owner.value, ast.Attribute)
        and owner.value.attr == "modules"
    )
    return [(name.value, value)] if is_module and isinstance(name, ast.Constant) else []


def _bind_call(bound: _Bound, call: ast.expr) -> None:
    """Bindings by a call with constant names: ``globals().update``, ``setattr(sys.modules[...], ...)``."""
    if isinstance(call, ast.Call):
        for name, value in _update_pairs(call) + _setattr_pairs(call):
            if isinstance(name, str):
                _bind_value(bound, name, value)


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Module-level statements in order, with those nested in blocks (``if``, ``try``, ``with``,
    ``for``, ``while``, ``match``); never into a function's or a class's body."""
    for node in body:
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        blocks = [getattr(node, "body", [])]
        blocks += [h.body for h in getattr(node, "handlers", [])] + [
            c.body for c in getattr(node, "cases", [])
        ]
        blocks += [getattr(node, "orelse", []), getattr(node, "finalbody", [])]
        for block in blocks:
            if isinstance(block, list):
                yield from _statements(block)


def _bindings(trees: list[tuple[int, ast.Module]]) -> _Bound:
    """The function each module-level name is bound to at the end of the notebook, aliases resolved.

    ``def _impl(...)`` then ``precision_at_k = _impl`` binds ``precision_at_k`` to ``_impl``'s
    code; a later ``def`` or assignment re-binds the name (the last binding wins, as when the
    notebook runs top to bottom); ``name = lambda ...`` counts as a function; definitions in
    blocks count, and so do ``globals()`` and ``setattr`` bindings with constant names.
    """
    bound: _Bound = {}
    for _, tree in trees:
        for node in _statements(tree.body):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                bound[node.name] = node  # type: ignore[assignment]
            elif isinstance(node, ast.Assign):
                _bind(bound, node.targets, node.value)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                _bind(bound, [node.target], node.value)
            elif isinstance(node, ast.Expr):
                _bind_call(bound, node.value)
    return bound


def _all_functions(trees: list[tuple[int, ast.Module]], bound: _Bound) -> dict[str, ast.FunctionDef]:
    """Every function the notebook defines, anywhere (blocks, other functions), and every lambda
    bound to a name, by name (``name (2)`` for a second one of the same name); stubs left out."""
    found: dict[str, ast.FunctionDef] = {}
    nodes = [
        n
        for _, tree in trees
        for n in ast.walk(tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    nodes += [n for n in bound.values() if n is not None and not hasattr(n, "lineno")]
    repeats: dict[str, int] = {}  # how many functions of each name so far: linear (red team 10: probing
    for node in nodes:  # "name (2)", "name (3)"... from 1 took 95 s for 13,097 functions named f)
        if _is_stub(node):  # type: ignore[arg-type]
            continue
        n = repeats[node.name] = repeats.get(node.name, 0) + 1
        key = node.name if n == 1 else f"{node.name} ({n})"  # no name holds a space: the key is unique
        found[key] = node  # type: ignore[assignment]
    return found


def functions_in(sources: list[str], targets: set[str]) -> dict[str, ast.FunctionDef]:
    """The function each target is bound to at the end of a notebook's code cells.

    Aliases and re-bindings are resolved (:func:`_bindings`); unchanged stubs are left out.
    IPython magics and cells that do not parse are skipped.

    Examples
    --------
    >>> code = "def _impl(a, b):\\n    return a + b\\nf = _impl\\ng = lambda x: x\\ndef h():\\n    raise X"
    >>> sorted(functions_in([code], {"f", "g", "h"}))
    ['f', 'g']
    """
    return notebook_functions(sources, targets)[0]


def notebook_functions(
    sources: list[str], targets: set[str], values: Answers | None = None
) -> tuple[dict[str, ast.FunctionDef], dict[str, ast.FunctionDef]]:
    """The functions bound to ``targets`` (:func:`functions_in`), and every other function the
    notebook defines (by name, whatever binds it or where), for comparison regardless of names.
    With ``values``, the code that computes each answer variable too, as a function of that name
    (:func:`answer_functions`).

    Examples
    --------
    >>> code = "if True:\\n    def _p(a):\\n        return a\\n    globals()['f'] = _p\\n"
    >>> code += "def g(b):\\n    return b"
    >>> graded, others = notebook_functions([code], {"f"})
    >>> sorted(graded), sorted(others)
    (['f'], ['g'])
    """
    return _functions(_trees(sources), targets, values)


def _trees(sources: list[str]) -> list[tuple[int, ast.Module]]:
    """The cells' syntax trees as the grader parses them, with the code run from string literals
    (:func:`_exec_trees`) after the cell that runs it."""
    _, _, _, trees = prepare_notebook(sources)
    return sorted([*trees, *_exec_trees(trees)], key=lambda cell: cell[0])


def _functions(
    trees: list[tuple[int, ast.Module]], targets: set[str], values: Answers | None
) -> tuple[dict[str, ast.FunctionDef], dict[str, ast.FunctionDef]]:
    """:func:`notebook_functions` of parsed cells."""
    bound = _bindings(trees)
    graded = {name: node for name in targets if (node := bound.get(name)) is not None and not _is_stub(node)}
    graded.update(answer_functions(trees, values) if values else {})
    seen = {id(node) for node in graded.values()}
    others = {k: n for k, n in _all_functions(trees, bound).items() if id(n) not in seen}
    return graded, others


@dataclass(frozen=True)
class Answers:
    """An assignment's value questions: the answer variables, and the code the course hands out
    (``ast.dump`` of each statement of the released notebook), which is nobody's own work.

    Parameters
    ----------
    names : frozenset of str
        The answer variables (``answer_q1``...).
    given : frozenset of str
        ``ast.dump`` of every statement the released notebook holds.

    Examples
    --------
    >>> Answers(frozenset({"answer_q1"})).given
    frozenset()
    """

    names: frozenset[str]
    given: frozenset[str] = frozenset()


_ASSIGNS = (ast.Assign, ast.AnnAssign, ast.AugAssign)


def _stored(node: ast.stmt) -> set[str]:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]  # type: ignore[attr-defined]
    return {
        n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }


def _read_names(node: ast.stmt) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store)}


def _answer_slice(statements: Sequence[ast.stmt], name: str, given: frozenset[str]) -> list[ast.stmt]:
    """The assignments (at module level, in blocks too) that ``name``'s value depends on, in order:
    those that bind it, then, going back, those that bind a name they read; the course's given code
    (and what only it needs) and statements that give a name its own value (``recs = recs``,
    :func:`_identity`: red team 15) left out."""
    needed, kept = {name}, []
    for node in reversed(statements):
        if _stored(node) & needed and not _identity(node) and ast.dump(node) not in given:
            kept.append(node)
            needed |= _read_names(node)
    return kept[::-1]


def answer_functions(trees: list[tuple[int, ast.Module]], values: Answers) -> dict[str, ast.FunctionDef]:
    """The code that computes each answer variable (:func:`_answer_slice`), as a function of the
    variable's name that returns it, compared like a graded function (red team 10: value questions).

    Parameters
    ----------
    trees : list of (int, ast.Module)
        A notebook's parsed cells (cell index, tree).
    values : Answers
        The answer variables and the code handed out (left out of each answer's code).

    Returns
    -------
    dict of str to ast.FunctionDef
        For each answer variable some statement computes: a function of its name, whose body is
        those statements, returning the variable.

    Examples
    --------
    >>> code = "data = load()\\nmean = sum(data) / len(data)\\nanswer_q1 = round(mean, 2)\\nother = 1"
    >>> found = answer_functions([(0, ast.parse(code))], Answers(frozenset({"answer_q1"})))
    >>> print(ast.unparse(found["answer_q1"]))
    def answer_q1():
        data = load()
        mean = sum(data) / len(data)
        answer_q1 = round(mean, 2)
        return answer_q1
    """
    statements = [n for _, tree in trees for n in _statements(tree.body) if isinstance(n, _ASSIGNS)]
    found = {}
    for name in sorted(values.names):
        body = _answer_slice(statements, name, values.given)
        if body:
            result = ast.Return(value=ast.Name(id=name, ctx=ast.Load()))
            arguments = ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])
            function = ast.FunctionDef(name=name, args=arguments, body=[*body, result], decorator_list=[])
            setattr(function, "type_params", [])  # noqa: B010 (as in _as_function)
            found[name] = ast.fix_missing_locations(function)
    return found


def _exec_trees(trees: list[tuple[int, ast.Module]], depth: int = 2) -> list[tuple[int, ast.Module]]:
    """Code a notebook runs from string literals (``exec("...")``, ``exec(compile("...", ...))``), read
    as more cells of the cell that runs it, so a copy passed to ``exec`` is compared like one written
    out (red team 6); ``depth`` bounds literals inside literals. Code built at run time (decoded,
    joined) cannot be read here."""
    found = []
    for index, tree in trees:
        for node in ast.walk(tree):
            text = _exec_literal(node)
            try:
                found += [(index, ast.parse(text))] if text is not None else []
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue
    return found + (_exec_trees(found, depth - 1) if found and depth > 0 else [])


def _exec_literal(node: ast.AST) -> str | None:
    """The string literal ``exec``, ``eval`` or ``compile`` is called with, if any."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args):
        return None
    arg, runs = node.args[0], node.func.id in ("exec", "eval", "compile")
    return arg.value if runs and isinstance(arg, ast.Constant) and isinstance(arg.value, str) else None


class _Blind(NamedTuple):
    """What containment compares of a function of :data:`CONTAIN_TOKENS` or more: its :func:`blind`
    tokens, their fingerprints and their counts (regardless of order: an upper bound of the matched
    tokens), computed once per entry."""

    tokens: list[str]
    prints: frozenset[int]
    bag: Counter[str]

    @classmethod
    def of(cls, tokens: list[str]) -> _Blind:
        blinded = blind(getattr(tokens, "preorder", tokens))  # pre-order: a wrapped copy stays in order
        return cls(blinded, fingerprints(blinded), Counter(blinded))


_NO_BLIND = _Blind([], frozenset(), Counter())  # a function under CONTAIN_TOKENS: no containment


class Pooled(NamedTuple):
    """A function as :func:`_matches` compares it: its name, tokens, fingerprints, whether it is
    graded, and its :class:`_Blind` tokens (empty under :data:`CONTAIN_TOKENS`)."""

    name: str
    tokens: list[str]
    prints: frozenset[int]
    graded: bool
    blind: _Blind


@dataclass
class Entry:
    """One body of code compared: a submission or a reference (its fingerprints computed once)."""

    label: str
    tokens: dict[str, list[str]]  # graded name -> the tokens of the function bound to it
    others: dict[str, list[str]] = field(default_factory=dict)  # every other function, by name
    prints: dict[str, frozenset[int]] = field(default_factory=dict, repr=False)
    other_prints: dict[str, frozenset[int]] = field(default_factory=dict, repr=False)
    note: str = ""  # why it is compared only in part (code the report cannot read), or ""
    blinds: dict[int, _Blind] = field(default_factory=dict, repr=False)  # by id of the tokens

    def __post_init__(self) -> None:
        self.prints = {name: fingerprints(tokens) for name, tokens in self.tokens.items()}
        self.other_prints = {name: fingerprints(tokens) for name, tokens in self.others.items()}
        functions = [*self.tokens.values(), *self.others.values()]
        self.blinds = {id(t): _Blind.of(t) for t in functions}

    def pool(self, min_tokens: int) -> list[Pooled]:
        """Every function of at least ``min_tokens`` (:class:`Pooled`)."""
        graded = [
            Pooled(k, t, self.prints[k], True, self._blind(t))
            for k, t in self.tokens.items()
            if len(t) >= min_tokens
        ]
        return graded + [
            Pooled(k, t, self.other_prints[k], False, self._blind(t))
            for k, t in self.others.items()
            if len(t) >= min_tokens
        ]

    def _blind(self, tokens: list[str]) -> _Blind:
        return self.blinds[id(tokens)] if len(tokens) >= CONTAIN_TOKENS else _NO_BLIND


def _shared(a: Entry, b: Entry, min_tokens: int) -> list[str]:
    return [
        t
        for t in sorted(set(a.tokens) & set(b.tokens))
        if min(len(a.tokens[t]), len(b.tokens[t])) >= min_tokens
    ]


def _weighted(a: Entry, b: Entry, per: dict[str, float]) -> float:
    weights = {t: len(a.tokens[t]) + len(b.tokens[t]) for t in per}
    return round(sum(per[t] * weights[t] for t in per) / sum(weights.values()), 3)


def estimate(a: Entry, b: Entry, min_tokens: int) -> float | None:
    """A cheap score of a pair (fingerprint Dice per function, weighted by length), ``None`` if nothing
    is shared: the filter before the exact (quadratic) comparison."""
    per = {t: dice(a.prints[t], b.prints[t]) for t in _shared(a, b, min_tokens)}
    return _weighted(a, b, per) if per else None


_EXACT: dict[tuple[int, int], int] = {}  # matched tokens of one compare_class run, by the lists' ids
_COMMON: dict[tuple[int, int], int] = {}  # blind tokens' common subsequences (:func:`common`), alike
_ALIGNED: dict[tuple[int, int], float] = {}  # statement alignments (:func:`aligned`), alike


def _exact(x: list[str], y: list[str]) -> float:
    """:func:`similarity` of two lists of at most :data:`EXACT_TOKENS` (:func:`_exact_matched`)."""
    return 2 * _exact_matched(x, y) / (len(x) + len(y)) if x or y else 1.0


def _exact_matched(x: list[str], y: list[str]) -> int:
    """:func:`_matched`, computed once per pair of token lists in a :func:`compare_class` run (the
    ratio and the containment of a pair come from the same matching)."""
    key = (id(x), id(y))
    if key not in _EXACT:
        _EXACT[key] = _matched(x, y)
    return _EXACT[key]


def _function_score(a: Entry, b: Entry, target: str) -> float:
    x, y = a.tokens[target], b.tokens[target]
    if max(len(x), len(y)) > EXACT_TOKENS:  # the entries' fingerprints, computed once
        return round(dice(a.prints[target], b.prints[target]), 3)
    return round(_exact(x, y), 3)


def _pair(a: Entry, b: Entry, min_tokens: int) -> tuple[float, dict[str, float]] | None:
    per = {t: _function_score(a, b, t) for t in _shared(a, b, min_tokens)}
    return (_weighted(a, b, per), per) if per else None


def _candidates(
    pairs: list[tuple[Entry, Entry]], threshold: float, min_tokens: int, copied: dict
) -> list[tuple[float, Entry, Entry]]:
    """The pairs whose fingerprint estimate could reach the threshold, and those with copied
    functions (``copied``, by the pair's ids), most promising first."""
    found = []
    for a, b in pairs:
        guess = estimate(a, b, min_tokens)
        if (guess is not None and guess >= PREFILTER * threshold) or (id(a), id(b)) in copied:
            found.append((guess or 0.0, a, b))
    return sorted(found, key=lambda x: -x[0])


def _verdict(ratio: float, contain: float | None, align: float | None = None) -> tuple[float, str]:
    """A pair of functions' score and the measure that makes it a copy: the ratio if it reaches
    :data:`COPY_SCORE`, else the containment (``None``: the shorter is under :data:`CONTAIN_TOKENS`)
    if it reaches :data:`CONTAIN_SCORE`, else the statement alignment (``None``: not computed) if it
    reaches :data:`ALIGN_SCORE`, else the ratio."""
    if ratio >= COPY_SCORE:
        return ratio, "ratio"
    if contain is not None and contain >= CONTAIN_SCORE:
        return contain, "contained"
    if align is not None and align >= ALIGN_SCORE:
        return align, "aligned"
    return ratio, "ratio"


def _function_similarity(x: Pooled, y: Pooled, deadline: float) -> tuple[float, str]:
    """Two pooled functions' score and measure (:func:`_verdict`). The ratio: exact while the budget
    lasts and both are short enough, else their fingerprints' Dice. The containment, when the ratio
    finds no copy and the shorter has :data:`CONTAIN_TOKENS`: exact (:func:`_exact_containment`)
    while the budget lasts, else their :func:`blind` fingerprints' (:func:`contained`)."""
    lx, ly = len(x.tokens), len(y.tokens)
    late = time.monotonic() > deadline
    ratio = (
        dice(x.prints, y.prints) if late or max(lx, ly) > EXACT_TOKENS else _exact_ratio(x.tokens, y.tokens)
    )
    if ratio >= COPY_SCORE or min(lx, ly) < CONTAIN_TOKENS or not _proportionate(x.tokens, y.tokens):
        return ratio, "ratio"
    if late:
        return _verdict(ratio, contained(x.blind.prints, y.blind.prints))
    contain = _exact_containment(x.blind, y.blind)
    long = min(lx, ly) >= ALIGN_TOKENS
    align = _exact_aligned(x.tokens, y.tokens) if long and ALIGN_SCORE <= contain < CONTAIN_SCORE else None
    return _verdict(ratio, contain, align)


def _exact_ratio(x: list[str], y: list[str]) -> float:
    """:func:`similarity` of two lists of at most :data:`EXACT_TOKENS`, or an upper bound of it
    under :data:`COPY_SCORE` (difflib's ``quick_ratio``: no exact comparison)."""
    if (id(x), id(y)) not in _EXACT:
        bound = difflib.SequenceMatcher(None, x, y, autojunk=False).quick_ratio()
        if bound < COPY_SCORE:
            return bound
    return _exact(x, y)


def _exact_containment(x: _Blind, y: _Blind) -> float:
    """:func:`containment` of two functions' blind tokens, or an upper bound of it under
    :data:`ALIGN_SCORE` (the tokens counted regardless of order: no exact comparison)."""
    shortest = min(len(x.tokens), len(y.tokens))
    key = (id(x.tokens), id(y.tokens))
    if key not in _COMMON:
        bound = sum((x.bag & y.bag).values()) / shortest
        if bound < ALIGN_SCORE:
            return bound
        _COMMON[key] = common(x.tokens, y.tokens)
    return _COMMON[key] / shortest


def _exact_aligned(x: list[str], y: list[str]) -> float | None:
    """:func:`aligned` of two functions' statements, once per pair in a :func:`compare_class` run;
    ``None`` for tokens without statements, or more than :data:`ALIGN_CELLS` pairs of statements."""
    ux, uy = getattr(x, "units", None), getattr(y, "units", None)
    if ux is None or uy is None or len(ux) * len(uy) > ALIGN_CELLS:
        return None
    key = (id(x), id(y))
    if key not in _ALIGNED:
        _ALIGNED[key] = aligned(ux, uy)
    return _ALIGNED[key]


def _worth_comparing(x: Pooled, y: Pooled) -> bool:
    """Whether two pooled functions can be copies: of lengths that allow the ratio and sharing
    fingerprints (:func:`dice`), or, whatever their lengths, the shorter of :data:`CONTAIN_TOKENS`
    or more with :data:`ALIGN_SCORE` of its :func:`blind` tokens, counted regardless of order, found
    in the other's (an upper bound of :func:`containment` and :func:`aligned`, so no contained or
    aligned copy is dropped: breadth-first tokens of
    statements padded between others share few k-grams, fingerprints would miss it)."""
    lx, ly = len(x.tokens), len(y.tokens)
    if 2 * min(lx, ly) >= COPY_SCORE * (lx + ly) and dice(x.prints, y.prints) >= PREFILTER:
        return True
    if min(lx, ly) < CONTAIN_TOKENS or not _proportionate(x.tokens, y.tokens):
        return False
    bar = ALIGN_SCORE if min(lx, ly) >= ALIGN_TOKENS else CONTAIN_SCORE
    return sum((x.blind.bag & y.blind.bag).values()) >= bar * min(lx, ly)


def _matches(a: Entry, b: Entry, min_tokens: int, deadline: float) -> list[tuple[str, str, float, int, str]]:
    """Near-verbatim copies between ``a``'s and ``b``'s functions, names aside, by ratio
    (:data:`COPY_SCORE`) or containment (:data:`CONTAIN_SCORE`): ``(a's function, b's function,
    score, tokens, measure)``, the best match of each function of ``a``. Only the pairs
    :func:`_worth_comparing` are compared exactly."""
    best: dict[str, tuple[str, str, float, int, str]] = {}
    pool_b = b.pool(min_tokens)
    for x in a.pool(min_tokens):
        if time.monotonic() >= deadline:  # the budget bounds the filter too (red team 6: 1,200 functions)
            break
        for y in pool_b:
            if not _worth_comparing(x, y):
                continue
            score, measure = _function_similarity(x, y, deadline)
            score = round(score, 3)
            threshold = {"ratio": COPY_SCORE, "contained": CONTAIN_SCORE}.get(measure, ALIGN_SCORE)
            if score >= threshold and score > best.get(x.name, ("", "", 0.0, 0, ""))[2]:
                best[x.name] = (x.name, y.name, score, min(len(x.tokens), len(y.tokens)), measure)
    return list(best.values())


def _covered(entry: Entry, names: set[str], min_tokens: int) -> float:
    """The share of ``entry``'s graded code (tokens) in the functions ``names``."""
    sizes = {k: len(t) for k, t in entry.tokens.items() if len(t) >= min_tokens}
    total = sum(sizes.values())
    return sum(n for k, n in sizes.items() if k in names) / total if total else 0.0


def copied(a: Entry, b: Entry, threshold: float, min_tokens: int, deadline: float) -> list[list]:
    """The near-verbatim function copies that make a pair worth reporting whatever its mean
    (see the module's docstring), as ``[a's function, b's function, score, measure]`` (``"ratio"``,
    ``"contained"`` or ``"aligned"``), and, when the functions alone do not make it, the graded code
    held as a whole (``[WHOLE, WHOLE, score, "aligned"]``, :func:`_aligned_whole`); ``[]`` otherwise.

    Examples
    --------
    >>> body = [f"t{i}" for i in range(170)]
    >>> a = Entry("a", {"f": body, "g": [f"x{i}" for i in range(70)]})
    >>> b = Entry("b", {}, others={"_impl": list(body), "padded": body[:85] + ["pad"] * 40 + body[85:]})
    >>> copied(a, b, 0.9, 25, float("inf"))
    [['f', '_impl', 1.0, 'ratio']]
    >>> copied(b, a, 0.9, 25, float("inf"))
    [['_impl', 'f', 1.0, 'ratio'], ['padded', 'f', 1.0, 'contained']]
    """
    found = _matches(a, b, min_tokens, deadline)
    copies = [[m[0], m[1], m[2], m[4]] for m in found]
    if found and _enough(a, b, found, threshold, min_tokens):
        return copies
    whole = _aligned_whole(a, b, min_tokens, deadline)  # only when the functions alone do not decide
    return copies + [[WHOLE, WHOLE, whole, "aligned"]] if whole is not None else []


def _enough(a: Entry, b: Entry, found: list[tuple], threshold: float, min_tokens: int) -> bool:
    """Whether copied functions ``found`` make a pair: one long, long together, or most of one side."""
    if max(m[3] for m in found) >= COPY_TOKENS or sum(m[3] for m in found) >= COPY_TOTAL:
        return True
    names = {m[0] for m in found}, {m[1] for m in found}
    return max(_covered(a, names[0], min_tokens), _covered(b, names[1], min_tokens)) >= threshold


WHOLE = "graded code"  # :func:`copied`'s name for the graded functions together (:func:`_aligned_whole`)


def _aligned_whole(a: Entry, b: Entry, min_tokens: int, deadline: float) -> float | None:
    """:func:`aligned` over the graded functions ``a`` and ``b`` both define, weighted by the
    shorter one's tokens, when it reaches :data:`ALIGN_WHOLE` on :data:`COPY_TOTAL` tokens or more;
    else ``None``. Red team 17: a copy of every function, each statement wrapped, and edited in a
    few tokens, holds no function whole (the short ones are judged by the ratio, which a wrapper
    lowers), but holds the solution as a whole. Order-blind token counts, then containment (both
    upper bounds) come first; a function over :data:`ALIGN_CELLS`, or out of proportion with its
    counterpart (:func:`_proportionate`), counts as not held."""
    shared = _shared(a, b, min_tokens)
    sizes = {t: min(len(a.tokens[t]), len(b.tokens[t])) for t in shared}
    total = sum(sizes.values())
    names = [t for t in shared if _proportionate(a.tokens[t], b.tokens[t])]  # the others: not held
    if total < COPY_TOTAL or time.monotonic() > deadline:
        return None
    pairs = {t: (a.blinds[id(a.tokens[t])], b.blinds[id(b.tokens[t])]) for t in names}
    if not _may_hold_whole(pairs, sizes, total):
        return None
    held = sum((_exact_aligned(a.tokens[t], b.tokens[t]) or 0.0) * sizes[t] for t in names) / total
    return round(held, 3) if held >= ALIGN_WHOLE else None


def _may_hold_whole(pairs: dict[str, tuple[_Blind, _Blind]], sizes: dict[str, int], total: int) -> bool:
    """Whether two upper bounds of :func:`_aligned_whole` reach :data:`ALIGN_WHOLE`: the blind
    tokens counted regardless of order, then their containment."""
    if sum(sum((x.bag & y.bag).values()) for x, y in pairs.values()) < ALIGN_WHOLE * total:
        return False
    return sum(_exact_containment(x, y) * sizes[t] for t, (x, y) in pairs.items()) >= ALIGN_WHOLE * total


def _scored(
    candidates: list[tuple[float, Entry, Entry]],
    threshold: float,
    min_tokens: int,
    deadline: float,
    copies: dict,
) -> tuple[list[tuple[Entry, Entry, float, dict[str, float], list]], int]:
    """Exact scores of the candidates while the time budget lasts (after it, a candidate keeps its
    fingerprint estimate, counted in the second value); those at or above ``threshold`` or with
    copied functions (``copies``) are kept."""
    out, estimated = [], 0
    for guess, a, b in candidates:
        if time.monotonic() > deadline:
            estimated += 1
            scored = (guess, {t: guess for t in _shared(a, b, min_tokens)})
        else:
            scored = _pair(a, b, min_tokens)  # type: ignore[assignment]
        found = copies.get((id(a), id(b)), [])
        if found and not (scored and scored[1]):
            scored = (round(sum(m[2] for m in found) / len(found), 3), {})
        if scored and (scored[0] >= threshold or found):
            out.append((a, b, *scored, found))
    return out, estimated


def compare_class(
    entries: list[Entry],
    references: list[Entry],
    threshold: float = 0.9,
    min_tokens: int = 25,
    budget: float = TIME_BUDGET,
) -> dict:
    """Pairs of submissions reported (see the module's docstring), and submissions that match a reference.

    Every pair is first scored by fingerprints (linear in code size) and its functions matched
    names aside (only functions of compatible lengths sharing fingerprints are compared exactly);
    only the pairs whose estimate reaches ``PREFILTER * threshold``, or with copied functions, are
    compared exactly, most promising first, for at most ``budget`` seconds in all (the rest keep
    their estimate, and ``estimated`` says how many). Returns ``{"pairs": [...], "references":
    [...], "compared": n, ...}``, most similar first; each pair lists its ``copies``.

    Parameters
    ----------
    entries : list of Entry
        The class's submissions, each with the tokens of its graded functions.
    references : list of Entry
        The course's own code (solutions and library).
    threshold : float
        The similarity at which a pair is reported.
    min_tokens : int
        Functions shorter than this are not compared (a one-line answer is alike by necessity).
    budget : float
        Seconds for the exact comparisons.

    Returns
    -------
    dict
        ``pairs`` (each with its ``copies``), ``groups``, ``references``, ``compared``, ``estimated``
        and ``threshold``.

    Examples
    --------
    >>> mine = "def f(xs, k):\\n    s = 0\\n    for x in xs[:k]:\\n        s += x\\n    return s / k"
    >>> copied = "def g(a, n):\\n    t = 0\\n    for i in a[:n]:\\n        t += i\\n    return t / n"
    >>> def entry(label, code):
    ...     return Entry(label, {"f": function_tokens(ast.parse(code).body[0])})
    >>> result = compare_class([entry("ann", mine), entry("bo", copied)], [], min_tokens=5)
    >>> [(p["a"], p["b"], p["score"]) for p in result["pairs"]]
    [('ann', 'bo', 1.0)]
    """
    deadline = time.monotonic() + budget
    _EXACT.clear()
    _COMMON.clear()
    _ALIGNED.clear()
    pairs_in = [(e, r) for e in entries for r in references] + list(itertools.combinations(entries, 2))
    copies = {}
    for a, b in pairs_in:
        functions = copied(a, b, threshold, min_tokens, deadline)
        if functions:
            copies[(id(a), id(b))] = functions
    candidates = _candidates(pairs_in, threshold, min_tokens, copies)
    found, estimated = _scored(candidates, threshold, min_tokens, deadline, copies)
    _EXACT.clear()
    _COMMON.clear()
    _ALIGNED.clear()
    refs = {id(r) for r in references}
    pairs: list[dict[str, Any]] = [
        {"a": a.label, "b": b.label, "score": score, "functions": per, "copies": cp}
        for a, b, score, per, cp in found
        if id(b) not in refs
    ]
    matches: list[dict[str, Any]] = [
        {"submission": a.label, "reference": b.label, "score": score, "functions": per, "copies": cp}
        for a, b, score, per, cp in found
        if id(b) in refs
    ]
    pairs.sort(key=lambda p: (-p["score"], p["a"], p["b"]))
    matches.sort(key=lambda p: (-p["score"], p["submission"], p["reference"]))
    return {
        "compared": len(entries),
        "threshold": threshold,
        "estimated": estimated,
        "groups": groups_of(pairs),
        "pairs": pairs,
        "references": matches,
    }


def groups_of(pairs: list[dict]) -> list[list[str]]:
    """Submissions linked by similar pairs, as groups (connected components), largest first.

    Examples
    --------
    >>> groups_of([{"a": "x", "b": "y"}, {"a": "y", "b": "z"}, {"a": "p", "b": "q"}])
    [['x', 'y', 'z'], ['p', 'q']]
    """
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for pair in pairs:
        parent[root(pair["a"])] = root(pair["b"])
    members: dict[str, list[str]] = {}
    for x in parent:
        members.setdefault(root(x), []).append(x)
    return sorted((sorted(g) for g in members.values()), key=lambda g: (-len(g), g))


def _tokens(functions: dict[str, ast.FunctionDef]) -> dict[str, list[str]]:
    return {name: function_tokens(node) for name, node in functions.items()}


def _library_reference(targets: set[str]) -> Entry | None:
    import topkeval

    found = {}
    for name in targets:
        obj = getattr(topkeval, name, None)
        if callable(obj):
            try:
                node = ast.parse(inspect.getsource(obj).strip()).body[0]
            except (OSError, TypeError, SyntaxError, IndexError):
                continue
            if isinstance(node, ast.FunctionDef):
                node.name = name
                found[name] = node
    return Entry("helpers library", _tokens(found)) if found else None


@functools.cache
def _course_reference(folder: Path = COURSE) -> Entry | None:
    """Every function of the course package learners read and run (``helpers/course``), by
    ``module.name``: compared names aside, so a course function renamed is still the course's."""
    found: dict[str, ast.FunctionDef] = {}
    for path in sorted(folder.glob("*.py")):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and not _is_stub(node):
                found.setdefault(f"{path.stem}.{node.name}", node)
    tokens = _tokens(found)
    return Entry(f"course package {folder.relative_to(REPO)}", {}, others=tokens) if tokens else None


def _given(sources: list[str]) -> frozenset[str]:
    """The statements the course hands out (``ast.dump``): a solution notebook's cells with their
    ``### BEGIN SOLUTION`` regions replaced as the learner's copy has them."""
    from .authoring import strip_solutions

    try:
        released = [strip_solutions(source) for source in sources]
    except ValueError:
        return frozenset()
    trees = prepare_notebook(released)[3]
    return frozenset(ast.dump(n) for _, tree in trees for n in _statements(tree.body))


def answers(assignment_arg: str, assignment: Any) -> Answers:
    """The assignment's answer variables (value questions) and the code it hands out.

    Parameters
    ----------
    assignment_arg : str
        The ``--assignment`` value (a built-in assignment's name: its solution notebook
        ``exercises/source/NAME.ipynb`` gives the code handed out; an authored spec gives none).
    assignment : Assignment
        The assignment, whose ``kind="value"`` questions name the answer variables.

    Returns
    -------
    Answers
        The answer variables, and the handed-out code's statements.

    Examples
    --------
    >>> from helpers.grade.assignments import ASSIGNMENTS
    >>> found = answers("choosing-metrics", ASSIGNMENTS["choosing-metrics"])
    >>> sorted(found.names)[:2], len(found.given) > 0
    (['answer_q1', 'answer_q2'], True)
    """
    names = frozenset(q.target for q in assignment.questions if q.kind == "value")
    path = REPO / "exercises" / "source" / f"{assignment_arg}.ipynb"
    given = _given(read_notebook(path.read_bytes())) if names and path.is_file() else frozenset()
    return Answers(names, given)


def reference_code(assignment_arg: str, targets: set[str], values: Answers | None = None) -> list[Entry]:
    """The course's own code: the assignment's solution notebook (or authored spec), the library's
    implementation of the targets, and the course package's functions (``helpers/course``).

    Parameters
    ----------
    assignment_arg : str
        The ``--assignment`` value.
    targets : set of str
        The graded functions' names.
    values : Answers, optional
        The answer variables, whose code is compared too (:func:`answer_functions`).

    Returns
    -------
    list of Entry
        The solution's code, the library's and the course package's, when found.
    """

    refs = []
    if assignment_arg.endswith(".py"):
        sources = [Path(assignment_arg).read_text(encoding="utf-8")]
        label = f"solutions in {Path(assignment_arg).name}"
    else:
        path = REPO / "exercises" / "source" / f"{assignment_arg}.ipynb"
        sources = read_notebook(path.read_bytes()) if path.is_file() else []
        label = f"solution notebook exercises/source/{assignment_arg}.ipynb"
    graded, others = notebook_functions(sources, targets, values)
    if graded or others:
        refs.append(Entry(label, _tokens(graded), others=_tokens(others)))
    extra = [_library_reference(targets), _course_reference()]
    return refs + [e for e in extra if e is not None]


def _read(
    path: Path, label: str, targets: set[str], limit: int, values: Answers | None = None
) -> Entry | str:
    """One submission's graded functions as tokens, or why it is not compared (the grader's bounds:
    the file's size, the code's size; then at most ``MAX_TOKENS`` tokens)."""

    try:
        sources = read_notebook(read_submission(path, limit))
    except NotebookError as exc:
        return f"{label}: {exc}"
    too_much = Limits().code_problem(sources)
    if too_much:
        return f"{label}: {too_much}"
    try:
        trees = _trees(sources)
        outermost = (n for _, t in trees for n in _statements(t.body) if isinstance(n, _DEFS))
        if _size(outermost) > MAX_TOKENS:  # before any work per function (red team 10)
            return f"{label}: its functions hold more than {MAX_TOKENS} syntax-tree nodes (not compared)"
        graded, others = _functions(trees, targets, values)
        if _size([*graded.values(), *others.values()]) > MAX_TOKENS:  # nested ones and answers counted
            return f"{label}: its functions hold more than {MAX_TOKENS} syntax-tree nodes (not compared)"
        return Entry(
            label, _tokens(graded), others=_tokens(others), note=_partly_read(label, trees, targets, graded)
        )
    except (RecursionError, MemoryError):
        return f"{label}: its code is nested too deeply to read (not compared)"


#: names through which a notebook runs code that is not written out as code (a string, a module)
DYNAMIC = frozenset(
    {"exec", "eval", "compile", "__import__", "import_module", "run_path", "run_module", "get_ipython"}
    | {"run_cell", "FunctionType", "CodeType"}  # IPython's runner; a function built from code objects
    | {"__globals__", "__builtins__", "__dict__", "__subclasses__", "__code__", "__loader__"}  # namespaces
)
#: modules whose attributes run code that is not written out (``getattr(builtins, "ex" + "ec")``, a
#: pickle's ``__reduce__``)
DYNAMIC_MODULES = frozenset(
    {"builtins", "__builtins__", "importlib", "runpy", "marshal", "ctypes", "pickle", "dill", "cloudpickle"}
)
IPYTHON = frozenset({"display", "In", "Out"})  # names IPython defines in a notebook's namespace


def _written_out(value: ast.expr | None) -> bool:
    """Whether an assigned value is written out (a lambda, an alias, a constant, a container of
    them): no call or subscript computes it, so calling the name runs no hidden code."""
    stack: list[ast.AST] = [value] if value is not None else []
    while stack:  # a walk that does not enter lambdas (their bodies run only when called)
        node = stack.pop()
        if isinstance(node, (ast.Call, ast.Subscript)):
            return False
        if not isinstance(node, ast.Lambda):
            stack.extend(ast.iter_child_nodes(node))
    return True


def _names(node: ast.AST | None) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} if node is not None else set()


def _binds(node: ast.AST) -> tuple[set[str], bool]:
    """The names ``node`` binds, and whether to code the report can read: a ``def``, ``class``,
    import, argument, loop or ``with`` variable, or an assignment of a written-out value (a lambda,
    an alias, a constant); not an assignment of a call's result, a subscript..."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}, True
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}, True
    if isinstance(node, ast.arg):
        return {node.arg}, True
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
        targets = getattr(node, "targets", [getattr(node, "target", None)])
        return set().union(*map(_names, targets)), _written_out(node.value)
    if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        return _names(node.target), True  # ``for name, f in metrics.items()``: honest code does it
    if isinstance(node, ast.withitem):
        return _names(node.optional_vars), True
    return set(), True


def _callee_problem(func: ast.expr, readable: set[str], computed: set[str], star: bool) -> str | None:
    """Why a call's callee is code the report cannot read, or ``None``."""
    if isinstance(func, ast.Name):
        name = func.id[:40]
        if func.id in DYNAMIC:  # said by _reference_problem
            return None
        if func.id in computed:
            return f"calls {name}, bound to the result of code run (not a function it defines)"
        if func.id in readable or star:
            return None
        return f"calls {name}, which no statement defines"
    if isinstance(func, (ast.Attribute, ast.Lambda)):
        return None
    return f"calls the value of a {type(func).__name__.lower()} expression"  # type, not text: linear


def _computed_lookup(node: ast.AST) -> str | None:
    """``getattr(x, <not a constant>)`` or ``vars(x)``: a lookup by a name the code computes."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        return None
    if node.func.id == "getattr" and len(node.args) > 1 and not isinstance(node.args[1], ast.Constant):
        return "uses getattr with a computed name"
    return "uses vars of an object" if node.func.id == "vars" and node.args else None


def _reference_problem(node: ast.AST) -> str | None:
    """A name or attribute that runs code from data (:data:`DYNAMIC`, :data:`DYNAMIC_MODULES`), or a
    lookup by a computed name (:func:`_computed_lookup`)."""
    lookup = _computed_lookup(node)
    if lookup is not None:
        return lookup
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
    if isinstance(node, ast.alias):
        name = node.name.split(".")[0]
    if name in DYNAMIC_MODULES or (
        name in DYNAMIC and not (name == "compile" and isinstance(node, ast.Attribute))
    ):
        return f"uses {name}"
    return None


def unreadable(sources: list[str]) -> list[str]:
    """Why a notebook runs code the report cannot read, if it does: a name that runs code from data
    (``exec``, ``eval``, ``compile``, ``__import__``, ``import_module``, ``run_path``, the
    ``builtins`` module...), or a call whose callee is not a function the notebook defines, a
    builtin or an imported module's attribute (``getattr(...)(...)``, ``table[key](...)``, a name
    bound to a call's result, a name no statement defines). Code passed to ``exec`` as a string
    literal is read (:func:`_exec_trees`) but still counted: it is a way around the reading.

    Parameters
    ----------
    sources : list of str
        A notebook's code cells.

    Returns
    -------
    list of str
        One reason per kind of unreadable code, in order of appearance; empty when the report
        reads all the code the notebook runs.

    Examples
    --------
    >>> unreadable(["import math\\ndef f(x):\\n    return math.sqrt(g(x))\\ng = lambda x: x\\n"])
    []
    >>> unreadable(["import builtins\\nrun = getattr(builtins, 'ex' + 'ec')\\n"])
    ['uses builtins', 'uses getattr with a computed name']
    >>> unreadable(["import sys\\nrun = sys.modules.get('m').f\\nrun(code)\\n"])
    ['calls run, bound to the result of code run (not a function it defines)']
    >>> unreadable(["def f(r, k):\\n    return _p(r, k)\\n"])
    ['calls _p, which no statement defines']
    """
    return _unreadable(_trees(sources))


def _unreadable(trees: list[tuple[int, ast.Module]]) -> list[str]:
    """:func:`unreadable` of parsed cells, in one walk of the trees (then one pass over the calls)."""
    readable: set[str] = set(_BUILTINS - DYNAMIC) | IPYTHON
    computed: set[str] = set()  # one computed binding is enough: a later one may win when it runs
    found: dict[str, None] = {}
    calls = []
    for node in (n for _, tree in trees for n in ast.walk(tree)):
        names, known = _binds(node)
        (readable if known else computed).update(names)
        problem = _reference_problem(node)
        if problem is not None:
            found[problem] = None
        elif isinstance(node, ast.Call):
            calls.append(node.func)
    star = "*" in readable  # ``from module import *``: any name may be the module's
    for func in calls:
        problem = _callee_problem(func, readable, computed, star)
        if problem is not None:
            found[problem] = None
    return list(found)


def _partly_read(label: str, trees: list[tuple[int, ast.Module]], targets: set[str], graded: dict) -> str:
    """A line for the report when the notebook runs code no static reading can follow (red teams 7
    and 10: ``exec`` of a constant, of bytes, by an alias, through ``getattr(builtins, ...)``, or
    graded names bound to wrappers of such code): compare it by hand (:func:`unreadable`)."""
    problems = _unreadable(trees)
    if not problems:
        return ""
    unbound = sorted(targets - set(graded))
    unbound_text = f"; no statement binds {', '.join(unbound)}" if unbound else ""
    shown = "; ".join(problems[:5]) + ("; ..." if len(problems) > 5 else "")
    return (
        f"{label}: compared in part: it runs code the report cannot read ({shown}{unbound_text}): "
        "compare it by hand"
    )


def _sorted_reads(read: list[Entry | str]) -> tuple[list[Entry], list[str]]:
    """The submissions compared, and the lines of the report's "not compared, or in part" section."""
    entries = [e for e in read if isinstance(e, Entry)]
    return entries, [e for e in read if isinstance(e, str)] + [e.note for e in entries if e.note]


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _size(functions: Iterable[ast.AST]) -> int:
    """Syntax-tree nodes of ``functions`` together, counting stopped past :data:`MAX_TOKENS`."""
    nodes = (1 for node in functions for _ in ast.walk(node))
    return sum(itertools.islice(nodes, MAX_TOKENS + 1))


def _estimated_note(result: dict) -> list[str]:
    if not result.get("estimated"):
        return []
    return [
        f"The time budget ran out: {result['estimated']} pair(s) are scored by fingerprints only "
        "(run again with a larger --time-budget for exact scores).",
        "",
    ]


def _cell(text: str) -> str:
    return md_code(text, 300, in_table=True)


def _per(pair: dict) -> str:
    return ", ".join(f"{md_text(k)} {v:.2f}" for k, v in pair["functions"].items())


def _copies(pair: dict) -> str:
    """The near-verbatim functions of a pair: ``f = g 0.97`` (ratio), ``f = g contained: 0.99``,
    ``f = g aligned: 0.96``, and ``graded code aligned: 0.98`` (:func:`_aligned_whole`)."""
    return ", ".join(_copy(*c) for c in pair.get("copies", [])[:12])


def _copy(x: str, y: str, score: float, how: str) -> str:
    measure = "" if how == "ratio" else f"{how}: "
    return (
        f"{WHOLE} {measure}{score:.2f}"
        if x == y == WHOLE
        else f"{md_text(x)} = {md_text(y)} {measure}{score:.2f}"
    )


def report_markdown(result: dict, skipped: list[str]) -> str:
    """The report as Markdown."""
    lines = [
        f"# Similarity report ({result['compared']} submissions, threshold {result['threshold']:g})",
        "",
        "Scores compare normalised code (names renamed, comments, docstrings and no-op statements dropped):",
        "the mean over the graded functions (and answers' code) both define, and near-verbatim functions",
        "whatever their names",
        "(listed). A high score is a reason to look at both notebooks, not proof of copying.",
        "",
        *_estimated_note(result),
        "## Groups (submissions linked by similar pairs)",
        "",
        *[f"- {len(g)} submissions: {', '.join(md_code(x) for x in g)}" for g in result["groups"]],
        "",
        "## Pairs of submissions",
        "",
        "| score | submission | submission | per function | near-verbatim functions |",
        "|---|---|---|---|---|",
    ]
    for p in result["pairs"]:
        lines.append(f"| {p['score']:.3f} | {_cell(p['a'])} | {_cell(p['b'])} | {_per(p)} | {_copies(p)} |")
    lines += [
        "",
        "## Matches with the course's own code",
        "",
        "| score | submission | reference | per function | near-verbatim functions |",
    ]
    lines.append("|---|---|---|---|---|")
    for m in result["references"]:
        cells = f"{_cell(m['submission'])} | {_cell(m['reference'])} | {_per(m)} | {_copies(m)}"
        lines.append(f"| {m['score']:.3f} | {cells} |")
    if skipped:
        lines += ["", "## Not compared, or compared in part", ""] + [f"- {md_code(s)}" for s in skipped]
    return "\n".join(line.replace("\n", " ") for line in lines) + "\n"


def _roster(parser: argparse.ArgumentParser, path: str | None) -> Roster | None:
    if path is None:
        return None
    try:
        return Roster.read(Path(path))
    except RosterError as exc:
        parser.error(str(exc))
    raise AssertionError("not reached")


def _submissions(
    parser: argparse.ArgumentParser, args: argparse.Namespace, roster: Roster | None, workdir: Path
) -> tuple[list[collect.Submission], list[str]]:
    """The notebooks to compare, collected as the grader collects them (:func:`helpers.grade.collect.collect`:
    flat folders, per-learner folders, Canvas and Gradescope downloads; archives extracted into
    ``workdir``), including those assigned to nobody; and the report's lines for the files refused."""
    found = collect.from_command_line(args.submissions, roster, workdir, parser.error, declared_sources(args))
    subs = _one_per_file([*found.submissions, *found.unassigned])
    if not subs:
        parser.error("no .ipynb submissions found in the given folder(s) (or none could be assigned)")
    return subs, [f"{name}: refused ({why})" for name, why in found.refused]


def _one_per_file(subs: list[collect.Submission]) -> list[collect.Submission]:
    """One submission per file: a group's (Gradescope: one notebook for several submitters) is
    compared once, as all its learners' (``s02 + s03``), never with itself.

    Examples
    --------
    >>> S = collect.Submission
    >>> group = [S(Path("g/hw.ipynb"), "g/hw.ipynb", x, None) for x in ("s02", "s03")]
    >>> [(s.display, s.learner) for s in _one_per_file(group)]
    [('g/hw.ipynb', 's02 + s03')]
    """
    by_file: dict[Path, list[collect.Submission]] = {}
    for sub in subs:
        by_file.setdefault(Path(sub.path), []).append(sub)
    return [
        dataclasses.replace(same[0], learner=" + ".join(s.learner for s in same if s.learner) or None)
        for same in by_file.values()
    ]


def _labels(subs: list[collect.Submission]) -> list[str]:
    """What tells the submissions apart: the roster's learner id, else the name as handed over (the
    path under the folder given); names that are still alike (``s1/hw.ipynb`` and ``s2/hw.ipynb``
    given one by one) get as many of their folders as it takes to differ (else a number).

    Examples
    --------
    >>> S = collect.Submission
    >>> subs = [S(Path(f"a/{x}/hw.ipynb"), "hw.ipynb", None, None) for x in ("s1", "s2")]
    >>> _labels(subs + [S(Path("x.ipynb"), "x.ipynb", "s3", None)])
    ['s1/hw.ipynb', 's2/hw.ipynb', 's3']
    """
    labels = [s.learner or s.display for s in subs]
    alike: dict[str, list[int]] = {}
    for i, label in enumerate(labels):
        alike.setdefault(label, []).append(i)
    for label, where in alike.items():
        if len(where) > 1:
            longer = _with_folders([_given_at(subs[i]) for i in where])
            for n, i in enumerate(where, start=1):
                labels[i] = longer[n - 1] if longer else f"{label} ({n})"
    return labels


def _given_at(sub: collect.Submission) -> tuple[str, ...]:
    """Where the instructor gave ``sub``, as path parts: a zip member as the zip's path then the
    member's (:attr:`collect.Submission.origin`), never the run's extraction folder.

    Examples
    --------
    >>> S = collect.Submission
    >>> member = '["/c/a.zip", "hw.ipynb"]'
    >>> _given_at(S(Path("/tmp/x/archive-1/hw.ipynb"), "a.zip/hw.ipynb", None, None, origin=member))
    ('/', 'c', 'a.zip', 'hw.ipynb')
    >>> _given_at(S(Path("/c/hw.ipynb"), "hw.ipynb", None, None, origin="/c/hw.ipynb"))
    ('/', 'c', 'hw.ipynb')
    """
    if sub.origin.startswith("["):
        archive, member = json.loads(sub.origin)
        return (*Path(archive).parts, *member.split("/"))
    return Path(sub.origin or Path(sub.path).absolute()).parts


def _with_folders(parts: list[tuple[str, ...]]) -> list[str] | None:
    """The shortest ends of these paths that differ (``folder/file``, ...), or ``None`` if none do."""
    for depth in range(2, max(map(len, parts)) + 1):
        longer = ["/".join(display_name(p) for p in ps[-depth:]) for ps in parts]
        if len(set(longer)) == len(longer):
            return longer
    return None


def main(argv: list[str]) -> int:
    """``python -m helpers.grade similarity --assignment A --out DIR SUBMISSIONS...``.

    Parameters
    ----------
    argv : list of str
        The arguments after ``similarity``.

    Returns
    -------
    int
        0 when the report was written (a usage error exits with status 2, through argparse).
    """

    parser = argparse.ArgumentParser(
        prog="python -m helpers.grade similarity",
        description="Compare the graded functions of a class's notebooks with each other and with the "
        "course's own solutions; writes OUT/similarity.md and OUT/similarity.json. Nothing is executed.",
    )
    add_assignment_option(parser)
    parser.add_argument("--out", required=True, help="output folder (created if needed)")
    parser.add_argument("--threshold", type=float, default=0.9, help="report pairs at or above (default 0.9)")
    parser.add_argument(
        "--min-tokens",
        type=int,
        default=25,
        help="ignore functions shorter than this many AST nodes (default 25)",
    )
    parser.add_argument("--max-mb", type=float, default=5.0, help="largest notebook read (default 5 MiB)")
    parser.add_argument(
        "--time-budget",
        type=float,
        default=TIME_BUDGET,
        help="seconds of exact comparisons; later pairs keep their fingerprint score "
        f"(default {TIME_BUDGET:g})",
    )
    parser.add_argument(
        "--roster",
        help="the class's roster (CSV, as for grading): each notebook is labelled by its learner's id",
    )
    add_submission_arguments(parser)  # what the grader reads, read as the grader reads it
    args = parser.parse_args(argv)
    submission_paths(parser, args)
    if not 0.0 < args.threshold <= 1.0:
        parser.error("--threshold must be in (0, 1]")
    assignment = resolve_assignment(parser, args.assignment)
    targets = {q.target for q in assignment.questions if q.kind == "function"}
    values = answers(args.assignment, assignment)
    with tempfile.TemporaryDirectory(prefix="helpers-grade-similarity-") as workdir:
        found, refused = _submissions(parser, args, _roster(parser, args.roster), Path(workdir))
        labels = display_names(_labels(found))  # NFC, look-alikes marked, as in grades.csv
        limit = int(args.max_mb * 2**20)
        read = [_read(s.path, label, targets, limit, values) for s, label in zip(found, labels, strict=True)]
    entries, skipped = _sorted_reads(read)
    skipped = refused + skipped
    references = reference_code(args.assignment, targets, values)
    result = compare_class(entries, references, args.threshold, args.min_tokens, args.time_budget)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out, "similarity.json", json.dumps({**result, "skipped": skipped}, indent=1).encode())
    write_atomic(out, "similarity.md", report_markdown(result, skipped).encode("utf-8", "backslashreplace"))
    print(
        f"compared {len(entries)} submission(s): {len(result['pairs'])} pair(s) and "
        f"{len(result['references'])} match(es) with the course's code at >= {args.threshold:g}; "
        f"wrote {out / 'similarity.md'}",
        file=sys.stderr,
    )
    return 0
