"""Open a text file for the person to edit (the window's "Open the file", `acp-tray prefs edit`):
`$VISUAL` or `$EDITOR`, else the desktop's default application for it, saying why when nothing
could open it (xdg-open without a desktop to ask fails, and says so on its error output)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from acp_tray.desktop.opener import default_opener, open_path
from acp_tray.desktop.terminal_window import NoTerminalError, open_in_terminal

OPENER_WAIT = 5.0  # seconds to see whether the default application's opener failed


def editor_argv(path: Path, env: Mapping[str, str] | None = None) -> list[str] | None:
    """`$VISUAL` (else `$EDITOR`) with `path`, or None when neither is set."""
    env = os.environ if env is None else env
    for variable in ("VISUAL", "EDITOR"):
        value = env.get(variable, "").strip()
        if value:
            return [*shlex.split(value), str(path)]
    return None


def open_in_default_app(path: Path, *, wait: float | None = OPENER_WAIT) -> str | None:
    """Open `path` in the desktop's default application: None once it did (or its opener still runs
    after `wait` seconds: it is open in it), else what went wrong, in a few words."""
    if sys.platform == "win32":
        return None if open_path(path) else "Windows has no application for it"
    command = default_opener(path)
    if command is None:
        return "no program that opens files in their application (xdg-open) is installed"
    with tempfile.TemporaryFile() as errors:  # not a pipe: an application left running may write a lot
        try:
            opener = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors)
        except OSError as exc:
            return f"could not start {command[0]!r}: {exc}"
        try:
            code = opener.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            return None
        errors.seek(0)
        said = errors.read().decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit code {code}"]
    return None if code == 0 else f"{Path(command[0]).name} could not open the file ({said[0]})"


def edit_file(path: Path, env: Mapping[str, str] | None = None) -> str | None:
    """Open `path` without waiting for the editor (in a terminal window of its own): None once
    started, else why nothing could open it, in plain words that name the file."""
    problems = []
    try:
        editor = editor_argv(path, env)
        if editor is not None:
            open_in_terminal(editor, env)
            return None
    except (NoTerminalError, ValueError, OSError) as exc:  # no terminal; a $EDITOR that shlex cannot split
        problems.append(f"an editor is set, but {exc}")
    problem = open_in_default_app(path)
    if problem is None:
        return None
    problems.append(problem)
    return f"Nothing here can open the file ({'; '.join(problems)}). Open it in your editor yourself: {path}"
