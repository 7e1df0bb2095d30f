"""The thirty-eighth red team (final round of issue 33): learner notebook content in bubblewrap."""
