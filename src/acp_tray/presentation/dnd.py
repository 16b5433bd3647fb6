"""Do not disturb: whether it holds now, why, and until when; and the switch as the CLI, the tray
and the control API set it (off, on, for a duration, until a time)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta
from typing import Literal

from acp_tray.prefs.model import DndPrefs
from acp_tray.presentation.schedule import quiet_until


@dataclass(frozen=True)
class DndState:
    active: bool
    reason: str = ""  # "manual" | "quiet_hours" | ""
    until: datetime | None = None  # None while active: until switched off
    # when this was worked out (how far away `until` is); not part of what the state *is*, so two
    # snapshots of the same state compare equal and the tray is not redrawn for nothing
    at: datetime | None = field(default=None, compare=False)

    def describe(self) -> str:
        if not self.active:
            return "off"
        what = "on" if self.reason == "manual" else "quiet hours"
        if self.until is None:
            return what
        if self.at is not None and self.until - self.at < WITHIN_A_WEEK:
            return f"{what} until {self.until:%a %H:%M}"
        return f"{what} until {self.until:%a %d %b %Y %H:%M}"  # not this week: the date says when

    def as_json(self) -> dict[str, object]:
        """For `dnd status --json`."""
        return {
            "active": self.active,
            "reason": self.reason or None,
            "until": self.until.isoformat() if self.until is not None else None,
            "description": self.describe(),
        }


WITHIN_A_WEEK = timedelta(days=6)  # beyond this a weekday alone is ambiguous


def dnd_state(prefs: DndPrefs, now: datetime) -> DndState:
    """DND at `now` (aware, local): the manual switch (maybe timed) first, then quiet hours."""
    manual = prefs.enabled and (prefs.until is None or now < prefs.until)
    quiet_end = quiet_until(prefs.quiet_hours, now)
    if manual:
        # if quiet hours outlast a timed DND, report the later end
        until = prefs.until
        if until is not None and quiet_end is not None and quiet_end > until:
            until = quiet_end
        return DndState(True, "manual", until, now)
    if quiet_end is not None:
        return DndState(True, "quiet_hours", quiet_end, now)
    return DndState(False, at=now)


_PART = re.compile(r"(\d+)\s*(d|h|m|s)")
_UNIT = {"d": 86400, "h": 3600, "m": 60, "s": 1}


MAX_DURATION = 100 * 365 * 86400  # beyond that: `dnd on`; and no date arithmetic overflows


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
    until = spec.startswith("until ")
    if until:
        spec = spec[len("until ") :].strip()
    if spec == "tomorrow":
        return next_morning(now, morning)
    clock = re.fullmatch(r"(\d{1,2}):(\d{2})", spec)
    if clock:
        hour, minute = int(clock.group(1)), int(clock.group(2))
        if hour > 23 or minute > 59:
            raise DurationError(f"not a time of day: {spec!r} (hours 00-23, minutes 00-59, e.g. 14:00)")
        return next_morning(now, time(hour, minute))
    if until:
        raise DurationError(f'until when? {spec!r} is not a time (try "until 14:00" or "until tomorrow")')
    compact = spec.replace(" ", "")
    if compact.startswith("-"):
        raise DurationError(f"a duration cannot be negative: {spec!r} (try {compact[1:]!r})")
    parts = _PART.findall(compact)
    if not parts or "".join(f"{n}{u}" for n, u in parts) != compact:
        raise DurationError(f'not a duration: {spec!r} (try "30m", "1h", "1h30m", "tomorrow"; or until 14:00)')
    seconds = sum(int(n) * _UNIT[u] for n, u in parts)
    if seconds <= 0:
        raise DurationError(f"a duration must be more than zero: {spec!r}")
    if seconds > MAX_DURATION:
        raise DurationError(f"{spec!r} is more than 100 years: use `acp-tray dnd on` (until switched off)")
    # absolute time, not wall-clock arithmetic: "1h" is one hour even across a DST change
    return (now.astimezone(UTC) + timedelta(seconds=seconds)).astimezone(now.tzinfo)


DndMode = Literal["off", "on", "for", "until"]


def dnd_switch(mode: DndMode, value: str | None, now: datetime, morning: time) -> tuple[bool, datetime | None]:
    """What switching DND to `mode` at `now` sets, as (enabled, until): "off"; "on" until switched
    off; "for" a duration ("30m", "1h", "tomorrow"); "until" a time ("14:00", "tomorrow": the
    next `morning`). A missing or bad `value` is a DurationError in plain words."""
    if mode == "off":
        return False, None
    if mode == "on":
        return True, None
    if value is None or not value.strip():
        if mode == "for":
            raise DurationError('for how long? give a duration, e.g. "30m", "1h" or "tomorrow"')
        raise DurationError('until when? give a time, e.g. "14:00" or "tomorrow"')
    return True, dnd_end(value if mode == "for" else f"until {value}", now, morning)
