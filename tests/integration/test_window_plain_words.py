"""The window in plain words, in a real browser against a real daemon and real agent subprocesses:
what a page shows has no protocol version, session id, agent error code or command to type; each
is behind the page's one "Details" disclosure, which shows it when opened. axe-core finds nothing
serious or critical in the pages with their details open."""

from __future__ import annotations

import re

from tests.support.agents import session_agent_table
from tests.support.axe import violations
from tests.support.browser import PageFor
from tests.support.daemons import DaemonProcess
from tests.support.waiting import until
from tests.support.window import headless_daemon, window_process

SHOWS = 10_000  # ms
REFUSAL = "no model is configured"
JARGON = re.compile(r"ACP [12]\b|code -\d|acp-tray [a-z]+ [a-z]+|`")


def test_the_overview_says_agents_in_plain_words_and_keeps_the_technical_part_behind_details(
    daemons: list[DaemonProcess], page_for: PageFor
) -> None:
    headless_daemon(
        daemons,
        session_agent_table("ready"),
        session_agent_table("picky", env={"SESSION_AGENT_REFUSE": REFUSAL}),
    )
    with window_process("overview") as window:
        watched = page_for("light")
        page = watched.page
        page.goto(window.url)
        ready = page.locator('[data-agent="ready"][data-state="connected"]')
        ready.wait_for(timeout=SHOWS)
        picky = page.locator('[data-agent="picky"][data-state="refused"]')
        picky.wait_for(timeout=SHOWS)
        picky.get_by_text(f"it refused to start a session: {REFUSAL}").wait_for()

        shown = page.locator("main").inner_text()  # what is rendered: a closed disclosure's inside is not
        assert not JARGON.search(shown), JARGON.search(shown)
        assert page.get_by_role("heading", name="Needs you").is_visible()  # approvals and questions alike

        ready.get_by_text("Details", exact=True).click()
        ready.get_by_text("Protocol: ACP 1").wait_for()
        session_id = ready.get_by_text(re.compile(r"^Session id: \S+$"))
        assert session_id.is_visible()
        assert session_id.inner_text().removeprefix("Session id: ") not in shown  # only behind Details
        picky.get_by_text("Details", exact=True).click()
        picky.get_by_text("Error code: -32603").wait_for()

        assert violations(page) == []
        assert not watched.problems, watched.problems


def test_the_start_on_login_switch_says_what_it_did_in_plain_words(
    daemons: list[DaemonProcess], page_for: PageFor
) -> None:
    headless_daemon(daemons)
    with window_process("preferences") as window:
        page = page_for("dark").page
        page.goto(window.url)
        part = page.locator("#start-on-login")
        part.get_by_text("acp-tray does not start on its own").wait_for(timeout=SHOWS)
        page.get_by_role("switch", name="Start acp-tray when I log in").click()
        part.get_by_text("Done: acp-tray starts when you log in.").wait_for(timeout=SHOWS)

        def plain() -> bool:
            shown = part.inner_text()
            return "written:" not in shown and ".desktop" not in shown and "systemd" not in shown

        assert until(plain), part.inner_text()
        for summary in part.locator("summary").all():
            summary.click()
        part.get_by_text(re.compile(r"autostart entry written: .*acp-tray\.desktop")).wait_for()
        assert violations(page, "#start-on-login") == []
        page.get_by_role("switch", name="Start acp-tray when I log in").click()
        part.get_by_text("Done: acp-tray no longer starts when you log in.").wait_for(timeout=SHOWS)
