"""Every exercise checker, fed its reference solution, the untouched stub and known-wrong answers."""

from __future__ import annotations

import copy
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import helpers.course as checks
from helpers.checking import questions as _core
from helpers.checking.questions import FunctionQuestion, PropertyQuestion, ValueQuestion, format_value
from helpers.course import progress_file as _progress
from helpers.course.choice import ChoiceQuestion

QUESTIONS = checks.all_questions()


@pytest.fixture(autouse=True)
def progress_file(tmp_path, monkeypatch):
    """Every test writes progress into its own temporary file."""
    path = tmp_path / "progress.json"
    monkeypatch.setenv("TOPK_COURSE_PROGRESS", str(path))
    monkeypatch.setattr(_progress, "_memory", {})
    monkeypatch.setattr(_progress, "_problem", None)
    return path


def test_every_notebook_with_exercises_has_questions():
    assert {qid.split(".")[0] for qid in QUESTIONS} == set(checks.NOTEBOOKS)
    assert len(QUESTIONS) >= 22
    notebooks = Path(__file__).resolve().parents[2] / "notebooks"
    for name in checks.NOTEBOOKS.values():
        assert (notebooks / f"{name}.ipynb").exists(), name


def _uses(q):
    """The reference solutions of the questions ``q`` builds on (05.q2 takes the learner's dcg)."""
    return tuple(u.solution_code for u in getattr(q, "uses", ()))


def _check(q, answer, **options):
    """``q.check`` as a learner who solved the earlier questions calls it."""
    return q.check(answer, *_uses(q), **options)


@pytest.mark.parametrize("qid", sorted(QUESTIONS))
def test_reference_solution_is_correct(qid):
    q = QUESTIONS[qid]
    result = _check(q, q.answer_from(q.solution_code))
    assert result.outcome == checks.CORRECT, result.message
    assert result.message.startswith("Correct")
    assert bool(result) is True


@pytest.mark.parametrize("qid", sorted(QUESTIONS))
def test_untouched_stub_is_not_attempted(qid):
    q = QUESTIONS[qid]
    result = _check(q, q.stub())
    assert result.outcome == checks.NOT_ATTEMPTED
    assert result.message.startswith("Not attempted")
    assert bool(result) is False


@pytest.mark.parametrize("qid", sorted(QUESTIONS))
def test_stub_variants_are_not_attempted(qid):
    q = QUESTIONS[qid]
    if isinstance(q, ValueQuestion):
        assert q.check(...).outcome == checks.NOT_ATTEMPTED
        return

    def with_pass(*args):
        """A docstring does not count as an attempt."""
        pass

    def raises(*args):
        raise NotImplementedError

    assert _check(q, with_pass).outcome == checks.NOT_ATTEMPTED
    if isinstance(q, FunctionQuestion):
        assert _check(q, raises).outcome == checks.NOT_ATTEMPTED


@pytest.mark.parametrize("qid", sorted(QUESTIONS))
def test_each_known_mistake_is_named(qid):
    q = QUESTIONS[qid]
    assert len(q.mistakes) >= 2, "every question needs at least two known-wrong answers"
    for mistake in q.mistakes:
        result = _check(q, q.answer_from(mistake.function))
        assert result.outcome == checks.INCORRECT, (mistake.label, result.message)
        assert result.mistake == mistake.label
        assert f"Recognised mistake: {mistake.label}." in result.message
        assert result.message.startswith("Incorrect")


def _expected_texts(value):
    texts = {format_value(value), repr(value)}
    if isinstance(value, float):
        texts |= {f"{value:.4f}", f"{value:.3f}", str(round(value, 6))}
    return {t for t in texts if t not in ("0", "1")}


@pytest.mark.parametrize("qid", sorted(QUESTIONS))
def test_incorrect_message_never_shows_the_expected_value(qid):
    q = QUESTIONS[qid]
    for mistake in q.mistakes:
        message = _check(q, q.answer_from(mistake.function)).message
        if isinstance(q, FunctionQuestion):
            _assert_function_message_hides_the_expected_value(q, mistake, message)
        elif isinstance(q, ValueQuestion):
            expected = q.reference()
            for text in _expected_texts(expected):
                assert text not in message, (text, message)
            assert q.prompt in message


