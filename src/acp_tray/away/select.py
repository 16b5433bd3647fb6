"""The best away source this machine has, and whether the person is away by it."""

from __future__ import annotations

from acp_tray.away.source import AwaySource


class NoSource:
    """No way to tell: never idle, never locked (so "away" never holds)."""

    name = "none"

    def idle_seconds(self) -> float | None:
        return None

    def locked(self) -> bool:
        return False


def away_source() -> AwaySource:
    return NoSource()


def is_away(source: AwaySource, after: float) -> bool:
    """Locked, or idle for at least `after` seconds."""
    if source.locked():
        return True
    idle = source.idle_seconds()
    return idle is not None and idle >= after
