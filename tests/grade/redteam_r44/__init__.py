"""The forty-fourth red team (final round of issue 33): a learner's file names, folders, zips and LMS
upload names across the instructor's term workflow, in bubblewrap, honest classmates in every run.

Hole: ``test_zip_member_key_per_run.py`` (two emailed zips whose notebooks share a name are keyed by
a per-run temporary path: the same command run again grades them again as new learners). The round's
report lists what held.
"""
