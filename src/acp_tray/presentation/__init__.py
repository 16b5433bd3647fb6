"""Presentation policy: pure functions over events (no threads, no I/O)."""
