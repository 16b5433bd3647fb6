"""The one small interface every notification backend implements."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from acp_tray.notifiers.content import Notification


class BackendUnavailableError(Exception):
    """The backend cannot show notifications (now): the chain falls back to the next one."""


# A local user action on a shown notification: (group, what) with what = "closed" | "clicked".
# It goes to the daemon's local state only; there is no path from here to any agent.
LocalAction = Callable[[int, str], None]


class Backend(Protocol):
    name: str

    async def start(self) -> str:
        """Connect/check; return a one-line description. Raises BackendUnavailableError."""

    async def notify(self, notification: Notification) -> None:
        """Show (or update in place, for a repeated group) one notification. Raises BackendUnavailableError."""

    async def close(self, group: int) -> None:
        """Take the group's notification off the screen (nothing, where the desktop offers no way).
        Raises BackendUnavailableError."""

    async def aclose(self) -> None:
        """Release connections."""
