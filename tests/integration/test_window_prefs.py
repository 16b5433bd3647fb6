"""The window's Preferences page in a real browser (chromium through Playwright) against a real
daemon running the real demo agent: a setting saved from the page changes only its value in the
file (comments kept, a symlink kept) and is applied; wrong values are shown beside their fields and
nothing is written; an edit in the file shows in the open page, and a save over it asks first;
"Open the file" with an editor and with nothing to open it."""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from acp_tray.demo.agent import DEMO_NOTICES
from tests.support.browser import PageFor, Screenshot
from tests.support.daemons import DaemonProcess, cli
from tests.support.waiting import until
from tests.support.window import CONSOLE, changed_lines, demo_daemon, prefs_daemon, window_process

ROOT = Path(__file__).resolve().parents[2]
FAKE_TERMINAL = ROOT / "tests" / "desktop" / "fake-terminal.sh"
SHOWS = 10_000  # ms


def info_records() -> list[dict[str, Any]]:
    shown = cli("history", "--json", "-n", "200").stdout.splitlines()
    titles = {n["title"] for n in DEMO_NOTICES if n["severity"] == "info"}  # the demo's own, not its turns' "Finished"
    return [r for r in map(json.loads, shown) if r.get("agent") == "demo" and r.get("title") in titles]


def test_a_route_saved_from_the_page_changes_only_that_value_and_applies(
    daemons: list[DaemonProcess], page_for: PageFor, screenshot: Screenshot
) -> None:
    config = prefs_daemon(daemons, CONSOLE)
    before = config.read_text(encoding="utf-8")
    until(lambda: len(info_records()) >= 1, 30, "the demo's first info notice")
    with window_process("preferences") as window:
        for scheme in ("light", "dark"):
            shot = page_for(scheme)
            shot.page.goto(window.url)
            shot.page.get_by_role("heading", name="How each severity is shown").wait_for(timeout=SHOWS)
            screenshot(shot, f"preferences-{scheme}")
            assert not shot.problems, shot.problems
        watched = page_for("light")
        page = watched.page
        page.goto(window.url)
        page.get_by_role("radiogroup", name="Info notices").get_by_label("List only").check()
        page.get_by_role("button", name="Save").click()
        page.get_by_text("Saved.", exact=True).wait_for(timeout=SHOWS)
        after = config.read_text(encoding="utf-8")
        assert changed_lines(before, after) == ['- route = "both"', '+ route = "tray"']
        assert (
            'on screen (0 = until dismissed)\n[severity.info]\nroute = "tray"\ntimeout = 5\n' in after
        )  # its comment kept
        assert page.get_by_role("radiogroup", name="Info notices").get_by_label("List only").is_checked()
        assert not watched.problems, watched.problems

    seen = len(info_records())
    assert cli("prompt", "demo", "show your notices").returncode == 0  # its series again (it introduced itself once)
    until(lambda: len(info_records()) > seen, 30, "the demo's next info notice")
    latest = info_records()[-1]
    assert (latest["route"], latest["notified"], latest["tray"]) == ("tray", False, True)  # listed, not popped up


def test_info_as_list_only_from_the_page_pops_nothing_up_on_the_desktop(
    tmp_path: Path, daemons: list[DaemonProcess], desktop: Any, page_for: PageFor
) -> None:
    """The same change with the real notification server (dunst): the demo's next info notice is in
    the tray's list and the history but never popped up, while its warning still is."""
    demo_daemon(tmp_path, daemons, desktop)
    info, warning = (f"demo: {notice['title']}" for notice in DEMO_NOTICES[:2])
    until(lambda: info in {item["summary"] for item in desktop.since(0)}, 30, "the demo's first info pop-up")
    with window_process("preferences") as window:
        page = page_for("light").page
        page.goto(window.url)
        page.get_by_role("radiogroup", name="Info notices").get_by_label("List only").check()
        # the restart repeats the same notices: not shown once with a count, so each one is a new pop-up
        page.get_by_label("Show identical notices once, with a count, within (seconds; 0: off)").fill("0")
        page.get_by_role("button", name="Save").click()
        page.get_by_text("Saved.", exact=True).wait_for(timeout=SHOWS)
    mark, seen = desktop.mark(), len(info_records())
    assert cli("prompt", "demo", "show your notices").returncode == 0  # its series again (it introduced itself once)
    until(lambda: warning in {item["summary"] for item in desktop.since(mark)}, 30, "the demo's next warning pop-up")
    assert len(info_records()) > seen and info_records()[-1]["tray"] is True  # recorded, and in the tray's list
    assert info not in {item["summary"] for item in desktop.since(mark)}


