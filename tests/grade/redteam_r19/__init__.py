"""The nineteenth red team."""
