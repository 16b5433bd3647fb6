"""The tray's Do not disturb menu and Recent list for real: pystray under Xvfb in a tray host, its
entries chosen with xdotool (trayer's XEmbed tray) and its labels read as a StatusNotifierItem host
reads them (dbusmenu), with `acp-tray dnd status` saying what each choice did."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest

from tests.support.agents import agent_table, scripted_command
from tests.support.daemons import DaemonProcess
from tests.support.dbusmenu import dbusmenu_labels, dbusmenu_text
from tests.support.trays import docked, icon_centre, screenshot, xdotool
from tests.support.waiting import until

DND = '[dnd]\nmorning = "07:15"\n\n[dnd.quiet_hours]\nstart = "21:30"\nend = "06:45"\n\n'
TO_DND = ("Down", "Down", "Down", "Right")  # past "Open acp-tray…" and Recent, into "Do not disturb" (on "Off")


def dnd_status(config: Path, env: dict[str, str]) -> str:
    status = subprocess.run(
        [sys.executable, "-m", "acp_tray", "dnd", "status", "--config", str(config)],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return status.stdout.strip()


def choose(env: dict[str, str], centre: tuple[int, int], keys: tuple[str, ...], done: Callable[[], bool]) -> None:
    """Open the menu, press `keys`, until `done` says the choice was made (a loaded machine may open
    the menu late: tried again, never loosened)."""
    for _attempt in range(3):
        xdotool(env, "key", "Escape")
        xdotool(env, "mousemove", str(centre[0]), str(centre[1]), "click", "1")
        time.sleep(0.7)
        for key in keys:
            xdotool(env, "key", key)
        deadline = time.monotonic() + 5
        while not done() and time.monotonic() < deadline:
            time.sleep(0.1)
        if done():
            return
    raise AssertionError(f"choosing {keys} in the tray menu did nothing")


def quiet_hours_enabled(config: Path) -> bool:
    return bool(tomllib.loads(config.read_text(encoding="utf-8"))["dnd"]["quiet_hours"].get("enabled"))


@pytest.mark.parametrize("tray_host", ["trayer"], indirect=True)
def test_each_dnd_entry_clicked_in_the_real_menu_switches_dnd(tmp_path: Path, tray_host: dict[str, str]) -> None:
    env = tray_host
    config = tmp_path / "config.toml"
    config.write_text(DND + agent_table("bot", scripted_command()) + "\n", encoding="utf-8")
    daemon = DaemonProcess("run", "--config", str(config), env=env)
    try:
        assert "tray: pystray" in daemon.wait_for_line("tray:")
        assert docked(env, tmp_path / "docked.png"), "the tray icon never docked"
        centre = icon_centre(screenshot(env, tmp_path / "docked.png"))
        assert dnd_status(config, env) == "do not disturb: off"

        # "On until I turn it off": the entry below "Off"
        choose(env, centre, (*TO_DND, "Down", "Return"), lambda: dnd_status(config, env) != "do not disturb: off")
        assert dnd_status(config, env) == "do not disturb: on"  # no end

        # "Until tomorrow, 07:15" (the `morning` preference): after "For 30 minutes" and "For 1 hour"
        keys = (*TO_DND, "Down", "Down", "Down", "Down")
        choose(env, centre, (*keys, "Return"), lambda: dnd_status(config, env) != "do not disturb: on")
        assert re.fullmatch(r"do not disturb: on until \w{3} 07:15", dnd_status(config, env)), dnd_status(config, env)

        # the submenu as it is now (for the README), then "Off", its first entry
        choose(env, centre, TO_DND, lambda: True)
        time.sleep(0.5)
        screenshot(env, tmp_path / "dnd-menu.png")
        xdotool(env, "key", "Return")
        until(lambda: dnd_status(config, env) == "do not disturb: off", timeout=5, what="DND off")

        # "Quiet hours 21:30–06:45": the submenu's last entry, a check item
        assert not quiet_hours_enabled(config)
        choose(env, centre, (*TO_DND, "End", "Return"), lambda: quiet_hours_enabled(config))
        assert daemon.stop() == 0
    finally:
        if daemon.proc.poll() is None:
            daemon.proc.kill()
    assert "Traceback" not in daemon.stderr_text()
    if os.environ.get("ACP_TRAY_KEEP_SHOTS"):
        (Path(os.environ["ACP_TRAY_KEEP_SHOTS"]) / "dnd-menu.png").write_bytes((tmp_path / "dnd-menu.png").read_bytes())


@pytest.mark.parametrize("tray_host", ["sni"], indirect=True)
def test_the_real_menu_shows_recent_times_and_the_dnd_ends(tmp_path: Path, tray_host: dict[str, str]) -> None:
    """What a StatusNotifierItem host shows: a Recent entry with its time ("14:03"), and the DND
    entries with their ends from the preferences."""
    env = tray_host
    steps = [{"update": {"sessionUpdate": "notice", "severity": "warning", "title": "Heads up"}}]
    config = tmp_path / "config.toml"
    table = agent_table("bot", scripted_command(), env={"SCRIPTED_AGENT_STEPS": json.dumps(steps)})
    config.write_text(DND + table + "\n", encoding="utf-8")
    before = datetime.now().astimezone()
    daemon = DaemonProcess("run", "--config", str(config), env=env)
    try:
        assert "appindicator" in daemon.wait_for_line("tray:")

        def with_the_notice() -> list[str] | None:
            try:
                found = asyncio.run(dbusmenu_labels(env["DBUS_SESSION_BUS_ADDRESS"]))
            except ValueError:  # the item is not registered with the host yet
                return None
            shown = [dbusmenu_text(label) for label in found]
            return shown if any("Heads up" in label for label in shown) else None

        shown = until(with_the_notice, 30, what="the notice in the menu's Recent list")
        after = datetime.now().astimezone()
        assert daemon.stop() == 0
    finally:
        if daemon.proc.poll() is None:
            daemon.proc.kill()
    times = {f"{before:%H:%M}", f"{after:%H:%M}"}
    (entry,) = [label for label in shown if "Heads up" in label]
    assert re.fullmatch(r"• ⚠ (\d\d:\d\d) bot: Heads up", entry) and entry[4:9] in times, (entry, times)
    assert {"On until I turn it off", "Until tomorrow, 07:15", "Quiet hours 21:30–06:45"} <= set(shown), shown


@pytest.mark.parametrize("tray_host", ["sni"], indirect=True)
def test_the_held_during_dnd_count_clears_when_dnd_ends(tmp_path: Path, tray_host: dict[str, str]) -> None:
    """Notices DND held back are counted on the menu's Recent entry while it lasts; once DND is off
    the count goes (they are listed, and the next DND counts afresh). On main "· 2 held during DND"
    stayed after DND ended, until "Mark all read"."""
    env = tray_host
    steps = [{"update": {"sessionUpdate": "notice", "severity": "warning", "title": f"Heads up {n}"}} for n in (1, 2)]
    config = tmp_path / "config.toml"
    table = agent_table("bot", scripted_command(), env={"SCRIPTED_AGENT_STEPS": json.dumps(steps)})
    config.write_text("[dnd]\nenabled = true\n\n" + table + "\n", encoding="utf-8")
    daemon = DaemonProcess("run", "--config", str(config), env=env)

    def labels(wanted: Callable[[list[str]], bool]) -> list[str] | None:
        try:
            found = asyncio.run(dbusmenu_labels(env["DBUS_SESSION_BUS_ADDRESS"]))
        except ValueError:  # the item is not registered with the host yet
            return None
        shown = [dbusmenu_text(label) for label in found]
        return shown if wanted(shown) else None

    try:
        assert "appindicator" in daemon.wait_for_line("tray:")
        held = until(
            lambda: labels(lambda shown: any(s.endswith("· 2 held during DND") for s in shown)),
            30,
            what="the held count",
        )
        assert "Recent (2 unread) · 2 held during DND" in held
        assert any("Heads up 2" in label for label in held)
        off = subprocess.run(
            [sys.executable, "-m", "acp_tray", "dnd", "off", "--config", str(config)],
            env=env, capture_output=True, text=True, check=True,
        )  # fmt: skip
        assert off.returncode == 0
        after = until(
            lambda: labels(lambda shown: not any("held during DND" in s for s in shown)),
            30,
            what="the held count gone once DND is off",
        )
        assert "Recent (2 unread)" in after and any("Heads up 2" in label for label in after)  # still listed
        assert daemon.stop() == 0
    finally:
        if daemon.proc.poll() is None:
            daemon.proc.kill()