def _assert_function_message_hides_the_expected_value(q, mistake, message: str) -> None:
    failing = [
        args
        for args in q.cases
        if any(q._call_text(args) + verb in message for verb in (" returned", " raised"))
    ]
    assert len(failing) == 1, message
    shown = message.replace(q._call_text(failing[0]), "")
    expected = q.reference(*failing[0])
    # the learner's (wrong) value, or the error it raised, is shown; the expected one never is
    if " raised " not in message:
        assert format_value(mistake.function(*failing[0])) in shown
    for text in _expected_texts(expected):
        assert text not in shown, (text, message)


@pytest.mark.parametrize("qid", sorted(QUESTIONS))
def test_function_question_cases_are_sound(qid):
    q = QUESTIONS[qid]
    if not isinstance(q, FunctionQuestion):
        return
    # the reference and the solution agree, and every case is a float-returning call
    for args in q.cases:
        ref = q.reference(*args)
        assert _core._same(q.solution_code(*args, *_uses(q)), ref), args


@pytest.mark.parametrize("qid", sorted(QUESTIONS))
def test_hints_and_solution(qid):
    q = QUESTIONS[qid]
    first = repr(q.hint())
    assert first.startswith(f"Hint 1 of {len(q.hints)}:")
    last = repr(q.hint(len(q.hints)))
    assert "solution()" in last
    assert "hints 1 to" in repr(q.hint(len(q.hints) + 1))
    assert "hints 1 to" in repr(q.hint(0))
    solution = repr(q.solution())
    assert f"def {q.solution_code.__name__}(" in solution
    # the code the learner is shown, run on its own in the module's namespace, is a right answer
    shown = solution.split("\n\n", 1)[1]
    if isinstance(q, ChoiceQuestion):  # the code, then the chosen option's text and why
        shown = shown.split("\n\n", 1)[0]
    namespace = dict(vars(sys.modules[q.solution_code.__module__]))
    exec(compile(shown, f"<{qid} solution>", "exec"), namespace)
    rebuilt = namespace[q.solution_code.__name__]
    assert rebuilt is not q.solution_code
    assert _check(q, q.answer_from(rebuilt), record=False).outcome == checks.CORRECT
    assert q.name in repr(q)


def test_incorrect_answer_shows_learner_value_and_input():
    from helpers.course.nb02 import q1

    def precision_at_k(ranking, relevant, k):
        return 0.123

    result = q1.check(precision_at_k)
    assert result.outcome == checks.INCORRECT
    assert "returned 0.123" in result.message
    assert "precision_at_k([" in result.message
    assert result.mistake is None


def test_learner_function_that_raises_or_returns_none():
    from helpers.course.nb04 import q1

    def reciprocal_rank_at_k(ranking, relevant, k):
        return 1 / 0

    result = q1.check(reciprocal_rank_at_k)
    assert result.outcome == checks.INCORRECT
    assert "raised ZeroDivisionError" in result.message

    def forgot_return(ranking, relevant, k):
        share = 1 / len(ranking)  # computed, never returned
        del share

    result = q1.check(forgot_return)
    assert "returned None. Did you forget a return statement?" in result.message


def test_an_error_without_a_message_is_said_so():
    from helpers.course.nb04 import q1

    def reciprocal_rank_at_k(ranking, relevant, k):  # next() with no default: StopIteration on a miss
        return next(1 / i for i, item in enumerate(ranking[:k], start=1) if item in relevant)

    result = q1.check(reciprocal_rank_at_k, record=False)
    assert "raised StopIteration (with no message)" in result.message
    assert "StopIteration: " not in result.message
    assert result.mistake == "next() without a default: no hit in the top k"


def test_a_value_question_names_a_mistake_rounded_at_an_earlier_step():
    from helpers.course.nb06 import q2

    # (0.4307 + 1) / 2 = 0.71535 -> 0.7154 with the rank-4 score rounded first; the exact mistake gives 0.7153
    for answer in (0.7153, 0.7154, 0.71535):
        assert q2.check(answer, record=False).mistake == "a user with no hit left out of the mean"
    # within one unit of the asked decimals only: 0.7156 is no known mistake
    assert q2.check(0.7156, record=False).mistake is None
    # a mistake's exact value wins over the "rounded to fewer decimals" rule (0.5 is also 0.4769 to 1 decimal)
    result = q2.check(0.5, record=False)
    assert result.mistake == "log2(r) instead of log2(r + 1)" and "rounded to 1 decimal" not in result.message
    assert "rounded to 2 decimals" in q2.check(0.48, record=False).message


