"""The one registry of metrics and their variants: the bottom layer of topkeval.

Everything that names a metric or an option reads it from here: the column
names of :func:`topkeval.evaluate`, the lists in error messages, the option
tables inside the docstrings, the metric table of :func:`topkeval.metric_table`
(and of the README), and the defaults of every entry point (:class:`Settings`).
This module imports nothing of the package: the modules that use an entry
resolve its per-user function and its kernel by name, and the tables are
rendered (with who uses each option value) in :mod:`topkeval._docs`.

Adding a metric is: an entry in :data:`METRICS`, its per-user function (in
:mod:`topkeval.metrics`, :mod:`topkeval.dcg` or :mod:`topkeval.user_models`),
its kernel in :mod:`topkeval._kernels`, and a test against a naive oracle.
The entry also says what the kernel reads besides the hits
(:attr:`Metric.needs`, keys of :data:`KERNEL_INPUTS`: the batch prepares
only those) and how a measure names it on the command line
(:attr:`Metric.measure`, :attr:`Metric.needs_cutoff`; :mod:`topkeval.trec`
reads them).

Metric names: a name is looked up without regard to case, ``-`` or spaces,
and the common names of each metric map to it (:attr:`Metric.aliases`: ``map``
is ``ap``, ``mrr`` is ``rr``, ``hr`` and ``hit_rate`` are ``hit``); the
column is always named by the key (``ap@10``). Any other name is an error
that suggests the closest key.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from typing import TypeVar

F = TypeVar("F", bound=Callable[..., object])

__all__ = [
    "METRICS",
    "KERNEL_INPUTS",
    "OPTIONS",
    "BATCH_OPTIONS",
    "PARAMETERS",
    "BEYOND_METRICS",
    "BEYOND_OPTIONS",
    "Metric",
    "Option",
    "Parameter",
    "BeyondMetric",
    "Settings",
    "Choice",
    "document",
    "metric_key",
]


@dataclass(frozen=True)
class Choice:
    """One value of an option: the formula it names and who else uses it.

    Who uses it among the libraries of :data:`topkeval.conventions.CONVENTIONS`
    is read from that table where tables are rendered
    (:func:`topkeval.conventions.used_by`, called by :mod:`topkeval._docs`);
    ``also`` adds who else uses it outside that table (papers, other tools).
    """

    value: str
    formula: str
    also: str = ""
    option: str = ""  # filled in by Option
    #: Who uses it: empty here; the public :data:`topkeval.OPTIONS` is a copy with it filled from the
    #: convention table (:func:`topkeval._docs.with_used_by`, called explicitly by ``topkeval/__init__.py``).
    used_by: str = ""


@dataclass(frozen=True)
class Option:
    """A keyword option whose values name a formula, e.g. the AP denominator."""

    name: str
    default: str
    choices: tuple[Choice, ...]
    why_default: str
    inputs: tuple[str, ...] = ("frames", "arrays")  # entry points that take it: frames and/or arrays

    def __post_init__(self) -> None:
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
    columns and dispatch, error messages, docstrings and the metric table.
    ``function`` names the per-user function (in :mod:`topkeval.metrics`,
    :mod:`topkeval.dcg` or :mod:`topkeval.user_models`) and ``kernel`` the
    batch kernel in :mod:`topkeval._kernels`; the modules that call them look
    them up by these names.
    """

    key: str  # column prefix in evaluate(): "ap" -> "ap@10"
    function: str  # name of the per-user function
    kernel: str  # name of the batch kernel in topkeval._kernels: one value per user of a block
    notation: str  # per-user notation
    mean_name: str  # what the mean over users is called
    formula: str
    empty_value: float | str | None  # per-user value with no relevant item (a str: in words); None: 0/0
    options: tuple[str, ...] = field(default_factory=tuple)  # names in OPTIONS or PARAMETERS
    family: str = "accuracy"  # "accuracy" or "user model" (for tables)
    by_default: bool = True  # computed by evaluate() when metrics=None
    aliases: tuple[str, ...] = ()  # other names people use for it (lower case); they map to key
    value_range: str = ""  # the values it can take
    rewards: str = ""  # what a high value rewards
    leave_one_out: str = ""  # its value with one relevant item at rank r
    #: its name in ir_measures' notation, for the command line and :mod:`topkeval.trec` ("nDCG", "Rprec");
    #: empty: the key is the name
    measure: str = ""
    needs_cutoff: bool = False  # True: no whole-list form in trec_eval or ir_measures, so a measure says @k
    needs: tuple[str, ...] = ()  # what its kernel reads besides the hits: keys of KERNEL_INPUTS

    @property
    def measure_name(self) -> str:
        """How a measure of ir_measures' notation names it (``P``, ``nDCG``; the key when it has none)."""
        return self.measure or self.key

    @property
    def parameters(self) -> tuple[str, ...]:
        """Its numeric options (keys of :data:`PARAMETERS`), e.g. RBP's ``p``."""
        return tuple(name for name in self.options if name in PARAMETERS)

    @property
    def no_relevant(self) -> str:
        """What the per-user function does for a user with no relevant item, in words."""
        if self.empty_value is None:
            return "raises ValueError (0/0)"
        return self.empty_value if isinstance(self.empty_value, str) else repr(self.empty_value)


