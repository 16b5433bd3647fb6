"""Files and directories that only their owner can read: directories acp-tray creates are 0700,
files it creates 0600 (an existing file keeps its mode), and append-only files (the history and
the log) are opened without following a symlink where the platform can (`O_NOFOLLOW`).
"""

from __future__ import annotations

import io
import os
from pathlib import Path

DIR_MODE = 0o700
FILE_MODE = 0o600
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


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


def open_append(path: Path, encoding: str = "utf-8", errors: str | None = None) -> io.TextIOWrapper:
    """`path` opened for appending text: created 0600, never through a symlink (`O_NOFOLLOW`)."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | NOFOLLOW, FILE_MODE)
    return os.fdopen(fd, "a", encoding=encoding, errors=errors)
