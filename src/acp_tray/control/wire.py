"""The control protocol: one JSON object a line, both ways, versioned. Standard library only:
the CLI imports this, and must start fast.

Request:  {"v": 1, "op": "status", "args": {...}}
Replies:  zero or more events {"v": 1, "event": "queued"|"started"|"chunk", ...}, then exactly
          one final {"v": 1, "ok": true, "result": ...} or {"v": 1, "ok": false, "error": "...", "code": "..."}.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

VERSION = 1
MAX_LINE = 1024 * 1024  # a request line (the daemon reads at most this; replies are the daemon's own)


class ProtocolError(Exception):
    """A line that is not a control message of our version."""


def encode(message: Mapping[str, Any]) -> bytes:
    # ASCII: an agent's lone surrogate (valid in JSON escapes, not in UTF-8) cannot break a reply
    return json.dumps({"v": VERSION, **message}, ensure_ascii=True, separators=(",", ":")).encode() + b"\n"


def decode(line: bytes) -> dict[str, Any]:
    try:
        message = json.loads(line)
    except ValueError as exc:
        raise ProtocolError(f"not JSON: {exc}") from None
    except RecursionError:
        raise ProtocolError("nested too deeply") from None
    if not isinstance(message, dict):
        raise ProtocolError("not a JSON object")
    if type(message.get("v")) is not int or message["v"] != VERSION:
        raise ProtocolError(f"control protocol version {message.get('v')!r}; this acp-tray speaks {VERSION}")
    return message
