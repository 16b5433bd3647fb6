"""Plain words for what the window shows: a line the daemon says (also to the CLI, where technical
detail is welcome) split into the line a person reads and the technical part, which the page puts
behind its "Details" disclosure (`_details.html`): an agent's session id and protocol version, an
agent's error code, commands to type in a terminal. Pure."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_CONNECTED = re.compile(r"^session (?P<id>\S+) · ACP (?P<version>\d+)$")
_AGAIN = re.compile(r"^again, offering ACP (?P<version>\d+): (?P<why>.+)$")
_CODE = re.compile(r"\s*\(code (?P<code>-?\d+)\)")
_BACKTICKED = re.compile(r"`([^`]+)`")
_CLAUSE = re.compile(r"(?:;\s+|:\s+|,\s+|\s+\()")  # where a clause that names a command may start


@dataclass(frozen=True)
class Said:
    line: str  # what a person reads
    details: list[str] = field(default_factory=list)  # the technical part, behind "Details"


def said(text: str) -> Said:
    """`text` as the window shows it: an agent's error code ("(code -32000)") and the clauses that
    name a command to type ("see `acp-tray status`") go to the details; other backticks are dropped."""
    details: list[str] = []
    code = _CODE.search(text)
    if code is not None:
        details.append(f"Error code: {code['code']}")
        text = text[: code.start()] + text[code.end() :]
    line, commands = _without_commands(text)
    details += commands
    return Said(_BACKTICKED.sub(r"\1", line).strip(), details)


def _without_commands(text: str) -> tuple[str, list[str]]:
    """`text` up to the clause that names its first acp-tray command, and those commands."""
    commands = [command for command in _BACKTICKED.findall(text) if command.startswith("acp-tray ")]
    if not commands:
        return text, []
    first = text.index(f"`{commands[0]}`")
    starts = [match.start() for match in _CLAUSE.finditer(text, 0, first) if not _closed(text, match.start(), first)]
    cut = starts[-1] if starts else first
    line = text[:cut].rstrip(" ;:,(")
    if not line:  # nothing but the command: the sentence is kept, its command said plainly
        return text, []
    ending = "." if text.rstrip().endswith(".") and not line.endswith(".") else ""
    return line + ending, [f"In a terminal: {command}" for command in commands]


def _closed(text: str, start: int, end: int) -> bool:
    """The clause at `start` is a parenthesis closed before `end` ("(e.g. TERMINAL=xterm)")."""
    return text[start:end].lstrip().startswith("(") and ")" in text[start:end]


def agent_detail(detail: str) -> Said:
    """An agent's detail line: "session ID · ACP 2" (what a connected agent says) is all technical;
    the protocol version it starts again with is said as what it means."""
    connected = _CONNECTED.match(detail)
    if connected is not None:
        return Said("", [f"Session id: {connected['id']}", f"Protocol: ACP {connected['version']}"])
    again = _AGAIN.match(detail)
    if again is not None:  # "again, offering ACP 1: it speaks ACP 1 only", after "Starting…"
        technical = [f"Protocol: ACP {again['version']}", again["why"]]
        return Said("starting again, in the older way it understands", technical)
    return said(detail)
