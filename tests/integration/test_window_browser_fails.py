"""A browser that fails to start when the tray opens the window (a StatusNotifierItem host's left
click, as in test_tray_sni_activate.py): the person is told in a notification on the real dunst, with
what failed and what to do, and the daemon's log says it too; from a terminal, `acp-tray ui` prints
the address to open and says why in one line. BROWSER is a command that fails as chromium does when
run as root without its sandbox."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest

from acp_tray.control.endpoint import runtime_dir
from acp_tray.files import paths
from tests.support.daemons import DaemonProcess, cli, cli_env
from tests.support.sni_activate import activate
from tests.support.waiting import until
from tests.support.window import end, headless_daemon

REFUSAL = "Running as root without --no-sandbox is not supported."


def failing_browser(tmp_path: Path) -> str:
    """A browser command that refuses to start: $BROWSER's value."""
    script = tmp_path / "failing-browser"
    script.write_text(f'#!/bin/sh\necho "{REFUSAL}" >&2\nexit 1\n', encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return f"{script} %s"


def window_pid() -> int:
    return int(json.loads((runtime_dir() / "window.json").read_text(encoding="utf-8"))["pid"])


@pytest.mark.parametrize("tray_host", ["sni"], indirect=True)
def test_a_browser_that_fails_to_start_from_the_tray_is_said_in_a_notification(
    tray_host: dict[str, str], desktop: Any, daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    env = {**tray_host, "PYSTRAY_BACKEND": "appindicator", "BROWSER": failing_browser(tmp_path)}
    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('notifier = "freedesktop"\n', encoding="utf-8")
    daemon = DaemonProcess("run", "-v", env=env)
    daemons.append(daemon)
    assert "appindicator backend" in daemon.wait_for_line("tray:")
    assert "(dunst" in daemon.wait_for_line("notifications:")
    mark = desktop.mark()
    activate(env)  # the tray's left click: Open acp-tray…
    try:
        (shown,) = until(
            lambda: [n for n in desktop.since(mark) if n["summary"].endswith("The acp-tray window did not open")],
            timeout=30,
            what="the notification that the window did not open",
        )
        body = shown["body"]
        assert body.startswith("no web browser opened the window: "), body
        assert "failing-browser ended with exit code 1" in body and REFUSAL in body, body
        assert "acp-tray ui --no-browser" in body and "BROWSER" in body, body
        assert "key=" not in body  # the one-shot address is never in a notification
        daemon.wait_for_stderr("could not open the acp-tray window: no web browser opened the window")
    finally:
        end(window_pid())
    assert daemon.stop() == 0
    assert "key=" not in daemon.stderr_text()  # nor in the log


def test_ui_in_a_terminal_prints_the_address_and_why_the_browser_did_not_open(
    daemons: list[DaemonProcess], tmp_path: Path
) -> None:
    headless_daemon(daemons)
    shown = cli("ui", env=cli_env(BROWSER=failing_browser(tmp_path), DISPLAY=":0"))
    try:
        assert shown.returncode == 1, shown
        assert shown.stdout.strip().startswith("http://127.0.0.1:")  # the address to open, on stdout
        (why,) = shown.stderr.strip().splitlines()
        assert why.startswith("acp-tray: no web browser opened the window: failing-browser ended with exit code 1")
        assert REFUSAL in why and "acp-tray ui --no-browser" in why
    finally:
        end(window_pid())
