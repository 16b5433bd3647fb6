"""What every start-on-login kind that is a file shares: each file ends with a stamp (a digest of
what acp-tray wrote, the launcher's rule), so that one the person edited since, or one of their own,
is neither overwritten nor removed; it is written atomically (a fresh temporary file, never through
a symlink), read back before it is reported written, and reported as installed, edited, or starting
another installation."""

from __future__ import annotations

import contextlib
import shlex
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from acp_tray.files.atomic import write_atomically
from acp_tray.files.stamp import Stamp

Runner = Callable[[list[str]], "subprocess.CompletedProcess[str]"]
Maker = Callable[[], tuple[str, Callable[[Path], str]]]


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


def left_alone(path: Path) -> str:
    return f"{path}: edited since acp-tray wrote it, or not written by acp-tray (left alone)"


@dataclass(frozen=True)
class Current:
    """Start on login as a switch shows it: acp-tray's own entry is there (`on`), and it starts
    this installation (`this`; False when off, or when it starts another copy of acp-tray)."""

    on: bool
    this: bool


def _nothing_wrong(path: Path) -> str:
    return ""


@dataclass(frozen=True)
class EntryFile:
    """One file acp-tray writes: where, what it says for this installation (`body`, before its
    stamp; None when this installation cannot be written there, `refused` saying why), and
    `problem`: what is wrong with the file once written, as the OS reads it ("" for nothing).
    `legacy`: what versions before the stamp wrote for this installation (theirs, unedited)."""

    path: Path
    stamp: Stamp
    what: str
    body: str | None
    problem: Callable[[Path], str] = _nothing_wrong
    legacy: str | None = None
    refused: str = ""

    @classmethod
    def build(cls, path: Path, stamp: Stamp, what: str, make: Maker, legacy_tail: str | None = None) -> EntryFile:
        """The file `make` says (its body and its check), or, when it raises, one that is refused."""
        try:
            body, problem = make()
        except AutostartError as exc:
            return cls(path, stamp, what, None, refused=str(exc))
        return cls(path, stamp, what, body, problem, None if legacy_tail is None else body + legacy_tail)

    @property
    def content(self) -> str | None:
        return None if self.body is None else self.stamp.on(self.body)

    def read(self) -> str | None:
        """The file as it is (None: absent; "" when unreadable, which is never acp-tray's own)."""
        try:
            return self.path.read_bytes().decode()
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError):
            return ""

    def found(self) -> tuple[bool, bool]:
        """(acp-tray's own unedited file is there, and it starts this installation)."""
        found = self.read()
        this = found is not None and found in (self.content, self.legacy)
        return this or (found is not None and self.stamp.unedited(found)), this

    def put(self) -> bool:
        """Write the file where nothing is, or acp-tray's own unedited file is (atomically), and
        check it as the OS reads it; False when it was already so. AutostartError: left alone,
        or removed again because it would not start the command."""
        if self.content is None:
            raise AutostartError(self.refused)
        found = self.read()
        if found == self.content:
            return False
        if found is not None and not self.found()[0]:
            raise AutostartError(left_alone(self.path) + "; remove it, or edit it yourself")
        write_atomically(self.path, self.content.encode())  # bytes: each line ends "\n" on any OS
        problem = self.problem(self.path)
        if problem:
            self.path.unlink()
            raise AutostartError(f"the {self.what} acp-tray wrote was removed: {problem}")
        return True

    def remove(self) -> bool:
        """Remove acp-tray's own unedited file (True), or leave the file alone (False)."""
        if not self.found()[0]:
            return False
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        return True


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
