"""The daemon's state for the window: its `watch` stream, read on a thread of its own (the control
client is blocking), merged into the latest state and fanned out to each open page's event stream.

One connection to the daemon for all pages. When the stream ends the daemon has stopped, and the
window ends with it (`on_end`). A page that does not keep up gets a fresh full render rather than
an ever-growing queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable, Iterator

from acp_tray.control import api, replies
from acp_tray.control.client import NoDaemonError, ReplyError, call

log = logging.getLogger(__name__)

QUEUE = 64  # events held for one page; past that it is sent everything again
RESYNC = replies.Snapshot({})  # what a page that fell behind gets: all of it (from `state`)


class Feed:
    def __init__(self, loop: asyncio.AbstractEventLoop, on_end: Callable[[str], None]) -> None:
        self._loop = loop
        self._on_end = on_end
        self.state: replies.WatchState = {}
        self.ready = asyncio.Event()  # the first snapshot came
        self._pages: set[asyncio.Queue[replies.WatchEvent]] = set()
        self._thread = threading.Thread(target=self._read, name="acp-tray-window-feed", daemon=True)

    def start(self) -> None:
        self._thread.start()

    @property
    def pages(self) -> int:
        """Pages with an open event stream."""
        return len(self._pages)

    @contextlib.contextmanager
    def follow(self) -> Iterator[asyncio.Queue[replies.WatchEvent]]:
        """The events for one open page, while it is open."""
        queue: asyncio.Queue[replies.WatchEvent] = asyncio.Queue(QUEUE)
        self._pages.add(queue)
        try:
            yield queue
        finally:
            self._pages.discard(queue)

    def _read(self) -> None:
        reason = "acp-tray stopped"
        try:
            with call(api.WATCH, api.Args(), timeout=None) as pending:
                for event in pending.events():
                    self._loop.call_soon_threadsafe(self._deliver, event)
        except (NoDaemonError, ReplyError, OSError) as exc:
            reason = f"acp-tray stopped ({exc})"
        except Exception:  # never a silent thread death: the window must end with the daemon
            log.exception("reading the daemon's changes failed")
        self._loop.call_soon_threadsafe(self._on_end, reason)

    def _deliver(self, event: replies.WatchEvent) -> None:
        match event:
            case replies.Snapshot(state):
                self.state = state.copy()
                self.ready.set()
            case replies.Changes(state):
                self.state.update(state)
        for queue in tuple(self._pages):
            try:
                queue.put_nowait(event)
            except asyncio.QueueFull:
                while not queue.empty():
                    queue.get_nowait()
                queue.put_nowait(RESYNC)
