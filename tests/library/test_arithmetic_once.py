"""Every discount is computed in ``topkeval._cutoff``; the registry holds data, not hooks; the course uses
only the library's public API."""

from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pytest

import topkeval
from topkeval import _registry, rank_discount
from topkeval.offpolicy import pbm_ips, pbm_ips_per_session

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "topkeval" / "src" / "topkeval"
#: The one module that may take log2 (the DCG discount); beyond's novelty takes log2 of a popularity
#: share (self-information in bits), which is no discount.
LOG_ALLOWED = {"_cutoff.py": "the discounts", "beyond.py": "novelty's bits"}
NAIVE = {"log2": lambda r: 1 / math.log2(r + 1), "clipped_log2": lambda r: 1 / math.log2(max(r, 2))}


def _log_calls(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "log2"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id in {"np", "math", "numpy"}
    ]


def _python_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "results" not in p.parts)


@pytest.mark.parametrize(
    "path", [p for p in _python_files(LIBRARY) if p.name not in LOG_ALLOWED], ids=lambda p: p.name
)
def test_no_library_module_writes_a_log_discount_again(path):
    assert not _log_calls(path), (
        f"{path.name} computes a log at lines {_log_calls(path)}: use topkeval._cutoff"
    )


def test_the_course_simulations_take_the_discount_from_the_library():
    for name in ("online.py", "sampled.py"):
        path = ROOT / "helpers" / "experiments" / name
        assert not _log_calls(path), f"{name}: use topkeval.rank_discount, not a log of its own"


def test_the_log_scan_can_fail(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import numpy as np\nweights = 1.0 / np.log2(np.arange(2, 12))\n")
    assert _log_calls(bad) == [2]


@pytest.mark.parametrize("kind", sorted(NAIVE))
def test_rank_discount_is_the_discount_ndcg_uses(kind):
    for rank in range(1, 12):
        ranking = [f"x{i}" for i in range(rank - 1)] + ["hit"]
        assert rank_discount(rank, kind) == pytest.approx(
            topkeval.dcg_at_k(ranking, {"hit"}, rank, discount=kind), rel=1e-15
        )
        assert rank_discount(rank, kind) == pytest.approx(NAIVE[kind](rank), rel=1e-15)
    assert rank_discount(np.array([[1, 3]]), kind).shape == (1, 2)


@pytest.mark.parametrize("bad", [0, [1, 0.5], [np.nan]])
def test_rank_discount_refuses_a_rank_below_one(bad):
    with pytest.raises(topkeval.InvalidInputError, match="ranks must be numbers >= 1"):
        rank_discount(bad)


def test_pbm_ips_honours_the_library_discount_option():
    rng = np.random.default_rng(3)
    sessions, k = 40, 5
    clicks = (rng.random((sessions, k)) < 0.4).astype(int)
    new_ranks = np.array([rng.permutation(k) + 1 for _ in range(sessions)])
    exam = [(1 / r) ** 0.8 for r in range(1, k + 1)]
    values = {}
    for kind in (*_registry.OPTIONS["discount"].values, "dcg"):
        lam = NAIVE[_registry.OPTIONS["discount"].default if kind == "dcg" else kind]
        naive = [
            sum(c * lam(r) / e for c, r, e in zip(row_c, row_r, exam, strict=True))
            for row_c, row_r in zip(clicks.tolist(), new_ranks.tolist(), strict=True)
        ]
        got = pbm_ips_per_session(clicks, new_ranks, eta=0.8, discount=kind)
        assert got == pytest.approx(naive, rel=1e-12)
        values[kind] = pbm_ips(clicks, new_ranks, eta=0.8, discount=kind).estimate
    assert values["dcg"] == values["log2"] != values["clipped_log2"]
    default = pbm_ips(clicks, new_ranks, eta=0.8).estimate
    assert default == values[_registry.OPTIONS["discount"].default]


def test_pbm_ips_names_the_library_discounts_in_its_error():
    with pytest.raises(topkeval.InvalidInputError, match="'log2', 'clipped_log2', 'rank' or a sequence"):
        pbm_ips([[1, 0], [0, 1]], [[1, 2], [2, 1]], eta=1.0, discount="ln")


# ---- the registry holds data: nothing in it is filled by another module
def test_the_registry_has_no_list_another_module_fills():
    hooks = [
        name for name, value in vars(_registry).items() if isinstance(value, list | set) and name != "__all__"
    ]
    assert not hooks, f"mutable module-level hooks in the registry: {hooks}"
    assert not hasattr(_registry, "USED_BY") and not hasattr(_registry, "PENDING_DOCS")


def test_every_marked_docstring_is_rendered_by_the_package():
    marked = [
        getattr(topkeval, name)
        for name in topkeval.__all__
        if getattr(getattr(topkeval, name), _registry.TABLES_ATTRIBUTE, ())
    ]
    assert {f.__name__ for f in marked} >= {"evaluate", "evaluate_arrays", "ndcg_at_k", "dcg_at_k"}
    for function in marked:
        assert "%(" not in function.__doc__, function.__name__
        for name in getattr(function, _registry.TABLES_ATTRIBUTE):
            rendered = (
                "Used by" if name != "metrics" else "``'precision'``"
            )  # an option's table, the key list
            assert rendered in function.__doc__, (function.__name__, name)


# ---- the course uses the public API only
def _private_names(node: ast.AST) -> list[str]:
    """The private topkeval modules and names one import statement reaches (dunders included)."""
    if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("topkeval"):
        parts = node.module.split(".")
        found = [node.module] if any(p.startswith("_") for p in parts) else []
        return found + [f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.startswith("topkeval") and "._" in a.name]
    return []


def _private_imports(path: Path) -> list[str]:
    found = [
        name
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        for name in _private_names(node)
    ]
    return [name for name in found if not name.rsplit(".", 1)[-1].startswith("__")]  # __all__ is public


@pytest.mark.parametrize(
    "path", _python_files(ROOT / "helpers"), ids=lambda p: str(p.relative_to(ROOT / "helpers"))
)
def test_no_course_module_imports_a_private_library_module(path):
    assert not _private_imports(path), f"{path}: {_private_imports(path)}"


def test_the_private_import_scan_can_fail(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from topkeval._cutoff import discounts_at\nfrom topkeval import _registry\nimport topkeval._docs\n"
        "from topkeval import __all__\n"
    )
    assert _private_imports(bad) == ["topkeval._cutoff", "topkeval._registry", "topkeval._docs"]


def test_the_public_options_say_who_uses_each_value_from_the_convention_table():
    from topkeval.conventions import used_by

    for public, registry in (
        (topkeval.OPTIONS, _registry.OPTIONS),
        (topkeval.BATCH_OPTIONS, _registry.BATCH_OPTIONS),
    ):
        assert list(public) == list(registry)
        for name, option in public.items():
            assert option.values == registry[name].values and option.default == registry[name].default
            for choice in option.choices:
                assert choice.used_by and choice.used_by == used_by(choice)
