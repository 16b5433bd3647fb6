"""Which notification backends to use, from the `notifier` preference and the platform."""

from __future__ import annotations

import sys

from acp_tray.notifiers.backend import Backend, LocalAction
from acp_tray.notifiers.console import ConsoleBackend, ConsoleNotifier


def freedesktop_platform() -> bool:
    return sys.platform not in ("win32", "darwin")


def backends_for(choice: str, console: ConsoleNotifier, on_action: LocalAction, *, glib: bool = False) -> list[Backend]:
    """`auto`: freedesktop D-Bus on Linux/BSD, osascript then plyer on macOS, plyer on Windows, and
    the console always last so a notice is never lost. Not plyer on Linux/BSD: its notify-send path needs the same
    notification server, and does not report when notify-send fails, so with the server gone a
    notice "delivered" by it would be shown nowhere (the console shows it instead). `glib`: a GLib
    main loop runs (the GTK tray's), so freedesktop uses GLib's D-Bus instead of loading dbus-fast."""
    chosen: list[Backend] = []
    if choice in ("auto", "freedesktop") and freedesktop_platform():
        from acp_tray.notifiers.freedesktop import FreedesktopBackend, gio_link

        chosen.append(FreedesktopBackend(on_action, link=gio_link if glib else None))
    if choice == "auto" and sys.platform == "darwin":
        from acp_tray.notifiers.osascript import OsascriptBackend  # loaded only where it is used

        chosen.append(OsascriptBackend())
    if choice == "plyer" or (choice == "auto" and not freedesktop_platform()):
        from acp_tray.notifiers.plyer_backend import PlyerBackend

        chosen.append(PlyerBackend())
    chosen.append(ConsoleBackend(console))
    return chosen
