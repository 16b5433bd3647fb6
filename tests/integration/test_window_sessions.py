"""The window's sessions page in a real browser against a real daemon hosting the real demo agent: a
prompt sent from the page streams its reply (its first words while the turn still waits), the
approval the turn waits on is answered inline and the agent gets that option, a new session with
its working directory shows in the list, Cancel ends a running turn, and a wrong field is said
plainly; the session choices are the chosen agent's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.browser import PageFor, Screenshot
from tests.support.daemons import DaemonProcess, cli
from tests.support.waiting import until
from tests.support.window import DEMO, PHONE, headless_daemon, shows_page, sideways, window_process

SHOWS = 15_000  # ms: an agent's answer through the daemon on a busy machine


def sessions(env: dict[str, str] | None = None) -> dict[tuple[str, str], dict[str, Any]]:
    rows = json.loads(cli("sessions", "--json", env=env).stdout)
    return {(row["agent"], row["name"]): row for row in rows}


def send(page: Any, text: str, *, name: str = "", cwd: str = "") -> None:
    """The prompt box filled in for a new session of the demo agent, and sent."""
    assert page.get_by_label("Agent", exact=True).input_value() == "demo"  # the first agent, chosen already
    page.get_by_label("Session", exact=True).select_option(label="A new session…")
    page.get_by_label("Its name").fill(name)
    page.get_by_label("Its working directory").fill(cwd)
    page.get_by_label("Prompt", exact=True).fill(text)
    page.get_by_role("button", name="Send").click()


def test_a_prompt_streams_its_reply_and_the_approval_it_waits_on_is_answered_inline(
    tmp_path: Path, daemons: list[DaemonProcess], page_for: PageFor, screenshot: Screenshot
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    headless_daemon(daemons, DEMO)
    with window_process("sessions") as window:
        watched = page_for("light")
        page = watched.page
        page.goto(window.url)
        shows_page(page, window, "Sessions")

        send(page, "delete the build folder", name="build", cwd=str(project))
        turn = page.locator("section.turn")
        # the reply's first words are in the page while the turn still waits for the person
        turn.locator(".reply", has_text="Hello from the acp-tray demo agent.").wait_for(timeout=SHOWS)
        allow = turn.get_by_role("button", name="✔ Allow once")
        allow.wait_for(timeout=SHOWS)
        assert turn.locator(".turn-status").inner_text().strip() == "Working…"
        assert turn.get_by_role("button", name="Cancel").is_visible()
        assert "You allowed it" not in turn.locator(".reply").inner_text()
        row = page.locator('[data-session="demo/build"]')
        row.wait_for(timeout=SHOWS)  # the new session is in the list, live
        assert str(project) not in row.inner_text() and row.get_attribute("data-state") == "running"
        row.locator("summary").click()  # its folder: behind its Details
        assert f"Folder: {project}" in row.inner_text()
        screenshot(watched, "sessions-light")

        allow.click()
        turn.locator(".reply", has_text="You allowed it: (pretend) deleted build/.").wait_for(timeout=SHOWS)
        turn.locator('.turn-status[data-ended="Done"]').wait_for(timeout=SHOWS)
        assert turn.get_by_role("button", name="Cancel").count() == 0
        assert turn.locator(".turn-approvals .approval").count() == 0
        assert turn.locator(".reply").inner_text().count("Hello from the acp-tray demo agent.") == 1  # once
        page.locator('[data-session="demo/build"][data-state="idle"]').wait_for(timeout=SHOWS)
        build = sessions()[("demo", "build")]
        assert build["cwd"] == str(project) and build["state"] == "idle" and build["turns"] == 1

        row.get_by_role("link", name="Send a prompt to demo's session build").click()  # to that session again
        page.wait_for_url("**/sessions?agent=demo&session=build**")
        assert "build" in page.get_by_label("Session", exact=True).locator("option:checked").inner_text()
        page.get_by_label("Prompt", exact=True).fill("and <b>now</b>?")
        page.get_by_role("button", name="Send").click()
        turn.locator(".reply", has_text="You said: 'and <b>now</b>?'").wait_for(timeout=SHOWS)  # text, not markup
        assert turn.locator(".reply b").count() == 0
        turn.locator('.turn-status[data-ended="Done"]').wait_for(timeout=SHOWS)
        assert sessions()[("demo", "build")]["turns"] == 2  # the same session, not a new one
        assert not watched.problems, watched.problems


def test_cancel_ends_a_running_turn_and_a_wrong_field_is_said_plainly(
    tmp_path: Path, daemons: list[DaemonProcess], page_for: PageFor, screenshot: Screenshot
) -> None:
    headless_daemon(daemons, DEMO, DEMO.replace("[agents.demo]", "[agents.other]"))
    with window_process("sessions") as window:
        watched = page_for("dark", viewport=PHONE)
        page = watched.page
        page.goto(window.url)
        assert not sideways(page), sideways(page)

        send(page, "hello", name="")
        page.locator("#turn", has_text="Give the new session a name").wait_for(timeout=SHOWS)
        send(page, "hello", name="x", cwd=str(tmp_path / "nowhere"))
        page.locator("#turn", has_text=f"There is no folder '{tmp_path / 'nowhere'}'").wait_for(timeout=SHOWS)
        assert ("demo", "x") not in sessions()  # nothing was sent

        send(page, "delete the build folder", name="long")
        turn = page.locator("section.turn")
        turn.get_by_role("button", name="✔ Allow once").wait_for(timeout=SHOWS)
        until(lambda: sessions().get(("demo", "long"), {}).get("state") == "running", what="the running turn")
        screenshot(watched, "sessions-dark")
        turn.get_by_role("button", name="Cancel").click()
        turn.locator('.turn-status[data-ended="Cancelled"]').wait_for(timeout=SHOWS)
        assert turn.locator(".turn-approvals .approval").count() == 0  # the cancel answered it
        until(lambda: sessions()[("demo", "long")]["state"] == "idle", what="the session to be idle")
        page.locator('[data-session="demo/long"][data-state="idle"]').wait_for(timeout=SHOWS)
        assert "1 waiting" not in cli("approvals").stdout

        choice = page.get_by_label("Session", exact=True)
        page.get_by_label("Agent", exact=True).select_option("demo")  # the choices again, with the new session
        choice.locator("option", has_text="long — ").wait_for(state="attached", timeout=SHOWS)
        page.get_by_label("Agent", exact=True).select_option("other")  # its own sessions to choose from
        until(lambda: not any("long" in o for o in choice.locator("option").all_inner_texts()), what="other's")
        assert choice.locator("option:checked").inner_text().startswith("default — ")  # its last session
        assert not watched.problems, watched.problems
