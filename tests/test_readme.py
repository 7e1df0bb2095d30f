"""What README.md promises a newcomer holds: its first example runs as written, its numbers are true.

"The helpers in one minute" is run statement by statement in a fresh namespace (so it must
define every name it uses); a trailing comment that starts with a number or a list is a claim
about the value of the expression on its line, and is checked. The LICENSE file must match the
license pyproject.toml declares.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
NUMBER = re.compile(r"#\s*(-?\d+(?:\.\d+)?)")


def one_minute_block(markdown: str) -> str:
    """The first ```python block of the section "The helpers in one minute"."""
    section = markdown.split("## The helpers in one minute", 1)
    assert len(section) == 2, "README.md has no section '## The helpers in one minute'"
    match = re.search(r"```python\n(.*?)```", section[1], flags=re.DOTALL)
    assert match, "the section 'The helpers in one minute' has no ```python block"
    return match.group(1)


def claims(code: str) -> dict[int, str]:
    """Line number -> its trailing comment, for the lines that have one."""
    tokens = tokenize.generate_tokens(io.StringIO(code).readline)
    return {tok.start[0]: tok.string for tok in tokens if tok.type == tokenize.COMMENT}


def check_claim(value, comment: str, line: str) -> bool:
    """Whether ``value`` is what ``comment`` says; False when the comment makes no claim."""
    if comment.lstrip("# ").startswith("["):
        claimed = ast.literal_eval(comment.lstrip("# ").split("]", 1)[0] + "]")
        assert list(value) == claimed, f"README says {line.strip()!r} gives {claimed}; it gives {list(value)}"
        return True
    number = NUMBER.match(comment)
    if number is None:
        return False
    digits = len(number.group(1).partition(".")[2])
    assert round(float(value), digits) == float(number.group(1)), (
        f"README says {line.strip()!r} gives {number.group(1)}; it gives {value!r}"
    )
    return True


def run_and_check(code: str) -> int:
    """Run ``code`` as written; return how many claims in its comments were checked."""
    namespace: dict = {"__name__": "readme"}
    comments, lines, checked = claims(code), code.splitlines(), 0
    for node in ast.parse(code).body:
        if isinstance(node, ast.Expr):
            value = eval(compile(ast.Expression(node.value), "README.md", "eval"), namespace)
            comment = comments.get(node.end_lineno)
            if comment is not None and check_claim(value, comment, lines[node.end_lineno - 1]):
                checked += 1
        else:
            exec(compile(ast.Module([node], type_ignores=[]), "README.md", "exec"), namespace)
    return checked


def test_helpers_in_one_minute_runs_as_written():
    checked = run_and_check(one_minute_block(README.read_text(encoding="utf-8")))
    assert checked >= 5, f"expected the block's claimed values to be checked; only {checked} were"


def test_a_wrong_claim_or_an_undefined_name_fails():
    with pytest.raises(AssertionError, match="gives 0.5"):
        run_and_check("import helpers\nhelpers.precision_at_k(['a', 'b'], {'a'}, k=2)  # 0.4\n")
    with pytest.raises(NameError, match="recommendations"):
        run_and_check("import helpers\nhelpers.evaluate(recommendations, truth, k=1)\n")


def test_license_file_matches_pyproject():
    declared = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["license"]
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert declared == "MIT"
    assert text.startswith("MIT License") and "Permission is hereby granted, free of charge" in text
    assert "the topk-course authors" in text


def test_every_pip_install_line_names_a_folder_and_extras_of_this_repository():
    """The README's install lines work from a clone: local folders only (nothing is on PyPI), real extras."""
    readme = README.read_text(encoding="utf-8")
    lines = re.findall(r"pip install ([^\n`]+)", readme)
    for line in [line for line in lines if " @ git+" in line]:  # a git URL: the library's subfolder
        assert line.strip("\"'").startswith("topkeval @ git+") and line.strip("\"'").endswith(
            "#subdirectory=topkeval"
        )
    targets = _install_targets(lines)
    assert len(targets) >= 5, "README.md has too few pip install lines"
    for target in targets:
        _assert_a_folder_with_its_extras(target)
    assert "not on PyPI" in readme


def _install_targets(lines: list[str]) -> list[str]:
    """What the install lines without a git URL install (options and comments left out)."""
    return [
        t.strip("\"'")
        for line in lines
        if " @ git+" not in line
        for t in line.split("#")[0].split()
        if not t.startswith("-")
    ]


def _assert_a_folder_with_its_extras(target: str) -> None:
    assert target.startswith("."), f"README installs {target!r}, which is not on PyPI; install from the clone"
    folder, _, extras = target.partition("[")
    project = tomllib.loads((REPO / folder / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for extra in filter(None, extras.rstrip("]").split(",")):
        assert extra in project["optional-dependencies"], (target, extra)


#: README.md's sections a practitioner reads (the library, its speed, Spark, conventions); the rest is
#: the course's.
PRACTITIONER_SECTIONS = (
    "### Use it in your own project",
    "## Evaluating on Spark",
    "## Same name, different numbers",
)
COURSE_PACKAGE = "topk-course-helpers"


def practitioner_text() -> str:
    """The practitioner-facing parts of README.md (each section up to the next heading of its level or
    above) and the library's own README."""
    readme = README.read_text(encoding="utf-8")
    parts = [(REPO / "topkeval" / "README.md").read_text(encoding="utf-8")]
    for heading in PRACTITIONER_SECTIONS:
        assert heading in readme, f"README.md has no section {heading!r}"
        body = readme.split(heading + "\n", 1)[1]
        level = heading.split()[0]
        stop = re.search(rf"^#{{1,{len(level)}}} ", body, flags=re.MULTILINE)
        parts.append(body[: stop.start()] if stop else body)
    return "\n".join(parts)


def installs_course_package(line: str) -> bool:
    """Whether a ``pip install`` argument list installs the course package (this repository's root)."""
    for target in (t.strip("\"'") for t in line.split("#")[0].split() if not t.startswith("-")):
        folder = target.partition("[")[0].partition(" @ ")[0].rstrip("/")
        if folder in (".", "") or folder.lower() == COURSE_PACKAGE or target.startswith(".["):
            return True
    return False


def test_no_practitioner_install_line_installs_the_course_package():
    """`pip install ./topkeval ".[compare]"` would put the course's top-level `helpers` into a practitioner's
    environment, shadowing their own module: the library's lines install the library and its extras only."""
    lines = re.findall(r"pip install ([^\n`]+)", practitioner_text())
    assert len(lines) >= 6, lines
    assert not [line for line in lines if installs_course_package(line)]
    assert any("./topkeval[compare]" in line for line in lines), "no line installs the compare extra"


def test_the_course_package_check_catches_the_old_line():
    assert installs_course_package('./topkeval ".[compare]"   # + the course package')
    assert installs_course_package("-e ./topkeval -e . --no-deps")
    assert installs_course_package('"topk-course-helpers[compare]"')
    assert not installs_course_package('"./topkeval[compare]"     # + the peers')
    assert not installs_course_package('"topkeval @ git+https://x/y#subdirectory=topkeval"')


def test_the_library_compare_extra_lists_the_peers_and_the_course_reuses_it():
    library = tomllib.loads((REPO / "topkeval" / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    course = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    peers = library["optional-dependencies"]["compare"]
    names = {re.split(r"[<>=!~\[ ]", req, maxsplit=1)[0] for req in peers}
    assert names == {"pytrec-eval-terrier", "ir-measures", "ranx", "scikit-learn"}
    assert "topkeval[compare]" in course["optional-dependencies"]["compare"]
