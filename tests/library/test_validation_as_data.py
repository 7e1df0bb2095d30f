"""Validation as data: every public function declares its constraints, fed each invalid value they imply.

The functions are the package's public names (``test_gates.public_objects``, plus trec_eval's drop-in
:mod:`topkeval.treceval`); a function's declaration is ``__constraints__``, set by
``_validation.validate_params``. Every public function that takes parameters declares (or is on
:data:`EXEMPT`, with the reason), so a new public function is covered as soon as it exists.
"""

from __future__ import annotations

import importlib
import inspect

import pytest

import topkeval
from topkeval import _registry
from topkeval._validation import MESSAGE, Flag, Integer, Maybe, Number, OneOf, Real, Text

from .test_gates import public_objects

#: Modules whose public functions are checked besides test_gates.PUBLIC (the command line's trec_eval).
ALSO_PUBLIC = ("topkeval.treceval",)

#: Public functions that declare no constraint, and why (keep this short: a parameter that can be checked
#: on its own belongs in a declaration).
EXEMPT = {
    # the validators themselves: they take the value to check and how to word its message
    "topkeval._validation.check_int": "a validator: its arguments are the value to check and its message",
    "topkeval._validation.check_k": "a validator",
    "topkeval._validation.check_ks": "a validator",
    "topkeval._validation.check_number": "a validator",
    "topkeval._validation.check_options": "a validator",
    "topkeval._validation.check_columns": "a validator",
    "topkeval.checks.check_library": "a validator (of an installed library's numbers)",
    # data alone: what they take is checked element by element, by hand (finite, paired, in range)
    "topkeval.stats.holm": "its one parameter is data (p-values, each checked to lie in [0, 1])",
    "topkeval.stats.paired_t_test": "its parameters are data (paired per-user scores)",
    "topkeval.stats.sign_flip_p_value": "its parameters are data (differences and sign patterns)",
    "topkeval.offpolicy.importance_weights": "its parameters are data (probabilities, each checked)",
    "topkeval.conventions.used_by": "its parameter is a registry Choice, not a user's value",
    "topkeval.trec.read_qrels": "its parameter is a file (a path or a stream), checked line by line",
    "topkeval.spark.summary": "its parameter is data (the per-user Spark DataFrame evaluate returns)",
    "topkeval.spark.skipped_users": "its parameter is data (the per-user Spark DataFrame evaluate returns)",
    "topkeval.treceval.parse_measures": "its parameter is data (trec_eval's measure names)",
    "topkeval.treceval.format_lines": "its parameters are evaluate's result and trec_eval's option record",
}

#: A valid value for each declared parameter a call must give (the others keep their defaults).
VALID = {
    "ranking": ["a", "b", "c"],
    "relevant": {"a": 1, "c": 2},
    "judgments": {"a": 1, "b": 0},
    "observed": {"a"},
    "propensity": {"a": 0.5, "b": 1.0, "c": 0.25},
    "k": 2,
    "ranks": [1, 2],
    "library": "trec_eval",
    "text": "AP",
    "sd": 0.1,
    "n": 100,
    "effect": 0.05,
    "p_value": 0.5,
    "clip": 10.0,
    "eta": 1.0,
    "name": "ml-100k",
    "n_items": 4,
    "option": "denominator",
    "value": "n_relevant",
    "family": "two candidates",
    "path": "ml-100k",
    "qrels": "qrels.txt",
    "run": "run.txt",
    "master": "local[1]",
    "app_name": "topkeval",
}


def _public_functions() -> dict[str, object]:
    objects = public_objects()
    for module_name in ALSO_PUBLIC:
        module = importlib.import_module(module_name)
        objects += [getattr(module, name) for name in module.__all__]
    found = {
        f"{function.__module__}.{function.__qualname__}": function
        for function in objects
        if inspect.isfunction(function)
    }
    return dict(sorted(found.items()))


PUBLIC = _public_functions()
DECLARED = {name: function for name, function in PUBLIC.items() if hasattr(function, "__constraints__")}
CASES = [
    (qualified, parameter, value, error)
    for qualified, function in DECLARED.items()
    for parameter, constraint in function.__constraints__.items()
    for value, error in constraint.invalid()
]


