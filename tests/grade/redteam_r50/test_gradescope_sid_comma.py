"""Red team 50: Gradescope submitters' ids are joined with ``,`` into the no-roster key, so one learner's
``:sid`` can spell a GROUP's key.

Without a roster, a submission of Gradescope's export (``--gradescope``) is keyed by its submitters
(``collect._submitters_key``: ``gradescope:`` and the sorted ``sid=...`` joined by ``,``). The join is
not injective: Mal, alone, with the Student ID ``al,sid=bo`` (typed by the learner when she enrols with
the course's entry code; unique as a string, so Gradescope has no reason to refuse it) has the key
``gradescope:sid=al,sid=bo``, exactly the key of Al and Bo's group. In one run the two share a key,
so both fall back to a path-derived key (``grader._learner_keys``): the group is no longer the
learner the gradebook knows. Re-grading the next export into the same ``--out`` (the README's "a file
already graded for that learner with the same seed is kept") grades the group AGAIN under a new key,
with NEW hidden cases (partial credit can change), and the class's files hold the group twice.

Severity: low (no roster, a self-typed SID with a comma; it splits a group's identity and re-draws its
cases, it does not hand anyone another's score). Fix principle: encode each id unambiguously (e.g. a
JSON list of the sorted ids) so that distinct submitter sets never share a key.

Closed at stop 45: ``%`` and ``,`` in a submitter's id are written ``%25`` and ``%2C``
(``collect._submitters_key``), so distinct submitter sets never share a key; the usual keys are
unchanged (a gradebook of earlier runs keeps its learners).
"""

from __future__ import annotations

from tests.grade.redteam_r5.downloads import class_list, grade_download, gs_export, gs_record

GROUP = gs_record(1, {"name": "Al", "sid": "al"}, {"name": "Bo", "sid": "bo"})  # honest, together
MAL = gs_record(2, {"name": "Mal", "sid": "al,sid=bo"}, day=21)


def test_a_sid_with_a_comma_does_not_take_a_groups_key(tmp_path, bwrap):
    export = tmp_path / "export.zip"
    grade_download(tmp_path, "--gradescope", gs_export(export, GROUP, {1: "perfect.ipynb"}), None)
    # the next export (same name, re-downloaded): the group unchanged, Mal's late submission added
    gs_export(export, GROUP + MAL, {1: "perfect.ipynb", 2: "constant_zero.ipynb"})
    grade_download(tmp_path, "--gradescope", export, None)
    group = [r for r in class_list(tmp_path / "out") if "submission_1" in r["file"]]
    assert len(group) == 1, group
