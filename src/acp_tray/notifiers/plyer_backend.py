"""Native notifications through plyer's public API (macOS, Windows; last resort on Linux).

plyer's weak spots, guarded here:
- on Linux without dbus-python it runs `notify-send TITLE MESSAGE ...`: a title or message
  that starts with `-` would be read as an option (`--help`, `-u critical`), so such text gets
  a zero-width space in front and is always a positional argument;
- in a Flatpak it builds a GVariant text by string concatenation: quotes and backslashes in
  agent text are replaced so they cannot end the string;
- it blocks (a subprocess or a native call), so it runs in a worker thread;
- on Windows it loads the icon as an `.ico` file only (a PNG fails), and shows the balloon in a
  thread of its own where a failure is lost: acp-tray converts the PNG (`ico.py`) and runs
  plyer's balloon in its own thread, which reports whether it was shown, so a balloon that
  failed is not counted as presented (the chain falls back).
On Linux it ignores notify-send's failures and cannot expire a notification, which is why it
is never the default there. Sounds: on Linux through D-Bus it is given the `sound-name` (or
`suppress-sound`) hint as the freedesktop backend sends it (notify-send drops hints); Windows' balloon
plays the sound Windows' own settings give notifications, whatever the preference says.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import html
import os
import shutil
import sys
import threading
import time
from pathlib import Path
from typing import Any

from acp_tray.assets import severity_icon
from acp_tray.desktop.session_bus import session_bus_available
from acp_tray.notifiers.backend import BackendUnavailableError
from acp_tray.notifiers.content import Notification
from acp_tray.notifiers.ico import ico_for

ZERO_WIDTH_SPACE = "\u200b"


def not_an_option(text: str) -> str:
    """A program argument that can never be taken for an option: a leading `-` gets a zero-width space."""
    return ZERO_WIDTH_SPACE + text if text.startswith("-") else text


def argument_safe(text: str) -> str:
    """Text that can never be taken for a command-line option or end a quoted GVariant string."""
    if sys.platform.startswith("linux"):
        text = text.replace("'", "\u2019").replace("\\", "\u29f5")
    return not_an_option(text)


def _body(text: str) -> str:
    """Linux: notify-send hands the body to a server that may render markup (dunst, GNOME, KDE do):
    escaped, so an agent's <b>, links and images show as text. Elsewhere plyer shows plain text."""
    return html.escape(text, quote=False) if sys.platform.startswith("linux") else text


def windows_balloon(kwargs: dict[str, Any], shown: concurrent.futures.Future[None]) -> None:
    """plyer's Windows balloon, in this (new) thread as plyer's facade does it, but with the
    outcome in `shown`: set once the balloon is up, or to the exception that stopped it. It stays
    up for its timeout, then its tray icon and window are removed."""
    from plyer.platforms.win.libs.balloontip import WindowsBalloonTip

    try:
        tip = WindowsBalloonTip(**{**kwargs, "timeout": 0})
    except Exception as exc:  # plyer raises bare Exception ("Could not load icon ...")
        shown.set_exception(exc)
        return
    shown.set_result(None)
    time.sleep(kwargs["timeout"])
    atexit.unregister(tip.__del__)  # plyer keeps every balloon alive until exit otherwise
    tip.__del__()


def _missing_on_linux() -> str | None:
    """What plyer's Linux path (notify-send on the session bus) lacks here, None if nothing (it looks at files)."""
    if not session_bus_available():
        return "no session bus for notify-send"
    if not os.path.isdir("/app") and not shutil.which("notify-send"):
        return "notify-send is not installed"
    return None


class PlyerBackend:
    name = "plyer"

    def __init__(self, *, icon: Path | None = None) -> None:
        self._icon = str(icon) if icon is not None else None  # None: by severity
        self._size = 128 if sys.platform != "win32" else 64
        self._lock = asyncio.Lock()  # one blocking call at a time

    @staticmethod
    def _icon_file(png: str) -> str:
        """The icon as plyer needs it here: on Windows an `.ico` made from the PNG."""
        if sys.platform != "win32":
            return png
        try:
            return str(ico_for(Path(png)))
        except OSError as exc:
            raise BackendUnavailableError(f"no Windows icon from {png}: {exc}") from exc

    async def start(self) -> str:
        if sys.platform.startswith("linux") and (missing := await asyncio.to_thread(_missing_on_linux)) is not None:
            raise BackendUnavailableError(missing)
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
            "app_icon": await asyncio.to_thread(
                self._icon_file, self._icon or str(severity_icon(notification.severity_class, self._size))
            ),
            "timeout": notification.timeout or 10,
        }
        if sys.platform.startswith("linux"):
            sound = notification.presentation.sound
            kwargs["hints"] = {"sound-name": sound} if sound else {"suppress-sound": True}
        async with self._lock:
            try:
                if sys.platform == "win32":
                    shown: concurrent.futures.Future[None] = concurrent.futures.Future()
                    threading.Thread(target=windows_balloon, args=(kwargs, shown), daemon=True).start()
                    await asyncio.wrap_future(shown)
                else:
                    await asyncio.to_thread(facade.notify, **kwargs)
            except Exception as exc:
                raise BackendUnavailableError(f"plyer: {type(exc).__name__}: {exc}") from exc

    async def close(self, group: int) -> None:
        """plyer offers no way to take a notification back."""
        return None

    async def aclose(self) -> None:
        return None
