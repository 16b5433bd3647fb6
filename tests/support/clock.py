"""A clock a test moves by hand, for the pure policy code (DND, schedules, coalescing, rate limits)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


class FakeClock:
    """A clock for pure policy tests: local wall time (aware) and monotonic seconds move together."""

    def __init__(self, start: datetime) -> None:
        self._now = start
        self._mono = 1000.0

    def now(self) -> datetime:
        return self._now

    def monotonic(self) -> float:
        return self._mono

    def advance(self, seconds: float) -> None:
        self._now = (self._now.astimezone(UTC) + timedelta(seconds=seconds)).astimezone(self._now.tzinfo)
        self._mono += seconds
