"""One remote agent's run: its WebSocket opened with its headers (`agents/remote.py`), connected,
and its end told. Nothing of a remote agent's is left to stop after it."""

from __future__ import annotations

import os

from acp_tray.agents.handshake import Connect, HandshakeFailure, RunEnd
from acp_tray.agents.remote import RemoteConfigError, expand_headers, open_remote
from acp_tray.agents.spec import AgentSpec
from acp_tray.agents.status_report import StatusReport
from acp_tray.agents.transport import DropLog, WatchedTransport
from acp_tray.agents.turns import AGENT_GONE
from acp_tray.events import AgentState


class RemoteRun:
    def __init__(
        self,
        spec: AgentSpec,
        *,
        connect: Connect,
        report: StatusReport,
        on_drop: DropLog,
        max_message_bytes: int,
    ) -> None:
        assert spec.url is not None
        self._url = spec.url
        self._headers = spec.headers
        self._connect = connect
        self._report = report
        self._on_drop = on_drop
        self._max_message_bytes = max_message_bytes

    async def run(self) -> RunEnd:
        try:
            headers = expand_headers(self._headers, os.environ)
        except RemoteConfigError as exc:
            self._report.status(AgentState.FAILED, str(exc))
            return RunEnd.CANNOT_START
        try:
            remote = await open_remote(
                self._url, headers, on_drop=self._on_drop, max_message_bytes=self._max_message_bytes
            )
        except ConnectionError as exc:
            self._report.status(AgentState.FAILED, str(exc))
            return RunEnd.ENDED
        transport = WatchedTransport(remote)
        async with self._connect(transport, None) as connection:
            if isinstance(connection, HandshakeFailure):
                if connection.end is RunEnd.REFUSED:
                    self._report.refused(connection.reason)
                elif connection.end is not RunEnd.RECONNECT:
                    self._report.status(AgentState.FAILED, connection.reason)
                return connection.end
            await transport.ended.wait()
            self._report.status(AgentState.EXITED, AGENT_GONE)
            return RunEnd.ENDED

    async def stopped(self) -> None:
        """Nothing to wait for: no process of a remote agent's runs here."""
