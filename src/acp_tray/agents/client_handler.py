"""The client side of ACP: how acp-tray answers what an agent sends it.

`session/update` becomes domain events. The SDK runs every incoming notification as its own
task; tasks start in creation order, so the event is handed to the sink *before any await*
and notices keep their arrival order. Requests we do not implement get a JSON-RPC error.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from acp import RequestError

from acp_tray.events import Event, NoticeMalformed, NoticeReceived
from acp_tray.protocol.update import MalformedUpdate, NoticeUpdate, OtherUpdate, parse_session_update
from acp_tray.protocol.version import ProtocolVersion

EventSink = Callable[[Event], None]

log = logging.getLogger(__name__)

REJECT_KINDS = ("reject_once", "reject_always")


def safe_permission_outcome(params: object) -> dict[str, Any]:
    """Until approvals exist: pick a reject option if the agent offers one, else `cancelled`."""
    options = params.get("options") if isinstance(params, dict) else None
    if isinstance(options, list):
        for kind in REJECT_KINDS:
            for option in options:
                if isinstance(option, dict) and option.get("kind") == kind and isinstance(option.get("optionId"), str):
                    return {"outcome": {"outcome": "selected", "optionId": option["optionId"]}}
    return {"outcome": {"outcome": "cancelled"}}


class ClientHandler:
    """The SDK `MethodHandler` for one agent connection."""

    def __init__(self, agent: str, sink: EventSink, version: ProtocolVersion = ProtocolVersion.V1) -> None:
        self._agent = agent
        self._sink = sink
        self._version = version
        self.other_updates = 0  # non-notice updates seen (kept raw, ignored for presentation)

    async def __call__(self, method: str, params: Any, is_notification: bool) -> Any:
        if method == "session/update":
            self.on_session_update(params)
            return None
        if method == "session/request_permission" and not is_notification:
            outcome = safe_permission_outcome(params)
            log.info("%s asked for permission; answered %s", self._agent, outcome["outcome"])
            return outcome
        if is_notification:
            log.debug("%s sent unsupported notification %r; ignored", self._agent, method)
            return None
        log.info("%s called unsupported method %r; answered method-not-found", self._agent, method)
        raise RequestError.method_not_found(method)

    def on_session_update(self, params: object) -> None:
        """Synchronous on purpose: see the module docstring."""
        update = parse_session_update(params, self._version)
        if isinstance(update, NoticeUpdate):
            self._sink(NoticeReceived(self._agent, update.session_id, update.notice))
        elif isinstance(update, MalformedUpdate):
            log.warning(
                "%s sent a malformed session/update (%s: %s); dropped, session continues",
                self._agent,
                update.field,
                update.reason,
            )
            self._sink(NoticeMalformed(self._agent, update.session_id, update.field, update.reason, update.raw))
        elif isinstance(update, OtherUpdate):
            self.other_updates += 1
            log.debug("%s sent %r update; kept raw, not presented", self._agent, update.kind)
