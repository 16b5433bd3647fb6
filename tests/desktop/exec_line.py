"""Reference readers of a desktop entry's `Exec` key and a systemd unit's `ExecStart`, written from
their specifications (not from our writer), and desktop-file-validate's verdict on an entry."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest


def desktop_argv(exec_value: str) -> list[str]:
    """Read an Exec value back as the Desktop Entry spec says: the string escapes first (`\\\\`),
    then the quoting (inside "...", a backslash escapes `"`, `` ` ``, `$` and `\\`), then `%%`."""
    text = exec_value.replace("\\\\", "\\")
    args: list[str] = []
    current: str | None = None
    quoted = False
    i = 0
    while i < len(text):
        char = text[i]
        if quoted and char == "\\" and i + 1 < len(text) and text[i + 1] in '"`$\\':
            current = (current or "") + text[i + 1]
            i += 2
            continue
        if char == '"':
            quoted = not quoted
            current = current or ""
        elif char == " " and not quoted:
            if current is not None:
                args.append(current)
            current = None
        else:
            current = (current or "") + char
        i += 1
    if current is not None:
        args.append(current)
    return [arg.replace("%%", "%") for arg in args]


def unit_argv(exec_start: str) -> list[str]:
    """Read an ExecStart value back as systemd.syntax and systemd.service say: words split at
    spaces, double quotes with `\\"` and `\\\\` escapes (shell-like), then specifiers (`%%`) in every
    word and variables (`$$`) in the arguments only; the program may hold no quote or backslash."""
    words = shlex.split(exec_start, posix=True)
    program, args = words[0], words[1:]
    if any(char in program for char in "\"'\\"):
        raise ValueError(f"systemd refuses a program path with a quote or backslash: {program!r}")
    return [program.replace("%%", "%"), *(arg.replace("%%", "%").replace("$$", "$") for arg in args)]


def without_env(argv: list[str]) -> list[str]:
    """The command an entry starts, `/usr/bin/env` in front of it taken away."""
    return argv[1:] if argv[:1] == ["/usr/bin/env"] else argv


def validate(entry: Path) -> None:
    """desktop-file-validate finds nothing to say about `entry`."""
    if shutil.which("desktop-file-validate") is None:
        pytest.fail("desktop-file-validate is missing (desktop-file-utils; make test installs it)")
    checked = subprocess.run(["desktop-file-validate", str(entry)], capture_output=True, text=True)
    assert checked.returncode == 0 and checked.stdout == "", checked.stdout
