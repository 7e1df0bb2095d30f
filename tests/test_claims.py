"""Every comparative sentence in a notebook's prose quotes a verdict computed in the same section.

A sentence such as "EASE beats ItemKNN" or "interleaving is more sensitive" is a conclusion; it must
rest on a verdict that a code cell of the same section prints, so that re-running the notebook on
other data cannot leave the prose claiming what the numbers no longer say. A printed verdict is
either the text of :class:`topkeval.stats.Verdict` ("X ahead of Y ..." or "... a tie at this sample
size (...)") or, for a comparison that is not of paired per-user scores (a ratio of sample sizes, a
share of intervals), a printed line starting with "Verdict:" that carries its own interval ("CI").

A section runs from a level-1 or level-2 heading ("# ", "## ") to the next one; "###" subsections
belong to their section. Words used in a non-comparative sense ("sorted best first") are exempted
one by one below, each with its reason; an exemption that no longer matches any sentence fails.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))

COMPARATIVE = re.compile(
    r"\b(best|beats?|beaten|beating|wins?|winners?|won|winning|ahead|outperform\w*|more sensitive|"
    r"less sensitive|worse|worst|better than|superior|inferior|most accurate|more accurate|less accurate)\b",
    flags=re.IGNORECASE,
)
VERDICT = re.compile(
    r"(\S ahead of |a tie at this sample size \().*smallest difference detectable with|^Verdict: .*\bCI\b",
    flags=re.MULTILINE,
)
HEADING = re.compile(r"^#{1,2} ", flags=re.MULTILINE)

# (notebook, a phrase of the sentence that uses the word, why it is not a comparison of systems)
EXEMPT = {
    ("00-start-here.ipynb", 'claim "A beats B" with a confidence interval'): "names a lesson's topic",
    ("00-start-here.ipynb", "the recommended items for $u$, best first"): "defines the order of a list",
    ("01-from-classification-to-ranking.ipynb", "a list with its hits first is better than one with"): (
        "states what a rank-aware metric should reward, for two hand-made lists"
    ),
    ("05-dcg-ndcg.ipynb", "a rating of 3 is better than 1"): "defines graded relevance",
    ("05-dcg-ndcg.ipynb", "the same grades sorted best first"): "defines the ideal order",
    ("05-dcg-ndcg.ipynb", "B puts its best items first"): "describes a hand-made list",
    ("05-dcg-ndcg.ipynb", "Divide by the best DCG@K possible"): "defines IDCG",
    ("05-dcg-ndcg.ipynb", "sorted by grade, best first"): "defines IDCG",
    ("05-dcg-ndcg.ipynb", "the relevant items sorted best first"): "defines IDCG",
    ("08-evaluating-a-recommender.ipynb", "*model A is ahead of model B on NDCG@10"): (
        "the form of a claim the notebook teaches, with placeholders"
    ),
    ("08-evaluating-a-recommender.ipynb", "can change which model wins"): "reports a cited study's finding",
    ("09-sampled-metrics.ipynb", "only the few negatives that happen to beat it count"): (
        "an item's score against sampled negatives, not two systems"
    ),
    ("09-sampled-metrics.ipynb", "other candidates beat the held-out item"): (
        "an item's score against other items, not two systems"
    ),
    ("09-sampled-metrics.ipynb", "does not beat the held-out item"): "defines ties in an exercise",
    ("12-user-models-and-online-evaluation.ipynb", "each adds its best item not yet taken"): (
        "describes the team-draft algorithm"
    ),
    ("12-user-models-and-online-evaluation.ipynb", "more credited clicks wins the session"): (
        "defines the outcome of one interleaved session"
    ),
    ("14-recap.ipynb", "Each question has one best answer"): "describes the quiz format",
}


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _printed(cell: dict) -> str:
    parts = []
    for output in cell.get("outputs", []):
        parts.append("".join(output.get("text", "")))
        parts += ["".join(v) for k, v in output.get("data", {}).items() if k == "text/plain"]
    return "\n".join(parts)


def sections(cells: list[dict]) -> list[tuple[str, list[str], str]]:
    """(heading, markdown sentences, printed output) per section, in order."""
    found: list[tuple[str, list[str], list[str]]] = [("(before the first heading)", [], [])]
    for cell in cells:
        if cell.get("cell_type") == "code":
            found[-1][2].append(_printed(cell))
            continue
        if cell.get("cell_type") != "markdown":
            continue
        text = _source(cell)
        starts = [m.start() for m in HEADING.finditer(text)]
        ends = [*starts[1:], len(text)] if starts else []
        pieces = [text[: starts[0]] if starts else text] + [
            text[a:b] for a, b in zip(starts, ends, strict=True)
        ]
        for number, piece in enumerate(pieces):
            if number > 0:
                found.append((piece.splitlines()[0], [], []))
            found[-1][1].extend(_sentences(piece))
    return [(heading, sentences, "\n".join(printed)) for heading, sentences, printed in found]


def _sentences(text: str) -> list[str]:
    sentences = []
    for block in re.split(r"\n\s*(?:[-*]|\d+\.)\s+|\n\s*\n", text):  # list items and paragraphs apart
        flat = re.sub(r"\s+", " ", block)
        sentences += [s.strip() for s in re.split(r"(?<=[.!?:])\s+(?=[A-Z*(\"])", flat) if s.strip()]
    return sentences


def _exempt(name: str, sentence: str) -> bool:
    return any(book == name and phrase in sentence for book, phrase in EXEMPT)


def unsupported_claims(path: Path) -> list[str]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    problems = []
    for heading, sentences, printed in sections(cells):
        if VERDICT.search(printed):
            continue
        for sentence in sentences:
            if COMPARATIVE.search(sentence) and not _exempt(path.name, sentence):
                problems.append(f"{heading!r}: {sentence[:160]}")
    return problems


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_comparative_prose_quotes_a_verdict_printed_in_its_section(path):
    problems = unsupported_claims(path)
    assert not problems, (
        f"{path.name}: these sentences compare systems, but no code cell in their section prints a verdict "
        "(topkeval.stats.verdict's text, or a 'Verdict: ... CI ...' line). Print the verdict the sentence "
        "quotes, or, for a non-comparative use, add a narrow exemption with its reason:\n  "
        + "\n  ".join(problems)
    )


def test_every_exemption_is_still_used():
    used = set()
    for path in NOTEBOOKS:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for _, sentences, _ in sections(cells):
            for sentence in sentences:
                if COMPARATIVE.search(sentence):
                    used |= {(b, p) for b, p in EXEMPT if b == path.name and p in sentence}
    stale = sorted(set(EXEMPT) - used)
    assert not stale, f"exemptions that match no comparative sentence any more (delete them): {stale}"


# ---------------------------------------------------------------- the test itself can fail
def _markdown(text: str) -> dict:
    return {"cell_type": "markdown", "source": text}


def _code(printed: str) -> dict:
    return {
        "cell_type": "code",
        "source": "print(...)",
        "outputs": [{"output_type": "stream", "text": printed}],
    }


def test_the_scan_flags_a_claim_without_a_verdict_and_accepts_one_with(tmp_path):
    def claims(cells):
        path = tmp_path / "99-probe.ipynb"
        path.write_text(json.dumps({"cells": cells}), encoding="utf-8")
        return unsupported_claims(path)

    bare = [_markdown("## 3. Models\n\nEASE beats ItemKNN on NDCG@10."), _code("EASE 0.45, ItemKNN 0.44")]
    assert len(claims(bare)) == 1 and "EASE beats ItemKNN" in claims(bare)[0]
    tie = _code(
        "EASE vs ItemKNN: a tie at this sample size (EASE - ItemKNN = +0.0049, ...; with 1,500 users the "
        "smallest difference detectable with 80% power at alpha = 0.05 is 0.0160)."
    )
    assert len(claims([*bare, _code("Best: EASE, ahead of ItemKNN by +0.0049")])) == 1  # not a verdict
    assert claims([*bare, tie]) == []
    # a verdict printed in another section does not count
    elsewhere = [_markdown("## 3. Models\n\nEASE is the best model."), _markdown("## 4. Other"), tie]
    assert len(claims(elsewhere)) == 1
    # a '###' subsection belongs to its section; a "Verdict:" line needs its interval
    sub = [
        _markdown("## 5. Online\n\n### Interleaving\n\nInterleaving is more sensitive."),
        _code("Verdict: 1.4x"),
    ]
    assert len(claims(sub)) == 1
    assert claims([*sub[:1], _code("Verdict: 1.4x fewer sessions (95% CI 1.3 to 1.5)")]) == []


# ---------------------------------------------------------------- notebook 14's decision guide
def _printed_lines(prefix: str) -> list[str]:
    (path,) = [p for p in NOTEBOOKS if p.name.startswith(f"{prefix}-")]
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [line for cell in cells if cell.get("cell_type") == "code" for line in _printed(cell).splitlines()]


def _guide():
    from helpers.course.nb14 import DECISION_GUIDE, GUIDE_EVIDENCE, recap_table

    return DECISION_GUIDE, GUIDE_EVIDENCE, recap_table()


def _evidence_problem(key: str, source: str, what: str, guide, table) -> str | None:
    """Why one piece of a guide row's evidence does not hold, or None."""
    if source == "definition":
        missing = [m for m in what.split(", ") if m not in table.index]
        return f"{missing} are not metrics of the recap table" if missing else None
    lines = [line for line in _printed_lines(source) if what in line]
    if not lines:
        return f"notebook {source} prints no line containing {what!r}"
    if not all(VERDICT.search(line) for line in lines):
        return f"the line of notebook {source} with {what!r} is not a verdict: {lines[0]!r}"
    if f'notebook {source}: "{what}"' not in guide.loc[key, "backed by"]:
        return "the 'backed by' column does not quote it"
    return None