def test_wrong_values_are_shown_beside_their_fields_and_nothing_is_written(
    daemons: list[DaemonProcess], page_for: PageFor
) -> None:
    config = prefs_daemon(daemons, CONSOLE)
    before = config.read_bytes()
    with window_process("preferences") as window:
        watched = page_for("light")
        page = watched.page
        page.goto(window.url)
        page.get_by_label("At most this many pop-ups from one agent…").fill("0")
        end = page.get_by_label("To", exact=True)
        end.evaluate("field => { field.type = 'text' }")  # as a browser without a time picker shows it
        end.fill("25:00")
        page.get_by_role("button", name="Save").click()
        page.locator("#f-rate_limit-burst-error", has_text="Must be at least 1, not 0.").wait_for(timeout=SHOWS)
        page.locator("#f-dnd-quiet_hours-end-error").get_by_text(
            "Expected a time of day like \"22:00\", got '25:00'."
        ).wait_for()
        assert page.get_by_label("At most this many pop-ups from one agent…").get_attribute("aria-invalid") == "true"
        page.get_by_text("Nothing was saved: 2 values are not right").wait_for()
        assert config.read_bytes() == before

        now = datetime.now().astimezone()
        page.get_by_label("At most this many pop-ups from one agent…").fill("5")
        page.get_by_label("Quiet hours on: no pop-ups in this window each week").check()
        page.get_by_label("From", exact=True).evaluate("field => { field.type = 'text' }")
        page.get_by_label("From", exact=True).fill(f"{now - timedelta(hours=1):%H:%M}")
        end.fill(f"{now + timedelta(hours=1):%H:%M}")
        page.get_by_role("button", name="Save").click()
        page.get_by_text("Saved.", exact=True).wait_for(timeout=SHOWS)
        assert "quiet hours until" in cli("status").stdout  # applied before "Saved"
        assert not watched.problems, watched.problems


def test_an_edit_in_the_file_shows_in_the_open_page_and_a_save_over_it_asks_first(
    daemons: list[DaemonProcess], page_for: PageFor
) -> None:
    config = prefs_daemon(daemons, CONSOLE, link=True)
    target = config.resolve()
    with window_process("preferences") as window:
        watched = page_for("light")
        page = watched.page
        page.goto(window.url)
        burst = page.get_by_label("At most this many pop-ups from one agent…")
        assert burst.input_value() == "5"
        config.write_text(config.read_text(encoding="utf-8").replace("burst = 5", "burst = 7"), encoding="utf-8")
        page.get_by_role("button", name="Show the file's values").click(timeout=SHOWS)
        until(lambda: burst.input_value() == "7", 10, "the file's new value in the page")

        config.write_text(config.read_text(encoding="utf-8").replace("per = 10", "per = 20"), encoding="utf-8")
        until(lambda: "per = 20" in cli("prefs", "show").stdout, 10, "the edit to be read")
        page.get_by_label("Seconds info pop-ups stay (0: until you close them)").fill("9")
        page.get_by_role("button", name="Save").click()
        page.get_by_text("The file changed since you opened this page. Nothing was saved.").wait_for(timeout=SHOWS)
        assert "timeout = 9" not in config.read_text(encoding="utf-8")
        page.get_by_role("button", name="Overwrite it with this page's values").click()
        page.get_by_text("Saved.", exact=True).wait_for(timeout=SHOWS)
        text = config.read_text(encoding="utf-8")
        assert "timeout = 9" in text and "per = 10" in text  # the page's values, all of them
        assert config.is_symlink() and config.resolve() == target  # written through the link
        assert not watched.problems, watched.problems


