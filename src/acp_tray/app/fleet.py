"""The agent fleet: a host per configured agent, supervised, kept in step with the preferences;
start, stop and restart one at a time per agent; sign-in through the agent's host."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from acp_tray.agents.approvals import Approvals
from acp_tray.agents.host import AgentHost, AgentSpec, PermissionPolicy
from acp_tray.agents.host_options import HostOptions, HostServices
from acp_tray.agents.login_request import AbandonedError, abandoned_text
from acp_tray.agents.questions import Questions
from acp_tray.agents.sessions import SessionStore
from acp_tray.agents.signin import SignInError
from acp_tray.agents.supervisor import supervise
from acp_tray.agents.versions import VersionMemory
from acp_tray.app.connecting import Arrival, Connecting
from acp_tray.app.lifetime import Lifetime
from acp_tray.app.signin_outcome import agent_outcome, state_after_signin
from acp_tray.app.troubles import Troubles
from acp_tray.backoff import BackoffPolicy
from acp_tray.desktop.terminal_window import NoTerminalError, sign_in_starter
from acp_tray.events import AgentState, AgentStatus, EventSink, NoticeReceived
from acp_tray.files.paths import agent_icon, registry_agents_dir
from acp_tray.prefs.model import AgentConfig, Preferences
from acp_tray.presentation.actions import AgentVerb, SignIn
from acp_tray.presentation.own_notices import sign_in_topic
from acp_tray.presentation.router import ACP_TRAY
from acp_tray.protocol.notice import Notice
from acp_tray.registry.installed import program_part, recall
from acp_tray.state.secrets import SecretNames

log = logging.getLogger(__name__)

SHUTDOWN_GRACE = 5.0


def spec_of(name: str, config: AgentConfig) -> AgentSpec:
    """How to run `name`; for an agent added from the registry and run as installed, its program
    without the entry's default args too (what its terminal sign-ins run)."""
    command, cwd, env = config.launch()
    installed = recall(name, registry_agents_dir()) if config.command is not None else None
    program = program_part(installed) if installed is not None and installed.command == command else []
    return AgentSpec(
        command=command, cwd=cwd, env=env, url=config.url, headers=dict(config.headers), program=tuple(program)
    )


def policy_of(config: AgentConfig) -> PermissionPolicy:
    return PermissionPolicy(config.permission, config.permission_timeout)


def protocol_of(config: AgentConfig, prefs: Preferences) -> str | int:
    return config.protocol if config.protocol is not None else prefs.protocol


@dataclass(frozen=True)
class Hosting:
    """What every agent host is given: where sessions, versions and secret names are kept, the
    restart backoff, whether notices are advertised, and the run mark (agents/leftovers.py; None:
    not `acp-tray run`)."""

    sessions: SessionStore = field(default_factory=lambda: SessionStore(None))
    versions: VersionMemory = field(default_factory=lambda: VersionMemory(None))
    secrets: SecretNames | None = None
    backoff: BackoffPolicy = field(default_factory=BackoffPolicy)
    advertise_notices: bool = True
    run_mark: str | None = None


