"""Where acp-tray keeps its files (platformdirs: XDG on Linux, the native places elsewhere)."""

from __future__ import annotations

from pathlib import Path

import platformdirs

APP = "acp-tray"


def config_file() -> Path:
    return Path(platformdirs.user_config_dir(APP)) / "config.toml"


def state_dir() -> Path:
    return Path(platformdirs.user_state_dir(APP))


def history_file() -> Path:
    return state_dir() / "history.jsonl"


def sessions_file() -> Path:
    return state_dir() / "sessions.json"


def log_file() -> Path:
    """The daemon's own log (rotated): `~/.local/state/acp-tray/log/acp-tray.log` on Linux."""
    return Path(platformdirs.user_log_dir(APP)) / "acp-tray.log"


def versions_file() -> Path:
    """Agents found to speak ACP 1 when offered 2 (so the fallback happens once)."""
    return state_dir() / "protocol-versions.json"


def secret_names_file() -> Path:
    """The names (never the values) of each agent's secrets in the OS keyring."""
    return state_dir() / "secret-names.json"
