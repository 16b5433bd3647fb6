"""A notification's default action opens the window at that notice: dunst invokes it (its context
menu's "Open", as a person picks it), the daemon asks the browser to open the history page at the
notice (BROWSER is the tests' recorder: it is given the redirect file, the address in it is
used here), and that page in a real browser highlights the notice."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from acp_tray.control import api
from acp_tray.control.client import request
from acp_tray.control.endpoint import runtime_dir
from tests.support.browser import PageFor
from tests.support.daemons import DaemonProcess
from tests.support.dunst_menu import menu_lines, pick
from tests.support.waiting import until
from tests.support.window import demo_daemon, end, redirected

TITLE = "Example: Using default settings"  # the demo's warning: it stays on screen until acted on


def recorded(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []


def test_a_notifications_default_action_opens_the_history_at_that_notice(
    tmp_path: Path, dmenu: Path, desktop: Any, daemons: list[DaemonProcess], page_for: PageFor
) -> None:
    opened = Path(os.environ["ACP_TRAY_TEST_OPENED"])
    demo_daemon(tmp_path, daemons, desktop)
    records = until(
        lambda: [r for r in request(api.HISTORY, api.HistoryArgs(text=TITLE))["records"] if r["title"] == TITLE],
        what="the demo's warning in the history",
    )
    (record,) = records
    assert record["route"] == "both"  # shown as a notification and in the tray

    def offered() -> dict[tuple[str, str], str] | None:
        """Open dunst's context menu and pick the notice's "Open": what the menu offered, once it had it."""
        (dmenu / "menu").unlink(missing_ok=True)
        pick(dmenu, f"#Open (demo: {TITLE})")  # dunst invokes the notification's default action
        lines = until(lambda: (dmenu / "menu").exists() and menu_lines(dmenu), what="dunst's context menu")
        menu = {(line["summary"], line["key"]): line["label"] for line in lines}
        return menu if (f"demo: {TITLE}", "default") in menu else None

    menu = until(offered, timeout=30, what="the notice's notification in dunst")
    assert menu[(f"demo: {TITLE}", "default")] == "Open"  # there is something to open: its history entry
    until(lambda: recorded(opened), what="the browser asked to open the window")
    time.sleep(0.5)
    (opened_file,) = recorded(opened)  # once: the redirect file, never the address with its key
    assert opened_file.startswith("file://") and "key" not in opened_file
    url = redirected(opened_file)
    query = parse_qs(urlsplit(url).query)
    assert query["page"] == ["history"] and query["highlight"] == [record["time"]]

    window = json.loads((runtime_dir() / "window.json").read_text("utf-8"))  # started by the daemon
    try:
        watched = page_for()
        page = watched.page
        page.goto(url)
        assert urlsplit(page.url).path == "/history"
        highlighted = page.locator("tr.history-row.highlight")
        assert highlighted.count() == 1
        assert highlighted.get_attribute("data-key") == record["time"]
        assert TITLE in highlighted.inner_text() and "demo" in highlighted.inner_text()
        assert page.locator("tr.history-row").count() > 1  # the others are there, not highlighted
        assert not watched.problems, watched.problems
    finally:
        end(int(window["pid"]))
