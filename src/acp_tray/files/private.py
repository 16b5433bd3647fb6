"""Files and directories that only their owner can read: directories acp-tray creates are 0700,
files it creates 0600 (an existing file keeps its mode), and append-only files (the history and
the log) are opened without following a symlink where the platform can (`O_NOFOLLOW`), and only
when they are regular files (a named pipe in their place would block, a directory would fail).
"""

from __future__ import annotations

import errno
import io
import os
import stat
from pathlib import Path

DIR_MODE = 0o700
FILE_MODE = 0o600
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file"


def open_regular(path: Path, flags: int, mode: int = FILE_MODE) -> int:
    """A descriptor of the regular file `path` opened with `flags`: never through a symlink
    (`O_NOFOLLOW`), never waiting on a named pipe (`O_NONBLOCK` while opening). Anything else in its
    place (a directory, a pipe, a device) is an OSError that says what it is."""
    try:
        fd = os.open(path, flags | NOFOLLOW | NONBLOCK, mode)
    except IsADirectoryError:
        raise IsADirectoryError(errno.EISDIR, "it is a directory, not a file", str(path)) from None
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a named pipe with no reader, opened for writing
            raise OSError(errno.ENXIO, "it is a named pipe, not a file", str(path)) from None
        raise
    try:
        found = os.fstat(fd).st_mode
        if not stat.S_ISREG(found):
            raise OSError(errno.EINVAL, f"it is {_kind(found)}, not a file", str(path))
        if NONBLOCK:
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def make_dir(path: Path) -> None:
    """Create `path` and any missing parents, each 0700 (an existing directory is left as it is)."""
    missing: list[Path] = []
    current = path
    while not current.exists() and not current.is_symlink() and current != current.parent:
        missing.append(current)
        current = current.parent
    for directory in reversed(missing):
        try:
            directory.mkdir(mode=DIR_MODE)
        except FileExistsError:
            continue  # made by someone else meanwhile: theirs to keep
        os.chmod(directory, DIR_MODE)  # whatever the umask


def open_append(
    path: Path, encoding: str = "utf-8", errors: str | None = None, newline: str | None = None
) -> io.TextIOWrapper:
    """`path` opened for appending text: created 0600, a regular file reached without a symlink.
    `newline="\\n"`: lines end in LF on every platform (no CRLF on Windows)."""
    fd = open_regular(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    return os.fdopen(fd, "a", encoding=encoding, errors=errors, newline=newline)


def open_read(path: Path, encoding: str = "utf-8", errors: str | None = "replace") -> io.TextIOWrapper:
    """The regular file `path` opened for reading text (never a pipe that would block, nor a link)."""
    return os.fdopen(open_regular(path, os.O_RDONLY), "r", encoding=encoding, errors=errors)
