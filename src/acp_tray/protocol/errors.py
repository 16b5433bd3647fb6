"""An error an agent returned (a JSON-RPC error object: code, message, data) in plain words for a person.

Pure. The message is said as the agent put it, except the JSON it may carry (an API's error body
quoted in it), which is said by what it means; of the data only known shapes are said: a text,
`message`/`details`/`reason`/`error` (nested too), `authMethods` (the names of the ways to sign in),
codex's `codex_error_info`. Never a repr, a dict or JSON: what has no known shape is left out.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

from acp_tray.protocol.auth import AUTH_REQUIRED
from acp_tray.protocol.usage import REFUSED_STATUS, RateLimit

DETAIL_LIMIT = 300
DEPTH = 6  # how deep nested errors are looked into
CODE_WORDS = {
    -32700: "the agent could not read a message",
    -32600: "invalid request",
    -32601: "not supported by the agent",
    -32602: "invalid parameters",
    -32603: "internal error",
    -32800: "cancelled",
    AUTH_REQUIRED: "authentication required",
    -32002: "not found",
    -32022: "unsupported protocol version",
}
_TEXT_KEYS = ("message", "details", "detail", "reason", "error", "description")
_CODEX_INFO = ("codex_error_info", "codexErrorInfo")
_MEANINGLESS = {"[object Object]", "undefined", "null", "None"}  # what a JavaScript or Python object said as text
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_JSON_START = re.compile(r"[{\[]")


def error_words(code: object, message: object, data: object) -> str:
    """One line: the message (or the code's meaning), what the data adds, the code."""
    said = _text_words(message, DEPTH) if isinstance(message, str) and message not in _MEANINGLESS else None
    if not said:
        said = CODE_WORDS.get(code, "the agent reported an error") if isinstance(code, int) else None
        said = said or "the agent reported an error"
    detail = data_words(data)
    if detail and detail.casefold() not in said.casefold():
        if said.rstrip().endswith((".", "!", "?")):  # "… first. It offers …", not "first.: it offers"
            said = f"{said} {detail[:1].upper()}{detail[1:DETAIL_LIMIT]}"
        else:
            said = f"{said}: {detail[:DETAIL_LIMIT]}"
    return f"{said} (code {code})" if isinstance(code, int) and not isinstance(code, bool) else said


def data_words(data: object, depth: int = DEPTH) -> str | None:
    """What an error's `data` (or a part of it) means, in words, when it has a shape acp-tray knows."""
    if depth <= 0:
        return None
    if isinstance(data, str):
        return _text_words(data, depth)
    if isinstance(data, list):
        said = [w for w in (data_words(item, depth - 1) for item in data[:3]) if w]
        return "; ".join(said) or None
    if not isinstance(data, dict):
        return None
    return _object_words(data, depth)


def _object_words(data: dict[str, Any], depth: int) -> str | None:
    for key in _TEXT_KEYS:
        said = data_words(data.get(key), depth - 1) if isinstance(data.get(key), (str, dict)) else None
        if said:
            extra = _codex_words(data)
            return f"{said}; {extra}" if extra and extra.casefold() not in said.casefold() else said
    methods = data.get("authMethods")
    if isinstance(methods, list):
        names = [m.get("name") or m.get("id") or m.get("methodId") for m in methods if isinstance(m, dict)]
        shown = [n for n in names if isinstance(n, str) and n.strip()]
        ways = "one way" if len(shown) == 1 else f"{len(shown)} ways"
        return f"it offers {ways} to sign in: {', '.join(shown)}" if shown else None
    return _codex_words(data)


def _codex_words(data: dict[str, Any]) -> str | None:
    """codex's `codex_error_info`: a variant name ("UsageLimitExceeded"), or one with its fields
    ({"HttpConnectionFailed": {"http_status_code": 502}})."""
    info = next((data[k] for k in _CODEX_INFO if k in data), None)
    if isinstance(info, str):
        return _name_words(info)
    if isinstance(info, dict) and len(info) == 1:
        (name, fields), status = next(iter(info.items())), None
        if isinstance(fields, dict):
            status = next((v for k, v in fields.items() if "status" in k.lower() and isinstance(v, int)), None)
        return _name_words(name) + (f" (HTTP {status})" if status is not None else "")
    return None


def _name_words(name: str) -> str:
    """ "UsageLimitExceeded", "usage_limit_exceeded" -> "usage limit exceeded"."""
    return " ".join(_CAMEL.sub(" ", name).replace("_", " ").split()).lower()


def _text_words(text: str, depth: int) -> str | None:
    """A text as said, with any JSON it quotes ("API Error: 401 {...}") said by what it means."""
    match = _JSON_START.search(text)
    if match is not None:
        try:
            value, end = json.JSONDecoder().raw_decode(text, match.start())
        except ValueError:
            value = None
        if isinstance(value, (dict, list)):
            inner = data_words(value, depth - 1)
            before, after = text[: match.start()].strip().rstrip(":").strip(), text[end:].strip()
            text = " ".join(part for part in (f"{before}:" if before and inner else before, inner, after) if part)
    return text.strip() or None


def means_auth_required(code: object, data: object) -> bool:
    """An error that asks for a sign-in: ACP's code, or (agents that use another code) data that
    lists the ways to sign in."""
    if code == AUTH_REQUIRED and not isinstance(code, bool):
        return True
    return isinstance(data, dict) and isinstance(data.get("authMethods"), list)


_LIMIT_WORDS = re.compile(r"\b(rate|usage)[ _-]?limit|\btoo many requests\b|\b429\b", re.IGNORECASE)
_RESET_AT_KEYS = ("resetsAt", "resets_at", "resetAt", "reset_at")
_RETRY_AFTER_KEYS = ("retry_after", "retryAfter", "retry_after_seconds", "retryAfterSeconds")
_PROTOCOL_CODES = (-32700, -32600, -32601, -32602, -32800)  # about the exchange, not a limit


def limit_refusal(code: object, message: object, data: object, now: float) -> RateLimit | None:
    """The rate limit an error says the agent hit ("rate limit", "usage limit", HTTP 429, in its
    message or data), as a refused `RateLimit`: its kind ("usage", "rate", or the data's
    `rateLimitType`) and when it resets (`resetsAt`-like, or `retry_after` seconds from `now`).
    claude says it with ACP's auth_required code (-32000): the words decide, not the code."""
    if code in _PROTOCOL_CODES:
        return None
    kind_said = _found(data, ("type", "code", "errorType"), DEPTH)  # an API's error type: "rate_limit_error"
    parts = (message, data_words(data), kind_said)
    said = " ".join(part for part in parts if isinstance(part, str))
    found = _LIMIT_WORDS.search(said) or _status_429(data, DEPTH)
    if not found:
        return None
    kind = _found(data, ("rateLimitType",), DEPTH)
    if not isinstance(kind, str) or not kind:
        kind = "usage" if "usage" in said.casefold() else "rate"
    return RateLimit(REFUSED_STATUS, kind[:40], None, _resets(data, now))


def _found(data: object, keys: tuple[str, ...], depth: int) -> object:
    """The first value under one of `keys` in `data`, looked for in nested objects too."""
    if depth <= 0 or not isinstance(data, dict):
        return None
    for key in keys:
        if key in data:
            return data[key]
    return next((v for v in (_found(v, keys, depth - 1) for v in data.values()) if v is not None), None)


def _status_429(data: object, depth: int) -> bool:
    status = _found(data, ("status", "statusCode", "status_code", "http_status_code"), depth)
    return status == 429 or status == "429"


def _resets(data: object, now: float) -> float | None:
    """When the limit resets, in seconds since the epoch (None: not said, or not a time a clock shows)."""
    at, after = _seconds(_found(data, _RESET_AT_KEYS, DEPTH)), _seconds(_found(data, _RETRY_AFTER_KEYS, DEPTH))
    if at is None and after is not None:
        at = now + after
    if at is not None and at > 1e11:  # milliseconds
        at /= 1000.0
    return at if at is not None and 0 < at < 1e10 else None


def _seconds(value: object) -> float | None:
    """A number, or an ISO 8601 time as seconds since the epoch."""
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value == value:
        return float(value)
    return None
