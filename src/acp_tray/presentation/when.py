"""When something happened. In the tray's menu (`when_label`): the clock today ("14:03"), the weekday
within the week ("Tue 14:03"), the date before that ("25 Nov", "25 Nov 2025" in another year).
In the history and an agent's last problem (`dated_label`): the clock today, "Yesterday 16:42",
then "3 Dec 16:42"."""

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


def dated_label(moment: datetime, now: datetime, *, seconds: bool = False) -> str:
    """`moment` for a list that runs over days (the history, Recent, an agent's last problem): the
    clock today ("16:42"), "Yesterday 16:42", then the date ("3 Dec 16:42", "3 Dec 2025 16:42" in
    another year). Both aware; shown in `now`'s time zone. `seconds`: "16:42:10" (the CLI's history)."""
    local = moment.astimezone(now.tzinfo)
    clock = f"{local:%H:%M:%S}" if seconds else f"{local:%H:%M}"
    days = (now.date() - local.date()).days
    if days <= 0:
        return clock  # today (or a clock that ran ahead: still its own time)
    if days == 1:
        return f"Yesterday {clock}"
    date = f"{local.day} {local:%b}" if local.year == now.year else f"{local.day} {local:%b %Y}"
    return f"{date} {clock}"
