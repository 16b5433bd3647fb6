"""Questions in the acp-tray window, in a real browser (Debian's chromium through Playwright) against
a real daemon hosting the TypeScript SDK's question agent: the overview draws the form from the
agent's schema (labels, hints, required fields, defaults, bounds) and shows it live; the daemon
checks the values before anything is sent (a wrong one is said in plain words, the question keeps
waiting); the form is filled and sent with the keyboard only and the agent gets typed values;
Decline declines; a page question shows its host, and its address only when asked for. The form has
no serious or critical accessibility problem (axe-core) in light, dark and a 390 px wide window,
where it fits without scrolling sideways."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.agents import agent_table
from tests.support.axe import serious_violations, with_axe
from tests.support.browser import PageFor
from tests.support.daemons import DaemonProcess, cli, cli_started
from tests.support.repo import ROOT
from tests.support.waiting import until
from tests.support.window import headless_daemon, window_process

AGENT = ROOT / "tests" / "interop" / "question_agent.mjs"
SHOWS = 15_000  # ms: an agent's question through the daemon on a busy machine


def asker(node: str, log: Path) -> str:
    return agent_table("asker", [node, str(AGENT)], {"QUESTION_AGENT_LOG": str(log)})


def waiting() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(cli("questions", "--json").stdout)
    return rows


def test_a_form_is_drawn_from_the_schema_checked_and_sent_with_the_keyboard(
    node: str, tmp_path: Path, daemons: list[DaemonProcess], page_for: PageFor
) -> None:
    headless_daemon(daemons, asker(node, tmp_path / "asker.log"))
    until(lambda: '"connected"' in cli("agents", "list", "--json").stdout, what="the agent to connect")
    with window_process() as window:
        watched = page_for("light")
        page = watched.page
        page.goto(window.url)
        prompt = cli_started("prompt", "asker", "form")
        question = page.locator("article.question")
        question.wait_for(timeout=SHOWS)  # live, without reload
        assert "asker asks: How should the button look?" in question.inner_text()
        colour = page.get_by_label("Colour")
        assert colour.get_attribute("required") is not None
        hint = page.locator("#" + (colour.get_attribute("aria-describedby") or "none"))
        assert hint.inner_text().startswith("The button's colour · one of: red (Red), blue (Blue)")
        size = page.get_by_label("Size")
        assert (size.input_value(), size.get_attribute("min"), size.get_attribute("max")) == ("3", "1", "10")
        assert not page.get_by_label("Rounded corners").is_checked()  # its default: no

        # the browser's own checks off: the daemon checks the values itself, says what is wrong, sends nothing
        page.evaluate("() => document.querySelectorAll('form.question-form').forEach(f => f.noValidate = true)")
        colour.focus()
        page.keyboard.type("R")  # a select chosen by typing
        assert colour.input_value() == "red"
        page.get_by_label("Name").focus()
        page.keyboard.type("Z")  # under minLength 2
        page.get_by_role("button", name="Send the answer").focus()
        page.keyboard.press("Enter")
        page.locator("#toast", has_text="Name: at least 2 characters, please (got 1)").wait_for(timeout=SHOWS)
        assert [q["id"] for q in waiting()] == ["q1"]  # still waiting: nothing went to the agent

        page.get_by_label("Name").fill("")
        page.get_by_label("Name").focus()
        page.keyboard.type("Zanzibar-7")
        page.get_by_label("Rounded corners").focus()
        page.keyboard.press("Space")
        page.get_by_label("Primary").focus()
        page.keyboard.press("Space")
        page.get_by_role("button", name="Send the answer").focus()
        page.keyboard.press("Enter")
        out, _ = prompt.communicate(timeout=30)
        content = {"colour": "red", "name": "Zanzibar-7", "size": 3, "rounded": True, "tags": ["primary"]}
        assert out == f"answer: accept {json.dumps(content, separators=(',', ':'))}\n"
        page.get_by_text("No agent is waiting for you.").wait_for(timeout=SHOWS)

        prompt = cli_started("prompt", "asker", "pick")
        page.get_by_role("button", name="Decline").wait_for(timeout=SHOWS)
        page.get_by_role("button", name="Decline").click()
        assert prompt.communicate(timeout=30)[0] == "answer: decline\n"
        assert not watched.problems, watched.problems


def test_a_page_question_shows_its_host_and_its_address_only_when_asked(
    node: str, tmp_path: Path, daemons: list[DaemonProcess], page_for: PageFor
) -> None:
    headless_daemon(daemons, asker(node, tmp_path / "asker.log"))
    until(lambda: '"connected"' in cli("agents", "list", "--json").stdout, what="the agent to connect")
    with window_process() as window:
        watched = page_for("dark")
        page = watched.page
        page.goto(window.url)
        prompt = cli_started("prompt", "asker", "url")
        question = page.locator("article.question")
        question.wait_for(timeout=SHOWS)
        assert "asker asks you to open a page on auth.example.com" in question.inner_text()
        assert "SECRET-DEVICE-CODE" not in page.content()
        page.get_by_role("button", name="Show the address").click()
        question.locator("code", has_text="https://auth.example.com/device?code=SECRET-DEVICE-CODE").wait_for(
            timeout=SHOWS
        )
        page.get_by_role("button", name="Decline").click()
        assert prompt.communicate(timeout=30)[0] == "answer: decline\n"
        assert not watched.problems, watched.problems


VIEWS: dict[str, dict[str, Any]] = {  # the form as seen: light, dark, and a phone's width (dark, to differ)
    "light": {"color_scheme": "light"},
    "dark": {"color_scheme": "dark"},
    "390 px": {"color_scheme": "dark", "viewport": {"width": 390, "height": 844}},
}


def test_the_form_has_no_serious_accessibility_problem_light_dark_or_390_px_wide(
    node: str, tmp_path: Path, daemons: list[DaemonProcess], page_for: PageFor
) -> None:
    headless_daemon(daemons, asker(node, tmp_path / "asker.log"))
    until(lambda: '"connected"' in cli("agents", "list", "--json").stdout, what="the agent to connect")
    prompt = cli_started("prompt", "asker", "form")  # every kind of field
    until(waiting, what="the agent's question")
    found: dict[str, list[str]] = {}
    with window_process() as window:
        for view, options in VIEWS.items():
            watched = page_for(**options)
            page = watched.page
            with_axe(page)
            page.goto(window.url)
            page.locator("form.question-form").wait_for(timeout=SHOWS)
            found[view] = serious_violations(page)
            if view == "390 px":
                wide = page.evaluate("() => document.documentElement.scrollWidth")
                assert wide <= 390, f"at 390 px the page is {wide} px wide: it scrolls sideways"
            assert not watched.problems, (view, watched.problems)
    assert found == {view: [] for view in VIEWS}, found
    assert cli("answer", "q1", "--cancel").returncode == 0
    assert prompt.communicate(timeout=30)[0] == "answer: cancel\n"
