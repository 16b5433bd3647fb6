"""Whether this session has a desktop to show things on: a display (X11 or Wayland), or an OS
whose desktop is always there (Windows, macOS). The daemon's start asks it (the welcome page) as
well as `acp-tray ui`, so it lives below both, without loading the window."""

from __future__ import annotations

import os
import sys


def environment_has_display() -> bool:
    return sys.platform in ("win32", "darwin") or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
