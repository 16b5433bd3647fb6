"""Host one agent connection: a local process over stdio or a remote agent over WebSocket.

One `run()` is one connection's life: STARTING -> CONNECTED (after `initialize` and the default
session) -> EXITED, or FAILED when it cannot start or the handshake fails, or STOPPED when
acp-tray stops it. Restarts are the supervisor's business (`agents/supervisor.py`). While
connected the host keeps the named sessions, their prompt queues and the agent's requests.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from acp.connection import Connection
from acp.exceptions import RequestError
from acp.transports import spawn_stdio_transport

from acp_tray.agents.approvals import Approvals
from acp_tray.agents.client_handler import ClientHandler
from acp_tray.agents.environment import agent_environment
from acp_tray.agents.sessions import DEFAULT_SESSION, SessionKey, SessionStore
from acp_tray.agents.stderr import StderrTail
from acp_tray.agents.transport import DEFAULT_MAX_LINE_BYTES, LineTransport
from acp_tray.agents.turns import HostedSession, PromptJob, error_text
from acp_tray.agents.versions import VersionMemory
from acp_tray.events import AgentState, AgentStatus, AgentUnusable, EventSink, InputRequested, SessionAttached
from acp_tray.protocol.initialize import initialize_params, new_session_params
from acp_tray.protocol.session import (
    AgentCapabilities,
    StateChange,
    agent_capabilities,
    close_session_params,
    elicitation_message,
    elicitation_session,
    load_session_params,
    parse_permission_request,
    resume_session_params,
)
from acp_tray.protocol.version import SUPPORTED, ProtocolVersion, answered_version

HANDSHAKE_TIMEOUT = 60.0
SETTLE_TIMEOUT = 1.0
CLOSE_TIMEOUT = 2.0
LET_GO = 0.3
PROCESS_SHUTDOWN = 6.0  # the SDK's own: EOF, 2 s, terminate, 2 s, kill
SESSION_TIMEOUT = 30.0  # session/new, load, resume after the handshake
AUTH_REQUIRED = -32000
UNSUPPORTED_VERSION = -32022
DROP_LOG_FIRST = 20
DROP_LOG_EVERY = 1000
PREVIEW_BYTES = 120


class RunEnd(Enum):
    CANNOT_START = "cannot start"  # missing program or directory, unset header variable, unusable agent: no retry
    ENDED = "ended"  # it ran (or tried to) and is gone: the supervisor may restart it
    RECONNECT = "reconnect"  # start again at once (a protocol fallback), not a crash


class HandshakeError(Exception):
    """The agent answered `initialize` or `session/new` with something we cannot use."""

    end = RunEnd.ENDED


class UnusableAgentError(HandshakeError):
    """Retrying cannot help (a protocol version we do not speak, a sign-in only the person can do)."""

    end = RunEnd.CANNOT_START

    def __init__(self, title: str, detail: str) -> None:
        super().__init__(f"{title}: {detail}")
        self.title = title
        self.detail = detail


class FallbackError(HandshakeError):
    """Offered 2, answered 1: start a fresh connection offering 1."""

    end = RunEnd.RECONNECT


@dataclass(frozen=True)
class AgentSpec:
    """How to reach an agent (from the configuration): a `command` to start, or a remote `url`."""

    command: list[str]
    cwd: Path = field(default_factory=Path.home)
    env: dict[str, str] = field(default_factory=dict)
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)  # templates: "${VAR}" from the environment

    @property
    def remote(self) -> bool:
        return self.url is not None

    def describe(self) -> str:
        return self.url if self.url is not None else " ".join(self.command)


@dataclass
class PermissionPolicy:
    policy: str = "ask"  # ask | reject | allow
    timeout: float = 300.0


def _cut(writer: asyncio.StreamWriter) -> None:
    """Close the agent's stdin at once, dropping what it has not read (a no-op when already closed)."""
    if not writer.transport.is_closing():
        with contextlib.suppress(Exception):
            writer.transport.abort()


