"""A file acp-tray writes for the desktop to start it (the app-menu launcher, a start-on-login
entry): it ends with a stamp (a digest of what acp-tray wrote), so that one the person edited since,
or one of their own, is neither overwritten nor removed; it is written atomically (a fresh temporary
file, never through a symlink) and read back before it is reported written."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from acp_tray.files.atomic import write_atomically
from acp_tray.files.stamp import Stamp

Maker = Callable[[], tuple[str, Callable[[Path], str]]]


class EntryError(Exception):
    """An entry acp-tray will not overwrite or cannot write: the message says what and why."""


def left_alone(path: Path) -> str:
    return f"{path}: edited since acp-tray wrote it, or not written by acp-tray (left alone)"


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
        except EntryError as exc:
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
        check it as the OS reads it; False when it was already so. EntryError: left alone,
        or removed again because it would not start the command."""
        if self.content is None:
            raise EntryError(self.refused)
        found = self.read()
        if found == self.content:
            return False
        if found is not None and not self.found()[0]:
            raise EntryError(left_alone(self.path) + "; remove it, or edit it yourself")
        write_atomically(self.path, self.content.encode())  # bytes: each line ends "\n" on any OS
        problem = self.problem(self.path)
        if problem:
            self.path.unlink()
            raise EntryError(f"the {self.what} acp-tray wrote was removed: {problem}")
        return True

    def remove(self) -> bool:
        """Remove acp-tray's own unedited file (True), or leave the file alone (False)."""
        if not self.found()[0]:
            return False
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        return True
