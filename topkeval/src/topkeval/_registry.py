"""The one registry of metrics and their variants.

Everything that names a metric or an option reads it from here: the column
names of :func:`topkeval.evaluate`, the lists in error messages, the option
tables inside the docstrings and the metric table in ``README.md`` (a test
checks that the README holds exactly :func:`markdown_table`'s output).
"""

from __future__ import annotations

import importlib
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from . import _kernels

__all__ = [
    "METRICS",
    "OPTIONS",
    "BATCH_OPTIONS",
    "PARAMETERS",
    "BEYOND_METRICS",
    "BEYOND_OPTIONS",
    "Metric",
    "Option",
    "Parameter",
    "BeyondMetric",
    "markdown_table",
    "option_table",
]


@dataclass(frozen=True)
class Choice:
    """One value of an option: the formula it names and who uses it.

    ``used_by`` is generated from the library-convention table
    (:data:`topkeval.conventions.CONVENTIONS`), so the two cannot disagree;
    ``also`` adds who else uses it outside that table (seeds, papers).
    """

    value: str
    formula: str
    also: str = ""
    option: str = ""  # filled in by Option

    @property
    def used_by(self) -> str:
        from .conventions import libraries_using  # the table of conventions reads this registry

        parts = [libraries_using(self.option, self.value), self.also]
        return "; ".join(p for p in parts if p) or "none of the libraries in topkeval.conventions"


@dataclass(frozen=True)
class Option:
    """A keyword option whose values name a formula, e.g. the AP denominator."""

    name: str
    default: str
    choices: tuple[Choice, ...]
    why_default: str

    def __post_init__(self):
        object.__setattr__(self, "choices", tuple(replace(c, option=self.name) for c in self.choices))

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(c.value for c in self.choices)


@dataclass(frozen=True)
class Parameter:
    """A numeric keyword option of one metric, e.g. RBP's persistence ``p``."""

    name: str
    default: float | None
    meaning: str
    low: float
    high: float = float("inf")
    low_open: bool = True
    high_open: bool = True
    none_means: str = ""  # what None stands for, when None is allowed

    def describe(self) -> str:
        span = f"{'(' if self.low_open else '['}{self.low:g}, {self.high:g}{')' if self.high_open else ']'}"
        default = f"{self.default:g}" if self.default is not None else f"None ({self.none_means})"
        return f"`{self.name}` in {span}, default {default}"


@dataclass(frozen=True)
class Metric:
    """A metric: its per-user function, its batch kernel, its rule for a user with no relevant item.

    Everything that lists metrics reads this entry: :func:`topkeval.evaluate`'s
    columns and dispatch, error messages, docstrings, the README table, the
    grader's edge cases and the tests' lists. Adding a metric means adding an
    entry here, its per-user function, its kernel in :mod:`topkeval._kernels`,
    and their tests.
    """

    key: str  # column prefix in evaluate(): "ap" -> "ap@10"
    function: str  # name of the per-user function in topkeval (see per_user)
    kernel: Callable[[_kernels.Cut], object]  # batch kernel: one value per user of a block
    notation: str  # per-user notation
    mean_name: str  # what the mean over users is called
    formula: str
    empty_value: float | str | None  # per-user value with no relevant item (a str: in words); None: 0/0
    options: tuple[str, ...] = field(default_factory=tuple)  # names in OPTIONS or PARAMETERS
    family: str = "accuracy"  # "accuracy" or "user model" (for tables)
    by_default: bool = True  # computed by evaluate() when metrics=None

    @property
    def per_user(self) -> Callable[..., float]:
        """The per-user function, e.g. :func:`topkeval.precision_at_k`."""
        return getattr(importlib.import_module("topkeval"), self.function)

    @property
    def no_relevant(self) -> str:
        """What the per-user function does for a user with no relevant item, in words."""
        if self.empty_value is None:
            return "raises ValueError (0/0)"
        return self.empty_value if isinstance(self.empty_value, str) else repr(self.empty_value)


