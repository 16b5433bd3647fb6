"""The tray's Recent times age at midnight: the publisher hands the tray a new snapshot just after
it (a timer, no polling), so "23:59" becomes yesterday's "Tue 23:59" without anything else happening."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from acp_tray.app.compose import core
from acp_tray.prefs.model import Preferences
from acp_tray.tray.menu import Entry, menu_of
from acp_tray.tray.snapshot import TraySnapshot
from tests.support.clock import FakeClock
from tests.support.presentations import make_presentation
from tests.support.waiting import until_async

LATE = datetime(2026, 12, 1, 23, 59, 59, 500_000, tzinfo=ZoneInfo("Europe/Berlin"))  # a Tuesday, just before midnight


def recent_labels(snapshot: TraySnapshot) -> list[str]:
    recent: Entry = next(entry for entry in menu_of(snapshot) if entry.label.startswith("Recent"))
    return [entry.label for entry in recent.children if entry.action and entry.action.startswith("recent:open")]


async def test_recent_times_are_shown_again_after_midnight() -> None:
    clock = FakeClock(LATE)
    snapshots: list[TraySnapshot] = []
    parts = core(Preferences(), clock=clock, publishers=[snapshots.append])
    parts.recent.add(make_presentation(1, "Build failed", "error", time=LATE))
    parts.publisher.publish_now()
    assert recent_labels(snapshots[-1]) == ["• ✖ 23:59 bot: Build failed"]
    clock.advance(2)  # past midnight; the timer (1.5 s of the loop's own time) has not fired yet
    await until_async(lambda: len(snapshots) > 1, timeout=5, what="a snapshot after midnight")
    assert recent_labels(snapshots[-1]) == ["• ✖ Tue 23:59 bot: Build failed"]
    parts.publisher.close()
