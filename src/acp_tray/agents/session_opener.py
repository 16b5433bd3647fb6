"""Attaching an agent's named sessions on its connection, and closing them when it ends.

A session is reattached from the store (load, else resume) or started anew, on first use; two
callers asking for the same one at once share one attach. The host keeps one opener for its life.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, MutableSet

from acp.connection import Connection
from acp.exceptions import RequestError

from acp_tray.agents.handshake import AUTH_REQUIRED
from acp_tray.agents.live_sessions import LiveSessions
from acp_tray.agents.reattach import session_for
from acp_tray.agents.sessions import SessionKey, SessionStore, SessionStoreError
from acp_tray.agents.signin import SignIn
from acp_tray.agents.turns import HostedSession
from acp_tray.events import EventSink, SessionAttached
from acp_tray.protocol.session import AgentCapabilities, close_session_params
from acp_tray.protocol.version import ProtocolVersion

CLOSE_TIMEOUT = 2.0


class SessionOpener:
    def __init__(
        self,
        agent: str,
        sessions: LiveSessions,
        store: SessionStore,
        sink: EventSink,
        signin: SignIn,
        log: logging.Logger,
        *,
        capabilities: Callable[[], AgentCapabilities],
        version: Callable[[], ProtocolVersion],
        on_cancel: Callable[[str], None],
        on_v1_reply: Callable[[], None],
        loading: MutableSet[str],
        silence_after: Callable[[], float] = lambda: 0.0,
    ) -> None:
        self._agent = agent
        self._sessions = sessions
        self._store = store
        self._sink = sink
        self._signin = signin
        self._log = log
        self._capabilities = capabilities  # the current connection's (read at each attach)
        self._version = version
        self._on_cancel = on_cancel  # answers a cancelled session's pending permission requests
        self._on_v1_reply = on_v1_reply
        self._silence_after = silence_after  # seconds without a word that make a running turn a silence
        self._opening: dict[SessionKey, asyncio.Future[HostedSession]] = {}
        self._loading = loading  # sessions whose `session/load` waits for its answer (their updates are replays)

    async def attach(self, connection: Connection, key: SessionKey) -> HostedSession:
        """Reattach the stored session of `key` (load, else resume) or start a new one, and say which."""
        try:
            session_id, how = await session_for(
                connection,
                key.cwd,
                self._store.get(key),
                self._capabilities(),
                self._sessions.by_id,
                self._log,
                self._loading,
            )
        except RequestError as exc:
            if exc.code == AUTH_REQUIRED:
                raise self._signin.required(exc) from None  # tried again after the sign-in
            raise
        try:
            self._store.put(key, session_id)
        except SessionStoreError as exc:  # it works now; only a later reattach cannot find it
            self._log.warning("session %r is open, but will not be reattached after a restart: %s", key.name, exc)
        session = HostedSession(
            key,
            session_id,
            connection,
            self._sink,
            self._on_cancel,
            self._version(),
            self._on_v1_reply,
            signin=self._signin,
            silence_after=self._silence_after,
        )
        self._sessions.add(session)
        self._sink(SessionAttached(self._agent, key.name, session_id, how))
        return session

    async def open(self, connection: Connection | None, key: SessionKey) -> HostedSession:
        """The session of `key` on `connection`, attached on first use."""
        if key in self._sessions:
            return self._sessions[key]
        if key in self._opening:
            return await asyncio.shield(self._opening[key])
        if connection is None:
            raise ConnectionError(f"{self._agent} is not connected")
        opening: asyncio.Future[HostedSession] = asyncio.get_running_loop().create_future()
        self._opening[key] = opening
        try:
            session = await self.attach(connection, key)
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

    async def close(self, connection: Connection) -> None:
        """`session/close` for every open session where the agent supports it (v2: always), briefly:
        on shutdown the agent can free them; after a crash the calls just fail."""
        if not self._capabilities().close_session or not self._sessions:
            return
        calls = [
            connection.send_request("session/close", close_session_params(s.session_id))
            for s in self._sessions.values()
        ]
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.gather(*calls, return_exceptions=True), CLOSE_TIMEOUT)

    def disconnected(self, reason: str) -> None:
        """The connection is gone: its sessions fail with `reason`, the attaches under way stop."""
        self._sessions.close_all(reason)
        for opening in self._opening.values():
            opening.cancel()
        self._opening.clear()
