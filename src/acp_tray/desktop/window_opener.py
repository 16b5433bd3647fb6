"""The acp-tray window opened from the daemon (the tray's "Open acp-tray…", a notification's
click): `acp-tray ui --page PAGE` as a process of its own, which finds or starts the window's
server and shows the app window (or the browser). What it says on standard error is for the
person: why the window did not open, or, when it opened all the same, what to do about how (no
app window: it opened in the browser). The daemon imports none of the window's modules."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from acp_tray.desktop.terminal_window import cli_command

log = logging.getLogger(__name__)
DID_NOT_OPEN = "The acp-tray window did not open"
OPENED_ELSEWHERE = "The acp-tray window opened in your browser"


@dataclass(frozen=True)
class WindowTrouble:
    """What to tell the person about an opening: a title, the words of `acp-tray ui`, how serious."""

    title: str
    text: str
    severity: str = "error"


async def open_window(page: str, highlight: str = "") -> WindowTrouble | None:
    """Run `acp-tray ui` for `page`; what went wrong, in its words (None: it opened, nothing to say)."""
    argv = [*cli_command(), "ui", "--page", page, *(["--highlight", highlight] if highlight else [])]
    try:
        process = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE
        )
        _, errors = await process.communicate()
    except OSError as exc:
        log.warning("could not open the acp-tray window: %s", exc)
        return WindowTrouble(DID_NOT_OPEN, str(exc))
    words = [line.removeprefix("acp-tray: ") for line in errors.decode("utf-8", "replace").strip().splitlines()]
    if process.returncode == 0:
        if not words:
            return None
        log.warning("the acp-tray window: %s", " ".join(words))
        return WindowTrouble(OPENED_ELSEWHERE, "\n".join(words), "warning")
    why = words[-1] if words else f"`acp-tray ui` ended with exit code {process.returncode}"
    log.warning("could not open the acp-tray window: %s", why)
    return WindowTrouble(DID_NOT_OPEN, why)
