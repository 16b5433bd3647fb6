"""What each agent is doing, in the window (Debian's chromium through Playwright, against a real
daemon and the SDK 2.4.0 usage agent, tests/interop/usage_agent.mjs): an open overview follows a
turn live, without a reload: the session's title, "compacting the conversation…" while the agent
compacts, then its context window, the turn's and the session's cost, today's total, and the
agent's rate limit beside its cost today; the Sessions page shows the same. Light, dark, and a
phone's width (nothing wider than the screen)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from tests.support.agents import agent_table
from tests.support.browser import PageFor, Screenshot
from tests.support.config import write_config
from tests.support.daemons import DaemonProcess, cli_env, start
from tests.support.repo import ROOT
from tests.support.window import window_process

USAGE_AGENT = ROOT / "tests" / "interop" / "usage_agent.mjs"
LIVE = 10_000  # ms: what the agent said shows in the open page without a reload


def text_of(page: Any, selector: str) -> str:
    found = page.locator(selector).first
    found.wait_for(timeout=LIVE)
    return str(found.inner_text())


def fits(page: Any) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def test_the_overview_and_sessions_follow_usage_live(
    node: str, daemons: list[DaemonProcess], tmp_path: Path, page_for: PageFor, screenshot: Screenshot
) -> None:
    go = tmp_path / "go"
    write_config(agent_table("meter", [node, str(USAGE_AGENT), "--version=2"], {"USAGE_AGENT_GO": str(go)}))
    start(daemons, "meter")
    with window_process("overview") as window:
        pages = {scheme: page_for(scheme) for scheme in ("light", "dark")}
        pages["narrow"] = page_for("light", viewport={"width": 390, "height": 900})
        for shown in pages.values():
            shown.page.goto(window.url)
            shown.page.locator('[data-agent="meter"][data-state="connected"]').wait_for(timeout=LIVE)
        prompt = subprocess.Popen(
            [sys.executable, "-m", "acp_tray", "prompt", "meter", "say", "hello"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=cli_env(), cwd=ROOT,
        )  # fmt: skip
        try:
            for shown in pages.values():
                session = '[data-session="meter/default"]'
                assert text_of(shown.page, f"{session} [data-title]") == "say hello"
                assert text_of(shown.page, f"{session} [data-compacting]") == "compacting the conversation…"
            go.touch()
            assert prompt.wait(30) == 0
        finally:
            if prompt.poll() is None:
                prompt.kill()
        for name, shown in pages.items():
            page = shown.page
            page.locator('[data-session="meter/default"] [data-usage]:has-text("2,048")').wait_for(timeout=LIVE)
            usage = text_of(page, '[data-session="meter/default"] [data-usage]')
            assert "context 2,048 of 1,000,000 tokens (0 %)" in usage and "turn 0.027 USD" in usage, usage
            assert page.locator('[data-session="meter/default"] [data-compacting]').count() == 0
            assert text_of(page, "[data-today]") == "Today: 0.027 USD"
            agent = text_of(page, '[data-agent="meter"] [data-usage]')
            said = r"today 0\.027 USD · 90 % of the five-hour limit used; resets (at|[A-Z][a-z]{2}) \d\d:\d\d"
            assert re.fullmatch(said, agent), agent  # "at 14:20" today, "Sat 00:13" when an hour from now is tomorrow
            assert fits(page), f"{name}: wider than the screen"
            assert not shown.problems, shown.problems
            screenshot(shown, f"overview-usage-{name}")
        sessions = pages["light"].page
        sessions.goto(urljoin(sessions.url, "/sessions"))  # the window's own session: no new key
        assert text_of(sessions, '[data-session="meter/default"] [data-title]') == "say hello"
        assert "turn 0.027 USD" in text_of(sessions, '[data-session="meter/default"] [data-usage]')
        screenshot(pages["light"], "sessions-usage-light")
