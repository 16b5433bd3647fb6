"""Quiet hours: a weekly schedule in local wall-clock time.

A window belongs to the day it starts on; when `end` <= `start` it crosses midnight and ends
on the next day (`start == end` means the whole day). Times are compared on the local wall
clock of the given instant, so the schedule stays right across DST changes: 22:00-07:00 is
22:00-07:00 on the clock on the short and the long night alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo

from acp_tray.prefs.model import WEEKDAYS, QuietHours


def _weekday(day: date) -> str:
    return WEEKDAYS[day.weekday()]


def _crosses_midnight(hours: QuietHours) -> bool:
    return hours.end <= hours.start


@dataclass(frozen=True)
class Window:
    start: datetime
    end: datetime


def window_at(hours: QuietHours, instant: datetime) -> Window | None:
    """The quiet-hours window containing `instant` (aware, in the local zone), or None."""
    if not hours.enabled or not hours.days:
        return None
    zone = instant.tzinfo
    assert zone is not None, "quiet hours need an aware instant"
    wall = instant.time()
    today = instant.date()
    yesterday = today - timedelta(days=1)
    day: date | None = None
    if _crosses_midnight(hours):
        if _weekday(today) in hours.days and wall >= hours.start:
            day = today
        elif _weekday(yesterday) in hours.days and wall < hours.end:
            day = yesterday
    elif _weekday(today) in hours.days and hours.start <= wall < hours.end:
        day = today
    if day is None:
        return None
    return Window(_at(day, hours.start, zone), _end_of(day, hours, zone))


def _at(day: date, clock: time, zone: tzinfo) -> datetime:
    return datetime.combine(day, clock, tzinfo=zone)


def _end_of(day: date, hours: QuietHours, zone: tzinfo) -> datetime:
    end_day = day + timedelta(days=1) if _crosses_midnight(hours) else day
    return _at(end_day, hours.end, zone)


def quiet_until(hours: QuietHours, instant: datetime) -> datetime | None:
    """When quiet hours that hold at `instant` end, following back-to-back windows."""
    window = window_at(hours, instant)
    if window is None:
        return None
    end = window.end
    for _ in range(8):  # at most a week of chained windows
        following = window_at(hours, end)
        if following is None or following.end <= end:
            break
        end = following.end
    return end
