"""acp-tray's own log: where it goes, and the filter that keeps secrets and control characters out of it."""
