"""The interface every away source has: how long since the person's last input, and whether the
screen is locked."""

from __future__ import annotations

from typing import Protocol


class AwaySource(Protocol):
    name: str  # "X11 idle time", "logind", "GetLastInputInfo", "none", …

    def idle_seconds(self) -> float | None:
        """Seconds since the person's last input; None: cannot tell now."""
        ...

    def locked(self) -> bool:
        """The screen is locked (where known), else False."""
        ...
