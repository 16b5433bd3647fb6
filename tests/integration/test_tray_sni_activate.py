"""A StatusNotifierItem host's left click opens the acp-tray window, as the XEmbed icon's left click
does: the real daemon with pystray's AppIndicator icon in a real SNI host (gtk-sni-tray with its own
watcher, on the test desktop's private bus); the test calls `Activate` on the item over D-Bus, as a
host does for a left click, and sees the window opened (BROWSER is the tests' recorder)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from acp_tray.control.endpoint import runtime_dir
from acp_tray.files import paths
from tests.support.daemons import DaemonProcess
from tests.support.trays import SNI_WATCHER
from tests.support.waiting import until
from tests.support.window import end

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


@pytest.mark.parametrize("tray_host", ["sni"], indirect=True)
def test_activate_on_the_sni_item_opens_the_window(tray_host: dict[str, str], daemons: list[DaemonProcess]) -> None:
    """On main AppIndicator answered `Activate` with UnknownMethod and nothing opened."""
    env = {**tray_host, "PYSTRAY_BACKEND": "appindicator"}
    opened = Path(os.environ["ACP_TRAY_TEST_OPENED"])
    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[severity.info]\nroute = "tray"\n', encoding="utf-8")  # no agents: only the icon
    daemon = DaemonProcess("run", env=env)
    daemons.append(daemon)
    assert "appindicator backend" in daemon.wait_for_line("tray:")
    activate(env)
    (url,) = until(lambda: opened.exists() and opened.read_text(encoding="utf-8").splitlines(), what="the window")
    assert parse_qs(urlsplit(url).query).get("page", ["overview"]) == ["overview"]
    end(int(json.loads((runtime_dir() / "window.json").read_text(encoding="utf-8"))["pid"]))  # started by the daemon
    assert daemon.stop() == 0
