"""The window when acp-tray stops and comes back, in a real browser (Debian's chromium through
Playwright) against the real `acp-tray ui` and a real daemon with a real agent: the open page says
at once that acp-tray is not running and disables its buttons, and is live again when it runs again
(the window's server outlives the daemon while a page is open, so the page's session holds); a page
of a window whose server was restarted says in words how to open the window again, never a
plain-text 403."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from tests.support.agents import session_agent_table
from tests.support.axe import serious_violations
from tests.support.browser import PageFor
from tests.support.config import write_config
from tests.support.daemons import DaemonProcess, agent_state, alive, cli, start
from tests.support.waiting import until
from tests.support.window import end, open_window, window_process

NOT_RUNNING = "acp-tray is not running. Start it from your app menu or the tray, or run acp-tray in a terminal"
CLOSED = "This acp-tray window has closed. Open it again from the tray's menu (Open acp-tray…) or the app menu"
SOON = 10_000  # ms


def test_the_page_says_acp_tray_is_not_running_and_is_live_again_when_it_runs(
    tmp_path: Path, daemons: list[DaemonProcess], page_for: PageFor
) -> None:
    write_config(session_agent_table("sa", tmp_path / "sa.log"))
    daemon = start(daemons, "sa")
    with window_process() as window:
        watched = page_for("light")
        page = watched.page
        page.goto(window.url)
        page.wait_for_selector('[data-agent="sa"][data-state="connected"]', timeout=SOON)
        banner = page.get_by_role("alert")
        stop = page.get_by_role("button", name="Stop sa")
        assert stop.is_enabled()

        daemon.stop()
        banner.filter(has_text=NOT_RUNNING).wait_for(timeout=SOON)  # at once, without a click
        assert alive(window.pid)  # the window's server stays for the open page
        buttons = page.locator("button")
        assert buttons.count() > 0
        until(lambda: all(b.is_disabled() for b in buttons.all()), what="every button disabled")
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            assert not serious_violations(page), scheme

        start(daemons, "sa")
        page.get_by_text("acp-tray is not running").wait_for(state="detached", timeout=SOON)
        page.wait_for_selector('[data-agent="sa"][data-state="connected"]', timeout=SOON)
        assert stop.is_enabled()
        stop.click()  # the page is live again: its session held
        page.wait_for_selector('[data-agent="sa"][data-state="stopped"]', timeout=SOON)
        assert agent_state("sa") == "stopped"
        assert open_window().pid == window.pid  # `acp-tray ui` opens the same window again
        assert not watched.problems, watched.problems


def test_a_page_of_a_restarted_window_says_how_to_open_it_again(
    tmp_path: Path, daemons: list[DaemonProcess], page_for: PageFor
) -> None:
    write_config(session_agent_table("sa", tmp_path / "sa.log"))
    start(daemons, "sa")
    first = open_window()
    pids = [first.pid]
    try:
        watched = page_for("dark")
        page = watched.page
        page.goto(first.url)
        page.wait_for_selector('[data-agent="sa"][data-state="connected"]', timeout=SOON)
        end(first.pid)  # the window's server ended (acp-tray restarted, or the window ended on its own)
        page.get_by_role("alert").filter(has_text=CLOSED).wait_for(timeout=SOON)
        until(lambda: page.get_by_role("button", name="Stop sa").is_disabled(), what="its buttons disabled")

        again = cli("ui", "--no-browser", "--port", str(first.port))  # a new window at the same address
        assert again.returncode == 0, again.stderr
        second = open_window()
        pids.append(second.pid)
        assert (second.port, second.pid) == (first.port, second.pid) and second.pid != first.pid

        # an htmx request of the old page: the new window does not know it, and the page says so
        page.evaluate("() => document.getElementById('down').replaceChildren()")
        page.evaluate("() => htmx.ajax('POST', '/read', {target: '#toast'})")
        page.get_by_role("alert").filter(has_text=CLOSED).wait_for(timeout=SOON)

        answer = page.reload()  # the old page reloaded: words, in the window's look
        assert answer is not None and answer.status == 403
        assert answer.headers["content-type"].startswith("text/html")
        page.get_by_role("heading", name="Open the acp-tray window again").wait_for()
        shown = page.locator("main").inner_text()
        assert "Open acp-tray…" in shown and "acp-tray ui" in shown and "sa" not in shown.split()
        assert page.evaluate("() => getComputedStyle(document.body).backgroundColor") == "rgb(20, 23, 28)"  # dark
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            assert not serious_violations(page), scheme
        assert not watched.csp_violations, watched.csp_violations
        page.goto(second.url)  # the way back: the window's own link
        page.wait_for_selector('[data-agent="sa"][data-state="connected"]', timeout=SOON)
        assert urlsplit(page.url).path == "/overview"
    finally:
        for pid in pids:
            end(pid)
