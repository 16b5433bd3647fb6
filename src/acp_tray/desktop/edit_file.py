"""Open a text file for the person to edit (the window's "Open the file"): `$VISUAL` or `$EDITOR` in a
terminal window where one is set, else the desktop's default application for it."""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from pathlib import Path

from acp_tray.desktop.opener import open_path
from acp_tray.desktop.terminal_window import NoTerminalError, open_in_terminal


def editor_argv(path: Path, env: Mapping[str, str] | None = None) -> list[str] | None:
    """`$VISUAL` (else `$EDITOR`) with `path`, or None when neither is set."""
    env = os.environ if env is None else env
    for variable in ("VISUAL", "EDITOR"):
        value = env.get(variable, "").strip()
        if value:
            return [*shlex.split(value), str(path)]
    return None


def edit_file(path: Path, env: Mapping[str, str] | None = None) -> str | None:
    """Open `path` without waiting for the editor: None once started, else why nothing could open
    it, in plain words that name the file."""
    problem = ""
    try:
        editor = editor_argv(path, env)
        if editor is not None:
            open_in_terminal(editor, env)
            return None
    except (NoTerminalError, ValueError, OSError) as exc:  # no terminal; a $EDITOR that shlex cannot split
        problem = f" (an editor is set, but {exc})"
    if open_path(path):
        return None
    return (
        f"Nothing here can open the file{problem}: no default application for it. "
        f"Open it in your editor yourself: {path}"
    )
