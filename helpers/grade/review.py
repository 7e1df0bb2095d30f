"""``python -m helpers.grade review OUT``: score hand-graded answers in a local page.

The page lists every current answer of a hand-graded question (``kind="text"``; see
:mod:`helpers.grade.authoring`) beside the question's rubric and model answer; the instructor
types points (validated: a number from 0 to the question's points) and a comment. Each score is
added to the gradebook (:meth:`helpers.grade.gradebook.Gradebook.add_manual`) and the class's
files are written again from it (:func:`helpers.grade.exports.write_class_files`), so
``grades.csv``, ``canvas.csv`` and the learner's feedback show the new total at once.

Safety decisions:

- The server listens on 127.0.0.1 only (no option for another address), on a free port.
- A random token (``secrets.token_urlsafe``) is in the printed URL; every request without it
  (query string for pages, form field for scores) gets 403. Requests whose ``Host`` is not
  127.0.0.1 or localhost at this port get 421 (no DNS rebinding).
- Everything a learner wrote (answer, file name) is HTML-escaped; the page is sent with a
  Content-Security-Policy that allows no script, no external resource and forms only to itself.
"""

from __future__ import annotations

import argparse
import getpass
import hashlib
import math
import secrets
import sys
import threading
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from . import exports
from .gradebook import Gradebook, GradebookError
from .inert import html_text
from .spec import MAX_ANSWER_CHARS

__all__ = ["Answer", "answers", "render_page", "save_score", "ReviewServer", "serve", "main"]

HOST = "127.0.0.1"
MAX_BODY = 64 * 1024
MAX_COMMENT = 4000
_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"


@dataclass(frozen=True)
class Answer:
    """One hand-graded answer to score: whose, which question, the text, and its current score.

    Parameters
    ----------
    who : str
        The learner's key in the gradebook.
    learner : str
        The learner's id or file name, as shown.
    display : str
        The file name as handed over.
    sha256 : str
        The hash of the file the answer comes from (a score applies to that file only).
    question : dict
        The question's report (target, title, rubric, maximum).
    text : str
        The learner's answer, verbatim (shown as text, never markup).
    score : dict or None
        The latest score given (points, comment, grader), None when not scored yet.

    Examples
    --------
    >>> a = Answer("s1", "s1", "ann.ipynb", "ab12", {"target": "why"}, "NDCG, because...", None)
    >>> a.score is None
    True
    """

    who: str
    learner: str
    display: str
    sha256: str
    question: dict
    text: str
    score: dict | None

    @property
    def anchor(self) -> str:
        """A stable id for the answer's place in the page."""
        who = hashlib.sha256(self.who.encode("utf-8", "backslashreplace")).hexdigest()[:16]
        return f"a-{self.question['question']}-{self.sha256[:12]}-{who}"


def answers(book: Gradebook) -> list[Answer]:
    """The current answers of every hand-graded question, with the latest score given to each.

    Parameters
    ----------
    book : Gradebook
        The assignment's gradebook.

    Returns
    -------
    list of Answer
        In learner order, then question order.
    """
    questions = {q["question"]: q for q in book.assignment["questions"] if q.get("kind") == "text"}
    manual = book.manual_scores()
    out = []
    for result in book.current():
        for q in result.report.get("questions", []):
            if q.get("question") in questions and q.get("status") == "needs grading":
                key = (result.who, q["question"], result.sha256)
                learner = result.learner or ""
                out.append(
                    Answer(
                        result.who,
                        learner,
                        result.display,
                        result.sha256,
                        questions[q["question"]],
                        q.get("answer", ""),
                        manual.get(key),
                    )  # fmt: skip
                )
    return out


def _block_html(text: str, limit: int = 2 * MAX_ANSWER_CHARS) -> str:
    """Multi-line text (an answer, a rubric, a comment) as HTML content: every line escaped (control
    and bidi characters shown as escapes) and its line breaks kept, the whole cut only past ``limit``
    (above the grader's own cap on an answer, so the instructor reads all of it)."""
    text = (text if isinstance(text, str) else str(text)).replace("\r\n", "\n")
    cut = len(text) > limit
    body = "\n".join(html_text(line, limit) for line in text[:limit].split("\n"))
    return body + ("…" if cut else "")


