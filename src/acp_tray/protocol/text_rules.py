"""Whether a string from outside is text acp-tray can keep, hand on and show as it is: an agent's
session id or sign-in command, a person's session name. Not text: a lone surrogate (a JSON escape
of half a character, or bytes that were not UTF-8 in a command line), which no UTF-8 file or
message can hold, and a control character (NUL ends a C string; others rewrite a terminal line).
Pure, standard library only: the control API checks with it too."""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def not_text(text: str) -> str | None:
    """Why `text` is not such text, in words ("holds a NUL character (\\x00)"), or None. The
    offending character is named, never the rest (it may be a secret)."""
    if _SURROGATE.search(text):
        return "is not text: it holds a lone surrogate (bytes that are not UTF-8, or half a character)"
    control = _CONTROL.search(text)
    if control is None:
        return None
    if control.group() == "\0":
        return "holds a NUL character (\\x00)"
    return f"holds a control character ({control.group()!r})"
