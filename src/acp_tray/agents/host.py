"""Host one stdio agent: spawn it, speak ACP v1 through the SDK's `Connection`, report events.

Lifecycle: STARTING -> CONNECTED (after `initialize` and `session/new`) -> EXITED, or FAILED
when it cannot start or the handshake fails, or STOPPED when acp-tray stops it. The daemon
stays up whatever the agent does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import RequestError
from acp.connection import Connection
from acp.transports import spawn_stdio_transport

from acp_tray.agents.client_handler import ClientHandler, EventSink
from acp_tray.agents.environment import agent_environment
from acp_tray.agents.stderr import StderrTail
from acp_tray.agents.transport import DEFAULT_MAX_LINE_BYTES, LineTransport
from acp_tray.events import AgentState, AgentStatus
from acp_tray.protocol.initialize import initialize_params_v1, new_session_params
from acp_tray.protocol.version import ProtocolVersion

HANDSHAKE_TIMEOUT = 60.0
SETTLE_TIMEOUT = 1.0
DROP_LOG_FIRST = 20
DROP_LOG_EVERY = 1000
PREVIEW_BYTES = 120


class HandshakeError(Exception):
    """The agent answered `initialize` or `session/new` with something we cannot use."""


@dataclass(frozen=True)
class AgentSpec:
    """How to start an agent (from the configuration)."""

    command: list[str]
    cwd: Path = field(default_factory=Path.home)
    env: dict[str, str] = field(default_factory=dict)


class AgentHost:
    def __init__(
        self,
        name: str,
        spec: AgentSpec,
        sink: EventSink,
        *,
        advertise_notices: bool = True,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        handshake_timeout: float = HANDSHAKE_TIMEOUT,
    ) -> None:
        self.name = name
        self.spec = spec
        self.session_id: str | None = None
        self.dropped_lines = 0
        self._sink = sink
        self._advertise_notices = advertise_notices
        self._max_line_bytes = max_line_bytes
        self._handshake_timeout = handshake_timeout
        self._log = logging.getLogger(f"acp_tray.agent.{name}")
        self.stderr = StderrTail(name)
        self._handler: ClientHandler | None = None

    @property
    def other_updates(self) -> int:
        """Non-notice session updates received on the current connection (kept raw, not presented)."""
        return self._handler.other_updates if self._handler is not None else 0

    def _status(self, state: AgentState, detail: str = "") -> None:
        self._sink(AgentStatus(self.name, state, detail))

    def _on_drop(self, reason: str, line: bytes) -> None:
        self.dropped_lines += 1
        n = self.dropped_lines
        if n <= DROP_LOG_FIRST or n % DROP_LOG_EVERY == 0:
            preview = line[:PREVIEW_BYTES].decode("utf-8", "replace")
            self._log.warning("skipped a line from the agent (%s; %d so far): %r", reason, n, preview)

    async def run(self) -> None:
        """Run the agent until it exits (or this task is cancelled). Never raises for agent faults."""
        self._status(AgentState.STARTING, " ".join(self.spec.command))
        if not self.spec.cwd.is_dir():
            self._status(AgentState.FAILED, f"working directory {self.spec.cwd} does not exist")
            return
        program, *args = self.spec.command
        try:
            async with spawn_stdio_transport(
                program,
                *args,
                env=agent_environment(self.spec.env),
                cwd=self.spec.cwd,
                limit=self._max_line_bytes,
            ) as (reader, writer, process):
                await self._serve(reader, writer, process)
        except OSError as exc:
            self._status(AgentState.FAILED, f"cannot start {program!r}: {exc.strerror or exc}")
        except asyncio.CancelledError:
            self._status(AgentState.STOPPED, "stopped by acp-tray")
            raise

    async def _serve(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        process: asyncio.subprocess.Process,
    ) -> None:
        assert process.stderr is not None
        drain = asyncio.create_task(self.stderr.drain(process.stderr), name=f"stderr:{self.name}")
        transport = LineTransport(reader, writer, on_drop=self._on_drop, max_line_bytes=self._max_line_bytes)
        self._handler = ClientHandler(self.name, self._sink, ProtocolVersion.V1)
        connection = Connection(self._handler, transport)
        try:
            try:
                self.session_id = await asyncio.wait_for(self._handshake(connection), self._handshake_timeout)
            except (TimeoutError, RequestError, ConnectionError, HandshakeError) as exc:
                if isinstance(exc, ConnectionError):  # it probably exited: learn its code and last words
                    await self._settle(process, drain, SETTLE_TIMEOUT)
                self._status(AgentState.FAILED, self._failure_detail(exc, process))
                return
            self._status(AgentState.CONNECTED, f"session {self.session_id}")
            await self._settle(process, drain, None)
            assert process.returncode is not None
            self._status(AgentState.EXITED, self._exit_detail(process.returncode))
        finally:
            await connection.close()
            drain.cancel()

    @staticmethod
    async def _settle(process: asyncio.subprocess.Process, drain: asyncio.Task[None], timeout: float | None) -> None:
        """Wait for the process to exit (up to `timeout`), then briefly for its stderr to drain."""
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(process.wait(), timeout)
            await asyncio.wait_for(asyncio.shield(drain), SETTLE_TIMEOUT)

    async def _handshake(self, connection: Connection) -> str:
        init = await connection.send_request("initialize", initialize_params_v1(notices=self._advertise_notices))
        version = init.get("protocolVersion") if isinstance(init, dict) else None
        if version != ProtocolVersion.V1:
            raise HandshakeError(f"agent answered protocolVersion {version!r}; acp-tray speaks 1 here")
        session = await connection.send_request("session/new", new_session_params(str(self.spec.cwd)))
        session_id: Any = session.get("sessionId") if isinstance(session, dict) else None
        if not isinstance(session_id, str):
            raise HandshakeError("agent answered session/new without a sessionId")
        return session_id

    def _failure_detail(self, exc: BaseException, process: asyncio.subprocess.Process) -> str:
        if isinstance(exc, asyncio.TimeoutError):
            reason = f"no answer to the handshake within {self._handshake_timeout:g} s"
        elif isinstance(exc, RequestError):
            reason = f"handshake refused: {exc} (code {exc.code})"
        elif isinstance(exc, ConnectionError):
            reason = "agent closed the connection during the handshake"
        else:
            reason = str(exc)
        if process.returncode is not None:
            reason += f"; exit code {process.returncode}"
        return reason + self._stderr_hint()

    def _exit_detail(self, code: int) -> str:
        return f"exit code {code}" + self._stderr_hint()

    def _stderr_hint(self) -> str:
        tail = self.stderr.tail()
        return f"; last stderr: {tail[-1]}" if tail else ""
