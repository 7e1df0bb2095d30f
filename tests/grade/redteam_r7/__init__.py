"""The seventh red team (review of the fixes of red team 6)."""
