"""Whether this session has a D-Bus session bus (POSIX desktops), without connecting to it."""

from __future__ import annotations

import os


def session_bus_available() -> bool:
    """An address in the environment, or the systemd user bus socket where it usually lives."""
    if os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        return True
    return hasattr(os, "getuid") and os.path.exists(f"/run/user/{os.getuid()}/bus")
