"""Host one agent connection: a local process over stdio or a remote agent over WebSocket.

One `run()` is one connection's life: STARTING -> CONNECTED (after `initialize` and the default
session) -> EXITED, or FAILED when it cannot start or the handshake fails, or STOPPED when
acp-tray stops it; NEEDS_SIGNIN while the agent waits for a sign-in (`agents/signin.py`).
Restarts are the supervisor's business (`agents/supervisor.py`). While
connected the host keeps the named sessions, their prompt queues and the agent's requests.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

from acp.connection import Connection
from acp.exceptions import RequestError

from acp_tray.agents.approvals import Approvals
from acp_tray.agents.client_handler import ClientHandler
from acp_tray.agents.environment import agent_environment
from acp_tray.agents.handshake import (
    AUTH_REQUIRED,
    FallbackError,
    HandshakeError,
    RefusedError,
    RunEnd,
    UnusableAgentError,
    failure_reason,
    negotiate,
)
from acp_tray.agents.launcher import AgentProcess
from acp_tray.agents.live_sessions import LiveSessions
from acp_tray.agents.peer import AgentPeer
from acp_tray.agents.reattach import session_for
from acp_tray.agents.sessions import DEFAULT_SESSION, SessionKey, SessionStore
from acp_tray.agents.signin import AuthRequiredError, SignIn
from acp_tray.agents.spec import AgentSpec, PermissionPolicy
from acp_tray.agents.stderr import StderrTail
from acp_tray.agents.transport import DEFAULT_MAX_LINE_BYTES, DropLog, LineTransport, WatchedTransport
from acp_tray.agents.turns import AGENT_GONE, HostedSession, PromptJob, error_text
from acp_tray.agents.versions import VersionMemory
from acp_tray.events import AgentState, AgentStatus, AgentUnusable, EventSink, SessionAttached
from acp_tray.prefs.names import pasteable
from acp_tray.protocol.auth import AuthMethod
from acp_tray.protocol.session import AgentCapabilities, agent_capabilities, close_session_params
from acp_tray.protocol.version import ProtocolVersion

__all__ = ["AgentHost", "AgentSpec", "PermissionPolicy", "RunEnd"]

HANDSHAKE_TIMEOUT = 60.0
SETTLE_TIMEOUT = 1.0
CLOSE_TIMEOUT = 2.0
TEMPORARY_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.EAGAIN})


class AgentHost:
    def __init__(
        self,
        name: str,
        spec: AgentSpec,
        sink: EventSink,
        *,
        approvals: Approvals | None = None,
        store: SessionStore | None = None,
        policy: PermissionPolicy | None = None,
        protocol: str | int = "auto",
        versions: VersionMemory | None = None,
        advertise_notices: bool = True,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        handshake_timeout: float = HANDSHAKE_TIMEOUT,
        secrets: Callable[[str], Mapping[str, str]] | None = None,
        run_mark: str | None = None,
    ) -> None:
        self.name = name
        self.spec = spec
        self.session_id: str | None = None  # the default session's
        self.capabilities = AgentCapabilities()
        self.policy = policy or PermissionPolicy()
        self.connected = asyncio.Event()
        self._log = logging.getLogger(f"acp_tray.agent.{name}")
        self.sessions = LiveSessions(self._log)
        self._on_drop = DropLog(self._log)
        self._sink = sink
        self._approvals = approvals or Approvals(sink)
        self._store = store or SessionStore(None)
        self._advertise_notices = advertise_notices
        self._max_line_bytes = max_line_bytes
        self._handshake_timeout = handshake_timeout
        self.stderr = StderrTail(name)
        self._handler: ClientHandler | None = None
        self._connection: Connection | None = None
        self._opening: dict[SessionKey, asyncio.Future[HostedSession]] = {}
        self._failure = ""  # why the last handshake failed
        self._transport: WatchedTransport | None = None
        self._failure_end = RunEnd.ENDED
        self._stopping: set[asyncio.Task[None]] = set()  # process trees of fallbacks, going
        self.protocol = protocol  # "auto", 1 or 2 (from the preferences)
        self._versions = versions or VersionMemory(None)
        self.version = ProtocolVersion.V1  # negotiated on the current connection
        self.last_detail = ""  # of the last status reported
        self.speaks_acp = False  # it has answered `initialize` (a sign-in may still be needed)
        self._secrets = secrets  # the agent's secrets from the OS keyring, by agent name (blocking)
        self._run_mark = run_mark  # this daemon's (agents/leftovers.py): the agent's environment carries it
        self.signin = SignIn(name, sink, self._status, remote=spec.remote)
        self.signin.on_signed_in = self._signed_in
        # what the agent asks of us, answered by `peer.py` (called by the ClientHandler)
        self.peer = AgentPeer(name, sink, self.sessions, self._approvals, lambda: self.policy, self._request_id)

    @property
    def dropped_lines(self) -> int:
        """Messages from the agent skipped as unusable (over all its connections)."""
        return self._on_drop.count

    @property
    def other_updates(self) -> int:
        """Non-notice session updates received on the current connection (kept raw, not presented)."""
        return self._handler.other_updates if self._handler is not None else 0

    @property
    def default_key(self) -> SessionKey:
        return SessionKey(self.name, str(self.spec.cwd), DEFAULT_SESSION)

    def _status(self, state: AgentState, detail: str = "") -> None:
        """Report a lifecycle step: to the daemon, and to the log at INFO (a daemon started at
        login leaves nothing else to read)."""
        self.last_detail = detail
        self._log.info("%s%s", state.value, f": {detail}" if detail else "")
        if state in (AgentState.FAILED, AgentState.EXITED, AgentState.REFUSED):
            self.stderr.log_tail(state.value)
        self._sink(AgentStatus(self.name, state, detail))

    def _unusable(self, title: str, detail: str) -> None:
        self._log.info("%s: %s", title.lower(), detail)
        self._sink(AgentUnusable(self.name, title, detail))

    # one connection's life -------------------------------------------------------------------

    async def run(self) -> RunEnd:
        """Run one connection until the agent goes (or this task is cancelled). Never raises for agent faults."""
        self._status(AgentState.STARTING, self.spec.describe())
        end = RunEnd.ENDED
        try:
            if self.spec.remote:
                end = await self._run_remote()
            else:
                end = await self._run_local()
            return end
        except asyncio.CancelledError:
            self._status(AgentState.STOPPED, "stopped by acp-tray")
            raise
        finally:
            self._disconnected("the agent is gone")
            if end is not RunEnd.RECONNECT:  # a tree left from a fallback is gone before run() returns
                with contextlib.suppress(Exception, asyncio.CancelledError):
                    await asyncio.gather(*self._stopping)

    async def _run_local(self) -> RunEnd:
        if not self.spec.cwd.is_dir():
            self._status(AgentState.FAILED, f"working directory {self.spec.cwd} does not exist")
            return RunEnd.CANNOT_START
        secrets = await asyncio.to_thread(self._secrets, self.name) if self._secrets is not None else {}
        env = agent_environment({**self.spec.env, **secrets}, run_mark=self._run_mark)
        self.signin.env_names = frozenset(env)  # names only: which env_var sign-ins can work
        try:
            agent = await AgentProcess.start(self.spec.command, env=env, cwd=self.spec.cwd, limit=self._max_line_bytes)
        except Exception as exc:  # only the spawn itself: a broken pipe later is the agent going, not this
            reason = (exc.strerror if isinstance(exc, OSError) else None) or str(exc) or type(exc).__name__
            if isinstance(exc, OSError) and exc.errno in TEMPORARY_ERRNOS:  # not the agent's fault, and it passes
                self._status(AgentState.STARTING, f"cannot start {self.spec.command[0]!r} now: {reason}; trying again")
                return RunEnd.SHORT_OF_RESOURCES
            # OSError: no such program, not executable; ValueError: what no process can be given (a NUL)
            self._status(AgentState.FAILED, f"cannot start {self.spec.command[0]!r}: {reason}")
            return RunEnd.CANNOT_START
        self._log.info("running as pid %d, in a process group of its own", agent.pid)
        drain = asyncio.create_task(self.stderr.drain(agent.stderr), name=f"stderr:{self.name}")
        lines = LineTransport(agent.stdout, agent.stdin, on_drop=self._on_drop, max_line_bytes=self._max_line_bytes)
        transport = WatchedTransport(lines)
        grace = True
        try:
            # an agent that stopped reading would hold every write (and the SDK's stdin flush on the
            # way out) forever: its stdin is cut before the connection and the process are closed
            async with self._connect(transport, let_go=agent.let_go) as connection:
                if connection is None:
                    if self._failure_end is RunEnd.RECONNECT:
                        grace = False  # it only answered `initialize`: nothing of its to save
                        return RunEnd.RECONNECT  # the tree goes below: a fresh one
                    if self._failure_end is RunEnd.REFUSED:
                        await self.stderr.quiet(SETTLE_TIMEOUT)  # what it wrote on the way to its answer
                        self._refused(self._failure)
                    else:
                        if await self._settled(agent, transport.ended):
                            await self._drained(drain)
                        self._status(AgentState.FAILED, self._failure + self._exit_code(agent) + self.stderr.hint())
                    return self._failure_end
                # its output closing ends it as much as its exit: a forked child holding the pipe
                # must not keep a gone agent "connected"
                await agent.ended(transport.ended)
                await self._drained(drain)
                how = f"exit code {agent.returncode}" if agent.exited else "it closed its output"
                self._status(AgentState.EXITED, how + self.stderr.hint())
                return RunEnd.ENDED
        finally:
            drain.cancel()
            if grace:
                with contextlib.suppress(Exception, asyncio.CancelledError):
                    await agent.stop()
            else:  # the next start need not wait for this tree to go
                stopping = asyncio.create_task(agent.stop(grace=0), name=f"stop:{self.name}")
                self._stopping.add(stopping)
                stopping.add_done_callback(self._stopping.discard)

    @staticmethod
    async def _settled(agent: AgentProcess, output_closed: asyncio.Event) -> bool:
        """Briefly, for the agent to end (its exit or its output closing); True when it did."""
        try:
            await asyncio.wait_for(agent.either_ended(output_closed), SETTLE_TIMEOUT)
        except TimeoutError:
            return False
        await agent.other_ended(output_closed)
        return True

    @staticmethod
    async def _drained(drain: asyncio.Task[None]) -> None:
        """Briefly, for the rest of its stderr (a survivor may hold the pipe: not for ever)."""
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            async with asyncio.timeout(SETTLE_TIMEOUT):
                await asyncio.shield(drain)

    async def _run_remote(self) -> RunEnd:
        from acp_tray.agents.remote import RemoteConfigError, expand_headers, open_remote

        assert self.spec.url is not None
        try:
            headers = expand_headers(self.spec.headers, os.environ)
        except RemoteConfigError as exc:
            self._status(AgentState.FAILED, str(exc))
            return RunEnd.CANNOT_START
        try:
            remote = await open_remote(
                self.spec.url, headers, on_drop=self._on_drop, max_message_bytes=self._max_line_bytes
            )
        except ConnectionError as exc:
            self._status(AgentState.FAILED, str(exc))
            return RunEnd.ENDED
        transport = WatchedTransport(remote)
        async with self._connect(transport) as connection:
            if connection is None:
                if self._failure_end is RunEnd.REFUSED:
                    self._refused(self._failure)
                elif self._failure_end is not RunEnd.RECONNECT:
                    self._status(AgentState.FAILED, self._failure)
                return self._failure_end
            await transport.ended.wait()
            self._status(AgentState.EXITED, AGENT_GONE)
            return RunEnd.ENDED

    @contextlib.asynccontextmanager
    async def _connect(
        self, transport: WatchedTransport, *, let_go: Callable[[], Awaitable[None]] | None = None
    ) -> AsyncIterator[Connection | None]:
        """The SDK connection over `transport`, handshake done (None if it failed: see `_failure`)."""
        self._handler = ClientHandler(self.name, self._sink, ProtocolVersion.V1, peer=self.peer)
        connection = Connection(self._handler, transport)
        self._connection = connection
        self._transport = transport
        self._failure_end = RunEnd.ENDED
        gone = AGENT_GONE
        try:
            try:
                # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancel that lands as
                # the handshake completes, and the host would then wait for ever on a live agent
                try:
                    async with asyncio.timeout(self._handshake_timeout):
                        await self._handshake(connection)
                except AuthRequiredError:  # the process stays; the session is asked for again after a sign-in
                    session = await self.signin.until_signed_in(
                        lambda: self._attach(connection, self.default_key), transport.ended
                    )
                    self.session_id = session.session_id
            except (TimeoutError, RequestError, ConnectionError, HandshakeError) as exc:
                self._failure = failure_reason(exc, self._handshake_timeout)
                self._failure_end = exc.end if isinstance(exc, HandshakeError) else RunEnd.ENDED
                if isinstance(exc, UnusableAgentError):
                    self._unusable(exc.title, exc.detail)
                elif isinstance(exc, FallbackError):
                    self._status(AgentState.STARTING, str(exc))
                yield None
                return
            version = f"ACP {int(self.version)}"
            self._status(AgentState.CONNECTED, f"session {self.session_id} · {version}")
            self.connected.set()
            yield connection
        except asyncio.CancelledError:
            gone = "acp-tray stopped or restarted the agent"
            raise
        finally:
            await self._close_sessions(connection)
            self._disconnected(gone)
            if let_go is not None and self._failure_end is not RunEnd.RECONNECT:  # a fallback: nothing on its way
                with contextlib.suppress(Exception, asyncio.CancelledError):
                    await let_go()
            with contextlib.suppress(Exception, asyncio.CancelledError):  # a broken pipe here is the agent gone
                await asyncio.wait_for(connection.close(), CLOSE_TIMEOUT)

    def _refused(self, reason: str) -> None:
        """One error notice with the agent's own words; no retry until the person acts."""
        self._status(AgentState.REFUSED, reason)
        retry = (
            f"It is not retried until you run `{pasteable('agents', 'restart', self.name)}`, "
            "change its configuration or sign in."
        )
        self._unusable("Refused to work", f"{reason}{self.stderr.hint()}\n{retry}")

    async def _close_sessions(self, connection: Connection) -> None:
        """`session/close` for every open session where the agent supports it (v2: always), briefly:
        on shutdown the agent can free them; after a crash the calls just fail."""
        if not self.capabilities.close_session or not self.sessions:
            return
        calls = [
            connection.send_request("session/close", close_session_params(s.session_id)) for s in self.sessions.values()
        ]
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.gather(*calls, return_exceptions=True), CLOSE_TIMEOUT)

    def _disconnected(self, reason: str) -> None:
        self.connected.clear()
        self._connection = None
        self.sessions.close_all(reason)
        for opening in self._opening.values():
            opening.cancel()
        self._opening.clear()
        self._approvals.forget_agent(self.name)

    def offer(self) -> ProtocolVersion:
        """The version to offer: the preference, else what this agent was found to speak, else 2."""
        if self.protocol in (1, 2):
            return ProtocolVersion(int(self.protocol))
        remembered = self._versions.version(self.name, self.spec.describe())
        return ProtocolVersion.V1 if remembered == 1 else ProtocolVersion.V2

    async def _handshake(self, connection: Connection) -> None:
        def speaks_v1() -> None:
            self._versions.remember(self.name, self.spec.describe(), 1)

        self.version, init = await negotiate(
            connection,
            self.offer(),
            self.protocol,
            self.name,
            notices=self._advertise_notices,
            speaks_v1=speaks_v1,
            terminal_auth=not self.spec.remote,
        )
        assert self._handler is not None
        self._handler.version = self.version
        self.capabilities = agent_capabilities(init)
        self.speaks_acp = True
        self.signin.offered(self.capabilities.auth_methods, self.capabilities.logout)
        try:
            session = await self._attach(connection, self.default_key)
        except RequestError as exc:  # alive and answering: a refusal, not a crash
            raise RefusedError(f"it refused to start a session: {error_text(exc)}") from None
        self.session_id = session.session_id

    @staticmethod
    def _exit_code(agent: AgentProcess) -> str:
        return f"; exit code {agent.returncode}" if agent.exited else ""

    # sessions ----------------------------------------------------------------------------------

    async def _attach(self, connection: Connection, key: SessionKey) -> HostedSession:
        """Reattach the stored session of `key` (load, else resume) or start a new one, and say which."""
        try:
            session_id, how = await session_for(
                connection, key.cwd, self._store.get(key), self.capabilities, self.sessions.by_id, self._log
            )
        except RequestError as exc:
            if exc.code == AUTH_REQUIRED:
                raise self.signin.required(exc) from None  # tried again after the sign-in
            raise
        self._store.put(key, session_id)
        session = HostedSession(
            key, session_id, connection, self._sink, self._on_session_cancel, self.version, self._answered_as_v1
        )
        session.signin = self.signin
        self.sessions.add(session)
        self._sink(SessionAttached(self.name, key.name, session_id, how))
        return session

    async def open_session(self, name: str = DEFAULT_SESSION, cwd: str | None = None) -> HostedSession:
        """The session called `name` in `cwd` (default: the agent's), attached on first use."""
        key = SessionKey(self.name, cwd or str(self.spec.cwd), name)
        if key in self.sessions:
            return self.sessions[key]
        if key in self._opening:
            return await asyncio.shield(self._opening[key])
        connection = self._connection
        if connection is None:
            raise ConnectionError(f"{self.name} is not connected")
        opening: asyncio.Future[HostedSession] = asyncio.get_running_loop().create_future()
        self._opening[key] = opening
        try:
            session = await self._attach(connection, key)
        except BaseException as exc:
            if not opening.done():
                opening.set_exception(exc if isinstance(exc, Exception) else ConnectionError("cancelled"))
            if not opening.cancelled():
                opening.exception()  # retrieved: no "never retrieved" warning
            raise
        finally:
            self._opening.pop(key, None)
        opening.set_result(session)
        return session

    def find_job(self, job_id: str) -> tuple[HostedSession, PromptJob] | None:
        return self.sessions.find_job(job_id)

    def _answered_as_v1(self) -> None:
        """On ACP 2 it answered a prompt as ACP 1 would (it echoed the version offered): from its
        next start it is offered 1."""
        if self.protocol == "auto" and self.version is ProtocolVersion.V2:
            self._versions.remember(self.name, self.spec.describe(), 1)
            self._log.warning(
                "it behaves as ACP 1 although it answered 2: it will be offered ACP 1 from its next start"
            )

    def _on_session_cancel(self, session_id: str) -> None:
        self._approvals.cancel_session(self.name, session_id)

    # sign-in (agents/signin.py holds the logic) ----------------------------------------------

    def _signed_in(self) -> None:
        if self.connected.is_set():
            self._status(AgentState.CONNECTED, f"session {self.session_id} · ACP {int(self.version)}")

    async def sign_in(self, method: AuthMethod) -> None:
        await self.signin.login(self._connection, self.version, method)

    async def sign_out(self) -> None:
        await self.signin.logout(self._connection, self.version)

    def _request_id(self, params: object) -> Any:
        return self._transport.request_id(params) if self._transport is not None else None
