"""Host one agent connection: a local process over stdio or a remote agent over WebSocket.

One `run()` is one connection's life: STARTING -> CONNECTED (after `initialize` and the default
session) -> EXITED, or FAILED when it cannot start or the handshake fails, or STOPPED when
acp-tray stops it; NEEDS_SIGNIN while the agent waits for a sign-in (`agents/signin.py`).
Restarts are the supervisor's business (`agents/supervisor.py`). While
connected the host keeps the named sessions, their prompt queues and the agent's requests.
Its parts: the run of a process (`process_run.py`) or a remote agent (`remote_run.py`), the
sessions' attaching (`session_opener.py`), what it tells of the agent (`status_report.py`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING, Any

from acp.connection import Connection
from acp.exceptions import RequestError

from acp_tray.agents.approvals import Approvals
from acp_tray.agents.client_handler import ClientHandler
from acp_tray.agents.handshake import (
    Connect,
    FallbackError,
    HandshakeError,
    HandshakeFailure,
    LetGo,
    RefusedError,
    RunEnd,
    UnusableAgentError,
    failure_reason,
    negotiate,
    not_acp_timeout,
)
from acp_tray.agents.host_options import HostOptions, HostServices
from acp_tray.agents.live_sessions import LiveSessions
from acp_tray.agents.peer import AgentPeer
from acp_tray.agents.process_run import ProcessRun
from acp_tray.agents.questions import Questions
from acp_tray.agents.session_opener import CLOSE_TIMEOUT, SessionOpener
from acp_tray.agents.sessions import DEFAULT_SESSION, SessionKey, SessionStore
from acp_tray.agents.signin import AuthRequiredError, SignIn, SignInError
from acp_tray.agents.signin_lines import SignInLines
from acp_tray.agents.spec import AgentSpec, PermissionPolicy
from acp_tray.agents.status_report import StatusReport
from acp_tray.agents.stderr import StderrTail
from acp_tray.agents.transport import DropLog, WatchedTransport
from acp_tray.agents.turns import AGENT_GONE, HostedSession, PromptJob, error_text
from acp_tray.agents.versions import VersionChoice, VersionMemory
from acp_tray.events import AgentState, EventSink, SignInOutput
from acp_tray.prefs.command_rules import fetches_on_start
from acp_tray.protocol.auth import AuthMethod
from acp_tray.protocol.session import AgentCapabilities, agent_capabilities
from acp_tray.protocol.version import ProtocolVersion

if TYPE_CHECKING:
    from acp_tray.agents.remote_run import RemoteRun

__all__ = ["AgentHost", "AgentSpec", "PermissionPolicy", "RunEnd"]


class AgentHost:
    def __init__(
        self,
        name: str,
        spec: AgentSpec,
        sink: EventSink,
        options: HostOptions | None = None,
        services: HostServices | None = None,
    ) -> None:
        options, services = options or HostOptions(), services or HostServices()
        self.name = name
        self.spec = spec
        self.session_id: str | None = None  # the default session's
        self.capabilities = AgentCapabilities()
        self.policy = options.policy
        self.silence_after = 0.0  # seconds: a running turn with no word for this long is a silence (0: never)
        self.connected = asyncio.Event()
        self._log = logging.getLogger(f"acp_tray.agent.{name}")
        self.sessions = LiveSessions(self._log)
        self._on_drop = DropLog(self._log)
        self._sink = sink
        self._approvals = services.approvals or Approvals(sink)
        self._questions = services.questions or Questions(sink)
        self._options = options
        # what the agent writes while its own sign-in waits (an address to open, a code it reads)
        self.signin_lines = SignInLines(self._sign_in_lines_changed)
        self.stderr = StderrTail(name, on_line=self.signin_lines.heard)
        self._report = StatusReport(name, sink, self.stderr, self._log)
        self._handler: ClientHandler | None = None
        self._connection: Connection | None = None
        self._transport: WatchedTransport | None = None
        versions = services.versions or VersionMemory(None)
        self._versions = VersionChoice(name, spec.describe(), options.protocol, versions, self._log)
        self.version = ProtocolVersion.V1  # negotiated on the current connection
        self.speaks_acp = False  # it has answered `initialize` (a sign-in may still be needed)
        self.signin = SignIn(
            name,
            sink,
            self._report.status,
            remote=spec.remote,
            command=spec.command,
            program=spec.program,
            cwd=spec.cwd,
            env=spec.env,
            on_signed_in=self._signed_in,
        )
        self._loading: set[str] = set()  # sessions whose `session/load` is under way: their updates are replays
        # what the agent asks of us, answered by `peer.py` (called by the ClientHandler)
        self.peer = AgentPeer(
            name, sink, self.sessions, self._approvals, self._questions, lambda: self.policy, self._request_id
        )
        self._opener = SessionOpener(
            name,
            self.sessions,
            services.store or SessionStore(None),
            sink,
            self.signin,
            self._log,
            capabilities=lambda: self.capabilities,
            version=lambda: self.version,
            on_cancel=self._on_session_cancel,
            on_v1_reply=lambda: self._versions.answered_as_v1(self.version),
            loading=self._loading,
            silence_after=lambda: self.silence_after,
        )
        self._agent_run = _run_of(
            name, spec, options, services.secrets, connect=self._connect, report=self._report, signin=self.signin,
            stderr=self.stderr, on_drop=self._on_drop, log=self._log,
        )  # fmt: skip

    @property
    def protocol(self) -> str | int:
        """ "auto", 1 or 2 (from the preferences)."""
        return self._versions.preference

    @property
    def dropped_lines(self) -> int:
        """Messages from the agent skipped as unusable (over all its connections)."""
        return self._on_drop.count

    @property
    def other_updates(self) -> int:
        """Non-notice session updates received on the current connection (kept raw, not presented)."""
        return self._handler.other_updates if self._handler is not None else 0

    @property
    def last_detail(self) -> str:
        """The detail of the last status reported."""
        return self._report.last_detail

    def _may_be_slow(self) -> bool:
        """A handshake not answered in time means "does not speak ACP" unless the agent was only slow:
        it answered `initialize` already, it is remote (a server may be slow for now), or a package
        runner (npx, uvx) may still be downloading it on its first start. These are retried."""
        return self.speaks_acp or self.spec.remote or fetches_on_start(self.spec.command)

    @property
    def default_key(self) -> SessionKey:
        return SessionKey(self.name, str(self.spec.cwd), DEFAULT_SESSION)

    # one connection's life -------------------------------------------------------------------

    async def run(self) -> RunEnd:
        """Run one connection until the agent goes (or this task is cancelled). Never raises for agent faults."""
        self._report.status(AgentState.STARTING, self.spec.describe())
        end = RunEnd.ENDED
        try:
            end = await self._agent_run.run()
            return end
        except asyncio.CancelledError:
            self._report.status(AgentState.STOPPED, "stopped by acp-tray")
            raise
        finally:
            self._disconnected("the agent is gone")
            if end is not RunEnd.RECONNECT:  # a tree left from a fallback is gone before run() returns
                await self._agent_run.stopped()

    @contextlib.asynccontextmanager
    async def _connect(
        self, transport: WatchedTransport, let_go: LetGo | None
    ) -> AsyncIterator[Connection | HandshakeFailure]:
        """The SDK connection over `transport`, handshake done (or why it failed)."""
        self._handler = ClientHandler(self.name, self._sink, ProtocolVersion.V1, peer=self.peer, loading=self._loading)
        connection = Connection(self._handler, transport)
        self._connection = connection
        self._transport = transport
        self.speaks_acp = False  # until this connection's `initialize` is answered
        end = RunEnd.ENDED
        gone = AGENT_GONE
        try:
            try:
                # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancel that lands as
                # the handshake completes, and the host would then wait for ever on a live agent
                try:
                    async with asyncio.timeout(self._options.handshake_timeout):
                        await self._handshake(connection)
                except AuthRequiredError:  # the process stays; the session is asked for again after a sign-in
                    session = await self.signin.until_signed_in(
                        lambda: self._opener.attach(connection, self.default_key), transport.ended
                    )
                    self.session_id = session.session_id
            except (TimeoutError, RequestError, ConnectionError, HandshakeError) as exc:
                if isinstance(exc, TimeoutError) and not self._may_be_slow():
                    exc = not_acp_timeout(self.name, self._options.handshake_timeout)
                end = exc.end if isinstance(exc, HandshakeError) else RunEnd.ENDED
                if isinstance(exc, UnusableAgentError):
                    self._report.unusable(exc.title, exc.detail)
                elif isinstance(exc, FallbackError):
                    self._report.status(AgentState.STARTING, str(exc))
                yield HandshakeFailure(failure_reason(exc, self._options.handshake_timeout), end)
                return
            version = f"ACP {int(self.version)}"
            self._report.status(AgentState.CONNECTED, f"session {self.session_id} · {version}")
            self.connected.set()
            yield connection
        except asyncio.CancelledError:
            gone = "acp-tray stopped or restarted the agent"
            raise
        finally:
            await self._opener.close(connection)
            self._disconnected(gone)
            if let_go is not None and end is not RunEnd.RECONNECT:  # a fallback: nothing on its way
                with contextlib.suppress(Exception, asyncio.CancelledError):
                    await let_go()
            with contextlib.suppress(Exception, asyncio.CancelledError):  # a broken pipe here is the agent gone
                await asyncio.wait_for(connection.close(), CLOSE_TIMEOUT)

    def _disconnected(self, reason: str) -> None:
        self.connected.clear()
        self._connection = None
        self._opener.disconnected(reason)
        self._approvals.forget_agent(self.name)
        self._questions.forget_agent(self.name)

    async def _handshake(self, connection: Connection) -> None:
        self.version, init = await negotiate(
            connection,
            self._versions.offer(),
            self.protocol,
            self.name,
            notices=self._options.advertise_notices,
            speaks_v1=self._versions.speaks_v1,
            terminal_auth=not self.spec.remote,
        )
        assert self._handler is not None
        self._handler.version = self.version
        self.capabilities = agent_capabilities(init)
        self.speaks_acp = True
        self.signin.offered(self.capabilities.auth_methods, self.capabilities.logout)
        try:
            session = await self._opener.attach(connection, self.default_key)
        except RequestError as exc:  # alive and answering: a refusal, not a crash
            raise RefusedError(f"it refused to start a session: {error_text(exc)}") from None
        self.session_id = session.session_id

    # sessions ----------------------------------------------------------------------------------

    async def open_session(self, name: str = DEFAULT_SESSION, cwd: str | None = None) -> HostedSession:
        """The session called `name` in `cwd` (default: the agent's), attached on first use."""
        return await self._opener.open(self._connection, SessionKey(self.name, cwd or str(self.spec.cwd), name))

    def find_job(self, job_id: str) -> tuple[HostedSession, PromptJob] | None:
        return self.sessions.find_job(job_id)

    def _on_session_cancel(self, session_id: str) -> None:
        self._approvals.cancel_session(self.name, session_id)
        self._questions.cancel_session(self.name, session_id)

    # sign-in (agents/signin.py holds the logic) ----------------------------------------------

    def _signed_in(self) -> None:
        if self.connected.is_set():
            self._report.status(AgentState.CONNECTED, f"session {self.session_id} · ACP {int(self.version)}")

    async def sign_in(self, method: AuthMethod) -> None:
        transport = self._transport
        self.signin_lines.start()  # only while it waits: the lines with an address it writes meanwhile
        try:
            await self.signin.login(
                self._connection, self.version, method, transport.sent_id if transport is not None else lambda p: None
            )
        finally:
            self.signin_lines.stop()

    def _sign_in_lines_changed(self) -> None:
        lines = self.signin_lines
        self._sink(SignInOutput(self.name, lines.lines, lines.reads_code))

    async def type_code(self, code: str) -> None:
        """The code the person got from the agent's sign-in page, to the agent that asked for it on
        its terminal (its stdin): only while its sign-in waits and it wrote that sign-in on stdout."""
        refused = self.signin_lines.refusal(self.name, self.signin.pending is not None, code)
        if refused is not None:
            raise SignInError(refused)
        self.signin_lines.typed(code)
        try:
            if self._transport is None:
                raise ConnectionError
            await self._transport.type_line(code.strip())
        except (ConnectionError, OSError):
            raise SignInError(f"{self.name} went away before it got the code") from None

    async def sign_out(self) -> None:
        await self.signin.logout(self._connection, self.version)

    def _request_id(self, params: object) -> Any:
        return self._transport.request_id(params) if self._transport is not None else None


def _run_of(
    name: str,
    spec: AgentSpec,
    options: HostOptions,
    secrets: Callable[[str], Mapping[str, str]] | None,
    *,
    connect: Connect,
    report: StatusReport,
    signin: SignIn,
    stderr: StderrTail,
    on_drop: DropLog,
    log: logging.Logger,
) -> ProcessRun | RemoteRun:
    """How a connection's life goes: a local process, or a remote agent."""
    if spec.remote:
        from acp_tray.agents.remote_run import RemoteRun  # websockets only for a remote agent

        limit = options.max_line_bytes
        return RemoteRun(spec, connect=connect, report=report, on_drop=on_drop, max_message_bytes=limit)
    return ProcessRun(
        name, spec, stderr, log, connect=connect, report=report, signin=signin, on_drop=on_drop,
        max_line_bytes=options.max_line_bytes, secrets=secrets, run_mark=options.run_mark,
    )  # fmt: skip
