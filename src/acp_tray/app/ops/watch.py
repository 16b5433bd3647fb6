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
from typing import TYPE_CHECKING, Any

from acp_tray.app.ops.push import target_rows
from acp_tray.app.ops.status import StatusOps
from acp_tray.app.publisher import Change, Changed
from acp_tray.control.replies import WatchState
from acp_tray.control.server import Stream

if TYPE_CHECKING:
    from acp_tray.app.daemon import Daemon

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
    def __init__(self, daemon: Daemon, status: StatusOps) -> None:
        self._daemon, self._status = daemon, status

    async def _state(self) -> WatchState:
        status = await self._status.status()
        pusher = self._daemon.pusher
        return {
            "dnd": status["dnd"],
            "morning": status["morning"],
            "unread": status["unread"],
            "agents": status["agents"],
            "approvals": status["approvals"],
            "questions": status["questions"],
            "sessions": await self._status.sessions(),
            "today": status["today"],
            "preferences": self._daemon.prefs_version,
            "push": target_rows(pusher, pusher.services(), self._daemon.prefs.push.answers),
        }

    async def watch(self, stream: Stream) -> None:
        follower = _Follower()
        unsubscribe = self._daemon.subscribe(follower)
        gone = asyncio.ensure_future(stream.gone())
        try:
            last = await self._state()
            stream({"event": "snapshot", **last})
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
                    stream({"event": "snapshot", **now})
                else:
                    while follower.records:
                        stream({"event": "history", "record": follower.records.popleft()})
                    changed = {key: value for key, value in now.items() if last.get(key) != value}
                    if changed:
                        stream({"event": "change", **changed})
                last = now
        except ConnectionError:
            return  # the client went away
        finally:
            unsubscribe()
            gone.cancel()
