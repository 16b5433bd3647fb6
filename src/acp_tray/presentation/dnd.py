"""Do not disturb: whether it holds now, why, and until when; and DND durations from the CLI."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta

from acp_tray.prefs.model import DndPrefs
from acp_tray.presentation.schedule import quiet_until


@dataclass(frozen=True)
class DndState:
    active: bool
    reason: str = ""  # "manual" | "quiet_hours" | ""
    until: datetime | None = None  # None while active: until switched off

    def describe(self) -> str:
        if not self.active:
            return "off"
        what = "on" if self.reason == "manual" else "quiet hours"
        return f"{what} until {self.until:%a %H:%M}" if self.until else what


def dnd_state(prefs: DndPrefs, now: datetime) -> DndState:
    """DND at `now` (aware, local): the manual switch (maybe timed) first, then quiet hours."""
    manual = prefs.enabled and (prefs.until is None or now < prefs.until)
    quiet_end = quiet_until(prefs.quiet_hours, now)
    if manual:
        # if quiet hours outlast a timed DND, report the later end
        until = prefs.until
        if until is not None and quiet_end is not None and quiet_end > until:
            until = quiet_end
        return DndState(True, "manual", until)
    if quiet_end is not None:
        return DndState(True, "quiet_hours", quiet_end)
    return DndState(False)


_PART = re.compile(r"(\d+)\s*(d|h|m|s)")
_UNIT = {"d": 86400, "h": 3600, "m": 60, "s": 1}


class DurationError(ValueError):
    pass


def next_morning(now: datetime, morning: time) -> datetime:
    """ "Until tomorrow": the next time the clock shows `morning` (08:00 by default).
    At 01:00 that is 08:00 the same day: the person has not slept yet."""
    candidate = datetime.combine(now.date(), morning, tzinfo=now.tzinfo)
    if candidate <= now:
        candidate = datetime.combine(now.date() + timedelta(days=1), morning, tzinfo=now.tzinfo)
    return candidate


def dnd_end(text: str, now: datetime, morning: time) -> datetime:
    """When DND started `now` for `text` ends: "30m", "1h", "1h30m", "2d", "90s", "until tomorrow",
    "tomorrow", or "until 14:00" (the next time the clock shows 14:00)."""
    spec = text.strip().lower()
    if spec.startswith("until "):
        spec = spec[len("until ") :].strip()
    if spec == "tomorrow":
        return next_morning(now, morning)
    clock = re.fullmatch(r"([01]?\d|2[0-3]):([0-5]\d)", spec)
    if clock:
        return next_morning(now, time(int(clock.group(1)), int(clock.group(2))))
    compact = spec.replace(" ", "")
    parts = _PART.findall(compact)
    if not parts or "".join(f"{n}{u}" for n, u in parts) != compact:
        raise DurationError(f'not a duration: {text!r} (try "30m", "1h", "1h30m", "until tomorrow", "until 14:00")')
    seconds = sum(int(n) * _UNIT[u] for n, u in parts)
    if seconds <= 0:
        raise DurationError(f"duration must be more than zero: {text!r}")
    # absolute time, not wall-clock arithmetic: "1h" is one hour even across a DST change
    return (now.astimezone(UTC) + timedelta(seconds=seconds)).astimezone(now.tzinfo)
