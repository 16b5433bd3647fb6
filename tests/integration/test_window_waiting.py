"""The window shows, live, which agent waits for the person: in a real browser (light, dark, and
390 px wide) against a real daemon hosting the real demo agent, a turn waiting on its approval
makes the demo agent "Waits for you" on the overview and its session "waits for you" with Cancel at
hand; answered from the command line, both go back without a reload."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import PageFor, Screenshot
from tests.support.daemons import DaemonProcess, cli, cli_started
from tests.support.waiting import until
from tests.support.window import DEMO, PHONE, headless_daemon, sideways, window_process

SHOWS = 15_000  # ms: an agent's answer through the daemon on a busy machine
LOOKS = [
    pytest.param("light", None, id="light"),
    pytest.param("dark", None, id="dark"),
    pytest.param("light", PHONE, id="390px"),
]


@pytest.mark.parametrize(("scheme", "viewport"), LOOKS)
def test_the_overview_says_live_who_waits_for_you(
    scheme: Any, viewport: dict[str, int] | None, tmp_path: Path, daemons: list[DaemonProcess], page_for: PageFor,
    screenshot: Screenshot,
) -> None:  # fmt: skip
    headless_daemon(daemons, DEMO)
    with window_process("overview") as window:
        watched = page_for(scheme, **({"viewport": viewport} if viewport else {}))
        page = watched.page
        page.goto(window.url)
        prompt = cli_started("prompt", "demo", "delete the build folder")
        try:
            (request,) = until(lambda: json.loads(cli("approvals", "--json").stdout), what="the demo's approval")
            agent = page.locator('[data-agent="demo"]')
            agent.locator(".state", has_text="Waits for you").wait_for(timeout=SHOWS)
            row = page.locator('[data-session="demo/default"]')
            row.locator('.doing[data-needs-you="yes"]', has_text="waits for you").wait_for(timeout=SHOWS)
            assert row.get_by_role("button", name="Cancel demo's turn in session default").is_visible()
            if viewport:
                assert not sideways(page), sideways(page)
            screenshot(watched, f"waiting-{scheme}{'-phone' if viewport else ''}")

            assert cli("approve", request["id"]).returncode == 0
            prompt.communicate(timeout=30)
            row.locator(".doing").wait_for(state="detached", timeout=SHOWS)
            agent.locator(".state", has_text="Waits for you").wait_for(state="detached", timeout=SHOWS)
            assert not watched.problems, watched.problems
        finally:
            if prompt.poll() is None:
                prompt.kill()
