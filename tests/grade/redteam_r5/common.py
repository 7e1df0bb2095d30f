"""What the fifth red team's tests share: notebooks made from code, a class graded beside honest
classmates, and the learner's feedback cut into its questions."""

from __future__ import annotations

import ast
import contextlib
import io
import json
import re
import shutil
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from helpers.grade import exports, isolation
from helpers.grade import grader as grade
from helpers.grade.assignments import ASSIGNMENTS
from helpers.grade.files import exact_name

CORPUS = Path(__file__).resolve().parent.parent / "grading_corpus"
A = ASSIGNMENTS["from-scratch"]
#: the code cells of the corpus's full-marks notebook (an attacker's notebook starts from them)
PERFECT_CELLS = [
    "".join(c["source"])
    for c in json.loads((CORPUS / "perfect.ipynb").read_text(encoding="utf-8"))["cells"]
    if c["cell_type"] == "code"
]
#: notebook code that writes a reply to the command being run, before the runner does, carrying a JSON
#: fragment (red teams 41, 43: the runner's frames hold the command's nonce and the replies' fd)
FORGE = r"""
import sys as _sys, os as _os
def _forge(body):
    f = _sys._getframe()
    while f is not None and "nonce" not in f.f_locals:
        f = f.f_back
    if f is not None:
        line = '{"n": "%s", %s}\n' % (f.f_locals["nonce"].decode(), body)
        _os.write(f.f_locals["replies"].fd, line.encode())
"""


def notebook(path: Path, *sources: str) -> Path:
    cells = [
        {"cell_type": "code", "metadata": {}, "source": s, "outputs": [], "execution_count": None}
        for s in sources
    ]
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


def learner(file_name: str) -> str:
    """The learner key of a file graded without a roster (``gradebook.learner_key``: ``file:`` and
    its report name, the stem of a plain file name): whose hidden cases and data it meets."""
    stem = Path(file_name).stem
    assert re.fullmatch(r"[A-Za-z0-9_]+", stem), f"{file_name}: a report name with a hash, not its stem"
    return f"file:{stem}"


def own_plan(seed: int, file_name: str, assignment: Any = A) -> grade.Plan:
    """The cases and data the file ``file_name`` meets in a run with ``seed`` (its learner's own)."""
    return grade.make_plan(assignment, seed, learner(file_name))


def call_numbers(target: str, seed: int, file_name: str) -> tuple[int, dict[int, str]]:
    """For ``target``'s cases of ``file_name`` in a run with ``seed``: the call number of its first
    randomised case, and the check of each hidden call. A learner can count them without the seed:
    every question's public cases run first, then its hidden ones in order, and the checks' sizes are
    fixed by the course's public code (the same for every learner)."""
    question = A.question(target)
    hidden = {c.name for c in question.checks if c.hidden}
    cases = own_plan(seed, file_name).cases[question.name]
    public = sum(1 for check, _ in cases if check not in hidden)
    calls, n = {}, public
    for check, _ in cases:
        if check in hidden:
            n += 1
            calls[n] = check
    first_random = next(i for i, (check, _) in enumerate(cases) if check == "randomized cases")
    return first_random + 1, calls


def hidden_k(target: str, seed: int, file_name: str) -> int:
    """The ``k`` of ``target``'s first randomised (hidden) case of ``file_name`` in a run with ``seed``
    (every learner meets hidden cases of their own: ``grader.learner_seed``)."""
    question = A.question(target)
    cases = own_plan(seed, file_name).cases[question.name]
    return next(args for check, args in cases if check == "randomized cases")[2]


@contextlib.contextmanager
def own_draws(assignment: Any, seed: int) -> Iterator[dict[str, grade.Plan]]:
    """Record the plan each submission graded inside is graded on (by report name), and check on
    leaving that it is its learner's own (:func:`own_plan`): what the tests compute a hidden input or
    answer from is then what the graded notebook met, never a classmate's or the run's shared draw."""
    plans: dict[str, grade.Plan] = {}
    handed_in: dict[str, str] = {}  # report name -> the name the file was handed in under
    real = grade._safe_grade

    def spy(path, plan, runtime, limits, name):
        plans[name] = plan
        handed_in[name] = exact_name(Path(path).name)
        return real(path, plan, runtime, limits, name)

    grade._safe_grade = spy
    try:
        yield plans
    finally:
        grade._safe_grade = real
    shared = Counter(handed_in.values())
    for name, plan in plans.items():
        mine = grade.make_plan(assignment, seed, _no_roster_key(handed_in[name], name, shared))
        assert (plan.learner, plan.cases, plan.data_seeds) == (mine.learner, mine.cases, mine.data_seeds), (
            f"{name} was not graded on its own learner's draw"
        )


def _no_roster_key(shown: str, report_name: str, shared: Counter) -> str:
    """The learner key of a file graded without a roster, by the README's rule: ``file:`` and the
    name handed in under (a plain name's stem, else the whole name), or the report name when two
    files of the run share that name."""
    if shared[shown] > 1:
        return f"file:{report_name}"
    stem = shown.removesuffix(".ipynb")
    return (
        f"file:{stem}"
        if shown.endswith(".ipynb") and re.fullmatch(r"[A-Za-z0-9._-]+", stem)
        else f"file:{shown}"
    )