def _answer_html(answer: Answer, token: str) -> str:
    q, given = answer.question, answer.score or {}
    points = "" if not given else f"{given['points']:g}"
    state = "not scored yet" if not given else f"scored {points} / {q['points']:g} by {given['grader']}"
    return f"""
<section class="answer" id="{answer.anchor}">
 <h3>{html_text(answer.learner or answer.who)} &mdash; {html_text(answer.display)}</h3>
 <p class="state">{html_text(state)}</p>
 <div class="pair">
  <div><h4>Answer</h4><pre class="learner">{_block_html(answer.text)}</pre></div>
  <div><h4>Rubric ({q["points"]:g} points)</h4><pre>{_block_html(q.get("rubric", ""))}</pre>
   <h4>Model answer</h4><pre>{_block_html(q.get("model", ""))}</pre></div>
 </div>
 <form method="post" action="/score">
  <input type="hidden" name="token" value="{html_text(token)}">
  <input type="hidden" name="answer" value="{answer.anchor}">
  <input type="hidden" name="who" value="{html_text(answer.who)}">
  <input type="hidden" name="question" value="{html_text(q["question"])}">
  <input type="hidden" name="sha256" value="{html_text(answer.sha256)}">
  <label>points <input name="points" type="number" min="0" max="{q["points"]:g}" step="any"
   required value="{points}"></label>
  <label>comment <textarea name="comment" rows="2" maxlength="{MAX_COMMENT}">{
        _block_html(given.get("comment", ""))
    }</textarea></label>
  <button type="submit">Save</button>
 </form>
</section>"""


def render_page(book: Gradebook, token: str, message: str = "") -> str:
    """The review page: every current hand-graded answer with its rubric and a scoring form.

    Parameters
    ----------
    book : Gradebook
        The assignment's gradebook.
    token : str
        The server's token, put in each form.
    message : str
        A line shown above the answers (the last action's outcome).

    Returns
    -------
    str
        The HTML page; every learner text in it is escaped.
    """
    items = answers(book)
    todo = sum(1 for a in items if a.score is None)
    title = html_text(book.assignment["title"])
    body = "".join(_answer_html(a, token) for a in items) or "<p>No hand-graded answers to score.</p>"
    note = f'<p class="message">{html_text(message)}</p>' if message else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Review: {title}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2rem; max-width: 70rem; }}
