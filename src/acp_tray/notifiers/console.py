"""The headless presenter: one readable console line per event.

Format: `HH:MM:SS  agent  SEVERITY  title — description`. Unknown severities are shown as
their (sanitised) string with a neutral style: no salience is inferred from them.
"""

from __future__ import annotations

import os
import sys
from typing import TextIO

from acp_tray.events import AgentState, AgentStatus, Event, NoticeMalformed, NoticeReceived
from acp_tray.presentation.text import DESCRIPTION_LIMIT, NAME_LIMIT, TITLE_LIMIT, plain_line
from acp_tray.protocol.notice import SeverityKind

_STYLE = {
    SeverityKind.INFO: "\x1b[36m",
    SeverityKind.WARNING: "\x1b[33m",
    SeverityKind.ERROR: "\x1b[1;31m",
    SeverityKind.EXTENSION: "\x1b[35m",
    SeverityKind.FUTURE: "\x1b[35m",
}
_DIM = "\x1b[2m"
_RESET = "\x1b[0m"
_STATE_LABEL = {
    AgentState.STARTING: "starting",
    AgentState.CONNECTED: "connected",
    AgentState.FAILED: "FAILED",
    AgentState.EXITED: "exited",
    AgentState.STOPPED: "stopped",
}


def severity_label(severity: str, kind: SeverityKind) -> str:
    if kind in (SeverityKind.EXTENSION, SeverityKind.FUTURE):
        return plain_line(severity, 24) or "?"
    return severity.upper() if kind is not SeverityKind.INFO else "info"


def format_event(event: Event, *, color: bool = False) -> str:
    def paint(style: str, text: str) -> str:
        return f"{style}{text}{_RESET}" if color else text

    stamp = paint(_DIM, event.time.strftime("%H:%M:%S"))
    agent = plain_line(event.agent, NAME_LIMIT)
    if isinstance(event, NoticeReceived):
        notice = event.notice
        kind = notice.kind
        text = plain_line(notice.title, TITLE_LIMIT)
        if notice.description:
            detail = plain_line(notice.description, DESCRIPTION_LIMIT)
            if detail:
                text += f" — {detail}"
        return f"{stamp}  {agent}  {paint(_STYLE[kind], f'{severity_label(notice.severity, kind):<8}')} {text}"
    if isinstance(event, NoticeMalformed):
        reason = plain_line(f"{event.field}: {event.reason}", DESCRIPTION_LIMIT)
        return f"{stamp}  {agent}  {paint(_DIM, 'dropped ')} malformed notice ({reason})"
    label = _STATE_LABEL[event.state]
    detail = plain_line(event.detail, DESCRIPTION_LIMIT)
    return f"{stamp}  {agent}  {paint(_DIM, f'{label:<8}')} {detail}".rstrip()


def wants_color(stream: TextIO) -> bool:
    return stream.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


class ConsoleNotifier:
    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream if stream is not None else sys.stdout
        self._color = wants_color(self._stream)

    def show(self, event: Event) -> None:
        print(format_event(event, color=self._color), file=self._stream, flush=True)


__all__ = ["AgentStatus", "ConsoleNotifier", "format_event"]
