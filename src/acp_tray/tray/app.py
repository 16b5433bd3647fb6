"""The pystray adapter: the icon and menu on the main thread, fed by snapshots from the daemon.

Threads (see the architecture notes): pystray owns the main thread (macOS requires it); the
daemon's asyncio loop runs on one background thread. Crossings are explicit: menu callbacks
enter the loop with `call_soon_threadsafe`; the loop hands the tray immutable snapshots, and
pystray's GTK backend marshals icon, title and menu updates onto its own main loop.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

from acp_tray.session_bus import session_bus_available
from acp_tray.tray.icon import render
from acp_tray.tray.menu import SEPARATOR, Entry, menu_of
from acp_tray.tray.snapshot import TraySnapshot, badge_of, tooltip_of

ICON_SIZE = 64

log = logging.getLogger(__name__)

Action = Callable[[str], None]


def load_pystray() -> tuple[ModuleType | None, str]:
    """pystray, if a tray can work here, and which backend; else None and why (never a hang)."""
    if sys.platform not in ("win32", "darwin"):
        if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
            return None, "no display"
        if not session_bus_available():
            return None, "no session bus (the GTK tray would hang without one)"
    os.environ.setdefault("NO_AT_BRIDGE", "1")  # no accessibility bus: GTK would wait for it
    try:
        import pystray
    except Exception as exc:  # pystray raises whatever its backends raise
        return None, f"pystray cannot start ({type(exc).__name__}: {exc})"
    backend = pystray.Icon.__module__.removeprefix("pystray._")
    if backend == "xorg":
        return pystray, "xorg (no menu: install PyGObject for the GTK or AppIndicator backend)"
    return pystray, backend


class TrayApp:
    def __init__(self, pystray: ModuleType, on_action: Action) -> None:
        self._pystray = pystray
        self._on_action = on_action
        # pystray's GTK-based backends: GLib owns their loop (signals, clipboard)
        self._gtk = pystray.Icon.__module__ in ("pystray._gtk", "pystray._appindicator")
        initial = TraySnapshot()
        self._look = (badge_of(initial), initial.dnd.active)  # a snapshot with the same look redraws nothing
        self._entries = menu_of(initial)
        self.icon: Any = pystray.Icon(
            "acp-tray", render(*self._look, size=ICON_SIZE), tooltip_of(initial), self._menu(self._entries)
        )

    def set_action_handler(self, on_action: Action) -> None:
        self._on_action = on_action

    def show(self, snapshot: TraySnapshot) -> None:
        """Take a new snapshot (from any thread)."""
        look = (badge_of(snapshot), snapshot.dnd.active)
        if look != self._look:
            self._look = look
            self.icon.icon = render(*look, size=ICON_SIZE)
        title = tooltip_of(snapshot)
        if title != self.icon.title:
            self.icon.title = title
        entries = menu_of(snapshot)
        if entries == self._entries:
            return  # building a menu costs GTK time and memory: only when it changed
        self._entries = entries
        old = getattr(self.icon, "_menu_handle", None) if self._gtk else None
        self.icon.menu = self._menu(entries)  # the setter rebuilds it
        if old is not None:  # pystray does not free the menu it replaces
            from gi.repository import GLib

            GLib.idle_add(lambda: bool(old.destroy()))

    def copy(self, text: str) -> None:
        """Put `text` on the clipboard (from any thread); only where GTK is the tray's toolkit."""
        if not self._gtk:
            log.warning("no clipboard without GTK; the notice is in `acp-tray history`")
            return
        from gi.repository import Gdk, GLib, Gtk

        def on_gtk_loop() -> bool:
            clipboard = Gtk.Clipboard.get(Gdk.SELECTION_CLIPBOARD)
            clipboard.set_text(text, -1)
            clipboard.store()
            return False  # run once

        GLib.idle_add(on_gtk_loop)

    def _menu(self, entries: tuple[Entry, ...]) -> Any:
        return self._pystray.Menu(*(self._item(entry) for entry in entries))

    def _item(self, entry: Entry) -> Any:
        pystray = self._pystray
        if entry is SEPARATOR or entry.label == "-":
            return pystray.Menu.SEPARATOR
        if entry.children:
            return pystray.MenuItem(entry.label, self._menu(entry.children))
        action = entry.action

        def clicked(_icon: Any, _item: Any) -> None:
            if action is not None:
                self._on_action(action)

        checked = None if entry.checked is None else (lambda _item, value=entry.checked: value)
        return pystray.MenuItem(entry.label, clicked, checked=checked, radio=entry.radio, enabled=action is not None)

    def run(self, setup: Callable[[], None], on_signal: Callable[[], None]) -> None:
        """Block in the tray's main loop; `setup` runs once the icon exists; signals call `on_signal`.

        pystray's GTK backends reset SIGINT to its default when their loop starts, and a Python
        handler would wait until GTK returns to Python: there GLib dispatches the signals itself,
        registered once the loop runs. Other backends run Python handlers, set here."""
        if not self._gtk:
            for signum in (signal.SIGINT, signal.SIGTERM):
                signal.signal(signum, lambda *_: on_signal())

        def from_glib(*_: object) -> bool:
            on_signal()
            return True  # keep the source

        def started(icon: Any) -> None:  # pystray runs this on a thread of its own
            icon.visible = True
            if self._gtk:
                from gi.repository import GLib

                for signum in (signal.SIGINT, signal.SIGTERM):
                    GLib.unix_signal_add(GLib.PRIORITY_HIGH, signum, from_glib)
            setup()

        self.icon.run(setup=started)

    def stop(self) -> None:
        self.icon.stop()
