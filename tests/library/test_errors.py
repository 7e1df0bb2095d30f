"""Every exception topkeval defines survives pickling: an error raised in another process reaches the caller.

The classes are found by walking the package's modules, not listed here, so a new exception is covered the
day it is written.
"""

from __future__ import annotations

import importlib
import inspect
import pickle
import pkgutil
from concurrent.futures import ProcessPoolExecutor

import pandas as pd
import pytest

import topkeval

#: Modules that import an optional extra; they are skipped when the extra is missing.
_OPTIONAL = {"topkeval.spark", "topkeval.dask"}


def _exception_classes() -> list[type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.iter_modules(topkeval.__path__, "topkeval."):
        if info.name == "topkeval.__main__":
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError:
            if info.name in _OPTIONAL:
                continue
            raise
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, BaseException) and cls.__module__.startswith("topkeval"):
                found[cls.__qualname__] = cls
    return [found[name] for name in sorted(found)]


EXCEPTIONS = _exception_classes()
#: A value for each constructor argument, by its name (an argument not listed here gets a string).
_SAMPLE = {"message": "what was wrong, and how to fix it", "user": ("u", 7), "item": "i9", "ranks": [2, 5]}


def _instance(cls: type[BaseException]) -> BaseException:
    own = [c for c in cls.__mro__ if c.__module__.startswith("topkeval") and "__init__" in vars(c)]
    if not own:  # the builtin constructor: the message only
        return cls(_SAMPLE["message"])
    signature = inspect.signature(cls)
    arguments = [
        _SAMPLE.get(name, f"<{name}>")
        for name, parameter in signature.parameters.items()
        if parameter.default is inspect.Parameter.empty
        and parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD)
    ]
    return cls(*arguments)


def test_the_walk_finds_every_public_exception():
    names = {cls.__name__ for cls in EXCEPTIONS}
    public = {name for name in topkeval.__all__ if isinstance(getattr(topkeval, name), type)}
    public = {name for name in public if issubclass(getattr(topkeval, name), BaseException)}
    assert public <= names
    assert {"DuplicateRecommendationError", "DuplicateRelevantError", "DownloadError"} <= names


@pytest.mark.parametrize("cls", EXCEPTIONS, ids=lambda cls: cls.__name__)
def test_every_exception_round_trips_through_pickle(cls):
    error = _instance(cls)
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is cls
    assert str(copy) == str(error) == _SAMPLE["message"]
    assert vars(copy) == vars(error)  # user, item, ranks...


class Unpicklable(ValueError):
    """The bug the round trip exists for: ``__init__`` takes more than the message, ``args`` holds only it."""

    def __init__(self, message, user):
        super().__init__(message)
        self.user = user


def test_the_round_trip_test_can_fail():
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        pickle.loads(pickle.dumps(Unpicklable("m", 1)))


def _evaluate_a_list_with_a_repeat() -> None:
    recs = pd.DataFrame({"user": [1, 1], "item": ["a", "a"], "rank": [1, 2]})
    topkeval.evaluate(recs, pd.DataFrame({"user": [1], "item": ["a"]}), k=2)


def _recall_of_a_user_with_nothing_relevant() -> None:
    topkeval.recall_at_k(["a"], set(), 1)


@pytest.mark.parametrize(
    "task, cls, words",
    [
        (_evaluate_a_list_with_a_repeat, topkeval.DuplicateRecommendationError, "more than once for user 1"),
        (_recall_of_a_user_with_nothing_relevant, topkeval.NoRelevantItemError, "no relevant item"),
    ],
    ids=["duplicate", "no-relevant"],
)
def test_an_error_raised_in_a_process_pool_reaches_the_caller_with_its_message(task, cls, words):
    with ProcessPoolExecutor(max_workers=1) as pool:
        future = pool.submit(task)
        with pytest.raises(cls, match=words) as caught:
            future.result(timeout=120)
    if cls is topkeval.DuplicateRecommendationError:
        assert (caught.value.user, caught.value.item, caught.value.ranks) == (1, "a", [1, 2])
