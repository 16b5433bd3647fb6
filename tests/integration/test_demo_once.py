"""The bundled demo agent introduces itself once: its notices pop up (real dunst on the test desktop's
private bus) at the first start of acp-tray, not at the next, unless asked for; and once the person
has an agent of their own, the CLI says how to remove the demo and the window's agents page offers a
button that does (chromium through Playwright)."""

from __future__ import annotations

import json
import stat
import sys
from collections import Counter
from typing import Any

from acp_tray.demo.agent import DEMO_NOTICES
from acp_tray.files import paths
from tests.support.browser import PageFor
from tests.support.config import write_config
from tests.support.daemons import DaemonProcess, cli, cli_env, start
from tests.support.waiting import until
from tests.support.window import DEMO, window_process

INTRODUCTION = {f"demo: {notice['title']}" for notice in DEMO_NOTICES}  # as dunst shows each summary
LIVE = 10_000  # ms: an agent's start


def demo_popups(shown: list[dict[str, Any]]) -> Counter[str]:
    return Counter(item["summary"] for item in shown if item["summary"] in INTRODUCTION)


def test_the_demo_pops_up_at_the_first_start_only_and_again_when_asked(
    desktop: Any, daemons: list[DaemonProcess]
) -> None:
    write_config(DEMO, notifier="freedesktop")
    env = cli_env(**desktop.env, ACP_TRAY_DEMO_INTERVAL="0.05", PYSTRAY_BACKEND="xorg")  # a tray: popups
    mark = desktop.mark()
    first = DaemonProcess("run", env=env)
    daemons.append(first)
    first.wait_for_line("demo  connected")
    until(lambda: set(demo_popups(desktop.since(mark))) == INTRODUCTION, what="the demo's introduction in dunst")
    assert first.stop() == 0
    introduced = paths.demo_introduced_file("demo")
    assert stat.S_IMODE(introduced.stat().st_mode) == 0o600 and "Delete this file" in introduced.read_text()

    mark = desktop.mark()
    second = DaemonProcess("run", env=env)
    daemons.append(second)
    second.wait_for_line("demo  connected")
    # asked for, the notices come again; had the second start introduced the demo too, each would be
    # there twice (that series starts with the session, before this prompt is even sent)
    asked = cli("prompt", "demo", "show me your notices", env=env)
    assert asked.returncode == 0 and "Here are my notices again." in asked.stdout, asked.stdout + asked.stderr
    until(lambda: set(demo_popups(desktop.since(mark))) == INTRODUCTION, what="the notices asked for")
    assert demo_popups(desktop.since(mark)) == Counter(dict.fromkeys(INTRODUCTION, 1))
    assert second.stop() == 0


def test_adding_an_agent_offers_to_remove_the_demo_and_the_window_does(
    daemons: list[DaemonProcess], page_for: PageFor
) -> None:
    write_config(DEMO)
    start(daemons, "demo")
    with window_process("agents") as window:
        page = page_for("light").page
        page.goto(window.url)
        page.locator('[data-manage="demo"]').wait_for()
        assert page.get_by_role("button", name="Remove the demo agent").count() == 0  # the demo alone stays

        added = cli("agents", "add", "mine", "--", sys.executable, "-m", "acp_tray", "demo-agent")
        assert added.returncode == 0, added.stderr
        assert "the demo agent is still configured: remove it with `acp-tray agents remove demo`" in added.stdout

        button = page.get_by_role("button", name="Remove the demo agent")
        button.wait_for(timeout=LIVE)
        button.click()
        page.get_by_text("demo removed.").wait_for(timeout=LIVE)
        assert [row["name"] for row in json.loads(cli("agents", "list", "--json").stdout)] == ["mine"]
        assert page.get_by_role("button", name="Remove the demo agent").count() == 0

    again = cli("agents", "add", "yours", "--", sys.executable, "-m", "acp_tray", "demo-agent")
    assert again.returncode == 0 and "remove it with" not in again.stdout  # no demo: nothing to offer
