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
import threading
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

from acp_tray.desktop.display import environment_has_display
from acp_tray.desktop.session_bus import session_bus_available
from acp_tray.tray.icon import render
from acp_tray.tray.menu import SEPARATOR, Entry, menu_of
from acp_tray.tray.menu_icons import MenuIcons, mark
from acp_tray.tray.snapshot import TraySnapshot, badge_of, tooltip_of
from acp_tray.tray.xorg import OwnConnection

if TYPE_CHECKING:
    from acp_tray.tray.sni_activate import SniActivate
    from acp_tray.tray.tooltip import Tooltip

ICON_SIZE = 64

log = logging.getLogger(__name__)

Action = Callable[[str], None]


def load_pystray() -> tuple[ModuleType | None, str]:
    """pystray with the best backend that imports here, and which ("appindicator backend"), or
    None and why (never a hang). A backend that fails (a missing typelib) falls back to the next."""
    if not environment_has_display():
        return None, "no display"
    if sys.platform not in ("win32", "darwin") and not session_bus_available():
        return None, "no session bus (the GTK tray would hang without one)"
    os.environ.setdefault("NO_AT_BRIDGE", "1")  # no accessibility bus: GTK would wait for it
    chosen = os.environ.get("PYSTRAY_BACKEND")
    candidates = [chosen] if chosen else BACKENDS.get(sys.platform, BACKENDS["linux"])
    failed: list[str] = []
    for name in candidates:
        pystray, why = _import_pystray(name)
        if pystray is not None:
            return pystray, _described(name, failed)
        failed.append(f"{name}: {why}")
    return None, f"pystray cannot start ({'; '.join(failed)})"


# best first: the menu-less X11 icon is still an icon, so it comes before none at all
BACKENDS = {"linux": ["appindicator", "gtk", "xorg"], "win32": ["win32"], "darwin": ["darwin"]}
RUNTIME_PACKAGES = "gir1.2-gtk-3.0 gir1.2-ayatanaappindicator3-0.1"
BUILD_PACKAGES = "libgirepository1.0-dev libcairo2-dev pkg-config"


def _import_pystray(backend: str) -> tuple[ModuleType | None, str]:
    """pystray with this one backend, or None and why. pystray picks its backend when it is first
    imported and skips only an ImportError (a missing GTK typelib raises ValueError), so each try
    is a fresh import with PYSTRAY_BACKEND set."""
    for module in [m for m in sys.modules if m == "pystray" or m.startswith("pystray.")]:
        del sys.modules[module]
    previous = os.environ.get("PYSTRAY_BACKEND")
    os.environ["PYSTRAY_BACKEND"] = backend
    try:
        import pystray
    except Exception as exc:  # pystray raises whatever its backends raise
        return None, f"{type(exc).__name__}: {exc}"
    finally:
        if previous is None:
            del os.environ["PYSTRAY_BACKEND"]
        else:
            os.environ["PYSTRAY_BACKEND"] = previous
    return pystray, ""


def _described(backend: str, failed: list[str]) -> str:
    """What the start-up line says: the backend, and what would make it better."""
    if backend != "xorg":
        return f"{backend} backend"
    if any("Namespace" in reason for reason in failed):
        fix = f"install the GTK runtime packages: sudo apt-get install {RUNTIME_PACKAGES}"
    else:
        fix = (
            f"install PyGObject: sudo apt-get install {BUILD_PACKAGES} {RUNTIME_PACKAGES}, then `make run` installs it"
        )
    return f"xorg backend (no menu: {fix})"


def _gtk_messages_to_log() -> None:
    """GTK's own warnings go to acp-tray's log file, not the console: AppIndicator's XEmbed
    fallback prints a harmless `Gdk-CRITICAL … gdk_window_thaw_toplevel_updates` at every start."""
    from gi.repository import GLib

    def to_log(domain: str | None, level: int, message: str, *_: object) -> None:
        log.info("%s: %s", domain or "GTK", message)

    levels = GLib.LogLevelFlags.LEVEL_CRITICAL | GLib.LogLevelFlags.LEVEL_WARNING
    for domain in ("Gdk", "Gtk", "GLib-GObject"):
        GLib.log_set_handler(domain, levels, to_log)