def test_an_error_is_named_only_by_a_mistake_that_raises_the_same_error_on_the_same_case(monkeypatch):
    from helpers.checking.questions import Mistake

    monkeypatch.setattr(_core, "QUESTIONS", dict(_core.QUESTIONS))  # the probe below registers itself

    def reference(x):
        return 1 / x if x else 0.0

    def no_guard(x):
        return 1 / x

    question = FunctionQuestion(
        id="12.q99",
        title="a probe",
        function_name="inverse",
        reference=reference,
        cases=[(2,), (0,), (4,)],
        hints=["guard 0"],
        solution_code=reference,
        mistakes=[Mistake("no guard for 0", "0 counts 0.", no_guard)],
    )
    named = question.check(lambda x: 1 / x, record=False)
    assert named.mistake == "no guard for 0" and "raised ZeroDivisionError" in named.message
    other_error = question.check(lambda x: [][x], record=False)  # IndexError on the first case
    assert other_error.outcome == checks.INCORRECT and other_error.mistake is None
    wrong_before = question.check(lambda x: 3 / x, record=False)  # already wrong on case 0
    assert wrong_before.mistake is None


def test_passing_a_value_to_a_function_question_and_vice_versa():
    from helpers.course.nb03 import q1, q2

    assert q1.check(0.5).outcome == checks.INCORRECT
    assert "expects your function itself" in q1.check(0.5).message
    assert q2.check(lambda: 0.275).outcome == checks.INCORRECT
    assert "expects a value, not a function" in q2.check(lambda: 0.275).message
    assert q2.check("0.275").outcome == checks.INCORRECT


def test_floats_are_compared_with_a_tolerance_not_equality():
    from helpers.course.nb03 import q2

    # 0.1 + 0.2 style rounding noise must not fail a right answer
    exact = q2.reference()
    assert q2.check(exact * (1 + 1e-12)).outcome == checks.CORRECT
    assert q2.check(round(exact, 2) + 0.001).outcome == checks.INCORRECT


def test_numpy_results_are_accepted():
    np = pytest.importorskip("numpy")
    from helpers.course.nb05 import q1

    def dcg(grades, k):
        g = np.asarray(grades[:k], dtype=float)
        return np.sum(g / np.log2(np.arange(2, g.size + 2)))

    assert q1.check(dcg).outcome == checks.CORRECT


def test_property_question_names_the_failing_rule():
    from helpers.course.nb06 import q3

    def cliff_score(r, k):
        if r is None or r > k:
            return 0.0
        return 1.0 if r == 1 else 0.9  # flat after rank 1: fails "strictly decreasing"

    result = q3.check(cliff_score)
    assert result.outcome == checks.INCORRECT
    assert "rule 3 of 5" in result.message
    assert isinstance(q3, PropertyQuestion)

    def leaks(r, k):
        return 0.5 if r is None else 0.5 + 0.5 / math.log2(r + 1)  # not zero outside the list

    assert "rule 2 of 5" in q3.check(leaks).message


def test_format_value_is_deterministic():
    assert format_value({"z", "a", "m"}) == "{'a', 'm', 'z'}"
    assert format_value((1, 2.5)) == "(1, 2.5)"
    assert format_value(set()) == "set()"
    assert format_value(float("nan")) == "nan"


@pytest.mark.parametrize(
    "value, text",
    [
        (None, "None"),
        (True, "True"),
        (..., "Ellipsis"),
        (np.int64(5), "5"),
        (-0.0, "0.0"),
        (2 / 3, "0.666667"),
        (float("-inf"), "-inf"),
        ("x", "'x'"),
        (frozenset({3, 1}), "{1, 3}"),
        ({"a": 1, "b": [1, 2.5]}, "{'a': 1, 'b': [1, 2.5]}"),
        ((1,), "(1,)"),
        (np.array([[0.5, 1.0], [2.0, 3.0]]), "[[0.5, 1], [2, 3]]"),  # floats at 6 significant digits
        (np.float64(0.1), "0.1"),
        (3 + 4j, "(3+4j)"),
        (range(2), "range(0, 2)"),
    ],
)
def test_format_value_text_of_every_kind(value, text):
    assert format_value(value) == text


