"""A tolerant `session/update` envelope for ACP v1 and v2.

The notice is parsed; a malformed notice is reported with its field and reason; every other
`sessionUpdate` value (known or unknown) is kept as raw data and ignored for presentation.
In both versions the envelope is `{sessionId, update, _meta?}` (v1 `SessionNotification`,
v2 `UpdateSessionNotification`), and the notice fields are identical.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from acp_tray.protocol.notice import Notice, Violation, parse_notice
from acp_tray.protocol.version import ProtocolVersion

NOTICE = "notice"


@dataclass(slots=True)
class NoticeUpdate:
    """A parsed notice and its session (treat as immutable; see `Notice` on why not frozen)."""

    session_id: str
    notice: Notice


@dataclass(frozen=True, slots=True)
class OtherUpdate:
    """Any non-notice update, known or unknown, kept raw; presentation ignores it."""

    session_id: str
    kind: str
    raw: dict[str, Any]


@dataclass(frozen=True, slots=True)
class MalformedUpdate:
    """A `session/update` that breaks a rule: not presented, logged, the session goes on."""

    session_id: str | None
    kind: str | None
    field: str
    reason: str
    raw: object


SessionUpdate = NoticeUpdate | OtherUpdate | MalformedUpdate


def parse_session_update(params: object, version: ProtocolVersion = ProtocolVersion.V1) -> SessionUpdate:
    """Parse the params of a `session/update` notification. Never raises on agent input.

    `version` is accepted so that version-specific variants can diverge later; the notice and
    the envelope are the same on the wire in v1 and v2.
    """
    del version  # identical rules today; kept in the signature on purpose
    if type(params) is not dict:
        return MalformedUpdate(None, None, "params", "must be an object", params)
    session_id = params.get("sessionId")
    if type(session_id) is not str:
        return MalformedUpdate(None, None, "sessionId", "missing or not a string", params)
    update = params.get("update")
    if type(update) is not dict:
        return MalformedUpdate(session_id, None, "update", "missing or not an object", params)
    kind = update.get("sessionUpdate")
    if type(kind) is not str:
        return MalformedUpdate(session_id, None, "update.sessionUpdate", "missing or not a string", params)
    if kind != NOTICE:
        return OtherUpdate(session_id, kind, update)
    parsed = parse_notice(update)
    if isinstance(parsed, Violation):
        return MalformedUpdate(session_id, kind, f"update.{parsed.field}", parsed.reason, params)
    return NoticeUpdate(session_id, parsed)
