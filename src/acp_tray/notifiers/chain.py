"""Deliver native notifications through the first backend that works, never losing one.

A surface for the daemon: `present()` takes every presentation routed to a native
notification. Sending is asynchronous and bounded: at most `max_in_flight` calls at once; a
later update of a coalesced group replaces its waiting one (the newest count wins) and waits
for the earlier call so `replaces_id` is known. A backend that fails is skipped with one
warning, the notification goes to the next backend at once, and the failed one is tried
again after `retry_after` seconds.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence

from acp_tray.notifiers.backend import Backend, BackendUnavailableError
from acp_tray.notifiers.content import Notification, notification_of
from acp_tray.presentation.router import Presentation

log = logging.getLogger(__name__)

RETRY_AFTER = 30.0
MAX_IN_FLIGHT = 8
MAX_PENDING = 256


class NotifierChain:
    def __init__(
        self,
        backends: Sequence[Backend],
        *,
        max_in_flight: int = MAX_IN_FLIGHT,
        retry_after: float = RETRY_AFTER,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.backends = list(backends)
        self._max_in_flight = max_in_flight
        self._retry_after = retry_after
        self._monotonic = monotonic
        self._down_until: dict[str, float] = {}
        self._probing: dict[str, asyncio.Lock] = {}
        self._pending: OrderedDict[int, Notification] = OrderedDict()  # group -> newest waiting
        self._busy: set[int] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._closing: set[asyncio.Task[None]] = set()
        self._idle = asyncio.Event()
        self._idle.set()
        self.delivered: dict[str, int] = {backend.name: 0 for backend in self.backends}
        self.dropped = 0
        self._closed = False

    async def start(self) -> str:
        """Start each backend; return which one will be used, and why others will not."""
        notes = []
        for backend in self.backends:
            try:
                description = await backend.start()
            except BackendUnavailableError as exc:
                self._down_until[backend.name] = self._monotonic() + self._retry_after
                notes.append(f"{backend.name}: {exc}")
                continue
            if backend.name == "console" and notes:
                return f"presenting on the console; no desktop notifications here ({'; '.join(notes)})"
            return f"{backend.name} ({description})" + (f"; skipped {'; '.join(notes)}" if notes else "")
        return "none available: " + "; ".join(notes)

    @property
    def backlog(self) -> int:
        """Notifications waiting for a free call slot."""
        return len(self._pending)

    @property
    def active(self) -> str | None:
        now = self._monotonic()
        for backend in self.backends:
            if self._down_until.get(backend.name, 0.0) <= now:
                return backend.name
        return None

    def present(self, presentation: Presentation) -> None:
        if not presentation.notify or self._closed:
            return
        notification = notification_of(presentation)
        self._pending[notification.group] = notification
        self._pending.move_to_end(notification.group)
        while len(self._pending) > MAX_PENDING:
            self._pending.popitem(last=False)
            self.dropped += 1
            if self.dropped == 1 or self.dropped % 1000 == 0:
                log.warning(
                    "notification backlog full; %d oldest dropped (they are in the tray and history)", self.dropped
                )
        self._kick()

    def withdraw(self, group: int) -> None:
        """Take this group's notification off the screen (once its delivery, if any, is done)."""
        if self._closed:
            return
        self._pending.pop(group, None)
        delivering = [t for t in self._tasks if t.get_name() == f"notify:{group}"]
        task = asyncio.create_task(self._close(group, delivering), name=f"close:{group}")
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def _close(self, group: int, delivering: list[asyncio.Task[None]]) -> None:
        await asyncio.gather(*delivering, return_exceptions=True)
        for backend in self.backends:
            try:
                await backend.close(group)
            except BackendUnavailableError as exc:
                log.info("%s could not close a notification: %s", backend.name, exc)

    async def drain(self) -> None:
        """Wait until every queued notification was handed to a backend (for shutdown and tests)."""
        await self._idle.wait()

    def _kick(self) -> None:
        if self._closed:
            return
        for group in list(self._pending):
            if len(self._tasks) >= self._max_in_flight:
                break
            if group in self._busy:
                continue
            notification = self._pending.pop(group)
            self._busy.add(group)
            self._tasks.add(asyncio.create_task(self._deliver(notification), name=f"notify:{group}"))
        if self._tasks or self._pending:
            self._idle.clear()
        else:
            self._idle.set()

    async def _deliver(self, notification: Notification) -> None:
        """One notification's delivery; its slot is given to the next waiting one as it ends, in the
        same step (a done callback would cost the event loop one more turn per notification)."""
        try:
            await self._send(notification)
        except Exception:
            log.exception("showing a notification failed")
        finally:
            self._tasks.discard(asyncio.current_task())
            self._busy.discard(notification.group)
            self._kick()

    async def _send(self, notification: Notification) -> None:
        for backend in self.backends:
            if not await self._usable(backend):
                continue
            try:
                await backend.notify(notification)
            except BackendUnavailableError as exc:
                self._down_until[backend.name] = self._monotonic() + self._retry_after
                log.warning(
                    "%s notifications failed (%s); using the next backend, retrying %s in %.0f s",
                    backend.name,
                    exc,
                    backend.name,
                    self._retry_after,
                )
                continue
            self.delivered[backend.name] += 1
            log.debug("%s showed %r", backend.name, notification.summary)
            return
        log.error("no notification backend could show %r", notification.summary)

    async def _usable(self, backend: Backend) -> bool:
        down_until = self._down_until.get(backend.name)
        if down_until is None:
            return True
        if self._monotonic() < down_until:
            return False
        async with self._probing.setdefault(backend.name, asyncio.Lock()):  # one probe at a time
            if backend.name not in self._down_until:
                return True  # another delivery's probe just found it working
            if self._monotonic() < self._down_until[backend.name]:
                return False  # ... or found it still down
            try:
                description = await backend.start()
            except BackendUnavailableError:
                self._down_until[backend.name] = self._monotonic() + self._retry_after
                return False
            self._down_until.pop(backend.name, None)
        log.warning("%s notifications work again: %s", backend.name, description)
        return True

    async def aclose(self) -> None:
        self._closed = True
        self._pending.clear()
        self._idle.set()
        for task in [*self._tasks, *self._closing]:
            task.cancel()
        await asyncio.gather(*self._tasks, *self._closing, return_exceptions=True)
        for backend in self.backends:
            await backend.aclose()
