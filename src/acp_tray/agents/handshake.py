"""The `initialize` exchange and how a connection can end: version negotiation and its failures.

Offered 2 and answered 1, an agent is started again offering 1 (`FallbackError`), and that is
remembered. A program that answers `initialize` with an error, or not at all, does not speak ACP
(`NotAcpError`): said once, not restarted. An error answer the person must act on (a version we
cannot speak) makes the agent unusable; an error answer to `session/new` from a live agent is a
refusal (`RefusedError`), not a crash: it is not retried until the person restarts the agent,
changes its configuration or signs in.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from enum import Enum
from typing import Any

from acp.connection import Connection
from acp.exceptions import RequestError

from acp_tray.agents.transport import WatchedTransport
from acp_tray.agents.turns import Requester, error_text
from acp_tray.prefs.names import pasteable
from acp_tray.protocol.auth import AUTH_REQUIRED
from acp_tray.protocol.initialize import initialize_params
from acp_tray.protocol.version import DOES_NOT_SPEAK_ACP, SUPPORTED, ProtocolVersion, answered_version

__all__ = [
    "AUTH_REQUIRED",
    "Connect",
    "FallbackError",
    "HandshakeError",
    "HandshakeFailure",
    "NotAcpError",
    "RefusedError",
    "RunEnd",
    "UnusableAgentError",
]

UNSUPPORTED_VERSION = -32022
AGAIN_AS_V1 = "again, offering ACP 1: "  # a status detail after "starting": a sentence


class RunEnd(Enum):
    CANNOT_START = "cannot start"  # missing program or directory, unset header variable, unusable agent: no retry
    ENDED = "ended"  # it ran (or tried to) and is gone: the supervisor may restart it
    RECONNECT = "reconnect"  # start again at once (a protocol fallback), not a crash
    REFUSED = "refused"  # alive, but it refused to work (an error answer): wait for the person
    SHORT_OF_RESOURCES = "short of resources"  # the system is out of descriptors or memory: try again soon


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


class NotAcpError(UnusableAgentError):
    """It ran, but answered `initialize` with an error or not at all: not an ACP agent (`cat`
    echoes the request, and the echo of acp-tray's own "Method not found" comes back as the answer)."""

    def __init__(self, why: str) -> None:
        super().__init__("Not an ACP agent", f"it {DOES_NOT_SPEAK_ACP}: {why}")
        self.why = why

    def __str__(self) -> str:  # the status detail: "does not speak ACP (…): why"
        return f"{DOES_NOT_SPEAK_ACP}: {self.why}"


class RefusedError(HandshakeError):
    """The agent is alive and answered a session request with an error: its own reason, verbatim."""

    end = RunEnd.REFUSED


class FallbackError(HandshakeError):
    """Offered 2, answered 1: start a fresh connection offering 1."""

    end = RunEnd.RECONNECT


@dataclass(frozen=True)
class HandshakeFailure:
    """A connection whose handshake failed: why, for a person, and how its run ends."""

    reason: str
    end: RunEnd


LetGo = Callable[[], Awaitable[None]]  # cuts what is on its way to the agent (a process's stdin)
# the host's connection over a transport, handshake done (or why not): one run's middle
Connect = Callable[[WatchedTransport, LetGo | None], AbstractAsyncContextManager[Connection | HandshakeFailure]]


async def negotiate(
    connection: Requester,
    offer: ProtocolVersion,
    preference: str | int,
    agent: str,
    *,
    notices: bool,
    speaks_v1: Callable[[], None],
    terminal_auth: bool = True,
) -> tuple[ProtocolVersion, Any]:
    """`initialize` offering `offer`: the version agreed and the agent's answer. `speaks_v1` is
    called when the agent turned out to speak ACP 1 only (to be remembered). `terminal_auth`:
    terminal sign-in is offered (a local agent, whose command acp-tray can run)."""
    auto = preference == "auto"
    try:
        init = await connection.send_request(
            "initialize", initialize_params(offer, notices=notices, terminal_auth=terminal_auth)
        )
    except RequestError as exc:
        if exc.code == UNSUPPORTED_VERSION and offer is ProtocolVersion.V2 and auto:
            speaks_v1()
            raise FallbackError(AGAIN_AS_V1 + "it refused ACP 2") from None
        if exc.code == UNSUPPORTED_VERSION:
            raise UnusableAgentError(
                "Unsupported protocol version",
                f"the agent does not speak ACP {int(offer)} ({error_text(exc)}); "
                f"check `protocol` for {agent} in the preferences",
            ) from None
        if exc.code == AUTH_REQUIRED:
            raise
        raise NotAcpError(f"it answered `initialize` with an error ({error_text(exc)})") from None
    answered = answered_version(init)
    if answered not in SUPPORTED or answered > offer:
        raise UnusableAgentError(
            "Unsupported protocol version",
            f"the agent answered protocolVersion {answered!r} to an offer of {int(offer)}; acp-tray speaks ACP 1 and 2",
        )
    if offer is ProtocolVersion.V2 and answered == 1 and preference == 2:
        raise UnusableAgentError(
            "Unsupported protocol version",
            f'the agent speaks ACP 1, and its preferences say protocol = 2; set "auto" or 1 for {agent}',
        )
    if offer is ProtocolVersion.V2 and answered == 2 and auto and echoed(init):
        speaks_v1()
        raise FallbackError(AGAIN_AS_V1 + "it answered ACP 2 in ACP 1's shape, echoing the offer")
    if offer is ProtocolVersion.V2 and answered == 1:
        # it may have read its capabilities from the v2-shaped request (a router converts them,
        # dropping session.notices): ask again on a fresh connection, and remember
        speaks_v1()
        raise FallbackError(AGAIN_AS_V1 + "it speaks ACP 1 only")
    return ProtocolVersion(answered), init


def echoed(init: Any) -> bool:
    """An answer of protocolVersion 2 with nothing of v2 in it (neither its required `info` nor
    `capabilities`): a v1 agent echoing the version it is offered (the Python SDK's
    `echo_agent.py` answers just `{"protocolVersion": 2}`). A v2 agent this wrongly catches can be
    pinned with `protocol = 2`."""
    return isinstance(init, dict) and "info" not in init and "capabilities" not in init


def not_acp_timeout(agent: str, handshake_timeout: float) -> NotAcpError:
    """No answer to `initialize` in time: not an ACP agent (or one too slow to start: a restart
    tries again)."""
    return NotAcpError(
        f"no answer to the handshake within {handshake_timeout:g} s; if it was only slow to start, "
        f"`{pasteable('agents', 'restart', agent)}` tries again"
    )


def failure_reason(exc: BaseException, handshake_timeout: float) -> str:
    """Why a handshake failed, for a person."""
    if isinstance(exc, asyncio.TimeoutError):
        return f"no answer to the handshake within {handshake_timeout:g} s"
    if isinstance(exc, RequestError):
        return f"handshake refused: {error_text(exc)}"
    if isinstance(exc, ConnectionError):
        return "agent closed the connection during the handshake"
    return str(exc)
