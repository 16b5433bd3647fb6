"""Open a file with the desktop's default handler (xdg-open, macOS `open`, Windows' file association)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path


def default_opener(path: Path) -> list[str] | None:
    """The command that opens `path` in the default application, or None (Windows: use `open_path`)."""
    if sys.platform == "darwin":
        return ["open", str(path)]
    opener = shutil.which("xdg-open")
    return [opener, str(path)] if opener else None


def open_path(path: Path) -> bool:
    """Open `path` without waiting for the application; False when nothing can open it."""
    if sys.platform == "win32":
        os.startfile(path)  # type: ignore[attr-defined]
        return True
    command = default_opener(path)
    if command is None:
        return False
    try:
        subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError:
        return False
    return True
