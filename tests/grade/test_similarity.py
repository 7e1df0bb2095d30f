"""The similarity report across a class (issue 24, item 3), with planted near-copies.

Known-right: a copy with every name changed, comments and docstrings added and the code reformatted
is found (score 1.0), and so is a copy of the course's own solution notebook. Known-wrong: honest,
independently written solutions of the same functions stay below the threshold, and unchanged stubs
(identical in every learner notebook) are never a match.
"""

from __future__ import annotations

import ast
import json
import textwrap
from pathlib import Path

import pytest

from helpers.grade import grader as grade
from helpers.grade import similarity
from helpers.grade.assignments import ASSIGNMENTS

ROOT = Path(__file__).resolve().parents[2]

ORIGINAL = """
def held_out_items(log):
    latest = {}
    for position, (user, item, timestamp) in enumerate(log):
        if user not in latest or (timestamp, position) >= latest[user][0]:
            latest[user] = ((timestamp, position), item)
    return {user: item for user, (_, item) in latest.items()}

def evaluate_loo(log, recommendations, k):
    truth = held_out_items(log)
    hits, rr, gain = [], [], []
    for user, item in truth.items():
        top = recommendations.get(user, [])[:k]
        rank = top.index(item) + 1 if item in top else 0
        hits.append(1.0 if rank else 0.0)
        rr.append(1.0 / rank if rank else 0.0)
        gain.append(1.0 / math.log2(rank + 1) if rank else 0.0)
    return {"HR": sum(hits) / len(hits), "MRR": sum(rr) / len(rr), "NDCG": sum(gain) / len(gain)}
"""

DISGUISED = '''
def held_out_items(rows):
    """Return the last item of each user."""
    best = {}  # user -> ((time, index), item)
    for idx, (u, it, ts) in enumerate(rows):
        if u not in best or (ts, idx) >= best[u][0]:
            best[u] = ((ts, idx), it)
    return {u: it for u, (_, it) in best.items()}

def evaluate_loo(rows, recs, cutoff):
    # my own work
    held = held_out_items(rows)
    a, b, c = [], [], []
    for u, it in held.items():
        head = recs.get(u, [])[:cutoff]
        r = head.index(it) + 1 if it in head else 0
        a.append(1.0 if r else 0.0)
        b.append(1.0 / r if r else 0.0)
        c.append(1.0 / math.log2(r + 1) if r else 0.0)
    return {"HR": sum(a) / len(a), "MRR": sum(b) / len(b), "NDCG": sum(c) / len(c)}
'''

HONEST = """
def held_out_items(log):
    ordered = sorted(enumerate(log), key=lambda pair: (pair[1][2], pair[0]))
    result = dict()
    for _, row in ordered:
        result[row[0]] = row[1]
    return result

def evaluate_loo(log, recommendations, k):
    answer = held_out_items(log)
    n = len(answer)
    totals = {"HR": 0.0, "MRR": 0.0, "NDCG": 0.0}
    for who in answer:
        ranked = list(recommendations.get(who, []))
        for position in range(min(k, len(ranked))):
            if ranked[position] == answer[who]:
                totals["HR"] += 1
                totals["MRR"] += 1 / (position + 1)
                totals["NDCG"] += 1 / math.log2(position + 2)
                break
    return {name: value / n for name, value in totals.items()}
"""

OTHER_HONEST = """
def held_out_items(log):
    last_time, last_item = {}, {}
    for user, item, t in log:
        if user not in last_time or t >= last_time[user]:
            last_time[user] = t
            last_item[user] = item
    return last_item

def evaluate_loo(log, recommendations, k):
    truth = held_out_items(log)
    scores = []
    for user in truth:
        recs = recommendations[user][:k] if user in recommendations else []
        if truth[user] in recs:
            i = recs.index(truth[user])
            scores.append((1.0, 1.0 / (i + 1), 1.0 / math.log2(i + 2)))
        else:
            scores.append((0.0, 0.0, 0.0))
    n = len(scores)
    return {"HR": sum(s[0] for s in scores) / n, "MRR": sum(s[1] for s in scores) / n,
            "NDCG": sum(s[2] for s in scores) / n}
"""


def _notebook(path: Path, *sources: str) -> Path:
    cells = [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": s}
        for s in ("import math", *sources)
    ]
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


def _solution_functions() -> str:
    nb = json.loads((ROOT / "exercises" / "source" / "leave-one-out.ipynb").read_text())
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    tree = ast.parse(code)
    return "\n\n".join(ast.unparse(n) for n in tree.body if isinstance(n, ast.FunctionDef))


def test_normalisation_ignores_names_comments_and_layout():
    a = ast.parse(ORIGINAL).body[1]
    b = ast.parse(DISGUISED).body[1]
    assert similarity.normalise(a) == similarity.normalise(b)
    c = ast.parse(HONEST).body[1]
    assert similarity.similarity(similarity.function_tokens(a), similarity.function_tokens(c)) < 0.8


