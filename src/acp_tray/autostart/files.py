"""What every start-on-login kind that is a file shares: written only where acp-tray's own file is
or nothing is (atomically), removed only when it carries acp-tray's mark, and reported as
installed, foreign, or starting another installation."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

Runner = Callable[[list[str]], "subprocess.CompletedProcess[str]"]


class AutostartError(Exception):
    """Something acp-tray will not overwrite or cannot do: the message says what and why."""


def run_tool(command: list[str]) -> subprocess.CompletedProcess[str]:
    """An OS tool (systemctl, launchctl), its failure to start reported as a failed run."""
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return subprocess.CompletedProcess(command, 127, "", str(exc))


def starts_which(this: bool) -> str:
    return " — starts this installation" if this else " — starts another installation (enable again to point it here)"


@dataclass(frozen=True)
class Current:
    """Start on login as a switch shows it: acp-tray's own entry is there (`on`), and it starts
    this installation (`this`; False when off, or when it starts another copy of acp-tray)."""

    on: bool
    this: bool


class EntryFiles:
    """Files that start `command` on login, each carrying a mark that says acp-tray wrote it."""

    def __init__(self, command: list[str], runner: Runner) -> None:
        self.command = command
        self.runner = runner

    def file_status(self, path: Path, mark: str, expected: bytes) -> str:
        if not path.exists():
            return f"{path}: not installed"
        content = path.read_bytes()
        if mark.encode() not in content:
            return f"{path}: present, not written by acp-tray (left alone)"
        return f"{path}: installed" + starts_which(content == expected)

    def current_of(self, path: Path, mark: str, expected: bytes) -> Current:
        if not self.is_ours(path, mark):
            return Current(on=False, this=False)
        try:
            return Current(on=True, this=path.read_bytes() == expected)
        except OSError:
            return Current(on=True, this=False)

    @staticmethod
    def is_ours(path: Path, mark: str) -> bool:
        try:
            return mark.encode() in path.read_bytes()
        except OSError:
            return False

    def write(self, path: Path, content: str | bytes, mark: str, what: str) -> list[str]:
        data = content.encode() if isinstance(content, str) else content
        if path.exists() and not self.is_ours(path, mark):
            raise AutostartError(f"{path} exists and was not written by acp-tray; remove it or edit it yourself")
        if path.exists() and path.read_bytes() == data:
            return [f"{what} already enabled: {path}"]
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.tmp")
        temporary.write_bytes(data)
        os.replace(temporary, path)
        return [f"{what} written: {path}", f"starts: {' '.join(self.command)}"]

    def remove_ours(self, path: Path, mark: str) -> list[str]:
        if not path.exists():
            return []
        if not self.is_ours(path, mark):
            return [f"{path} was not written by acp-tray: left alone"]
        path.unlink()
        return [f"removed {path}"]