def test_every_public_function_with_parameters_declares_its_constraints():
    undeclared = [
        name
        for name, function in PUBLIC.items()
        if inspect.signature(function).parameters and name not in DECLARED and name not in EXEMPT
    ]
    assert not undeclared, f"public functions without declared constraints (or EXEMPT): {undeclared}"
    assert not set(EXEMPT) & set(DECLARED), "an exempt function declares: take it off EXEMPT"
    assert set(EXEMPT) <= set(PUBLIC), "EXEMPT names a function that is not public"


def test_every_registry_metric_function_declares_its_constraints():
    names = {function.__name__ for function in DECLARED.values()}
    missing = [m.function for m in _registry.METRICS.values() if m.function not in names]
    assert not missing, f"per-user functions without declared constraints: {missing}"
    for metric in _registry.METRICS.values():
        declared = getattr(topkeval, metric.function).__constraints__
        assert {"ranking", "relevant", "k"} <= set(declared)
        assert {o for o in metric.options if o in _registry.OPTIONS} <= set(declared), metric.key


def test_every_entry_point_declares_every_registry_option_it_takes():
    """evaluate and evaluate_arrays take the registry's options: each is declared, from the registry."""
    for name, inputs in (("evaluate", "frames"), ("evaluate_arrays", "arrays")):
        declared = getattr(topkeval, name).__constraints__
        assert set(_registry.option_names(inputs)) <= set(declared), name


def _shown(value) -> str:
    """A value in a test id, the same in every process: a set's repr follows the string hash, which
    differs between make test's two xdist workers (and they must collect the same ids)."""
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(sorted(map(repr, value))) + "}"
    return repr(value)


@pytest.mark.parametrize(
    "qualified, parameter, value, error",
    CASES,
    ids=[f"{q.split('.')[-1]}-{p}-{_shown(v)}" for q, p, v, _ in CASES],
)
def test_each_invalid_value_gets_its_error_class_and_the_template_message(qualified, parameter, value, error):
    function = DECLARED[qualified]
    signature = inspect.signature(function)
    declared = function.__constraints__
    arguments = {
        name: VALID[name] if name in declared else None  # undeclared: the declaration is checked first
        for name, p in signature.parameters.items()
        if p.default is inspect.Parameter.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    }
    arguments[parameter] = value
    with pytest.raises(error) as caught:
        function(**arguments)
    message = str(caught.value)
    constraint = declared[parameter]
    constraint = constraint.inner if isinstance(constraint, Maybe) else constraint
    assert message.startswith((f"{parameter} must", "relevance grades must")), message  # names what broke
    if isinstance(constraint, Integer | OneOf | Number | Real | Flag | Text):  # worded by the one template
        head = MESSAGE.split("{expected}")[0].format(name=parameter)
        assert message.startswith(head) and constraint.expected() in message, (message, constraint)
        assert "; got " in message
        assert repr(value) in message or str(value) in message


@pytest.mark.parametrize("qualified", list(DECLARED))
def test_every_default_passes_its_declaration(qualified):
    """A default the caller writes out is accepted (a None default needs Maybe); Maybe lets None through."""
    function = DECLARED[qualified]
    signature = inspect.signature(function)
    for parameter, constraint in function.__constraints__.items():
        default = signature.parameters[parameter].default
        if default is not inspect.Parameter.empty:
            constraint.check(parameter, default)
        if isinstance(constraint, Maybe):
            assert constraint.check(parameter, None) is None


def test_the_template_is_the_words_of_a_cutoff_error():
    with pytest.raises(topkeval.InvalidInputError) as caught:
        topkeval.precision_at_k(["a"], {"a"}, 0)
    assert str(caught.value) == "k must be an int >= 1 (the cutoff: how many top items count); got 0."
    with pytest.raises(topkeval.InputTypeError) as caught:
        topkeval.ndcg_at_k(["a"], {"a"}, 2.0)
    assert str(caught.value) == (
        "k must be an int >= 1 (the cutoff: how many top items count); got 2.0 of type float; write k=2."
    )
