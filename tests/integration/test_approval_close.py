"""A "Needs approval" notification leaves the screen when the request is settled anywhere: answered
from the CLI (or the tray, or another notification's button) or timed out. Real dunst on a private
bus, the real daemon and the bundled demo agent; `dunstctl` says what is still on screen."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tray.files import paths
from acp_tray.state.history import read_history
from tests.support.daemons import DaemonProcess, cli_env
from tests.support.waiting import until

DEMO = '[agents.{name}]\ncommand = ["acp-tray", "demo-agent"]\npermission_timeout = {timeout}\n'


def displayed(desktop: Any) -> int:
    count = subprocess.run(["dunstctl", "count", "displayed"], env={**cli_env(), **desktop.env}, capture_output=True)
    return int(count.stdout)


def closed_summaries(desktop: Any) -> list[str]:
    """What dunst has taken off the screen (its history), without closing anything itself."""
    return [item["summary"] for item in desktop.history()]


@pytest.mark.parametrize("tray", ["xorg", "appindicator"])
def test_an_approval_notification_closes_when_answered_from_the_cli_or_timed_out(
    tmp_path: Path, desktop: Any, daemons: list[DaemonProcess], tray: str
) -> None:
    """With the X11 icon notifications go through dbus-fast; where the tray runs GTK, through GLib's
    own D-Bus, and the daemon does not load dbus-fast at all (~3 MB resident)."""
    if tray == "appindicator":
        pytest.importorskip("gi", reason="PyGObject (make test installs it)")
    desktop.close_all()
    config = tmp_path / "config.toml"
    quiet = '[severity.info]\nroute = "tray"\n[severity.error]\nroute = "tray"\n[severity.other]\nroute = "tray"\n'
    config.write_text(
        quiet + DEMO.format(name="demo", timeout=300) + DEMO.format(name="late", timeout=1), encoding="utf-8"
    )
    env = cli_env(**desktop.env, ACP_TRAY_DEMO_INTERVAL="0.05", PYSTRAY_BACKEND=tray)
    daemon = DaemonProcess("run", "--config", str(config), env=env)
    daemons.append(daemon)
    assert f"{tray} backend" in daemon.wait_for_line("tray:")
    assert "notifications: freedesktop (dunst" in daemon.wait_for_line("notifications:")
    daemon.wait_for_lines("demo  connected", "late  connected")
    assert ("dbus_fast" in Path(f"/proc/{daemon.proc.pid}/maps").read_text()) == (tray == "xorg")
    warnings = [f"{name}: Example: Using default settings" for name in ("demo", "late")]  # each demo's warning is shown
    until(lambda: len([r for r in read_history(paths.history_file()) if isinstance(r, dict)]) >= 8, what="the notices")
    until(lambda: displayed(desktop) == 2 or set(warnings) <= set(closed_summaries(desktop)), what="dunst")
    desktop.close_all()  # out of the way
    before = closed_summaries(desktop)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "acp_tray", *args], env=env, capture_output=True, text=True)

    prompt = subprocess.Popen(
        [sys.executable, "-m", "acp_tray", "prompt", "demo", "delete the build folder"],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    (request,) = until(lambda: json.loads(run("approvals", "--json").stdout), what="the approval request")
    until(lambda: displayed(desktop) == 1, what="the approval on screen")
    assert run("approve", request["id"], "allow").returncode == 0
    until(lambda: displayed(desktop) == 0, what="the answered approval to leave the screen")
    assert closed_summaries(desktop).count("demo: Needs approval") == before.count("demo: Needs approval") + 1
    assert "You allowed it" in prompt.communicate(timeout=30)[0]

    # nobody answers `late`: after its 1 s its approval leaves the screen; the timeout notice stays
    late = run("prompt", "late", "delete the build folder")
    assert "Not allowed" in late.stdout
    until(lambda: "late: Needs approval" in closed_summaries(desktop), what="the timed-out approval to close")
    assert displayed(desktop) == 1  # "Approval timed out": that one is news, and stays
    assert daemon.stop() == 0
