"""`watch`: the daemon's state as it changes, for status bars and the window. A snapshot first,
then a `change` event with what changed (agents, sessions, approvals, DND, unread, the preferences
file's version, the push targets) and a
`history` event for each new history record, until the client goes.

Bounded per client: while a client does not read, changes only set a flag and new history
records wait in a short queue; a client that falls further behind gets a fresh snapshot once it
reads again, never an ever-growing buffer. No polling: the daemon's change feed wakes it.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from acp_tray.app.ops.push import target_rows
from acp_tray.app.ops.status import StatusOps
from acp_tray.app.publisher import Change, Changed
from acp_tray.control.server import Emit
from acp_tray.control.watch_events import Changes, HistoryAdded, Snapshot, WatchEvent, WatchState

if TYPE_CHECKING:
    from acp_tray.app.publisher import TrayPublisher
    from acp_tray.app.reloader import PrefsReloader
    from acp_tray.prefs.model import Preferences
    from acp_tray.push.pusher import Pusher

MAX_RECORDS = 100  # history records held for a client that is not reading; past that: a snapshot


class _Follower:
    """One watching client: what happened since it was last sent something."""

    def __init__(self) -> None:
        self.wake = asyncio.Event()
        self.records: deque[dict[str, Any]] = deque()
        self.behind = False  # more records came than are held: a snapshot is due

    def __call__(self, change: Change) -> None:
        if change.what is Changed.HISTORY and change.record is not None:
            if len(self.records) >= MAX_RECORDS:
                self.behind = True
                self.records.clear()
            elif not self.behind:
                self.records.append(change.record)
        self.wake.set()


class WatchOps:
    def __init__(
        self,
        status: StatusOps,
        publisher: TrayPublisher,
        reloader: PrefsReloader,
        pusher: Pusher,
        prefs: Callable[[], Preferences],
    ) -> None:
        self._status = status
        self._publisher = publisher  # its change feed wakes each watcher
        self._reloader = reloader  # the preferences file's version as last seen
        self._pusher = pusher  # the push targets as last read (never their URLs)
        self._prefs = prefs  # the preferences in force (`[push] answers`)

    async def _state(self) -> WatchState:
        status = await self._status.status()
        pusher = self._pusher
        return {
            "dnd": status["dnd"],
            "morning": status["morning"],
            "unread": status["unread"],
            "agents": status["agents"],
            "approvals": status["approvals"],
            "questions": status["questions"],
            "sessions": await self._status.sessions(),
            "today": status["today"],
            "preferences": self._reloader.version,
            "push": target_rows(pusher, pusher.services(), self._prefs().push.answers),
        }

    async def watch(self, stream: Emit[WatchEvent]) -> None:
        follower = _Follower()
        unsubscribe = self._publisher.subscribe(follower)
        gone = asyncio.ensure_future(stream.gone())
        try:
            last = await self._state()
            stream(Snapshot(last))
            while True:
                await stream.drained()  # a client that does not read holds us here; changes only gather
                if not follower.wake.is_set():
                    woken = asyncio.ensure_future(follower.wake.wait())
                    await asyncio.wait({woken, gone}, return_when=asyncio.FIRST_COMPLETED)
                    woken.cancel()
                    if gone.done():
                        return
                follower.wake.clear()
                now = await self._state()
                if follower.behind:
                    follower.behind = False
                    stream(Snapshot(now))
                else:
                    while follower.records:
                        stream(HistoryAdded(follower.records.popleft()))
                    changed = {key: value for key, value in now.items() if last.get(key) != value}
                    if changed:
                        stream(Changes(cast(WatchState, changed)))
                last = now
        except ConnectionError:
            return  # the client went away
        finally:
            unsubscribe()
            gone.cancel()