def test_class_report_finds_planted_copies_not_honest_work(tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    _notebook(subs / "ann.ipynb", ORIGINAL)
    _notebook(subs / "bob_copied_ann.ipynb", DISGUISED)
    _notebook(subs / "cat.ipynb", HONEST)
    _notebook(subs / "dan.ipynb", OTHER_HONEST)
    _notebook(subs / "eve_copied_solution.ipynb", _solution_functions().replace("latest", "newest"))
    for stub in ("fay.ipynb", "gus.ipynb"):  # the untouched learner notebook, twice
        (subs / stub).write_bytes((ROOT / "exercises" / "leave-one-out.ipynb").read_bytes())
    (subs / "broken.ipynb").write_text("not json")
    out = tmp_path / "out"
    assert grade.main(["similarity", "--assignment", "leave-one-out", "--out", str(out), str(subs)]) == 0
    result = json.loads((out / "similarity.json").read_text())
    pairs = {(p["a"], p["b"]): p["score"] for p in result["pairs"]}
    assert pairs == {("ann.ipynb", "bob_copied_ann.ipynb"): 1.0}
    assert result["groups"] == [["ann.ipynb", "bob_copied_ann.ipynb"]]
    matches = {(m["submission"], m["reference"].split()[0]) for m in result["references"]}
    assert ("eve_copied_solution.ipynb", "solution") in matches
    assert not any(m[0] in ("cat.ipynb", "dan.ipynb", "fay.ipynb", "gus.ipynb") for m in matches)
    assert any("broken.ipynb" in s for s in result["skipped"])
    text = (out / "similarity.md").read_text()
    assert "| 1.000 | ` ann.ipynb ` | ` bob_copied_ann.ipynb ` |" in text


def test_lower_threshold_shows_more_and_bad_threshold_is_a_usage_error(tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    _notebook(subs / "a.ipynb", ORIGINAL)
    _notebook(subs / "b.ipynb", OTHER_HONEST)
    out = tmp_path / "out"
    args = ["similarity", "--assignment", "leave-one-out", "--out", str(out)]
    assert grade.main([*args, "--threshold", "0.05", str(subs)]) == 0
    assert len(json.loads((out / "similarity.json").read_text())["pairs"]) == 1
    try:
        grade.main([*args, "--threshold", "1.5", str(subs)])
    except SystemExit as exc:
        assert exc.code == 2
    else:
        raise AssertionError("a threshold above 1 must be refused")


# ------------------------------------------------------------------ bounds and aliases (issue 33)
def _long_tokens(n: int, salt: int) -> list[str]:
    """``n`` tokens shaped like a long normalised function: assignments of arithmetic on names."""
    shape = ["Assign", "Name:v{i}", "BinOp", "Name:v1", "Mult", "Constant:{c}", "Store", "Load"]
    return [t.format(i=i % 97, c=(i * 7 + salt) % 1009) for i in range(n // len(shape)) for t in shape]


def test_two_40000_token_functions_are_compared_within_seconds():
    import time

    a = similarity.Entry("a", {"f": _long_tokens(40_000, 0)})
    b = similarity.Entry("b", {"f": list(a.tokens["f"])})
    c = similarity.Entry("c", {"f": _long_tokens(40_000, 5)})
    assert len(a.tokens["f"]) == 40_000
    started = time.monotonic()
    result = similarity.compare_class([a, b, c], [], threshold=0.9)
    elapsed = time.monotonic() - started
    assert elapsed < 3.0, elapsed  # the quadratic comparison took more than 60 s here
    assert [(p["a"], p["b"], p["score"]) for p in result["pairs"]] == [("a", "b", 1.0)]
    assert result["estimated"] == 0


def test_the_time_budget_keeps_the_fingerprint_estimate():
    entries = [similarity.Entry(x, {"f": [f"t{i}" for i in range(60)]}) for x in "abc"]
    result = similarity.compare_class(entries, [], threshold=0.9, budget=0.0)
    assert result["estimated"] == 3 and len(result["pairs"]) == 3
    assert "time budget ran out" in similarity.report_markdown(result, [])


def test_pairs_are_filtered_before_the_exact_comparison(monkeypatch):
    calls = []
    real = similarity._pair
    monkeypatch.setattr(
        similarity, "_pair", lambda a, b, m: calls.append((a.label, b.label)) or real(a, b, m)
    )
    same = [f"t{i}" for i in range(80)]
    entries = [similarity.Entry("x", {"f": same}), similarity.Entry("y", {"f": list(same)})]
    entries += [similarity.Entry(f"o{j}", {"f": [f"u{j}_{i}" for i in range(80)]}) for j in range(6)]
    result = similarity.compare_class(entries, [], threshold=0.9)
    assert calls == [("x", "y")] and len(result["pairs"]) == 1


def test_a_copy_bound_by_alias_pairs_with_its_source(tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    _notebook(subs / "ann.ipynb", ORIGINAL)
    aliased = (
        ORIGINAL.replace("def held_out_items(", "def _h(")
        .replace("truth = held_out_items(log)", "truth = _h(log)")
        .replace("def evaluate_loo(", "def _impl(")
    )
    aliased += "\nheld_out_items = _h\nevaluate_loo = _impl\n"
    _notebook(subs / "bob_alias.ipynb", aliased)
    _notebook(subs / "cat.ipynb", HONEST)
    out = tmp_path / "out"
    assert grade.main(["similarity", "--assignment", "leave-one-out", "--out", str(out), str(subs)]) == 0
    result = json.loads((out / "similarity.json").read_text())
    assert {(p["a"], p["b"]) for p in result["pairs"]} == {("ann.ipynb", "bob_alias.ipynb")}
    assert result["pairs"][0]["score"] == 1.0


def test_re_binding_and_lambdas_are_resolved_like_a_run_top_to_bottom():
    code = (
        "def f(a):\n    return a + 1\n"
        "g = f\n"
        "def f(a):\n    raise NotImplementedError\n"  # a stub defined later: f is the stub, g the code
        "h = lambda x, y: x * y + 1\n"
        "k = g\nk = 3\n"
    )
    found = similarity.functions_in([code], {"f", "g", "h", "k"})
    assert sorted(found) == ["g", "h"]
    assert similarity.normalise(found["g"]) == "def v0(v1):\n    return v1 + 1"


def test_a_huge_notebook_is_refused_with_bounded_memory(tmp_path):
    import subprocess
    import sys

    subs = tmp_path / "subs"
    subs.mkdir()
    body = "\n".join(f"    x{i} = [{{}}, {{}}, {{}}, a + {i}]" for i in range(45_000))  # ~1.6 MiB of code
    _notebook(subs / "huge.ipynb", f"def held_out_items(a):\n{body}\n    return a\n")
    _notebook(subs / "ann.ipynb", ORIGINAL)
    assert (subs / "huge.ipynb").stat().st_size > 1_500_000
    out = tmp_path / "out"
    code = (
        "import sys\nfrom helpers.grade import grader\n"
        f"args = ['similarity', '--assignment', 'leave-one-out', '--out', {str(out)!r}, {str(subs)!r}]\n"
        "rc = grader.main(args)\n"
        # VmHWM is this process image's own peak; ru_maxrss keeps the parent's (pytest's) across fork and exec
        "print(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')))\n"
        "sys.exit(rc)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    peak_mib = int(proc.stdout.split()[-1]) / 1024
    assert peak_mib < 400, peak_mib
    skipped = json.loads((out / "similarity.json").read_text())["skipped"]
    assert any("huge.ipynb" in s and "KiB of code" in s for s in skipped)


# ------------------------------------------------------------------ red team 5: evasions, and honest work
TARGETS = {q.target for q in ASSIGNMENTS["from-scratch"].questions if q.kind == "function"}

HONEST_A = """
def precision_at_k(ranking, relevant, k):
    hits = 0
    for item in ranking[:k]:
        if item in relevant:
            hits += 1
    return hits / k

def recall_at_k(ranking, relevant, k):
    if not relevant:
        return 0.0
    found = [item for item in ranking[:k] if item in relevant]
    return len(found) / len(relevant)

def hit_at_k(ranking, relevant, k):
    return 1.0 if any(item in relevant for item in ranking[:k]) else 0.0

def reciprocal_rank_at_k(ranking, relevant, k):
    for position in range(min(k, len(ranking))):
        if ranking[position] in relevant:
            return 1.0 / (position + 1)
    return 0.0

def average_precision_at_k(ranking, relevant, k):
    if not relevant:
        return 0.0
    total, seen = 0.0, 0
    for position, item in enumerate(ranking[:k]):
        if item in relevant and item not in ranking[:position]:
            seen += 1
            total += seen / (position + 1)
    return total / min(len(relevant), k)

def dcg_at_k(ranking, relevant, k):
    grades = relevant if isinstance(relevant, dict) else dict.fromkeys(relevant, 1)
    score = 0.0
    for position, item in enumerate(ranking[:k]):
        score += grades.get(item, 0) / math.log2(position + 2)
    return score

def ndcg_at_k(ranking, relevant, k):
    grades = relevant if isinstance(relevant, dict) else dict.fromkeys(relevant, 1)
    best = sorted(grades, key=grades.get, reverse=True)
    ideal = dcg_at_k(best, grades, k)
    if ideal == 0:
        return 0.0
    return dcg_at_k(ranking, grades, k) / ideal
"""

HONEST_B = """
def _gains(relevant):
    if isinstance(relevant, dict):
        return dict(relevant)
    return {x: 1 for x in relevant}

def precision_at_k(ranking, relevant, k):
    return sum(1 for x in ranking[:k] if x in relevant) / k

def recall_at_k(ranking, relevant, k):
    return sum(1 for x in set(ranking[:k]) if x in relevant) / len(relevant) if relevant else 0.0

def hit_at_k(ranking, relevant, k):
    return float(bool(set(ranking[:k]) & set(relevant)))

def reciprocal_rank_at_k(ranking, relevant, k):
    ranks = [i for i, x in enumerate(ranking[:k], start=1) if x in relevant]
    return 1 / ranks[0] if ranks else 0.0

def average_precision_at_k(ranking, relevant, k):
    precisions = []
    counted = set()
    for i, x in enumerate(ranking[:k], start=1):
        if x in relevant and x not in counted:
            counted.add(x)
            precisions.append(len(counted) / i)
    return sum(precisions) / min(k, len(relevant)) if relevant else 0.0

def dcg_at_k(ranking, relevant, k):
    g = _gains(relevant)
    return sum(g.get(x, 0) / math.log2(i + 1) for i, x in enumerate(ranking[:k], start=1))

def ndcg_at_k(ranking, relevant, k):
    g = _gains(relevant)
    ideal = sum(v / math.log2(i + 1) for i, v in enumerate(sorted(g.values(), reverse=True)[:k], start=1))
    return dcg_at_k(ranking, g, k) / ideal if ideal > 0 else 0.0
"""


def test_honest_work_written_independently_is_no_pair_and_no_match(tmp_path):
    """Known-wrong for the rules that find evasions: two honest notebooks written independently, the
    corpus's honest one, and the untouched learner notebook are no pair, and match neither the solution,
    the library nor the course package, although short formulas (hit@k) come out alike."""
    subs = tmp_path / "subs"
    subs.mkdir()
    _notebook(subs / "ann.ipynb", HONEST_A)
    _notebook(subs / "bo.ipynb", HONEST_B)
    (subs / "cy.ipynb").write_bytes(
        (ROOT / "tests" / "grade" / "grading_corpus" / "perfect.ipynb").read_bytes()
    )
    (subs / "dee.ipynb").write_bytes((ROOT / "exercises" / "from-scratch.ipynb").read_bytes())
    out = tmp_path / "out"
    assert grade.main(["similarity", "--assignment", "from-scratch", "--out", str(out), str(subs)]) == 0
    result = json.loads((out / "similarity.json").read_text())
    assert result["compared"] == 4 and result["pairs"] == [] and result["references"] == []


def test_no_op_statements_and_dead_code_are_normalised_away():
    plain = ast.parse("def f(xs, k):\n    top = xs[:k]\n    return len(top) / k").body[0]
    padded = ast.parse(
        "def g(items, n):\n    pass\n    _trace = None\n    'note'\n    42\n    head = items[:n]\n"
        "    _trace = head\n    return len(head) / n\n    print('never')\n    _trace = None"
    ).body[0]
    assert similarity.normalise(plain) == similarity.normalise(padded)
    kept = ast.parse("def h(xs):\n    global seen\n    seen = xs\n    log(xs)\n    return xs").body[0]
    # a global's assignment and a call have effects: kept
    assert (
        similarity.normalise(kept) == "def v0(v1):\n    global seen\n    v2 = v1\n    v3(v1)\n    return v1"
    )


def test_branches_on_a_constant_condition_are_replaced_by_what_runs():
    plain = similarity.normalise(
        ast.parse("def f(xs, k):\n    top = xs[:k]\n    return len(top) / k").body[0]
    )
    for dead in (
        "if False:\n        log(k)",
        "if 0:\n        pass\n    else:\n        pass",
        "while None:\n        log(k)",
        "for _ in ():\n        log(k)",
        "if not (1, 2):\n        log(k)",
        "if k > 1 and 1 == 2:\n        log(k)",
        "if k or ():\n        pass",  # no effect either way: the body is a pass
        "k: int",
    ):
        source = f"def f(xs, k):\n    {dead}\n    top = xs[:k]\n    return len(top) / k"
        assert similarity.normalise(ast.parse(source).body[0]) == plain, dead
    taken = "def f(xs, k):\n    if True:\n        top = xs[:k]\n    return len(top) / k"
    assert similarity.normalise(ast.parse(taken).body[0]) == plain
    # a condition that depends on the run, a loop that runs, or a comparison of unlike types: kept
    for kept in ("if k:\n        log(k)", "while True:\n        log(k)", "if 'a' < 1:\n        log(k)"):
        source = f"def f(xs, k):\n    {kept}\n    top = xs[:k]\n    return len(top) / k"
        assert "v3(v2)" in similarity.normalise(ast.parse(source).body[0]), kept


def test_bindings_in_blocks_and_through_the_namespace_are_resolved():
    code = (
        "import sys\n"
        "try:\n    def _a(x):\n        return x + 1\nexcept Exception:\n    pass\n"
        "with open('x') as fh:\n    def _b(x):\n        return x + 2\n"
        "for _ in range(1):\n    def _c(x):\n        return x + 3\n"
        "globals()['f'] = _a\nglobals().update({'g': _b}, h=_c)\n"
        "setattr(sys.modules[__name__], 'i', _a)\n"
        "if True:\n    j = lambda x: x * 2\n"
        "class K:\n    def method(self):\n        return 1\n"
    )
    graded, others = similarity.notebook_functions([code], {"f", "g", "h", "i", "j"})
    assert {k: similarity.normalise(v).split("\n")[1].strip() for k, v in graded.items()} == {
        "f": "return v1 + 1", "g": "return v1 + 2", "h": "return v1 + 3", "i": "return v1 + 1",
        "j": "return v1 * 2",
    }  # fmt: skip
    assert list(others) == ["method"]  # the other defs are bound to graded names: compared once


def test_copied_functions_are_reported_whatever_the_mean_and_short_formulas_are_not():
    long = [f"t{i}" for i in range(similarity.COPY_TOKENS)]
    short = [f"s{i}" for i in range(30)]
    own = {f"own{j}": [f"o{j}_{i}" for i in range(80)] for j in range(4)}
    a = similarity.Entry("a", {"f": long, "h": short, **own})
    b = similarity.Entry("b", {"g": list(long), "h": list(short)})  # f copied under another name
    result = similarity.compare_class([a, b], [], threshold=0.9)
    assert [(p["a"], p["b"]) for p in result["pairs"]] == [("a", "b")]
    assert sorted(map(tuple, result["pairs"][0]["copies"])) == [
        ("f", "g", 1.0, "ratio"),
        ("h", "h", 1.0, "ratio"),
    ]
    assert "f = g 1.00" in similarity.report_markdown(result, [])
    # one short formula written alike (30 tokens) among a learner's own code: no pair
    c = similarity.Entry("c", {"h": list(short), **own})
    d = similarity.Entry("d", {"h": list(short), **{k: [x + "'" for x in v] for k, v in own.items()}})
    assert similarity.compare_class([c, d], [], threshold=0.9)["pairs"] == []


# ---------------------------------------------- red team 10: layouts, labels, unreadable code, answers
def _layouts(tmp_path: Path) -> dict[str, Path]:
    """Bob's code, Mallory's copy and Carol's own in each layout the grader reads."""
    import zipfile

    code = {"bob": ORIGINAL, "mallory": DISGUISED, "carol": HONEST}
    canvas_ids = {"bob": "101", "mallory": "103", "carol": "102"}
    ids = {"bob": "s1", "carol": "s2", "mallory": "s3"}
    per_learner, canvas, gradescope = tmp_path / "folders", tmp_path / "canvas.zip", tmp_path / "gs"
    meta = ""
    with zipfile.ZipFile(canvas, "w") as archive:
        for n, (who, text) in enumerate(code.items()):
            (per_learner / who).mkdir(parents=True)
            _notebook(per_learner / who / "hw.ipynb", text)
            archive.write(per_learner / who / "hw.ipynb", f"{who}_{canvas_ids[who]}_{500 + n}_hw.ipynb")
            (gradescope / f"submission_{n}").mkdir(parents=True)
            _notebook(gradescope / f"submission_{n}" / "hw.ipynb", text)
            meta += f"submission_{n}:\n  :submitters:\n  - :sid: {ids[who]}\n    :email: {who}@x.edu\n"
    (gradescope / "submission_metadata.yml").write_text(meta)
    return {"folders": per_learner, "canvas": canvas, "gradescope": gradescope}


def _pairs(tmp_path: Path, *args: str) -> set[tuple[str, str]]:
    out = tmp_path / "report"
    assert similarity.main(["--assignment", "leave-one-out", "--out", str(out), *args]) == 0
    return {(p["a"], p["b"]) for p in json.loads((out / "similarity.json").read_text())["pairs"]}


def test_every_layout_the_grader_reads_is_compared_and_labelled_by_learner(tmp_path):
    layouts = _layouts(tmp_path)
    roster = tmp_path / "roster.csv"
    roster.write_text(
        "file,id,name,login,canvas_id\nbob.ipynb,s1,Bob,bob,101\ncarol.ipynb,s2,Carol,carol,102\nmal.ipynb,s3,Mallory,mallory,103\n"
    )
    assert _pairs(tmp_path, "--learner-folders", str(layouts["folders"])) == {
        ("bob/hw.ipynb", "mallory/hw.ipynb")
    }
    assert _pairs(tmp_path, *map(str, sorted(layouts["folders"].glob("*/hw.ipynb")))) == {
        ("bob/hw.ipynb", "mallory/hw.ipynb")
    }  # given one by one: alike names get their folder
    for layout in ("folders", "canvas", "gradescope"):
        given = ["--learner-folders" if layout == "folders" else f"--{layout}"]
        assert _pairs(tmp_path, "--roster", str(roster), *given, str(layouts[layout])) == {("s1", "s3")}, (
            layout
        )


def test_alike_zip_members_are_labelled_by_where_the_instructor_gave_them(tmp_path):
    """Two emailed zips of one name, each holding ``hw.ipynb``, are told apart by the zips' folders
    (the origin the grader's report names hash), never by the run's extraction folder."""
    import zipfile

    for who, text in (("bob", ORIGINAL), ("mallory", DISGUISED)):
        (tmp_path / who).mkdir()
        _notebook(tmp_path / "hw.ipynb", text)
        with zipfile.ZipFile(tmp_path / who / "hw.zip", "w") as archive:
            archive.write(tmp_path / "hw.ipynb", "hw.ipynb")
    given = [str(tmp_path / who / "hw.zip") for who in ("bob", "mallory")]
    assert _pairs(tmp_path, *given) == {("bob/hw.zip/hw.ipynb", "mallory/hw.zip/hw.ipynb")}


def test_a_group_submission_is_one_notebook_never_paired_with_itself(tmp_path):
    root = tmp_path / "gs"
    (root / "submission_1").mkdir(parents=True)
    _notebook(root / "submission_1" / "hw.ipynb", ORIGINAL)
    (root / "submission_metadata.yml").write_text(
        "submission_1:\n  :submitters:\n  - :sid: s1\n    :email: a@x\n  - :sid: s2\n    :email: b@x\n"
    )
    roster = tmp_path / "roster.csv"
    roster.write_text("file,id,name\na.ipynb,s1,Ann\nb.ipynb,s2,Bo\n")
    out = tmp_path / "report"
    assert (
        similarity.main(
            [
                "--assignment",
                "leave-one-out",
                "--roster",
                str(roster),
                "--out",
                str(out),
                "--gradescope",
                str(root),
            ]
        )
        == 0
    )
    result = json.loads((out / "similarity.json").read_text())
    assert result["compared"] == 1 and result["pairs"] == []


HONEST_CORPUS = [
    "perfect", "partially_correct", "off_by_one_rank", "wrong_ap_denominator", "wrong_signature",
    "bool_and_int_results", "nan_and_inf", "numpy_scalars", "signed_zeros", "ipython_magics",
    "missing_functions", "unchanged_stub", "constant_one", "constant_zero", "ndcg_ideal_from_retrieved",
    "precision_divides_by_list_length",
]  # fmt: skip


def test_honest_notebooks_run_no_code_the_report_cannot_read():
    from helpers.grade.files import read_notebook

    corpus = ROOT / "tests" / "grade" / "grading_corpus"
    paths = [corpus / f"{name}.ipynb" for name in HONEST_CORPUS]
    paths += sorted((ROOT / "exercises" / "source").glob("*.ipynb")) + [
        ROOT / "exercises" / "leave-one-out.ipynb"
    ]
    found = {p.name: similarity.unreadable(read_notebook(p.read_bytes())) for p in paths}
    assert found == dict.fromkeys(found, []), found


UNREADABLE = {
    "exec of decoded bytes": "exec(bytes.fromhex('7831203d2031').decode())",
    "exec reached by getattr": "import builtins\nrun = getattr(builtins, 'ex' + 'ec')\nrun(code)",
    "a call of a call's result": "getattr(__builtins__, 'ev' + 'al')('1')",
    "a call of a subscript": "table = {}\ntable['f']('x')",
    "a name bound to a call's result": "import operator\nf = operator.methodcaller('x')\nf(1)",
    "a wrapper of a name never defined": "def precision_at_k(r, s, k):\n    return _p(r, s, k)",
    "import_module": "import importlib\nm = importlib.import_module('os')",
    "a def re-bound to a computed value": (
        "import sys\ndef run(c):\n    pass\nrun = vars(sys.modules['b' + 'uiltins'])['ex' + 'ec']\nrun(code)"
    ),
    "a function's globals": "def f():\n    pass\ng = f.__globals__",
    "getattr with a computed name": "import sys\nlist(map(getattr(sys.modules['x'], 'ex' + 'ec'), ['1']))",
    "vars of a module": "import sys\nlist(map(vars(sys.modules['b'])['e'], ['1']))",
}  # wrong answers for the check; the right ones are the honest corpus above


def test_code_the_report_cannot_read_is_named():
    found = {name: similarity.unreadable([code]) for name, code in UNREADABLE.items()}
    assert all(found.values()), found
    allowed = "import math\nf = math.sqrt\ng = lambda x: f(x)\nfor h in (f, g):\n    h(1)\n"
    allowed += "load = None\nif load:\n    load()\ndef apply(fn, x):\n    return fn(x)\n(lambda: 1)()\n"
    allowed += (
        "for name, fn in {'a': f}.items():\n    fn(1)\nfs = (lambda: f(1),)\nx = getattr(f, 'y', None)\n"
    )
    assert similarity.unreadable([allowed]) == []  # aliases, lambdas, loop variables, constants, arguments
    assert similarity.unreadable([allowed + "y()"]) == ["calls y, which no statement defines"]
    assert similarity.unreadable([allowed + "from x import *\ny()"]) == []  # y may be x's


def test_value_answers_are_compared_without_the_handed_out_code(tmp_path):
    from helpers.grade.assignments import ASSIGNMENTS
    from helpers.grade.files import read_notebook

    solution = read_notebook((ROOT / "exercises" / "source" / "choosing-metrics.ipynb").read_bytes())
    values = similarity.answers("choosing-metrics", ASSIGNMENTS["choosing-metrics"])
    graded, _ = similarity.notebook_functions(solution, set(), values)
    assert sorted(graded) == sorted(values.names)
    assert not any(
        "choosing_metrics_data" in ast.unparse(f) for f in graded.values()
    )  # handed out: not theirs
    released = read_notebook((ROOT / "exercises" / "choosing-metrics.ipynb").read_bytes())
    assert similarity.notebook_functions(released, set(), values)[0] == {}  # blanks: nothing to compare
    renamed = [s.replace("mrr", "per_system").replace("frame", "ranks") for s in solution]
    mine = [*solution[:2], "answer_q1 = 0.4", "answer_q2 = sum(range(len(recs_a))) * 0.0 + len(truth) / 7"]
    folder = tmp_path / "class"
    folder.mkdir()
    for name, sources in (("bob", solution), ("mallory", renamed), ("carol", mine)):
        _notebook(folder / f"{name}.ipynb", *sources)
    out = tmp_path / "report"
    assert similarity.main(["--assignment", "choosing-metrics", "--out", str(out), str(folder)]) == 0
    result = json.loads((out / "similarity.json").read_text())
    assert {(p["a"], p["b"]) for p in result["pairs"]} == {("bob.ipynb", "mallory.ipynb")}


def test_the_size_cap_comes_before_any_work_per_function(tmp_path, monkeypatch):
    path = _notebook(tmp_path / "big.ipynb", "def f():\n    return [" + "0," * 61_000 + "]")

    def no_reading(*args):
        raise AssertionError("the functions were read before the size cap")

    monkeypatch.setattr(similarity, "_functions", no_reading)
    found = similarity._read(path, "big.ipynb", {"f"}, 2**22)
    assert (
        found
        == f"big.ipynb: its functions hold more than {similarity.MAX_TOKENS} syntax-tree nodes (not compared)"
    )


# ------------------------------------------------- red team 15: no-op statements, containment
_PLAIN = "def f(xs, k):\n    top = xs[:k]\n    return len(top) / k"


def _with(statement: str) -> str:
    """``_PLAIN`` with ``statement`` (indented by four spaces) before its first statement."""
    return f"def f(xs, k):\n    {statement}\n    top = xs[:k]\n    return len(top) / k"


def _normalised(source: str) -> str:
    return similarity.normalise(ast.parse(source).body[0])


def test_statements_that_give_a_name_its_own_value_are_dropped():
    plain = _normalised(_PLAIN)
    for no_op in ("k = k", "k += 0", "k -= 0", "k *= 1", "xs = xs"):
        assert _normalised(_with(no_op)) == plain, no_op
    # not the identity: another name, another constant, a float (an int becomes a float), an attribute
    for kept in ("k = xs", "k += 1", "k *= 0", "k += 0.0", "k /= 1", "k **= 1", "xs.n += 0", "k = k = xs"):
        assert _normalised(_with(kept)) != plain, kept


def test_a_try_of_pass_is_replaced_by_its_else_and_finally():
    plain = _normalised(_PLAIN)
    for no_op in (
        "try:\n        pass\n    except Exception:\n        log(k)",
        "try:\n        _t = 0\n    except ValueError:\n        log(k)\n    finally:\n        pass",
    ):
        assert _normalised(_with(no_op)) == plain, no_op
    ran = _normalised(
        _with("try:\n        pass\n    except Exception:\n        log(k)\n    else:\n        log(xs)")
    )
    assert "v3(v1)" in ran and "try" not in ran  # the else runs: kept, without the try
    kept = _normalised(_with("try:\n        log(k)\n    except Exception:\n        pass"))
    assert "try:" in kept  # a body that may raise: kept


def test_del_is_no_read_and_unused_definitions_are_dropped():
    plain = _normalised(_PLAIN)
    for no_op in (
        "_t = 0\n    del _t",
        "def _u():\n        return k",
        "async def _u(a=1, *, b: int = 2) -> int:\n        return k",
        "class _C:\n        x = 1\n        def m(self):\n            return k",
        "import os",
        "from os import path as _p",
        "import os.path",
    ):
        assert _normalised(_with(no_op)) == plain, no_op
    # read, decorated, a call in a default or annotation, a class with a base or a call in its body
    for kept in (
        "def _u():\n        return k\n    log(_u)",
        "@register\n    def _u():\n        return k",
        "def _u(a=log(k)):\n        return k",
        "def _u(a: log(k)):\n        return k",
        "class _C(Base):\n        pass",
        "class _C:\n        log(k)",
        "class _C:\n        xs[0] = 1",
        "import os\n    log(os)",
        "del xs",  # an argument: not a name the function stores
    ):
        assert _normalised(_with(kept)) != plain, kept


def test_loops_over_an_empty_constant_range_are_replaced_by_their_else():
    plain = _normalised(_PLAIN)
    for no_op in ("range(0)", "range(-3)", "range(5, 2)", "range(0, 10, -1)", "range(+0)"):
        assert _normalised(_with(f"for _ in {no_op}:\n        log(k)")) == plain, no_op
    for kept in ("range(1)", "range(k)", "range(0, 10)", "range(1, 0, 0)", "range(0.0)", "range(True)"):
        assert "v4(v2)" in _normalised(_with(f"for _ in {kept}:\n        log(k)")), kept


def test_a_comparison_of_a_name_with_itself_is_not_folded():
    # k != k is true for a NaN: kept by the normalisation (containment finds the copy, below)
    assert "if v2 != v2" in _normalised(_with("if k != k:\n        log(k)"))


def test_self_assignments_are_not_part_of_an_answers_code():
    code = "recs = load()\nrecs = recs\nrecs += 0\nanswer_q1 = len(recs)\nrecs = recs\n"
    found = similarity.answer_functions([(0, ast.parse(code))], similarity.Answers(frozenset({"answer_q1"})))
    assert ast.unparse(found["answer_q1"]).split("\n")[1:] == [
        "    recs = load()",
        "    answer_q1 = len(recs)",
        "    return answer_q1",
    ]


_LONG = """
def f(ranking, relevant, k):
    hits, total = 0, 0.0
    for i, item in enumerate(ranking[:k], start=1):
        if item in relevant:
            hits += 1
            total += hits / i
    if total > 1e9:
        total = min(total, len(ranking) * 2.5)
    return total / min(k, len(relevant))
"""


def _padded(source: str, statement: str) -> str:
    """``source``'s function with ``statement`` before every statement of every block."""

    class Pad(ast.NodeTransformer):
        def generic_visit(self, node):
            super().generic_visit(node)
            for name in ("body", "orelse"):
                body = getattr(node, name, None)
                if not isinstance(node, ast.Module) and isinstance(body, list) and body:
                    setattr(node, name, [x for s in body for x in (ast.parse(statement).body[0], s)])
            return node

    return ast.unparse(ast.fix_missing_locations(Pad().visit(ast.parse(source))))


def test_a_function_held_whole_in_a_padded_one_is_a_contained_copy():
    original = similarity.function_tokens(ast.parse(_LONG).body[0])
    padded = similarity.function_tokens(
        ast.parse(_padded(_LONG, "if k != k:\n    print(k, relevant)")).body[0]
    )
    assert len(original) >= similarity.CONTAIN_TOKENS
    assert similarity.similarity(original, padded) < 0.7 and similarity.containment(original, padded) == 1.0
    a = similarity.Entry("a", {"f": original})
    b = similarity.Entry("b", {}, others={"_impl": padded})
    result = similarity.compare_class([a, b], [], threshold=0.9)
    assert [tuple(c) for c in result["pairs"][0]["copies"]] == [("f", "_impl", 1.0, "contained")]
    assert "f = \\_impl contained: 1.00" in similarity.report_markdown(result, [])
    # the same padding of a function under CONTAIN_TOKENS: no pair (a short formula is contained by chance)
    short = "def f(ranking, relevant, k):\n    hits = sum(1 for x in ranking[:k] if x in relevant)\n"
    short += "    return hits / k"
    x = similarity.function_tokens(ast.parse(short).body[0])
    y = similarity.function_tokens(ast.parse(_padded(short, "if k != k:\n    print(k)")).body[0])
    assert len(x) < similarity.CONTAIN_TOKENS and similarity.containment(x, y) == 1.0
    pair = [similarity.Entry("c", {"f": x}), similarity.Entry("d", {"f": y})]
    assert similarity.compare_class(pair, [], threshold=0.9)["pairs"] == []


def test_containment_finds_a_padded_copy_past_the_fingerprint_filter_and_within_the_budget():
    original = similarity.function_tokens(ast.parse(_LONG).body[0])
    padded = similarity.function_tokens(
        ast.parse(_padded(_LONG, "if k != k:\n    print(k, relevant)")).body[0]
    )
    fa, fb = similarity.fingerprints(original), similarity.fingerprints(padded)
    assert similarity.dice(fa, fb) < similarity.PREFILTER  # the Dice filter alone would drop the pair
    [x] = similarity.Entry("a", {"f": original}).pool(25)
    [y] = similarity.Entry("b", {"g": padded}).pool(25)
    assert similarity._worth_comparing(x, y)
    # past the budget: the fingerprints' containment estimate, no exact comparison
    score, measure = similarity._function_similarity(x, y, deadline=0.0)
    assert measure in ("ratio", "contained") and 0.0 <= score <= 1.0
    assert similarity.contained(fa, fb) == len(fa & fb) / min(len(fa), len(fb))


# Padding that survives the normalisation and brings in a new name renumbers every later name
# (``_Renamer`` numbers in order of first use): before the name-blind containment, red team 15's
# solution padded so scored 0.88-0.92 contained (``average_precision_at_k``), absent from the report.
_NAMING_PADS = {
    "nan_print": "if k != k:\n    print(_q)",  # k != k is true for a NaN: kept
    "walrus": "(_w := k)",  # := has an effect: kept
    "assert_name": "assert k == k or _q",
    "loop_pass": "for _i in range(k):\n    pass",
    "list_append": "_z = [k]\n_z.append(k)",
}


def _padded_solution(statements: str) -> str:
    """Red team 5's solution with ``statements`` before every statement of every block."""
    from .redteam_r5.test_similarity_evasion import _solution

    class Pad(ast.NodeTransformer):
        def generic_visit(self, node):
            super().generic_visit(node)
            for name in ("body", "orelse"):
                body = getattr(node, name, None)
                if not isinstance(node, ast.Module) and isinstance(body, list) and body:
                    setattr(node, name, [x for s in body for x in (*ast.parse(statements).body, s)])
            return node

    return ast.unparse(ast.fix_missing_locations(Pad().visit(ast.parse(_solution()))))


@pytest.mark.parametrize("variant", sorted(_NAMING_PADS))
def test_a_copy_padded_with_statements_that_bring_in_names_is_in_the_report(variant, tmp_path):
    from .redteam_r5.common import notebook, with_honest
    from .redteam_r5.test_similarity_evasion import _solution

    padded = _padded_solution(_NAMING_PADS[variant])
    assert _NAMING_PADS[variant].split("\n")[0].strip("()") in padded  # not normalised away by the padding
    folder = tmp_path / "subs"
    folder.mkdir()
    with_honest(folder, "honest.ipynb")
    notebook(folder / f"{variant}.ipynb", padded)
    notebook(folder / "verbatim.ipynb", _solution())
    out = tmp_path / "out"
    assert similarity.main(["--assignment", "from-scratch", "--out", str(out), str(folder)]) == 0
    result = json.loads((out / "similarity.json").read_text())
    report = (out / "similarity.md").read_text(encoding="utf-8")
    assert f"{variant}.ipynb" in report
    pair = next(p for p in result["pairs"] if variant in p["a"] + p["b"])
    assert "verbatim.ipynb" in pair["a"] + pair["b"]
    assert any(c[3] == "contained" for c in pair["copies"])
    assert "honest.ipynb" not in json.dumps(result["pairs"])


def test_common_is_the_exact_longest_common_subsequence():
    import random

    def table(a, b):  # the textbook dynamic programme
        row = [0] * (len(b) + 1)
        for x in a:
            new = [0]
            for j, y in enumerate(b):
                new.append(row[j] + 1 if x == y else max(row[j + 1], new[j]))
            row = new
        return row[-1]

    rng = random.Random(15)
    for _ in range(300):
        a = rng.choices("abcd", k=rng.randint(0, 25))
        b = rng.choices("abcde", k=rng.randint(0, 25))
        assert similarity.common(a, b) == similarity.common(b, a) == table(a, b), (a, b)


def test_containment_is_name_blind_so_a_padded_name_cannot_renumber_a_copy():
    assert similarity.blind(["Name:v3", "Name:len", "Attribute:v3", "Constant:'v3'", "Name:vars"]) == [
        "Name:*",
        "Name:len",
        "Attribute:v3",
        "Constant:'v3'",
        "Name:vars",
    ]
    original = similarity.function_tokens(ast.parse(_LONG).body[0])
    padded = similarity.function_tokens(ast.parse(_padded(_LONG, "if k != k:\n    print(_q)")).body[0])
    named = similarity.common(original, padded) / len(original)  # _q is v3: every later name shifts
    assert named < 0.9 and similarity.containment(original, padded) == 1.0
    [x] = similarity.Entry("a", {"f": original}).pool(25)
    [y] = similarity.Entry("b", {"g": padded}).pool(25)
    assert similarity.dice(x.prints, y.prints) < similarity.PREFILTER and similarity._worth_comparing(x, y)
    result = similarity.compare_class(
        [similarity.Entry("a", {"f": original}), similarity.Entry("b", {"f": padded})], []
    )
    assert [tuple(c) for c in result["pairs"][0]["copies"]] == [("f", "f", 1.0, "contained")]


def test_name_blind_containment_does_not_pair_other_code_and_an_edited_copy_is_only_aligned():
    original = similarity.function_tokens(ast.parse(_LONG).body[0])
    other = """
def f(ranking, relevant, k):
    found = [i for i, item in enumerate(ranking[:k], start=1) if item in relevant]
    precisions = [n / i for n, i in enumerate(found, start=1)]
    if not relevant:
        return 0.0
    return sum(precisions) / min(k, len(relevant))
"""
    honest = similarity.function_tokens(ast.parse(_padded(other, "if k != k:\n    print(_q)")).body[0])
    assert similarity.containment(original, honest) < similarity.CONTAIN_SCORE
    assert similarity.aligned(original.units, honest.units) < 0.7
    # padded and edited besides (two constants and an operator changed): no longer held whole, but
    # held statement by statement but for the 3 tokens changed (red team 17)
    edited = _LONG.replace("2.5", "3.5").replace("1e9", "1e8").replace("hits / i", "hits * i")
    padded = similarity.function_tokens(ast.parse(_padded(edited, "(_w := k)")).body[0])
    assert 0.95 < similarity.containment(original, padded) < similarity.CONTAIN_SCORE
    assert similarity.aligned(original.units, padded.units) == pytest.approx(
        1 - 3 / sum(map(len, original.units))
    )
    pair = [similarity.Entry("a", {"f": original}), similarity.Entry("b", {"f": honest})]
    assert similarity.compare_class(pair, [])["pairs"] == []
    pair[1] = similarity.Entry("b", {"f": padded})
    assert len(original) < similarity.ALIGN_TOKENS  # too short to be judged alone (red team 18)
    assert similarity.compare_class(pair, [])["pairs"] == []
    # twice as long (a second loop), padded and edited alike: a copy by alignment
    longer = _LONG.replace(
        "    return", "    for j in range(len(ranking)):\n        total -= j / (k + 2.5)\n    return"
    )
    longer = longer.replace(
        "    if total > 1e9:",
        "    for i, item in enumerate(ranking):\n        hits += i % 3\n"
        "        total -= hits / (i + 7)\n    if total > 1e9:",
    )
    original = similarity.function_tokens(ast.parse(longer).body[0])
    edited = longer.replace("1e9", "1e8").replace("hits / i", "hits * i")
    padded = similarity.function_tokens(ast.parse(_padded(edited, "(_w := k)")).body[0])
    assert len(original) >= similarity.ALIGN_TOKENS
    pair = [similarity.Entry("a", {"f": original}), similarity.Entry("b", {"f": padded})]
    result = similarity.compare_class(pair, [])
    [found] = result["pairs"]
    assert [c[3] for c in found["copies"]] == ["aligned"]
    assert f"f = f aligned: {found['copies'][0][2]:.2f}" in similarity.report_markdown(result, [])
    assert similarity.ALIGN_SCORE <= found["copies"][0][2] < similarity.CONTAIN_SCORE


def test_statements_are_units_a_compound_statement_its_header_then_its_blocks():
    source = "def f(xs, k):\n    for x in xs:\n        if x > k:\n            return x\n"
    source += "    else:\n        return k"
    units = similarity.function_tokens(ast.parse(source).body[0]).units
    assert [u[0] for u in units] == ["FunctionDef", "For", "If", "Return", "Return"]
    assert units[2] == ("If", "Compare", "Name:*", "Load", "Gt", "Name:*", "Load")  # the test, not its body


def test_tokens_common_by_chance_scattered_over_statements_are_not_aligned():
    """Containment counts tokens in order wherever they lie; a longer function made of other
    statements holds a shorter one by chance (measured at stop 42: a 98-token test is 0.98 contained
    in a 482-token library function and 0.86 aligned). Statement by statement it is not held."""
    short = "def f(a, b, k):\n    x = g(a, b)\n    y = h(x, k)\n    return x + y"
    long = (
        "def u(p, q, r):\n    s = g(p)\n    t = q\n    w = h(t)\n    z = r\n    print(s)\n"
        "    print(w, z)\n    return s + w"
    )
    a, b = (similarity.function_tokens(ast.parse(x).body[0]) for x in (short, long))
    assert similarity.containment(a, b) == 1.0  # every token of ``short``, in order, in ``long``
    assert similarity.aligned(a.units, b.units) < 0.9 < similarity.ALIGN_SCORE


def _solution_with(*edits: tuple[str, str]) -> str:
    from .redteam_r5.test_similarity_evasion import _solution
    from .redteam_r16.test_wrapped_copy_hides import _wrapped

    source = _solution()
    for old, new in edits:
        source = source.replace(old, new)
    return _wrapped(source)


def _entry(label: str, source: str) -> similarity.Entry:
    graded, others = similarity.notebook_functions([source], TARGETS, None)
    return similarity.Entry(label, similarity._tokens(graded), others=similarity._tokens(others))


def test_a_copy_of_every_function_wrapped_and_edited_is_held_as_a_whole():
    """Red team 17: every statement wrapped and ``total, hits = 0.0, 0`` split in two: the one long
    function is 0.91 aligned (under ALIGN_SCORE), the others are too short for containment, and the
    wrapper lowers their ratio; the graded code as a whole is 0.98 aligned."""
    from .redteam_r5.test_similarity_evasion import _solution

    solution = _entry("solution", _solution())
    copy = _entry("copy", _solution_with(("total, hits = 0.0, 0", "total = 0.0\n    hits = 0")))
    assert similarity._matches(copy, solution, 25, float("inf")) == []
    [whole] = similarity.copied(copy, solution, 0.9, 25, float("inf"))
    assert whole[:2] == [similarity.WHOLE] * 2 and whole[3] == "aligned"
    assert similarity.ALIGN_WHOLE <= whole[2] < 1.0
    result = similarity.compare_class([copy], [solution])
    assert "graded code aligned: 0.98" in similarity.report_markdown(result, [])


def test_honest_notebooks_are_not_held_as_a_whole():
    from .redteam_r5.test_similarity_evasion import _solution

    solution = _entry("solution", _solution())
    for source in (HONEST_A, HONEST_B):
        honest = _entry("honest", "import math\n" + source)
        assert similarity._aligned_whole(honest, solution, 25, float("inf")) is None
    assert similarity._aligned_whole(_entry("a", HONEST_A), _entry("b", HONEST_B), 25, float("inf")) is None


def test_statement_alignment_is_bounded_by_the_statements_it_pairs(monkeypatch):
    a = similarity.function_tokens(ast.parse(_LONG).body[0])
    b = similarity.function_tokens(ast.parse(_padded(_LONG, "(_w := k)")).body[0])
    assert similarity._exact_aligned(a, b) == 1.0
    monkeypatch.setattr(similarity, "ALIGN_CELLS", len(a.units) * len(b.units) - 1)
    similarity._ALIGNED.clear()
    assert similarity._exact_aligned(a, b) is None  # over the bound: not computed, counts as not held
    assert similarity._exact_aligned(list(a), list(b)) is None  # plain tokens: no statements


def test_containment_keeps_each_statement_together_so_a_wrapper_is_only_an_insertion():
    """Red team 16: every statement wrapped in ``if k == k:`` (kept by the normalisation: a NaN is
    not equal to itself) moves a level down; breadth first its tokens mix with its neighbours', in
    pre-order they stay together and the wrapper only inserts tokens before them."""
    body = [
        "top = xs[:k]",
        "hits = [x for x in top if x in rel]",
        "total = len(hits) + len(rel)",
        "return total / k",
    ]
    plain = "def f(xs, rel, k):\n" + "".join(f"    {line}\n" for line in body)
    wrapped = "def f(xs, rel, k):\n" + "".join(f"    if k == k:\n        {line}\n" for line in body)
    a, b = (similarity.function_tokens(ast.parse(src).body[0]) for src in (plain, wrapped))
    assert similarity.containment(a, b) == 1.0
    assert similarity.containment(list(a), list(b)) < 0.95  # the breadth-first order alone: reordered


@pytest.mark.parametrize(
    ("variant", "canonical"),
    [
        ("t += x", "t = t + x"),
        ("t = xs[0:k]", "t = xs[:k]"),
        ("t = xs[:k:1]", "t = xs[:k]"),
        ("t = list(enumerate(xs, start=1))", "t = list(enumerate(xs, 1))"),
        ("t = sum(xs, start=0.0)", "t = sum(xs, 0.0)"),
        ("if len(xs) == 0:\n        t = 1", "if not xs:\n        t = 1"),
        ("if len(xs) > 0:\n        t = 1", "if xs:\n        t = 1"),
        ("if not len(xs):\n        t = 1", "if not xs:\n        t = 1"),
        ("t = 1 if len(xs) >= 1 else 2", "t = 1 if xs else 2"),
        # red team 29: a negated test with its branches swapped, a guard clause, a counted list
        ("t = 0.0 if not any(xs) else 1.0", "t = 1.0 if any(xs) else 0.0"),
        ("t = 2 if x not in xs else 1", "t = 1 if x in xs else 2"),
        (
            "if x is not None:\n        t = 1\n    else:\n        t = 2",
            "if x is None:\n        t = 2\n    else:\n        t = 1",
        ),
        (
            "for y in xs:\n        if y not in k:\n            continue\n        t += y\n        t += 1",
            "for y in xs:\n        if y in k:\n            t += y\n            t += 1",
        ),
        (
            "while xs:\n        y = xs.pop()\n        if not y:\n            continue\n        t += y",
            "while xs:\n        y = xs.pop()\n        if y:\n            t += y",
        ),
        ("t = len([y for y in xs if y in k])", "t = sum(1 for y in xs if y in k)"),
        # red team 37: membership spelled as a call
        ("t = contains(xs, x)", "t = x in xs"),
        ("t = operator.contains(xs, x)", "t = x in xs"),
        ("t = xs.__contains__(x)", "t = x in xs"),
    ],
)
def test_everyday_variants_of_one_meaning_are_written_one_way(variant, canonical):
    """Red teams 18 and 29: such rewrites together hid a copy of the solution."""
    a, b = (
        ast.parse(f"def f(xs, k, x):\n    t = 0\n    {s}\n    return t").body[0] for s in (variant, canonical)
    )
    assert similarity.normalise(a) == similarity.normalise(b)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("t = 0", "t = 0.0"),  # an int is not a float
        ("raise ValueError('no relevant items')", "raise ValueError('relevant is empty')"),  # their own words
        ("t = xs[1:k]", "t = xs[:k]"),
        ("if len(xs) == 1:\n        t = 1", "if not xs:\n        t = 1"),
        ("t = round(x, ndigits=k) + round(x)", "t = round(x, k) + round(x, 0)"),
        # a guard that returns (not continue), a test whose negation is not its complement for NaN,
        # and a guard inside an if (its continue skips more than the if's rest): other meanings
        (
            "for y in xs:\n        if y:\n            return y\n        t += y",
            "for y in xs:\n        if not y:\n            t += y",
        ),
        ("t = 1 if x >= k else 2", "t = 2 if x < k else 1"),
        (
            "for y in xs:\n        if x:\n            if y:\n                continue\n"
            "            t += 1\n        t += y",
            "for y in xs:\n        if x:\n            if not y:\n                t += 1\n        t += y",
        ),
        # *decision* (red team 29): not folded, since they made the corpus's honest average precision
        # the course's own, token for token (``hits, total = 0, 0.0``; a temporary before ``return``)
        ("t, x = 0, 0.0", "t = 0\n    x = 0.0"),
        ("t = xs.str.contains(x, k)", "t = k in x"),  # a method named contains is not membership
        ("x = t + 1\n    return x", "return t + 1"),
    ],
)
def test_constants_messages_and_other_meanings_are_kept(one, other):
    """*Decision* (red teams 18, 29): values and messages tell honest convergent work from a copy."""
    a, b = (ast.parse(f"def f(xs, k, x):\n    t = 0\n    {s}\n    return t").body[0] for s in (one, other))
    assert similarity.normalise(a) != similarity.normalise(b)


def test_a_function_holding_many_solutions_holds_none_of_them():
    """Red team 18: containment and alignment divide by the shorter side, so a function made of
    several solutions one after the other held each; past BULK times the other's length they do not
    count, while a copy wrapped statement by statement (its wrappers only headers) still does."""
    body = _LONG.split("\n", 2)[2]
    pool = "def junk(ranking, relevant, k):\n" + "".join(
        f"    if ranking:\n{textwrap.indent(body.replace('total', f'total{i}'), '    ')}" for i in range(5)
    )
    original = similarity.function_tokens(ast.parse(_LONG).body[0])
    monster = similarity.function_tokens(ast.parse(pool).body[0])
    wrapped = similarity.function_tokens(ast.parse(_padded(_LONG, "if k == k:\n    pass")).body[0])
    assert similarity.containment(original, monster) == 1.0 and not similarity._proportionate(
        original, monster
    )
    assert similarity._proportionate(original, wrapped) and wrapped.bulk == original.bulk
    result = similarity.compare_class(
        [similarity.Entry("honest", {"f": original}), similarity.Entry("monster", {"g": monster})], []
    )
    assert result["pairs"] == []
