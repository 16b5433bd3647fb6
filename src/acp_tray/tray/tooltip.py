"""The tray's tooltip where its GTK backends leave none: AppIndicator exports no StatusNotifierItem
`ToolTip` (only `Title`, which gtk-sni-tray and others do not show), and its XEmbed fallback, like
pystray's GtkStatusIcon, names the icon's X window but gives it no tooltip.

`ToolTip` is answered on the item's own connection (GLib's shared session bus, which AppIndicator
uses): a GDBus filter replies to `Properties.Get(…, "ToolTip")` itself, adds it to the item's
`GetAll` reply and signals `NewToolTip` when it changes. The XEmbed icon (GTK's `GtkTrayIcon`
window) gets the text as its GTK tooltip, which GTK shows on hover.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

import gi

gi.require_version("Gtk", "3.0")  # what pystray's GTK backends loaded already
from gi.repository import Gio, GLib, GObject, Gtk  # noqa: E402

log = logging.getLogger(__name__)

ITEM = "org.kde.StatusNotifierItem"
PROPERTIES = "org.freedesktop.DBus.Properties"
ITEM_PATHS = "/org/ayatana/NotificationItem/"  # where AppIndicator exports its items
TRAY_ICON = "GtkTrayIcon"  # GTK's XEmbed icon window (GtkStatusIcon's, AppIndicator's fallback's)


class Tooltip:
    """The tooltip text, shown on the SNI item and on the XEmbed icon; `show` from any thread."""

    def __init__(self, text: str, *, sni: bool) -> None:
        self._text = text
        self._lock = threading.Lock()
        self._path: str | None = None  # the item's object path, once a host asked for it
        self._get_all: set[int] = set()  # serials of GetAll calls on the item, awaiting its reply
        self._bus: Gio.DBusConnection | None = None
        if sni:
            try:
                self._bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
                self._bus.add_filter(self._filter)
            except GLib.Error as exc:  # no session bus: AppIndicator falls back to XEmbed too
                log.info("no StatusNotifierItem tooltip: %s", exc.message)
                self._bus = None
        # the XEmbed icon window is made when the icon is (or when AppIndicator falls back to it)
        GObject.add_emission_hook(Gtk.Window, "show", self._on_shown)

    def show(self, text: str) -> None:
        with self._lock:
            if text == self._text:
                return
            self._text, path = text, self._path
        if self._bus is not None and path is not None:
            self._bus.emit_signal(None, path, ITEM, "NewToolTip", None)
        GLib.idle_add(self._on_tray_icons)

    def _value(self) -> GLib.Variant:
        """`ToolTip` as the SNI spec has it: (icon name, icon pixmaps, title, text); the title says it all."""
        with self._lock:
            return GLib.Variant("(sa(iiay)ss)", ("", [], self._text, ""))

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

    def _filter(self, bus: Gio.DBusConnection, message: Gio.DBusMessage, incoming: bool) -> Gio.DBusMessage | None:
        """GDBus's worker thread: every message of the connection passes here (None: dropped)."""
        try:
            return self._incoming(bus, message) if incoming else self._outgoing(message)
        except Exception as exc:  # never lose a message over the tooltip
            log.debug("tooltip filter: %s", exc)
            return message

    def _incoming(self, bus: Gio.DBusConnection, message: Gio.DBusMessage) -> Gio.DBusMessage | None:
        path = message.get_path() or ""
        if message.get_message_type() != Gio.DBusMessageType.METHOD_CALL or message.get_interface() != PROPERTIES:
            return message
        if not path.startswith(ITEM_PATHS) or message.get_body() is None:
            return message
        args = message.get_body().unpack()
        if not args or args[0] != ITEM:
            return message
        with self._lock:
            self._path = path
            if message.get_member() == "GetAll":
                self._get_all.add(message.get_serial())
        if message.get_member() == "Get" and args[1:] == ("ToolTip",):
            reply = Gio.DBusMessage.new_method_reply(message)
            reply.set_body(GLib.Variant.new_tuple(GLib.Variant.new_variant(self._value())))
            bus.send_message(reply, Gio.DBusSendMessageFlags.NONE)
            return None  # answered here: AppIndicator would say there is no such property
        return message

    def _outgoing(self, message: Gio.DBusMessage) -> Gio.DBusMessage:
        if message.get_message_type() != Gio.DBusMessageType.METHOD_RETURN:
            return message
        with self._lock:
            if message.get_reply_serial() not in self._get_all:
                return message
            self._get_all.discard(message.get_reply_serial())
        found = message.get_body().get_child_value(0)
        properties: dict[str, Any] = {}
        for index in range(found.n_children()):
            entry = found.get_child_value(index)
            properties[entry.get_child_value(0).get_string()] = entry.get_child_value(1).get_variant()
        properties["ToolTip"] = self._value()
        answer: Gio.DBusMessage = message.copy()  # an outgoing message is locked: its copy is sent
        answer.set_body(GLib.Variant("(a{sv})", (properties,)))
        return answer
