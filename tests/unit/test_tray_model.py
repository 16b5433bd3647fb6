"""The tray's pure parts: badge, tooltip, menu model and the icon renderer's pixels."""

from __future__ import annotations

from datetime import UTC, datetime, time
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from acp_tray.events import AgentState
from acp_tray.presentation.actions import SetDnd, parse_action
from acp_tray.presentation.dnd import DndState
from acp_tray.presentation.recent import Recent, RecentItem
from acp_tray.presentation.when import when_label
from acp_tray.protocol.notice import severity_kind
from acp_tray.tray.icon import BADGE_COLOURS, DND_GREY, badge_pixel, dnd_pixel, render
from acp_tray.tray.menu import SEPARATOR, Entry, menu_of, recent_label
from acp_tray.tray.snapshot import AgentRow, TraySnapshot, badge_of, tooltip_of
from tests.support.presentations import make_presentation

T = datetime(2026, 11, 29, 13, 0, tzinfo=ZoneInfo("Europe/Berlin"))


def item(group: int, severity: str, unread: bool = True, **kw: Any) -> RecentItem:
    fields: dict[str, Any] = {
        "group": group,
        "agent": "claude",
        "severity": severity,
        "kind": severity_kind(severity),
        "title": f"title {group}",
        "description": None,
        "count": 1,
        "time": T,
        "unread": unread,
        "source": "agent",
    }
    fields.update(kw)
    return RecentItem(**fields)


@pytest.mark.parametrize(
    ("items", "badge"),
    [
        ([], "none"),
        ([item(1, "info")], "info"),
        ([item(1, "info"), item(2, "_acme.x")], "other"),
        ([item(1, "warning"), item(2, "_acme.x"), item(3, "info")], "warning"),
        ([item(1, "error", unread=False), item(2, "warning")], "warning"),  # read items do not count
        ([item(1, "error"), item(2, "warning")], "error"),
        ([item(1, "error", unread=False)], "none"),
    ],
)
def test_badge_is_the_most_severe_unread(items: list[RecentItem], badge: str) -> None:
    assert badge_of(TraySnapshot(recent=tuple(items))) == badge


def test_tooltip_is_one_line_summary() -> None:
    snapshot = TraySnapshot(
        agents=(
            AgentRow("a", AgentState.CONNECTED),
            AgentRow("b", AgentState.CONNECTED),
            AgentRow("c", AgentState.EXITED),
        ),
        dnd=DndState(True, "manual", T.replace(hour=14)),
        recent=(item(1, "info"), item(2, "error"), item(3, "warning"), item(4, "info", unread=False)),
    )
    assert tooltip_of(snapshot) == "acp-tray · 3 unread · 2/3 agents connected · DND until 14:00"


@pytest.mark.parametrize("badge", ["none", "info", "warning", "error", "other"])
@pytest.mark.parametrize("dnd", [False, True])
@pytest.mark.parametrize("size", [22, 32, 64])
def test_icon_pixels_per_state(badge: str, dnd: bool, size: int) -> None:
    image = render(badge, dnd, size)
    assert image.size == (size, size) and image.mode == "RGBA"
    colour = image.getpixel(badge_pixel(size))
    if badge == "none":
        assert colour not in BADGE_COLOURS.values()
    else:
        assert _close(colour, BADGE_COLOURS[badge])
    assert _close(image.getpixel(dnd_pixel(size)), DND_GREY) is dnd


def _close(a: Any, b: tuple[int, int, int, int], tolerance: int = 40) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a[:3], b[:3], strict=True))


def _find(entries: tuple[Entry, ...], label: str) -> Entry:
    """The first entry whose label starts with `label`, preferring submenus."""
    matches = [entry for entry in entries if entry.label.startswith(label)]
    return next((entry for entry in matches if entry.children), matches[0])


def test_menu_model() -> None:
    recent = Recent()
    recent.add(make_presentation(1, "Build failed", "error", agent="claude", count=3))
    recent.add(make_presentation(2, "Indexed", "info", agent="gemini"))
    recent.mark_read(2)
    snapshot = TraySnapshot(
        agents=(AgentRow("claude", AgentState.CONNECTED), AgentRow("gemini", AgentState.EXITED, "exit code 3")),
        dnd=DndState(False),
        quiet_hours_enabled=True,
        recent=recent.items(),
        missed_during_dnd=2,
    )
    menu = menu_of(snapshot)
    assert (menu[0].label, menu[0].action, menu[1]) == ("Open acp-tray…", "window:overview", SEPARATOR)
    assert menu[0].default and not any(entry.default for entry in menu[1:])  # a left click on the icon opens it
    assert [entry.label for entry in menu[2:4]] == ["1/2 agents connected", "Do not disturb: off"]
    assert not menu[2].enabled
    recent_menu = _find(menu, "Recent")
    assert recent_menu.label == "Recent (1 unread) · 2 held during DND"
    labels = [entry.label for entry in recent_menu.children]
    assert labels[:2] == ["ℹ 12:00 gemini: Indexed", "• ✖ 12:00 claude: Build failed ×3"]  # newest first, unread marked
    assert recent_menu.children[1].action == "recent:open:1"
    assert [e.action for e in recent_menu.children[-2:]] == ["recent:read-all", "recent:clear"]
    dnd = _find(menu, "Do not disturb").children
    assert (dnd[0].label, dnd[0].checked, dnd[0].radio) == ("Off", True, True)
    assert [e.action for e in dnd if e.action] == [
        "dnd:off", "dnd:on", "dnd:30m", "dnd:1h", "dnd:tomorrow", "quiet-hours:toggle",
    ]  # fmt: skip
    assert [e.label for e in dnd] == [
        "Off", "On until I turn it off", "For 30 minutes", "For 1 hour", "Until tomorrow, 08:00", "-",
        "Quiet hours 22:00–07:00",
    ]  # fmt: skip
    assert _find(dnd, "Quiet hours").checked is True
    agents = _find(menu, "Agents").children
    assert [a.label for a in agents] == ["claude — connected", "gemini — exited", "-", "Add agent…"]
    assert (agents[2], agents[3].action) == (SEPARATOR, "window:agents")
    assert [c.action for c in agents[0].children] == ["agent:restart:claude", "agent:stop:claude", None]
    assert [c.action for c in agents[1].children] == ["agent:restart:gemini", None, "agent:start:gemini"]
    assert [e.action for e in menu[-4:]] == ["window:preferences", "window:history", "window:diagnostics", "quit"]