class TrayApp:
    def __init__(self, pystray: ModuleType, on_action: Action) -> None:
        self._pystray = pystray
        self._on_action = on_action
        # pystray's GTK-based backends: GLib owns their loop (signals, clipboard)
        self.gtk = pystray.Icon.__module__ in ("pystray._gtk", "pystray._appindicator")
        self.backend = pystray.Icon.__module__.removeprefix("pystray._") + " backend"
        initial = TraySnapshot()
        look = (badge_of(initial), initial.dnd.active)
        # a snapshot with the same look redraws nothing; pystray's X11 icon is drawn only once it is
        # set after it docked (its first image is never painted), so there the first look is set again
        self._look: tuple[str, bool] | None = look if self.gtk else None
        self._entries = menu_of(initial)
        self._tooltip = self._host_tooltip(tooltip_of(initial))
        self.icon: Any = pystray.Icon("acp-tray", render(*look, size=ICON_SIZE), tooltip_of(initial))
        self._xorg = OwnConnection(self.icon) if self.icon.__module__ == "pystray._xorg" else None
        self._icons = self._menu_icons()
        self.icon.menu = self._menu(self._entries)
        self._sni = self._sni_activate()

    def _sni_activate(self) -> SniActivate | None:
        """A StatusNotifierItem host's left click (`Activate`) does what the XEmbed icon's does."""
        if self.icon.__module__ != "pystray._appindicator":
            return None
        from acp_tray.tray.sni_activate import SniActivate

        return SniActivate(self._default_action)

    def _default_action(self) -> None:
        """The menu's default entry (the window), from any thread, as a left click on the icon."""
        action = next((entry.action for entry in self._entries if entry.default), None)
        if action is not None:
            self._on_action(action)

    def _host_tooltip(self, text: str) -> Tooltip | None:
        """The XEmbed icon's tooltip, which the GTK backends leave out (tooltip.py); pystray's own
        title names the icon (and is the StatusNotifierItem's `Title`)."""
        if not self.gtk:
            return None
        from acp_tray.tray.tooltip import Tooltip

        return Tooltip(text)

    def _menu_icons(self) -> MenuIcons | None:
        """Agent icons in the menu, where the backend can show them (GTK and AppIndicator)."""
        if not self.gtk:
            return None
        try:
            return MenuIcons(self.icon, on_ready=self._icon_drawn)
        except (ImportError, ValueError) as exc:  # no GdkPixbuf typelib
            log.info("no agent icons in the menu: %s", exc)
            return None

    def show(self, snapshot: TraySnapshot) -> None:
        """Take a new snapshot (from any thread)."""
        look = (badge_of(snapshot), snapshot.dnd.active)
        if look != self._look:
            self._look = look
            self.icon.icon = render(*look, size=ICON_SIZE)
        title = tooltip_of(snapshot)
        if title != self.icon.title:
            self.icon.title = title
            if self._tooltip is not None:
                self._tooltip.show(title)
        entries = menu_of(snapshot)
        if entries == self._entries:
            return  # building a menu costs GTK time and memory: only when it changed
        self._entries = entries
        self._rebuild()

    def _icon_drawn(self) -> None:
        """An agent's icon is ready (on the drawing thread): the menu is built again on GTK's loop."""
        from gi.repository import GLib

        def once() -> bool:
            self._rebuild()
            return False

        GLib.idle_add(once)

    def _rebuild(self) -> None:
        old = getattr(self.icon, "_menu_handle", None) if self.gtk else None
        self.icon.menu = self._menu(self._entries)  # the setter rebuilds it
        if old is not None:  # pystray does not free the menu it replaces
            from gi.repository import GLib

            GLib.idle_add(lambda: bool(old.destroy()))

    def copy(self, text: str) -> None:
        """Put `text` on the clipboard (from any thread); only where GTK is the tray's toolkit."""
        if not self.gtk:
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
            item = pystray.MenuItem(entry.label, self._menu(entry.children))
            return mark(item, entry.icon) if entry.icon and self._icons is not None else item
        action = entry.action

        def clicked(_icon: Any, _item: Any) -> None:
            if action is not None:
                self._on_action(action)

        checked = None if entry.checked is None else (lambda _item, value=entry.checked: value)
        return pystray.MenuItem(
            entry.label, clicked, checked=checked, radio=entry.radio, enabled=action is not None, default=entry.default
        )

    def run(
        self, setup: Callable[[], None], on_signal: Callable[[], None], on_hangup: Callable[[], None] | None = None
    ) -> None:
        """Block in the tray's main loop; `setup` runs once the icon exists; SIGINT and SIGTERM call
        `on_signal`, SIGHUP (the terminal closed; not on Windows) `on_hangup`.

        pystray's GTK backends reset SIGINT to its default when their loop starts, and a Python
        handler would wait until GTK returns to Python: there GLib dispatches the signals itself,
        registered once the loop runs. Other backends run Python handlers, set here."""
        handlers = {signal.SIGINT: on_signal, signal.SIGTERM: on_signal}
        if on_hangup is not None and hasattr(signal, "SIGHUP"):
            handlers[signal.SIGHUP] = on_hangup
        if not self.gtk:
            for signum, handler in handlers.items():
                signal.signal(signum, lambda *_, handler=handler: handler())
        else:
            _gtk_messages_to_log()

        def from_glib(handler: Callable[[], None]) -> bool:
            handler()
            return True  # keep the source

        def started(icon: Any) -> None:  # pystray runs this on a thread of its own
            icon.visible = True
            if self.gtk:
                from gi.repository import GLib

                for signum, handler in handlers.items():
                    GLib.unix_signal_add(GLib.PRIORITY_HIGH, signum, from_glib, handler)
            setup()

        self.icon.run(setup=started)

    def stop(self) -> None:
        if self._icons is not None:
            self._icons.close()
        if self._sni is not None:
            self._sni.close()
        elsewhere = threading.current_thread() is not threading.main_thread()
        if self._xorg is not None and elsewhere and self._xorg.stop():
            return
        self.icon.stop()
