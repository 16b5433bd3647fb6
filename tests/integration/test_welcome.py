"""The first start on a desktop: acp-tray opens its window on the welcome page once (the browser is
the tests' recorder: it is given the redirect file, whose address is read here), says in its first
console lines how to open the window, its app-menu entry, Start on login and how to stop; a later
start and a headless start open nothing. The welcome page in a real browser: what it says, no
serious accessibility problem light, dark or 390 px wide, and its Start on login switch works."""

from __future__ import annotations

import json
import os
import stat
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from acp_tray.control.endpoint import runtime_dir
from acp_tray.files import paths
from acp_tray.window.where import running
from tests.support.axe import serious_violations, with_axe
from tests.support.browser import PageFor
from tests.support.daemons import DaemonProcess, cli, cli_env
from tests.support.waiting import until
from tests.support.window import DEMO, PHONE, end, headless_daemon, redirected, sideways, window_process

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="XDG app menu and autostart entries")

SWITCH = "Start acp-tray when I log in"
LIVE = 10_000


def recorded() -> list[str]:
    """What the browser was asked to open, in order."""
    try:
        return Path(os.environ["ACP_TRAY_TEST_OPENED"]).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []


def started(daemons: list[DaemonProcess], env: dict[str, str], *args: str) -> DaemonProcess:
    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(DEMO, encoding="utf-8")
    daemon = DaemonProcess("run", *args, env=env)
    daemons.append(daemon)
    daemon.wait_for_lines("control: ", "demo  connected")
    return daemon


def first_lines(daemon: DaemonProcess) -> dict[str, str]:
    """The console's lines before the agents', by what they are about."""
    return {line.split(":", 1)[0]: line for line in daemon.seen if ": " in line and not line[:1].isdigit()}


def quit_(daemon: DaemonProcess) -> None:
    assert cli("quit").returncode == 0
    daemon.proc.wait(15)


def test_the_first_start_on_a_desktop_opens_the_welcome_once(
    desktop: Any, daemons: list[DaemonProcess], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ACP_TRAY_NO_WELCOME")
    env = cli_env(**desktop.env, ACP_TRAY_DEMO_INTERVAL="0.05", PYSTRAY_BACKEND="xorg")
    daemon = started(daemons, env)
    (opened,) = until(recorded, what="the browser asked to open the window")
    assert opened.startswith("file://") and "key" not in opened  # the redirect file, never the key
    assert parse_qs(urlsplit(redirected(opened)).query)["page"] == ["welcome"]
    marker = paths.welcome_marker()
    until(marker.exists, what="the welcome remembered")
    assert stat.S_IMODE(marker.stat().st_mode) == 0o600

    said = first_lines(daemon)
    assert said["window"] == "window: `acp-tray ui` opens it (or the tray menu's “Open acp-tray…”)"
    assert said["app menu"].startswith("app menu: “acp-tray” starts it again after a Quit")
    assert said["start on login"].startswith("start on login: off; `acp-tray autostart enable`")
    assert said["stop"] == "stop: the tray menu's Quit or `acp-tray quit`"  # no terminal here: no Ctrl+C
    assert not any("control.sock" in line for line in daemon.seen), daemon.seen  # the socket: in the log
    assert "control socket: " in paths.log_file().read_text(encoding="utf-8")
    end(int(json.loads((runtime_dir() / "window.json").read_text("utf-8"))["pid"]))
    quit_(daemon)

    again = started(daemons, env)
    time.sleep(2.0)  # the first start asked for the window before its agent connected
    assert recorded() == [opened]  # nothing more
    assert running() is None  # no window was started
    quit_(again)


def test_a_headless_start_prints_the_lines_and_opens_nothing(
    desktop: Any, daemons: list[DaemonProcess], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ACP_TRAY_NO_WELCOME")
    daemon = started(daemons, cli_env(**desktop.env, ACP_TRAY_DEMO_INTERVAL="0.05"), "--headless")  # a display, yet
    said = first_lines(daemon)
    assert said["tray"] == "tray: none (headless): notices are printed here"
    assert said["window"] == "window: `acp-tray ui` opens it"
    assert said["app menu"] == "app menu: no entry; `acp-tray desktop install` adds “acp-tray” to your applications"
    assert said["start on login"].startswith("start on login: off")
    assert said["stop"] == "stop: `acp-tray quit`"
    time.sleep(2.0)
    assert recorded() == [] and running() is None
    assert not paths.welcome_marker().exists()  # a later start on the desktop still welcomes
    quit_(daemon)


VIEWS: dict[str, dict[str, Any]] = {
    "light": {"color_scheme": "light"},
    "dark": {"color_scheme": "dark"},
    "390 px": {"color_scheme": "dark", "viewport": PHONE},
}


def test_the_welcome_page_says_what_acp_tray_is_with_no_serious_accessibility_problem(
    daemons: list[DaemonProcess], page_for: PageFor
) -> None:
    assert cli("desktop", "install").returncode == 0  # as the first start on a desktop does
    headless_daemon(daemons)
    found: dict[str, list[str]] = {}
    with window_process("welcome") as window:
        for view, options in VIEWS.items():
            watched = page_for(**options)
            page = watched.page
            with_axe(page)
            page.goto(window.url)
            assert urlsplit(page.url).path == "/welcome"
            page.get_by_role("heading", name="Welcome to acp-tray").wait_for()
            text = page.locator("main").inner_text()
            for words in (
                "runs your coding agents in the background",
                "It lives in the tray",
                "Some desktops show no tray",
                "in your applications menu as acp-tray",
                "The tray menu's Quit ends acp-tray and its agents",
            ):
                assert words in text, (words, text)
            assert page.get_by_role("switch", name=SWITCH).get_attribute("aria-checked") == "false"
            found[view] = serious_violations(page)
            if view == "390 px":
                assert not sideways(page), sideways(page)
            assert not watched.problems, (view, watched.problems)
    assert found == {view: [] for view in VIEWS}, found


def test_the_welcome_pages_start_on_login_switch_writes_and_removes_the_autostart_entry(
    daemons: list[DaemonProcess], page_for: PageFor
) -> None:
    entry = Path(os.environ["XDG_CONFIG_HOME"]) / "autostart" / "acp-tray.desktop"
    headless_daemon(daemons)
    with window_process("welcome") as window:
        watched = page_for("light")
        page = watched.page
        page.goto(window.url)
        assert not entry.exists()
        page.get_by_role("switch", name=SWITCH).click()
        page.locator("#start-on-login").get_by_text("Done: acp-tray starts when you log in.").wait_for(timeout=LIVE)
        assert page.get_by_role("switch", name=SWITCH).get_attribute("aria-checked") == "true"
        assert "Exec=" in entry.read_text(encoding="utf-8")
        assert stat.S_IMODE(entry.stat().st_mode) == 0o600
        assert cli("autostart", "status").stdout.count("installed — starts this installation") == 1
        page.get_by_role("switch", name=SWITCH).click()
        page.locator("#start-on-login").get_by_text("Done: acp-tray no longer starts when you log in.").wait_for(
            timeout=LIVE
        )
        assert not entry.exists()
        assert not watched.problems, watched.problems
