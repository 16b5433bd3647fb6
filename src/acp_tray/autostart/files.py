"""What every start-on-login kind that is a file shares (each file a desktop/entry_file.py EntryFile): run
an OS tool, and report a file as installed, edited, or starting another installation."""

from __future__ import annotations

import shlex
import subprocess
from dataclasses import dataclass

from acp_tray.desktop.entry_file import EntryFile, left_alone
from acp_tray.desktop.readback import Runner


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
    """Files that start `command` on login, each ending with acp-tray's stamp."""

    def __init__(self, command: list[str], runner: Runner) -> None:
        self.command = command
        self.runner = runner

    @staticmethod
    def file_status(entry: EntryFile) -> str:
        if entry.read() is None:
            return f"{entry.path}: not installed"
        ours, this = entry.found()
        return f"{entry.path}: installed" + starts_which(this) if ours else left_alone(entry.path)

    @staticmethod
    def current_of(entry: EntryFile) -> Current:
        ours, this = entry.found()
        return Current(on=ours, this=this)

    def write(self, entry: EntryFile) -> list[str]:
        if not entry.put():
            return [f"{entry.what} already enabled: {entry.path}"]
        return [f"{entry.what} written: {entry.path}", f"starts: {shlex.join(self.command)}"]

    @staticmethod
    def remove_ours(entry: EntryFile) -> list[str]:
        if entry.read() is None:
            return []
        if not entry.remove():
            return [left_alone(entry.path) + f"; to stop it, remove it yourself: rm {shlex.quote(str(entry.path))}"]
        return [f"removed {entry.path}"]