# ------------------------------------------------------------------ progress
def test_progress_records_outcomes_in_the_file(progress_file):
    from helpers.course.nb02 import q1

    q1.check(q1.stub())
    assert not progress_file.exists()  # an untouched stub writes nothing
    q1.check(q1.mistakes[0].function)
    assert json.loads(progress_file.read_text())["questions"]["02.q1"] == {
        "best": "incorrect",
        "history": ["incorrect"],
    }
    q1.check(q1.solution_code)
    summary = checks.progress()
    assert summary.done == 1
    assert summary.total == len(QUESTIONS)
    text = repr(summary)
    assert text.startswith(f"Exercises correct: 1 of {len(QUESTIONS)}")
    assert "[x] q1: correct" in text
    assert "02-cutoffs" in text


def test_rerunning_a_stub_does_not_erase_an_attempt(progress_file):
    from helpers.course.nb02 import q1

    q1.check(q1.solution_code)
    q1.check(q1.stub())
    assert checks.progress().done == 1
    assert _progress.history("02.q1") == ["correct"]


def test_a_wrong_try_after_a_right_one_keeps_the_question_solved(progress_file, monkeypatch):
    from helpers.course.nb02 import q1

    q1.check(q1.mistakes[0].function)
    q1.check(q1.solution_code)
    q1.check(q1.mistakes[1].function)  # one more try, wrong
    summary = checks.progress()
    assert summary.done == 1
    assert "[x] q1: correct (3 tries: incorrect, correct, incorrect)" in repr(summary)
    assert summary.histories["02.q1"] == ["incorrect", "correct", "incorrect"]
    stored = json.loads(progress_file.read_text())["questions"]["02.q1"]
    assert stored == {"best": "correct", "history": ["incorrect", "correct", "incorrect"]}
    monkeypatch.setattr(_progress, "_memory", {})  # a new session reads the same from the file
    assert _progress.load()["02.q1"] == "correct"
    assert _progress.history("02.q1") == ["incorrect", "correct", "incorrect"]


def test_history_is_capped_and_keeps_the_best(progress_file, monkeypatch):
    from helpers.course.nb02 import q1

    q1.check(q1.solution_code)
    for _ in range(_progress.HISTORY_LIMIT + 5):
        q1.check(q1.mistakes[0].function)
    assert len(_progress.history("02.q1")) == _progress.HISTORY_LIMIT
    assert "correct" not in _progress.history("02.q1")  # the right try has scrolled out of the history...
    assert checks.progress().done == 1  # ...but the best result stays
    assert "(55 tries" not in repr(checks.progress()) and "..., incorrect" in repr(checks.progress())


def test_a_progress_file_of_the_first_format_is_read(progress_file):
    progress_file.write_text(json.dumps({"format": 1, "outcomes": {"02.q1": "correct", "03.q1": "bogus"}}))
    assert _progress.load() == {"02.q1": "correct"}
    assert _progress.history("02.q1") == ["correct"]
    from helpers.course.nb02 import q1

    q1.check(q1.mistakes[0].function)  # rewritten in the new format, the old result kept as the best
    assert json.loads(progress_file.read_text())["questions"]["02.q1"]["best"] == "correct"


def test_progress_survives_a_new_session(progress_file, monkeypatch):
    from helpers.course.nb04 import q2

    q2.check(q2.solution_code)
    monkeypatch.setattr(_progress, "_memory", {})  # as after a kernel restart
    assert _progress.load() == {"04.q2": "correct"}


def test_corrupt_progress_file_degrades_to_memory(progress_file):
    from helpers.course.nb04 import q1

    progress_file.write_text("{not json")
    result = q1.check(q1.solution_code)
    assert result.outcome == checks.CORRECT
    summary = checks.progress()
    assert summary.done == 1
    assert "could not be read" in repr(summary)


def test_wrong_shape_progress_file_is_ignored(progress_file):
    progress_file.write_text(json.dumps({"outcomes": ["not", "a", "mapping"]}))
    assert checks.progress().done == 0


def test_unwritable_progress_path_degrades_to_memory(tmp_path, monkeypatch):
    from helpers.course.nb04 import q1

    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    monkeypatch.setenv("TOPK_COURSE_PROGRESS", str(blocker / "sub" / "progress.json"))
    result = q1.check(q1.solution_code)  # must not raise
    assert result.outcome == checks.CORRECT
    summary = checks.progress()
    assert summary.done == 1
    assert "could not be written" in repr(summary)


def test_progress_off_keeps_memory_only(tmp_path, monkeypatch):
    from helpers.course.nb00 import q1

    monkeypatch.setenv("TOPK_COURSE_PROGRESS", "off")
    assert checks.progress_path() is None
    q1.check(q1.solution_code)
    assert checks.progress().done == 1
    assert list(tmp_path.iterdir()) == []


