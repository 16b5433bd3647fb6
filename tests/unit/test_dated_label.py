"""When a history record, a Recent entry or an agent's last problem happened, as the window and
`acp-tray history` say it: the clock today, "Yesterday 16:42", then the date (and the year when it is
not this year's), seen from a fake clock that is moved across midnight."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from acp_tray.presentation.when import dated_label
from tests.support.clock import FakeClock

BERLIN = ZoneInfo("Europe/Berlin")
EVENING = datetime(2026, 12, 4, 23, 58, 30, tzinfo=BERLIN)


@pytest.mark.parametrize(
    ("moment", "label"),
    [
        (EVENING.replace(hour=16, minute=42, second=10), "16:42"),
        (EVENING.replace(day=3, hour=16, minute=42), "Yesterday 16:42"),
        (EVENING.replace(day=2, hour=9, minute=5), "2 Dec 09:05"),
        (EVENING.replace(month=1, day=1, hour=0, minute=0), "1 Jan 00:00"),
        (EVENING.replace(year=2025, day=3, hour=16, minute=42), "3 Dec 2025 16:42"),
        (EVENING + timedelta(minutes=5), "00:03"),  # a clock that ran ahead: its own time, no date
    ],
)
def test_a_moment_is_said_with_the_day_when_it_is_not_today(moment: datetime, label: str) -> None:
    assert dated_label(moment, EVENING) == label


def test_across_midnight_today_becomes_yesterday_then_a_date() -> None:
    clock = FakeClock(EVENING)
    moment = EVENING.replace(hour=16, minute=42, second=10)
    assert dated_label(moment, clock.now()) == "16:42"
    clock.advance(120)  # 00:00:30 on 5 Dec
    assert dated_label(moment, clock.now()) == "Yesterday 16:42"
    assert dated_label(moment, clock.now(), seconds=True) == "Yesterday 16:42:10"
    clock.advance(24 * 3600)
    assert dated_label(moment, clock.now()) == "4 Dec 16:42"


def test_a_moment_is_said_in_the_local_time_zone() -> None:
    moment = datetime(2026, 12, 3, 23, 30, tzinfo=UTC)  # 00:30 on 4 Dec in Berlin: today there
    assert dated_label(moment, EVENING) == "00:30"
