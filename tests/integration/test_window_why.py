"""Why an agent does not work, where the person looks, in a real browser against a real daemon and
real agent processes: a crash-looping agent's reason, its last stderr lines and when, on the Agents
page and the overview; Diagnostics lists it and an agent waiting for a sign-in as problems with
their fix (it said "All good" during a crash loop); axe-core finds nothing serious, light and dark."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Literal

import pytest

from acp_tray.files import paths
from tests.support.agents import agent_table, auth_agent_table
from tests.support.axe import violations
from tests.support.browser import PageFor, Screenshot
from tests.support.daemons import DaemonProcess, cli
from tests.support.waiting import until
from tests.support.window import headless_daemon, window_process

GIVE_UP = 40_000  # ms: five crashes with the real backoff (1 + 2 + 4 + 8 s between them)
CRASHING = [sys.executable, "-c", "import sys; print('ANTHROPIC_API_KEY is not set', file=sys.stderr); sys.exit(3)"]


def test_a_crash_loops_reason_is_on_the_agents_page_the_overview_and_diagnostics(
    daemons: list[DaemonProcess], tmp_path: Path, page_for: PageFor, screenshot: Screenshot
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


LIVE = 30_000  # ms: an agent's start (a wait bound: on a busy 2-core machine a restart can take 15 s)
DEMO = '[agents.demo]\ncommand = ["acp-tray", "demo-agent"]\n'


def configured() -> dict[str, Any]:
    return {row["name"]: row for row in json.loads(cli("agents", "list", "--json").stdout)}


def add_agent(page: Any, name: str, command: str) -> None:
    page.get_by_label("Name", exact=True).fill(name)
    page.get_by_label("Command, with its arguments").fill(command)
    page.locator("#custom-agent").get_by_role("button", name="Add agent").click()


def test_the_readmes_own_example_is_added_from_the_form_and_connects(
    daemons: list[DaemonProcess], monkeypatch: pytest.MonkeyPatch, page_for: PageFor
) -> None:
    """The form compared the command typed (`acp-tray demo-agent`) with the one the daemon runs
    (this installation's Python): it waited 5 minutes for a connected agent, then removed it."""
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:{os.environ['PATH']}")  # where acp-tray is
    headless_daemon(daemons)
    with window_process("agents") as window:
        watched = page_for("light")
        page = watched.page
        page.goto(window.url)
        add_agent(page, "example", "acp-tray demo-agent")
        page.get_by_text("example added and connected").wait_for(timeout=LIVE)
        assert configured()["example"]["state"] == "connected"
        assert configured()["example"]["command"] == ["acp-tray", "demo-agent"]
        assert not watched.problems, watched.problems


def test_an_agent_that_does_not_connect_is_kept_stopped_with_its_reason_then_changed_until_it_works(
    daemons: list[DaemonProcess],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    page_for: PageFor,
    screenshot: Screenshot,
) -> None:
    home = tmp_path / "home"
    (home / "bin").mkdir(parents=True)
    agent = home / "bin" / "my-agent"
    agent.write_text(f"#!/bin/sh\nexec {sys.executable} -m acp_tray demo-agent\n", encoding="utf-8")
    agent.chmod(0o755)
    monkeypatch.setenv("HOME", str(home))
    headless_daemon(daemons, DEMO)
    with window_process("agents") as window:
        for scheme in ("light", "dark"):
            watched = page_for(scheme)
            page = watched.page
            page.goto(window.url)
            name = f"kitty-{scheme}"
            add_agent(page, name, "cat")
            kept = page.locator("#custom-agent [role=alert]")
            kept.get_by_text(f"{name} did not connect: 'cat' ran, but it does not speak ACP").wait_for(timeout=LIVE)
            assert "It is kept, stopped" in kept.inner_text()
            assert configured()[name]["state"] in ("failed", "stopped")  # kept, not running, not removed
            row = page.locator(f'#agents [data-agent="{name}"]')
            row.locator("details.problem[open]").wait_for(timeout=LIVE)
            assert "does not speak ACP" in row.locator("details.problem > summary").inner_text()
            assert violations(page) == []
            screenshot(watched, f"agents-kept-{scheme}")

            managed = page.locator(f'[data-manage="{name}"]')
            managed.get_by_text("Change its command…").click()
            assert managed.get_by_label(f"Command of {name}", exact=True).input_value() == "cat"
            managed.get_by_label(f"Command of {name}", exact=True).fill("~/bin/my-agent --quiet")
            managed.get_by_label(f"Working directory of {name}").fill("~")
            managed.get_by_label(f"Environment of {name}").fill("MY_AGENT_MODE=calm")
            assert violations(page) == []
            managed.get_by_role("button", name=f"Save the command of {name}").click()
            page.get_by_text(f"{name} changed; it starts again with its new settings.").wait_for(timeout=LIVE)
            page.locator(f'#agents [data-agent="{name}"][data-state="connected"]').wait_for(timeout=LIVE)
            now = configured()[name]
            assert now["command"] == [str(agent), "--quiet"]  # `~` expanded
            assert now["cwd"] == str(home) and now["env_names"] == ["MY_AGENT_MODE"]
            assert not watched.problems, watched.problems


def test_the_prompt_goes_to_the_agents_last_session_ctrl_enter_sends_and_a_removed_agents_sessions_go(
    daemons: list[DaemonProcess], page_for: PageFor
) -> None:
    headless_daemon(daemons, DEMO, DEMO.replace("[agents.demo]", "[agents.helper]"))
    until(lambda: {("demo", "default"), ("helper", "default")} <= set(listed()), what="the agents' sessions")
    with window_process("sessions") as window:
        for scheme in ("light", "dark"):
            watched = page_for(scheme)
            page = watched.page
            page.goto(window.url)
            session = page.get_by_label("Session", exact=True).locator("option:checked")
            assert session.inner_text().startswith("default — ")  # its session, not "A new session…"
            prompt = page.get_by_label("Prompt", exact=True)
            prompt.fill(f"hello in {scheme}")
            prompt.press("Control+Enter")
            turn = page.locator("section.turn")
            turn.locator(".reply", has_text=f"You said: 'hello in {scheme}'").wait_for(timeout=LIVE)
            turn.locator('.turn-status[data-ended="Done"]').wait_for(timeout=LIVE)
            assert violations(page) == []
            assert not watched.problems, watched.problems
        assert listed()[("demo", "default")]["turns"] == 2  # both went to its session

        page.locator('[data-session="helper/default"]').wait_for()
        assert cli("agents", "remove", "helper").returncode == 0
        page.locator('[data-session="helper/default"]').wait_for(state="detached", timeout=LIVE)
        assert ("helper", "default") not in listed()
        assert '"helper"' not in paths.sessions_file().read_text(encoding="utf-8")  # forgotten, not only hidden


def listed() -> dict[tuple[str, str], dict[str, Any]]:
    return {(row["agent"], row["name"]): row for row in json.loads(cli("sessions", "--json").stdout)}


def in_view(page: Any, selector: str) -> bool:
    """Whether the element is inside the browser window now (not scrolled away)."""
    return bool(
        page.evaluate(
            """(selector) => { const box = document.querySelector(selector).getBoundingClientRect();
            return box.top >= 0 && box.bottom <= window.innerHeight; }""",
            selector,
        )
    )


def test_preferences_say_what_a_save_did_beside_save_and_land_on_the_first_wrong_field_in_the_pages_words(
    daemons: list[DaemonProcess], page_for: PageFor, screenshot: Screenshot
) -> None:
    headless_daemon(daemons, '[dnd.quiet_hours]\nstart = "22:00"\nend = "07:30"\n')
    with window_process("preferences") as window:
        schemes: tuple[tuple[int, Literal["light", "dark"]], ...] = ((8, "light"), (9, "dark"))
        for timeout, scheme in schemes:
            watched = page_for(scheme, viewport={"width": 1000, "height": 700})
            page = watched.page
            page.goto(window.url)
            start = page.get_by_label("From", exact=True)
            assert start.input_value() == "22:00" and start.get_attribute("type") == "text"  # 24-hour, as the hints
            assert page.get_by_label("To", exact=True).input_value() == "07:30"
            assert violations(page) == []

            page.get_by_role("navigation", name="Sections of the preferences").get_by_role(
                "link", name="Advanced"
            ).click()
            assert in_view(page, "#prefs-advanced")  # jumped to
            page.get_by_label("Seconds warning pop-ups stay (0: until you close them)").fill("-5")
            page.get_by_label("At most this many pop-ups from one agent…").fill("0")
            assert in_view(page, "#prefs-save")  # Save stays in view, far below the first sections
            page.get_by_role("button", name="Save").click()
            said = page.locator("#prefs-save .said.problem")
            said.get_by_text("Nothing was saved: 2 values are not right").wait_for(timeout=LIVE)
            assert in_view(page, "#prefs-save")  # the summary where the person is, beside Save
            first = page.get_by_label("Seconds warning pop-ups stay (0: until you close them)")
            assert first.evaluate("field => field === document.activeElement")  # the first wrong field, focused
            assert in_view(page, "#f-severity-warning-timeout")
            error = page.locator("#f-severity-warning-timeout-error").inner_text()
            assert error == "Must be at least 0, not -5."  # the page's words: its label names the setting
            assert violations(page) == []
            screenshot(watched, f"preferences-wrong-{scheme}")

            first.fill(str(timeout))  # a new value each time: "Saved.", not "Nothing to save"
            page.get_by_label("At most this many pop-ups from one agent…").fill("5")
            page.get_by_role("button", name="Save").click()
            page.locator("#prefs-save .said", has_text="Saved.").wait_for(timeout=LIVE)
            assert in_view(page, "#prefs-save")
            assert not watched.problems, watched.problems


def test_an_agent_that_needs_a_key_is_added_with_its_secret_in_the_same_form(
    daemons: list[DaemonProcess],
    tmp_path: Path,
    keyring_env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    page_for: PageFor,
) -> None:
    """Before, it was removed for not connecting before its Secrets part could be reached."""
    value = "sk-form-91b2c3d4e5"
    agent = tmp_path / "keyed-agent"
    agent.write_text(
        f'#!/bin/sh\n[ -n "$KEYED_API_KEY" ] || {{ echo "KEYED_API_KEY is not set" >&2; exit 2; }}\n'
        f"exec {sys.executable} -m acp_tray demo-agent\n",
        encoding="utf-8",
    )
    agent.chmod(0o755)
    for key, setting in keyring_env.items():
        monkeypatch.setenv(key, setting)  # the window stores it, the daemon reads it
    headless_daemon(daemons)
    with window_process("agents") as window:
        watched = page_for("dark")
        page = watched.page
        page.goto(window.url)
        page.get_by_label("Name", exact=True).fill("keyed")
        page.get_by_label("Command, with its arguments").fill(str(agent))
        page.get_by_label("Its name").fill("KEYED_API_KEY")
        page.get_by_label("Its value").fill(value)
        assert violations(page) == []
        page.locator("#custom-agent").get_by_role("button", name="Add agent").click()
        page.get_by_text("keyed added and connected").wait_for(timeout=LIVE)
        assert configured()["keyed"]["state"] == "connected"
        page.locator('[data-manage="keyed"] .secret-names', has_text="KEYED_API_KEY").wait_for(timeout=LIVE)
        assert value not in page.content()
        for file in (paths.config_file(), paths.secret_names_file()):
            assert value not in file.read_text(encoding="utf-8"), file
        assert not watched.problems, watched.problems