#: What a kernel may read besides where the hits are (:attr:`Metric.needs`): the batch computes each
#: only when a metric asked for declares it (:mod:`topkeval.batch`; :data:`topkeval._kernels.INPUTS`
#: names the fields of :class:`topkeval._kernels.Cut` each fills).
KERNEL_INPUTS: dict[str, str] = {
    "gains": "the gain of each hit (from its grade, through the gain option) and each user's ideal DCG",
    "grades": "the grade of each hit and the top of the grade scale (ERR's max_grade, settled per batch)",
    "unjudged": "the weight of the unjudged items in the top k (from the judged items, grade 0 too)",
    "judged": "how many judged items are above each hit and how many judged non-relevant items each user "
    "has (from the judged items, grade 0 too)",
}

OPTIONS: dict[str, Option] = {
    "denominator": Option(
        name="denominator",
        default="min_k_n_relevant",
        choices=(
            Choice(
                "min_k_n_relevant",
                "min(k, |R|)",
                also="",
            ),
            Choice(
                "n_relevant",
                "|R|",
                also="",
            ),
            Choice(
                "n_hits",
                "hits in the top k (0 hits gives 0)",
                also="",
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
                also="",
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
        inputs=("frames",),  # array input is already in order
    ),
    "unjudged": Option(
        name="unjudged",
        default="keep",
        choices=(
            Choice(
                "keep",
                "an unjudged item stays in its list and counts as not relevant",
                also="trec_eval and pytrec_eval by default",
            ),
            Choice(
                "condense",
                "unjudged items are removed from every list before any metric is computed: the lists "
                "move up, so the top k holds the first k judged items (a condensed list, Sakai 2007)",
                also="trec_eval -J and pytrec_eval judged_docs_only_flag=True",
            ),
        ),
        why_default=(
            "the list the user sees is the list that is scored; condensing answers another question "
            "(how the judged items are ordered), useful when the judgments are incomplete, and only a "
            "truth with grades (0 = judged not relevant) says which items are judged."
        ),
    ),
}

METRICS: dict[str, Metric] = {
    "precision": Metric(
        key="precision",
        kernel="precision",
        function="precision_at_k",
        notation="P@k",
        mean_name="P@k",
        formula="hits in the top k / k",
        empty_value=0.0,
        aliases=("p", "prec"),
        value_range="[0, 1]; at most |R|/k",
        rewards="many relevant items in the list, in any order",
        leave_one_out="HR@k / k",
        measure="P",
        needs_cutoff=True,
    ),
    "recall": Metric(
        key="recall",
        kernel="recall",
        function="recall_at_k",
        notation="R@k",
        mean_name="R@k",
        formula="hits in the top k / |R|",
        empty_value=None,
        aliases=("r",),
        value_range="[0, 1]; at most k/|R|",
        rewards="finding the user's relevant items, in any order",
        leave_one_out="HR@k",
        measure="R",
        needs_cutoff=True,
    ),
    "hit": Metric(
        key="hit",
        kernel="hit",
        function="hit_at_k",
        notation="Hit@k",
        mean_name="HR@k (hit ratio)",
        formula="1 if any of the top k is relevant, else 0",
        empty_value=0.0,
        aliases=("hr", "hit_rate", "hit_ratio", "hitrate", "success"),
        value_range="{0, 1}",
        rewards="at least one relevant item in the list",
        leave_one_out="itself",
        measure="Success",
        needs_cutoff=True,
    ),
    "rr": Metric(
        key="rr",
        kernel="reciprocal_rank",
        function="reciprocal_rank_at_k",
        notation="RR@k",
        mean_name="MRR@k",
        formula="1 / rank of the first relevant item if it is within the top k, else 0",
        empty_value=0.0,
        aliases=("mrr", "reciprocal_rank", "recip_rank", "mean_reciprocal_rank"),
        value_range="0, or 1/r for a first hit at rank r <= k",
        rewards="the first relevant item being near the top",
        leave_one_out="1/r if r <= k",
        measure="RR",
    ),
    "ap": Metric(
        key="ap",
        kernel="average_precision",
        function="average_precision_at_k",
        notation="AP@k",
        mean_name="MAP@k",
        formula="sum of P@i over the ranks i <= k that hold a relevant item / denominator",
        empty_value=None,
        options=("denominator",),
        aliases=("map", "average_precision", "mean_average_precision"),
        value_range="[0, 1]",
        rewards="every relevant item high, early ones most",
        leave_one_out="RR@k",
        measure="AP",
    ),
    "ndcg": Metric(
        key="ndcg",
        kernel="ndcg",
        function="ndcg_at_k",
        notation="NDCG@k",
        mean_name="NDCG@k",
        formula="DCG@k / IDCG@k, DCG@k = sum over i <= k of gain_i / log2(i + 1)",
        empty_value=None,
        options=("gain", "ideal", "discount"),
        aliases=("ndcg_cut",),
        value_range="[0, 1]",
        rewards="graded relevance with a smooth position discount",
        leave_one_out="1/log2(r + 1) if r <= k",
        measure="nDCG",
        needs=("gains",),
    ),
    "err": Metric(
        key="err",
        kernel="expected_reciprocal_rank",
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
        aliases=("expected_reciprocal_rank",),
        value_range="[0, 1)",
        rewards="one satisfying item early (cascade user)",
        leave_one_out="R/r with R = 1/2: half of RR@k",
        measure="ERR",
        needs_cutoff=True,
        needs=("grades",),
    ),
    "rbp": Metric(
        key="rbp",
        kernel="rank_biased_precision",
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
        aliases=("rank_biased_precision",),
        value_range="[0, 1 - p^k]",
        rewards="relevant items within a patient user's reach",
        leave_one_out="(1 - p) p^(r - 1) if r <= k",
        measure="RBP",
    ),
    "rbp_residual": Metric(
        key="rbp_residual",
        kernel="rbp_residual",
        function="rbp_residual_at_k",
        notation="RBP residual@k",
        mean_name="mean RBP residual@k",
        formula="p**k + (1 - p) * sum over the ranks i <= k holding an unjudged item of p**(i - 1): how much "
        "RBP@k could still grow (Moffat and Zobel 2008: report RBP as base + residual)",
        empty_value="p**k plus the weight of unjudged items (it does not depend on the relevant ones)",
        options=("p",),
        family="user model",
        by_default=False,
        value_range="[p^k, 1]",
        rewards="(not a score) how much RBP@k could still grow: report it beside RBP",
        leave_one_out="p^k when every listed item is judged",
        measure="RBP_residual",
        needs=("unjudged",),
    ),
    "rprec": Metric(
        key="rprec",
        kernel="r_precision",
        function="r_precision_at_k",
        notation="R-Prec@k",
        mean_name="R-precision@k",
        formula="hits in the top min(k, |R|) / |R|: precision at rank |R| of the list cut at k "
        "(trec_eval's Rprec when k >= |R|)",
        empty_value=None,
        aliases=("r_precision", "r_prec", "rprecision"),
        value_range="[0, 1]; at most min(k, |R|)/|R|",
        rewards="the |R| relevant items filling the first |R| ranks",
        leave_one_out="1 if the item is at rank 1, else 0",
        by_default=False,
        measure="Rprec",
    ),
    "bpref": Metric(
        key="bpref",
        kernel="bpref",
        function="bpref_at_k",
        notation="bpref@k",
        mean_name="bpref@k",
        formula="(1/|R|) * sum over the relevant ranks i <= k of (1 - min(n_i, |R|) / min(|R|, N)), n_i = "
        "judged non-relevant items above rank i, N = judged non-relevant items in all (unjudged items are "
        "skipped; Buckley and Voorhees 2004)",
        empty_value=None,
        aliases=("binary_preference",),
        value_range="[0, 1]",
        rewards="relevant items above the judged non-relevant ones, whatever the unjudged items do",
        leave_one_out="1 if no judged non-relevant item is above it (within k), else 0",
        by_default=False,
        measure="Bpref",
        needs=("judged",),
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
    value_range: str = ""  # the values it can take
    rewards: str = ""  # what a high (or low) value rewards
    leave_one_out: str = "no relevance needed"
    options: tuple[str, ...] = ()  # keys of BEYOND_OPTIONS


#: How much attention a slot of a top-k list gets: the user-browsing models of exposure and calibration.
_POSITION_WEIGHTS = (
    Choice(
        "log2",
        "w(r) = 1 / log2(r + 1): the DCG discount, rank 1 weighs 1, rank 10 about 0.29; the base of the "
        "log scales every weight alike, so shares, the exposure Gini and the disparity do not depend on "
        "it, raw exposure does",
        also="Singh and Joachims, Fairness of Exposure in Rankings (KDD 2018), who write 1/log(1 + r); "
        "the discount of NDCG",
    ),
    Choice(
        "rbp",
        "w(r) = p^(r - 1): the chance that a reader who goes on with probability p reaches rank r",
        also="Moffat and Zobel's rank-biased precision (TOIS 2008); Diaz et al., expected exposure "
        "(CIKM 2020)",
    ),
    Choice(
        "uniform",
        "w(r) = 1: every slot of the top k alike (exposure is then the recommendation count)",
        also="count-based coverage and Gini; Steck's calibration (RecSys 2018) with every rank weight "
        "w_r = 1",
    ),
)

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
            "literature gives no reason to move the default; Shani and Gunawardana's n - 1 rescales the "
            "maximum to 1."
        ),
    ),
    "exposure_weighting": Option(
        name="weighting",
        default="log2",
        choices=_POSITION_WEIGHTS,
        why_default=(
            "log2 is the position bias Singh and Joachims use for exposure and the discount NDCG already "
            "assumes, so exposure and accuracy are read under one model of attention; rbp suits feeds "
            "read top-down with a known patience p; uniform reproduces the count-based Gini."
        ),
    ),
    "calibration_weighting": Option(
        name="weighting",
        default="uniform",
        choices=_POSITION_WEIGHTS,
        why_default=(
            "Steck weights each history item by w_u,i (e.g. recency) and each listed item by a rank "
            "weight w_r (e.g. the MRR or nDCG discount); topkeval sets every history weight to 1 and, "
            "by default (uniform), every rank weight too, the simplest reading that needs no choice "
            "of discount; log2 or rbp give Steck's rank-weighted q(g|u), where the genres of the first "
            "slots count more, for lists read top-down."
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
        value_range="[0, log2(#users)] bits",
        rewards="recommending less-known items",
    ),
    "arp": BeyondMetric(
        "arp",
        "arp_at_k",
        "ARP@k",
        "ARP@k",
        "mean popularity share of the top k",
        "per user",
        "item popularity",
        value_range="(0, 1]",
        rewards="(lower is better) not leaning on popular items",
    ),
    "ild": BeyondMetric(
        "ild",
        "intra_list_diversity_at_k",
        "ILD@k",
        "ILD@k",
        "mean distance over the pairs of items in the top k",
        "per user",
        "item vectors or categories",
        value_range="[0, 1] (Jaccard), [0, 2] (cosine)",
        rewards="lists mixing different kinds of item",
    ),
    "coverage": BeyondMetric(
        "coverage",
        "catalog_coverage",
        "Cov@k",
        "coverage@k",
        "distinct items in any top k / catalogue size",
        "all users",
        "the catalogue size",
        value_range="(0, 1]",
        rewards="showing more of the catalogue, across all users",
    ),
    "gini": BeyondMetric(
        "gini",
        "gini_index",
        "Gini@k",
        "Gini@k",
        "Gini index of the number of top-k slots each catalogue item gets",
        "all users",
        "the catalogue",
        value_range="[0, 1 - 1/n] (denominator 'n'), [0, 1] ('n_minus_1')",
        rewards="(lower is better) spreading the slots evenly (slot 1 and slot k count alike)",
        options=("gini_denominator",),
    ),
    "exposure_gini": BeyondMetric(
        "exposure_gini",
        "exposure_gini",
        "ExpGini@k",
        "exposure Gini@k",
        "Gini index of each catalogue item's exposure, the sum over users of w(rank) for the slots it takes",
        "all users",
        "the catalogue",
        value_range="[0, 1 - 1/n] (denominator 'n'), [0, 1] ('n_minus_1')",
        rewards="(lower is better) spreading attention evenly, where slot 1 weighs more than slot k",
        options=("exposure_weighting", "gini_denominator"),
    ),
    "exposure_disparity": BeyondMetric(
        "exposure_disparity",
        "exposure_disparity",
        "ExpDisp@k",
        "exposure disparity@k",
        "1/2 sum over groups of |exposure share - target share| (total variation distance); target: "
        "catalogue share or merit share",
        "all users",
        "an item -> group mapping (and, for merit, each item's merit)",
        value_range="[0, 1]",
        rewards="(lower is better) exposure proportional to the target (Singh and Joachims' merit, "
        "amortized over users)",
        options=("exposure_weighting",),
    ),
    "calibration": BeyondMetric(
        "calibration",
        "calibration_kl_at_k",
        "C_KL@k",
        "C_KL@k",
        "KL(p || (1 - alpha) q + alpha p), p: genre mix of the user's history, q: of the top k",
        "per user",
        "item genres and each user's history",
        value_range="[0, ln(1/alpha)] nats (ln 100 = 4.61 at alpha = 0.01)",
        rewards="(lower is better) lists whose genre mix matches the user's history",
        options=("calibration_weighting",),
    ),
}


#: The order of the columns in :func:`topkeval.evaluate` (when the registry is as shipped).
METRIC_KEYS: tuple[str, ...] = tuple(METRICS)
#: What :func:`topkeval.evaluate` computes when ``metrics=None``.
DEFAULT_METRIC_KEYS: tuple[str, ...] = tuple(key for key, m in METRICS.items() if m.by_default)


def metric_keys() -> tuple[str, ...]:
    """Every metric key, in column order (read at call time, so an added entry counts)."""
    return tuple(METRICS)


def default_metric_keys() -> tuple[str, ...]:
    """The keys computed when ``metrics=None``, in column order."""
    return tuple(key for key, metric in METRICS.items() if metric.by_default)


def _folded(name: str) -> str:
    return name.strip().lower().replace("-", "_").replace(" ", "_")


def metric_key(name: str) -> str | None:
    """The key a metric name stands for: itself, in any case, or one of the metric's aliases; else None.

    >>> metric_key("MAP"), metric_key("nDCG"), metric_key("hit_rate"), metric_key("nonsense")
    ('ap', 'ndcg', 'hit', None)
    """
    folded = _folded(name)
    for key, metric in METRICS.items():
        if folded == key or folded in metric.aliases:
            return key
    return None


def metric_names() -> tuple[str, ...]:
    """Every name :func:`metric_key` accepts (keys and aliases), for suggestions."""
    return tuple(name for key, metric in METRICS.items() for name in (key, *metric.aliases))


def measure_notation() -> str:
    """Every metric as a measure of ir_measures' notation is written (the command line, :mod:`topkeval.trec`).

    ``@k`` is a cutoff (``[@k]``: optional, the whole list without it); a
    numeric option appears with its default.

    >>> measure_notation().split(", ")[:4]
    ['P@k', 'R@k', 'Success@k', 'RR[@k]']
    """
    return ", ".join(_notation(metric) for metric in METRICS.values())


def _notation(metric: Metric) -> str:
    defaults = [(name, PARAMETERS[name].default) for name in metric.parameters]
    params = ",".join(f"{name}={value:g}" for name, value in defaults if value is not None)
    return metric.measure_name + (f"({params})" if params else "") + ("@k" if metric.needs_cutoff else "[@k]")


def option(name: str) -> Option:
    """The option called ``name``, whether it applies to one metric or to a whole evaluation."""
    return {**OPTIONS, **BATCH_OPTIONS}[name]


def option_names(inputs: str) -> tuple[str, ...]:
    """Every keyword option an entry point with ``inputs`` ("frames" or "arrays") takes, registry order."""
    named = [name for name, opt in {**OPTIONS, **BATCH_OPTIONS}.items() if inputs in opt.inputs]
    return (*named, *PARAMETERS)


def default(name: str) -> str | float | None:
    """The registry default of any keyword option (a choice option or a numeric parameter)."""
    return PARAMETERS[name].default if name in PARAMETERS else option(name).default


def _number_default(name: str) -> float:
    value = PARAMETERS[name].default
    if value is None:  # pragma: no cover - a registry error
        raise RuntimeError(f"parameter {name} has no numeric default")
    return value


@dataclass(frozen=True)
class Settings:
    """Every keyword option of an evaluation, with the registry defaults: one object for every entry point.

    Its fields are the registry's options and parameters (a test checks they
    match one for one); build a checked one with
    :func:`topkeval._validation.check_settings`.

    >>> Settings().discount, Settings().p
    ('log2', 0.8)
    """

    denominator: str = OPTIONS["denominator"].default
    gain: str = OPTIONS["gain"].default
    ideal: str = OPTIONS["ideal"].default
    discount: str = OPTIONS["discount"].default
    empty: str = BATCH_OPTIONS["empty"].default
    ties: str = BATCH_OPTIONS["ties"].default
    unjudged: str = BATCH_OPTIONS["unjudged"].default
    p: float = _number_default("p")
    max_grade: float | None = PARAMETERS["max_grade"].default

    def replaced(self, **changes: object) -> Settings:
        """A copy with some options changed."""
        return replace(self, **changes)  # type: ignore[arg-type]

    def as_dict(self, inputs: str = "frames") -> dict[str, object]:
        """The options an entry point with ``inputs`` takes, as keywords."""
        names = option_names(inputs)
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name in names}


#: The attribute :func:`document` sets on a function: the names of the tables its docstring's
#: placeholders stand for (data on the function; :func:`topkeval._docs.fill_docstrings` renders them).
TABLES_ATTRIBUTE = "__doc_tables__"


def document(*names: str) -> Callable[[F], F]:
    """Decorator: declare that ``%(name)s`` placeholders in a docstring stand for an option's table.

    ``name`` is an option of :data:`OPTIONS` or :data:`BATCH_OPTIONS`, or
    ``metrics`` (the list of metric keys). The decorator only checks the
    placeholders and records the names on the function (no state here): the
    tables are rendered where the convention table is at hand, by an explicit
    call of :func:`topkeval._docs.fill_docstrings` over the package's public
    functions in ``topkeval/__init__.py``.
    """

    def decorate(function: F) -> F:
        doc = function.__doc__ or ""
        for name in names:
            if f"%({name})s" not in doc:
                raise RuntimeError(f"{function.__name__}'s docstring has no %({name})s placeholder")
        setattr(function, TABLES_ATTRIBUTE, names)
        return function

    return decorate
