"""The forty-second red team (final round of issue 33): a learner's file names, folders, zips and LMS
upload names across the instructor's term workflow, in bubblewrap, honest classmates in every run.

Holes: ``test_canvas_name_fallback.py`` (an off-roster Canvas user named like a classmate's login
takes his row) and ``test_hostile_zip_crashes_run.py`` (a malformed zip stops the whole run). The
round's report lists what held.
"""
