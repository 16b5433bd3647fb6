"""A StatusNotifierItem host's left click, as the tests make it: `Activate` called over D-Bus on the
item the daemon's AppIndicator icon registered with the watcher (gtk-sni-tray's own, on the test
desktop's private bus)."""

from __future__ import annotations

import re
import subprocess

from tests.support.trays import SNI_WATCHER
from tests.support.waiting import until

ITEMS = "/org/ayatana/NotificationItem"


def registered_items(env: dict[str, str]) -> list[str]:
    """The items the watcher knows, as "BUS_NAME/OBJECT/PATH"."""
    asked = subprocess.run(
        ["dbus-send", "--print-reply", f"--dest={SNI_WATCHER}", "/StatusNotifierWatcher",
         "org.freedesktop.DBus.Properties.Get", f"string:{SNI_WATCHER}", "string:RegisteredStatusNotifierItems"],
        env=env, capture_output=True, text=True, timeout=10, check=False,
    )  # fmt: skip
    return [line.strip()[8:-1] for line in asked.stdout.splitlines() if line.strip().startswith('string "')]


def item_path(name: str, env: dict[str, str]) -> str | None:
    """The object of AppIndicator's item under `name` ("/org/ayatana/NotificationItem/ID")."""
    asked = subprocess.run(
        ["dbus-send", "--print-reply", f"--dest={name}", ITEMS, "org.freedesktop.DBus.Introspectable.Introspect"],
        env=env, capture_output=True, text=True, timeout=10, check=False,
    )  # fmt: skip
    nodes = re.findall(r'<node name="([^"]+)"', asked.stdout)
    return f"{ITEMS}/{nodes[0]}" if nodes else None


def activate(env: dict[str, str]) -> None:
    """`Activate` on the daemon's item, as a host calls it for a left click; answered, not refused."""
    (item,) = until(
        lambda: registered_items(env), what="the item registered"
    )  # a bus name (this watcher drops the path)
    name, _, path = item.partition("/")
    path = path or until(lambda: item_path(name, env), what="the item's object")
    activated = subprocess.run(
        ["dbus-send", "--print-reply", f"--dest={name}", path, "org.kde.StatusNotifierItem.Activate",
         "int32:10", "int32:10"],
        env=env, capture_output=True, text=True, timeout=10, check=False,
    )  # fmt: skip
    assert activated.returncode == 0, activated.stderr
