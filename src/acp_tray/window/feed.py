"""The daemon's state for the window: its `watch` stream, read on a thread of its own (the control
client is blocking), merged into the latest state and fanned out to each open page's event stream.

One connection to the daemon for all pages. When the stream ends the daemon has stopped: each open
page is told (a `down` message, `on_down` called), and the stream is asked for again every RETRY
seconds until the daemon answers; its first snapshot then tells the pages it is back. A page that
does not keep up gets a fresh full render rather than an ever-growing queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from acp_tray.control import api, watch_events
from acp_tray.control.client import NoDaemonError, ReplyError, call

log = logging.getLogger(__name__)

QUEUE = 64  # events held for one page; past that it is sent everything again
RETRY = 1.0  # seconds between attempts to reach a stopped daemon (only while it is down)


@dataclass(frozen=True)
class Down:
    """What every page gets when the daemon stops (its first snapshot then says it is back)."""


PageEvent = watch_events.WatchEvent | Down  # what an open page is sent
RESYNC = watch_events.Snapshot({})  # what a page that fell behind gets: all of it (from `state`)
DOWN = Down()


class Feed:
    def __init__(self, loop: asyncio.AbstractEventLoop, on_down: Callable[[str], None]) -> None:
        self._loop = loop
        self._on_down = on_down
        self.state: watch_events.WatchState = {}
        self.ready = asyncio.Event()  # the first snapshot came
        # which state a page was drawn from: this process's own mark and a count of what came since
        # (a page drawn from the state its stream starts at is not drawn again: a click made on it
        # the moment it loaded keeps its "Signing in…")
        self._mark, self._count = secrets.token_hex(4), 0
        self.down = False  # the daemon stopped and has not answered again yet
        self._pages: set[asyncio.Queue[PageEvent]] = set()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._read, name="acp-tray-window-feed", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """No more attempts to reach the daemon (the window is ending)."""
        self._stopped.set()

    @property
    def version(self) -> str:
        return f"{self._mark}-{self._count}"

    @property
    def pages(self) -> int:
        """Pages with an open event stream."""
        return len(self._pages)

    @contextlib.contextmanager
    def follow(self) -> Iterator[asyncio.Queue[PageEvent]]:
        """The events for one open page, while it is open."""
        queue: asyncio.Queue[PageEvent] = asyncio.Queue(QUEUE)
        self._pages.add(queue)
        try:
            yield queue
        finally:
            self._pages.discard(queue)

    def _read(self) -> None:
        while not self._stopped.is_set():
            reason = "acp-tray stopped"
            try:
                with call(api.WATCH, api.Args(), timeout=None) as pending:
                    for event in pending.events():
                        self._loop.call_soon_threadsafe(self._deliver, event)
            except (NoDaemonError, ReplyError, OSError) as exc:
                reason = f"acp-tray stopped ({exc})"
            except Exception:  # never a silent thread death: the pages must hear that the daemon is gone
                log.exception("reading the daemon's changes failed")
            self._loop.call_soon_threadsafe(self._went_down, reason)
            self._stopped.wait(RETRY)

    def _went_down(self, reason: str) -> None:
        if self.down:
            return
        self.down = True
        self._fan_out(DOWN)
        self._on_down(reason)

    def _deliver(self, event: watch_events.WatchEvent) -> None:
        match event:
            case watch_events.Snapshot(state):
                self.state = state.copy()
                self.down = False
                self.ready.set()
            case watch_events.Changes(state):
                self.state.update(state)
        self._count += 1
        self._fan_out(event)

    def _fan_out(self, message: PageEvent) -> None:
        for queue in tuple(self._pages):
            try:
                queue.put_nowait(message)
            except asyncio.QueueFull:
                while not queue.empty():
                    queue.get_nowait()
                queue.put_nowait(RESYNC if not self.down else DOWN)