def test_menu_shows_manual_dnd_as_the_checked_radio() -> None:
    snapshot = TraySnapshot(dnd=DndState(True, "manual", T.replace(hour=14)))
    dnd = _find(menu_of(snapshot), "Do not disturb").children
    assert [(e.label, e.checked, e.radio) for e in dnd[:3]] == [
        ("Off", False, True), ("On until I turn it off", False, True), ("On, until Sun 14:00", True, True),
    ]  # fmt: skip
    assert dnd[2].action is None  # what holds now, not a choice


def test_manual_dnd_without_an_end_checks_on_until_i_turn_it_off() -> None:
    dnd = _find(menu_of(TraySnapshot(dnd=DndState(True, "manual", None))), "Do not disturb").children
    assert [(e.label, e.checked) for e in dnd[:3]] == [
        ("Off", False), ("On until I turn it off", True), ("For 30 minutes", None),
    ]  # fmt: skip
    assert dnd[1].action == "dnd:on" and parse_action("dnd:on") == SetDnd("on")


def test_quiet_hours_do_not_check_a_manual_choice() -> None:
    dnd = _find(menu_of(TraySnapshot(dnd=DndState(True, "quiet_hours", T))), "Do not disturb").children
    assert [(e.label, e.checked) for e in dnd[:2]] == [("Off", True), ("On until I turn it off", False)]


def test_the_dnd_menu_says_when_tomorrow_and_the_quiet_hours_are() -> None:
    """From the preferences: `dnd.morning`, and the quiet hours' start and end."""
    snapshot = TraySnapshot(morning=time(6, 45), quiet_hours=(time(23, 30), time(6, 0)), quiet_hours_enabled=False)
    dnd = _find(menu_of(snapshot), "Do not disturb").children
    tomorrow = _find(dnd, "Until tomorrow")
    assert (tomorrow.label, tomorrow.action) == ("Until tomorrow, 06:45", "dnd:tomorrow")
    quiet = _find(dnd, "Quiet hours")
    assert (quiet.label, quiet.action, quiet.checked) == ("Quiet hours 23:30–06:00", "quiet-hours:toggle", False)


NOW = datetime(2026, 12, 2, 9, 30, tzinfo=ZoneInfo("Europe/Berlin"))  # a Wednesday


@pytest.mark.parametrize(
    ("moment", "label"),
    [
        (NOW, "09:30"),
        (NOW.replace(hour=0, minute=1), "00:01"),  # earlier today
        (NOW.replace(day=1, hour=23, minute=59), "Tue 23:59"),  # yesterday
        (NOW.replace(day=1, hour=7, minute=5).astimezone(UTC), "Tue 07:05"),  # shown in local time
        (NOW.replace(month=11, day=26, hour=14, minute=3), "Thu 14:03"),  # six days ago
        (NOW.replace(month=11, day=25, hour=14, minute=3), "25 Nov"),  # a week ago: the date
        (NOW.replace(year=2025, month=12, day=31), "31 Dec 2025"),  # another year: with it
        (NOW.replace(hour=10), "10:30"),  # a clock that ran ahead: still its own time
    ],
)
def test_when_a_recent_item_happened(moment: datetime, label: str) -> None:
    assert when_label(moment, NOW) == label


def test_recent_entries_show_their_time_from_the_snapshots_now() -> None:
    items = (
        item(3, "info", time=NOW.replace(hour=9, minute=2)),
        item(2, "warning", unread=False, time=NOW.replace(day=1, hour=14, minute=3), count=2),
        item(1, "error", time=NOW.replace(month=11, day=20)),
    )
    recent = _find(menu_of(TraySnapshot(recent=items, at=NOW)), "Recent").children
    assert [entry.label for entry in recent[:3]] == [
        "• ℹ 09:02 claude: title 3", "⚠ Tue 14:03 claude: title 2 ×2", "• ✖ 20 Nov claude: title 1",
    ]  # fmt: skip
    assert TraySnapshot(recent=items, at=NOW) == TraySnapshot(recent=items, at=NOW.replace(day=3))  # not a change


def test_hostile_titles_stay_one_bounded_line_in_the_menu() -> None:
    label = recent_label(item(1, "warning", title="line\nbreak \u202e" + "x" * 500, agent="a\tb"))
    assert "\n" not in label and "\u202e" not in label and len(label) <= 70


@pytest.mark.parametrize("size", [48, 64, 128])
@pytest.mark.parametrize("severity_class", ["info", "warning", "error", "other"])
def test_the_shipped_notification_icons_are_the_trays_badged_icon(severity_class: str, size: int) -> None:
    """packaging/make_icons.py draws them with the tray's own `render`: the colours cannot drift apart."""
    from PIL import Image, ImageChops

    from acp_tray.assets import severity_icon
    from acp_tray.tray.icon import render

    shipped = Image.open(severity_icon(severity_class, size)).convert("RGBA")
    assert ImageChops.difference(shipped, render(severity_class, size=size)).getbbox() is None
