"""The composition root: builds the agent hosts, the router, the history and the surfaces, and wires them.

Data flows one way: AgentHost -> event queue -> Router -> (history, surfaces). Nothing
downstream of the queue holds a reference to an agent connection. Preferences come in from the
file watcher; an invalid file is reported as acp-tray's own notice and the last good settings stay.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from acp_tray.agents.approvals import ApprovalError, Approvals
from acp_tray.agents.host import AgentHost, AgentSpec, PermissionPolicy
from acp_tray.agents.sessions import SessionStore
from acp_tray.agents.signin import SignInError
from acp_tray.agents.supervisor import BackoffPolicy, supervise
from acp_tray.agents.versions import VersionMemory
from acp_tray.desktop.opener import open_path
from acp_tray.desktop.terminal_window import NoTerminalError, cli_command, open_in_terminal
from acp_tray.events import (
    AgentState,
    AgentStatus,
    Event,
    NoticeMalformed,
    NoticeReceived,
    PermissionAsked,
    PermissionSettled,
    SignInNeeded,
)
from acp_tray.files.paths import agent_icon, config_file, history_file
from acp_tray.logs.redact import looks_secret, remember_secrets, url_secrets
from acp_tray.prefs.load import PreferencesError, read_preferences
from acp_tray.prefs.model import AgentConfig, Preferences
from acp_tray.prefs.names import pasteable
from acp_tray.prefs.watch import watch_file
from acp_tray.prefs.write import set_dnd, set_quiet_hours
from acp_tray.presentation.clock import Clock, SystemClock
from acp_tray.presentation.dnd import dnd_end
from acp_tray.presentation.own_notices import SIGNIN_PREFIX, own_notice, parse_signin_action, signin_action
from acp_tray.presentation.recent import Recent
from acp_tray.presentation.router import ACP_TRAY, Presentation, Router
from acp_tray.presentation.severity import severity_class
from acp_tray.protocol.notice import Notice
from acp_tray.state.history import HistoryWriter
from acp_tray.state.secrets import SecretNames
from acp_tray.tray.snapshot import AgentRow, ApprovalRow, TraySnapshot

log = logging.getLogger(__name__)

SHUTDOWN_GRACE = 5.0
PUBLISH_EVERY = 0.2  # seconds between two snapshots for the tray, at most
SETTLE_FOR = 0.5  # seconds a changed preferences file must stay unchanged before it is applied

Surface = Callable[[Presentation], None]
Withdraw = Callable[[int], None]  # take a presentation group's notification off the screen
StatusSink = Callable[[AgentStatus], None]
Publisher = Callable[[TraySnapshot], None]
DND_ACTIONS = {"dnd:30m": "30m", "dnd:1h": "1h", "dnd:tomorrow": "tomorrow"}


def spec_of(config: AgentConfig) -> AgentSpec:
    command, cwd, env = config.launch()
    return AgentSpec(command=command, cwd=cwd, env=env, url=config.url, headers=dict(config.headers))


def remember_configured_secrets(prefs: Preferences) -> None:
    """Header values, secret-looking env values and a URL's password and query secrets: redacted
    from every log line and quoted stderr."""
    values: list[str] = []
    for config in prefs.agents.values():
        values += config.headers.values()
        values += [value for name, value in config.env.items() if looks_secret(name)]
        values += url_secrets(config.url or "")
    remember_secrets(values)


def policy_of(config: AgentConfig) -> PermissionPolicy:
    return PermissionPolicy(config.permission, config.permission_timeout)


def protocol_of(config: AgentConfig, prefs: Preferences) -> str | int:
    return config.protocol if config.protocol is not None else prefs.protocol


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
        sessions: SessionStore | None = None,
        backoff: BackoffPolicy | None = None,
        versions: VersionMemory | None = None,
        secrets: SecretNames | None = None,
        run_mark: str | None = None,
    ) -> None:
        self._queue: asyncio.Queue[Event] = asyncio.Queue()
        self.approvals = Approvals(self._queue.put_nowait)
        self.session_store = sessions or SessionStore(None)
        self._backoff = backoff or BackoffPolicy()
        self._versions = versions or VersionMemory(None)
        self._secrets = secrets
        self._run_mark = run_mark  # given to each agent (agents/leftovers.py); None: not `acp-tray run`
        self._history = history
        self._surfaces = surfaces
        self._withdrawers: list[Withdraw] = []  # surfaces that can take a notification back
        self._approval_groups: dict[str, int] = {}  # approval id -> its "Needs approval" group
        self._status = status
        self.tray_backend: str | None = None  # the running tray's, for diagnostics
        self._prefs_path = prefs_path
        self._advertise_notices = advertise_notices
        remember_configured_secrets(prefs)
        self.router = Router(prefs, clock or SystemClock())
        self.recent = Recent()
        self.hosts: dict[str, AgentHost] = {}
        self._icons: dict[str, str] = {}  # agents from the ACP Registry: their SVG icon
        self._agent_tasks: dict[str, asyncio.Task[None]] = {}
        self._lifecycle: dict[str, asyncio.Lock] = {}  # one start/stop/restart/remove of an agent at a time
        self._summary_timer: asyncio.TimerHandle | None = None
        self._last_prefs_error: str | None = None
        self._settle_timer: asyncio.TimerHandle | None = None
        self._applied: bytes | None = None  # a digest of the file's text when it was last applied
        self._background: set[asyncio.Future[None]] = set()
        self.agent_states: dict[str, AgentStatus] = {}
        self._publishers: list[Publisher] = []
        self._dnd_timer: asyncio.TimerHandle | None = None
        self._publish_timer: asyncio.TimerHandle | None = None
        self._last_publish = float("-inf")
        self._stop: asyncio.Event | None = None
        self._told_sign_in: set[str] = set()  # agents whose sign-in notice is out
        self._stopped_by_user: set[str] = set()  # stopped from the tray: not restarted by a reload
        # set by the composition in cli: whether a native notification can be shown right now,
        # and where "show it again" goes when it cannot
        self.native_notifications: Callable[[], bool] = lambda: True
        self.copy_to_clipboard: Callable[[str], None] | None = None

    @property
    def prefs(self) -> Preferences:
        return self.router.prefs

    @property
    def prefs_path(self) -> Path | None:
        return self._prefs_path

    def request_stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    def supervised(self, name: str) -> bool:
        """Whether the agent is running or will be restarted (not stopped, not given up on)."""
        return name in self._agent_tasks

    async def run(self, stop: asyncio.Event) -> None:
        """Host every agent and present their events until `stop` is set; then shut down cleanly."""
        self._stop = stop
        consumer = asyncio.create_task(self._consume(), name="present")
        watcher = None
        if self._prefs_path is not None:
            target = self._prefs_path.resolve()  # a symlinked file: its target is what changes
            watcher = asyncio.create_task(watch_file(target, self.prefs_changed, stop), name="watch")
        self._sync_agents(self.prefs)
        self._publish()
        try:
            await stop.wait()
        finally:
            for timer in (self._summary_timer, self._dnd_timer, self._publish_timer, self._settle_timer):
                if timer is not None:
                    timer.cancel()
            await self._stop_agents(list(self._agent_tasks))
            await self._queue.join()
            for task in (consumer, watcher):
                if task is not None:
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
            self._history.close()

    # preferences -----------------------------------------------------------------------

    def prefs_changed(self) -> None:
        """The watcher saw the file change: reload once it has been still for SETTLE_FOR seconds
        (a file written in pieces is never applied half-written)."""
        if self._settle_timer is not None:
            self._settle_timer.cancel()
        self._settle_timer = asyncio.get_running_loop().call_later(
            SETTLE_FOR, self._reload_when_still, self._signature()
        )

    def _signature(self) -> tuple[int, int] | None:
        assert self._prefs_path is not None
        try:
            info = self._prefs_path.stat()
        except OSError:
            return None
        return info.st_size, info.st_mtime_ns

    def _reload_when_still(self, before: tuple[int, int] | None) -> None:
        self._settle_timer = None
        if self._signature() != before:  # still being written
            self.prefs_changed()
            return
        if not self._already_applied():  # acp-tray's own write, or `apply_prefs_now`, came first
            self.reload_prefs()

    def apply_prefs_now(self) -> None:
        """The CLI has just written the file (`acp-tray dnd on`): apply it at once, so that what the
        person runs next (`acp-tray status`) sees it, rather than once the watcher saw it settle."""
        if self._settle_timer is not None:
            self._settle_timer.cancel()
            self._settle_timer = None
        if not self._already_applied():  # the watcher came first
            self.reload_prefs()

    def _digest(self) -> bytes | None:
        assert self._prefs_path is not None
        try:
            return hashlib.sha256(self._prefs_path.read_bytes()).digest()
        except OSError:
            return None

    def _already_applied(self) -> bool:
        """The file says what was last applied (by content: a save within the same timestamp tick
        is still seen). Not after an error: applying it again says that all is well again."""
        return self._last_prefs_error is None and self._applied is not None and self._digest() == self._applied

    def reload_prefs(self) -> None:
        """The file changed: apply it if valid, else report and keep the last good settings."""
        assert self._prefs_path is not None
        signature = self._signature()
        if signature is not None and signature[0] == 0:  # emptied (`: > config.toml`), or a save's first step
            self._report_prefs_error(
                f"{self._prefs_path}: the file is empty; acp-tray does not apply an empty file "
                "(to go back to the defaults, leave a comment in it, or delete it and restart acp-tray)"
            )
            return
        digest = self._digest()  # before it is read: a change meanwhile is applied again, never missed
        try:
            prefs = read_preferences(self._prefs_path)
        except PreferencesError as exc:
            self._report_prefs_error(str(exc))
            return
        self._last_prefs_error = None
        self._applied = digest
        remember_configured_secrets(prefs)
        self.router.update_prefs(prefs)
        log.info("preferences reloaded from %s; do not disturb: %s", self._prefs_path, self.router.dnd().describe())
        self._sync_agents(prefs)
        self._publish_now()

    def _report_prefs_error(self, message: str) -> None:
        if message == self._last_prefs_error:
            return  # the same problem saved again: said once is enough
        self._last_prefs_error = message
        log.error("preferences not applied, keeping the last good settings:\n%s", message)
        notice = Notice("error", "Preferences not applied", f"{message}\nThe last good settings stay in force.")
        self._queue.put_nowait(NoticeReceived(ACP_TRAY, "", notice, source=ACP_TRAY))

    # agents ------------------------------------------------------------------------------

    def _sync_agents(self, prefs: Preferences) -> None:
        """Start new agents, stop removed ones, restart those whose command, cwd or env changed."""
        wanted = {name: spec_of(config) for name, config in prefs.agents.items()}
        self._icons = {name: str(agent_icon(name)) for name in prefs.agents if agent_icon(name).is_file()}
        changed = [
            n
            for n, host in self.hosts.items()
            if n not in wanted or host.spec != wanted[n] or host.protocol != protocol_of(prefs.agents[n], prefs)
        ]
        for name, host in self.hosts.items():
            if name in prefs.agents:  # a new permission policy applies to the next request, no restart
                host.policy = policy_of(prefs.agents[name])
        if changed:
            self._in_background(self._restart(changed, wanted))
        for name, spec in wanted.items():
            if name in self.hosts or name in self._stopped_by_user:
                continue
            lock = self._lifecycle.get(name)
            if lock is not None and lock.locked():  # being stopped or restarted: started after that
                self._in_background(self._restart([name], wanted, stop=False))
            else:
                self._start(name, spec)

    def report(self, event: Event) -> None:
        """An event from outside the agents (the command API): presented like theirs."""
        self._queue.put_nowait(event)

    def in_background(self, work: Coroutine[Any, Any, None]) -> None:
        self._in_background(work)

    def _in_background(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _restart(self, names: list[str], wanted: dict[str, AgentSpec], *, stop: bool = True) -> None:
        """Stop `names` (unless `stop` is False), then start those in `wanted` that are not running,
        as configured by then; after any other start, stop or restart of the same agents is done
        (they queue, in order), and not once the daemon is stopping."""
        async with contextlib.AsyncExitStack() as held:
            for name in sorted(set(names)):  # one order for every caller: no two wait on each other
                await held.enter_async_context(self._lifecycle.setdefault(name, asyncio.Lock()))
            if stop:
                await self._stop_agents(names)
            if self._stop is not None and self._stop.is_set():
                return  # the daemon is going: nothing new starts
            for name in names:
                config = self.prefs.agents.get(name)  # removed or changed while this waited: not undone
                if name in wanted and config is not None and name not in self._agent_tasks:
                    self._start(name, spec_of(config))

    def _start(self, name: str, spec: AgentSpec) -> None:
        config = self.prefs.agents.get(name)
        host = AgentHost(
            name,
            spec,
            self._queue.put_nowait,
            approvals=self.approvals,
            store=self.session_store,
            policy=policy_of(config) if config is not None else None,
            protocol=protocol_of(config, self.prefs) if config is not None else self.prefs.protocol,
            versions=self._versions,
            advertise_notices=self._advertise_notices,
            secrets=self._secrets.values if self._secrets is not None else None,
            run_mark=self._run_mark,
        )
        self.hosts[name] = host
        task = asyncio.create_task(supervise(host, self._queue.put_nowait, self._backoff), name=f"agent:{name}")
        self._agent_tasks[name] = task
        task.add_done_callback(lambda done: self._supervision_ended(name, done))

    def _supervision_ended(self, name: str, task: asyncio.Task[None]) -> None:
        """The agent will not be restarted (cannot start, or given up): it stays listed, stopped."""
        if self._agent_tasks.get(name) is task:
            del self._agent_tasks[name]

    async def stop_agent(self, name: str) -> None:
        """Stop `name` (its whole process tree) and return once it has stopped: after `agents
        remove`, before its installed files go."""
        await self._restart([name], {})

    async def _stop_agents(self, names: list[str]) -> None:
        tasks = [self._agent_tasks.pop(name) for name in names if name in self._agent_tasks]
        stopped = [host for name in names if (host := self.hosts.pop(name, None)) is not None]
        for task in tasks:
            task.cancel()
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=SHUTDOWN_GRACE)
            if pending:
                log.warning("%d agent(s) did not stop within %.0f s", len(pending), SHUTDOWN_GRACE)
        for host in stopped:  # who waited on its sign-in looks again (a restart starts a new one just after)
            host.signin.abandon()

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
            self._route(event)
        elif isinstance(event, NoticeMalformed):
            self._history.append(event, None)
            return
        elif isinstance(event, AgentStatus):
            previous = self.agent_states.get(event.agent)
            if (
                previous is not None
                and previous.state is AgentState.NEEDS_SIGNIN
                and event.state is AgentState.CONNECTED
            ):
                self._told_sign_in.discard(event.agent)  # signed in: a later need is told again
            self.agent_states[event.agent] = event
            self._status(event)
        elif isinstance(event, SignInNeeded) and event.agent in self._told_sign_in:
            return  # once per agent until it is signed in, across restarts too
        else:
            if isinstance(event, PermissionSettled):
                self._withdraw_approval(event.approval_id)
            if isinstance(event, SignInNeeded):
                self._told_sign_in.add(event.agent)
            own = own_notice(event)
            if own is not None:
                shown = self._route(
                    NoticeReceived(own.agent, own.session_id, own.notice, source=ACP_TRAY, actions=own.actions)
                )
                if isinstance(event, PermissionAsked) and shown is not None:
                    self._approval_groups[event.approval_id] = shown.group
            elif not isinstance(event, (PermissionAsked, PermissionSettled)):
                return  # nothing the tray shows changed
        self._publish()

    def _route(self, event: NoticeReceived) -> Presentation | None:
        decision, presentation = self.router.route(event)
        self._history.append(event, decision)
        if presentation is not None:
            self._present(presentation)
        self._schedule_summaries()
        return presentation

    def _withdraw_approval(self, approval_id: str) -> None:
        """Answered anywhere (a button, the tray, the CLI), timed out or cancelled: its "Needs
        approval" notification has nothing left to ask, so it is taken off the screen."""
        group = self._approval_groups.pop(approval_id, None)
        if group is None:
            return
        for withdraw in self._withdrawers:
            try:
                withdraw(group)
            except Exception:
                log.exception("could not take back a notification")

    def add_withdrawer(self, withdraw: Withdraw) -> None:
        self._withdrawers.append(withdraw)

    def local_action(self, group: int, what: str) -> None:
        """A person acted on a shown notification ("clicked", "closed", "expired").

        Local only: it may mark the item read in the tray list; nothing reaches any agent.
        """
        if what.startswith("approval:"):  # a button the person pressed: the agent's own option
            self._answer_approval(what)
            what = "clicked"
        elif what.startswith(SIGNIN_PREFIX):  # a sign-in method the agent offered
            self._sign_in(what)
            what = "clicked"
        if what in ("clicked", "closed") and self.recent.mark_read(group):
            self._publish_now()
        log.debug("notification %d %s", group, what)

    def _answer_approval(self, action: str) -> None:
        _, approval_id, option_id = action.split(":", 2)
        try:
            self.approvals.approve(approval_id, option_id)
        except ApprovalError as exc:
            log.info("not answered: %s", exc)  # already answered, timed out, or the agent went away
        self._publish_now()

    def _sign_in(self, action: str) -> None:
        """A sign-in chosen on the desktop: an agent method through the agent; a terminal method in
        a terminal window running `acp-tray login` (which reports back). Failures are said."""
        chosen = parse_signin_action(action)
        host = self.hosts.get(chosen[0]) if chosen is not None else None
        if chosen is None or host is None:
            return
        name, method_id = chosen
        try:
            method = host.signin.choose(method_id)
        except SignInError as exc:
            self._sign_in_failed(name, str(exc))
            return
        if method.runs_in_terminal:
            command = pasteable("login", name, method_id)
            try:
                open_in_terminal([*cli_command(), "login", name, method_id, "--pause"], hint=command)
            except NoTerminalError as exc:
                self._sign_in_failed(name, str(exc))
            return

        async def through_agent() -> None:
            try:
                await host.sign_in(method)
            except SignInError as exc:
                self._sign_in_failed(name, str(exc))

        self._in_background(through_agent())

    def _sign_in_failed(self, agent: str, message: str) -> None:
        log.warning("%s: sign-in failed: %s", agent, message)
        self._queue.put_nowait(NoticeReceived(agent, "", Notice("error", "Sign-in failed", message), source=ACP_TRAY))

    # the tray ----------------------------------------------------------------------------

    def add_publisher(self, publisher: Publisher) -> None:
        """`publisher` receives an immutable snapshot whenever what the tray shows changes."""
        self._publishers.append(publisher)

    def snapshot(self) -> TraySnapshot:
        rows = []
        for name in self.prefs.agents:
            status = self.agent_states.get(name)
            icon = self._icons.get(name)
            host = self.hosts.get(name)
            sign_in: tuple[tuple[str, str], ...] = ()
            if status is not None and status.state is AgentState.NEEDS_SIGNIN and host is not None:
                sign_in = tuple(
                    (signin_action(name, m.method_id), m.name) for m in host.signin.methods if host.signin.doable(m)
                )
            rows.append(
                AgentRow(name, status.state, status.detail, icon=icon, sign_in=sign_in)
                if status
                else AgentRow(name, AgentState.STOPPED, icon=icon)
            )
        return TraySnapshot(
            agents=tuple(rows),
            dnd=self.router.dnd(),
            quiet_hours_enabled=self.prefs.dnd.quiet_hours.enabled,
            recent=self.recent.items(),
            missed_during_dnd=self.router.missed_during_dnd,
            approvals=tuple(ApprovalRow(p.approval_id, p.agent, p.title, p.options) for p in self.approvals.pending()),
        )

    def _publish(self) -> None:
        """Hand the tray a snapshot now, or (within PUBLISH_EVERY of the last) once at the end of
        that interval: a flood of notices means a few menu rebuilds, not one per notice."""
        if not self._publishers or self._publish_timer is not None:
            return
        loop = asyncio.get_running_loop()
        wait = self._last_publish + PUBLISH_EVERY - loop.time()
        if wait > 0:
            self._publish_timer = loop.call_later(wait, self._publish_now)
            return
        self._publish_now()

    def _publish_now(self) -> None:
        """At once (what the person did shows immediately)."""
        if not self._publishers:
            return
        if self._publish_timer is not None:
            self._publish_timer.cancel()
        self._publish_timer = None
        self._last_publish = asyncio.get_running_loop().time()
        snapshot = self.snapshot()
        for publisher in self._publishers:
            try:
                publisher(snapshot)
            except Exception:
                log.exception("the tray could not take a snapshot")
        self._schedule_dnd_end(snapshot)

    def _schedule_dnd_end(self, snapshot: TraySnapshot) -> None:
        """Publish again when DND ends, so the tray never shows a stale state (a timer, no polling)."""
        if self._dnd_timer is not None:
            self._dnd_timer.cancel()
            self._dnd_timer = None
        if snapshot.dnd.active and snapshot.dnd.until is not None:
            delay = max(0.0, (snapshot.dnd.until - self.router.clock.now()).total_seconds()) + 0.05
            self._dnd_timer = asyncio.get_running_loop().call_later(delay, self._publish_now)

    def tray_action(self, action: str) -> None:
        """A choice in the tray menu (on the loop thread). Local state only, except agent start/stop."""
        kind, _, argument = action.partition(":")
        try:
            if kind == "recent":
                self._recent_action(argument)
            elif kind == "approval":
                self._answer_approval(action)
            elif action.startswith(SIGNIN_PREFIX):
                self._sign_in(action)
            elif action == "dnd:off" or action in DND_ACTIONS:
                self._set_dnd(action)
            elif action == "quiet-hours:toggle":
                self.change_prefs(lambda path: set_quiet_hours(path, enabled=not self.prefs.dnd.quiet_hours.enabled))
            elif kind == "agent":
                self.agent_action(*argument.split(":", 1))
            elif action == "prefs:open" and self._prefs_path is not None:
                open_path(self._prefs_path)
            elif action == "history:open":
                open_path(history_file())
            elif action == "diagnostics":
                self._in_background(self._diagnostics())
            elif action == "quit" and self._stop is not None:
                self._stop.set()
        except PreferencesError as exc:
            self._report_prefs_error(str(exc))
        self._publish_now()

    async def _diagnostics(self) -> None:
        """The tray's "Diagnostics…": `acp-tray doctor`'s checks as a notice (problems first)."""
        from acp_tray.doctor import diagnose, report

        checks = await diagnose(self._prefs_path or config_file(), tray_backend=self.tray_backend or "none")
        problems = [c for c in checks if c.status == "problem"]
        log.info("diagnostics:\n%s", report(checks))
        title = (
            f"Diagnostics: {len(problems)} problem{'s' if len(problems) != 1 else ''}"
            if problems
            else "Diagnostics: all good"
        )
        ordered = problems + [c for c in checks if c.status != "problem"]
        text = report(ordered) + "\n(`acp-tray doctor` prints the same)"
        notice = Notice("warning" if problems else "info", title, text)
        self._queue.put_nowait(NoticeReceived(ACP_TRAY, "", notice, source=ACP_TRAY))

    def _recent_action(self, what: str) -> None:
        if what == "read-all":
            self.recent.mark_all_read()
            self.router.missed_during_dnd = 0
        elif what == "clear":
            self.recent.clear()
            self.router.missed_during_dnd = 0
        elif what.startswith("open:"):
            group = int(what.removeprefix("open:"))
            item = next((i for i in self.recent.items() if i.group == group), None)
            if item is None:
                return
            self.recent.mark_read(group)
            if not self.native_notifications() and self.copy_to_clipboard is not None:
                # no notification server to show it again: hand the full text to the clipboard
                text = f"{item.agent}: {item.title}" + (f"\n{item.description}" if item.description else "")
                self.copy_to_clipboard(text)
                return
            again = Presentation(
                group, item.agent, "", item.severity, item.kind, item.title, item.description,
                item.count, self.prefs.severity.of(severity_class(item.kind)).timeout, True, False,
                item.time, item.source,
            )  # fmt: skip
            for surface in self._surfaces:
                surface(again)

    def _set_dnd(self, action: str) -> None:
        if action == "dnd:off":
            self.change_prefs(lambda path: set_dnd(path, enabled=False, until=None))
            return
        until = dnd_end(DND_ACTIONS[action], self.router.clock.now(), self.prefs.dnd.morning)
        self.change_prefs(lambda path: set_dnd(path, enabled=True, until=until))

    def change_prefs(self, change: Callable[[Path], Preferences]) -> None:
        """Write the change to the file (comments kept) and apply it now; the watcher agrees later."""
        if self._prefs_path is None:
            raise PreferencesError("no preferences file to change (running on built-in defaults)")
        prefs = change(self._prefs_path)
        self._applied = self._digest()
        remember_configured_secrets(prefs)
        self.router.update_prefs(prefs)
        self._sync_agents(prefs)

    def agent_action(self, verb: str, name: str) -> None:
        config = self.prefs.agents.get(name)
        if config is None:
            return
        if verb == "stop":
            self._stopped_by_user.add(name)
        else:
            self._stopped_by_user.discard(name)
        if verb in ("stop", "restart"):
            self._in_background(self._restart([name], {name: spec_of(config)} if verb == "restart" else {}))
        elif verb == "start":
            self._in_background(self._restart([name], {name: spec_of(config)}, stop=False))

    def retry_agent(self, name: str) -> None:
        """Start `name` again after the person acted on why it would not work (it refused, or
        needed a sign-in): the entry point for a sign-in flow. A refused agent is never retried
        on its own."""
        self.agent_action("restart", name)

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
