"""Find a named session again or start it: `session/load`, else `session/resume`, else `session/new`.

Every request has a time limit: an agent that stopped answering must not hold a prompt for ever.
A stored id the current connection already gave to another session is not reattached (ids are
unique only within one connection: an agent that numbers its sessions from 1 in each process
would otherwise have two live sessions share one id). A new id that is not text (a lone surrogate,
a NUL) makes the agent unusable: it is a fault of that agent alone. While a `session/load` waits
for its answer, its session id is in `loading`: what the agent sends for it then is its history replayed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Container, Iterator, MutableSet
from typing import Any

from acp.exceptions import RequestError

from acp_tray.agents.handshake import AUTH_REQUIRED, HandshakeError, UnusableAgentError
from acp_tray.agents.turns import Requester, error_text
from acp_tray.protocol.initialize import new_session_params
from acp_tray.protocol.session import (
    AgentCapabilities,
    load_session_params,
    resume_session_params,
    session_id_problem,
)

SESSION_TIMEOUT = 30.0  # session/new, load, resume after the handshake


async def ask(connection: Requester, method: str, params: dict[str, Any]) -> Any:
    """A session request with a time limit (HandshakeError when it runs out)."""
    try:
        async with asyncio.timeout(SESSION_TIMEOUT):
            return await connection.send_request(method, params)
    except TimeoutError:
        raise HandshakeError(f"no answer to {method} within {SESSION_TIMEOUT:g} s") from None


@contextlib.contextmanager
def _replaying(loading: MutableSet[str] | None, session_id: str) -> Iterator[None]:
    """While a `session/load` waits for its answer: the updates of its session are replayed history.
    (The SDK hands each update to the handler in order of arrival, before the answer wakes the load.)"""
    if loading is None:
        yield
        return
    loading.add(session_id)
    try:
        yield
    finally:
        loading.discard(session_id)


async def session_for(
    connection: Requester,
    cwd: str,
    stored: str | None,
    capabilities: AgentCapabilities,
    live: Container[str],
    log: logging.Logger,
    loading: MutableSet[str] | None = None,
) -> tuple[str, str]:
    """(session id, how): "loaded" or "resumed" (the `stored` id), "new", or "replaced" (a stored
    one could not be reattached). RequestError when the agent refuses `session/new`, or asks for a
    sign-in (auth_required) at any of the three."""
    how = "new"
    if stored is not None and stored in live:
        how = "replaced"
    elif stored is not None:
        for supported, method, params, done in (
            (capabilities.load_session, "session/load", load_session_params, "loaded"),
            (capabilities.resume_session, "session/resume", resume_session_params, "resumed"),
        ):
            if not supported:
                continue
            try:
                with _replaying(loading if method == "session/load" else None, stored):
                    await ask(connection, method, params(stored, cwd))
            except RequestError as exc:
                if exc.code == AUTH_REQUIRED:
                    raise  # a sign-in, not a session that is gone: asked again after it
                log.info("could not %s session %s: %s", method, stored, error_text(exc))
                continue
            return stored, done
        how = "replaced"
    answer = await ask(connection, "session/new", new_session_params(cwd))
    new_id: Any = answer.get("sessionId") if isinstance(answer, dict) else None
    if not isinstance(new_id, str):
        raise HandshakeError("agent answered session/new without a sessionId")
    problem = session_id_problem(new_id)
    if problem is not None:
        said = f"the agent answered session/new with a sessionId that {problem}"
        raise UnusableAgentError("Unusable session id", said)
    return new_id, how
