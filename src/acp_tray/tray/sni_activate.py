"""A left click on the icon in a StatusNotifierItem host (KDE, GNOME's AppIndicator extension, most
bars) opens the acp-tray window, as a left click on the XEmbed icon does.

pystray serves the StatusNotifierItem through Ayatana's AppIndicator, which declares no `Activate`
method (its hosts get UnknownMethod for a click): GLib's D-Bus refuses the call before any handler
of AppIndicator's sees it. So the call is taken off the session bus connection AppIndicator uses
(GLib's shared one) before that, by a connection filter that sees `org.kde.StatusNotifierItem.Activate`
for an AppIndicator item, answers it (an empty reply) and does the icon's default action; every other
message passes untouched.

The filter is a C callback made with ctypes on GIO's own functions, not a PyGObject one: PyGObject's
wrapping of the messages a filter passes on corrupts them (a pass-through Python filter alone crashed
the tray in g_dbus_message_to_blob while the menu's icons were sent). Here a message is a bare
pointer, given back as it came, and only the one call taken is released.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
from collections.abc import Callable

log = logging.getLogger(__name__)

INTERFACE = b"org.kde.StatusNotifierItem"
MEMBER = b"Activate"
ITEM_PATHS = b"/org/ayatana/NotificationItem/"  # AppIndicator's items: one object per indicator
METHOD_CALL = 1  # G_DBUS_MESSAGE_TYPE_METHOD_CALL
SESSION = 2  # G_BUS_TYPE_SESSION

Filter = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)


GIO_SONAME = "libgio-2.0.so.0"  # GIO 2's soname on Linux and the BSDs, already mapped by PyGObject


def _load_gio() -> ctypes.CDLL:
    """GIO by its soname: no search. `ctypes.util.find_library` runs `ldconfig -p` (a fork and exec of
    the whole process before the icon shows), so it is asked only where the soname is not found."""
    try:
        return ctypes.CDLL(GIO_SONAME)
    except OSError:
        found = ctypes.util.find_library("gio-2.0")
        if found is None:
            raise
        return ctypes.CDLL(found)


def _gio() -> ctypes.CDLL:
    gio = _load_gio()
    gio.g_bus_get_sync.restype = ctypes.c_void_p
    gio.g_bus_get_sync.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
    gio.g_dbus_connection_add_filter.restype = ctypes.c_uint
    gio.g_dbus_connection_add_filter.argtypes = [ctypes.c_void_p, Filter, ctypes.c_void_p, ctypes.c_void_p]
    gio.g_dbus_connection_remove_filter.argtypes = [ctypes.c_void_p, ctypes.c_uint]
    gio.g_dbus_connection_send_message.restype = ctypes.c_int
    gio.g_dbus_connection_send_message.argtypes = [ctypes.c_void_p] * 2 + [ctypes.c_int] + [ctypes.c_void_p] * 2
    gio.g_dbus_message_get_message_type.restype = ctypes.c_int
    gio.g_dbus_message_new_method_reply.restype = ctypes.c_void_p
    for name in ("interface", "member", "path"):
        getter = getattr(gio, f"g_dbus_message_get_{name}")
        getter.restype = ctypes.c_char_p
        getter.argtypes = [ctypes.c_void_p]
    gio.g_dbus_message_get_message_type.argtypes = [ctypes.c_void_p]
    gio.g_dbus_message_new_method_reply.argtypes = [ctypes.c_void_p]
    gio.g_object_unref.argtypes = [ctypes.c_void_p]  # GIO links GObject: its symbols resolve here too
    return gio


class SniActivate:
    """While it lives, `Activate` on an AppIndicator item of this process calls `activate` (on GDBus's
    worker thread: `activate` must be safe to call from any thread)."""

    def __init__(self, activate: Callable[[], None]) -> None:
        self._activate = activate
        self._gio = _gio()
        self._bus = self._gio.g_bus_get_sync(SESSION, None, None)  # the shared connection AppIndicator uses
        self._callback = Filter(self._filtered)  # kept: GIO calls it for as long as the filter is there
        self._id = self._gio.g_dbus_connection_add_filter(self._bus, self._callback, None, None) if self._bus else 0

    def _filtered(self, bus: int | None, message: int | None, incoming: int, _data: int | None) -> int | None:
        """GIO's filter: the message back as it came, or None for the one call taken (released here)."""
        try:
            if not incoming or not self._is_activate(message):
                return message
            gio = self._gio
            reply = gio.g_dbus_message_new_method_reply(message)
            if not gio.g_dbus_connection_send_message(bus, reply, 0, None, None):
                log.debug("could not answer Activate: the caller is gone")
            gio.g_object_unref(reply)
            gio.g_object_unref(message)  # taken: the filter owned it
        except Exception:  # never let a message be lost to acp-tray's fault
            log.exception("the tray's Activate filter failed")
            return message
        try:
            self._activate()
        except Exception:
            log.exception("the icon's default action failed")
        return None

    def _is_activate(self, message: int | None) -> bool:
        gio = self._gio
        return bool(
            gio.g_dbus_message_get_message_type(message) == METHOD_CALL
            and gio.g_dbus_message_get_member(message) == MEMBER
            and gio.g_dbus_message_get_interface(message) == INTERFACE
            and (gio.g_dbus_message_get_path(message) or b"").startswith(ITEM_PATHS)
        )

    def close(self) -> None:
        if self._id:
            self._gio.g_dbus_connection_remove_filter(self._bus, self._id)
            self._id = 0