.pair {{ display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; }}
pre {{ white-space: pre-wrap; background: #f6f6f6; padding: .5rem; }}
.answer {{ border-top: 1px solid #ccc; padding: 1rem 0; }} .message {{ background: #ffd; padding: .5rem; }}
</style></head>
<body><h1>Review: {title}</h1>
<p id="summary">{len(items)} answer(s) to grade by hand, {todo} not scored yet.</p>{note}
{body}
</body></html>
"""


def save_score(out: Path, form: dict[str, str], grader: str) -> str:
    """Validate one submitted score, add it to the gradebook, rewrite the class's files.

    Returns the anchor of the scored answer.

    Raises
    ------
    ValueError
        For a form that names no current answer, or points that are not a number in range.

    Parameters
    ----------
    out : pathlib.Path
        The grading output folder.
    form : dict
        The posted form: which answer, the points and a comment.
    grader : str
        Who gave the score.

    Returns
    -------
    str
        The anchor of the scored answer, so the page returns to it.
    """
    with Gradebook.open(out) as book:
        match = [
            a
            for a in answers(book)
            # the answer's handle, never the learner key as the page shows it (red team 32: a key with
            # a zero-width joiner came back escaped, so that answer could never be scored)
            if (a.anchor, a.question["question"], a.sha256)
            == (form.get("answer"), form.get("question"), form.get("sha256"))
        ]
        if not match:
            raise ValueError(
                "no such answer (it may have been graded again since this page was loaded: reload)"
            )
        answer = match[0]
        points = _points(form.get("points", ""), answer.question["points"])
        comment = form.get("comment", "").strip()[:MAX_COMMENT]
        book.add_manual(answer.who, answer.question["question"], answer.sha256, points,
                        answer.question["points"], comment, grader)  # fmt: skip
        exports.write_class_files(out, book)
    return answer.anchor


def _points(text: str, maximum: float) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"points must be a number from 0 to {maximum:g} (got {text[:20]!r})") from None
    if not math.isfinite(value) or not 0 <= value <= maximum:
        raise ValueError(f"points must be a number from 0 to {maximum:g} (got {text[:20]!r})")
    return value


class ReviewServer(ThreadingHTTPServer):
    """The review page's HTTP server: one gradebook folder, one token, 127.0.0.1 only.

    Parameters
    ----------
    out : pathlib.Path
        The grading output folder, holding ``gradebook.sqlite``.
    port : int
        The port on 127.0.0.1 (0: any free port).
    token : str, optional
        The secret every request must carry (default: a new random one, printed in the URL).
    grader : str, optional
        The name recorded with each score (default: the user running the server).
    """

    daemon_threads = True

    def __init__(self, out: Path, port: int = 0, token: str | None = None, grader: str | None = None):
        super().__init__((HOST, port), _Handler)
        self.out = Path(out)
        self.token = token or secrets.token_urlsafe(24)
        self.grader = grader or getpass.getuser()
        self.lock = threading.Lock()  # one score at a time: the exports are rewritten after each

    @property
    def url(self) -> str:
        """The page's address, token included."""
        return f"http://{HOST}:{self.server_address[1]}/?{urlencode({'token': self.token})}"


class _Handler(BaseHTTPRequestHandler):
    server: ReviewServer

    def log_message(self, format: str, *args: Any) -> None:  # no access log with tokens in it
        return

    def _send(self, status: HTTPStatus, body: str, headers: dict[str, str] | None = None) -> None:
        data = body.encode("utf-8")
        self.send_response(status)
        for key, value in {
            "Content-Type": "text/html; charset=utf-8",
            "Content-Length": str(len(data)),
            "Content-Security-Policy": _CSP,
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer",
            "Cache-Control": "no-store",
            **(headers or {}),
        }.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _host_ok(self) -> bool:
        port = self.server.server_address[1]
        return self.headers.get("Host", "") in (f"{HOST}:{port}", f"localhost:{port}")

    def _token_ok(self, given: str | None) -> bool:
        return given is not None and secrets.compare_digest(given.encode(), self.server.token.encode())

    def _refused(self, token: str | None) -> bool:
        if not self._host_ok():
            self._send(HTTPStatus.MISDIRECTED_REQUEST, "<p>Open the page at 127.0.0.1.</p>")
            return True
        if not self._token_ok(token):
            self._send(HTTPStatus.FORBIDDEN, "<p>Forbidden: open the address the review command printed.</p>")
            return True
        return False

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        if self._refused(query.get("token")):
            return
        if url.path != "/":
            self._send(HTTPStatus.NOT_FOUND, "<p>Not found.</p>")
            return
        with Gradebook.open(self.server.out) as book:
            self._send(HTTPStatus.OK, render_page(book, self.server.token, query.get("saved", "")))

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            self._send(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "<p>Too large.</p>")
            return
        form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode("utf-8", "replace")).items()}
        if self._refused(form.get("token")):
            return
        if urlsplit(self.path).path != "/score":
            self._send(HTTPStatus.NOT_FOUND, "<p>Not found.</p>")
            return
        self._score(form)

    def _score(self, form: dict[str, str]) -> None:
        try:
            with self.server.lock:
                anchor = save_score(self.server.out, form, self.server.grader)
        except (ValueError, GradebookError) as exc:
            with Gradebook.open(self.server.out) as book:
                self._send(HTTPStatus.BAD_REQUEST, render_page(book, self.server.token, f"not saved: {exc}"))
            return
        where = "/?" + urlencode({"token": self.server.token, "saved": "saved"}) + f"#{anchor}"
        self._send(HTTPStatus.SEE_OTHER, "", {"Location": where})


def serve(out: Path, port: int = 0) -> ReviewServer:
    """A review server for the gradebook in ``out`` (not started: call ``serve_forever``).

    Raises
    ------
    GradebookError
        When ``out`` holds no gradebook.

    Parameters
    ----------
    out : pathlib.Path
        The grading output folder.
    port : int
        The port on 127.0.0.1 (0: any free port).

    Returns
    -------
    ReviewServer
        The server, bound but not serving.
    """
    Gradebook.open(Path(out)).close()
    return ReviewServer(Path(out), port)


def main(argv: list[str]) -> int:
    """``python -m helpers.grade review OUT [--port N]``: serve the review page until Ctrl-C.

    Parameters
    ----------
    argv : list of str
        The arguments after ``review``.

    Returns
    -------
    int
        0 after Ctrl-C, 2 for a usage error or a folder without a gradebook.
    """
    parser = argparse.ArgumentParser(
        prog="python -m helpers.grade review",
        description="Score hand-graded answers in a local page (127.0.0.1, with a token in its address); "
        "every score goes into OUT/gradebook.sqlite and rewrites grades.csv, canvas.csv and the feedback.",
    )
    parser.add_argument("out", help="the grading output folder (holding gradebook.sqlite)")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    args = parser.parse_args(argv)
    try:
        server = serve(Path(args.out), args.port)
    except GradebookError as exc:
        print(f"python -m helpers.grade review: {exc}", file=sys.stderr)
        return 2
    print(f"review page: {server.url}\n(only this machine can open it; Ctrl-C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
