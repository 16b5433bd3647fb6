"""Agent icons (the registry's SVGs) in the tray menu, for pystray's GTK-based backends (GTK and
AppIndicator): pystray's menu items have no icons, so the items it creates for entries that
carry one are swapped for `Gtk.ImageMenuItem`s (which AppIndicator also exports over dbusmenu).

The SVG is drawn by librsvg through GdkPixbuf (GTK's own image loader, no other library); the
registry's icons are monochrome in `currentColor`, drawn here in the menu's text colour so they
read on light and dark themes. Other backends (Windows, macOS, plain Xorg) show no menu icons.
Runs on GTK's main loop (where pystray builds its menus).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

SIZE = 16
ATTRIBUTE = "_acp_tray_icon"  # set on a pystray.MenuItem: the SVG file to show beside it
MAX_SVG_BYTES = 256 * 1024


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
    """Wraps a GTK pystray icon's `_create_menu_item` so that marked items get their image."""

    def __init__(self, icon: Any) -> None:
        import gi

        gi.require_version("GdkPixbuf", "2.0")
        from gi.repository import GdkPixbuf, Gtk

        self._gtk, self._pixbufs = Gtk, GdkPixbuf
        self._cache: dict[tuple[str, float], Any] = {}
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
        """The icon at `path`, SIZE×SIZE in the menu's colour; None if it cannot be drawn."""
        try:
            file = Path(path)
            key = (path, file.stat().st_mtime)
            if key not in self._cache:
                svg = file.read_bytes()[:MAX_SVG_BYTES]
                svg = svg.replace(b"currentColor", _colour(self._gtk).encode())
                loader = self._pixbufs.PixbufLoader.new_with_type("svg")
                loader.set_size(SIZE, SIZE)
                loader.write(svg)
                loader.close()
                self._cache[key] = loader.get_pixbuf()
            return self._cache[key]
        except Exception as exc:  # GLib.Error for a bad SVG, OSError for a missing file
            log.info("no menu icon from %s: %s", path, exc)
            return None