def test_default_progress_path(monkeypatch):
    monkeypatch.delenv("TOPK_COURSE_PROGRESS", raising=False)
    path = checks.progress_path()
    assert path.parts[-3:] == ("share", "topk-course", "progress.json")


def test_reset_progress(progress_file):
    from helpers.course.nb00 import q1

    q1.check(q1.solution_code)
    assert progress_file.exists()
    checks.reset_progress()
    assert not progress_file.exists()
    assert checks.progress().done == 0


def test_check_without_recording(progress_file):
    from helpers.course.nb00 import q1

    q1.check(q1.solution_code, record=False)
    assert not progress_file.exists()
    assert checks.progress().done == 0


def test_question_ids_follow_the_module_and_duplicates_are_rejected():
    from helpers.checking import questions as Q

    def solution(ranking, relevant, k):
        return 0.0

    solution.__module__ = "helpers.course.nb77"
    assert Q._question_id("q3", solution) == "77.q3"  # the short id takes the module's number
    with pytest.raises(ValueError, match="must start with 77"):
        Q._question_id("02.q3", solution)
    first = Q.QUESTIONS["02.q1"]
    impostor = copy.copy(first)
    solution.__module__ = "helpers.course.nb02"
    impostor.solution_code = solution  # another question of notebook 02 claiming the id q1
    with pytest.raises(ValueError, match="used twice"):
        impostor.__post_init__()
    assert Q.QUESTIONS["02.q1"] is first


# ------------------------------------------------------------------ 05.q2 builds on the learner's own dcg
def _right_dcg(grades, k):
    return sum(g / math.log2(i + 1) for i, g in enumerate(grades[:k], start=1))


def _wrong_dcg(grades, k):
    return sum(g / math.log(i + 1) for i, g in enumerate(grades[:k], start=1))


def test_ndcg_uses_the_dcg_passed_in_never_a_stale_global(progress_file):
    from helpers.course.nb05 import q2

    namespace = {"dcg": _wrong_dcg}  # a stale global of the same name, as a notebook can hold
    exec(
        "def ndcg(grades, k, dcg):\n    return dcg(grades, k) / dcg(sorted(grades, reverse=True), k)\n",
        namespace,
    )
    result = q2.check(namespace["ndcg"], _right_dcg)
    assert result.outcome == checks.CORRECT, result.message
    assert "ndcg(" in q2._call_text(([1, 2], 2)) and q2._call_text(([1, 2], 2)).endswith(", dcg)")


def test_ndcg_waits_for_a_correct_dcg_and_says_so(progress_file):
    from helpers.course.nb05 import q2

    def ndcg(grades, k, dcg):
        return dcg(grades, k) / dcg(sorted(grades, reverse=True), k)

    missing = q2.check(ndcg)
    assert missing.outcome == checks.NOT_ATTEMPTED and "q2.check(ndcg, dcg)" in missing.message
    wrong = q2.check(ndcg, _wrong_dcg)
    assert wrong.outcome == checks.NOT_ATTEMPTED
    assert "q1.check(dcg) does not say Correct yet" in wrong.message and "05.q1" in wrong.message
    assert checks.progress().done == 0 and "05.q2" not in _progress.load()  # nothing recorded


def test_ndcg_reading_a_global_dcg_is_told_to_take_it_as_a_parameter(progress_file):
    from helpers.course.nb05 import q2

    def ndcg(grades, k):
        return _right_dcg(grades, k) / _right_dcg(sorted(grades, reverse=True), k)

    result = q2.check(ndcg, _right_dcg)
    assert result.outcome == checks.INCORRECT
    assert "def ndcg(grades, k, dcg):" in result.message and "not a global" in result.message


def test_ndcg_above_one_is_pointed_out(progress_file):
    from helpers.course.nb05 import q2

    def ndcg(grades, k, dcg):
        return dcg(grades, k) / dcg(sorted(grades), k)  # ascending: the 'ideal' is the worst order

    result = q2.check(ndcg, _right_dcg)
    assert result.outcome == checks.INCORRECT
    assert "Out of range: NDCG@k always lies between 0 and 1." in result.message
    assert result.mistake == "ideal sorted worst first"


def test_a_question_that_builds_on_nothing_refuses_extra_functions(progress_file):
    from helpers.course.nb05 import q1

    result = q1.check(_right_dcg, _right_dcg)
    assert result.outcome == checks.INCORRECT and "q1.check(dcg)" in result.message
