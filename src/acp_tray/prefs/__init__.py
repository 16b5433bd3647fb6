"""The preferences file: its model, loading and validation."""
