"""The fifteenth red team."""
