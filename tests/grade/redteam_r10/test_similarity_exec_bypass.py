"""The tenth red team: red team 7's "compared in part" line is avoided by binding the graded names
to thin wrappers, or by reaching ``exec`` without spelling it.

Red team 7's fix (``similarity._partly_read``) writes "compared in part: ... compare it by hand" only
when a graded name is bound by no statement **and** the code names one of ``DYNAMIC`` (``exec``,
``eval``, ``compile``, ...). Both conditions are the author's to choose:

1. ``wrapped``: the course's solution, its functions renamed ``_p``, ``_r``, ..., hex-encoded and run
   with ``exec(bytes.fromhex(...).decode())``; then seven one-line ``def precision_at_k(ranking,
   relevant, k): return _p(ranking, relevant, k)``. Every graded name is bound by a statement (to a
   wrapper shorter than ``--min-tokens``): no line, and the copied code is read nowhere;
2. ``no_dynamic_name``: ``run = getattr(builtins, "ex" + "ec")`` then ``run(bytes.fromhex(...)
   .decode())``: no name of ``DYNAMIC`` appears in the code, so the unbound graded names are no line
   either.

Both score 14/14 beside an honest classmate and are absent from ``similarity.md`` (no pair, no match
with the course's code, no "compared in part" line). The principle that would close it: a notebook
that runs code the report cannot read (any call of a non-literal through a name the code does not
define, ``getattr`` of ``builtins``, ``bytes.fromhex``/``base64``/``codecs``/``marshal``...) is listed,
whatever binds its graded names; or, simpler and complete, a graded function whose body only calls a
name no statement of the notebook defines is listed as "compared in part".
"""

from __future__ import annotations

import re

from helpers.grade import similarity

from ..redteam_r5.common import grade_class, notebook, with_honest
from ..redteam_r5.test_similarity_evasion import _solution

SHORT = {
    "precision_at_k": "_p", "recall_at_k": "_r", "hit_at_k": "_h", "reciprocal_rank_at_k": "_rr",
    "average_precision_at_k": "_ap", "dcg_at_k": "_dcg", "ndcg_at_k": "_ndcg",
}  # fmt: skip


def _variants() -> dict[str, str]:
    code = _solution()
    renamed = code
    for name, alias in SHORT.items():
        renamed = re.sub(rf"\b{name}\b", alias, renamed)
    wrappers = "".join(
        f"\ndef {name}(ranking, relevant, k):\n    return {alias}(ranking, relevant, k)\n"
        for name, alias in SHORT.items()
    )
    return {
        "wrapped.ipynb": f"exec(bytes.fromhex({renamed.encode().hex()!r}).decode())\n{wrappers}",
        "no_dynamic_name.ipynb": (
            'import builtins\nrun = getattr(builtins, "ex" + "ec")\n'
            f"run(bytes.fromhex({code.encode().hex()!r}).decode())\n"
        ),
    }


def test_copies_run_through_hidden_exec_score_and_are_listed(bwrap, tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    with_honest(folder, "honest.ipynb")
    for name, code in _variants().items():
        notebook(folder / name, code)
    graded = grade_class(folder, tmp_path / "out", seed=2026)
    assert {k: v["report"]["score"] for k, v in graded.items()} == {
        "honest.ipynb": 14.0, "wrapped.ipynb": 14.0, "no_dynamic_name.ipynb": 14.0,
    }  # fmt: skip
    out = tmp_path / "report"
    assert similarity.main(["--assignment", "from-scratch", "--out", str(out), str(folder)]) == 0
    report = (out / "similarity.md").read_text(encoding="utf-8")
    missing = [name for name in _variants() if name not in report]
    assert not missing, (missing, report)
