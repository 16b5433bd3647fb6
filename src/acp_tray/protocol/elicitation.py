"""`elicitation/create` and `elicitation/complete` as plain data: an agent's question (a form from a
restricted JSON schema, or a URL to open), the same in ACP 1 and 2, and the answers sent back.
Pure: no I/O; tolerant of agent input (what cannot be shown is said, never guessed)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

from acp_tray.loopback import web_address_problem

MESSAGE_KEPT = 2000  # characters of a question's message kept
FIELDS_KEPT = 50
CHOICES_KEPT = 100
TEXT_KEPT = 1000  # characters of a field's title, description, default or a choice's label
URL_KEPT = 8000
FIELD_KINDS = ("string", "number", "integer", "boolean", "array")

Scalar = str | int | float | bool
Value = Scalar | list[str]  # what an answer's `content` holds per field (ElicitationContentValue)


@dataclass(frozen=True, slots=True)
class Choice:
    value: str  # what is sent
    label: str  # what the person reads (the option's title, else the value)


@dataclass(frozen=True, slots=True)
class FormField:
    """One property of the requested schema, as a person fills it in."""

    name: str
    kind: str  # one of FIELD_KINDS
    title: str = ""
    description: str = ""
    required: bool = False
    default: Value | None = None
    choices: tuple[Choice, ...] = ()  # string: enum/oneOf; array: its items' enum/anyOf
    minimum: float | None = None  # number, integer
    maximum: float | None = None
    min_length: int | None = None  # string: characters; array: items
    max_length: int | None = None
    pattern: str = ""
    format: str = ""  # string: email | uri | date | date-time (or newer)

    @property
    def label(self) -> str:
        return self.title or self.name


@dataclass(frozen=True)
class Question:
    """A question an agent asks: `form` (fields to fill) or `url` (a page to open)."""

    mode: Literal["form", "url"]
    message: str
    session_id: str = ""  # "" when it is tied to a request, not a session
    fields: tuple[FormField, ...] = ()
    url: str = ""
    elicitation_id: str = ""  # url mode: what `elicitation/complete` names

    @property
    def single_choice(self) -> FormField | None:
        """The one field when the form is a single enum or boolean (a button per choice), else None."""
        if len(self.fields) != 1:
            return None
        only = self.fields[0]
        return only if only.kind == "boolean" or (only.kind == "string" and only.choices) else None


class UnaskableError(Exception):
    """An `elicitation/create` acp-tray cannot put to the person: the message says why, in plain words."""


def _text(value: object, limit: int = TEXT_KEPT) -> str:
    return value[:limit] if isinstance(value, str) else ""


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _whole(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _choices(raw: dict[str, Any], enum_key: str, titled_key: str) -> tuple[Choice, ...]:
    titled = raw.get(titled_key)
    if isinstance(titled, list):
        found = [
            Choice(o["const"][:TEXT_KEPT], _text(o.get("title")) or o["const"][:TEXT_KEPT])
            for o in titled
            if isinstance(o, dict) and isinstance(o.get("const"), str)
        ]
        return tuple(found[:CHOICES_KEPT])
    enum = raw.get(enum_key)
    if isinstance(enum, list):
        return tuple(Choice(v[:TEXT_KEPT], v[:TEXT_KEPT]) for v in enum if isinstance(v, str))[:CHOICES_KEPT]
    return ()


def _default(kind: str, value: object) -> Value | None:
    if kind == "string" and isinstance(value, str):
        return value[:TEXT_KEPT]
    if kind == "boolean" and isinstance(value, bool):
        return value
    if kind == "integer" and isinstance(value, int) and not isinstance(value, bool):
        return value
    if kind == "number" and (number := _number(value)) is not None:
        return number
    if kind == "array" and isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return None


def _field(name: str, raw: dict[str, Any], required: bool) -> FormField:
    kind = raw["type"]
    choices: tuple[Choice, ...] = ()
    if kind == "string":
        choices = _choices(raw, "enum", "oneOf")
    elif kind == "array":
        items = raw.get("items")
        choices = _choices(items, "enum", "anyOf") if isinstance(items, dict) else ()
    low, high = (_whole(raw.get("minItems")), _whole(raw.get("maxItems")))
    if kind == "string":
        low, high = _whole(raw.get("minLength")), _whole(raw.get("maxLength"))
    return FormField(
        name[:TEXT_KEPT],
        kind,
        _text(raw.get("title")).strip(),
        _text(raw.get("description")).strip(),
        required,
        _default(kind, raw.get("default")),
        choices,
        _number(raw.get("minimum")),
        _number(raw.get("maximum")),
        low,
        high,
        _text(raw.get("pattern")),
        _text(raw.get("format"), 32),
    )


def _fields(schema: object) -> tuple[FormField, ...]:
    if not isinstance(schema, dict):
        raise UnaskableError("its form has no schema")
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    required = schema.get("required")
    required = {r for r in required if isinstance(r, str)} if isinstance(required, list) else set()
    fields = []
    for name, raw in list(properties.items())[: FIELDS_KEPT + 1]:
        kind = raw.get("type") if isinstance(raw, dict) else None
        if isinstance(raw, dict) and kind in FIELD_KINDS:
            if kind == "array" and not isinstance(raw.get("items"), dict):
                kind = None
            else:
                fields.append(_field(name, raw, name in required))
                continue
        if name in required:
            shown = kind if isinstance(kind, str) else "unknown"
            raise UnaskableError(f"its form needs a field acp-tray cannot show ({name!r}, of type {shown[:40]!r})")
    if len(fields) > FIELDS_KEPT:
        raise UnaskableError(f"its form has more than {FIELDS_KEPT} fields")
    return tuple(fields)


def parse_question(params: object) -> Question:
    """The question in `elicitation/create`'s params (ACP 1 and 2 are alike); UnaskableError for a
    mode acp-tray does not know, or a form it cannot show (a required field of an unknown type)."""
    params = params if isinstance(params, dict) else {}
    message = params.get("message")
    message = message[:MESSAGE_KEPT] if isinstance(message, str) and message.strip() else "(no message)"
    session_id = params.get("sessionId")
    session_id = session_id if isinstance(session_id, str) else ""
    mode = params.get("mode")
    if mode == "form":
        return Question("form", message, session_id, _fields(params.get("requestedSchema")))
    if mode == "url":
        url, elicitation_id = params.get("url"), params.get("elicitationId")
        if not isinstance(url, str) or not url.strip() or len(url) > URL_KEPT:
            raise UnaskableError("it asked to open a page but gave no usable address")
        if not isinstance(elicitation_id, str):
            raise UnaskableError("it asked to open a page without an elicitation id")
        return Question("url", message, session_id, url=url.strip(), elicitation_id=elicitation_id)
    shown = mode[:40] if isinstance(mode, str) else "none"
    raise UnaskableError(f"it asked in a way acp-tray does not know (mode {shown!r})")


def completed_id(params: object) -> str | None:
    """The `elicitationId` of an `elicitation/complete` notification (None when it has none)."""
    value = params.get("elicitationId") if isinstance(params, dict) else None
    return value if isinstance(value, str) else None


# the answers ----------------------------------------------------------------------------------


def accepted(content: dict[str, Value] | None = None) -> dict[str, Any]:
    return {"action": "accept", "content": content} if content is not None else {"action": "accept"}


def declined() -> dict[str, Any]:
    return {"action": "decline"}


def cancelled() -> dict[str, Any]:
    return {"action": "cancel"}


# url mode -------------------------------------------------------------------------------------


def url_host(url: str) -> str:
    """The host a URL points at, as the person is told it ("" when it has none)."""
    try:
        return (urlsplit(url).hostname or "").strip()
    except ValueError:
        return ""


def openable(url: str) -> str | None:
    """Why acp-tray will not open `url` (None: it may, when the person clicks Open): only
    https://, and http:// on this machine's loopback."""
    return web_address_problem(url, "opened")
