"""What every away source answers (the person's idle time, a locked screen), and the two sources
built from others: none at all, and several read in order of trust."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class AwaySource(Protocol):
    name: str  # "X11 idle time", "logind", "GetLastInputInfo", "none", …

    def idle_seconds(self) -> float | None:
        """Seconds since the person's last input; None: cannot tell now."""

    def locked(self) -> bool:
        """The screen is locked (where known), else False."""


class NoSource:
    """This machine offers nothing to read: never idle as far as anyone knows, never locked."""

    name = "none"

    def idle_seconds(self) -> float | None:
        return None

    def locked(self) -> bool:
        return False


class FirstAnswer:
    """Several sources: the idle time of the first that can tell, locked if any says so."""

    def __init__(self, parts: Sequence[AwaySource]) -> None:
        self.parts = tuple(parts)
        self.name = " + ".join(part.name for part in self.parts)

    def idle_seconds(self) -> float | None:
        for part in self.parts:
            idle = part.idle_seconds()
            if idle is not None:
                return idle
        return None

    def locked(self) -> bool:
        return any(part.locked() for part in self.parts)
