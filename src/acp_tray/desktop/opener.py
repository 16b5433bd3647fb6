"""Open a file with the desktop's default handler (xdg-open, macOS `open`, Windows' file association)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path


def default_opener(path: Path) -> list[str] | None:
    """The command that opens `path` in the default application, or None (Windows: use `open_path`)."""
    if sys.platform == "darwin":
        return ["open", str(path)]
    opener = shutil.which("xdg-open")
    return [opener, str(path)] if opener else None


def open_path(path: Path) -> bool:
    """Windows: open `path` with its file association, without waiting for the application; False
    when nothing can open it. (Elsewhere `default_opener`'s command is run and watched: edit_file.py.)"""
    try:
        os.startfile(path)  # type: ignore[attr-defined]
    except OSError:
        return False
    return True
