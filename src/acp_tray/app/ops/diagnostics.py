"""The `diagnostics` op: `acp-tray doctor --json` run by the daemon as a child process, in the
daemon's own environment (its session bus, its display, its preferences file) and told the tray
backend the daemon runs (which `doctor` in a terminal can only guess); the window's diagnostics
page shows what it finds. A child process, so that the checks' libraries (dbus-fast, python-xlib,
PyGObject) never stay loaded in the daemon. The agents that cannot work now (stopped by a failure,
crashing, waiting for a sign-in) come first, each a problem with its fix."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from acp_tray.control.errors import ErrorCode, OpError
from acp_tray.control.replies import AgentRow, CheckRow
from acp_tray.desktop.terminal_window import cli_command

if TYPE_CHECKING:
    from acp_tray.app.ops.status import StatusOps

log = logging.getLogger(__name__)
TIMEOUT = 30.0  # seconds: each check that asks the desktop waits 3 s at most


class DiagnosticsOps:
    def __init__(self, prefs_path: Path | None, tray_backend: str | None, status: StatusOps) -> None:
        self._prefs_path = prefs_path
        self._tray_backend = tray_backend  # the running tray's pystray backend; None without a tray
        self._status = status

    async def diagnostics(self) -> list[CheckRow]:
        config = ["--config", str(self._prefs_path)] if self._prefs_path is not None else []
        argv = [*cli_command(), "doctor", "--json", *config, "--tray-backend", self._tray_backend or "none"]
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
        rows = merged(agent_checks(await self._status.agents()), rows)
        log.info("diagnostics: %d checks, %d problems", len(rows), sum(row["status"] == "problem" for row in rows))
        return rows


FIX_FAILED = (
    "Read why on the Agents page (its last problem, with what it wrote), correct its command or what "
    "it needs, then press Start."
)
FIX_REFUSED = "Sign in or change its settings on the Agents page, then press Restart."
FIX_SIGN_IN = "Sign in from its entry on the Agents page."
FIX_CRASHING = "acp-tray starts it again by itself; if it keeps crashing, read why on the Agents page."


def agent_checks(rows: list[AgentRow]) -> list[CheckRow]:
    """The agents that cannot work now, as problems with their fix (in the agents' order)."""
    checks: list[CheckRow] = []
    for row in rows:
        name, state, problem = row["name"], row["state"], row["problem"]
        why = problem["what"] if problem is not None else row["detail"]
        last = problem["stderr"][-1:] if problem is not None else []
        said = f"{why}; it last wrote: {last[0]}" if last else why
        if state == "needs sign-in":
            found = (f"{name} waits for you to sign in.", FIX_SIGN_IN)
        elif state == "failed":
            found = (f"{name} is stopped: {said}", FIX_FAILED)
        elif state == "refused":
            found = (f"{name} refused to work: {said}", FIX_REFUSED)
        elif state == "exited":
            found = (f"{name} crashed: {said}", FIX_CRASHING)
        elif state != "stopped" and problem is not None and problem["crashes"] > 1:
            found = (f"{name} keeps crashing ({problem['crashes']} times in a row): {said}", FIX_CRASHING)
        else:
            continue
        checks.append({"name": f"agent {name}", "status": "problem", "detail": found[0], "fix": found[1]})
    return checks


def merged(agents: list[CheckRow], doctor: list[CheckRow]) -> list[CheckRow]:
    """The agents' problems first; doctor's check of the same agent's settings wins when it found a
    problem there (its fix names the setting), and gives way when it found none."""
    found = {row["name"] for row in doctor if row["status"] == "problem"}
    ours = {row["name"] for row in agents}
    return [row for row in agents if row["name"] not in found] + [
        row for row in doctor if row["name"] in found or row["name"] not in ours
    ]
