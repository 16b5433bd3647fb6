"""The session's idle and lock state from D-Bus: logind's session (LockedHint, IdleHint) on the
system bus, and `org.freedesktop.ScreenSaver` (GetActive, GetSessionIdleTime) on the session bus.

Each question is one short connection through the project's dbus-fast link, on a private event
loop of the calling thread (callers ask from a worker thread, never from the daemon's loop):
nothing stays connected, and nothing is asked while nobody asks.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from acp_tray.notifiers.bus import BusError, BusLink

T = TypeVar("T")
TIMEOUT = 2.0
SYSTEM_BUS = "unix:path=/run/dbus/system_bus_socket"  # the D-Bus specification's default
LOGIN1 = "org.freedesktop.login1"
MANAGER = (LOGIN1, "/org/freedesktop/login1", "org.freedesktop.login1.Manager")
SESSION = "org.freedesktop.login1.Session"
PROPERTIES = "org.freedesktop.DBus.Properties"
SCREENSAVER = ("org.freedesktop.ScreenSaver", "/org/freedesktop/ScreenSaver", "org.freedesktop.ScreenSaver")
# no bus, no service, an error reply, no answer in time, a reply of another shape than the
# specification's; RuntimeError: asked from a thread whose event loop runs (asyncio.run refuses)
FAILURES = (OSError, ValueError, EOFError, BusError, TimeoutError, LookupError, TypeError, RuntimeError)


def system_bus_address() -> str | None:
    """The system bus's address, or None when there is none to reach."""
    address = os.environ.get("DBUS_SYSTEM_BUS_ADDRESS")
    if address:
        return address
    return SYSTEM_BUS if os.path.exists(SYSTEM_BUS.removeprefix("unix:path=")) else None


def ask(address: str | None, question: Callable[[BusLink], Awaitable[T]]) -> T | None:
    """`question` over one connection to the bus at `address` (None: the session bus); None when
    the bus, the service or the answer is missing."""
    from acp_tray.notifiers.bus.dbus_fast_link import DbusFastLink

    async def asking() -> T:
        link = DbusFastLink(address)
        try:
            await asyncio.wait_for(link.connect(), TIMEOUT)
            return await asyncio.wait_for(question(link), TIMEOUT)
        finally:
            await link.aclose()

    try:
        return asyncio.run(asking())
    except FAILURES:
        return None


def _value(body: list[Any]) -> Any:
    """A property's value from a Get reply (dbus-fast hands it as a Variant)."""
    return getattr(body[0], "value", body[0])


async def _session_path(link: BusLink) -> str:
    """This person's logind session: XDG_SESSION_ID's, else this process's, else (a systemd user
    service is in no session) the user's graphical one."""
    session_id = os.environ.get("XDG_SESSION_ID")
    if session_id:
        return str((await link.call(*MANAGER, "GetSession", "s", [session_id])).body[0])
    try:
        return str((await link.call(*MANAGER, "GetSessionByPID", "u", [os.getpid()])).body[0])
    except BusError:
        user = (LOGIN1, "/org/freedesktop/login1/user/self", PROPERTIES)
        _, path = _value((await link.call(*user, "Get", "ss", ["org.freedesktop.login1.User", "Display"])).body)
        if path in ("", "/"):
            raise
        return str(path)


class LogindSource:
    """logind's hints for the session: locked as the locker said; idle as the desktop said (a
    desktop that never sets IdleHint is never idle here)."""

    name = "logind"

    def __init__(self, address: str, session_path: str) -> None:
        self._address = address
        self.session_path = session_path

    @classmethod
    def find(cls) -> LogindSource | None:
        address = system_bus_address()
        if address is None:
            return None
        path = ask(address, _session_path)
        return None if path is None else cls(address, path)

    def _hints(self) -> dict[str, Any] | None:
        async def get_all(link: BusLink) -> dict[str, Any]:
            reply = await link.call(LOGIN1, self.session_path, PROPERTIES, "GetAll", "s", [SESSION])
            return {name: getattr(value, "value", value) for name, value in reply.body[0].items()}

        return ask(self._address, get_all)

    def idle_seconds(self) -> float | None:
        hints = self._hints()
        if hints is None or "IdleHint" not in hints:
            return None
        if not hints["IdleHint"]:
            return 0.0
        since_monotonic = int(hints.get("IdleSinceHintMonotonic", 0))
        if since_monotonic:
            return max(0.0, time.monotonic() - since_monotonic / 1e6)
        since = int(hints.get("IdleSinceHint", 0))
        return max(0.0, time.time() - since / 1e6) if since else None

    def locked(self) -> bool:
        hints = self._hints()
        return bool(hints and hints.get("LockedHint"))


class ScreenSaverSource:
    """The desktop's screen saver service: active (blanked or locked), and the session's idle time
    where it gives one (KDE does, in milliseconds; GNOME Shell has no such method)."""

    name = "ScreenSaver"

    @classmethod
    def find(cls) -> ScreenSaverSource | None:
        from acp_tray.desktop.session_bus import session_bus_available

        if not session_bus_available():
            return None
        source = cls()
        return source if source._active() is not None else None

    def _active(self) -> bool | None:
        async def get_active(link: BusLink) -> bool:
            return bool((await link.call(*SCREENSAVER, "GetActive", "", [])).body[0])

        return ask(None, get_active)

    def idle_seconds(self) -> float | None:
        async def idle_time(link: BusLink) -> float:
            return int((await link.call(*SCREENSAVER, "GetSessionIdleTime", "", [])).body[0]) / 1000.0

        return ask(None, idle_time)

    def locked(self) -> bool:
        return bool(self._active())
