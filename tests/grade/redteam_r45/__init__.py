"""The forty-fifth red team (final round of issue 33): a learner's file names, folders, zips and LMS
upload names across the instructor's term workflow, in bubblewrap, honest classmates in every run.

Hole: ``test_zip_member_spoof.py`` (a plain notebook named ``bo.zip:hw.ipynb`` is shown exactly as
Bo's zipped ``hw.ipynb``, unmarked, and even shares its origin hash). The round's report lists what
held.
"""
