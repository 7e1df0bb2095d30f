"""Hand-graded questions (issue 31, item 4): a markdown answer cell with points and a rubric is
authored, graded as ``needs grading`` with the answer kept as data, and scored in the review page
(127.0.0.1, token), which updates the gradebook and the exports; the page in Chromium too.

One class is graded per module; each test scores in its own copy of the grading folder.
"""

from __future__ import annotations

import copy
import csv
import http.client
import io
import json
import os
import shutil
import threading
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import pytest

from helpers.grade import authoring, review
from helpers.grade import grader as grade
from helpers.grade.gradebook import Gradebook
from helpers.grade.spec import ANSWER_PLACEHOLDER

HOSTILE = '<script>alert("x")</script></pre><img src=x onerror=alert(1)> NDCG: graded relevance, position'
DECLARATION = """# grading
def _ints(rng):
    return (rng.randint(-50, 50),)

ASSIGNMENT = {"name": "why-metrics", "title": "Why metrics"}
QUESTIONS = [
    {"target": "double", "points": 2, "result": "number",
     "checks": [{"name": "worked example", "cases": [(2,)]},
                {"name": "random ints", "hidden": True, "general": True, "generate": _ints, "n": 5}]},
    {"target": "why_ndcg", "kind": "text", "points": 3,
     "rubric": "3: graded relevance AND the position discount; 1: one of them; 0: neither"},
]
"""
MODEL = "NDCG@10: it uses graded relevance and discounts by position."


def _cell(kind: str, source: str) -> dict:
    cell = {"cell_type": kind, "metadata": {}, "source": source}
    if kind == "code":
        cell.update(outputs=[], execution_count=None)
    return cell


def source_notebook() -> dict:
    return {
        "cells": [
            _cell("markdown", "# Why metrics\n\nWrite `double(x)`; then say which metric you would report."),
            _cell("code", "def double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION\n"),
            _cell("markdown", "**Which metric would you report for graded relevance, and why?**"),
            _cell("markdown", f"<!-- answer: why_ndcg -->\n### BEGIN SOLUTION\n{MODEL}\n### END SOLUTION\n"),
            _cell("code", DECLARATION),
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def _answered(learner: dict, answer: str | None) -> dict:
    nb = copy.deepcopy(learner)
    nb["cells"][1]["source"] = "def double(x):\n    return 2 * x\n"
    if answer is not None:
        nb["cells"][3]["source"] = f"<!-- answer: why_ndcg -->\n{answer}"
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory, trusted_mode):
    """The class: Ann (hostile text), Bo (placeholder left), Cy (a short answer), graded with a roster."""
    tmp = tmp_path_factory.mktemp("review")
    source = tmp / "why-metrics-source.ipynb"
    source.write_text(json.dumps(source_notebook()), encoding="utf-8")
    notebook, spec, _ = authoring.author(source, tmp / "build")
    learner = json.loads(notebook.read_text(encoding="utf-8"))
    folder = tmp / "class"
    folder.mkdir()
    for name, answer in {"ann": HOSTILE, "bo": None, "cy": "Precision, it is simple."}.items():
        (folder / f"{name}.ipynb").write_text(json.dumps(_answered(learner, answer)), encoding="utf-8")
    (tmp / "roster.csv").write_text("file,id,name\nann.ipynb,s1,Ann\nbo.ipynb,s2,Bo\ncy.ipynb,s3,Cy\n")
    out = tmp / "out"
    unsafe = ["--unsafe-no-sandbox"] if trusted_mode == "unsafe-no-sandbox" else []
    args = ["--assignment", str(spec), "--out", str(out), "--roster", str(tmp / "roster.csv"), "--quiet"]
    assert grade.main([*args, "--jobs", "2", *unsafe, str(folder)]) == 0
    return tmp, notebook, spec, out


@pytest.fixture
def out(graded, tmp_path):
    """A private copy of the graded folder (each test scores in its own gradebook)."""
    copied = tmp_path / "out"
    shutil.copytree(graded[3], copied)
    return copied


def _csv(path: Path) -> dict[str, list[str]]:
    return {
        row[2] if path.name == "canvas.csv" else row[0]: row
        for row in csv.reader(io.StringIO(path.read_text()))
    }


def _grades(out: Path) -> dict[str, dict]:
    return {r["learner_id"]: r for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))}


