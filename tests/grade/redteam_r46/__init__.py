"""The forty-sixth red team (final round of issue 33): a learner's file names, folders, zips and LMS
upload names across the instructor's term workflow, in bubblewrap, honest classmates in every run.

Holes: see the test modules' docstrings. The round's report lists what held.
"""
