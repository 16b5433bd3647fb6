"""One pending call at a time on the running event loop: setting it again replaces what was set
(a summary due sooner, a DND that ends later). How acp-tray waits for a known moment, never polls."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class OneTimer:
    def __init__(self) -> None:
        self._handle: asyncio.TimerHandle | None = None

    def set(self, delay: float | None, callback: Callable[[], None]) -> None:
        """Call `callback` in `delay` seconds instead of what was set (None: nothing is set)."""
        self.cancel()
        if delay is not None:
            self._handle = asyncio.get_running_loop().call_later(delay, callback)

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
