"""Approval actions on a real notification server: dunst on a private session bus, under Xvfb.

dunst shows a notification's non-default actions in its context menu: `dunstctl context` runs
the `dmenu` command of tests/desktop/dunstrc (tests/desktop/pick-action.sh) with one line per
action, "#LABEL (SUMMARY) [ID,KEY]", and invokes the line the command prints back, which makes
dunst emit `ActionInvoked(ID, KEY)` on the bus. The script prints the line the test asks for.
"""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any

from acp_tray.notifiers.chain import NotifierChain
from acp_tray.notifiers.content import ACTION_LABEL_LIMIT
from acp_tray.notifiers.freedesktop import FreedesktopBackend
from tests.support.dunst_menu import dunstctl, menu_lines, pick
from tests.support.presentations import make_presentation as presentation
from tests.support.waiting import until_async

GROUP = 601
ACTIONS = (
    ("approval:7:allow_once", "Allow once"),
    ("approval:7:reject_once", "Reject\u202e\x1b[31m\n" + "no " * 40),  # hostile label
    ("approval:7:odd]id\n", "Odd"),  # an id that cannot go on dunst's menu line as is
)


async def test_approval_actions_round_trip_through_dunst_and_a_dismissal_is_only_closed(
    dmenu: Path, bus_link: Any
) -> None:
    seen: list[tuple[int, str]] = []
    backend = FreedesktopBackend(lambda group, what: seen.append((group, what)), link=bus_link)
    await backend.start()
    assert "actions" in backend.capabilities
    chain = NotifierChain([backend])
    await chain.start()
    try:
        chain.present(presentation(GROUP, "Run rm -rf build?", "warning", timeout=0, actions=ACTIONS))
        await chain.drain()

        # a person picks "Allow once" in dunst's menu: the daemon gets the approval id back
        pick(dmenu, "#Allow once (")
        await until_async(lambda: len(seen) == 1, 10, "the first action")
        assert seen == [(GROUP, "approval:7:allow_once")]

        # what dunst offered: the click and the three actions, labels clean and bounded
        offered = menu_lines(dmenu)
        assert {line["summary"] for line in offered} == {"bot: Run rm -rf build?"}
        (server_id,) = {line["id"] for line in offered}
        by_key = {line["key"]: line["label"] for line in offered}
        assert set(by_key) == {"default", "approval:7:allow_once", "approval:7:reject_once", "acp-tray-action-0"}
        assert (by_key["default"], by_key["approval:7:allow_once"], by_key["acp-tray-action-0"]) == (
            "Open",
            "Allow once",
            "Odd",
        )
        hostile = by_key["approval:7:reject_once"]
        assert hostile.startswith("Reject[31m no no") and hostile.endswith("…")
        assert len(hostile) <= ACTION_LABEL_LIMIT and "\u202e" not in hostile and "\x1b" not in hostile

        # the hostile label, then the odd id through its stand-in key
        pick(dmenu, "#Reject[31m no")
        await until_async(lambda: len(seen) == 2, 10, "the second action")
        pick(dmenu, "#Odd (")
        await until_async(lambda: len(seen) == 3, 10, "the third action")
        assert seen[1:] == [(GROUP, "approval:7:reject_once"), (GROUP, "approval:7:odd]id\n")]

        # anyone else on the bus may emit ActionInvoked: it is not believed
        await asyncio.to_thread(
            subprocess.run,
            [
                "dbus-send",
                "--session",
                "--type=signal",
                "/org/freedesktop/Notifications",
                "org.freedesktop.Notifications.ActionInvoked",
                f"uint32:{server_id}",
                "string:approval:7:allow_once",
            ],
            check=True,
            timeout=10,
        )
        # the default action (a click) from dunst itself; it arrives after the fake one
        dunstctl("action", "0")
        await until_async(lambda: len(seen) == 4, 10, "the click")
        assert seen[3] == (GROUP, "clicked")

        # a dismissal: "closed", and no approval
        dunstctl("close")
        await until_async(lambda: len(seen) == 5, 10, "the dismissal")
        await asyncio.sleep(0.3)  # anything else dunst might send
        assert seen == [
            (GROUP, "approval:7:allow_once"),
            (GROUP, "approval:7:reject_once"),
            (GROUP, "approval:7:odd]id\n"),
            (GROUP, "clicked"),
            (GROUP, "closed"),
        ]
    finally:
        await chain.aclose()


async def test_dismissing_or_expiring_a_notification_with_approvals_never_answers_it(
    dmenu: Path, desktop: Any, bus_link: Any
) -> None:
    seen: list[tuple[int, str]] = []
    backend = FreedesktopBackend(lambda group, what: seen.append((group, what)), link=bus_link)
    chain = NotifierChain([backend])
    await chain.start()
    try:
        chain.present(presentation(611, "Dismiss me", "warning", timeout=0, actions=ACTIONS[:2]))
        chain.present(presentation(612, "Let me expire", "warning", timeout=1, actions=ACTIONS[:2]))
        await chain.drain()
        await until_async(lambda: (612, "expired") in seen, 10, "the expiry")
        dunstctl("close")
        await until_async(lambda: (611, "closed") in seen, 10, "the dismissal")
        # nothing was picked: the menu opens, the script prints nothing, dunst invokes nothing
        chain.present(presentation(613, "Menu closed", "warning", timeout=0, actions=ACTIONS[:2]))
        await chain.drain()
        pick(dmenu, "no line has this")
        await until_async(lambda: (dmenu / "menu").exists(), 10, "the menu")
        desktop.close_all()
        await until_async(lambda: (613, "closed") in seen, 10, "the dismissal")
        await asyncio.sleep(0.3)
        assert sorted(seen) == [(611, "closed"), (612, "expired"), (613, "closed")]
    finally:
        await chain.aclose()
