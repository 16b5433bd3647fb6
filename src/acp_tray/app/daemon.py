"""The running daemon: its parts, built and connected by `app/compose.py`, and the members the
control ops use (each the part's own, or a thin delegation to it).

Data flows one way: AgentHost -> event queue -> EventPump -> (history, surfaces, tray publisher).
Nothing downstream of the queue holds a reference to an agent connection.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp_tray.agents.approvals import Approvals
from acp_tray.agents.host import AgentHost
from acp_tray.agents.questions import Questions
from acp_tray.agents.sessions import SessionStore
from acp_tray.app.actions import NotificationActions, TrayActions
from acp_tray.app.fleet import Fleet
from acp_tray.app.lifetime import Lifetime
from acp_tray.app.publisher import Listener, TrayPublisher
from acp_tray.app.pump import EventPump
from acp_tray.app.reloader import PrefsReloader
from acp_tray.app.troubles import Troubles
from acp_tray.app.usage import UsageKeeper
from acp_tray.events import AgentStatus, Event
from acp_tray.prefs.model import Preferences
from acp_tray.prefs.write import Written
from acp_tray.presentation.actions import READ_ALL, AgentVerb
from acp_tray.presentation.dnd import DndMode, DndState
from acp_tray.presentation.recent import Recent
from acp_tray.presentation.router import Router
from acp_tray.push.pusher import Pusher
from acp_tray.state.history import HistoryWriter
from acp_tray.tray.snapshot import TraySnapshot


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

    # what the control ops use ------------------------------------------------------------

    @property
    def prefs(self) -> Preferences:
        return self.core.router.prefs

    @property
    def prefs_path(self) -> Path | None:
        return self.core.reloader.path

    @property
    def prefs_version(self) -> str:
        """The preferences file's version as last seen settled or written ("" without a file)."""
        return self.core.reloader.version

    @property
    def pusher(self) -> Pusher:
        return self.core.pusher

    @property
    def usage(self) -> UsageKeeper:
        return self.core.usage

    @property
    def router(self) -> Router:
        return self.core.router

    @property
    def approvals(self) -> Approvals:
        return self.core.approvals

    @property
    def questions(self) -> Questions:
        return self.core.questions

    @property
    def hosts(self) -> dict[str, AgentHost]:
        return self.core.fleet.hosts

    @property
    def agent_states(self) -> dict[str, AgentStatus]:
        return self.core.fleet.states

    @property
    def troubles(self) -> Troubles:
        return self.core.fleet.troubles

    @property
    def session_store(self) -> SessionStore:
        return self.core.fleet.store

    def supervised(self, name: str) -> bool:
        return self.core.fleet.supervised(name)

    def agent_action(self, verb: AgentVerb, name: str) -> None:
        self.core.fleet.agent_action(verb, name)

    def retry_agent(self, name: str) -> None:
        """Start `name` again after the person acted on why it would not work (it refused, or
        needed a sign-in): the entry point for a sign-in flow. A refused agent is never retried
        on its own."""
        self.core.fleet.agent_action("restart", name)

    async def stop_agent(self, name: str, *, held: bool = False) -> None:
        await self.core.fleet.stop_agent(name, held=held)

    def change_prefs(self, change: Callable[[Path], Preferences | Written], *, saved: bool = False) -> None:
        """`saved`: the person's own save (the window's Preferences page), answered "Preferences applied"."""
        self.core.reloader.change_prefs(change, saved=saved)

    def apply_prefs_now(self) -> None:
        self.core.reloader.apply_now()

    def switch_dnd(self, mode: DndMode, value: str | None) -> DndState:
        """Do not disturb switched as the tray does it (written to the file, applied and shown at
        once); the state it leads to. A bad duration is a DurationError."""
        self.core.reloader.switch_dnd(mode, value)
        self.core.publisher.publish_now()
        return self.core.router.dnd()

    def mark_all_read(self) -> None:
        """The tray's "Mark all read", shown at once: nothing unread."""
        self.tray.perform(READ_ALL)
        self.core.publisher.publish_now()

    @property
    def tray_backend(self) -> str | None:
        """The running tray's pystray backend; None without a tray."""
        return self.tray.tray_backend

    @property
    def history_path(self) -> Path:
        return self.history.path

    def report(self, event: Event) -> None:
        """An event from outside the agents (the command API): presented like theirs."""
        self.core.queue.put_nowait(event)

    def in_background(self, work: Coroutine[Any, Any, None]) -> None:
        self.core.life.in_background(work)

    def request_stop(self) -> None:
        self.core.life.request_stop()

    def snapshot(self) -> TraySnapshot:
        return self.core.publisher.snapshot()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Follow every change a status reader sees (for `watch`); returns the unsubscribe."""
        return self.core.publisher.subscribe(listener)

    # what the desktop does (tests drive these directly) ----------------------------------

    def tray_action(self, choice: str) -> None:
        self.tray.on_choice(choice)

    def local_action(self, group: int, what: str) -> None:
        self.core.notifications.on_notification(group, what)
