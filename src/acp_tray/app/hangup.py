"""acp-tray outlives the terminal it was started from: when the terminal closes (SIGHUP), its
console goes nowhere from then on, the log file keeps what is logged, and the daemon goes on with
its agents and its window until the tray's Quit or `acp-tray quit` (or SIGTERM) ends them all."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys

log = logging.getLogger(__name__)

HANGUP: signal.Signals | None = getattr(signal, "SIGHUP", None)  # none on Windows


def go_on_without_terminal() -> None:
    """The terminal closed: standard input, output and error are pointed at the null device (a
    line printed later is dropped, not an error), and the log says so."""
    log.warning(
        "the terminal acp-tray was started from closed: acp-tray goes on without it (its lines are in"
        " this log); the tray menu's Quit or `acp-tray quit` stops it"
    )
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_RDWR)
        try:
            for stream in (sys.stdin, sys.stdout, sys.stderr):
                with contextlib.suppress(OSError, ValueError, AttributeError):
                    os.dup2(devnull, stream.fileno())
        finally:
            os.close(devnull)
