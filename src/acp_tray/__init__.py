"""acp-tray: a desktop tray daemon that hosts ACP agents and presents their notices."""

__version__ = "0.1.0"
