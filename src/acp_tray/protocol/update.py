"""A tolerant `session/update` envelope for ACP v1 and v2.

The notice is parsed, by the same rules in both versions; a malformed notice is reported with
its field and reason. Every other `sessionUpdate` value is kept as raw data and ignored for
presentation, with one v2 rule on top:

- v2 (`SessionUpdate` is an open union): a *known* variant (`v2_variants.VARIANTS`) whose
  required properties are missing, or whose checked properties have the wrong JSON type at the
  top level of the update, is malformed (the open union must not hide a broken known variant).
  An unknown variant (`_`-prefixed extension or future ACP value) is never an error.
- v1: every non-notice update, whatever its shape, is kept raw. The v1 union is closed in the
  schema, but acp-tray has always tolerated and ignored these updates; that does not change.

In both versions the envelope is `{sessionId, update, _meta?}` (v1 `SessionNotification`,
v2 `UpdateSessionNotification`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from acp_tray.protocol.notice import Notice, Violation, json_type, parse_notice
from acp_tray.protocol.v2_variants import VARIANTS
from acp_tray.protocol.version import ProtocolVersion

NOTICE = "notice"

_PY_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "object": (dict,),
    "array": (list,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "null": (type(None),),
}
_ARTICLES = {
    "string": "a string",
    "object": "an object",
    "array": "an array",
    "number": "a number",
    "integer": "an integer",
    "boolean": "a boolean",
    "null": "null",
}


class _Missing:
    """The type of `_MISSING`, what `dict.get` gives for an absent property in the checks below."""


_MISSING = _Missing()
_V2 = ProtocolVersion.V2  # a module constant: `ProtocolVersion.V2` costs ~130 ns per lookup on 3.11


def _allowed(required: bool, json_types: tuple[str, ...]) -> frozenset[type]:
    """The exact Python types a property may have (`_Missing` when it may be absent).

    Exact types (`type(v) in ...`): JSON decoding makes no subclasses, and `True` is not an integer.
    """
    allowed = {t for json_type in json_types or _PY_TYPES for t in _PY_TYPES[json_type]}  # () = any type
    return frozenset(allowed if required else allowed | {_Missing})


# Per known v2 variant, (property, allowed types): one `type(update.get(...)) in allowed` each.
# The notice keeps its own parser (identical in v1 and v2), so it has no entry here.
_V2_CHECKS: dict[str, tuple[tuple[str, frozenset[type]], ...]] = {
    kind: tuple((name, _allowed(*field)) for name, field in fields.items())
    for kind, fields in VARIANTS.items()
    if kind != NOTICE
}


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

    The envelope and the notice are the same on the wire in v1 and v2; `version` only decides
    whether a known non-notice variant is checked (v2) or kept raw as it is (v1).
    """
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
        if version == _V2:
            broken = _broken_v2_variant(session_id, kind, update, params)
            if broken is not None:
                return broken
        return OtherUpdate(session_id, kind, update)
    parsed = parse_notice(update)
    if isinstance(parsed, Violation):
        return MalformedUpdate(session_id, kind, f"update.{parsed.field}", parsed.reason, params)
    return NoticeUpdate(session_id, parsed)


def _broken_v2_variant(session_id: str, kind: str, update: dict[str, Any], params: object) -> MalformedUpdate | None:
    """A known v2 variant whose property is missing or of the wrong type; None if it passes or is unknown."""
    for name, allowed in _V2_CHECKS.get(kind, ()):  # none for an unknown variant, never an error
        if type(update.get(name, _MISSING)) not in allowed:
            reason = _reason(name, VARIANTS[kind][name][1], update)
            return MalformedUpdate(session_id, kind, f"update.{name}", reason, params)
    return None


def _reason(name: str, json_types: tuple[str, ...], update: dict[str, Any]) -> str:
    """Why property `name` failed its check (off the hot path)."""
    if name not in update:
        return "missing (required)"
    expected = " or ".join(_ARTICLES[t] for t in json_types)
    return f"must be {expected}, got {json_type(update[name])}"
