"""Agents left running by a daemon that did not stop cleanly (SIGKILL, the OOM killer, a crash),
ended by the next daemon.

Each agent runs in a process group of its own, so a daemon killed outright cannot take its agents
with it, and a launcher's children (npx → node → a native binary) would outlive it anyway. Every
agent a daemon starts carries that daemon's run mark in its environment (`ACP_TRAY_RUN`, a random
token, inherited by the agent's own children) and the mark is kept in the state directory while the
daemon runs. A daemon that finds a mark there at start ends the processes of this user that still
carry it: nothing else (a recycled pid, another program) carries the token. Linux reads `/proc`;
elsewhere nothing is done (Windows: the job object ends the tree when the daemon's handle goes).

The mark is laid over an agent's environment last (`agents/environment.py`: its configured `env`
cannot replace it) and is never in the daemon's own environment: what else the daemon starts (the
terminal of a sign-in, the editor of the preferences) is the person's, and outlives any daemon.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import secrets
import signal
import stat
import time
from pathlib import Path

from acp_tray.files.atomic import write_atomically
from acp_tray.files.private import open_regular

log = logging.getLogger(__name__)

VARIABLE = "ACP_TRAY_RUN"
TERM_GRACE = 2.0  # s for SIGTERM before SIGKILL
POLL = 0.05
MARK_BYTES = 256  # far more than a mark: what is read of the file at most
_MARK = re.compile(r"[0-9a-f]{32}")  # secrets.token_hex(16)
NOT_ENDED = "agents a killed daemon left running, if any, are not ended"


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


def _read_mark(mark_file: Path) -> str:
    """The mark a previous daemon left, or "" (none; or the file is not one acp-tray wrote: a
    FIFO would hang the start, a directory or a link is nobody's mark). Never blocks."""
    try:
        fd = open_regular(mark_file, os.O_RDONLY)
    except FileNotFoundError:
        return ""  # the last daemon stopped cleanly (or none ran)
    except OSError as exc:
        log.warning("%s cannot be read (%s); %s", mark_file, exc.strerror or exc, NOT_ENDED)
        return ""
    try:
        mark = os.read(fd, MARK_BYTES).decode("ascii", "replace").strip()
    finally:
        os.close(fd)
    return mark if _MARK.fullmatch(mark) else ""  # only what `mark_this_run` writes


def end_left_behind(mark_file: Path) -> list[int]:
    """End what the previous daemon's agents left running (see the module's note); their pids."""
    mark = _read_mark(mark_file)
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


def mark_this_run(mark_file: Path) -> str:
    """A new mark for this daemon's agents, kept in the state directory; returned for the daemon
    to give each agent it starts (and nothing else: see the module's note)."""
    mark = secrets.token_hex(16)
    try:
        write_atomically(mark_file, mark + "\n")
    except OSError as exc:  # a directory in its place, a full disk: the daemon runs all the same
        log.warning(
            "cannot keep this run's mark in %s (%s); if this daemon is killed, the next one cannot end "
            "the agents it leaves running",
            mark_file,
            exc.strerror or exc,
        )
    return mark


def clean_stop(mark_file: Path) -> None:
    """Every agent has been stopped: nothing for the next daemon to end."""
    with contextlib.suppress(FileNotFoundError):
        if stat.S_ISREG(mark_file.lstat().st_mode):  # only the mark: never a directory or a link put there
            mark_file.unlink()
