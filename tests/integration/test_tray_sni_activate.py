"""A StatusNotifierItem host's left click opens the acp-tray window, as the XEmbed icon's left click
does: the real daemon with pystray's AppIndicator icon in a real SNI host (gtk-sni-tray with its own
watcher, on the test desktop's private bus); the test calls `Activate` on the item over D-Bus, as a
host does for a left click, and sees the window opened (BROWSER is the tests' recorder)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from acp_tray.control.endpoint import runtime_dir
from acp_tray.files import paths
from tests.support.daemons import DaemonProcess
from tests.support.sni_activate import activate
from tests.support.waiting import until
from tests.support.window import end


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