class Fleet:
    def __init__(
        self,
        prefs: Callable[[], Preferences],
        sink: EventSink,
        approvals: Approvals,
        questions: Questions,
        hosting: Hosting,
        life: Lifetime,
    ) -> None:
        self._prefs = prefs
        self._sink = sink
        self._approvals = approvals
        self._questions = questions
        self._hosting = hosting
        self._life = life
        self.store = hosting.sessions
        self.hosts: dict[str, AgentHost] = {}
        self.states: dict[str, AgentStatus] = {}  # the last status each agent reported
        self.troubles = Troubles()  # each agent's last problem, with its stderr
        self.icons: dict[str, str] = {}  # agents from the ACP Registry: their SVG icon
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._lifecycle: dict[str, asyncio.Lock] = {}  # one start/stop/restart/remove of an agent at a time
        self._stopped_by_user: set[str] = set()  # stopped from the tray: not restarted by a reload
        self._change = asyncio.Event()  # set, and replaced, at each change of an agent's status or host

    def _changed(self) -> None:
        self._change.set()
        self._change = asyncio.Event()

    async def until_connected(self, name: str, command: list[str] | None, within: float) -> Arrival:
        """Until `name`, running `command` (when given, as its host runs it), has connected (it
        answered the ACP `initialize`), its run ended before that and none follows, it is gone, or
        `within` seconds have passed; looked at again at each change of its status or host."""
        loop = asyncio.get_running_loop()
        wait = Connecting(command, self.states.get(name), loop.time(), within)
        while True:
            change, host = self._change, self.hosts.get(name)
            arrival = wait.look(host, self.states.get(name), self.supervised(name), loop.time())
            if arrival is not None:
                return arrival
            woken = [asyncio.ensure_future(change.wait())]
            if host is not None:  # its status is told just after it connects
                woken.append(asyncio.ensure_future(host.connected.wait()))
            await asyncio.wait(woken, timeout=wait.next_look(loop.time()), return_when=asyncio.FIRST_COMPLETED)
            for waiting in woken:
                waiting.cancel()

    def supervised(self, name: str) -> bool:
        """Whether the agent is running or will be restarted (not stopped, not given up on)."""
        return name in self._tasks

    def sync(self, prefs: Preferences) -> None:
        """Start new agents, stop removed ones, restart those whose command, cwd or env changed."""
        wanted = {name: spec_of(name, config) for name, config in prefs.agents.items()}
        self.troubles.forget(set(wanted))
        self.icons = {name: str(agent_icon(name)) for name in prefs.agents if agent_icon(name).is_file()}
        changed = [
            n
            for n, host in self.hosts.items()
            if n not in wanted or host.spec != wanted[n] or host.protocol != protocol_of(prefs.agents[n], prefs)
        ]
        for name, host in self.hosts.items():
            if name in prefs.agents:  # a new permission policy applies to the next request, no restart
                host.policy = policy_of(prefs.agents[name])
            host.silence_after = prefs.turns.silence_after  # from the next time a turn is looked at
        if changed:
            self._life.in_background(self._restart(changed, wanted))
        for name, spec in wanted.items():
            if name in self.hosts or name in self._stopped_by_user:
                continue
            lock = self._lifecycle.get(name)
            if lock is not None and lock.locked():  # being stopped or restarted: started after that
                self._life.in_background(self._restart([name], wanted, stop=False))
            else:
                self._start(name, spec)

    def agent_action(self, verb: AgentVerb, name: str) -> None:
        config = self._prefs().agents.get(name)
        if config is None:
            return
        if verb == "stop":
            self._stopped_by_user.add(name)
        else:
            self._stopped_by_user.discard(name)
        if verb in ("stop", "restart"):
            self._life.in_background(self._restart([name], {name: spec_of(name, config)} if verb == "restart" else {}))
        elif verb == "start":
            self._life.in_background(self._restart([name], {name: spec_of(name, config)}, stop=False))

    async def stop_agent(self, name: str, *, held: bool = False) -> None:
        """Stop `name` (its whole process tree) and return once it has stopped: after `agents
        remove`, before its installed files go; `held`: as the tray's Stop, it stays stopped until
        started (also through a reload of the preferences)."""
        if held:
            self._stopped_by_user.add(name)
        await self._restart([name], {})

    async def stop_all(self) -> None:
        await self._stop([*self._tasks])

    def note_status(self, status: AgentStatus) -> bool:
        """Take an agent's new status; True when it went from needing a sign-in to connected."""
        previous = self.states.get(status.agent)
        self.states[status.agent] = status
        host = self.hosts.get(status.agent)
        self.troubles.status(status, host.stderr.tail() if host is not None else ())
        self._changed()
        return (
            previous is not None and previous.state is AgentState.NEEDS_SIGNIN and status.state is AgentState.CONNECTED
        )

    async def _restart(self, names: list[str], wanted: dict[str, AgentSpec], *, stop: bool = True) -> None:
        """Stop `names` (unless `stop` is False), then start those in `wanted` that are not running,
        as configured by then; after any other start, stop or restart of the same agents is done
        (they queue, in order), and not once the daemon is stopping."""
        async with contextlib.AsyncExitStack() as held:
            for name in sorted(set(names)):  # one order for every caller: no two wait on each other
                await held.enter_async_context(self._lifecycle.setdefault(name, asyncio.Lock()))
            if stop:
                await self._stop(names)
            if self._life.stopping:
                return  # the daemon is going: nothing new starts
            for name in names:
                config = self._prefs().agents.get(name)  # removed or changed while this waited: not undone
                if name in wanted and config is not None and name not in self._tasks:
                    self._start(name, spec_of(name, config))

    def _start(self, name: str, spec: AgentSpec) -> None:
        prefs = self._prefs()
        config = prefs.agents.get(name)
        hosting = self._hosting
        options = HostOptions(
            policy=policy_of(config) if config is not None else PermissionPolicy(),
            protocol=protocol_of(config, prefs) if config is not None else prefs.protocol,
            advertise_notices=hosting.advertise_notices,
            run_mark=hosting.run_mark,
        )
        services = HostServices(
            approvals=self._approvals,
            questions=self._questions,
            store=self.store,
            versions=hosting.versions,
            secrets=hosting.secrets.values if hosting.secrets is not None else None,
        )
        host = AgentHost(name, spec, self._sink, options, services)
        host.silence_after = prefs.turns.silence_after
        self.hosts[name] = host
        task = asyncio.create_task(supervise(host, self._sink, hosting.backoff), name=f"agent:{name}")
        self._tasks[name] = task
        task.add_done_callback(lambda done: self._supervision_ended(name, done))
        self._changed()

    def _supervision_ended(self, name: str, task: asyncio.Task[None]) -> None:
        """The agent will not be restarted (cannot start, or given up): it stays listed, stopped."""
        if self._tasks.get(name) is task:
            del self._tasks[name]
            self._changed()

    async def _stop(self, names: list[str]) -> None:
        tasks = [self._tasks.pop(name) for name in names if name in self._tasks]
        stopped = [host for name in names if (host := self.hosts.pop(name, None)) is not None]
        for task in tasks:
            task.cancel()
        self._changed()
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=SHUTDOWN_GRACE)
            if pending:
                log.warning("%d agent(s) did not stop within %.0f s", len(pending), SHUTDOWN_GRACE)
        for host in stopped:  # who waited on its sign-in looks again (a restart starts a new one just after)
            host.signin.abandon()

    # sign-in -------------------------------------------------------------------------------

    def sign_in(self, chosen: SignIn) -> None:
        """A sign-in chosen on the desktop: an agent method through the agent; a terminal method in
        a terminal window running `acp-tray login` (which reports back). Failures are said."""
        name, method_id = chosen.agent, chosen.method_id
        host = self.hosts.get(name)
        if host is None:
            return
        try:
            method = host.signin.choose(method_id)
        except SignInError as exc:
            self._sign_in_failed(name, str(exc))
            return
        if method.runs_in_terminal:
            try:
                self._life.in_background(self._in_terminal(name, sign_in_starter(name, method_id)))
            except NoTerminalError as exc:
                self._sign_in_failed(name, str(exc))
            return

        async def through_agent() -> None:
            try:
                was_connected = host.connected.is_set() and host.signin.needed is None  # and not refusing prompts
                await host.sign_in(method)
                await self._say_signed_in(host, method.name, was_connected)
            except SignInError as exc:
                self._sign_in_failed(name, str(exc))
            except AbandonedError as exc:  # it ran out of time
                if exc.stuck:
                    self.agent_action("restart", name)
                self._sign_in_failed(name, abandoned_text(name, exc))

        self._life.in_background(through_agent())

    async def _in_terminal(self, name: str, start: Callable[[], None]) -> None:
        """The terminal window opened, off the loop (it waits to see the window open), or why not."""
        try:
            await asyncio.to_thread(start)
        except NoTerminalError as exc:
            self._sign_in_failed(name, str(exc))

    async def _say_signed_in(self, host: AgentHost, method: str, was_connected: bool) -> None:
        """An accepted sign-in, said by the rule the CLI and the window use (app/ops/signin.py
        agent_outcome): "Signed in" only when the agent went from not connected to connected."""
        name = host.name
        after = await state_after_signin(host, lambda: self.states.get(name))
        refusal = host.signin.needed  # the agent's words only (the detail also says how to sign in)
        took, outcome = agent_outcome(name, method, was_connected, {**after, "detail": refusal or after["detail"]})
        if took:
            self._say_sign_in(name, Notice("info", "Signed in", f"Signed in with {method}."))
        else:
            self._say_sign_in(name, Notice("warning", "Not signed in", outcome[:1].upper() + outcome[1:] + "."))

    def _sign_in_failed(self, agent: str, message: str) -> None:
        log.warning("%s: sign-in failed: %s", agent, message)
        self._say_sign_in(agent, Notice("error", "Sign-in failed", message))

    def _say_sign_in(self, agent: str, notice: Notice) -> None:
        """The result of a sign-in the person chose on the desktop: an answer to them, shown whatever
        the routes and DND say; it takes back what an earlier attempt said."""
        answer = NoticeReceived(agent, "", notice, source=ACP_TRAY, attention="answer", topic=sign_in_topic(agent))
        self._sink(answer)
