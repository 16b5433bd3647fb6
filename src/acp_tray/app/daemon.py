"""The running daemon: its parts, built and connected by `app/compose.py` (which hands each control
op the parts it uses), and its run.

Data flows one way: AgentHost -> event queue -> EventPump -> (history, surfaces, tray publisher).
Nothing downstream of the queue holds a reference to an agent connection.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass

from acp_tray.agents.approvals import Approvals
from acp_tray.agents.questions import Questions
from acp_tray.app.actions import NotificationActions, TrayActions
from acp_tray.app.fleet import Fleet
from acp_tray.app.lifetime import Lifetime
from acp_tray.app.publisher import TrayPublisher
from acp_tray.app.pump import EventPump
from acp_tray.app.reloader import PrefsReloader
from acp_tray.app.usage import UsageKeeper
from acp_tray.events import Event
from acp_tray.presentation.recent import Recent
from acp_tray.presentation.router import Router
from acp_tray.push.pusher import Pusher
from acp_tray.state.history import HistoryWriter


@dataclass(frozen=True)
class Core:
    """The parts that need nothing from the desktop's surfaces (built before the notifiers, which
    hand their buttons to `notifications`)."""

    queue: asyncio.Queue[Event]
    life: Lifetime
    router: Router
    recent: Recent
    approvals: Approvals
    questions: Questions
    fleet: Fleet
    publisher: TrayPublisher
    reloader: PrefsReloader
    notifications: NotificationActions
    pusher: Pusher
    usage: UsageKeeper


@dataclass(frozen=True)
class Daemon:
    core: Core
    history: HistoryWriter
    pump: EventPump
    tray: TrayActions

    async def run(self, stop: asyncio.Event, choices: asyncio.Queue[str] | None = None) -> None:
        """Host every agent and present their events until `stop` is set; then shut down cleanly.
        `choices`: the tray menu's, handed over from the tray's thread."""
        core = self.core
        core.life.begin(stop)
        tasks = [asyncio.create_task(self.pump.run(), name="present")]
        if core.reloader.path is not None:
            tasks.append(asyncio.create_task(core.reloader.watch(stop), name="watch"))
        if choices is not None:
            tasks.append(asyncio.create_task(self.tray.follow(choices), name="tray"))
        core.publisher.subscribe(self.pump.on_change)  # DND's end shows the approvals it held back
        core.fleet.sync(core.router.prefs)
        core.publisher.publish()
        try:
            await stop.wait()
        finally:
            self.pump.close()
            core.usage.close()
            core.publisher.close()
            core.reloader.close()
            await core.fleet.stop_all()
            await core.queue.join()
            for task in tasks:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            self.history.close()
