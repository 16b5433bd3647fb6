"""What `agents add` installed for an agent, as the daemon reads it: its record (`ROOT/ID/install.json`),
the part of its command that is the program, its size, and its removal. The standard library only: the
daemon looks these up at every agent's start, and never downloads nor unpacks (registry/install.py does).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

RECORD = "install.json"


@dataclass(frozen=True)
class Installed:
    """What `agents add` writes to the preferences, and what `upgrade` compares against."""

    id: str
    version: str
    kind: str  # "binary", "npx" or "uvx"
    command: list[str]
    env: dict[str, str] = field(default_factory=dict)
    directory: str | None = None  # a binary's own directory (removed when upgraded past)
    note: str = ""  # how it came to be installed this way, when not as the entry prefers (a fallback)


def program_part(installed: Installed) -> list[str]:
    """Its command without the entry's default args: the binary, or the runner up to the pinned
    package (what a terminal sign-in gives its own args to: agents/invocation.py)."""
    command = installed.command
    if installed.kind in ("npx", "uvx") and "--" in command:
        return command[: command.index("--") + 2]
    return command[:1]


def agent_dir(root: Path, agent_id: str) -> Path:
    return root / agent_id


def recall(agent_id: str, root: Path) -> Installed | None:
    """What `agents add ID` installed (None: not an agent from the registry)."""
    try:
        data = json.loads((agent_dir(root, agent_id) / RECORD).read_text(encoding="utf-8"))
        return Installed(**data)
    except (OSError, ValueError, TypeError):
        return None


def uninstall(agent_id: str, root: Path) -> int | None:
    """Delete what `agents add ID` installed for `agent_id` (`ROOT/ID`: its versions, its record,
    its icon); the bytes freed, or None when nothing was installed. OSError when it cannot be."""
    size = installed_size(agent_id, root)
    if size is not None:
        shutil.rmtree(agent_dir(root, agent_id))
    return size


def installed_size(agent_id: str, root: Path) -> int | None:
    """The bytes `agents add ID` installed for `agent_id` (what `uninstall` frees); None: nothing."""
    home = agent_dir(root, agent_id)
    if home.is_symlink() or not home.is_dir():
        return None
    return sum(path.lstat().st_size for path in home.rglob("*") if not path.is_dir() or path.is_symlink())
