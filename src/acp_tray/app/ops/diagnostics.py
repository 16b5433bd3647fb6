"""The `diagnostics` op: `acp-tray doctor --json` run by the daemon as a child process, in the
daemon's own environment (its session bus, its display, its preferences file) and told the tray
backend the daemon runs (which `doctor` in a terminal can only guess); the window's diagnostics
page shows what it finds. A child process, so that the checks' libraries (dbus-fast, python-xlib,
PyGObject) never stay loaded in the daemon."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import TYPE_CHECKING

from acp_tray.control.api import ErrorCode, OpError
from acp_tray.control.replies import CheckRow
from acp_tray.desktop.terminal_window import cli_command

if TYPE_CHECKING:
    from acp_tray.app.daemon import Daemon

log = logging.getLogger(__name__)
TIMEOUT = 30.0  # seconds: each check that asks the desktop waits 3 s at most


class DiagnosticsOps:
    def __init__(self, daemon: Daemon) -> None:
        self._daemon = daemon

    async def diagnostics(self) -> list[CheckRow]:
        daemon = self._daemon
        config = ["--config", str(daemon.prefs_path)] if daemon.prefs_path is not None else []
        argv = [*cli_command(), "doctor", "--json", *config, "--tray-backend", daemon.tray_backend or "none"]
        process = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
        try:
            out, errors = await asyncio.wait_for(process.communicate(), TIMEOUT)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
            raise OpError(f"the checks did not finish within {TIMEOUT:g} s", ErrorCode.FAILED) from None
        try:
            rows: list[CheckRow] = json.loads(out)
        except ValueError:
            words = errors.decode("utf-8", "replace").strip().splitlines()
            why = words[-1] if words else f"exit {process.returncode}"
            raise OpError(f"the checks did not run: {why}", ErrorCode.FAILED) from None
        log.info("diagnostics: %d checks, %d problems", len(rows), sum(row["status"] == "problem" for row in rows))
        return rows
