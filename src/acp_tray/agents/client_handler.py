"""The client side of ACP: how acp-tray answers what an agent sends it.

`session/update` becomes domain events (notices; usage, titles and compaction: `session_facts.py`;
a notice of a subagent's session is titled with the subagent's name: "Child check › Tests failing"),
and every update is a word from the agent on its session (`Peer.heard`: progress, silences).
The SDK runs every incoming notification as its own task; tasks start in creation order, so the
event is handed to the sink *before any await* and notices keep their arrival order. A notice of a
session whose `session/load` is under way is the agent replaying its history: marked `replayed`
(recorded, never presented). Reply text goes to the session's waiting prompt. Permission requests
go to the approvals (the person or the agent's policy decides), questions (elicitation) to the
person. Anything else gets method-not-found.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Container
from typing import Any, Protocol

from acp.exceptions import RequestError

from acp_tray.agents.session_facts import fact_of
from acp_tray.events import EventSink, NoticeMalformed, NoticeReceived
from acp_tray.protocol.notice import Notice
from acp_tray.protocol.session import StateChange, message_id, message_text, state_change, whole_message_text
from acp_tray.protocol.update import NOTICE, MalformedUpdate, NoticeUpdate, OtherUpdate, parse_session_update
from acp_tray.protocol.version import ProtocolVersion

log = logging.getLogger(__name__)

AGENT_MESSAGE = "agent_message_chunk"
WHOLE_AGENT_MESSAGE = "agent_message"  # v2: an upsert of the whole message (the other v2 text variants
# are the person's own messages, thoughts and inter-session messages: not the agent's reply)
LOG_FIRST = 20
LOG_EVERY = 1000
STATE_UPDATE = "state_update"  # v2: the session's foreground activity (running, requires_action, idle)
SUBAGENT_UPDATE = "subagent_update"  # a child session announced or changed (v2; v1 once `subagents` is offered)


class Peer(Protocol):
    """What the handler needs from its host."""

    def on_message_text(self, session_id: str, text: str, message: str | None = None, whole: bool = False) -> None: ...

    def on_state(self, session_id: str, change: StateChange) -> None: ...

    def on_subagent(self, session_id: str, update: dict[str, Any]) -> None: ...

    def heard(self, session_id: str, kind: str, update: dict[str, Any] | None) -> None: ...

    def subagent(self, session_id: str) -> str: ...

    async def request_permission(self, params: object) -> dict[str, Any]: ...

    async def ask(self, params: object) -> dict[str, Any]: ...

    def completed(self, params: object) -> None: ...

    def cancel_request(self, params: object) -> None: ...


class ClientHandler:
    """The SDK `MethodHandler` for one agent connection."""

    def __init__(
        self,
        agent: str,
        sink: EventSink,
        version: ProtocolVersion = ProtocolVersion.V1,
        *,
        peer: Peer | None = None,
        loading: Container[str] = frozenset(),
    ) -> None:
        self._agent = agent
        self._sink = sink
        self._loading = loading  # ids of the sessions whose `session/load` has not been answered yet
        self.version = version  # set by the host once the handshake has chosen it
        self._peer = peer
        self.other_updates = 0  # non-notice updates seen (kept raw, ignored for presentation)
        self.malformed = 0

    async def __call__(self, method: str, params: Any, is_notification: bool) -> Any:
        if method == "session/update":
            self.on_session_update(params)
            return None
        if is_notification:
            if method == "$/cancel_request" and self._peer is not None:
                self._peer.cancel_request(params)
                return None
            if method == "elicitation/complete" and self._peer is not None:
                self._peer.completed(params)
                return None
            log.debug("%s sent notification %r; ignored", self._agent, method)
            return None
        if method == "session/request_permission" and self._peer is not None:
            return await self._peer.request_permission(params)
        if method == "elicitation/create" and self._peer is not None:
            return await self._peer.ask(params)
        log.info("%s called unsupported method %r; answered method-not-found", self._agent, method)
        raise RequestError.method_not_found(method)

    def on_session_update(self, params: object) -> None:
        """Synchronous on purpose: see the module docstring."""
        update = parse_session_update(params, self.version)
        if isinstance(update, NoticeUpdate):
            self._on_notice(update)
        elif isinstance(update, MalformedUpdate):
            self._on_malformed(update)
        else:
            self._on_other(update)

    def _on_notice(self, update: NoticeUpdate) -> None:
        notice, subagent, peer = update.notice, "", self._peer
        if peer is not None:
            peer.heard(update.session_id, NOTICE, None)
            subagent = peer.subagent(update.session_id)
            if subagent:
                notice = Notice(notice.severity, f"{subagent} › {notice.title}", notice.description, notice.meta)
        replayed = update.session_id in self._loading
        self._sink(NoticeReceived(self._agent, update.session_id, notice, subagent=subagent, replayed=replayed))

    def _on_other(self, update: OtherUpdate) -> None:
        self.other_updates += 1
        fact = fact_of(self._agent, update)
        if fact is not None:
            self._sink(fact)
        peer = self._peer
        if peer is not None:
            peer.heard(update.session_id, update.kind, update.raw)
            route = _ROUTES[self.version].get(update.kind)
            if route is not None:
                route(peer, update)

    def _on_malformed(self, update: MalformedUpdate) -> None:
        self.malformed += 1
        n = self.malformed
        if n <= LOG_FIRST or n % LOG_EVERY == 0:  # every one is in the history; the log is not flooded
            log.warning(
                "%s sent a malformed session/update (%s: %s; %d so far); dropped, session continues",
                self._agent,
                update.field,
                update.reason,
                n,
            )
        self._sink(NoticeMalformed(self._agent, update.session_id, update.field, update.reason, update.raw))


def _message_chunk(peer: Peer, update: OtherUpdate) -> None:
    text = message_text(update.raw)
    if text is not None:
        peer.on_message_text(update.session_id, text, message_id(update.raw))


def _whole_message(peer: Peer, update: OtherUpdate) -> None:
    text = whole_message_text(update.raw)
    if text is not None:
        peer.on_message_text(update.session_id, text, message_id(update.raw), whole=True)


def _state(peer: Peer, update: OtherUpdate) -> None:
    change = state_change(update.raw)
    if change is not None:
        peer.on_state(update.session_id, change)


def _subagent(peer: Peer, update: OtherUpdate) -> None:
    peer.on_subagent(update.session_id, update.raw)


# Per protocol version, the non-notice updates the peer is told about (the rest are only counted).
_ROUTES: dict[ProtocolVersion, dict[str, Callable[[Peer, OtherUpdate], None]]] = {
    ProtocolVersion.V1: {AGENT_MESSAGE: _message_chunk, SUBAGENT_UPDATE: _subagent},
    ProtocolVersion.V2: {
        AGENT_MESSAGE: _message_chunk,
        WHOLE_AGENT_MESSAGE: _whole_message,
        STATE_UPDATE: _state,
        SUBAGENT_UPDATE: _subagent,
    },
}
