"""The session notice (`sessionUpdate: "notice"`), parsed by the same rules in ACP v1 and v2.

Rules (session-notices RFD and `$defs/Notice` in both schemas):
- `severity`: required, non-null string; open set (`_`-prefixed = extension, other unknown = future ACP).
- `title`: required, non-null, non-empty string.
- `description`, `_meta`: omitted and null mean absent; a wrong-typed value is treated as absent
  (`x-deserialize-default-on-error`).
A notice has no identity: two identical notices are two independent events.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

KNOWN_SEVERITIES = ("info", "warning", "error")


class SeverityKind(StrEnum):
    """How a severity string is classified; only the three known values carry salience."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"
    EXTENSION = "extension"  # `_`-prefixed: implementation-specific
    FUTURE = "future"  # any other unknown value: reserved for future ACP severities


_KNOWN_KINDS = {
    "info": SeverityKind.INFO,
    "warning": SeverityKind.WARNING,
    "error": SeverityKind.ERROR,
}


def severity_kind(severity: str) -> SeverityKind:
    """Classify a severity string without ever changing it."""
    known = _KNOWN_KINDS.get(severity)
    if known is not None:
        return known
    return SeverityKind.EXTENSION if severity.startswith("_") else SeverityKind.FUTURE


@dataclass(slots=True, eq=False)
class Notice:
    """One notice as the agent sent it. `eq=False`: equal fields never make two notices one.

    Treat as immutable. Not `frozen=True` only because a frozen dataclass costs ~3x more to
    build, and this is built once per notice on the receive path (benchmarks/parse_notices.py).
    """

    severity: str
    title: str
    description: str | None = None
    meta: dict[str, Any] | None = None

    @property
    def kind(self) -> SeverityKind:
        return severity_kind(self.severity)

    def same_content(self, other: Notice) -> bool:
        """True when both carry the same fields (for local coalescing, never for identity)."""
        return (
            self.severity == other.severity
            and self.title == other.title
            and self.description == other.description
            and self.meta == other.meta
        )


@dataclass(frozen=True, slots=True)
class Violation:
    """Why a payload is not a valid notice: the offending field and a readable reason."""

    field: str
    reason: str


def json_type(value: object) -> str:
    """The JSON type name of a decoded value, as JSON Schema names it (`True` is a boolean, `1` an
    integer, `1.5` a number)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def parse_notice(payload: dict[str, Any]) -> Notice | Violation:
    """Parse the fields of a `notice` update (the object that holds `sessionUpdate`)."""
    severity = payload.get("severity")
    if type(severity) is not str:
        if "severity" not in payload:
            return Violation("severity", "missing (required)")
        return Violation("severity", f"must be a string, got {json_type(severity)}")
    title = payload.get("title")
    if type(title) is not str:
        if "title" not in payload:
            return Violation("title", "missing (required)")
        return Violation("title", f"must be a string, got {json_type(title)}")
    if not title:
        return Violation("title", "must not be empty")
    description = payload.get("description")
    if type(description) is not str:
        description = None
    meta = payload.get("_meta")
    if type(meta) is not dict:
        meta = None
    return Notice(severity, title, description, meta)
