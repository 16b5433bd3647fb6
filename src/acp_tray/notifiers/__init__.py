"""Adapters that show presentations to the person: console now, desktop backends later."""
