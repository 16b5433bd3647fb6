"""Untrusted text (titles, descriptions, agent names) made safe to show as one plain line.

Control characters and bidi overrides are removed, line breaks and tabs become spaces, lone
surrogates become U+FFFD, and the length is bounded with an ellipsis.
"""

from __future__ import annotations

import re

TITLE_LIMIT = 200
DESCRIPTION_LIMIT = 1000
NAME_LIMIT = 64

_WHITESPACE = re.compile(r"[\t\n\r\v\f\u0085\u2028\u2029]+")
# C0/C1 controls, DEL, bidi embeddings/overrides/isolates and marks, zero-width no-break
_INVISIBLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_LINE_BREAK = re.compile("[\n\r\v\f\u0085\u2028\u2029]")


def bounded(text: str, limit: int) -> str:
    """`text` cut to `limit` code points, an ellipsis marking the cut."""
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text


def plain_line(text: str, limit: int) -> str:
    """One line: every line break or tab becomes a space."""
    text = _SURROGATE.sub("\ufffd", text[: limit * 4])
    return bounded(_INVISIBLE.sub("", _WHITESPACE.sub(" ", text)).strip(), limit)


def plain_text(text: str, limit: int) -> str:
    """Several lines allowed (\\n kept, other breaks normalised to it); everything else as `plain_line`."""
    text = _SURROGATE.sub("\ufffd", text[: limit * 4]).replace("\r\n", "\n")
    lines = [_INVISIBLE.sub("", part).strip() for part in _LINE_BREAK.split(text.replace("\t", " "))]
    return bounded("\n".join(lines).strip(), limit)


def terminal_text(text: str) -> str:
    """Streamed text for a terminal: line breaks and tabs kept, every other control character
    (ESC sequences included) and bidi override removed, lone surrogates made U+FFFD. Not bounded."""
    text = _SURROGATE.sub("\ufffd", text).replace("\r\n", "\n")
    return _TERMINAL_UNSAFE.sub("", text)


_TERMINAL_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def asker(agent: str, subagent: str = "") -> str:
    """Who asks: the agent, or its subagent under it ("claude › Child check")."""
    return f"{agent} › {plain_line(subagent, NAME_LIMIT)}" if subagent else agent
