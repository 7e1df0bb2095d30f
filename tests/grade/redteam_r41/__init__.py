"""The forty-first red team (final round of issue 33): a learner's notebook content against the grader in
bubblewrap. See ``test_invalid_message_note.py`` for the one hole found, and the round's report."""
