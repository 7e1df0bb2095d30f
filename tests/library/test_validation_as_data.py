"""Validation as data: every public function that declares constraints is fed each invalid value they imply.

The functions are found by introspection (``__constraints__``, set by ``_validation.validate_params``),
so a new public function with a declaration is covered; every per-user metric of the registry must declare.
"""

from __future__ import annotations

import inspect

import pytest

import topkeval
from topkeval import _registry
from topkeval._validation import MESSAGE, Integer, Number, OneOf

from .test_gates import public_objects

#: A valid value for each parameter a declaration leaves out (the rest come from the constraints' own
#: valid examples below).
VALID = {
    "ranking": ["a", "b", "c"],
    "relevant": {"a": 1, "c": 2},
    "judgments": {"a": 1, "b": 0},
    "observed": {"a"},
    "propensity": {"a": 0.5, "b": 1.0, "c": 0.25},
    "k": 2,
    "ranks": [1, 2],
}


def _declared() -> dict[str, object]:
    found = {
        f"{function.__module__}.{function.__qualname__}": function
        for function in public_objects()
        if callable(function) and hasattr(function, "__constraints__")
    }
    return dict(sorted(found.items()))


DECLARED = _declared()
CASES = [
    (qualified, parameter, value, error)
    for qualified, function in DECLARED.items()
    for parameter, constraint in function.__constraints__.items()
    for value, error in constraint.invalid()
]


def test_every_registry_metric_function_declares_its_constraints():
    names = {function.__name__ for function in DECLARED.values()}
    missing = [m.function for m in _registry.METRICS.values() if m.function not in names]
    assert not missing, f"per-user functions without declared constraints: {missing}"
    for metric in _registry.METRICS.values():
        declared = getattr(topkeval, metric.function).__constraints__
        assert {"ranking", "relevant", "k"} <= set(declared)
        assert {o for o in metric.options if o in _registry.OPTIONS} <= set(declared), metric.key


@pytest.mark.parametrize(
    "qualified, parameter, value, error", CASES, ids=[f"{q.split('.')[-1]}-{p}-{v!r}" for q, p, v, _ in CASES]
)
def test_each_invalid_value_gets_its_error_class_and_the_template_message(qualified, parameter, value, error):
    function = DECLARED[qualified]
    signature = inspect.signature(function)
    arguments = {
        name: VALID[name]
        for name, p in signature.parameters.items()
        if p.default is inspect.Parameter.empty and name in VALID
    }
    arguments[parameter] = value
    with pytest.raises(error) as caught:
        function(**arguments)
    message = str(caught.value)
    constraint = function.__constraints__[parameter]
    assert message.startswith((f"{parameter} must", "relevance grades must")), message  # names what broke
    if isinstance(constraint, Integer | OneOf | Number):  # worded by the one template
        head = MESSAGE.split("{expected}")[0].format(name=parameter)
        assert message.startswith(head) and constraint.expected() in message, (message, constraint)
        assert "; got " in message
        assert repr(value) in message or str(value) in message


def test_the_template_is_the_words_of_a_cutoff_error():
    with pytest.raises(topkeval.InvalidInputError) as caught:
        topkeval.precision_at_k(["a"], {"a"}, 0)
    assert str(caught.value) == "k must be an int >= 1 (the cutoff: how many top items count); got 0."
    with pytest.raises(topkeval.InputTypeError) as caught:
        topkeval.ndcg_at_k(["a"], {"a"}, 2.0)
    assert str(caught.value) == (
        "k must be an int >= 1 (the cutoff: how many top items count); got 2.0 of type float; write k=2."
    )
