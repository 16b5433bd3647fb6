"""The composition root: builds the agent hosts, the history and the presenter, and wires them.

Data flows one way: AgentHost -> event queue -> (history, presenter). Nothing downstream of the
queue holds a reference to an agent connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from pathlib import Path

from acp_tray.agents.host import AgentHost, AgentSpec
from acp_tray.events import AgentStatus, Event, NoticeMalformed, NoticeReceived
from acp_tray.history import HistoryWriter
from acp_tray.prefs.model import AgentConfig, Preferences

log = logging.getLogger(__name__)

SHUTDOWN_GRACE = 5.0

Presenter = Callable[[Event], None]


def spec_of(config: AgentConfig) -> AgentSpec:
    cwd = config.cwd.expanduser() if config.cwd is not None else Path.home()
    return AgentSpec(command=list(config.command), cwd=cwd, env=dict(config.env))


class Daemon:
    def __init__(
        self,
        prefs: Preferences,
        *,
        history: HistoryWriter,
        present: Presenter,
        advertise_notices: bool = True,
    ) -> None:
        self._queue: asyncio.Queue[Event] = asyncio.Queue()
        self._history = history
        self._present = present
        self.hosts = [
            AgentHost(name, spec_of(config), self._queue.put_nowait, advertise_notices=advertise_notices)
            for name, config in prefs.agents.items()
        ]

    async def run(self, stop: asyncio.Event) -> None:
        """Host every agent and present their events until `stop` is set; then shut down cleanly."""
        consumer = asyncio.create_task(self._consume(), name="present")
        agents = [asyncio.create_task(host.run(), name=f"agent:{host.name}") for host in self.hosts]
        try:
            await stop.wait()
        finally:
            for task in agents:
                task.cancel()
            if agents:
                _, pending = await asyncio.wait(agents, timeout=SHUTDOWN_GRACE)
                if pending:
                    log.warning("%d agent(s) did not stop within %.0f s", len(pending), SHUTDOWN_GRACE)
            await self._queue.join()
            consumer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await consumer
            self._history.close()

    async def _consume(self) -> None:
        while True:
            event = await self._queue.get()
            try:
                self._handle(event)
            except Exception:  # a presenter fault must never stop presentation
                log.exception("could not present an event")
            finally:
                self._queue.task_done()

    def _handle(self, event: Event) -> None:
        if isinstance(event, (NoticeReceived, NoticeMalformed)):
            self._history.append(event)
        if isinstance(event, (NoticeReceived, AgentStatus)):
            self._present(event)
