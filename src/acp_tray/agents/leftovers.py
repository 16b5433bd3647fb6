"""Agents left running by a daemon that did not stop cleanly (SIGKILL, the OOM killer, a crash),
ended by the next daemon.

Each agent runs in a process group of its own, so a daemon killed outright cannot take its agents
with it, and a launcher's children (npx → node → a native binary) would outlive it anyway. Every
agent a daemon starts carries that daemon's run mark in its environment (`ACP_TRAY_RUN`, a random
token, inherited by the agent's own children) and the mark is kept in the state directory while the
daemon runs. A daemon that finds a mark there at start ends the processes of this user that still
carry it: nothing else (a recycled pid, another program) carries the token. Linux reads `/proc`;
elsewhere nothing is done (Windows: the job object ends the tree when the daemon's handle goes).
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import signal
import time
from pathlib import Path

from acp_tray.atomic import write_atomically

log = logging.getLogger(__name__)

VARIABLE = "ACP_TRAY_RUN"
TERM_GRACE = 2.0  # s for SIGTERM before SIGKILL
POLL = 0.05


def carrying(mark: str, proc: Path = Path("/proc")) -> list[int]:
    """This user's processes whose environment carries `mark` (never this process)."""
    needle = f"{VARIABLE}={mark}".encode()
    found = []
    uid = os.getuid()
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if entry.stat().st_uid != uid:
                continue
            environ = (entry / "environ").read_bytes()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if needle in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


def _signal(pids: list[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def end_left_behind(mark_file: Path) -> list[int]:
    """End what the previous daemon's agents left running (see the module's note); their pids."""
    try:
        mark = mark_file.read_text(encoding="utf-8").strip()
    except OSError:
        return []  # the last daemon stopped cleanly (or none ran)
    if not mark or not Path("/proc/self/environ").exists():
        return []
    left = carrying(mark)
    if not left:
        return []
    _signal(left, signal.SIGTERM)
    deadline = time.monotonic() + TERM_GRACE
    while carrying(mark) and time.monotonic() < deadline:
        time.sleep(POLL)
    _signal(carrying(mark), signal.SIGKILL)
    what = f"{len(left)} agent process{'es' if len(left) != 1 else ''}"
    log.warning("ended %s left running by a daemon that did not stop cleanly: pids %s", what, ", ".join(map(str, left)))
    return left


def mark_this_run(mark_file: Path) -> None:
    """A new mark for this daemon's agents: in the state directory, and in the environment they inherit."""
    mark = secrets.token_hex(16)
    write_atomically(mark_file, mark + "\n")
    os.environ[VARIABLE] = mark


def clean_stop(mark_file: Path) -> None:
    """Every agent has been stopped: nothing for the next daemon to end."""
    with contextlib.suppress(FileNotFoundError):
        mark_file.unlink()
