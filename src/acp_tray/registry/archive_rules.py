"""What an agent archive may hold, whatever its format: member paths that stay inside the target
directory, links that resolve inside it without passing through another link, and bounds on how
many members there are and how many bytes they unpack to. A broken rule is an ArchiveError that
names the member and why; the archive is then refused whole.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import PurePosixPath

from acp_tray.logs.text import plain_line

MAX_UNPACKED_BYTES = 4 * 1024 * 1024 * 1024
MAX_MEMBERS = 100_000
_SHOWN = 120  # characters of a member's name in a message


class ArchiveError(Exception):
    """A refused or unreadable archive; `str()` names the member and why."""


class Kind(Enum):
    FILE = "file"
    DIRECTORY = "directory"
    SYMLINK = "symbolic link"
    HARDLINK = "hard link"


@dataclass(frozen=True)
class Entry:
    """One member as the archive declares it; `link` is a link's target as written."""

    name: str
    kind: Kind
    link: str = ""


def shown(name: str) -> str:
    """A member's name for a message: one line, bounded, quoted."""
    return repr(plain_line(name, _SHOWN))


def refused(why: str) -> ArchiveError:
    return ArchiveError(f"{why}; archive refused")


def inside(name: str) -> PurePosixPath:
    """The member's path, relative and without `..`; else ArchiveError."""
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or (path.parts and ":" in path.parts[0]):
        raise refused(f"member {shown(name)} has an absolute path")
    if ".." in path.parts:
        raise refused(f"member {shown(name)} points outside the directory (..)")
    return path


class Budget:
    """Members and bytes counted as an archive is read; ArchiveError past the limits."""

    def __init__(self) -> None:
        self.members = 0
        self.bytes = 0

    def member(self) -> None:
        self.members += 1
        if self.members > MAX_MEMBERS:
            raise refused(f"more than {MAX_MEMBERS} members")

    def take(self, size: int) -> None:
        self.bytes += size
        if self.bytes > MAX_UNPACKED_BYTES:
            raise refused(f"unpacks to more than {MAX_UNPACKED_BYTES} bytes")


def _key(parts: Iterable[str]) -> str:
    """One spelling per place on disk, also where the file system ignores case or Unicode form."""
    return unicodedata.normalize("NFC", "/".join(parts)).casefold()


def check_tree(entries: Sequence[Entry]) -> None:
    """The archive's members, in order, as they would land on disk: nothing is written through a
    link (no member's path, and no link's target, passes through a symbolic link of the archive),
    every symbolic link resolves inside, a hard link names a file before it, and no path is both a
    link and something else. Checked over the whole archive before anything is unpacked: a link
    later in the archive could redirect a path accepted earlier."""
    symlinks = {_key(inside(e.name).parts) for e in entries if e.kind is Kind.SYMLINK}
    seen: dict[str, Kind] = {}
    files: set[str] = set()
    for entry in entries:
        path = inside(entry.name)
        _not_through(path.parts[:-1], symlinks, f"member {shown(entry.name)}")
        key = _key(path.parts)
        earlier = seen.get(key)
        links = (Kind.SYMLINK, Kind.HARDLINK)
        if earlier is not None and (earlier in links or entry.kind in links):
            raise refused(f"member {shown(entry.name)} appears twice, once as a link")
        if entry.kind in links and not path.parts:
            raise refused(f"link {shown(entry.name)} would replace the directory itself")
        if entry.kind is Kind.SYMLINK:
            _symlink_inside(path, entry, symlinks)
        elif entry.kind is Kind.HARDLINK and str(inside(entry.link)) not in files:
            raise refused(f"hard link {shown(entry.name)} -> {shown(entry.link)} does not name a file before it")
        seen[key] = entry.kind
        if entry.kind in (Kind.FILE, Kind.HARDLINK):
            files.add(str(path))


def _not_through(parts: Sequence[str], symlinks: set[str], what: str) -> None:
    for end in range(1, len(parts) + 1):
        if _key(parts[:end]) in symlinks:
            raise refused(f"{what} is inside the link {shown('/'.join(parts[:end]))}")


def _symlink_inside(path: PurePosixPath, entry: Entry, symlinks: set[str]) -> None:
    """Walk the target from the link's directory: never above the top, and every step but the
    last a real directory (the last may be another link: each link is checked the same way)."""
    what = f"link {shown(entry.name)} -> {shown(entry.link)}"
    if not entry.link:
        raise refused(f"{what} points nowhere")
    target = PurePosixPath(entry.link.replace("\\", "/"))  # "." has no parts: the link's own directory
    if target.is_absolute() or (target.parts and ":" in target.parts[0]):
        raise refused(f"{what} points outside the directory")
    at = list(path.parts[:-1])
    for step, part in enumerate(target.parts, start=1):
        if part != "..":
            at.append(part)
        elif at:
            at.pop()
        else:
            raise refused(f"{what} points outside the directory")
        if step < len(target.parts) and part != ".." and _key(at) in symlinks:
            raise refused(f"{what} passes through the link {shown('/'.join(at))}")
