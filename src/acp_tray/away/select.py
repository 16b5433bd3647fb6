"""Which away source this machine has, and whether the person is away by it."""

from __future__ import annotations

import os
import sys

from acp_tray.away.source import AwaySource, FirstAnswer, NoSource


def away_source() -> AwaySource:
    """The best source here: the OS's own idle time on Windows and macOS; on Linux and the BSDs
    the X server's idle time (not under Wayland, where X11 sees only XWayland's clients), then
    the ScreenSaver service's and logind's, which also say whether the screen is locked.
    The source named "none" when there is nothing to read."""
    if sys.platform == "win32":
        from acp_tray.away.windows import LastInputSource

        return LastInputSource()
    if sys.platform == "darwin":
        from acp_tray.away.macos import HIDIdleSource

        return HIDIdleSource()
    parts = [part for part in (_x11(), *_dbus()) if part is not None]
    if not parts:
        return NoSource()
    return parts[0] if len(parts) == 1 else FirstAnswer(parts)


def is_away(source: AwaySource, after: float) -> bool:
    """Locked, or idle for at least `after` seconds (the idle time first: it is the cheaper read)."""
    idle = source.idle_seconds()
    return (idle is not None and idle >= after) or source.locked()


def _x11() -> AwaySource | None:
    display = os.environ.get("DISPLAY")
    if not display or os.environ.get("WAYLAND_DISPLAY"):
        return None
    from acp_tray.away.x11 import X11IdleSource

    source = X11IdleSource(display)
    if source.idle_seconds() is None:  # no server there, or no MIT-SCREEN-SAVER extension
        source.close()
        return None
    return source


def _dbus() -> list[AwaySource | None]:
    from acp_tray.away.freedesktop import LogindSource, ScreenSaverSource

    return [ScreenSaverSource.find(), LogindSource.find()]
