"""The history ops: `history` (newest first, a page at a time, over the file and its rotated
copies; read in a worker thread, a page in memory at a time) and `read` (mark all read, as the
tray's "Mark all read" does)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from acp_tray.control.api import HistoryArgs
from acp_tray.control.errors import ErrorCode, OpError
from acp_tray.control.replies import HistoryReply, UnreadReply
from acp_tray.presentation.actions import READ_ALL
from acp_tray.state.history_pages import HistoryFilter, history_page

if TYPE_CHECKING:
    from acp_tray.app.actions import TrayActions
    from acp_tray.app.publisher import TrayPublisher


class HistoryOps:
    def __init__(self, path: Path, publisher: TrayPublisher, tray: TrayActions) -> None:
        self._path = path  # the history file
        self._publisher = publisher
        self._tray = tray

    async def history(self, args: HistoryArgs) -> HistoryReply:
        shown = HistoryFilter(agent=args.agent, severity=args.severity, source=args.source, text=args.text)
        try:
            page = await asyncio.to_thread(history_page, self._path, shown, args.before, args.limit)
        except OSError as exc:
            raise OpError(f"cannot read the history: {exc.filename}: {exc.strerror or exc}", ErrorCode.FAILED) from None
        return {"records": page.records, "next": page.next, "unread": self._publisher.snapshot().unread}

    async def read(self) -> UnreadReply:
        self._tray.perform(READ_ALL)  # as the tray's "Mark all read"; shown at once
        self._publisher.publish_now()
        return {"unread": self._publisher.snapshot().unread}