async def _let_go(writer: asyncio.StreamWriter) -> None:
    """Before closing: let what is on its way (answers to the agent's requests) go out, briefly;
    an agent that stopped reading gets its stdin cut instead of holding everything."""
    with contextlib.suppress(Exception):
        await asyncio.sleep(LET_GO)  # the SDK writes queued answers from its own tasks
        await asyncio.wait_for(writer.drain(), LET_GO)
    if writer.transport.is_closing() or writer.transport.get_write_buffer_size() == 0:
        return
    _cut(writer)


class _Watched:
    """The agent's side of a transport, watched on the way in: when it ends (EOF: how a remote
    agent 'exits'), and the JSON-RPC id of each permission request, so that the agent's
    `$/cancel_request` for it can be matched (the SDK hands the handler the params, not the id)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.ended = asyncio.Event()
        self._ids: dict[int, object] = {}  # id(params) -> request id, until the handler takes it

    async def send(self, message: dict[str, Any]) -> None:
        await self._inner.send(message)

    async def receive(self) -> dict[str, Any] | None:
        message: dict[str, Any] | None = await self._inner.receive()
        if message is None:
            self.ended.set()
        elif message.get("method") == "session/request_permission" and "id" in message:
            self._ids[id(message.get("params"))] = message["id"]
        return message

    def request_id(self, params: object) -> object:
        """The id of the permission request whose params these are (taken once)."""
        return self._ids.pop(id(params), None)

    async def close(self) -> None:
        self.ended.set()
        await self._inner.close()


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
    ) -> None:
        self.name = name
        self.spec = spec
        self.session_id: str | None = None  # the default session's
        self.dropped_lines = 0
        self.capabilities = AgentCapabilities()
        self.policy = policy or PermissionPolicy()
        self.connected = asyncio.Event()
        self.sessions: dict[SessionKey, HostedSession] = {}
        self._sink = sink
        self._approvals = approvals or Approvals(sink)
        self._store = store or SessionStore(None)
        self._advertise_notices = advertise_notices
        self._max_line_bytes = max_line_bytes
        self._handshake_timeout = handshake_timeout
        self._log = logging.getLogger(f"acp_tray.agent.{name}")
        self.stderr = StderrTail(name)
        self._handler: ClientHandler | None = None
        self._connection: Connection | None = None
        self._opening: dict[SessionKey, asyncio.Future[HostedSession]] = {}
        self._failure = ""  # why the last handshake failed
        self._transport: _Watched | None = None
        self._failure_end = RunEnd.ENDED
        self.protocol = protocol  # "auto", 1 or 2 (from the preferences)
        self._versions = versions or VersionMemory(None)
        self.version = ProtocolVersion.V1  # negotiated on the current connection
        self.last_detail = ""  # of the last status reported

    @property
    def other_updates(self) -> int:
        """Non-notice session updates received on the current connection (kept raw, not presented)."""
        return self._handler.other_updates if self._handler is not None else 0

    @property
    def default_key(self) -> SessionKey:
        return SessionKey(self.name, str(self.spec.cwd), DEFAULT_SESSION)

    def _status(self, state: AgentState, detail: str = "") -> None:
        self.last_detail = detail
        self._sink(AgentStatus(self.name, state, detail))

    def _on_drop(self, reason: str, line: bytes) -> None:
        self.dropped_lines += 1
        n = self.dropped_lines
        if n <= DROP_LOG_FIRST or n % DROP_LOG_EVERY == 0:
            preview = line[:PREVIEW_BYTES].decode("utf-8", "replace")
            self._log.warning("skipped a message from the agent (%s; %d so far): %r", reason, n, preview)

    # one connection's life -------------------------------------------------------------------

    async def run(self) -> RunEnd:
        """Run one connection until the agent goes (or this task is cancelled). Never raises for agent faults."""
        self._status(AgentState.STARTING, self.spec.describe())
        try:
            if self.spec.remote:
                return await self._run_remote()
            return await self._run_local()
        except asyncio.CancelledError:
            self._status(AgentState.STOPPED, "stopped by acp-tray")
            raise
        finally:
            self._disconnected("the agent is gone")

    async def _run_local(self) -> RunEnd:
        if not self.spec.cwd.is_dir():
            self._status(AgentState.FAILED, f"working directory {self.spec.cwd} does not exist")
            return RunEnd.CANNOT_START
        program, *args = self.spec.command
        stack = contextlib.AsyncExitStack()
        try:
            reader, writer, process = await stack.enter_async_context(
                spawn_stdio_transport(
                    program, *args, env=agent_environment(self.spec.env), cwd=self.spec.cwd, limit=self._max_line_bytes
                )
            )
        except OSError as exc:  # only the spawn itself: a broken pipe later is the agent going, not this
            self._status(AgentState.FAILED, f"cannot start {program!r}: {exc.strerror or exc}")
            return RunEnd.CANNOT_START
        assert process.stderr is not None
        drain = asyncio.create_task(self.stderr.drain(process.stderr), name=f"stderr:{self.name}")
        transport = _Watched(LineTransport(reader, writer, on_drop=self._on_drop, max_line_bytes=self._max_line_bytes))
        try:
            # an agent that stopped reading would hold every write (and the SDK's stdin flush on the
            # way out) forever: its stdin is cut before the connection and the process are closed
            async with self._connect(transport, let_go=lambda: _let_go(writer)) as connection:
                if connection is None:
                    if self._failure_end is RunEnd.RECONNECT:
                        return RunEnd.RECONNECT  # the process goes below: a fresh one
                    await self._settle(process, drain, SETTLE_TIMEOUT)
                    self._status(AgentState.FAILED, self._failure + self._exit_code(process) + self._hint())
                    return self._failure_end
                await self._settle(process, drain, None)
                assert process.returncode is not None
                self._status(AgentState.EXITED, f"exit code {process.returncode}{self._hint()}")
                return RunEnd.ENDED
        finally:
            drain.cancel()
            _cut(writer)
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(stack.aclose(), PROCESS_SHUTDOWN)  # EOF, wait, terminate, kill
            if process.returncode is None:
                process.kill()
                with contextlib.suppress(Exception, asyncio.CancelledError):
                    async with asyncio.timeout(SETTLE_TIMEOUT):
                        await process.wait()  # reaped before run() returns

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
        transport = _Watched(remote)
        async with self._connect(transport) as connection:
            if connection is None:
                if self._failure_end is not RunEnd.RECONNECT:
                    self._status(AgentState.FAILED, self._failure)
                return self._failure_end
            await transport.ended.wait()
            self._status(AgentState.EXITED, "the agent closed the connection")
            return RunEnd.ENDED

    @contextlib.asynccontextmanager
    async def _connect(
        self, transport: _Watched, *, let_go: Callable[[], Awaitable[None]] | None = None
    ) -> AsyncIterator[Connection | None]:
        """The SDK connection over `transport`, handshake done (None if it failed: see `_failure`)."""
        self._handler = ClientHandler(self.name, self._sink, ProtocolVersion.V1, peer=self)
        connection = Connection(self._handler, transport)
        self._connection = connection
        self._transport = transport
        try:
            try:
                # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancel that lands as
                # the handshake completes, and the host would then wait for ever on a live agent
                async with asyncio.timeout(self._handshake_timeout):
                    await self._handshake(connection)
            except (TimeoutError, RequestError, ConnectionError, HandshakeError) as exc:
                self._failure = self._failure_reason(exc)
                self._failure_end = exc.end if isinstance(exc, HandshakeError) else RunEnd.ENDED
                if isinstance(exc, UnusableAgentError):
                    self._sink(AgentUnusable(self.name, exc.title, exc.detail))
                elif isinstance(exc, FallbackError):
                    self._status(AgentState.STARTING, str(exc))
                yield None
                return
            version = f"ACP {int(self.version)}"
            self._status(AgentState.CONNECTED, f"session {self.session_id} · {version}")
            self.connected.set()
            yield connection
        finally:
            await self._close_sessions(connection)
            self._disconnected("the agent is gone")
            if let_go is not None:
                with contextlib.suppress(Exception, asyncio.CancelledError):
                    await let_go()
            with contextlib.suppress(Exception, asyncio.CancelledError):  # a broken pipe here is the agent gone
                await asyncio.wait_for(connection.close(), CLOSE_TIMEOUT)

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
        for session in self.sessions.values():
            session.close(reason)
        self.sessions.clear()
        for opening in self._opening.values():
            opening.cancel()
        self._opening.clear()
        self._approvals.forget_agent(self.name)

    @staticmethod
    async def _settle(process: asyncio.subprocess.Process, drain: asyncio.Task[None], timeout: float | None) -> None:
        """Wait for the process to exit (up to `timeout`), then briefly for its stderr to drain."""
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(process.wait(), timeout)
            await asyncio.wait_for(asyncio.shield(drain), SETTLE_TIMEOUT)

    def offer(self) -> ProtocolVersion:
        """The version to offer: the preference, else what this agent was found to speak, else 2."""
        if self.protocol in (1, 2):
            return ProtocolVersion(int(self.protocol))
        remembered = self._versions.version(self.name, self.spec.describe())
        return ProtocolVersion.V1 if remembered == 1 else ProtocolVersion.V2

    async def _handshake(self, connection: Connection) -> None:
        offer = self.offer()
        try:
            init = await connection.send_request(
                "initialize", initialize_params(offer, notices=self._advertise_notices)
            )
        except RequestError as exc:
            if exc.code == UNSUPPORTED_VERSION and offer is ProtocolVersion.V2 and self.protocol == "auto":
                self._versions.remember(self.name, self.spec.describe(), 1)
                raise FallbackError("the agent refused ACP 2: starting it again, offering 1") from None
            if exc.code == UNSUPPORTED_VERSION:
                raise UnusableAgentError(
                    "Unsupported protocol version",
                    f"the agent does not speak ACP {int(offer)} ({error_text(exc)}); "
                    f"check `protocol` for {self.name} in the preferences",
                ) from None
            raise
        answered = answered_version(init)
        if answered not in SUPPORTED or answered > offer:
            raise UnusableAgentError(
                "Unsupported protocol version",
                f"the agent answered protocolVersion {answered!r} to an offer of {int(offer)}; "
                "acp-tray speaks ACP 1 and 2",
            )
        if offer is ProtocolVersion.V2 and answered == 1 and self.protocol == 2:
            raise UnusableAgentError(
                "Unsupported protocol version",
                f'the agent speaks ACP 1, and its preferences say protocol = 2; set "auto" or 1 for {self.name}',
            )
        if offer is ProtocolVersion.V2 and answered == 1:
            # it may have read its capabilities from the v2-shaped request (a router converts them,
            # dropping session.notices): ask again on a fresh connection, and remember
            self._versions.remember(self.name, self.spec.describe(), 1)
            raise FallbackError("the agent speaks ACP 1: starting it again, offering 1")
        self.version = ProtocolVersion(answered)
        assert self._handler is not None
        self._handler.version = self.version
        self.capabilities = agent_capabilities(init)
        session = await self._attach(connection, self.default_key)
        self.session_id = session.session_id

    def _failure_reason(self, exc: BaseException) -> str:
        if isinstance(exc, asyncio.TimeoutError):
            return f"no answer to the handshake within {self._handshake_timeout:g} s"
        if isinstance(exc, RequestError):
            return f"handshake refused: {error_text(exc)}"
        if isinstance(exc, ConnectionError):
            return "agent closed the connection during the handshake"
        return str(exc)

    @staticmethod
    def _exit_code(process: asyncio.subprocess.Process) -> str:
        return f"; exit code {process.returncode}" if process.returncode is not None else ""

    def _hint(self) -> str:
        tail = self.stderr.tail()
        return f"; last stderr: {tail[-1]}" if tail else ""

    # sessions ----------------------------------------------------------------------------------

    async def _attach(self, connection: Connection, key: SessionKey) -> HostedSession:
        """Reattach the stored session of `key` (load, else resume) or start a new one, and say which."""
        stored = self._store.get(key)
        session_id: str | None = None
        how = "new"
        if stored is not None:
            for supported, method, params, done in (
                (self.capabilities.load_session, "session/load", load_session_params, "loaded"),
                (self.capabilities.resume_session, "session/resume", resume_session_params, "resumed"),
            ):
                if not supported:
                    continue
                try:
                    await self._ask(connection, method, params(stored, key.cwd))
                except RequestError as exc:
                    self._log.info("could not %s session %s: %s", method, stored, exc)
                    continue
                session_id, how = stored, done
                break
            else:
                how = "replaced"
        if session_id is None:
            try:
                answer = await self._ask(connection, "session/new", new_session_params(key.cwd))
            except RequestError as exc:
                if exc.code == AUTH_REQUIRED:
                    raise UnusableAgentError("Needs you to sign in", self._sign_in_hint(exc)) from None
                raise
            new_id: Any = answer.get("sessionId") if isinstance(answer, dict) else None
            if not isinstance(new_id, str):
                raise HandshakeError("agent answered session/new without a sessionId")
            session_id = new_id
        self._store.put(key, session_id)
        session = HostedSession(key, session_id, connection, self._sink, self._on_session_cancel, self.version)
        self.sessions[key] = session
        self._sink(SessionAttached(self.name, key.name, session_id, how))
        return session

    @staticmethod
    async def _ask(connection: Connection, method: str, params: dict[str, Any]) -> Any:
        """A session request with a time limit: an agent that stopped answering must not hold a prompt forever."""
        try:
            async with asyncio.timeout(SESSION_TIMEOUT):
                return await connection.send_request(method, params)
        except TimeoutError:
            raise HandshakeError(f"no answer to {method} within {SESSION_TIMEOUT:g} s") from None

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
        for session in self.sessions.values():
            for job in session.jobs():
                if job.job_id == job_id:
                    return session, job
        return None

    def _session_by_id(self, session_id: str) -> HostedSession | None:
        return next((s for s in self.sessions.values() if s.session_id == session_id), None)

    def _on_session_cancel(self, session_id: str) -> None:
        self._approvals.cancel_session(self.name, session_id)

    # what the agent asks of us (called by ClientHandler) -------------------------------------

    def _sign_in_hint(self, exc: RequestError) -> str:
        methods = self.capabilities.auth_methods
        listed = "; ".join(
            f"{m.name}" + (f" ({m.description})" if m.description else "") + (f" [{m.kind}]" if m.kind else "")
            for m in methods
        )
        how = f"it offers: {listed}" if methods else "it names no sign-in method"
        return (
            f"{error_text(exc)}. Sign in with the agent's own tool (e.g. run it once in a terminal), "
            f"then `acp-tray agents restart {self.name}`; {how}"
        )

    def on_state(self, session_id: str, change: StateChange) -> None:
        session = self._session_by_id(session_id)
        if session is not None:
            session.on_state(change)

    def on_message_text(self, session_id: str, text: str) -> None:
        session = self._session_by_id(session_id)
        if session is not None:
            session.on_message_text(text)

    async def request_permission(self, params: object) -> dict[str, Any]:
        request = parse_permission_request(params)
        request_id = self._transport.request_id(params) if self._transport is not None else None
        return await self._approvals.request(
            self.name, request, policy=self.policy.policy, timeout=self.policy.timeout, request_id=request_id
        )

    def cancel_request(self, params: object) -> None:
        """`$/cancel_request`: the agent no longer wants an answer; a pending approval is answered
        `cancelled` (and leaves the tray and `acp-tray approvals`)."""
        request_id = params.get("requestId") if isinstance(params, dict) else None
        if type(request_id) in (int, str):  # JSON-RPC ids; never a bool (True == 1 in Python)
            self._approvals.cancel_request(self.name, request_id)

    def input_requested(self, params: object) -> dict[str, Any]:
        """Elicitation: acp-tray has no form to show; it declines and tells the person."""
        self._sink(InputRequested(self.name, elicitation_session(params), elicitation_message(params)))
        return {"action": "decline"}
