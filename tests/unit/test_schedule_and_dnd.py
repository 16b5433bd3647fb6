"""Quiet hours and do-not-disturb: weekly windows, midnight, DST, expiry, durations."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tray.prefs.model import WEEKDAYS, DndPrefs, QuietHours
from acp_tray.presentation.dnd import DurationError, dnd_end, dnd_state, next_morning
from acp_tray.presentation.schedule import quiet_until, window_at

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")


def at(zone: ZoneInfo, y: int, mo: int, d: int, h: int, mi: int = 0) -> datetime:
    return datetime(y, mo, d, h, mi, tzinfo=zone)


def hours(start: str, end: str, days: list[str] | None = None) -> QuietHours:
    return QuietHours(enabled=True, start=start, end=end, days=days or list(WEEKDAYS))  # type: ignore[arg-type]


# 2026-11-27 is a Friday
@pytest.mark.parametrize(
    ("when", "inside"),
    [
        (at(BERLIN, 2026, 11, 27, 21, 59), False),
        (at(BERLIN, 2026, 11, 27, 22, 0), True),  # start is inclusive
        (at(BERLIN, 2026, 11, 28, 3, 0), True),  # Saturday early: Friday's window
        (at(BERLIN, 2026, 11, 28, 6, 59), True),
        (at(BERLIN, 2026, 11, 28, 7, 0), False),  # end is exclusive
        (at(BERLIN, 2026, 11, 28, 23, 0), False),  # Saturday is not in the days
        (at(BERLIN, 2026, 11, 27, 3, 0), True),  # Friday early: Thursday's window
        (at(BERLIN, 2026, 11, 23, 3, 0), False),  # Monday early: Sunday has no window
    ],
)
def test_window_crossing_midnight_belongs_to_its_start_day(when: datetime, inside: bool) -> None:
    weekdays = hours("22:00", "07:00", ["mon", "tue", "wed", "thu", "fri"])
    assert (window_at(weekdays, when) is not None) is inside


def test_same_day_window() -> None:
    lunch = hours("12:00", "13:30", ["wed"])
    assert window_at(lunch, at(BERLIN, 2026, 11, 25, 12, 45)) is not None
    assert window_at(lunch, at(BERLIN, 2026, 11, 25, 13, 30)) is None
    assert window_at(lunch, at(BERLIN, 2026, 11, 26, 12, 45)) is None


def test_disabled_or_no_days_never_holds() -> None:
    assert window_at(QuietHours(enabled=False), at(BERLIN, 2026, 11, 27, 23)) is None
    assert window_at(QuietHours(enabled=True, days=[]), at(BERLIN, 2026, 11, 27, 23)) is None


def test_quiet_hours_keep_wall_clock_times_across_dst() -> None:
    nightly = hours("22:00", "07:00")
    # Berlin leaves DST on 2026-10-25 (03:00 -> 02:00): a 10-hour night on the clock, 10 h on the wall
    assert window_at(nightly, at(BERLIN, 2026, 10, 25, 6, 59)) is not None
    assert window_at(nightly, at(BERLIN, 2026, 10, 25, 7, 0)) is None
    # and enters DST on 2026-03-29 (02:00 -> 03:00)
    assert window_at(nightly, at(BERLIN, 2026, 3, 29, 6, 59)) is not None
    assert window_at(nightly, at(BERLIN, 2026, 3, 29, 7, 0)) is None
    end = quiet_until(nightly.model_copy(update={"days": ["sat"]}), at(BERLIN, 2026, 3, 28, 23, 0))
    assert end is not None and (end.hour, end.minute) == (7, 0) and end.utcoffset() == timedelta(hours=2)
    # the window really was an hour shorter that night
    start = at(BERLIN, 2026, 3, 28, 22, 0)
    assert end.astimezone(UTC) - start.astimezone(UTC) == timedelta(hours=8)


def test_the_same_instant_is_judged_in_each_local_time() -> None:
    late = hours("22:00", "04:00")
    utc_instant = datetime(2026, 7, 1, 3, 0, tzinfo=UTC)  # 23:00 in New York (EDT), 05:00 in Berlin (CEST)
    assert window_at(late, utc_instant.astimezone(NEW_YORK)) is not None
    assert window_at(late, utc_instant.astimezone(BERLIN)) is None


def test_back_to_back_windows_chain_in_quiet_until() -> None:
    nightly_all_day = hours("00:00", "00:00", ["sat", "sun"])  # whole weekend
    end = quiet_until(nightly_all_day, at(BERLIN, 2026, 11, 28, 10, 0))
    assert end == at(BERLIN, 2026, 11, 30, 0, 0)


ZONES = [ZoneInfo(z) for z in ("Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "UTC")]
clock_times = st.builds(time, st.integers(0, 23), st.sampled_from([0, 15, 30, 59]))
instants = st.datetimes(min_value=datetime(2024, 1, 1), max_value=datetime(2030, 12, 31), timezones=st.just(UTC))


@settings(max_examples=400, deadline=None)
@given(
    start=clock_times,
    end=clock_times,
    days=st.lists(st.sampled_from(WEEKDAYS), unique=True),
    instant=instants,
    zone=st.sampled_from(ZONES),
)
def test_schedule_properties(start: time, end: time, days: list[str], instant: datetime, zone: ZoneInfo) -> None:
    schedule = QuietHours(enabled=True, start=start, end=end, days=days)  # type: ignore[arg-type]
    local = instant.astimezone(zone)
    window = window_at(schedule, local)
    wall = local.time().replace(tzinfo=None)
    crosses = end <= start
    today_on = WEEKDAYS[local.weekday()] in days
    yesterday_on = WEEKDAYS[(local.weekday() - 1) % 7] in days
    if crosses:
        expected = (today_on and wall >= start) or (yesterday_on and wall < end)
    else:
        expected = today_on and start <= wall < end
    assert (window is not None) is expected  # the reference definition, by wall clock
    if window is not None:
        assert window.start.time() == start and window.end.time() == end  # wall-clock bounds
        assert window.start.replace(tzinfo=None) <= local.replace(tzinfo=None) < window.end.replace(tzinfo=None)
        until = quiet_until(schedule, local)
        assert until is not None and until.replace(tzinfo=None) >= window.end.replace(tzinfo=None)


# do not disturb ------------------------------------------------------------------------------


def test_manual_dnd_until_switched_off() -> None:
    now = at(BERLIN, 2026, 11, 27, 15)
    assert dnd_state(DndPrefs(enabled=True), now).active
    assert dnd_state(DndPrefs(enabled=True), now).describe() == "on"
    assert not dnd_state(DndPrefs(), now).active


def test_timed_dnd_expires_at_its_end() -> None:
    now = at(BERLIN, 2026, 11, 27, 15)
    prefs = DndPrefs(enabled=True, until=now + timedelta(minutes=30))
    assert dnd_state(prefs, now + timedelta(minutes=29, seconds=59)).active
    assert not dnd_state(prefs, now + timedelta(minutes=30)).active
    assert dnd_state(prefs, now).describe() == "on until Fri 15:30"


def test_quiet_hours_make_dnd_with_their_end() -> None:
    prefs = DndPrefs(quiet_hours=hours("22:00", "07:00"))
    state = dnd_state(prefs, at(BERLIN, 2026, 11, 27, 23))
    assert state.active and state.reason == "quiet_hours" and state.until == at(BERLIN, 2026, 11, 28, 7)
    assert state.describe() == "quiet hours until Sat 07:00"


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("30m", at(BERLIN, 2026, 11, 27, 15, 30)),
        ("1h", at(BERLIN, 2026, 11, 27, 16)),
        ("1h30m", at(BERLIN, 2026, 11, 27, 16, 30)),
        ("2d", at(BERLIN, 2026, 11, 29, 15)),
        ("until tomorrow", at(BERLIN, 2026, 11, 28, 8)),
        ("tomorrow", at(BERLIN, 2026, 11, 28, 8)),
        ("until 14:00", at(BERLIN, 2026, 11, 28, 14)),
        ("until 18:00", at(BERLIN, 2026, 11, 27, 18)),
    ],
)
def test_durations(spec: str, expected: datetime) -> None:
    assert dnd_end(spec, at(BERLIN, 2026, 11, 27, 15), time(8, 0)) == expected


@pytest.mark.parametrize("spec", ["", "soon", "0m", "5x", "1h 2q", "-1h"])
def test_bad_durations_are_refused_with_a_hint(spec: str) -> None:
    with pytest.raises(DurationError, match="duration"):
        dnd_end(spec, at(BERLIN, 2026, 11, 27, 15), time(8, 0))


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("-1h", "a duration cannot be negative: '-1h' (try '1h')"),
        ("until 25:00", "not a time of day: '25:00' (hours 00-23"),
        ("until 12:60", "not a time of day: '12:60'"),
        ("until soon", "until when? 'soon' is not a time"),
        ("99999999999999d", "is more than 100 years: use `acp-tray dnd on`"),
    ],
)
def test_bad_durations_say_what_is_wrong_with_them(spec: str, says: str) -> None:
    with pytest.raises(DurationError) as raised:
        dnd_end(spec, at(BERLIN, 2026, 11, 27, 15), time(8, 0))
    assert says in str(raised.value)


def test_a_dnd_end_beyond_a_week_shows_its_date() -> None:
    now = at(BERLIN, 2026, 11, 27, 15)
    soon = dnd_state(DndPrefs(enabled=True, until=now + timedelta(days=2)), now)
    assert soon.describe() == "on until Sun 15:00"
    far = dnd_state(DndPrefs(enabled=True, until=dnd_end("100000h", now, time(8))), now)
    assert far.describe() == "on until Sun 25 Apr 2038 08:00"
    assert far.as_json() == {
        "active": True,
        "reason": "manual",
        "until": "2038-04-25T08:00:00+02:00",
        "description": "on until Sun 25 Apr 2038 08:00",
    }


def test_until_tomorrow_after_midnight_means_this_morning() -> None:
    assert next_morning(at(BERLIN, 2026, 11, 28, 1), time(8)) == at(BERLIN, 2026, 11, 28, 8)


def test_one_hour_is_one_hour_across_the_dst_change() -> None:
    before = datetime(2026, 10, 25, 1, 30, tzinfo=BERLIN)  # CEST; at 03:00 clocks go back to 02:00
    end = dnd_end("1h", before, time(8))
    assert end.astimezone(UTC) - before.astimezone(UTC) == timedelta(hours=1)
