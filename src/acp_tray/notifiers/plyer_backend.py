"""Native notifications through plyer's public API (macOS, Windows; last resort on Linux).

plyer's weak spots, guarded here:
- on Linux without dbus-python it runs `notify-send TITLE MESSAGE ...`: a title or message
  that starts with `-` would be read as an option (`--help`, `-u critical`), so such text gets
  a zero-width space in front and is always a positional argument;
- in a Flatpak it builds a GVariant text by string concatenation: quotes and backslashes in
  agent text are replaced so they cannot end the string;
- it blocks (a subprocess or a native call), so it runs in a worker thread.
On Linux it ignores notify-send's failures and cannot expire a notification, which is why it
is never the default there.
"""

from __future__ import annotations

import asyncio
import html
import os
import shutil
import sys
from pathlib import Path

from acp_tray.assets import severity_icon
from acp_tray.notifiers.backend import BackendUnavailableError
from acp_tray.notifiers.content import Notification
from acp_tray.session_bus import session_bus_available

ZERO_WIDTH_SPACE = "\u200b"


def argument_safe(text: str) -> str:
    """Text that can never be taken for a command-line option or end a quoted GVariant string."""
    if sys.platform.startswith("linux"):
        text = text.replace("'", "\u2019").replace("\\", "\u29f5")
    return ZERO_WIDTH_SPACE + text if text.startswith("-") else text


def _body(text: str) -> str:
    """Linux: notify-send hands the body to a server that may render markup (dunst, GNOME, KDE do):
    escaped, so an agent's <b>, links and images show as text. Elsewhere plyer shows plain text."""
    return html.escape(text, quote=False) if sys.platform.startswith("linux") else text


class PlyerBackend:
    name = "plyer"

    def __init__(self, *, icon: Path | None = None) -> None:
        self._icon = str(icon) if icon is not None else None  # None: by severity
        self._size = 128 if sys.platform != "win32" else 64
        self._lock = asyncio.Lock()  # one blocking call at a time

    async def start(self) -> str:
        if sys.platform.startswith("linux") and not session_bus_available():
            raise BackendUnavailableError("no session bus for notify-send")
        if sys.platform.startswith("linux") and not os.path.isdir("/app") and not shutil.which("notify-send"):
            raise BackendUnavailableError("notify-send is not installed")
        try:
            from plyer import notification
        except Exception as exc:  # plyer raises many kinds on import
            raise BackendUnavailableError(f"plyer is not usable: {exc}") from exc
        del notification
        return f"plyer on {sys.platform}"

    async def notify(self, notification: Notification) -> None:
        from plyer import notification as facade

        kwargs = {
            "title": argument_safe(notification.summary),
            "message": argument_safe(_body(notification.body) or " "),
            "app_name": "acp-tray",
            "app_icon": self._icon or str(severity_icon(notification.severity_class, self._size)),
            "timeout": notification.timeout or 10,
        }
        async with self._lock:
            try:
                await asyncio.to_thread(facade.notify, **kwargs)
            except Exception as exc:
                raise BackendUnavailableError(f"plyer: {type(exc).__name__}: {exc}") from exc

    async def aclose(self) -> None:
        return None
