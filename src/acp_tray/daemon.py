"""The composition root: builds the agent hosts, the router, the history and the surfaces, and wires them.

Data flows one way: AgentHost -> event queue -> Router -> (history, surfaces). Nothing
downstream of the queue holds a reference to an agent connection. Preferences come in from the
file watcher; an invalid file is reported as acp-tray's own notice and the last good settings stay.
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
from acp_tray.prefs.load import PreferencesError, read_preferences
from acp_tray.prefs.model import AgentConfig, Preferences
from acp_tray.prefs.watch import watch_file
from acp_tray.presentation.clock import Clock, SystemClock
from acp_tray.presentation.recent import Recent
from acp_tray.presentation.router import ACP_TRAY, Presentation, Router
from acp_tray.protocol.notice import Notice

log = logging.getLogger(__name__)

SHUTDOWN_GRACE = 5.0

Surface = Callable[[Presentation], None]
StatusSink = Callable[[AgentStatus], None]


def spec_of(config: AgentConfig) -> AgentSpec:
    command, cwd, env = config.launch()
    return AgentSpec(command=command, cwd=cwd, env=env)


class Daemon:
    def __init__(
        self,
        prefs: Preferences,
        *,
        history: HistoryWriter,
        surfaces: list[Surface],
        status: StatusSink,
        prefs_path: Path | None = None,
        clock: Clock | None = None,
        advertise_notices: bool = True,
    ) -> None:
        self._queue: asyncio.Queue[Event] = asyncio.Queue()
        self._history = history
        self._surfaces = surfaces
        self._status = status
        self._prefs_path = prefs_path
        self._advertise_notices = advertise_notices
        self.router = Router(prefs, clock or SystemClock())
        self.recent = Recent()
        self.hosts: dict[str, AgentHost] = {}
        self._agent_tasks: dict[str, asyncio.Task[None]] = {}
        self._summary_timer: asyncio.TimerHandle | None = None
        self._last_prefs_error: str | None = None
        self._background: set[asyncio.Future[None]] = set()

    @property
    def prefs(self) -> Preferences:
        return self.router.prefs

    async def run(self, stop: asyncio.Event) -> None:
        """Host every agent and present their events until `stop` is set; then shut down cleanly."""
        consumer = asyncio.create_task(self._consume(), name="present")
        watcher = None
        if self._prefs_path is not None:
            watcher = asyncio.create_task(watch_file(self._prefs_path, self.reload_prefs, stop), name="watch")
        self._sync_agents(self.prefs)
        try:
            await stop.wait()
        finally:
            if self._summary_timer is not None:
                self._summary_timer.cancel()
            await self._stop_agents(list(self._agent_tasks))
            await self._queue.join()
            for task in (consumer, watcher):
                if task is not None:
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
            self._history.close()

    # preferences -----------------------------------------------------------------------

    def reload_prefs(self) -> None:
        """The file changed: apply it if valid, else report and keep the last good settings."""
        assert self._prefs_path is not None
        try:
            prefs = read_preferences(self._prefs_path)
        except PreferencesError as exc:
            self._report_prefs_error(str(exc))
            return
        self._last_prefs_error = None
        self.router.update_prefs(prefs)
        log.info("preferences reloaded from %s; do not disturb: %s", self._prefs_path, self.router.dnd().describe())
        self._sync_agents(prefs)

    def _report_prefs_error(self, message: str) -> None:
        if message == self._last_prefs_error:
            return  # the same problem saved again: said once is enough
        self._last_prefs_error = message
        log.error("preferences not applied, keeping the last good settings:\n%s", message)
        notice = Notice("error", "Preferences not applied", f"{message}\nThe last good settings stay in force.")
        self._queue.put_nowait(NoticeReceived(ACP_TRAY, "", notice))

    # agents ------------------------------------------------------------------------------

    def _sync_agents(self, prefs: Preferences) -> None:
        """Start new agents, stop removed ones, restart those whose command, cwd or env changed."""
        wanted = {name: spec_of(config) for name, config in prefs.agents.items()}
        changed = [n for n, host in self.hosts.items() if n not in wanted or host.spec != wanted[n]]
        if changed:
            restart = asyncio.ensure_future(self._restart(changed, wanted))
            self._background.add(restart)
            restart.add_done_callback(self._background.discard)
        for name, spec in wanted.items():
            if name not in self.hosts:
                self._start(name, spec)

    async def _restart(self, names: list[str], wanted: dict[str, AgentSpec]) -> None:
        await self._stop_agents(names)
        for name in names:
            if name in wanted and name not in self.hosts:
                self._start(name, wanted[name])

    def _start(self, name: str, spec: AgentSpec) -> None:
        host = AgentHost(name, spec, self._queue.put_nowait, advertise_notices=self._advertise_notices)
        self.hosts[name] = host
        self._agent_tasks[name] = asyncio.create_task(host.run(), name=f"agent:{name}")

    async def _stop_agents(self, names: list[str]) -> None:
        tasks = [self._agent_tasks.pop(name) for name in names if name in self._agent_tasks]
        for name in names:
            self.hosts.pop(name, None)
        for task in tasks:
            task.cancel()
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=SHUTDOWN_GRACE)
            if pending:
                log.warning("%d agent(s) did not stop within %.0f s", len(pending), SHUTDOWN_GRACE)

    # presentation --------------------------------------------------------------------------

    async def _consume(self) -> None:
        while True:
            event = await self._queue.get()
            try:
                self._handle(event)
            except Exception:  # a surface fault must never stop presentation
                log.exception("could not present an event")
            finally:
                self._queue.task_done()

    def _handle(self, event: Event) -> None:
        if isinstance(event, NoticeReceived):
            decision, presentation = self.router.route(event)
            self._history.append(event, decision)
            if presentation is not None:
                self._present(presentation)
            self._schedule_summaries()
        elif isinstance(event, NoticeMalformed):
            self._history.append(event, None)
        else:
            self._status(event)

    def local_action(self, group: int, what: str) -> None:
        """A person acted on a shown notification ("clicked", "closed", "expired").

        Local only: it may mark the item read in the tray list; nothing reaches any agent.
        """
        if what in ("clicked", "closed"):
            self.recent.mark_read(group)
        log.debug("notification %d %s", group, what)

    def add_surface(self, surface: Surface) -> None:
        self._surfaces.append(surface)

    def _present(self, presentation: Presentation) -> None:
        if presentation.tray:
            self.recent.add(presentation)
        for surface in self._surfaces:
            try:
                surface(presentation)
            except Exception:
                log.exception("a surface failed to present a notice")

    def _schedule_summaries(self) -> None:
        """One timer for the earliest due overflow summary (no polling)."""
        if self._summary_timer is not None:
            self._summary_timer.cancel()
            self._summary_timer = None
        delay = self.router.next_summary_in()
        if delay is not None:
            self._summary_timer = asyncio.get_running_loop().call_later(delay, self._flush_summaries)

    def _flush_summaries(self) -> None:
        self._summary_timer = None
        for presentation in self.router.summaries():
            self._present(presentation)
        self._schedule_summaries()
