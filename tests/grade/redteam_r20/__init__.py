"""The twentieth red team."""