OPTIONS: dict[str, Option] = {
    "denominator": Option(
        name="denominator",
        default="min_k_n_relevant",
        choices=(
            Choice(
                "min_k_n_relevant",
                "min(k, |R|)",
                also="seeds 001 and 004",
            ),
            Choice(
                "n_relevant",
                "|R|",
                also="",
            ),
            Choice(
                "n_hits",
                "hits in the top k (0 hits gives 0)",
                also="seed 000",
            ),
        ),
        why_default=(
            "min(k, |R|) is the largest number of hits a top-k list can hold, so a perfect list scores 1 "
            "at every k (as NDCG@k, whose ideal list is also cut at k); it is what most recommender "
            "libraries compute, and it equals |R| whenever |R| <= k, e.g. in leave-one-out."
        ),
    ),
    "gain": Option(
        name="gain",
        default="linear",
        choices=(
            Choice(
                "linear",
                "gain = grade",
                also="",
            ),
            Choice(
                "exponential",
                "gain = 2**grade - 1",
                also="Burges et al. 2005",
            ),
        ),
        why_default=(
            "linear gain is trec_eval's and scikit-learn's; for binary relevance both choices give the "
            "same number (2**1 - 1 = 1)."
        ),
    ),
    "ideal": Option(
        name="ideal",
        default="all",
        choices=(
            Choice(
                "all",
                "IDCG@k from all the user's judged relevant items, best grades first, cut at k",
                also="",
            ),
            Choice(
                "listed",
                "IDCG@k only from the items in the ranking, best grades first, cut at k",
                also="seed 003's graded example",
            ),
        ),
        why_default=(
            "an ideal built only from the listed items forgives relevant items the model never "
            "recommended; the IR standard counts them."
        ),
    ),
    "discount": Option(
        name="discount",
        default="log2",
        choices=(
            Choice(
                "log2",
                "discount_i = 1 / log2(i + 1)",
                also="Spark and Microsoft Recommenders write ln(i + 1), which cancels in NDCG",
            ),
            Choice(
                "clipped_log2",
                "discount_i = 1 / log2(max(i, 2)): ranks 1 and 2 weigh the same",
                also="Järvelin and Kekäläinen's original DCG (2002)",
            ),
        ),
        why_default=(
            "1/log2(i + 1) gives rank 1 more weight than rank 2 and is what nearly every library and "
            "paper means by NDCG; the clipped form is the 2002 original, still LensKit's default."
        ),
    ),
}

BATCH_OPTIONS: dict[str, Option] = {
    "empty": Option(
        name="empty",
        default="raise",
        choices=(
            Choice(
                "raise",
                "stop with an error that counts and names the users with no relevant item",
                also="",
            ),
            Choice(
                "skip",
                "leave those users out of the result (listed in result.attrs['skipped_users'])",
                also="",
            ),
            Choice(
                "zero",
                "keep those users with every metric 0 (the RBP residual keeps its value, p**k plus "
                "any unjudged weight)",
                also="",
            ),
        ),
        why_default=(
            "the choice moves MAP by several points and libraries disagree, so it must be made "
            "explicitly; nothing is dropped or zeroed behind your back."
        ),
    ),
    "ties": Option(
        name="ties",
        default="item_ascending",
        choices=(
            Choice(
                "item_ascending",
                "equal scores are ordered by item id, smallest first",
                also="ir_measures' msmarco provider (its RR@k)",
            ),
            Choice(
                "item_descending",
                "equal scores are ordered by item id, largest first",
                also="",
            ),
            Choice(
                "input_order",
                "equal scores keep the order of the rows in recommendations",
                also="",
            ),
            Choice(
                "raise",
                "stop with an error naming a user with tied scores",
                also="none: for when a tie would be a bug",
            ),
        ),
        why_default=(
            "a rule that depends only on the ids gives the same ranking however the rows are shuffled."
        ),
    ),
}

