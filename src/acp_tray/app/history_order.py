"""The history in the order of arrival: a record whose push is still being decided (while the away
source is asked, in a thread) waits, and those after it wait behind it; each record written is told
on the change feed."""

from __future__ import annotations

import asyncio
from collections import deque

from acp_tray.app.publisher import Changed, TrayPublisher
from acp_tray.events import NoticeMalformed, NoticeReceived
from acp_tray.presentation.router import Decision
from acp_tray.push.pusher import Pushed
from acp_tray.state.history import HistoryWriter


class OrderedHistory:
    def __init__(self, history: HistoryWriter, publisher: TrayPublisher) -> None:
        self._history = history
        self._publisher = publisher
        self._held: deque[tuple[NoticeReceived, Decision | None, Pushed]] = deque()  # records waiting to be written

    def malformed(self, event: NoticeMalformed) -> None:
        """A notice that could not be read: written at once (nothing is pushed of it)."""
        self._publisher.changed(Changed.HISTORY, self._history.append(event, None))

    def record(self, event: NoticeReceived, decision: Decision | None, pushed: Pushed) -> None:
        if not self._held and not isinstance(pushed, asyncio.Future):
            self._publisher.changed(Changed.HISTORY, self._history.append(event, decision, pushed))
            return
        self._held.append((event, decision, pushed))
        if isinstance(pushed, asyncio.Future):
            pushed.add_done_callback(lambda _: self._write_held())

    def finish(self) -> None:
        """Write every waiting record (shutting down): a push still undecided is written as none."""
        self._write_held(finish=True)

    def _write_held(self, *, finish: bool = False) -> None:
        """Write the waiting records whose push is decided, in order (`finish`: all of them)."""
        while self._held:
            event, decision, pushed = self._held[0]
            if isinstance(pushed, asyncio.Future):
                if not pushed.done() and not finish:
                    return
                pushed = pushed.result() if pushed.done() and not pushed.cancelled() else []
            self._held.popleft()
            self._publisher.changed(Changed.HISTORY, self._history.append(event, decision, pushed))