def test_every_row_of_the_decision_guide_is_backed_by_a_definition_or_a_printed_verdict():
    guide, evidence, table = _guide()
    assert set(guide.index) == set(evidence), "each guide row needs evidence, and only rows"
    problems = [
        f"guide row {key!r}: {problem}"
        for key, backing in evidence.items()
        for source, what in backing or [("(none)", "")]
        if (problem := _evidence_problem(key, source, what, guide, table)) is not None
    ]
    assert not problems, "\n".join(problems)


def _starting(prefix: str, start: str) -> list[str]:
    return [line for line in _printed_lines(prefix) if line.strip().startswith(start)]


def test_a_difference_below_the_mde_can_be_ahead_as_the_guide_now_says():
    guide, _, _ = _guide()
    (line,) = _starting("13", "EASE ahead of ItemKNN on NDCG@10")
    difference = abs(float(re.search(r"ItemKNN - EASE = ([-+][\d.]+)", line).group(1)))
    mde = float(re.search(r"smallest difference detectable with .* is (\d+\.\d+)", line).group(1))
    assert difference < mde, "the guide's example of an 'ahead' below the MDE no longer holds"
    why = guide.loc["significance", "why"]
    assert "can still be ahead" in why and "is a tie" not in why


def test_the_guide_no_longer_says_the_corrected_sampled_metric_recovers_the_full_ranking():
    guide, _, _ = _guide()
    assert _starting("15", "full ranking: ItemKNN vs EASE on HR@10")
    assert _starting("15", "corrected sampled: ItemKNN vs EASE on HR@10")
    assert "recovers" not in guide.loc["sampled", "why"]


