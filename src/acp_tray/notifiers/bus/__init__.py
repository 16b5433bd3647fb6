"""The session bus as the freedesktop backend needs it: calls with their replies, and signals.

Two links, one interface (`BusLink`): `dbus-fast` on the daemon's asyncio loop (headless, the
X11 icon, no PyGObject), and GLib's own D-Bus (Gio) where GTK already runs the tray, so that the
tray's process does not load a second D-Bus library (~3 MB resident) next to the one GTK has.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class Signal:
    sender: str | None  # the unique name of the connection that emitted it
    path: str | None
    interface: str | None
    member: str | None
    signature: str
    body: list[Any]


@dataclass(frozen=True)
class Reply:
    sender: str | None  # the unique name of the connection that answered
    body: list[Any]


class BusError(Exception):
    """An error reply (`name`: the D-Bus error name)."""

    def __init__(self, name: str, text: str) -> None:
        super().__init__(f"{name}: {text}")
        self.name = name


class BusLink(Protocol):
    @property
    def connected(self) -> bool: ...

    async def connect(self) -> None:
        """Connect (raises OSError, ValueError, EOFError or BusError when it cannot)."""

    async def subscribe(self, interface: str, path: str, on_signal: Callable[[Signal], None]) -> None:
        """`on_signal` (on the asyncio loop) for this interface's signals at this path."""

    async def call(
        self, destination: str, path: str, interface: str, member: str, signature: str, body: list[Any]
    ) -> Reply:
        """One method call and its reply (raises BusError for an error reply)."""

    def variant(self, signature: str, value: Any) -> Any:
        """A D-Bus variant of this link's kind (for `a{sv}` hints)."""

    async def aclose(self) -> None: ...


LinkFactory = Callable[[str | None], BusLink]  # from a bus address (None: the session bus)
