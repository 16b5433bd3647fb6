"""The time now, in the local zone: what events, the history and the window date things with."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta

_MS = timedelta(milliseconds=1)


def now() -> datetime:
    return datetime.now().astimezone()


def _to_ms(at: datetime) -> datetime:
    return at.replace(microsecond=at.microsecond // 1000 * 1000)


class _Stamps:
    """Times each at least a millisecond after the one before: the history names an entry by its
    time to the millisecond (a notification's click opens it there), and a burst of notices read at
    once would otherwise share one."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last: datetime | None = None

    def next(self) -> datetime:
        with self._lock:
            at = now()
            if self._last is not None and _to_ms(at) <= self._last:
                at = self._last + _MS  # on a millisecond already
            self._last = _to_ms(at)
            return at


_stamps = _Stamps()


def stamp() -> datetime:
    """The time of an event: now, or a millisecond after the last event's when that was the same."""
    return _stamps.next()