METRICS: dict[str, Metric] = {
    "precision": Metric(
        key="precision",
        kernel=_kernels.precision,
        function="precision_at_k",
        notation="P@k",
        mean_name="P@k",
        formula="hits in the top k / k",
        empty_value=0.0,
    ),
    "recall": Metric(
        key="recall",
        kernel=_kernels.recall,
        function="recall_at_k",
        notation="R@k",
        mean_name="R@k",
        formula="hits in the top k / |R|",
        empty_value=None,
    ),
    "hit": Metric(
        key="hit",
        kernel=_kernels.hit,
        function="hit_at_k",
        notation="Hit@k",
        mean_name="HR@k (hit ratio)",
        formula="1 if any of the top k is relevant, else 0",
        empty_value=0.0,
    ),
    "rr": Metric(
        key="rr",
        kernel=_kernels.reciprocal_rank,
        function="reciprocal_rank_at_k",
        notation="RR@k",
        mean_name="MRR@k",
        formula="1 / rank of the first relevant item if it is within the top k, else 0",
        empty_value=0.0,
    ),
    "ap": Metric(
        key="ap",
        kernel=_kernels.average_precision,
        function="average_precision_at_k",
        notation="AP@k",
        mean_name="MAP@k",
        formula="sum of P@i over the ranks i <= k that hold a relevant item / denominator",
        empty_value=None,
        options=("denominator",),
    ),
    "ndcg": Metric(
        key="ndcg",
        kernel=_kernels.ndcg,
        function="ndcg_at_k",
        notation="NDCG@k",
        mean_name="NDCG@k",
        formula="DCG@k / IDCG@k, DCG@k = sum over i <= k of gain_i / log2(i + 1)",
        empty_value=None,
        options=("gain", "ideal", "discount"),
    ),
    "err": Metric(
        key="err",
        kernel=_kernels.expected_reciprocal_rank,
        function="err_at_k",
        notation="ERR@k",
        mean_name="ERR@k",
        formula="sum over i <= k of R_i / i * prod over j < i of (1 - R_j), R = (2**grade - 1) / "
        "2**max_grade "
        "(cascade: the user stops at the first satisfying item; Chapelle et al. 2009)",
        empty_value=0.0,
        options=("max_grade",),
        family="user model",
        by_default=False,
    ),
    "rbp": Metric(
        key="rbp",
        kernel=_kernels.rank_biased_precision,
        function="rbp_at_k",
        notation="RBP@k",
        mean_name="RBP@k",
        formula="(1 - p) * sum over the relevant ranks i <= k of p**(i - 1) (patience: read on with chance "
        "p; "
        "Moffat and Zobel 2008)",
        empty_value=0.0,
        options=("p",),
        family="user model",
        by_default=False,
    ),
    "rbp_residual": Metric(
        key="rbp_residual",
        kernel=_kernels.rbp_residual,
        function="rbp_residual_at_k",
        notation="RBP residual@k",
        mean_name="mean RBP residual@k",
        formula="p**k + (1 - p) * sum over the ranks i <= k holding an unjudged item of p**(i - 1): how much "
        "RBP@k could still grow (Moffat and Zobel 2008: report RBP as base + residual)",
        empty_value="p**k plus the weight of unjudged items (it does not depend on the relevant ones)",
        options=("p",),
        family="user model",
        by_default=False,
    ),
}

#: Numeric options of single metrics (ERR's grade scale, RBP's persistence).
PARAMETERS: dict[str, Parameter] = {
    "p": Parameter("p", 0.8, "RBP's persistence: the chance of reading on after each item", 0.0, 1.0),
    "max_grade": Parameter(
        "max_grade",
        None,
        "ERR's top of the grade scale",
        0.0,
        none_means="per user: 1, allowed only while no grade exceeds 1; in a batch: the largest grade "
        "of the whole truth, at least 1, recorded in attrs['err_max_grade']",
    ),
}


@dataclass(frozen=True)
class BeyondMetric:
    """A beyond-accuracy metric: it reads the lists (and item popularity or features), not relevance."""

    key: str
    function: str  # in topkeval.beyond
    notation: str
    mean_name: str
    formula: str
    scope: str  # "per user" (averaged over users) or "all users" (one number for the whole run)
    needs: str  # what besides the lists
    options: tuple[str, ...] = ()  # keys of BEYOND_OPTIONS


