"""The daemon's run: the event that ends it, and the work it runs in the background meanwhile."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any


class Lifetime:
    def __init__(self) -> None:
        self._stop: asyncio.Event | None = None
        self._background: set[asyncio.Future[None]] = set()

    def begin(self, stop: asyncio.Event) -> None:
        """The daemon runs until `stop` is set."""
        self._stop = stop

    @property
    def stopping(self) -> bool:
        return self._stop is not None and self._stop.is_set()

    def request_stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    def in_background(self, work: Coroutine[Any, Any, None]) -> None:
        """Run `work` beside everything else (kept referenced until it is done)."""
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
