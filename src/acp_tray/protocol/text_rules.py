"""Whether a string from outside is text acp-tray can keep, hand on and show as it is: an agent's
session id or sign-in command, a person's session name. Not text: a lone surrogate (a JSON escape
of half a character, or bytes that were not UTF-8 in a command line), which no UTF-8 file or
message can hold, a NUL (it ends a C string: no program can be given one), and, where the text is
also a command or a name a person types, any other control character. Pure, standard library
only: the control API checks with it too."""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def not_text(text: str, *, controls: bool = True) -> str | None:
    """Why `text` is not such text, in words ("holds a NUL character (\\x00)"), or None; with
    `controls` false, only a NUL among the control characters (text the surfaces clean when they
    show it). The offending character is named, never the rest (it may be a secret)."""
    if _SURROGATE.search(text):
        return "is not text: it holds a lone surrogate (bytes that are not UTF-8, or half a character)"
    if "\0" in text:
        return "holds a NUL character (\\x00)"
    control = _CONTROL.search(text) if controls else None
    return f"holds a control character ({control.group()!r})" if control is not None else None
