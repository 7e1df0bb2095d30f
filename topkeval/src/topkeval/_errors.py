"""The exceptions topkeval raises for bad input; public as ``topkeval.InvalidInputError`` and so on.

Each is a subclass of ``ValueError`` or ``TypeError``, so ``except ValueError``
keeps working. This module imports nothing of the package.

Every exception survives pickling with its message and attributes (an error
raised in a process pool or a Dask worker reaches the caller as itself): an
exception whose ``__init__`` takes more than the message keeps those values in
``args`` so that ``pickle`` can call ``__init__`` again with them.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "InvalidInputError",
    "InputTypeError",
    "NoRelevantItemError",
    "DuplicateRecommendationError",
    "DuplicateRelevantError",
]


class InvalidInputError(ValueError):
    """A value topkeval cannot evaluate; the message says what was wrong and how to fix it.

    A ``ValueError``, so ``except ValueError`` catches it too.
    """

    __module__ = "topkeval"


class InputTypeError(TypeError):
    """An argument of the wrong type (a set where a ranking is expected, floats where ids are)."""

    __module__ = "topkeval"


class NoRelevantItemError(InvalidInputError):
    """A metric that is 0/0 for a user with no relevant item (recall, AP, NDCG), or ``empty="raise"``."""

    __module__ = "topkeval"


class DuplicateRecommendationError(InvalidInputError):
    """A ranking lists an item more than once. ``user``, ``item`` and ``ranks`` say where."""

    __module__ = "topkeval"

    def __init__(self, message: str, user: Any, item: Any, ranks: list[int]):
        super().__init__(message, user, item, ranks)
        self.user, self.item, self.ranks = user, item, ranks

    def __str__(self) -> str:
        return str(self.args[0])


class DuplicateRelevantError(InvalidInputError):
    """A user's relevant items list an item more than once. ``user`` and ``item`` say which."""

    __module__ = "topkeval"

    def __init__(self, message: str, user: Any, item: Any):
        super().__init__(message, user, item)
        self.user, self.item = user, item

    def __str__(self) -> str:
        return str(self.args[0])
