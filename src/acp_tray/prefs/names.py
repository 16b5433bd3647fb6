"""Agent names: which are allowed (they appear in commands a person pastes, in TOML keys and in
menus), and the commands acp-tray prints for pasting, quoted. Standard library only: the CLI
client checks a name before it asks the daemon."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys

NAME_MAX = 64
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
ALLOWED = "letters A-Z and a-z, digits, '-', '_' and '.', starting with a letter or digit"


def agent_name_problem(name: str) -> str | None:
    """Why `name` cannot name an agent, or None when it can."""
    if not name:
        return "an agent name cannot be empty"
    if len(name) > NAME_MAX:
        return f"agent name {name[:NAME_MAX]!r}… is longer than {NAME_MAX} characters"
    if not _NAME.fullmatch(name):
        return f"agent name {name!r} is not allowed: use {ALLOWED}"
    return None


def pasteable(*args: str) -> str:
    """`acp-tray ARGS...` as a person would paste it into their shell: each argument quoted as needed."""
    words = ["acp-tray", *args]
    return subprocess.list2cmdline(words) if sys.platform == "win32" else shlex.join(words)
