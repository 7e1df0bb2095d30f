"""The twenty-second red team (final round): round 21's reserved names and classes no round tried.

Broken, both closed at stop 42: a current result already named ``similarity`` (a book begun before round 21's
fix) keeps the name (``test_reserved_names.py``); an authored learner notebook keeps the source's
widget state (``test_authored_release.py``). Closed by reserved names winning over current holders
(``grader._report_names``; exports never write ``OUT/<reserved>.json``) and by building the learner
notebook from an allow-list (``authoring._learner_cell``). Held (run): Unicode/case/dot variants of
the reserved names (``files.report_names`` makes names ASCII, ``grader._report_names`` reserves case-blind);
typed ``choosing-metrics`` answers (``grader._second_draw``). Held (read): the rest of the report.
"""
