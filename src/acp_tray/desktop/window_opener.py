"""The acp-tray window opened from the daemon (the tray's "Open acp-tray…", a notification's
click): `acp-tray ui --page PAGE` as a process of its own, which finds or starts the window's
server and opens the browser. The daemon imports none of the window's modules."""

from __future__ import annotations

import asyncio
import logging

from acp_tray.desktop.terminal_window import cli_command

log = logging.getLogger(__name__)


async def open_window(page: str, highlight: str = "") -> str | None:
    """Run `acp-tray ui` for `page`; why the window could not open, in its words (None: it opened)."""
    argv = [*cli_command(), "ui", "--page", page, *(["--highlight", highlight] if highlight else [])]
    try:
        process = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE
        )
        _, errors = await process.communicate()
    except OSError as exc:
        log.warning("could not open the acp-tray window: %s", exc)
        return str(exc)
    if process.returncode == 0:
        return None
    words = errors.decode("utf-8", "replace").strip().splitlines()
    why = words[-1].removeprefix("acp-tray: ") if words else f"`acp-tray ui` ended with exit code {process.returncode}"
    log.warning("could not open the acp-tray window: %s", why)
    return why