# ------------------------------------------------------------------ authoring
def test_an_answer_cell_is_authored_with_points_rubric_and_no_model_answer_for_learners(graded):
    _, notebook, spec, _ = graded
    text = notebook.read_text(encoding="utf-8")
    assert ANSWER_PLACEHOLDER in text and "<!-- answer: why_ndcg -->" in text and MODEL not in text
    assert MODEL in spec.read_text(encoding="utf-8")
    q = authoring.load_spec(spec).question("why_ndcg")
    assert (q.kind, q.points, q.reference()) == ("text", 3.0, MODEL) and "position discount" in q.rubric


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.replace('"rubric": "3: graded', '"rubrik": "3: graded'), "unknown keys"),
        (lambda d: d.replace('"target": "why_ndcg"', '"target": "why_map"'), "no answer cell for 'why_map'"),
        (lambda d: d.replace('"kind": "text"', '"kind": "essay"'), "'kind' is 'text'"),
    ],
)
def test_bad_text_questions_are_refused_with_the_fix(tmp_path, change, message):
    nb = source_notebook()
    nb["cells"][4]["source"] = change(DECLARATION)
    (tmp_path / "s.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    with pytest.raises(authoring.AuthoringError, match=message):
        authoring.author(tmp_path / "s.ipynb", tmp_path / "b")


def test_solution_regions_stay_refused_in_other_markdown_cells():
    nb = source_notebook()
    nb["cells"][2]["source"] = "### BEGIN SOLUTION\nsecret\n### END SOLUTION\n"
    with pytest.raises(ValueError, match="only allowed in code cells and in answer cells"):
        authoring.learner_version(nb)


# ------------------------------------------------------------------ grading
def test_answers_are_kept_as_data_and_need_grading(graded):
    *_, out = graded
    reports = {p.stem: json.loads(p.read_text()) for p in out.glob("*.json")}
    ann = {q["target"]: q for q in reports["ann"]["questions"]}
    assert ann["why_ndcg"]["status"] == "needs grading" and ann["why_ndcg"]["answer"] == HOSTILE
    assert ann["double"]["points"] == 2.0 and reports["ann"]["score"] == 2.0
    bo = {q["target"]: q for q in reports["bo"]["questions"]}
    assert bo["why_ndcg"]["status"] == "not attempted" and "answer" not in bo["why_ndcg"]
    rows = _grades(out)
    assert rows["s1"]["why_ndcg result"] == "needs grading" and rows["s1"]["score"] == "2"
    feedback = (out / "feedback" / "ann.md").read_text(encoding="utf-8")
    assert "<script>" not in feedback and "<img" not in feedback


# ------------------------------------------------------------------ the review page over HTTP
@pytest.fixture
def server(out):
    srv = review.serve(out)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def _request(srv, method: str, path: str, body: dict | None = None, host: str | None = None):
    port = srv.server_address[1]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    data = urlencode(body).encode() if body is not None else None
    headers = {"Host": host or f"127.0.0.1:{port}"}
    if data is not None:
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    conn.request(method, path, body=data, headers=headers)
    response = conn.getresponse()
    return response.status, dict(response.getheaders()), response.read().decode("utf-8")


def _form(srv, out: Path, learner: str, points: str, comment: str = "", token: str | None = None) -> dict:
    with Gradebook.open(out) as book:
        answer = next(a for a in review.answers(book) if a.learner == learner)
    form = {"answer": answer.anchor, "question": answer.question["question"], "sha256": answer.sha256}
    return form | {"token": srv.token if token is None else token, "points": points, "comment": comment}


def test_the_page_needs_the_token_and_this_host(server):
    assert server.server_address[0] == "127.0.0.1"
    assert _request(server, "GET", "/")[0] == 403
    assert _request(server, "GET", "/?token=wrong")[0] == 403
    assert (
        _request(server, "GET", "/?" + urlencode({"token": server.token}), host="evil.example:80")[0] == 421
    )
    status, headers, page = _request(
        server, "GET", urlsplit(server.url).path + "?" + urlsplit(server.url).query
    )
    assert status == 200 and "default-src 'none'" in headers["Content-Security-Policy"]
    assert "<script>" not in page and "<img" not in page  # the learner's text is inert
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;/pre&gt;&lt;img src=x" in page
    assert (
        "position discount" in page and MODEL in page and "2 answer(s) to grade by hand, 2 not scored" in page
    )


def _others(rows: dict) -> dict:
    """Every row but Ann's (s1)."""
    return {k: v for k, v in rows.items() if k != "s1"}


def _assert_refused(server, out, bad: str) -> None:
    status, _, page = _request(server, "POST", "/score", _form(server, out, "s1", bad))
    assert status == 400 and "points must be a number from 0 to 3" in page, bad


def _assert_the_score_is_shown(server, out) -> None:
    """Ann's feedback has her new total, its comment as text; the review page shows the score."""
    feedback = (out / "feedback" / "ann.md").read_text(encoding="utf-8")
    assert "4.5 / 5" in feedback and "<b>" not in feedback
    page = _request(server, "GET", "/?" + urlencode({"token": server.token}))[2]
    assert "1 not scored yet" in page and "scored 2.5 / 3" in page


def test_scores_are_validated_and_update_the_gradebook_and_exports(server, out):
    canvas_before, grades_before = _csv(out / "canvas.csv"), _csv(out / "grades.csv")
    for bad in ("3.5", "-1", "nan", "inf", "three", ""):
        _assert_refused(server, out, bad)
    assert _request(server, "POST", "/score", _form(server, out, "s1", "2", token="wrong"))[0] == 403
    forged = _form(server, out, "s1", "2") | {"answer": "a-q1-" + "0" * 12 + "-" + "0" * 16}
    assert _request(server, "POST", "/score", forged)[0] == 400  # no such answer (Bo's was not attempted)
    with Gradebook.open(out) as book:
        assert book.manual_scores() == {}
    assert _csv(out / "canvas.csv") == canvas_before
    status, headers, _ = _request(
        server, "POST", "/score", _form(server, out, "s1", "2.5", "<b>names both</b>")
    )
    assert status == 303 and headers["Location"].startswith("/?token=")
    with Gradebook.open(out) as book:
        (given,) = book.manual_scores().values()
    assert given["points"] == 2.5 and given["comment"] == "<b>names both</b>"
    canvas, grades = _csv(out / "canvas.csv"), _grades(out)
    assert canvas["s1"][-1] == "4.5" and grades["s1"]["why_ndcg result"] == "hand graded"
    assert _others(canvas) == _others(canvas_before)
    assert _others(_csv(out / "grades.csv")) == _others(grades_before)
    _assert_the_score_is_shown(server, out)


# ------------------------------------------------------------------ the review page in Chromium
CHROMIUM = os.environ.get("COURSE_CHROMIUM", "/usr/bin/chromium")
HOW = "sudo apt-get install chromium (Debian) and playwright (pip install -e .); never `playwright install`"


def _browser_problem() -> str | None:
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        return f"no Chromium at {CHROMIUM}"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the Python package playwright is not installed"
    return None


def test_scoring_an_answer_in_chromium_updates_gradebook_and_canvas(server, out, require):
    problem = _browser_problem()
    require("Chromium with Playwright (the review page's browser test)", problem is None, HOW, problem or "")
    from playwright.sync_api import sync_playwright

    canvas_before = (out / "canvas.csv").read_text()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu", "--no-first-run"]
        )
        try:
            page = browser.new_page()
            dialogs = []
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.goto(server.url)
            section = page.locator("section.answer", has_text="Precision, it is simple.")
            section.locator("input[name=points]").fill("1")
            section.locator("textarea[name=comment]").fill("names neither graded relevance nor position")
            section.locator("button[type=submit]").click()
            page.wait_for_selector("text=scored 1 / 3")
            assert "1 not scored yet" in page.locator("#summary").inner_text()
            assert (
                page.locator("section.answer", has_text="alert").locator("pre.learner").inner_text()
                == HOSTILE
            )
            assert dialogs == []  # the hostile answer ran nothing
        finally:
            browser.close()
    with Gradebook.open(out) as book:
        (given,) = book.manual_scores().values()
    assert (given["points"], given["comment"]) == (1.0, "names neither graded relevance nor position")
    canvas = (out / "canvas.csv").read_text()
    assert canvas != canvas_before and _csv(out / "canvas.csv")["s3"][-1] == "3"