#: Options of the beyond-accuracy metrics, keyed ``<metric>_<keyword>``; ``Option.name`` is the keyword.
BEYOND_OPTIONS: dict[str, Option] = {
    "gini_denominator": Option(
        name="denominator",
        default="n",
        choices=(
            Choice(
                "n",
                "G = sum over i of (2i - n - 1) c_(i) / (n * sum c): the Gini coefficient of the n counts; "
                "one item taking every slot gives 1 - 1/n",
                also="RecBole GiniIndex and LensKit ListGini (lenskit.stats.gini); the usual Gini "
                "coefficient",
            ),
            Choice(
                "n_minus_1",
                "G = sum over i of (2i - n - 1) c_(i) / ((n - 1) * sum c) = n/(n - 1) times the above; "
                "one item taking every slot gives exactly 1",
                also="Shani and Gunawardana, Evaluating Recommendation Systems (Recommender Systems "
                "Handbook, 2011)",
            ),
        ),
        why_default=(
            "n is the Gini coefficient as statistics defines it and what RecBole and LensKit compute; the "
            "two differ by the factor n/(n - 1), about 0.1 % for a catalogue of 1,000 items, so the "
            "literature "
            "gives no reason to move the default; Shani and Gunawardana's n - 1 rescales the maximum to 1."
        ),
    ),
}


BEYOND_METRICS: dict[str, BeyondMetric] = {
    "novelty": BeyondMetric(
        "novelty",
        "novelty_at_k",
        "Nov@k",
        "novelty@k",
        "mean over the top k of -log2(popularity share)",
        "per user",
        "item popularity",
    ),
    "arp": BeyondMetric(
        "arp",
        "arp_at_k",
        "ARP@k",
        "ARP@k",
        "mean popularity share of the top k",
        "per user",
        "item popularity",
    ),
    "ild": BeyondMetric(
        "ild",
        "intra_list_diversity_at_k",
        "ILD@k",
        "ILD@k",
        "mean distance over the pairs of items in the top k",
        "per user",
        "item vectors or categories",
    ),
    "coverage": BeyondMetric(
        "coverage",
        "catalog_coverage",
        "Cov@k",
        "coverage@k",
        "distinct items in any top k / catalogue size",
        "all users",
        "the catalogue size",
    ),
    "gini": BeyondMetric(
        "gini",
        "gini_index",
        "Gini@k",
        "Gini@k",
        "Gini index of the number of top-k slots each catalogue item gets",
        "all users",
        "the catalogue",
        options=("gini_denominator",),
    ),
}


#: The order of the columns in :func:`topkeval.evaluate`.
METRIC_KEYS: tuple[str, ...] = tuple(METRICS)
#: What :func:`topkeval.evaluate` computes when ``metrics=None``.
DEFAULT_METRIC_KEYS: tuple[str, ...] = tuple(key for key, m in METRICS.items() if m.by_default)


def option_table(name: str) -> str:
    """Return the numpydoc-friendly listing of one option's values.

    Used to fill the ``Notes`` of the functions that take the option.
    """
    option = {**OPTIONS, **BATCH_OPTIONS}[name]
    lines = [f"``{name}`` (default ``{option.default!r}``):", ""]
    for choice in option.choices:
        text = f"- ``{choice.value!r}``: {choice.formula}. Used by {choice.used_by}."
        lines.append(textwrap.fill(text, width=76, subsequent_indent="  "))
    lines += ["", textwrap.fill(f"Why the default: {option.why_default}", width=76)]
    return "\n".join(lines)


def metric_list() -> str:
    """The metric keys as a docstring sentence: which ``metrics=`` values exist."""
    default = ", ".join(f"``{key!r}``" for key in DEFAULT_METRIC_KEYS)
    return (
        "Any of "
        + ", ".join(f"``{key!r}``" for key in METRICS)
        + f" (columns come in that order); default {default}."
    )


def document(*option_names: str):
    """Decorator: replace ``%(name)s`` in a docstring with :func:`option_table`.

    The docstring keeps its literal braces (sets in examples), so only these
    named placeholders are substituted.
    """

    def decorate(function):
        doc = function.__doc__ or ""
        for name in option_names:
            table = metric_list() if name == "metrics" else option_table(name)
            # indent continuation lines like the placeholder line
            marker = f"%({name})s"
            index = doc.find(marker)
            if index < 0:
                raise RuntimeError(f"{function.__name__}'s docstring has no {marker} placeholder")
            line_start = doc.rfind("\n", 0, index) + 1
            indent = doc[line_start:index]
            doc = doc.replace(marker, table.replace("\n", "\n" + indent))
        function.__doc__ = doc
        return function

    return decorate


