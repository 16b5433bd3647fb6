"""The tray's tooltip on the XEmbed icon, which GTK's backends leave without one: AppIndicator's
XEmbed fallback, like pystray's GtkStatusIcon, names the icon's X window but gives it no tooltip,
so the icon window (GTK's `GtkTrayIcon`) gets the text as its GTK tooltip, shown on hover.

On a StatusNotifierItem host the words are the item's `Title` (pystray sets it): AppIndicator
exports no `ToolTip`, and none is added here. Answering it from a GDBus message filter on the
item's connection was tried: a Python filter there corrupts the connection's messages under
PyGObject (the tray crashed in g_dbus_message_to_blob while the menu's icons were being sent).
"""

from __future__ import annotations

import threading

import gi

gi.require_version("Gtk", "3.0")  # what pystray's GTK backends loaded already
from gi.repository import GLib, GObject, Gtk  # noqa: E402

TRAY_ICON = "GtkTrayIcon"  # GTK's XEmbed icon window (GtkStatusIcon's, AppIndicator's fallback's)


class Tooltip:
    """The tooltip text on this process's XEmbed icon windows; `show` from any thread."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._lock = threading.Lock()
        # the XEmbed icon window is made when the icon is (or when AppIndicator falls back to it)
        GObject.add_emission_hook(Gtk.Window, "show", self._on_shown)

    def show(self, text: str) -> None:
        with self._lock:
            if text == self._text:
                return
            self._text = text
        GLib.idle_add(self._on_tray_icons)

    def _on_shown(self, window: Gtk.Window, *_: object) -> bool:
        if window.__gtype__.name == TRAY_ICON:
            with self._lock:
                window.set_tooltip_text(self._text)
        return True  # stay hooked: a tray host that restarts makes a new one

    def _on_tray_icons(self) -> bool:
        """On GTK's loop: the XEmbed icon windows of this process carry the text as their tooltip."""
        with self._lock:
            text = self._text
        for window in Gtk.Window.list_toplevels():
            if window.__gtype__.name == TRAY_ICON and window.get_tooltip_text() != text:
                window.set_tooltip_text(text)
        return False  # once
