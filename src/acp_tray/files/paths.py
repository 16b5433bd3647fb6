"""Where acp-tray keeps its files (platformdirs: XDG on Linux, the native places elsewhere)."""

from __future__ import annotations

from pathlib import Path

import platformdirs

APP = "acp-tray"


def config_file() -> Path:
    return Path(platformdirs.user_config_dir(APP)) / "config.toml"


def state_dir() -> Path:
    return Path(platformdirs.user_state_dir(APP))


def first_start_marker() -> Path:
    """There once the daemon's first start has run (it installs the app-menu launcher on Linux/BSD)."""
    return state_dir() / "first-start-done"


def welcome_marker() -> Path:
    """There once the window's welcome page was opened (at the first start on a desktop)."""
    return state_dir() / "welcome-shown"


def history_file() -> Path:
    return state_dir() / "history.jsonl"


def sessions_file() -> Path:
    return state_dir() / "sessions.json"


def usage_file() -> Path:
    """Today's cost per agent (one day kept: no history of usage)."""
    return state_dir() / "usage.json"


def log_file() -> Path:
    """The daemon's own log (rotated): `~/.local/state/acp-tray/log/acp-tray.log` on Linux."""
    return Path(platformdirs.user_log_dir(APP)) / "acp-tray.log"


def versions_file() -> Path:
    """Agents found to speak ACP 1 when offered 2 (so the fallback happens once)."""
    return state_dir() / "protocol-versions.json"


def data_dir() -> Path:
    """Agents installed from the ACP Registry: `agents/ID/VERSION/` under it."""
    return Path(platformdirs.user_data_dir(APP))


def cache_dir() -> Path:
    """What can be fetched again (the registry document)."""
    return Path(platformdirs.user_cache_dir(APP))


AGENT_ICON = "icon.svg"


def registry_agents_dir() -> Path:
    """Agents installed from the ACP Registry (`ID/VERSION/`, `ID/install.json`, `ID/icon.svg`)."""
    return data_dir() / "agents"


def agent_icon(name: str) -> Path:
    """A registry agent's icon (SVG), kept by `agents add ID`; the tray shows it beside the agent."""
    return registry_agents_dir() / name / AGENT_ICON


def secret_names_file() -> Path:
    """The names (never the values) of each agent's secrets in the OS keyring."""
    return state_dir() / "secret-names.json"


def push_targets_file() -> Path:
    """The names (never the URLs) of the push targets in the OS keyring, and their services."""
    return state_dir() / "push-targets.json"


def crash_record_file() -> Path:
    """Which agents' crash loops were told (a digest of the reason each): not popped up again at the next start."""
    return state_dir() / "crashes-told.json"


def agents_run_file() -> Path:
    """The mark carried by the agents of the running daemon (removed when it stops cleanly)."""
    return state_dir() / "agents-run"


def demo_introduced_file(name: str) -> Path:
    """Present once the demo agent configured as `name` has introduced itself (its notices are
    shown on its first start only); removing it shows them again at the next start."""
    return state_dir() / "demo-introduced" / name