@pytest.mark.parametrize("editor", [True, False], ids=["with-an-editor", "with-nothing-to-open-it"])
def test_open_the_file(
    daemons: list[DaemonProcess], page_for: PageFor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, editor: bool
) -> None:
    config = prefs_daemon(daemons, CONSOLE)
    terminal = tmp_path / "terminal"
    terminal.mkdir()
    if editor:
        monkeypatch.setenv("EDITOR", "cat")  # the fake terminal runs it: the file goes to its output
        monkeypatch.setenv("TERMINAL", str(FAKE_TERMINAL))  # the window's server inherits these
        monkeypatch.setenv("ACP_TRAY_TEST_TERMINAL", str(terminal))
    else:  # no editor, no desktop: the real xdg-open finds nothing to open the file with
        for name in ("EDITOR", "VISUAL", "TERMINAL", "DISPLAY", "WAYLAND_DISPLAY", "BROWSER"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("XDG_CURRENT_DESKTOP", "")
        monkeypatch.setenv("PATH", "/usr/bin:/bin")
        assert shutil.which("xdg-open"), "xdg-utils is installed by .ci/system-deps"
    with window_process("preferences") as window:
        watched = page_for("light")
        page = watched.page
        page.goto(window.url)
        page.get_by_role("button", name="Open the file").click()
        if editor:
            page.get_by_text(f"Opened {config}.").wait_for(timeout=SHOWS)
            until(lambda: (terminal / "output").exists() and "[severity.info]" in (terminal / "output").read_text(), 10)
            assert (terminal / "called").read_text().splitlines() == ["-e", "cat", str(config)]
        else:
            page.get_by_text("Nothing here can open the file (xdg-open could not open the file (").wait_for(
                timeout=SHOWS
            )
            assert page.locator("#toast").inner_text().endswith(f"Open it in your editor yourself: {config}")
        assert not watched.problems, watched.problems


def test_sounds_and_the_shortest_turn_worth_a_popup_are_set_from_the_page(
    daemons: list[DaemonProcess], page_for: PageFor
) -> None:
    config = prefs_daemon(daemons, CONSOLE)
    before = config.read_text(encoding="utf-8")
    with window_process("preferences") as window:
        watched = page_for("light")
        page = watched.page
        page.goto(window.url)
        info_sound = page.get_by_label("Sound of info pop-ups (empty: silent)")
        assert info_sound.input_value() == ""  # info is silent by default
        assert page.get_by_label("Sound of warning pop-ups (empty: silent)").input_value() == "dialog-warning"
        info_sound.fill("Dialog Information")
        page.get_by_role("button", name="Save").click()
        page.locator("#f-severity-info-sound-error").get_by_text(
            "Expected a sound name from the freedesktop sound naming spec"
        ).wait_for(timeout=SHOWS)
        assert info_sound.get_attribute("aria-invalid") == "true"
        assert config.read_text(encoding="utf-8") == before
        info_sound.fill("message-new-instant")
        page.get_by_label("Sound of approval requests (empty: silent)").fill("")
        page.get_by_label("Pop up “Finished” only for turns longer than (seconds; 0: every turn)").fill("0")
        page.get_by_role("button", name="Save").click()
        page.get_by_text("Saved.", exact=True).wait_for(timeout=SHOWS)
        assert changed_lines(before, config.read_text(encoding="utf-8")) == [
            '- sound = ""',
            '+ sound = "message-new-instant"',
            "- notify_after = 20",
            "+ notify_after = 0",
            '- sound = "message-new-instant"',
            '+ sound = ""',
        ]
        assert not watched.problems, watched.problems
    in_force = cli("prefs", "show").stdout
    assert "[turns]\nnotify_after = 0" in in_force and '[approvals]\nsound = ""' in in_force
