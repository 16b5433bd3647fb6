"""The window's connections, before any request reaches a page: a connection from another user's
socket is closed at once (window/peer.py), a request head not complete within HEAD_SECONDS is
closed, at most CONCURRENCY connections are served at a time (beyond it a plain 503), and the
process may hold as many descriptors as the system lets it (RLIMIT_NOFILE raised to its hard limit).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from acp_tray.window.peer import UnknownOwnerError, owner

HEAD_SECONDS = 5.0  # a request head (line and headers) takes one packet from a browser
CONCURRENCY = 128  # open connections: every tab holds one event stream and up to five more
MACOS_MOST_FILES = 10240  # macOS refuses a soft limit above OPEN_MAX even when the hard one is "unlimited"

log = logging.getLogger(__name__)


class Refusals:
    """The user ids refused so far: each is written to the window's log once, not once a connection."""

    def __init__(self) -> None:
        self._told: set[int | None] = set()

    def refused(self, uid: int | None, why: str) -> None:
        if uid not in self._told:
            self._told.add(uid)
            log.warning("acp-tray window: refused a connection: %s (later ones from there are not logged)", why)


def stranger(transport: asyncio.BaseTransport) -> tuple[int | None, str] | None:
    """Why the other end of `transport` is not the person's own (its user id, or None when it could
    not be found, and the words), or None when it is theirs or the platform cannot tell."""
    peer, local = transport.get_extra_info("peername"), transport.get_extra_info("sockname")
    if not isinstance(peer, tuple) or not isinstance(local, tuple):
        return None, "its address is unknown (it closed)"
    try:
        uid = owner((peer[0], peer[1]), (local[0], local[1]))
    except UnknownOwnerError as exc:
        return None, f"its owner is unknown: {exc}"
    if uid is None or uid == os.getuid():
        return None
    return uid, f"it comes from user id {uid}, not from you ({os.getuid()})"


class WindowProtocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with the window's door checks on the connection itself."""

    refusals = Refusals()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._refused = False
        self._head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        foreign = stranger(transport)
        if foreign is not None:
            self._refused = True
            self.refusals.refused(*foreign)
            transport.abort()  # nothing read, nothing answered
            return
        super().connection_made(transport)
        self._wait_for_head()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._refused:
            return
        self._stop_waiting()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._head_timer is None and self.conn.their_state is h11.IDLE:
            self._wait_for_head()  # the next request on a kept-alive connection has begun
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._stop_waiting()

    def _wait_for_head(self) -> None:
        self._head_timer = self.loop.call_later(HEAD_SECONDS, self._head_late)

    def _stop_waiting(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_late(self) -> None:
        self._head_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()  # a half-sent head, or nothing at all: the descriptor is freed


def most_files() -> None:
    """RLIMIT_NOFILE's soft limit raised to the hard one (POSIX): a flood of connections runs into the
    limits above long before the process runs out of descriptors."""
    try:
        import resource
    except ImportError:  # Windows: no such limit on sockets
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard
    if sys.platform == "darwin" and (hard == resource.RLIM_INFINITY or hard > MACOS_MOST_FILES):
        wanted = MACOS_MOST_FILES
    if soft != resource.RLIM_INFINITY and (wanted == resource.RLIM_INFINITY or wanted > soft):
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (OSError, ValueError) as exc:
            log.warning("acp-tray window: the open-files limit stays at %d: %s", soft, exc)
