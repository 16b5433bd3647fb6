"""Why an agent does not work, where the person looks, in a real browser against a real daemon and
real agent processes: a crash-looping agent's reason, its last stderr lines and when, on the Agents
page and the overview; Diagnostics lists it and an agent waiting for a sign-in as problems with
their fix (it said "All good" during a crash loop); axe-core finds nothing serious, light and dark."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.support.agents import agent_table, auth_agent_table
from tests.support.axe import violations
from tests.support.browser import PageFor, Screenshot
from tests.support.daemons import Daemon
from tests.support.window import headless_daemon, window_process

GIVE_UP = 40_000  # ms: five crashes with the real backoff (1 + 2 + 4 + 8 s between them)
CRASHING = [sys.executable, "-c", "import sys; print('ANTHROPIC_API_KEY is not set', file=sys.stderr); sys.exit(3)"]


def test_a_crash_loops_reason_is_on_the_agents_page_the_overview_and_diagnostics(
    daemons: list[Daemon], tmp_path: Path, page_for: PageFor, screenshot: Screenshot
) -> None:
    headless_daemon(daemons, agent_table("broken", CRASHING), auth_agent_table("locked", tmp_path / "locked"))
    with window_process("agents") as window:
        base = window.url.split("/open", 1)[0]
        for scheme in ("light", "dark"):
            watched = page_for(scheme)
            page = watched.page
            page.goto(window.url)
            agent = page.locator('#agents [data-agent="broken"][data-state="failed"]')
            agent.get_by_text("stopped after 5 crashes in a row").first.wait_for(timeout=GIVE_UP)
            why = agent.locator("details.problem")
            assert why.get_attribute("open") is not None  # why it is stopped: shown without a click
            summary = why.locator("summary").inner_text()
            assert summary.startswith("Why, ") and "stopped after 5 crashes in a row" in summary, summary
            assert "exit code 3" in summary
            assert why.locator("pre.stderr").inner_text().strip() == "ANTHROPIC_API_KEY is not set"
            assert why.locator("time").get_attribute("datetime")
            assert violations(page) == []
            screenshot(watched, f"agents-why-{scheme}")

            page.goto(f"{base}/overview")
            shown = page.locator('#agents [data-agent="broken"] details.problem pre.stderr')
            assert shown.inner_text().strip() == "ANTHROPIC_API_KEY is not set"
            assert violations(page) == []

            page.goto(f"{base}/diagnostics")
            verdict = page.locator(".verdict")
            assert verdict.inner_text() != "All good: nothing here needs fixing."
            broken = page.locator('[data-check="agent broken"]')
            assert broken.get_attribute("data-status") == "problem"
            assert "broken is stopped: stopped after 5 crashes in a row" in broken.inner_text()
            assert "it last wrote: ANTHROPIC_API_KEY is not set" in broken.inner_text()
            assert "Fix: Read why on the Agents page" in broken.inner_text()
            locked = page.locator('[data-check="agent locked"]')
            assert locked.get_attribute("data-status") == "problem"
            assert "locked waits for you to sign in." in locked.inner_text()
            assert "Fix: Sign in from its entry on the Agents page." in locked.inner_text()
            assert violations(page) == []
            assert not watched.problems, watched.problems
