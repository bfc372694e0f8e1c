"""Reusable widgets, each carrying its own DEFAULT_CSS."""
