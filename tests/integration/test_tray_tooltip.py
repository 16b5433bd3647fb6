"""The tray's tooltip in both real hosts: read back from the StatusNotifierItem's `Title` (the SNI
host; Plasma's tray shows it as the tooltip of an item with no `ToolTip`, and AppIndicator exports
none) and from the icon's X11 window name (trayer's XEmbed tray), kept current as the state changes,
and, in the XEmbed tray, shown when the pointer rests on the icon."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.daemons import DaemonProcess, cli
from tests.support.tray_titles import read_back
from tests.support.trays import docked, icon_centre, screenshot, xdotool
from tests.support.waiting import until


def tooltip_windows(env: dict[str, str]) -> list[Any]:
    """The mapped windows of type tooltip on the display (GTK's, of the icon or of the SNI host)."""
    from Xlib import X, display  # type: ignore[import-untyped]  # pystray's dependency on Linux

    connection = display.Display(env["DISPLAY"])
    try:
        kind = connection.intern_atom("_NET_WM_WINDOW_TYPE")
        tooltip = connection.intern_atom("_NET_WM_WINDOW_TYPE_TOOLTIP")
        shown = []
        for window in connection.screen().root.query_tree().children:
            types = window.get_full_property(kind, X.AnyPropertyType)
            if types is not None and tooltip in types.value and window.get_attributes().map_state == X.IsViewable:
                shown.append(window.get_wm_class())
        return shown
    finally:
        connection.close()


def test_the_tooltip_is_where_the_host_reads_it_and_shows_on_hover(
    tmp_path: Path, tray_host: dict[str, str], request: pytest.FixtureRequest
) -> None:
    host = request.node.callspec.params["tray_host"]
    env = {**tray_host, "ACP_TRAY_DEMO_INTERVAL": "0.05"}
    daemon = DaemonProcess("run", env=env)
    try:
        assert "appindicator backend" in daemon.wait_for_line("tray:")
        daemon.wait_for_line("demo  connected")
        until(lambda: "1/1 agent connected" in read_back(host, env), timeout=15, what="the tooltip")
        assert "acp-tray · " in read_back(host, env)

        assert cli("dnd", "on", env=env).returncode == 0  # kept current
        until(lambda: "DND on" in read_back(host, env), timeout=15, what="the tooltip after DND")

        # gtk-sni-tray shows only a `ToolTip`, which AppIndicator does not export: hover in the XEmbed tray
        if host != "sni":
            assert docked(env, tmp_path / "docked.png")
            x, y = icon_centre(screenshot(env, tmp_path / "docked.png"))
            for _attempt in range(3):  # GTK shows a tooltip once the pointer rests: move onto the icon, rest
                xdotool(env, "mousemove", str(x - 1), str(y))
                xdotool(env, "mousemove", str(x), str(y))
                deadline = time.monotonic() + 5
                while not tooltip_windows(env) and time.monotonic() < deadline:
                    time.sleep(0.2)
                if tooltip_windows(env):
                    break
                xdotool(env, "mousemove", "10", "700")
            assert tooltip_windows(env), "no tooltip showed on hover"
            screenshot(env, tmp_path / "tooltip.png")
        assert daemon.stop() == 0
    finally:
        if daemon.proc.poll() is None:
            daemon.proc.kill()
    assert "Traceback" not in daemon.stderr_text()


def test_the_tooltip_says_how_many_agents_wait_for_you(
    tray_host: dict[str, str], request: pytest.FixtureRequest
) -> None:
    """The demo agent's turn waits on its approval: the tooltip, read back where the host reads it,
    says "1 agent waits for you" until the approval is answered."""
    host = request.node.callspec.params["tray_host"]
    env = {**tray_host, "ACP_TRAY_DEMO_INTERVAL": "0.05"}
    daemon = DaemonProcess("run", env=env)
    try:
        daemon.wait_for_line("demo  connected")
        command = [sys.executable, "-m", "acp_tray", "prompt", "demo", "delete the build folder"]
        prompt = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        until(lambda: "1 agent waits for you" in read_back(host, env), timeout=15, what="the waiting agent")
        (request_id,) = [row["id"] for row in json.loads(cli("approvals", "--json", env=env).stdout)]
        assert cli("approve", request_id, env=env).returncode == 0
        prompt.communicate(timeout=30)
        until(lambda: "waits for you" not in read_back(host, env), timeout=15, what="the tooltip once answered")
        assert daemon.stop() == 0
    finally:
        if daemon.proc.poll() is None:
            daemon.proc.kill()
    assert "Traceback" not in daemon.stderr_text()
