"""A left click on the icon in a StatusNotifierItem host (KDE, GNOME's AppIndicator extension, most
bars) opens the acp-tray window, as a left click on the XEmbed icon does.

pystray serves the StatusNotifierItem through Ayatana's AppIndicator, which declares no `Activate`
method (its hosts then answer a click with an error, or nothing): GLib's D-Bus would refuse the call
before any handler of AppIndicator's could see it. So the call is taken off the session bus
connection AppIndicator uses (GLib's shared one), before that: a connection filter that sees
`org.kde.StatusNotifierItem.Activate` for an AppIndicator item of this process, answers it (an empty
reply, on GLib's loop) and does the icon's default action. Nothing else passes through it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

INTERFACE = "org.kde.StatusNotifierItem"
ITEM_PATHS = "/org/ayatana/NotificationItem/"  # AppIndicator's items: one object per indicator


class SniActivate:
    """While it lives, `Activate` on this process's AppIndicator item calls `activate` (on the filter's
    thread: `activate` must be safe to call from any thread)."""

    def __init__(self, activate: Callable[[], None]) -> None:
        from gi.repository import Gio

        self._activate = activate
        self._bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)  # the shared connection AppIndicator uses
        self._filter = self._bus.add_filter(self._filtered)

    def _filtered(self, bus: Any, message: Any, incoming: bool) -> Any:
        from gi.repository import Gio, GLib

        if (
            not incoming
            or message.get_message_type() != Gio.DBusMessageType.METHOD_CALL
            or message.get_interface() != INTERFACE
            or message.get_member() != "Activate"
            or not (message.get_path() or "").startswith(ITEM_PATHS)
        ):
            return message
        reply = message.new_method_reply()

        def answer() -> bool:
            try:
                bus.send_message(reply, Gio.DBusSendMessageFlags.NONE)
            except GLib.Error as exc:  # the caller went away
                log.debug("could not answer Activate: %s", exc)
            return False  # once

        GLib.idle_add(answer)
        try:
            self._activate()
        except Exception:
            log.exception("the icon's default action failed")
        return None  # taken: AppIndicator would refuse it

    def close(self) -> None:
        self._bus.remove_filter(self._filter)
