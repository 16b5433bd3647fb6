"""The tray icon's words as a host reads them: the StatusNotifierItem's `Title` over D-Bus, the
XEmbed icon windows' names over X11."""

from __future__ import annotations

import subprocess

ITEM_PATH = "/org/ayatana/NotificationItem/acp_tray"  # where AppIndicator exports the item with id "acp-tray"


def sni_title(env: dict[str, str]) -> str:
    """The `Title` of the item registered with the watcher, as `gdbus` prints it ("" if none)."""
    items = subprocess.run(
        ["gdbus", "call", "--session", "-d", "org.kde.StatusNotifierWatcher", "-o", "/StatusNotifierWatcher",
         "-m", "org.freedesktop.DBus.Properties.Get", "org.kde.StatusNotifierWatcher", "RegisteredStatusNotifierItems"],
        env=env, capture_output=True, text=True, timeout=10, check=True,
    ).stdout  # fmt: skip
    name = items.split("'")[1]  # (<[':1.10']>,): the item's bus name
    asked = subprocess.run(
        ["gdbus", "call", "--session", "-d", name, "-o", ITEM_PATH,
         "-m", "org.freedesktop.DBus.Properties.Get", "org.kde.StatusNotifierItem", "Title"],
        env=env, capture_output=True, text=True, timeout=10, check=False,
    )  # fmt: skip
    return asked.stdout


def x11_names(env: dict[str, str]) -> str:
    """The `_NET_WM_NAME` of this process's tray icon windows (WM_CLASS "acp-tray")."""
    found = subprocess.run(["xdotool", "search", "--classname", "^acp-tray$"], env=env, capture_output=True, text=True)
    asked = [["xprop", "-id", window, "_NET_WM_NAME", "WM_NAME"] for window in found.stdout.split()]
    return "".join(subprocess.run(command, env=env, capture_output=True, text=True).stdout for command in asked)


def read_back(host: str, env: dict[str, str]) -> str:
    return sni_title(env) if host == "sni" else x11_names(env)
