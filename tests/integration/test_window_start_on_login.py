"""The preferences page's "Start on login" switch, in a real browser: it writes the XDG autostart
entry `acp-tray autostart enable` writes (valid for desktop-file-validate, starting this
installation), shows what is installed, and switched off removes it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from acp_tray.autostart.entries import DESKTOP_STAMP, desktop_entry
from acp_tray.desktop.entry import this_installation
from tests.support.browser import PageFor
from tests.support.daemons import DaemonProcess
from tests.support.window import PHONE, headless_daemon, sideways, window_process

LIVE = 10_000


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the XDG autostart entry")
def test_the_start_on_login_switch_writes_and_removes_the_xdg_entry(
    daemons: list[DaemonProcess], page_for: PageFor
) -> None:
    entry = Path(os.environ["XDG_CONFIG_HOME"]) / "autostart" / "acp-tray.desktop"
    headless_daemon(daemons)
    with window_process("preferences") as window:
        watched = page_for("light")
        page = watched.page
        page.goto(window.url)
        switch = page.get_by_role("switch", name="Start acp-tray when I log in")
        assert switch.get_attribute("aria-checked") == "false" and not entry.exists()
        part = page.locator("#start-on-login")
        part.get_by_text("Details").click()  # what is installed: behind the part's Details
        page.get_by_text(f"{entry}: not installed").wait_for()

        switch.click()
        part.get_by_text("Done: acp-tray starts when you log in.").wait_for(timeout=LIVE)
        for summary in part.locator("summary").all():
            summary.click()
        part.get_by_text(f"XDG autostart entry written: {entry}").wait_for()
        assert page.get_by_role("switch", name="Start acp-tray when I log in").get_attribute("aria-checked") == "true"
        page.get_by_text(f"{entry}: installed — starts this installation").wait_for()
        assert entry.read_text(encoding="utf-8") == DESKTOP_STAMP.on(desktop_entry(this_installation()))
        validator = shutil.which("desktop-file-validate")
        if validator is None:
            pytest.fail("desktop-file-validate is missing (desktop-file-utils; make test installs it)")
        checked = subprocess.run([validator, str(entry)], capture_output=True, text=True)
        assert checked.returncode == 0 and not checked.stdout.strip(), checked.stdout

        page.get_by_role("switch", name="Start acp-tray when I log in").click()
        part.get_by_text("Done: acp-tray no longer starts when you log in.").wait_for(timeout=LIVE)
        part.locator("summary").last.click()
        part.get_by_text(f"removed {entry}").wait_for()
        assert page.get_by_role("switch", name="Start acp-tray when I log in").get_attribute("aria-checked") == "false"
        assert not entry.exists()
        assert not watched.problems, watched.problems


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the XDG autostart entry")
def test_an_entry_acp_tray_did_not_write_is_left_alone_and_said_so(
    daemons: list[DaemonProcess], page_for: PageFor
) -> None:
    entry = Path(os.environ["XDG_CONFIG_HOME"]) / "autostart" / "acp-tray.desktop"
    entry.parent.mkdir(parents=True, exist_ok=True)
    entry.write_text("[Desktop Entry]\nType=Application\nName=mine\nExec=my-own-wrapper\n", encoding="utf-8")
    headless_daemon(daemons)
    with window_process("preferences") as window:
        page = page_for("dark", viewport=PHONE).page
        page.goto(window.url)
        assert not sideways(page), sideways(page)  # the whole preferences page, at a phone's width
        page.locator("#start-on-login").get_by_text("Details").click()
        page.get_by_text(f"{entry}: edited since acp-tray wrote it, or not written by acp-tray (left alone)").wait_for()
        page.get_by_role("switch", name="Start acp-tray when I log in").click()
        page.get_by_role("alert").get_by_text("(left alone); remove it, or edit it yourself").wait_for(timeout=LIVE)
        assert "my-own-wrapper" in entry.read_text(encoding="utf-8")
