"""Time as the policy sees it: an injectable clock (wall time in the local zone, and monotonic)."""

from __future__ import annotations

import time
from datetime import datetime, tzinfo
from typing import Protocol

import tzlocal


def local_zone() -> tzinfo:
    """The system's time zone with its DST rules (not a fixed offset)."""
    try:
        return tzlocal.get_localzone()
    except Exception:
        zone = datetime.now().astimezone().tzinfo
        assert zone is not None
        return zone


class Clock(Protocol):
    def now(self) -> datetime:
        """An aware datetime in the local zone."""

    def monotonic(self) -> float:
        """Seconds, for intervals (rate limits, coalescing windows)."""


class SystemClock:
    def __init__(self, zone: tzinfo | None = None) -> None:
        self.zone = zone if zone is not None else local_zone()

    def now(self) -> datetime:
        return datetime.now(self.zone)

    def monotonic(self) -> float:
        return time.monotonic()
