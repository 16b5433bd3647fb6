"""The headless surface: one readable console line per native notification it stands in for.

Format: `HH:MM:SS  agent  SEVERITY  title — description  ×3`. Unknown severities are shown as
their (sanitised) string with a neutral style: no salience is inferred from them. Only
presentations routed to a native notification are printed; tray-only ones are in the history.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import TextIO

from acp_tray.events import AgentState, AgentStatus
from acp_tray.logs.text import DESCRIPTION_LIMIT, NAME_LIMIT, TITLE_LIMIT, plain_line
from acp_tray.notifiers.content import Notification
from acp_tray.presentation.router import Presentation
from acp_tray.protocol.notice import SeverityKind

log = logging.getLogger(__name__)

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
    AgentState.REFUSED: "REFUSED",
    AgentState.EXITED: "exited",
    AgentState.STOPPED: "stopped",
    AgentState.NEEDS_SIGNIN: "SIGN-IN",
}


def severity_label(severity: str, kind: SeverityKind) -> str:
    if kind in (SeverityKind.EXTENSION, SeverityKind.FUTURE):
        return plain_line(severity, 24) or "?"
    return severity.upper() if kind is not SeverityKind.INFO else "info"


def _paint(color: bool, style: str, text: str) -> str:
    return f"{style}{text}{_RESET}" if color else text


def notice_line(
    stamp: str,
    agent: str,
    severity: str,
    kind: SeverityKind,
    title: str,
    description: str | None,
    *,
    suffix: str = "",
    color: bool = False,
) -> str:
    text = plain_line(title, TITLE_LIMIT)
    detail = plain_line(description, DESCRIPTION_LIMIT) if description else ""
    if detail:
        text += f" — {detail}"
    label = _paint(color, _STYLE[kind], f"{severity_label(severity, kind):<8}")
    line = f"{_paint(color, _DIM, stamp)}  {plain_line(agent, NAME_LIMIT)}  {label} {text}"
    return f"{line}  {_paint(color, _DIM, suffix)}" if suffix else line


def presentation_line(p: Presentation, *, color: bool = False) -> str:
    suffix = f"×{p.count}" if p.count > 1 else ""
    return notice_line(
        f"{p.time:%H:%M:%S}", p.agent, p.severity, p.kind, p.title, p.description, suffix=suffix, color=color
    )


def status_line(event: AgentStatus, *, color: bool = False) -> str:
    stamp = _paint(color, _DIM, event.time.strftime("%H:%M:%S"))
    label = _paint(color, _DIM, f"{_STATE_LABEL[event.state]:<8}")
    detail = plain_line(event.detail, DESCRIPTION_LIMIT)
    return f"{stamp}  {plain_line(event.agent, NAME_LIMIT)}  {label} {detail}".rstrip()


def wants_color(stream: TextIO) -> bool:
    return stream.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


class ConsoleNotifier:
    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream if stream is not None else sys.stdout
        self._color = wants_color(self._stream)
        self._gone = False

    def present(self, presentation: Presentation) -> None:
        if presentation.notify:
            self._print(presentation_line(presentation, color=self._color))

    def status(self, event: AgentStatus) -> None:
        self._print(status_line(event, color=self._color))

    def _print(self, line: str) -> None:
        if self._gone:
            return
        try:
            print(line, file=self._stream, flush=True)
        except OSError:  # `acp-tray run | tee log` and the reader has gone (Ctrl+C), or its terminal closed
            self._gone = True
            _discard_output(self._stream)
            log.info("the console's reader has gone: console lines stop; the history keeps every notice")


def _discard_output(stream: TextIO) -> None:
    """Point a stream whose pipe is broken at /dev/null, so that nothing written to it later (or
    flushed at exit) raises BrokenPipeError again."""
    try:
        fd = stream.fileno()
        devnull = os.open(os.devnull, os.O_WRONLY)
    except (OSError, ValueError):
        return
    try:
        os.dup2(devnull, fd)
    except OSError:
        pass
    finally:
        os.close(devnull)


class ConsoleBackend:
    """The last resort of the native chain: the notification becomes a console line."""

    name = "console"

    def __init__(self, console: ConsoleNotifier) -> None:
        self._console = console

    async def start(self) -> str:
        return "console lines"

    async def notify(self, notification: Notification) -> None:
        self._console.present(notification.presentation)

    async def close(self, group: int) -> None:
        """A console line stays written."""
        return None

    async def aclose(self) -> None:
        return None
