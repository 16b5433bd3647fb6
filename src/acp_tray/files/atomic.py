"""Replace a file atomically: a temporary file in the same directory, fsync, rename. On any failure
the temporary file is removed and the old file is left as it was."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from acp_tray.files.private import FILE_MODE, make_dir


def write_atomically(path: Path, text: str | bytes, *, mode: int | None = None) -> bytes:
    """`text`: written as UTF-8, or `bytes` as they are. `mode`: the new file's permissions
    (default: the old file's, else 0600). The bytes written."""
    make_dir(path.parent)
    if mode is None:
        try:
            mode = path.stat().st_mode & 0o777
        except FileNotFoundError:
            mode = FILE_MODE
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # text as a text-mode file writes it: each "\n" the platform's line end
        data = text if isinstance(text, bytes) else text.replace("\n", os.linesep).encode()
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    return data
