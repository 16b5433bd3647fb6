"""The preferences file a test writes, and the history the daemon writes back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from acp_tray.files import paths
from acp_tray.state.history import read_history
from tests.support.agents import agent_table

COMMENT = "# a comment the person wrote"  # write-back must keep it


def write_config(*tables: str, notifier: str = "console", **settings: Any) -> Path:
    """The preferences file in the test's config dir: `notifier`, a comment the person wrote, other
    top-level `settings` (their JSON is their TOML; the first on line 3), then `tables` (TOML text)."""
    lines = [f"notifier = {json.dumps(notifier)}", COMMENT, *(f"{k} = {json.dumps(v)}" for k, v in settings.items())]
    path = paths.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n" + "".join(tables), encoding="utf-8")
    return path


def write_agent_config(name: str, command: list[str], cwd: Path, env: dict[str, str], extra: str = "") -> Path:
    """The preferences file with one agent `name` (its command, cwd and env; `extra` TOML lines for it)."""
    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(agent_table(name, command, env, cwd=str(cwd)) + extra, encoding="utf-8")
    return config


def history() -> list[dict[str, Any]]:
    """The history file's records (its valid ones)."""
    return [r for r in read_history(paths.history_file()) if isinstance(r, dict)]


def titles(source: str = "acp-tray") -> list[str]:
    """What the person read, as every surface shows it: "agent: title"."""
    return [f"{r['agent']}: {r['title']}" for r in history() if r.get("source") == source]
