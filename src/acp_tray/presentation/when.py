"""When something happened, as a list beside it shows it: the clock today ("14:03"), the weekday
within the week ("Tue 14:03"), the date before that ("25 Nov", "25 Nov 2025" in another year)."""

from __future__ import annotations

from datetime import datetime

WEEK_DAYS = 7  # within this many calendar days a weekday is unambiguous


def span_words(seconds: float) -> str:
    """A span of time in a few words: "90 s", "5 min"."""
    return f"{seconds:g} s" if seconds < 120 else f"{seconds / 60:g} min"


def when_label(moment: datetime, now: datetime) -> str:
    """`moment` (aware) as seen from `now` (aware, local): both in `now`'s time zone."""
    local = moment.astimezone(now.tzinfo)
    days = (now.date() - local.date()).days
    if days <= 0:
        return f"{local:%H:%M}"  # today (or a clock that ran ahead: still its own time)
    if days < WEEK_DAYS:
        return f"{local:%a %H:%M}"
    return f"{local:%d %b}" if local.year == now.year else f"{local:%d %b %Y}"
