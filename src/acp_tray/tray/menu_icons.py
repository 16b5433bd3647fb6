"""Agent icons (the registry's SVGs) in the tray menu, for pystray's GTK-based backends (GTK and
AppIndicator): pystray's menu items have no icons, so the items it creates for entries that
carry one are swapped for `Gtk.ImageMenuItem`s (which AppIndicator also exports over dbusmenu).

The SVG is drawn by librsvg through GdkPixbuf (GTK's own image loader, no other library), in a
child process with a time and memory budget (`icon_raster`); the registry's icons are monochrome
in `currentColor`, drawn in the menu's text colour so they read on light and dark themes. Other
backends (Windows, macOS, plain Xorg) show no menu icons. Menus are built on GTK's main loop
(where pystray builds them); icons are never drawn there.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from acp_tray.tray.icon_raster import MAX_SVG_BYTES, Rasteriser

log = logging.getLogger(__name__)

SIZE = 16
ATTRIBUTE = "_acp_tray_icon"  # set on a pystray.MenuItem: the SVG file to show beside it


def mark(item: Any, icon: str) -> Any:
    """Have `item` (a pystray.MenuItem) shown with the SVG at `icon`."""
    setattr(item, ATTRIBUTE, icon)
    return item


def _colour(gtk: Any) -> str:
    """The theme's menu text colour, as #rrggbb (of an item in a menu: a lone item has another)."""
    menu, item = gtk.Menu(), gtk.MenuItem.new_with_label("")
    menu.append(item)
    rgba = item.get_style_context().get_color(gtk.StateFlags.NORMAL)
    menu.destroy()
    return "#{:02x}{:02x}{:02x}".format(*(round(c * 255) for c in (rgba.red, rgba.green, rgba.blue)))


class MenuIcons:
    """Wraps a GTK pystray icon's `_create_menu_item` so that marked items get their image.

    An icon is drawn once per file and colour, in a child process off GTK's main loop
    (`icon_raster`): until it is drawn the item has no image, then `on_ready` is called (from the
    drawing thread) so that the menu is built again with it. One that cannot be drawn within the
    budget is remembered as such and shown as no icon, like an agent without one."""

    def __init__(self, icon: Any, on_ready: Callable[[], None]) -> None:
        import gi

        gi.require_version("GdkPixbuf", "2.0")
        from gi.repository import GdkPixbuf, Gtk

        self._gtk, self._pixbufs = Gtk, GdkPixbuf
        self._on_ready = on_ready
        self._raster = Rasteriser()
        self._lock = threading.Lock()
        self._cache: dict[tuple[str, int, str], Any] = {}  # a pixbuf, or None: cannot be drawn
        self._pending: set[tuple[str, int, str]] = set()
        self._create = icon._create_menu_item
        icon._create_menu_item = self._create_menu_item

    def _create_menu_item(self, descriptor: Any) -> Any:
        item = self._create(descriptor)
        path = getattr(descriptor, ATTRIBUTE, None)
        pixbuf = self.pixbuf(path) if path else None
        if pixbuf is None:
            return item
        gtk = self._gtk
        with_image = gtk.ImageMenuItem.new_with_label(descriptor.text)
        with_image.set_image(gtk.Image.new_from_pixbuf(pixbuf))
        with_image.set_always_show_image(True)
        submenu = item.get_submenu()
        if submenu is not None:
            item.set_submenu(None)
            with_image.set_submenu(submenu)
        else:
            return item  # agents' entries are submenus; anything else keeps pystray's own item
        with_image.set_sensitive(item.get_sensitive())
        item.destroy()
        return with_image

    def pixbuf(self, path: str) -> Any:
        """The icon at `path`, SIZE×SIZE in the menu's colour, once drawn; None until then, or if it
        cannot be drawn. Called on GTK's main loop: never draws there."""
        try:
            key = (path, Path(path).stat().st_mtime_ns, _colour(self._gtk))
        except OSError as exc:
            log.info("no menu icon from %s: %s", path, exc)
            return None
        with self._lock:
            if key in self._cache:
                return self._cache[key]
            if key in self._pending:
                return None
            self._pending.add(key)
        threading.Thread(target=self._draw, args=(key,), name="acp-tray-icon", daemon=True).start()
        return None

    def _draw(self, key: tuple[str, int, str]) -> None:
        path, _mtime, colour = key
        pixbuf = None
        try:
            with open(path, "rb") as file:
                svg = file.read(MAX_SVG_BYTES)
            loader = self._pixbufs.PixbufLoader.new_with_type("png")
            loader.write(self._raster.draw(svg, colour, SIZE))  # acp-tray's own small PNG
            loader.close()
            pixbuf = loader.get_pixbuf()
        except Exception as exc:  # OSError, RasterError, or GLib.Error for a PNG GdkPixbuf refuses
            log.info("no menu icon from %s: %s", path, exc)
        with self._lock:
            self._pending.discard(key)
            self._cache[key] = pixbuf
        if pixbuf is not None:
            self._on_ready()

    def close(self) -> None:
        """The tray is stopping: end a drawing in progress."""
        self._raster.close()