def document_beyond(*option_keys: str):
    """Decorator: replace ``%(key)s`` in a docstring with the listing of a :data:`BEYOND_OPTIONS` entry."""

    def decorate(function):
        doc = function.__doc__ or ""
        for key in option_keys:
            option, marker = BEYOND_OPTIONS[key], f"%({key})s"
            index = doc.find(marker)
            if index < 0:
                raise RuntimeError(f"{function.__name__}'s docstring has no {marker} placeholder")
            indent = doc[doc.rfind("\n", 0, index) + 1 : index]
            lines = [f"``{option.name}`` (default ``{option.default!r}``):", ""]
            for choice in option.choices:
                text = f"- ``{choice.value!r}``: {choice.formula}. Used by {choice.also}."
                lines.append(textwrap.fill(text, width=76, subsequent_indent="  "))
            lines += ["", textwrap.fill(f"Why the default: {option.why_default}", width=76)]
            doc = doc.replace(marker, "\n".join(lines).replace("\n", "\n" + indent))
        function.__doc__ = doc
        return function

    return decorate


def _row(*cells: str) -> str:
    """One Markdown table row; a ``|`` inside a cell (as in ``|R|``) is escaped,
    or it would split the cell."""
    return "| " + " | ".join(str(cell).replace("|", "\\|") for cell in cells) + " |"


def markdown_table() -> str:
    """Return the metric table shown in README.md (generated, never typed)."""
    rows = [
        _row(
            "column in `evaluate`",
            "per-user function",
            "notation",
            "mean over users",
            "formula",
            "no relevant item",
            "options",
        ),
        "|---|---|---|---|---|---|---|",
    ]
    for metric in METRICS.values():
        options = ", ".join(_option_cell(name) for name in metric.options) or "none"
        column = f"`{metric.key}@k`" + ("" if metric.by_default else " (on request)")
        rows.append(
            _row(
                column,
                f"`{metric.function}`",
                metric.notation,
                metric.mean_name,
                metric.formula,
                metric.no_relevant,
                options,
            )
        )
    rows += ["", "Which libraries compute which variant:", ""]
    rows += [_row("option", "value", "formula", "used by"), "|---|---|---|---|"]
    for option in (*OPTIONS.values(), *BATCH_OPTIONS.values()):
        for choice in option.choices:
            value = f"`{choice.value}`" + (" (default)" if choice.value == option.default else "")
            rows.append(_row(f"`{option.name}`", value, choice.formula, choice.used_by))
    rows += ["", "Beyond accuracy (`topkeval.beyond`: they read the lists, not relevance):", ""]
    rows += [
        _row("metric", "function", "notation", "formula", "computed", "needs", "options"),
        "|---|---|---|---|---|---|---|",
    ]
    for beyond in BEYOND_METRICS.values():
        options = ", ".join(_beyond_option_cell(name) for name in beyond.options) or "none"
        rows.append(
            _row(
                f"`{beyond.key}`",
                f"`{beyond.function}`",
                beyond.notation,
                beyond.formula,
                beyond.scope,
                beyond.needs,
                options,
            )
        )
    for key, option in BEYOND_OPTIONS.items():
        rows += ["", f"`{option.name}` of `{key.split('_')[0]}`:", ""]
        rows += [_row("value", "formula", "used by"), "|---|---|---|"]
        for choice in option.choices:
            value = f"`{choice.value}`" + (" (default)" if choice.value == option.default else "")
            rows.append(_row(value, choice.formula, choice.also))
        rows += ["", f"Why the default: {option.why_default}"]
    return "\n".join(rows)


def _beyond_option_cell(key: str) -> str:
    option = BEYOND_OPTIONS[key]
    return f"`{option.name}`: " + " / ".join(
        f"**`{v}`**" if v == option.default else f"`{v}`" for v in option.values
    )


def _option_cell(name: str) -> str:
    if name in PARAMETERS:
        return PARAMETERS[name].describe()
    option = OPTIONS[name]
    return f"`{name}`: " + " / ".join(
        f"**`{v}`**" if v == option.default else f"`{v}`" for v in option.values
    )