def test_the_guide_calls_the_logs_reversed_order_a_tie_not_a_flip():
    guide, _, _ = _guide()
    log_lines = [x for x in _starting("15", "log:") if "ItemKNN" in x]
    assert log_lines and all("a tie at this sample size" in x for x in log_lines)
    assert "flip" not in guide.loc["log", "why"] and "tie" in guide.loc["log", "why"]


def test_the_guide_says_the_correction_lands_short_of_eases_full_value_as_15_prints():
    guide, _, _ = _guide()
    (line,) = _starting("15", "EASE: full ahead of corrected on EASE's HR@10")
    assert float(re.search(r"corrected - full = ([-+][\d.]+)", line).group(1)) < 0
    why = guide.loc["sampled", "why"]
    assert "not onto it" in why and "for EASE the full ranking is ahead of the corrected value" in why


def test_the_guides_interleaving_rule_quotes_notebook_12s_one_world_verdict():
    guide, _, _ = _guide()
    lines = _starting("12", "Verdict: interleaving needs")  # printed where it is computed and in the summary
    quoted = {re.search(r"needs (\d\.\d+) times .*95% CI (\d\.\d+) to (\d\.\d+)", x).groups() for x in lines}
    ((ratio, low, high),) = quoted
    why = guide.loc["online", "why"]
    assert f"{ratio} times the sessions" in why and f"95% CI {low} to {high}" in why
    assert "simulated world" in why and "not a general figure" in why