def grade_class(folder: Path, out: Path, seed: int, assignment: Any = A) -> dict[str, dict]:
    """Grade every notebook of ``folder`` (two at a time, in the real sandbox), each on its learner's
    own cases (:func:`own_draws`): report, feedback and Gradescope results.json of each file."""
    with own_draws(assignment, seed):
        done = grade.grade_many(
            sorted(folder.iterdir()), assignment, out, jobs=2, seed=seed, mode=isolation.BUBBLEWRAP,
            progress=io.StringIO(),
        )  # fmt: skip
    graded = {}
    for report in done:
        feedback = (out / "feedback" / f"{report['submission']}.md").read_text(encoding="utf-8")
        results = json.dumps(exports.gradescope_results(report, assignment.title))
        graded[report["file"]] = {"report": report, "feedback": feedback, "results": results}
    return graded


def grade_on_one_plan(paths: list[Path], plan: grade.Plan, *, together: bool) -> dict[str, dict]:
    """Grade ``paths`` with ``grade_submission`` on the one ``plan`` (in the real sandbox), one after
    another or all at once: as if their learners' draws coincided. A channel between sandboxes is then
    tested by itself: with a draw per learner, a classmate's answers are wrong for one's own data
    whether the channel is closed or not."""
    with isolation.prepare(isolation.BUBBLEWRAP, plan.assignment.sandbox_packages) as runtime:
        one = lambda path: grade.grade_submission(path, plan, runtime, None, path.stem)
        if together:
            with ThreadPoolExecutor(max_workers=len(paths)) as pool:
                done = list(pool.map(one, paths))
        else:
            done = [one(path) for path in paths]
    return {path.name: report for path, report in zip(paths, done, strict=True)}


def with_honest(folder: Path, *names: str) -> None:
    for name in names:
        shutil.copyfile(CORPUS / "perfect.ipynb", folder / name)


def beside_honest(
    tmp_path: Path, name: str, sources: tuple[str, ...], seed: int, assignment: Any = A, honest: str = ""
) -> dict[str, dict]:
    """Grade the notebook ``name`` made of the code cells ``sources`` beside ``honest.ipynb`` (the
    corpus's full-marks notebook, or a notebook of the one cell ``honest``), each on its own cases:
    :func:`grade_class`'s result by file name."""
    folder = tmp_path / "subs"
    folder.mkdir()
    notebook(folder / name, *sources)
    if honest:
        notebook(folder / "honest.ipynb", honest)
    else:
        with_honest(folder, "honest.ipynb")
    return grade_class(folder, tmp_path / "out", seed, assignment)


def shown(graded: dict) -> str:
    """What a learner reads of a graded file: the feedback and Gradescope's ``results.json``."""
    return graded["feedback"] + graded["results"]


def odd_k_file(target: str, seed: int, prefix: str) -> str:
    """The first file name ``<prefix><i>.ipynb`` whose first hidden ``k`` of ``target`` is odd."""
    return next(f"{prefix}{i}.ipynb" for i in range(60) if hidden_k(target, seed, f"{prefix}{i}.ipynb") % 2)


def section(feedback: str, target: str) -> str:
    """One question's part of a learner's feedback (from its heading to the next)."""
    parts = re.split(r"(?m)^### ", feedback)
    found = [p for p in parts if f"` {target} `" in p.split("\n", 1)[0]]
    assert len(found) == 1, (target, feedback)
    return found[0]


def rewrite_blocks(source: str, statement: Callable[[ast.stmt], list[ast.stmt]]) -> str:
    """``source`` with every statement of every block inside a function (``body`` and ``orelse``)
    replaced by what ``statement`` makes of it: padding before it, a block around it... (how red teams
    14 to 16 disguised a copy of the course's solution)."""

    class Rewrite(ast.NodeTransformer):
        def generic_visit(self, node):
            super().generic_visit(node)
            if isinstance(node, ast.Module):
                return node
            for name in ("body", "orelse"):
                body = getattr(node, name, None)
                if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                    setattr(node, name, [x for old in body for x in statement(old)])
            return node

    return ast.unparse(ast.fix_missing_locations(Rewrite().visit(ast.parse(source))))


def copy_report(tmp_path: Path, name: str, copy: str, verbatim: str) -> str:
    """``similarity.md`` of a class of three: an honest classmate, ``name`` holding the code ``copy``
    (a disguised copy), and a classmate who handed in ``verbatim`` (the course's solution) as it is."""
    from helpers.grade import similarity

    folder, out = tmp_path / "subs", tmp_path / "out"
    folder.mkdir()
    with_honest(folder, "honest.ipynb")
    notebook(folder / name, copy)
    notebook(folder / "verbatim.ipynb", verbatim)
    assert similarity.main(["--assignment", "from-scratch", "--out", str(out), str(folder)]) == 0
    return (out / "similarity.md").read_text(encoding="utf-8")


def code_cell(source: str, **metadata) -> dict:
    """A code cell of a source notebook for the authoring tool (red teams 22 to 27)."""
    return {
        "cell_type": "code",
        "metadata": metadata,
        "source": source,
        "outputs": [],
        "execution_count": None,
    }


def markdown_cell(source: str, attachments: dict | None = None) -> dict:
    cell = {"cell_type": "markdown", "metadata": {}, "source": source}
    if attachments:
        cell["attachments"] = attachments
    return cell


def authored_or_refused(tmp_path: Path, cells: list[dict]) -> str | None:
    """The learner notebook ``authoring.author`` writes for ``cells``, or None when it refuses them
    (fail closed)."""
    from helpers.grade.authoring import AuthoringError, author

    source = tmp_path / "src.ipynb"
    source.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    try:
        learner, _spec, _assignment = author(source, tmp_path / "out")
    except (AuthoringError, ValueError):
        return None
    return learner.read_text(encoding="utf-8")
