"""The sixteenth red team."""
